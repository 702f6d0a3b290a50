/* core/vk_buffer.c - buffers, memory-type choice, host transfers. */
#include "core/error.h"
#include "core/vk_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *ax_vk_mem_name(enum ax_vk_mem kind)
{
	switch (kind) {
	case AX_MEM_DEVICE:
		return "device-local";
	case AX_MEM_UPLOAD:
		return "host-visible coherent";
	case AX_MEM_READBACK:
		return "host-visible cached";
	case AX_MEM_DEVICE_HOST:
		return "device-local host-visible";
	}
	return "?";
}

/* Memory property flags wanted for each kind, best first. */
static int wanted_flags(enum ax_vk_mem kind, VkMemoryPropertyFlags out[3])
{
	const VkMemoryPropertyFlags dl = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
				    hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
				    hc = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
				    ca = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
	switch (kind) {
	case AX_MEM_DEVICE:
		out[0] = dl;
		return 1;
	case AX_MEM_UPLOAD:
		out[0] = hv | hc;
		return 1;
	case AX_MEM_READBACK:
		out[0] = hv | ca | hc;
		out[1] = hv | ca;
		out[2] = hv | hc;
		return 3;
	case AX_MEM_DEVICE_HOST:
		out[0] = dl | hv | hc;
		out[1] = dl | hv;
		return 2;
	}
	return 0;
}

/* For "upload" prefer memory that is not device-local when the device has
 * a separate heap: that is the staging memory an application would use. */
static int pick_type(const struct ax_vk_device_info *info, uint32_t bits,
		     enum ax_vk_mem kind)
{
	VkMemoryPropertyFlags want[3];
	int n = wanted_flags(kind, want);
	const VkPhysicalDeviceMemoryProperties *m = &info->memory;
	for (int w = 0; w < n; w++) {
		int fallback = -1;
		for (uint32_t i = 0; i < m->memoryTypeCount; i++) {
			VkMemoryPropertyFlags f =
			    m->memoryTypes[i].propertyFlags;
			if (!(bits & (1u << i)) || (f & want[w]) != want[w])
				continue;
			bool dl = f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
			if (kind == AX_MEM_UPLOAD && dl) {
				if (fallback < 0)
					fallback = (int)i;
				continue;
			}
			return (int)i;
		}
		if (fallback >= 0)
			return fallback;
	}
	return -1;
}

static int alloc_error(struct ax_vk_ctx *ctx, VkResult r, VkDeviceSize size,
		       enum ax_vk_mem kind)
{
	const struct ax_vk_device_info *info = ctx->info;
	snprintf(ctx->err, sizeof(ctx->err),
		 "allocating %llu bytes of %s memory on %s failed (%s); "
		 "maxMemoryAllocationSize is %llu bytes: use a smaller size",
		 (unsigned long long)size, ax_vk_mem_name(kind), info->name,
		 ax_vk_result_name(r),
		 (unsigned long long)info->max_memory_allocation_size);
	return r == VK_ERROR_OUT_OF_HOST_MEMORY ? AX_EDEVMEM
						: ax_vk_error_from(r);
}

