/* core/vk_describe.c - what a physical device is and can do. */
#include "core/hash.h"
#include "core/vk_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static const char *vendor_name(uint32_t id)
{
	switch (id) {
	case 0x10de:
		return "NVIDIA";
	case 0x1002:
		return "AMD";
	case 0x8086:
		return "Intel";
	case 0x106b:
		return "Apple";
	case 0x13b5:
		return "ARM";
	case 0x5143:
		return "Qualcomm";
	case 0x10005:
		return "Mesa";
	default:
		return "unknown";
	}
}

static void uuid_text(const uint8_t u[VK_UUID_SIZE], char out[37])
{
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* Vendors pack driverVersion differently; NVIDIA uses 10.8.8.6 bits. */
static void driver_version_text(uint32_t vendor, uint32_t v, char *buf,
				size_t len)
{
	if (vendor == 0x10de)
		snprintf(buf, len, "%u.%u.%u.%u", v >> 22, (v >> 14) & 0xff,
			 (v >> 6) & 0xff, v & 0x3f);
	else if (vendor == 0x8086)
		snprintf(buf, len, "%u.%u", v >> 14, v & 0x3fff);
	else
		snprintf(buf, len, "%u.%u.%u", VK_API_VERSION_MAJOR(v),
			 VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
}

static bool has_device_ext(VkPhysicalDevice phys, const char *name)
{
	uint32_t n = 0;
	vkEnumerateDeviceExtensionProperties(phys, NULL, &n, NULL);
	VkExtensionProperties props[512];
	if (n > 512)
		n = 512;
	if (vkEnumerateDeviceExtensionProperties(phys, NULL, &n, props) < 0)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(props[i].extensionName, name) == 0)
			return true;
	return false;
}

/* The subgroup sizes a compute pipeline may require: the properties of
 * VK_EXT_subgroup_size_control.  It and VK_KHR_shader_integer_dot_product
 * are core in Vulkan 1.3, but the instance asks for 1.2 (core/vk.c), so
 * both count only where the device lists them (drivers keep listing
 * promoted extensions), and core/vk_device.c enables them by name. */
static void describe_subgroup_sizes(VkPhysicalDevice phys,
				    struct ax_vk_device_info *info)
{
	info->subgroup_size_min = info->subgroup_size_max = info->subgroup_size;
	if (!has_device_ext(phys, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME))
		return;
	VkPhysicalDeviceSubgroupSizeControlProperties ssc = {
	    .sType =
		VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES,
	};
	VkPhysicalDeviceProperties2 p2 = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
	    .pNext = &ssc,
	};
	vkGetPhysicalDeviceProperties2(phys, &p2);
	/* Only compute pipelines require a size here. */
	if (!(ssc.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT) ||
	    !ssc.minSubgroupSize || ssc.minSubgroupSize > ssc.maxSubgroupSize)
		return;
	info->subgroup_size_min = ssc.minSubgroupSize;
	info->subgroup_size_max = ssc.maxSubgroupSize;
	info->max_workgroup_subgroups = ssc.maxComputeWorkgroupSubgroups;
}

static void describe_properties(VkPhysicalDevice phys,
				struct ax_vk_device_info *info)
{
	VkPhysicalDevicePCIBusInfoPropertiesEXT pci = {
	    .sType =
		VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT,
	};
	VkPhysicalDeviceSubgroupProperties sub = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
	};
	VkPhysicalDeviceMaintenance3Properties m3 = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES,
	    .pNext = &sub,
	};
	VkPhysicalDeviceDriverProperties drv = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
	    .pNext = &m3,
	};
	VkPhysicalDeviceIDProperties ids = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES,
	    .pNext = &drv,
	};
	info->has_pci_bus_info =
	    has_device_ext(phys, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME);
	if (info->has_pci_bus_info)
		pci.pNext = &ids;
	VkPhysicalDeviceProperties2 p2 = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
	    .pNext = info->has_pci_bus_info ? (void *)&pci : (void *)&ids,
	};
	vkGetPhysicalDeviceProperties2(phys, &p2);
	const VkPhysicalDeviceProperties *p = &p2.properties;

	snprintf(info->name, sizeof(info->name), "%s", p->deviceName);
	info->type = p->deviceType;
	info->vendor_id = p->vendorID;
	info->device_id = p->deviceID;
	info->api_version = p->apiVersion;
	info->driver_version = p->driverVersion;
	info->limits = p->limits;
	info->driver_id = drv.driverID;
	snprintf(info->driver_name, sizeof(info->driver_name), "%s",
		 drv.driverName);
	snprintf(info->driver_info, sizeof(info->driver_info), "%s",
		 drv.driverInfo);
	snprintf(info->vendor, sizeof(info->vendor), "%s",
		 vendor_name(p->vendorID));
	driver_version_text(p->vendorID, p->driverVersion,
			    info->driver_version_text,
			    sizeof(info->driver_version_text));
	uuid_text(ids.deviceUUID, info->device_uuid);
	uuid_text(ids.driverUUID, info->driver_uuid);
	info->subgroup_size = sub.subgroupSize;
	info->max_memory_allocation_size = m3.maxMemoryAllocationSize;
	if (info->has_pci_bus_info)
		snprintf(info->pci_bus_id, sizeof(info->pci_bus_id),
			 "%04x:%02x:%02x.%x", pci.pciDomain, pci.pciBus,
			 pci.pciDevice, pci.pciFunction);
}

