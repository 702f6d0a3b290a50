/* core/vk.c - instance, device enumeration and selection, logical device. */
#include "core/vk.h"

#include "core/error.h"
#include "core/hash.h"
#include "core/vk_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct ax_vk_instance {
	VkInstance instance;
	VkDebugUtilsMessengerEXT messenger;
	int n_devices;
	VkPhysicalDevice phys[AX_VK_MAX_DEVICES];
	struct ax_vk_device_info info[AX_VK_MAX_DEVICES];
	int validation_messages;
	bool leaked; /* a lost device is still alive: never destroy */
};

const char *ax_vk_result_name(VkResult r)
{
	switch (r) {
#define AX_VK_CASE(x)                                                          \
	case x:                                                                \
		return #x;
		AX_VK_CASE(VK_SUCCESS)
		AX_VK_CASE(VK_NOT_READY)
		AX_VK_CASE(VK_TIMEOUT)
		AX_VK_CASE(VK_INCOMPLETE)
		AX_VK_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
		AX_VK_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
		AX_VK_CASE(VK_ERROR_INITIALIZATION_FAILED)
		AX_VK_CASE(VK_ERROR_DEVICE_LOST)
		AX_VK_CASE(VK_ERROR_MEMORY_MAP_FAILED)
		AX_VK_CASE(VK_ERROR_LAYER_NOT_PRESENT)
		AX_VK_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
		AX_VK_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
		AX_VK_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
		AX_VK_CASE(VK_ERROR_TOO_MANY_OBJECTS)
		AX_VK_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
		AX_VK_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
		AX_VK_CASE(VK_ERROR_INVALID_SHADER_NV)
#undef AX_VK_CASE
	default:
		return "VkResult error";
	}
}

int ax_vk_error_from(VkResult r)
{
	switch (r) {
	case VK_SUCCESS:
		return 0;
	case VK_TIMEOUT:
		return AX_ETIMEOUT;
	case VK_ERROR_OUT_OF_DEVICE_MEMORY:
		return AX_EDEVMEM;
	case VK_ERROR_OUT_OF_HOST_MEMORY:
		return AX_ENOMEM;
	case VK_ERROR_DEVICE_LOST:
		return AX_EDEVLOST;
	default:
		return AX_EVK;
	}
}

const char *ax_vk_device_type_name(VkPhysicalDeviceType t)
{
	switch (t) {
	case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
		return "integrated-gpu";
	case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
		return "discrete-gpu";
	case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
		return "virtual-gpu";
	case VK_PHYSICAL_DEVICE_TYPE_CPU:
		return "cpu";
	default:
		return "other";
	}
}

static VKAPI_ATTR VkBool32 VKAPI_CALL
on_validation(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
	      VkDebugUtilsMessageTypeFlagsEXT types,
	      const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
	struct ax_vk_instance *inst = user;
	inst->validation_messages++;
	fprintf(stderr, "axbench: validation %s: %s\n",
		severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT
		    ? "error"
		    : "warning",
		data->pMessage);
	return VK_FALSE;
}

static bool has_layer(const char *name)
{
	uint32_t n = 0;
	vkEnumerateInstanceLayerProperties(&n, NULL);
	VkLayerProperties *props = calloc(n ? n : 1, sizeof(*props));
	bool found = false;
	if (props && vkEnumerateInstanceLayerProperties(&n, props) >= 0)
		for (uint32_t i = 0; i < n; i++)
			if (strcmp(props[i].layerName, name) == 0)
				found = true;
	free(props);
	return found;
}

static bool has_instance_ext(const char *name)
{
	uint32_t n = 0;
	vkEnumerateInstanceExtensionProperties(NULL, &n, NULL);
	VkExtensionProperties *props = calloc(n ? n : 1, sizeof(*props));
	bool found = false;
	if (props &&
	    vkEnumerateInstanceExtensionProperties(NULL, &n, props) >= 0)
		for (uint32_t i = 0; i < n; i++)
			if (strcmp(props[i].extensionName, name) == 0)
				found = true;
	free(props);
	return found;
}