int ax_vk_buffer_create(struct ax_vk_ctx *ctx, VkDeviceSize size,
			VkBufferUsageFlags usage, enum ax_vk_mem kind,
			struct ax_vk_buffer *out)
{
	memset(out, 0, sizeof(*out));
	const struct ax_vk_device_info *info = ctx->info;
	if (info->max_memory_allocation_size &&
	    size > info->max_memory_allocation_size)
		return alloc_error(ctx, VK_ERROR_OUT_OF_DEVICE_MEMORY, size,
				   kind);
	VkBufferCreateInfo bi = {
	    .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
	    .size = size,
	    .usage = usage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
		     VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	    .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VkResult r = vkCreateBuffer(ctx->dev, &bi, NULL, &out->buf);
	if (r != VK_SUCCESS)
		return alloc_error(ctx, r, size, kind);
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(ctx->dev, out->buf, &req);
	int type = pick_type(info, req.memoryTypeBits, kind);
	if (type < 0) {
		vkDestroyBuffer(ctx->dev, out->buf, NULL);
		out->buf = VK_NULL_HANDLE;
		snprintf(ctx->err, sizeof(ctx->err), "%s has no %s memory type",
			 info->name, ax_vk_mem_name(kind));
		return AX_EUNSUPPORTED;
	}
	VkMemoryAllocateInfo ai = {
	    .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	    .allocationSize = req.size,
	    .memoryTypeIndex = (uint32_t)type,
	};
	r = vkAllocateMemory(ctx->dev, &ai, NULL, &out->mem);
	if (r == VK_SUCCESS)
		r = vkBindBufferMemory(ctx->dev, out->buf, out->mem, 0);
	out->type_index = (uint32_t)type;
	out->props = info->memory.memoryTypes[type].propertyFlags;
	out->size = size;
	out->mem_size = req.size;
	if (r == VK_SUCCESS &&
	    (out->props & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
		r = vkMapMemory(ctx->dev, out->mem, 0, VK_WHOLE_SIZE, 0,
				&out->map);
	if (r != VK_SUCCESS) {
		int rc = alloc_error(ctx, r, size, kind);
		ax_vk_buffer_destroy(ctx, out);
		return rc;
	}
	return 0;
}

int ax_vk_buffer_import_host(struct ax_vk_ctx *ctx, void *ptr,
			     VkDeviceSize size, VkBufferUsageFlags usage,
			     struct ax_vk_buffer *out)
{
	memset(out, 0, sizeof(*out));
	const struct ax_vk_device_info *info = ctx->info;
	const VkExternalMemoryHandleTypeFlagBits host =
	    VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
	if (!info->host_import) {
		snprintf(ctx->err, sizeof(ctx->err),
			 "%s lacks VK_EXT_external_memory_host: host memory "
			 "cannot be imported",
			 info->name);
		return AX_EUNSUPPORTED;
	}
	VkDeviceSize a = info->host_import_align;
	if ((uintptr_t)ptr % a || size % a) {
		snprintf(ctx->err, sizeof(ctx->err),
			 "importing host memory: address and size must be "
			 "multiples of minImportedHostPointerAlignment (%llu)",
			 (unsigned long long)a);
		return AX_EINVAL;
	}
	PFN_vkGetMemoryHostPointerPropertiesEXT props_of =
	    (PFN_vkGetMemoryHostPointerPropertiesEXT)vkGetDeviceProcAddr(
		ctx->dev, "vkGetMemoryHostPointerPropertiesEXT");
	VkMemoryHostPointerPropertiesEXT hp = {
	    .sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT,
	};
	VkResult r = props_of ? props_of(ctx->dev, host, ptr, &hp)
			      : VK_ERROR_EXTENSION_NOT_PRESENT;
	VkExternalMemoryBufferCreateInfo ext = {
	    .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
	    .handleTypes = host,
	};
	VkBufferCreateInfo bi = {
	    .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
	    .pNext = &ext,
	    .size = size,
	    .usage = usage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
		     VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	    .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	if (r == VK_SUCCESS)
		r = vkCreateBuffer(ctx->dev, &bi, NULL, &out->buf);
	if (r != VK_SUCCESS) {
		snprintf(ctx->err, sizeof(ctx->err),
			 "importing %llu bytes of host memory on %s: %s",
			 (unsigned long long)size, info->name,
			 ax_vk_result_name(r));
		return AX_EUNSUPPORTED;
	}
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(ctx->dev, out->buf, &req);
	uint32_t bits = req.memoryTypeBits & hp.memoryTypeBits;
	int type = -1;
	for (uint32_t i = 0; type < 0 && i < info->memory.memoryTypeCount; i++)
		if (bits & (1u << i))
			type = (int)i;
	VkImportMemoryHostPointerInfoEXT imp = {
	    .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
	    .handleType = host,
	    .pHostPointer = ptr,
	};
	VkMemoryAllocateInfo ai = {
	    .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	    .pNext = &imp,
	    .allocationSize = size,
	    .memoryTypeIndex = type < 0 ? 0 : (uint32_t)type,
	};
	r = type < 0 ? VK_ERROR_FORMAT_NOT_SUPPORTED
		     : vkAllocateMemory(ctx->dev, &ai, NULL, &out->mem);
	if (r == VK_SUCCESS)
		r = vkBindBufferMemory(ctx->dev, out->buf, out->mem, 0);
	if (r != VK_SUCCESS) {
		snprintf(ctx->err, sizeof(ctx->err),
			 "importing %llu bytes of host memory on %s: %s",
			 (unsigned long long)size, info->name,
			 type < 0 ? "no memory type takes both the buffer "
				    "and the pointer"
				  : ax_vk_result_name(r));
		ax_vk_buffer_destroy(ctx, out);
		return AX_EUNSUPPORTED;
	}
	out->type_index = (uint32_t)type;
	out->props = info->memory.memoryTypes[type].propertyFlags;
	out->size = size;
	out->map = ptr;
	out->imported = true;
	return 0;
}

/* Whether the driver exports and imports a buffer of usage as an opaque
 * fd; the reason in ctx->err where not. */
static bool fd_sharable(struct ax_vk_ctx *ctx, VkBufferUsageFlags usage)
{
	const struct ax_vk_device_info *info = ctx->info;
	if (!info->memory_fd) {
		snprintf(ctx->err, sizeof(ctx->err),
			 "%s lacks VK_KHR_external_memory_fd", info->name);
		return false;
	}
	VkPhysicalDeviceExternalBufferInfo bi = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO,
	    .usage = usage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
		     VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	    .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
	};
	VkExternalBufferProperties ep = {
	    .sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES,
	};
	vkGetPhysicalDeviceExternalBufferProperties(ctx->phys, &bi, &ep);
	VkExternalMemoryFeatureFlags f =
	    ep.externalMemoryProperties.externalMemoryFeatures;
	bool ok = (f & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) &&
		  (f & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT) &&
		  !(f & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT);
	if (!ok)
		snprintf(ctx->err, sizeof(ctx->err),
			 "%s does not export and import buffers as opaque fds "
			 "(external memory features 0x%x)",
			 info->name, (unsigned)f);
	return ok;
}

/* A buffer whose memory is (or will be) an opaque fd's. */
static VkResult external_buffer(struct ax_vk_ctx *ctx, VkDeviceSize size,
				VkBufferUsageFlags usage, VkBuffer *buf)
{
	VkExternalMemoryBufferCreateInfo ext = {
	    .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
	    .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
	};
	VkBufferCreateInfo bi = {
	    .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
	    .pNext = &ext,
	    .size = size,
	    .usage = usage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
		     VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	    .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	return vkCreateBuffer(ctx->dev, &bi, NULL, buf);
}

int ax_vk_buffer_create_exported(struct ax_vk_ctx *ctx, VkDeviceSize size,
				 VkBufferUsageFlags usage,
				 struct ax_vk_buffer *out, int *fd)
{
	memset(out, 0, sizeof(*out));
	*fd = -1;
	if (!fd_sharable(ctx, usage))
		return AX_EUNSUPPORTED;
	const struct ax_vk_device_info *info = ctx->info;
	VkResult r = external_buffer(ctx, size, usage, &out->buf);
	if (r != VK_SUCCESS)
		return alloc_error(ctx, r, size, AX_MEM_DEVICE);
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(ctx->dev, out->buf, &req);
	int type = pick_type(info, req.memoryTypeBits, AX_MEM_DEVICE);
	VkExportMemoryAllocateInfo exp = {
	    .sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
	    .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
	};
	VkMemoryAllocateInfo ai = {
	    .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	    .pNext = &exp,
	    .allocationSize = req.size,
	    .memoryTypeIndex = type < 0 ? 0 : (uint32_t)type,
	};
	r = type < 0 ? VK_ERROR_FEATURE_NOT_PRESENT
		     : vkAllocateMemory(ctx->dev, &ai, NULL, &out->mem);
	if (r == VK_SUCCESS)
		r = vkBindBufferMemory(ctx->dev, out->buf, out->mem, 0);
	PFN_vkGetMemoryFdKHR get_fd = (PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(
	    ctx->dev, "vkGetMemoryFdKHR");
	VkMemoryGetFdInfoKHR gi = {
	    .sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
	    .memory = out->mem,
	    .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
	};
	if (r == VK_SUCCESS)
		r = get_fd ? get_fd(ctx->dev, &gi, fd)
			   : VK_ERROR_EXTENSION_NOT_PRESENT;
	if (r != VK_SUCCESS) {
		snprintf(ctx->err, sizeof(ctx->err),
			 "exporting %llu bytes of device memory on %s: %s",
			 (unsigned long long)size, info->name,
			 ax_vk_result_name(r));
		ax_vk_buffer_destroy(ctx, out);
		*fd = -1;
		return AX_EUNSUPPORTED;
	}
	out->type_index = (uint32_t)type;
	out->props = info->memory.memoryTypes[type].propertyFlags;
	out->size = size;
	out->mem_size = req.size;
	return 0;
}

int ax_vk_buffer_import_fd(struct ax_vk_ctx *peer, int fd, VkDeviceSize size,
			   const struct ax_vk_buffer *exported,
			   VkBufferUsageFlags usage, struct ax_vk_buffer *out)
{
	memset(out, 0, sizeof(*out));
	const struct ax_vk_device_info *info = peer->info;
	if (!fd_sharable(peer, usage)) {
		close(fd);
		return AX_EUNSUPPORTED;
	}
	VkResult r = external_buffer(peer, size, usage, &out->buf);
	VkImportMemoryFdInfoKHR imp = {
	    .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
	    .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
	    .fd = fd,
	};
	VkMemoryAllocateInfo ai = {
	    .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	    .pNext = &imp,
	    .allocationSize = exported->mem_size,
	    .memoryTypeIndex = exported->type_index,
	};
	bool took_fd = false;
	if (r == VK_SUCCESS) {
		r = vkAllocateMemory(peer->dev, &ai, NULL, &out->mem);
		took_fd = r == VK_SUCCESS; /* the driver owns it now */
	}
	if (r == VK_SUCCESS)
		r = vkBindBufferMemory(peer->dev, out->buf, out->mem, 0);
	if (!took_fd)
		close(fd);
	if (r != VK_SUCCESS) {
		snprintf(peer->err, sizeof(peer->err),
			 "importing %llu bytes of another device's memory on "
			 "%s: %s",
			 (unsigned long long)size, info->name,
			 ax_vk_result_name(r));
		ax_vk_buffer_destroy(peer, out);
		return AX_EUNSUPPORTED;
	}
	out->type_index = exported->type_index;
	out->props = info->memory.memoryTypes[out->type_index].propertyFlags;
	out->size = size;
	out->mem_size = exported->mem_size;
	return 0;
}

void ax_vk_buffer_destroy(struct ax_vk_ctx *ctx, struct ax_vk_buffer *b)
{
	if (!b || ctx->lost)
		return;
	if (b->buf)
		vkDestroyBuffer(ctx->dev, b->buf, NULL);
	if (b->mem)
		vkFreeMemory(ctx->dev, b->mem, NULL); /* unmaps implicitly */
	memset(b, 0, sizeof(*b));
}

static VkMappedMemoryRange whole(const struct ax_vk_buffer *b)
{
	return (VkMappedMemoryRange){
	    .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
	    .memory = b->mem,
	    .size = VK_WHOLE_SIZE,
	};
}

int ax_vk_flush(struct ax_vk_ctx *ctx, struct ax_vk_buffer *b)
{
	if (!b->map || (b->props & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT))
		return 0;
	VkMappedMemoryRange r = whole(b);
	return ax_vk_error_from(vkFlushMappedMemoryRanges(ctx->dev, 1, &r));
}

int ax_vk_invalidate(struct ax_vk_ctx *ctx, struct ax_vk_buffer *b)
{
	if (!b->map || (b->props & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT))
		return 0;
	VkMappedMemoryRange r = whole(b);
	return ax_vk_error_from(
	    vkInvalidateMappedMemoryRanges(ctx->dev, 1, &r));
}

/* Copy between a buffer and host memory through a temporary staging
 * buffer, in pieces of at most 64 MiB so huge buffers need no huge
 * staging allocation. */
static int staged_copy(struct ax_vk_ctx *ctx, struct ax_vk_buffer *b,
		       VkDeviceSize offset, void *host, size_t size,
		       bool to_device)
{
	const size_t piece = 64u << 20;
	struct ax_vk_buffer st;
	size_t n = size < piece ? size : piece;
	int rc = ax_vk_buffer_create(
	    ctx, n, 0, to_device ? AX_MEM_UPLOAD : AX_MEM_READBACK, &st);
	for (size_t done = 0; rc == 0 && done < size; done += n) {
		n = size - done < piece ? size - done : piece;
		VkCommandBuffer cb;
		if (to_device)
			memcpy(st.map, (char *)host + done, n),
			    rc = ax_vk_flush(ctx, &st);
		if (rc == 0)
			rc = ax_vk_cmd_begin(ctx, false, &cb);
		if (rc)
			break;
		VkBufferCopy region = {
		    .srcOffset = to_device ? 0 : offset + done,
		    .dstOffset = to_device ? offset + done : 0,
		    .size = n,
		};
		vkCmdCopyBuffer(cb, to_device ? st.buf : b->buf,
				to_device ? b->buf : st.buf, 1, &region);
		ax_vk_cmd_barrier(cb);
		rc = ax_vk_cmd_submit_wait(ctx, cb, false,
					   60ull * 1000000000ull);
		if (rc == 0 && !to_device) {
			rc = ax_vk_invalidate(ctx, &st);
			memcpy((char *)host + done, st.map, n);
		}
	}
	ax_vk_buffer_destroy(ctx, &st);
	return rc;
}

int ax_vk_upload(struct ax_vk_ctx *ctx, struct ax_vk_buffer *b,
		 VkDeviceSize offset, const void *data, size_t size)
{
	if (offset + size > b->size)
		return AX_EINVAL;
	if (b->map) {
		memcpy((char *)b->map + offset, data, size);
		return ax_vk_flush(ctx, b);
	}
	return staged_copy(ctx, b, offset, (void *)data, size, true);
}

int ax_vk_download(struct ax_vk_ctx *ctx, struct ax_vk_buffer *b,
		   VkDeviceSize offset, void *data, size_t size)
{
	if (offset + size > b->size)
		return AX_EINVAL;
	if (b->map) {
		int rc = ax_vk_invalidate(ctx, b);
		memcpy(data, (char *)b->map + offset, size);
		return rc;
	}
	return staged_copy(ctx, b, offset, data, size, false);
}

void ax_vk_fill_random_words(uint32_t *dst, size_t n_words, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
	for (size_t i = 0; i < n_words; i++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		dst[i] = (uint32_t)((x * 0x2545F4914F6CDD1Dull) >> 32);
	}
}