/* The shapes VK_NV_cooperative_matrix lists.  The query is an extension
 * command, so it comes from vkGetInstanceProcAddr (the loader exports
 * only core commands); without it the extension counts as absent. */
static void describe_coopmat_nv(VkInstance instance, VkPhysicalDevice phys,
				struct ax_vk_device_info *info)
{
	/* Only compute shaders use it here: a device that allows it in other
	 * stages alone counts as lacking it. */
	VkPhysicalDeviceCooperativeMatrixPropertiesNV stages = {
	    .sType =
		VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_PROPERTIES_NV,
	};
	VkPhysicalDeviceProperties2 p2 = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
	    .pNext = &stages,
	};
	vkGetPhysicalDeviceProperties2(phys, &p2);
	if (!(stages.cooperativeMatrixSupportedStages &
	      VK_SHADER_STAGE_COMPUTE_BIT)) {
		info->coopmat_nv = false;
		return;
	}
	PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV get =
	    (PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV)
		vkGetInstanceProcAddr(
		    instance,
		    "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV");
	VkCooperativeMatrixPropertiesNV p[AX_VK_MAX_COOPMAT];
	uint32_t n = AX_VK_MAX_COOPMAT;
	for (uint32_t i = 0; i < n; i++)
		p[i] = (VkCooperativeMatrixPropertiesNV){
		    .sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV,
		};
	VkResult r = get ? get(phys, &n, p) : VK_ERROR_EXTENSION_NOT_PRESENT;
	/* VK_INCOMPLETE: more shapes than we keep; the first ones do. */
	if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
		info->coopmat_nv = false;
		return;
	}
	info->n_coopmat_nv = n;
	for (uint32_t i = 0; i < n; i++)
		info->coopmat_nv_shapes[i] = (struct ax_vk_coopmat_shape){
		    .m = p[i].MSize,
		    .n = p[i].NSize,
		    .k = p[i].KSize,
		    .a = p[i].AType,
		    .b = p[i].BType,
		    .c = p[i].CType,
		    .d = p[i].DType,
		    .scope = p[i].scope,
		};
}

/* VK_EXT_external_memory_host and the alignment an imported pointer
 * and size must have. */
static void describe_host_import(VkPhysicalDevice phys,
				 struct ax_vk_device_info *info)
{
	info->host_import =
	    has_device_ext(phys, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
	if (!info->host_import)
		return;
	VkPhysicalDeviceExternalMemoryHostPropertiesEXT hp = {
	    .sType =
		VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT,
	};
	VkPhysicalDeviceProperties2 p2 = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
	    .pNext = &hp,
	};
	vkGetPhysicalDeviceProperties2(phys, &p2);
	info->host_import_align = hp.minImportedHostPointerAlignment;
	if (!info->host_import_align)
		info->host_import = false; /* a driver that says nothing */
}