static const VkDebugUtilsMessengerCreateInfoEXT *
messenger_info(struct ax_vk_instance *inst)
{
	static VkDebugUtilsMessengerCreateInfoEXT ci;
	ci = (VkDebugUtilsMessengerCreateInfoEXT){
	    .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
	    .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
			       VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
	    .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
			   VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
			   VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
	    .pfnUserCallback = on_validation,
	    .pUserData = inst,
	};
	return &ci;
}

static int create_vk_instance(struct ax_vk_instance *inst, bool validate,
			      char *err, size_t errlen)
{
	const char *layers[1] = {"VK_LAYER_KHRONOS_validation"};
	const char *exts[2];
	uint32_t n_exts = 0;
	bool portability =
	    has_instance_ext(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
	if (validate && !has_layer(layers[0]))
		return ax_errf(
		    err, errlen, AX_EUNSUPPORTED,
		    "validation requested but %s is not installed "
		    "(Debian: apt-get install vulkan-validationlayers)",
		    layers[0]);
	if (validate)
		exts[n_exts++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
	if (portability) /* MoltenVK lists its devices only with this */
		exts[n_exts++] = VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME;
	VkApplicationInfo app = {
	    .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
	    .pApplicationName = "axbench",
	    .apiVersion = VK_API_VERSION_1_2,
	};
	VkInstanceCreateInfo ci = {
	    .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
	    .pNext = validate ? messenger_info(inst) : NULL,
	    .flags = portability
			 ? VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR
			 : 0,
	    .pApplicationInfo = &app,
	    .enabledLayerCount = validate ? 1 : 0,
	    .ppEnabledLayerNames = layers,
	    .enabledExtensionCount = n_exts,
	    .ppEnabledExtensionNames = exts,
	};
	VkResult r = vkCreateInstance(&ci, NULL, &inst->instance);
	if (r != VK_SUCCESS)
		return ax_errf(err, errlen, AX_ENODEV,
			       "cannot create a Vulkan instance (%s): is a "
			       "Vulkan driver installed? (Debian: "
			       "mesa-vulkan-drivers)",
			       ax_vk_result_name(r));
	if (validate) {
		PFN_vkCreateDebugUtilsMessengerEXT create =
		    (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
			inst->instance, "vkCreateDebugUtilsMessengerEXT");
		if (create)
			create(inst->instance, messenger_info(inst), NULL,
			       &inst->messenger);
	}
	return 0;
}

/*
 * Two devices the driver describes identically (the same ids, UUIDs, PCI
 * bus id and name: lavapipe's manifest given twice, or a driver that
 * reports no UUID) would share one fingerprint, and so one device row,
 * and every result of the second would read as the first's.  What tells
 * them apart is their order among identical devices (enumeration order
 * among themselves is stable while the set of such devices is, unlike
 * the index, which moves when any other device comes or goes): a later
 * twin's fingerprint is the hash of the first's and its rank.
 */
static void tell_twins(struct ax_vk_instance *inst)
{
	char seen[AX_VK_MAX_DEVICES][17];
	for (int i = 0; i < inst->n_devices; i++) {
		struct ax_vk_device_info *d = &inst->info[i];
		memcpy(seen[i], d->fingerprint, sizeof(seen[i]));
		d->twin_of = -1;
		d->twin_rank = 0;
		for (int j = 0; j < i; j++) {
			if (strcmp(seen[j], seen[i]))
				continue;
			if (d->twin_of < 0)
				d->twin_of = j;
			d->twin_rank++;
		}
		if (d->twin_of < 0)
			continue;
		inst->info[d->twin_of].twin_of = d->twin_of;
		char id[64];
		int len = snprintf(id, sizeof(id), "%s:twin:%d", seen[i],
				   d->twin_rank);
		ax_hash_hex(id, (size_t)len, d->fingerprint);
	}
}

/* VK_KHR_device_group (core in 1.1): which devices the driver groups.
 * Each is its own group of one unless the driver says otherwise. */
static void tell_groups(struct ax_vk_instance *inst)
{
	for (int i = 0; i < inst->n_devices; i++) {
		inst->info[i].group_first = i;
		inst->info[i].group_size = 1;
	}
	uint32_t n = 0;
	if (vkEnumeratePhysicalDeviceGroups(inst->instance, &n, NULL) !=
		VK_SUCCESS ||
	    n == 0 || n > AX_VK_MAX_DEVICES)
		return;
	VkPhysicalDeviceGroupProperties g[AX_VK_MAX_DEVICES];
	for (uint32_t k = 0; k < n; k++)
		g[k] = (VkPhysicalDeviceGroupProperties){
		    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES,
		};
	if (vkEnumeratePhysicalDeviceGroups(inst->instance, &n, g) !=
	    VK_SUCCESS)
		return;
	for (uint32_t k = 0; k < n; k++) {
		int first = -1;
		for (uint32_t m = 0; m < g[k].physicalDeviceCount; m++)
			for (int i = 0; i < inst->n_devices; i++) {
				if (inst->phys[i] != g[k].physicalDevices[m])
					continue;
				if (first < 0)
					first = i;
				inst->info[i].group_first = first;
				inst->info[i].group_size =
				    (int)g[k].physicalDeviceCount;
			}
	}
}

int ax_vk_instance_create(bool validate, struct ax_vk_instance **out, char *err,
			  size_t errlen)
{
	*out = NULL;
	struct ax_vk_instance *inst = calloc(1, sizeof(*inst));
	if (!inst)
		return AX_ENOMEM;
	int rc = create_vk_instance(inst, validate, err, errlen);
	if (rc) {
		free(inst);
		return rc;
	}
	uint32_t n = AX_VK_MAX_DEVICES;
	VkResult r = vkEnumeratePhysicalDevices(inst->instance, &n, inst->phys);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0) {
		ax_vk_instance_destroy(inst);
		return ax_errf(err, errlen, AX_ENODEV,
			       "no Vulkan device found (%s); install a driver "
			       "(Debian: mesa-vulkan-drivers for lavapipe)",
			       ax_vk_result_name(r));
	}
	inst->n_devices = (int)n;
	for (int i = 0; i < inst->n_devices; i++)
		ax_vk_describe_device(inst->instance, inst->phys[i], i,
				      &inst->info[i]);
	tell_twins(inst);
	tell_groups(inst);
	*out = inst;
	return 0;
}

void ax_vk_mark_leaked(struct ax_vk_instance *inst) { inst->leaked = true; }

void ax_vk_instance_destroy(struct ax_vk_instance *inst)
{
	/* A device whose work timed out cannot be destroyed, and neither can
	 * its instance (the validation layer would report the live device);
	 * both stay until the process exits, which follows shortly. */
	if (!inst || inst->leaked)
		return;
	if (inst->messenger) {
		PFN_vkDestroyDebugUtilsMessengerEXT destroy =
		    (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
			inst->instance, "vkDestroyDebugUtilsMessengerEXT");
		if (destroy)
			destroy(inst->instance, inst->messenger, NULL);
	}
	if (inst->instance)
		vkDestroyInstance(inst->instance, NULL);
	free(inst);
}

int ax_vk_device_count(const struct ax_vk_instance *inst)
{
	return inst->n_devices;
}

const struct ax_vk_device_info *
ax_vk_device_info(const struct ax_vk_instance *inst, int index)
{
	if (index < 0 || index >= inst->n_devices)
		return NULL;
	return &inst->info[index];
}

VkPhysicalDevice ax_vk_physical(const struct ax_vk_instance *inst, int index)
{
	return inst->phys[index];
}

VkInstance ax_vk_handle(const struct ax_vk_instance *inst)
{
	return inst->instance;
}

int ax_vk_validation_messages(const struct ax_vk_instance *inst)
{
	return inst->validation_messages;
}

static void list_devices(const struct ax_vk_instance *inst, char *buf,
			 size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < inst->n_devices && used < len; i++) {
		const struct ax_vk_device_info *d = &inst->info[i];
		int w =
		    snprintf(buf + used, len - used, "%s%d: %s (uuid %s%s%s)",
			     i ? "; " : "", i, d->name, d->device_uuid,
			     d->pci_bus_id[0] ? ", pci " : "", d->pci_bus_id);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

static int default_device(const struct ax_vk_instance *inst)
{
	for (int i = 0; i < inst->n_devices; i++)
		if (inst->info[i].type == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)
			return i;
	return 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

int ax_vk_select(const struct ax_vk_instance *inst, const char *sel, int *index,
		 char *err, size_t errlen)
{
	char known[1024];
	if (!sel || !*sel) {
		*index = default_device(inst);
		return 0;
	}
	list_devices(inst, known, sizeof(known));
	if (ax_vk_select_is_many(sel))
		return ax_errf(err, errlen, AX_EINVAL,
			       "--device %s names several devices; only "
			       "`axbench run` measures several in one command: "
			       "name one here (devices: %s)",
			       sel, known);
	if (all_digits(sel)) {
		long i = strtol(sel, NULL, 10);
		if (i >= inst->n_devices)
			return ax_errf(err, errlen, AX_ENOTFOUND,
				       "--device %s: no device with that index "
				       "(devices: %s)",
				       sel, known);
		*index = (int)i;
		return 0;
	}
	int match = -1, matches = 0;
	for (int i = 0; i < inst->n_devices; i++) {
		const struct ax_vk_device_info *d = &inst->info[i];
		bool exact = strcasecmp(sel, d->device_uuid) == 0 ||
			     strcasecmp(sel, d->fingerprint) == 0 ||
			     (d->pci_bus_id[0] &&
			      (strcasecmp(sel, d->pci_bus_id) == 0 ||
			       strcasecmp(sel, d->pci_bus_id + 5) == 0));
		if (exact) {
			*index = i;
			return 0;
		}
		if (strcasestr(d->name, sel)) {
			match = i;
			matches++;
		}
	}
	if (matches == 1) {
		*index = match;
		return 0;
	}
	return ax_errf(
	    err, errlen, matches ? AX_EINVAL : AX_ENOTFOUND,
	    "--device %s: %s; give an index, a UUID, a PCI bus id "
	    "or a unique part of the name (devices: %s)",
	    sel, matches ? "matches more than one device" : "matches no device",
	    known);
}

bool ax_vk_select_is_many(const char *sel)
{
	return sel && (!strcasecmp(sel, "all") || strchr(sel, ','));
}

int ax_vk_select_many(const struct ax_vk_instance *inst, const char *sel,
		      int *index, int *n, char *err, size_t errlen)
{
	*n = 0;
	if (!strcasecmp(sel, "all")) {
		for (int i = 0; i < inst->n_devices && i < AX_VK_MAX_SELECTED;
		     i++)
			index[(*n)++] = i;
		return 0;
	}
	char item[256];
	for (const char *p = sel;;) {
		size_t len = strcspn(p, ",");
		if (len == 0 || len >= sizeof(item))
			return ax_errf(err, errlen, AX_EINVAL,
				       "--device %s: %s; give devices as "
				       "0,1 or all",
				       sel,
				       len ? "an item is too long"
					   : "an item is empty");
		memcpy(item, p, len);
		item[len] = '\0';
		int i;
		int rc = ax_vk_select(inst, item, &i, err, errlen);
		if (rc)
			return rc;
		for (int k = 0; k < *n; k++)
			if (index[k] == i)
				return ax_errf(err, errlen, AX_EINVAL,
					       "--device %s: device %d is "
					       "named twice",
					       sel, i);
		if (*n == AX_VK_MAX_SELECTED)
			return ax_errf(err, errlen, AX_EINVAL,
				       "--device %s: more than %d devices", sel,
				       AX_VK_MAX_SELECTED);
		index[(*n)++] = i;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}