static void describe_features(VkInstance instance, VkPhysicalDevice phys,
			      struct ax_vk_device_info *info)
{
	bool nv = has_device_ext(phys, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
	bool dot = has_device_ext(
	    phys, VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME);
	bool ssc =
	    has_device_ext(phys, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
	VkPhysicalDeviceCooperativeMatrixFeaturesNV cmnv = {
	    .sType =
		VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV,
	};
	VkPhysicalDeviceShaderIntegerDotProductFeatures dotf = {
	    .sType =
		VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES,
	    .pNext = nv ? &cmnv : NULL,
	};
	VkPhysicalDeviceSubgroupSizeControlFeatures sscf = {
	    .sType =
		VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES,
	    .pNext = dot ? (void *)&dotf : dotf.pNext,
	};
	void *ext_chain = ssc ? (void *)&sscf : sscf.pNext;
	VkPhysicalDeviceVulkan12Features f12 = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
	    .pNext = ext_chain,
	};
	VkPhysicalDeviceVulkan11Features f11 = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
	    .pNext = &f12,
	};
	VkPhysicalDeviceFeatures2 f2 = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
	    .pNext = info->api_version >= VK_API_VERSION_1_2 ? &f11 : NULL,
	};
	vkGetPhysicalDeviceFeatures2(phys, &f2);
	info->fp64_arith = f2.features.shaderFloat64;
	info->int64_arith = f2.features.shaderInt64;
	info->int16_arith = f2.features.shaderInt16;
	info->int_dot = dot && dotf.shaderIntegerDotProduct;
	info->subgroup_size_control = ssc && sscf.subgroupSizeControl;
	info->compute_full_subgroups = ssc && sscf.computeFullSubgroups;
	if (!info->subgroup_size_control)
		info->subgroup_size_min = info->subgroup_size_max =
		    info->subgroup_size;
	info->storage16 = f11.storageBuffer16BitAccess;
	info->fp16_arith = f12.shaderFloat16;
	info->int8_arith = f12.shaderInt8;
	info->storage8 = f12.storageBuffer8BitAccess;
	info->vulkan_memory_model = f12.vulkanMemoryModel;
	info->coopmat_nv = nv && cmnv.cooperativeMatrix;
	if (info->coopmat_nv)
		describe_coopmat_nv(instance, phys, info);
	info->memory_budget =
	    has_device_ext(phys, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
	describe_host_import(phys, info);
	info->memory_fd =
	    has_device_ext(phys, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
#ifdef VK_KHR_cooperative_matrix
	info->coopmat =
	    has_device_ext(phys, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
#else
	/* Built against headers that predate the extension: it cannot be
	 * enabled, so it is reported as absent. */
	info->coopmat = false;
#endif
}

static void describe_queues(VkPhysicalDevice phys,
			    struct ax_vk_device_info *info)
{
	uint32_t n = AX_VK_MAX_QUEUE_FAMILIES;
	VkQueueFamilyProperties q[AX_VK_MAX_QUEUE_FAMILIES];
	vkGetPhysicalDeviceQueueFamilyProperties(phys, &n, q);
	info->n_queue_families = n;
	info->timestamps = false;
	for (uint32_t i = 0; i < n; i++) {
		info->queue_families[i].flags = q[i].queueFlags;
		info->queue_families[i].count = q[i].queueCount;
		info->queue_families[i].timestamp_valid_bits =
		    q[i].timestampValidBits;
		if ((q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
		    q[i].timestampValidBits > 0 &&
		    info->limits.timestampPeriod > 0)
			info->timestamps = true;
	}
}

void ax_vk_describe_device(VkInstance instance, VkPhysicalDevice phys,
			   int index, struct ax_vk_device_info *info)
{
	char identity[1024];
	memset(info, 0, sizeof(*info));
	info->index = index;
	describe_properties(phys, info);
	describe_subgroup_sizes(phys, info);
	describe_features(instance, phys, info);
	describe_queues(phys, info);
	vkGetPhysicalDeviceMemoryProperties(phys, &info->memory);
	/* The fingerprint is what `compare` and `export` match devices on:
	 * the same hardware with the same driver build. */
	int n = snprintf(identity, sizeof(identity), "%u:%u:%u:%u:%s:%s:%s",
			 info->vendor_id, info->device_id, info->driver_id,
			 info->driver_version, info->device_uuid,
			 info->pci_bus_id, info->name);
	ax_hash_hex(identity, (size_t)n, info->fingerprint);
}

/* ---- the device as JSON (devices --json, the device row) ---------- */

void ax_vk_api_version_text(uint32_t v, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u", VK_API_VERSION_MAJOR(v),
		 VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
}

static json_t *api_version_json(uint32_t v)
{
	char buf[32];
	ax_vk_api_version_text(v, buf, sizeof(buf));
	return json_string(buf);
}

bool ax_vk_heap_device_local(const struct ax_vk_device_info *d, uint32_t heap)
{
	return heap < d->memory.memoryHeapCount &&
	       (d->memory.memoryHeaps[heap].flags &
		VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0;
}

static json_t *memory_json(const struct ax_vk_device_info *d)
{
	const VkPhysicalDeviceMemoryProperties *m = &d->memory;
	json_t *heaps = json_array(), *types = json_array();
	for (uint32_t i = 0; i < m->memoryHeapCount; i++)
		json_array_append_new(
		    heaps,
		    json_pack("{s:I,s:b}", "size",
			      (json_int_t)m->memoryHeaps[i].size,
			      "device_local", ax_vk_heap_device_local(d, i)));
	for (uint32_t i = 0; i < m->memoryTypeCount; i++) {
		VkMemoryPropertyFlags f = m->memoryTypes[i].propertyFlags;
		json_array_append_new(
		    types,
		    json_pack("{s:i,s:b,s:b,s:b,s:b}", "heap",
			      (int)m->memoryTypes[i].heapIndex, "device_local",
			      (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0,
			      "host_visible",
			      (f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0,
			      "host_coherent",
			      (f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0,
			      "host_cached",
			      (f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) != 0));
	}
	return json_pack("{s:o,s:o}", "heaps", heaps, "types", types);
}

/* The queue flags a device listing names, in the order it names them. */
static const struct {
	VkQueueFlagBits bit;
	const char *name;
} queue_flags[] = {
    {VK_QUEUE_GRAPHICS_BIT, "graphics"},
    {VK_QUEUE_COMPUTE_BIT, "compute"},
    {VK_QUEUE_TRANSFER_BIT, "transfer"},
};

#define N_QUEUE_FLAGS (sizeof(queue_flags) / sizeof(queue_flags[0]))

void ax_vk_queue_flags_text(uint32_t flags, char *buf, size_t len)
{
	size_t used = 0;
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < N_QUEUE_FLAGS && used < len; i++)
		if (flags & queue_flags[i].bit)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 used ? " " : "",
						 queue_flags[i].name);
}

static json_t *queues_json(const struct ax_vk_device_info *d)
{
	json_t *a = json_array();
	for (uint32_t i = 0; i < d->n_queue_families; i++) {
		const struct ax_vk_queue_family *q = &d->queue_families[i];
		json_t *flags = json_array();
		for (size_t k = 0; k < N_QUEUE_FLAGS; k++)
			if (q->flags & queue_flags[k].bit)
				json_array_append_new(
				    flags, json_string(queue_flags[k].name));
		json_array_append_new(
		    a, json_pack("{s:i,s:o,s:i,s:i}", "family", (int)i, "flags",
				 flags, "count", (int)q->count,
				 "timestamp_valid_bits",
				 (int)q->timestamp_valid_bits));
	}
	return a;
}

static json_t *limits_json(const struct ax_vk_device_info *d)
{
	const VkPhysicalDeviceLimits *l = &d->limits;
	return json_pack(
	    "{s:i,s:i,s:[i,i,i],s:[i,i,i],s:I,s:I,s:i,s:f}",
	    "max_shared_memory", (int)l->maxComputeSharedMemorySize,
	    "max_invocations", (int)l->maxComputeWorkGroupInvocations,
	    "max_workgroup_size", (int)l->maxComputeWorkGroupSize[0],
	    (int)l->maxComputeWorkGroupSize[1],
	    (int)l->maxComputeWorkGroupSize[2], "max_workgroup_count",
	    (int)l->maxComputeWorkGroupCount[0],
	    (int)l->maxComputeWorkGroupCount[1],
	    (int)l->maxComputeWorkGroupCount[2], "max_storage_buffer_range",
	    (json_int_t)l->maxStorageBufferRange, "max_memory_allocation_size",
	    (json_int_t)d->max_memory_allocation_size, "max_push_constants",
	    (int)l->maxPushConstantsSize, "timestamp_period_ns",
	    (double)l->timestampPeriod);
}

const char *ax_vk_component_type_name(VkComponentTypeNV t)
{
	switch (t) {
	case VK_COMPONENT_TYPE_FLOAT16_NV:
		return "f16";
	case VK_COMPONENT_TYPE_FLOAT32_NV:
		return "f32";
	case VK_COMPONENT_TYPE_FLOAT64_NV:
		return "f64";
	case VK_COMPONENT_TYPE_SINT8_NV:
		return "s8";
	case VK_COMPONENT_TYPE_SINT16_NV:
		return "s16";
	case VK_COMPONENT_TYPE_SINT32_NV:
		return "s32";
	case VK_COMPONENT_TYPE_SINT64_NV:
		return "s64";
	case VK_COMPONENT_TYPE_UINT8_NV:
		return "u8";
	case VK_COMPONENT_TYPE_UINT16_NV:
		return "u16";
	case VK_COMPONENT_TYPE_UINT32_NV:
		return "u32";
	case VK_COMPONENT_TYPE_UINT64_NV:
		return "u64";
	default:
		return "unknown";
	}
}

const char *ax_vk_scope_name(VkScopeNV s)
{
	switch (s) {
	case VK_SCOPE_DEVICE_NV:
		return "device";
	case VK_SCOPE_WORKGROUP_NV:
		return "workgroup";
	case VK_SCOPE_SUBGROUP_NV:
		return "subgroup";
	case VK_SCOPE_QUEUE_FAMILY_NV:
		return "queue_family";
	default:
		return "unknown";
	}
}

bool ax_vk_subgroup_size_ok(const struct ax_vk_device_info *d, uint32_t size)
{
	return d->subgroup_size_control && size && (size & (size - 1)) == 0 &&
	       size >= d->subgroup_size_min && size <= d->subgroup_size_max;
}

bool ax_vk_coopmat_nv_lists(const struct ax_vk_device_info *d, uint32_t m,
			    uint32_t n, uint32_t k, bool acc16)
{
	VkComponentTypeNV acc =
	    acc16 ? VK_COMPONENT_TYPE_FLOAT16_NV : VK_COMPONENT_TYPE_FLOAT32_NV;
	for (uint32_t i = 0; i < d->n_coopmat_nv; i++) {
		const struct ax_vk_coopmat_shape *c = &d->coopmat_nv_shapes[i];
		if (c->m == m && c->n == n && c->k == k &&
		    c->a == VK_COMPONENT_TYPE_FLOAT16_NV &&
		    c->b == VK_COMPONENT_TYPE_FLOAT16_NV && c->c == acc &&
		    c->d == acc && c->scope == VK_SCOPE_SUBGROUP_NV)
			return true;
	}
	return false;
}

void ax_vk_coopmat_nv_shapes_text(const struct ax_vk_device_info *d, char *buf,
				  size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (uint32_t i = 0; i < d->n_coopmat_nv && used < len; i++) {
		const struct ax_vk_coopmat_shape *c = &d->coopmat_nv_shapes[i];
		int n = snprintf(buf + used, len - used, "%s%ux%ux%u %s*%s+%s",
				 i ? ", " : "", c->m, c->n, c->k,
				 ax_vk_component_type_name(c->a),
				 ax_vk_component_type_name(c->b),
				 ax_vk_component_type_name(c->c));
		used += n > 0 ? (size_t)n : 0;
	}
}

const char *ax_vk_coopmat_absent(const struct ax_vk_device_info *d)
{
	if (d->n_coopmat_nv)
		return NULL;
	if (d->coopmat)
		return "the device has VK_KHR_cooperative_matrix, whose shapes "
		       "this build does not list (only VK_NV_cooperative_"
		       "matrix's)";
#ifdef VK_KHR_cooperative_matrix
	return "the device has neither VK_NV_cooperative_matrix nor "
	       "VK_KHR_cooperative_matrix for compute shaders";
#else
	return "the device has no VK_NV_cooperative_matrix for compute "
	       "shaders; VK_KHR_cooperative_matrix is not looked for: this "
	       "build's Vulkan headers predate it (1.3.255)";
#endif
}

/* The VK_NV_cooperative_matrix shapes, an empty array where none. */
static json_t *coopmat_json(const struct ax_vk_device_info *d)
{
	json_t *a = json_array();
	for (uint32_t i = 0; i < d->n_coopmat_nv; i++) {
		const struct ax_vk_coopmat_shape *c = &d->coopmat_nv_shapes[i];
		json_array_append_new(
		    a, json_pack("{s:s,s:i,s:i,s:i,s:s,s:s,s:s,s:s,s:s}",
				 "extension", AX_VK_COOPMAT_NV_EXT, "m",
				 (int)c->m, "n", (int)c->n, "k", (int)c->k, "a",
				 ax_vk_component_type_name(c->a), "b",
				 ax_vk_component_type_name(c->b), "c",
				 ax_vk_component_type_name(c->c), "d",
				 ax_vk_component_type_name(c->d), "scope",
				 ax_vk_scope_name(c->scope)));
	}
	return a;
}

json_t *ax_vk_device_json(const struct ax_vk_device_info *d)
{
	json_t *o = json_pack(
	    "{s:i,s:s,s:s,s:s,s:s,s:i,s:i,s:s,s:s,s:s,s:o,s:s,s:s,s:s}",
	    "index", d->index, "name", d->name, "fingerprint", d->fingerprint,
	    "vendor", d->vendor, "type", ax_vk_device_type_name(d->type),
	    "vendor_id", (int)d->vendor_id, "device_id", (int)d->device_id,
	    "driver_name", d->driver_name, "driver_info", d->driver_info,
	    "driver_version", d->driver_version_text, "api_version",
	    api_version_json(d->api_version), "device_uuid", d->device_uuid,
	    "driver_uuid", d->driver_uuid, "pci_bus_id", d->pci_bus_id);
	if (!d->pci_bus_id[0])
		json_object_set_new(o, "pci_bus_id", json_null());
	if (d->twin_of >= 0) /* identical devices: ax_vk_tell_twins */
		json_object_set_new(o, "twin",
				    json_pack("{s:i,s:i}", "of", d->twin_of,
					      "rank", d->twin_rank));
	/* The packed integers beside the text, under names of their own,
	 * as every other document's device carries them (docs/JSON.md). */
	json_object_set_new(o, "api_version_packed",
			    json_integer((json_int_t)d->api_version));
	json_object_set_new(o, "driver_version_packed",
			    json_integer((json_int_t)d->driver_version));
	json_object_set_new(o, "memory", memory_json(d));
	json_object_set_new(o, "queue_families", queues_json(d));
	json_object_set_new(o, "subgroup_size", json_integer(d->subgroup_size));
	json_object_set_new(o, "limits", limits_json(d));
	json_t *feat = json_pack(
	    "{s:b,s:b,s:b,s:b,s:b,s:b,s:b}", "fp16", d->fp16_arith, "storage16",
	    d->storage16, "int8", d->int8_arith, "storage8", d->storage8,
	    "cooperative_matrix", d->coopmat, "timestamps", d->timestamps,
	    "memory_budget", d->memory_budget);
	json_object_set_new(o, "device_group",
			    json_pack("{s:i,s:i}", "first", d->group_first,
				      "size", d->group_size));
	if (d->host_import)
		json_object_set_new(
		    o, "host_import_align",
		    json_integer((json_int_t)d->host_import_align));
	json_object_set_new(feat, "cooperative_matrix_nv",
			    json_boolean(d->coopmat_nv));
	json_object_set_new(feat, "vulkan_memory_model",
			    json_boolean(d->vulkan_memory_model));
	json_object_set_new(feat, "fp64", json_boolean(d->fp64_arith));
	json_object_set_new(feat, "int64", json_boolean(d->int64_arith));
	json_object_set_new(feat, "int16", json_boolean(d->int16_arith));
	json_object_set_new(feat, "integer_dot_product",
			    json_boolean(d->int_dot));
	json_object_set_new(feat, "subgroup_size_control",
			    json_boolean(d->subgroup_size_control));
	json_object_set_new(feat, "external_memory_host",
			    json_boolean(d->host_import));
	json_object_set_new(feat, "external_memory_fd",
			    json_boolean(d->memory_fd));
	json_object_set_new(o, "features", feat);
	json_object_set_new(
	    o, "subgroup_sizes",
	    json_pack("{s:i,s:i,s:b,s:i}", "min", (int)d->subgroup_size_min,
		      "max", (int)d->subgroup_size_max, "full_subgroups",
		      d->compute_full_subgroups, "max_workgroup_subgroups",
		      (int)d->max_workgroup_subgroups));
	json_object_set_new(o, "cooperative_matrix_shapes", coopmat_json(d));
	const char *why = ax_vk_coopmat_absent(d);
	json_object_set_new(o, "cooperative_matrix_reason",
			    why ? json_string(why) : json_null());
	return o;
}
