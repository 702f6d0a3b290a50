/* core/vk_device.c - logical device, queues, pipeline cache, commands. */
#include "core/error.h"
#include "core/outfile.h"
#include "core/vk_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Pick the compute family and, where one exists, a transfer-only family
 * (no compute or graphics bit): that is the copy engine. */
static void pick_families(const struct ax_vk_device_info *info,
			  uint32_t *compute, uint32_t *transfer)
{
	*compute = UINT32_MAX;
	*transfer = UINT32_MAX;
	for (uint32_t i = 0; i < info->n_queue_families; i++) {
		VkQueueFlags f = info->queue_families[i].flags;
		if ((f & VK_QUEUE_COMPUTE_BIT) && *compute == UINT32_MAX)
			*compute = i;
		if ((f & VK_QUEUE_TRANSFER_BIT) &&
		    !(f & (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT)) &&
		    *transfer == UINT32_MAX)
			*transfer = i;
	}
}

/* The feature chain and extensions a device is created with; f11 heads
 * the chain, which points into the struct itself. */
struct device_features {
	VkPhysicalDeviceVulkan11Features f11;
	VkPhysicalDeviceVulkan12Features f12;
	VkPhysicalDeviceFeatures core;
	VkPhysicalDeviceCooperativeMatrixFeaturesNV coop_nv;
	VkPhysicalDeviceShaderIntegerDotProductFeatures dot;
	VkPhysicalDeviceSubgroupSizeControlFeatures ssc;
#ifdef VK_KHR_cooperative_matrix
	VkPhysicalDeviceCooperativeMatrixFeaturesKHR coop;
#endif
	const char *exts[8];
	uint32_t n_exts;
};

/* Chain a feature struct of an extension Vulkan 1.3 made core and name
 * the extension: the instance asks for 1.2, so it is an extension here
 * even on a 1.3 device (vk_describe.c looks for it by name). */
static void chain_promoted(struct device_features *f, void *feature,
			   const char *ext)
{
	((VkBaseOutStructure *)feature)->pNext = f->f12.pNext;
	f->f12.pNext = feature;
	f->exts[f->n_exts++] = ext;
}

/* shaderIntegerDotProduct (peak type=dot4) and subgroupSizeControl with
 * computeFullSubgroups (a required subgroup size). */
static void enable_promoted(const struct ax_vk_device_info *info,
			    struct device_features *f)
{
	f->dot = (VkPhysicalDeviceShaderIntegerDotProductFeatures){
	    .sType =
		VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES,
	    .shaderIntegerDotProduct = VK_TRUE,
	};
	if (info->int_dot)
		chain_promoted(
		    f, &f->dot,
		    VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME);
	f->ssc = (VkPhysicalDeviceSubgroupSizeControlFeatures){
	    .sType =
		VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES,
	    .subgroupSizeControl = VK_TRUE,
	    .computeFullSubgroups = info->compute_full_subgroups,
	};
	if (info->subgroup_size_control)
		chain_promoted(f, &f->ssc,
			       VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
}

/* Enable exactly the optional features the device has, so suites can
 * use them where present and skip them (with a reason) elsewhere. */
static void enable_features(const struct ax_vk_device_info *info,
			    struct device_features *f)
{
	memset(f, 0, sizeof(*f));
	f->f12 = (VkPhysicalDeviceVulkan12Features){
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
	    .shaderFloat16 = info->fp16_arith,
	    .shaderInt8 = info->int8_arith,
	    .storageBuffer8BitAccess = info->storage8,
	};
	f->f11 = (VkPhysicalDeviceVulkan11Features){
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
	    .pNext = &f->f12,
	    .storageBuffer16BitAccess = info->storage16,
	};
	/* The peak suite's f64, i64 and i16 types. */
	f->core = (VkPhysicalDeviceFeatures){
	    .shaderFloat64 = info->fp64_arith,
	    .shaderInt64 = info->int64_arith,
	    .shaderInt16 = info->int16_arith,
	};
	enable_promoted(info, f);
	if (info->memory_budget) /* read by telemetry, per case */
		f->exts[f->n_exts++] = VK_EXT_MEMORY_BUDGET_EXTENSION_NAME;
	if (info->host_import) /* the zerocopy suite's imported memory */
		f->exts[f->n_exts++] =
		    VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
	if (info->memory_fd) /* the d2d suite's shared memory */
		f->exts[f->n_exts++] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
	/* shaders/gemm_coopmat.comp declares CooperativeMatrixNV and, as
	 * glslang writes every cooperative-matrix shader, the Vulkan memory
	 * model (besides Float16, enabled above).  vulkanMemoryModel is
	 * enabled only with the extension, so devices without it are
	 * created exactly as before. */
	f->coop_nv = (VkPhysicalDeviceCooperativeMatrixFeaturesNV){
	    .sType =
		VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV,
	    .pNext = f->f12.pNext,
	    .cooperativeMatrix = VK_TRUE,
	};
	if (info->coopmat_nv) {
		f->exts[f->n_exts++] = VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
		f->f12.vulkanMemoryModel = info->vulkan_memory_model;
		f->f12.pNext = &f->coop_nv;
	}
#ifdef VK_KHR_cooperative_matrix
	/* Headers older than 1.3.255 (Debian 12) do not know the extension:
	 * then a device that has it is reported but not enabled. */
	f->coop = (VkPhysicalDeviceCooperativeMatrixFeaturesKHR){
	    .sType =
		VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR,
	    .cooperativeMatrix = VK_TRUE,
	};
	if (info->coopmat) {
		f->exts[f->n_exts++] = VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME;
		f->coop.pNext = f->f12.pNext;
		f->f12.pNext = &f->coop;
	}
#endif
}

static int create_device(struct ax_vk_ctx *ctx, char *err, size_t errlen)
{
	const struct ax_vk_device_info *info = ctx->info;
	float prio = 1.0f;
	VkDeviceQueueCreateInfo q[2] = {
	    {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	     .queueFamilyIndex = ctx->compute_family,
	     .queueCount = 1,
	     .pQueuePriorities = &prio},
	    {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	     .queueFamilyIndex = ctx->transfer_family,
	     .queueCount = 1,
	     .pQueuePriorities = &prio},
	};
	struct device_features f;
	enable_features(info, &f);
	bool v12 = info->api_version >= VK_API_VERSION_1_2;
	VkDeviceCreateInfo ci = {
	    .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	    .pNext = v12 ? &f.f11 : NULL,
	    .queueCreateInfoCount = ctx->dedicated_transfer ? 2 : 1,
	    .pQueueCreateInfos = q,
	    .pEnabledFeatures = &f.core,
	    .enabledExtensionCount = f.n_exts,
	    .ppEnabledExtensionNames = f.exts,
	};
	VkResult r = vkCreateDevice(ctx->phys, &ci, NULL, &ctx->dev);
	if (r != VK_SUCCESS)
		return ax_errf(err, errlen, ax_vk_error_from(r),
			       "%s: vkCreateDevice failed (%s)", info->name,
			       ax_vk_result_name(r));
	vkGetDeviceQueue(ctx->dev, ctx->compute_family, 0, &ctx->compute_queue);
	ctx->transfer_queue = ctx->compute_queue;
	if (ctx->dedicated_transfer)
		vkGetDeviceQueue(ctx->dev, ctx->transfer_family, 0,
				 &ctx->transfer_queue);
	return 0;
}

static int create_pools(struct ax_vk_ctx *ctx)
{
	VkCommandPoolCreateInfo pc = {
	    .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	    .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT |
		     VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
	    .queueFamilyIndex = ctx->compute_family,
	};
	VkResult r =
	    vkCreateCommandPool(ctx->dev, &pc, NULL, &ctx->compute_pool);
	ctx->transfer_pool = ctx->compute_pool;
	if (r == VK_SUCCESS && ctx->dedicated_transfer) {
		pc.queueFamilyIndex = ctx->transfer_family;
		r = vkCreateCommandPool(ctx->dev, &pc, NULL,
					&ctx->transfer_pool);
	}
	VkFenceCreateInfo fc = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	if (r == VK_SUCCESS)
		r = vkCreateFence(ctx->dev, &fc, NULL, &ctx->fence);
	if (r == VK_SUCCESS && ctx->info->timestamps) {
		VkQueryPoolCreateInfo qc = {
		    .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		    .queryType = VK_QUERY_TYPE_TIMESTAMP,
		    .queryCount = AX_VK_TIMESTAMPS,
		};
		r = vkCreateQueryPool(ctx->dev, &qc, NULL, &ctx->timestamps);
	}
	if (r != VK_SUCCESS)
		snprintf(ctx->err, sizeof(ctx->err),
			 "creating command pools, fence or queries: %s",
			 ax_vk_result_name(r));
	return ax_vk_error_from(r);
}

/* $XDG_CACHE_HOME/axbench (or ~/.cache/axbench), created on demand. */
static void cache_path(struct ax_vk_ctx *ctx)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char dir[400];
	if (xdg && *xdg)
		snprintf(dir, sizeof(dir), "%s/axbench", xdg);
	else if (home && *home)
		snprintf(dir, sizeof(dir), "%s/.cache/axbench", home);
	else
		return;
	char parent[400];
	snprintf(parent, sizeof(parent), "%s", dir);
	char *slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		mkdir(parent, 0755);
	}
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return;
	snprintf(ctx->cache_path, sizeof(ctx->cache_path),
		 "%s/pipelines-%04x-%04x-%s-%s.bin", dir, ctx->info->vendor_id,
		 ctx->info->device_id, ctx->info->driver_uuid,
		 ctx->info->fingerprint);
}

/* Read a cache file only if its header names this very device and driver:
 * a foreign or truncated blob is ignored rather than handed to the driver. */
static void *read_cache(struct ax_vk_ctx *ctx, size_t *size)
{
	*size = 0;
	FILE *f = ctx->cache_path[0] ? fopen(ctx->cache_path, "rb") : NULL;
	if (!f)
		return NULL;
	void *data = NULL;
	if (fseek(f, 0, SEEK_END) == 0) {
		long n = ftell(f);
		if (n > 32 && n < (256L << 20) && fseek(f, 0, SEEK_SET) == 0) {
			data = malloc((size_t)n);
			if (data && fread(data, 1, (size_t)n, f) == (size_t)n)
				*size = (size_t)n;
		}
	}
	fclose(f);
	const uint32_t *h = data;
	if (*size &&
	    (h[0] < 32 || h[1] != VK_PIPELINE_CACHE_HEADER_VERSION_ONE ||
	     h[2] != ctx->info->vendor_id || h[3] != ctx->info->device_id))
		*size = 0;
	if (!*size) {
		free(data);
		data = NULL;
	}
	return data;
}

static void create_cache(struct ax_vk_ctx *ctx)
{
	size_t size;
	cache_path(ctx);
	void *data = read_cache(ctx, &size);
	VkPipelineCacheCreateInfo ci = {
	    .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
	    .initialDataSize = size,
	    .pInitialData = data,
	};
	if (vkCreatePipelineCache(ctx->dev, &ci, NULL, &ctx->cache) !=
	    VK_SUCCESS)
		ctx->cache = VK_NULL_HANDLE;
	free(data);
}

/* Through core/outfile.h (mkstemp beside the file, then rename), so two
 * processes never leave a torn cache behind and a link planted at a
 * guessable temporary name is never followed.  A cache that cannot be
 * saved is only a slower next start: errors are ignored. */
static void save_cache(struct ax_vk_ctx *ctx)
{
	size_t size = 0;
	struct ax_outfile o;
	if (!ctx->cache || !ctx->cache_path[0] ||
	    vkGetPipelineCacheData(ctx->dev, ctx->cache, &size, NULL) !=
		VK_SUCCESS ||
	    size == 0)
		return;
	void *data = malloc(size);
	if (data &&
	    vkGetPipelineCacheData(ctx->dev, ctx->cache, &size, data) ==
		VK_SUCCESS &&
	    ax_outfile_open(&o, ctx->cache_path, NULL, 0) == 0) {
		if (fwrite(data, 1, size, o.f) == size)
			ax_outfile_commit(&o, NULL, 0);
		else
			ax_outfile_abort(&o);
	}
	free(data);
}

int ax_vk_open(struct ax_vk_instance *inst, int index, struct ax_vk_ctx **out,
	       char *err, size_t errlen)
{
	*out = NULL;
	const struct ax_vk_device_info *info = ax_vk_device_info(inst, index);
	if (!info)
		return ax_errf(err, errlen, AX_ENOTFOUND, "no device %d",
			       index);
	struct ax_vk_ctx *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return AX_ENOMEM;
	ctx->inst = inst;
	ctx->info = info;
	ctx->phys = ax_vk_physical(inst, index);
	pick_families(info, &ctx->compute_family, &ctx->transfer_family);
	if (ctx->compute_family == UINT32_MAX) {
		free(ctx);
		return ax_errf(err, errlen, AX_ENODEV,
			       "%s has no compute queue", info->name);
	}
	ctx->dedicated_transfer = ctx->transfer_family != UINT32_MAX;
	if (!ctx->dedicated_transfer)
		ctx->transfer_family = ctx->compute_family;
	uint32_t bits =
	    info->queue_families[ctx->compute_family].timestamp_valid_bits;
	ctx->timestamp_mask = bits >= 64 ? UINT64_MAX : (1ULL << bits) - 1;
	ctx->timestamp_period_ns = info->limits.timestampPeriod;
	ctx->timeout_ns = 30ull * 1000000000ull;
	int rc = create_device(ctx, err, errlen);
	if (rc) {
		free(ctx);
		return rc;
	}
	rc = create_pools(ctx);
	if (rc) {
		ax_errf(err, errlen, rc, "%s", ctx->err);
		ax_vk_close(ctx);
		return rc;
	}
	create_cache(ctx);
	*out = ctx;
	return 0;
}

void ax_vk_mark_lost(struct ax_vk_ctx *ctx) { ctx->lost = true; }

static const volatile int *stop_flag;

void ax_vk_set_stop(const volatile int *stop) { stop_flag = stop; }

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

VkResult ax_vk_wait_fence(struct ax_vk_ctx *ctx, VkFence fence,
			  uint64_t timeout_ns, bool stoppable, bool *stopped)
{
	const uint64_t slice = AX_VK_STOP_SLICE_MS * 1000000ull;
	uint64_t start = mono_ns();
	*stopped = false;
	for (;;) {
		if (stoppable && stop_flag && *stop_flag) {
			*stopped = true;
			return VK_TIMEOUT;
		}
		uint64_t waited = mono_ns() - start;
		uint64_t left = waited < timeout_ns ? timeout_ns - waited : 0;
		VkResult r = vkWaitForFences(ctx->dev, 1, &fence, VK_TRUE,
					     left < slice ? left : slice);
		if (r != VK_TIMEOUT || left <= slice)
			return r;
	}
}

/* Wait for the submission a timed-out or stopped wait left pending. */
static int settle(struct ax_vk_ctx *ctx, uint64_t wait_ns, bool stoppable)
{
	if (!ctx->lost || !ctx->pending_cb)
		return ctx->lost ? AX_EDEVLOST : 0;
	bool stopped;
	VkResult r =
	    ax_vk_wait_fence(ctx, ctx->fence, wait_ns, stoppable, &stopped);
	if (stopped)
		return AX_EINTR;
	if (r != VK_SUCCESS)
		return ax_vk_error_from(r);
	vkFreeCommandBuffers(ctx->dev, ctx->pending_pool, 1, &ctx->pending_cb);
	ctx->pending_cb = VK_NULL_HANDLE;
	ctx->lost = false;
	return 0;
}

int ax_vk_recover(struct ax_vk_ctx *ctx, uint64_t grace_ns)
{
	return settle(ctx, grace_ns, true);
}

int ax_vk_settle(struct ax_vk_ctx *ctx, uint64_t wait_ns)
{
	return settle(ctx, wait_ns, false);
}

void ax_vk_close(struct ax_vk_ctx *ctx)
{
	if (!ctx)
		return;
	if (ctx->dev) {
		/* After a timeout the device may still run the hung work;
		 * vkDeviceWaitIdle would hang too, so a lost context only
		 * saves nothing and leaks to process exit. */
		if (ctx->lost) {
			ax_vk_mark_leaked(ctx->inst);
			free(ctx);
			return;
		}
		vkDeviceWaitIdle(ctx->dev);
		save_cache(ctx);
		if (ctx->cache)
			vkDestroyPipelineCache(ctx->dev, ctx->cache, NULL);
		if (ctx->timestamps)
			vkDestroyQueryPool(ctx->dev, ctx->timestamps, NULL);
		if (ctx->fence)
			vkDestroyFence(ctx->dev, ctx->fence, NULL);
		if (ctx->transfer_pool &&
		    ctx->transfer_pool != ctx->compute_pool)
			vkDestroyCommandPool(ctx->dev, ctx->transfer_pool,
					     NULL);
		if (ctx->compute_pool)
			vkDestroyCommandPool(ctx->dev, ctx->compute_pool, NULL);
		vkDestroyDevice(ctx->dev, NULL);
	}
	free(ctx);
}

int ax_vk_cmd_begin(struct ax_vk_ctx *ctx, bool transfer, VkCommandBuffer *cb)
{
	if (ctx->lost)
		return ax_errf(ctx->err, sizeof(ctx->err), AX_EDEVLOST,
			       "device unusable after an earlier failure");
	VkCommandBufferAllocateInfo ai = {
	    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	    .commandPool = transfer ? ctx->transfer_pool : ctx->compute_pool,
	    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	    .commandBufferCount = 1,
	};
	VkResult r = vkAllocateCommandBuffers(ctx->dev, &ai, cb);
	if (r == VK_SUCCESS) {
		VkCommandBufferBeginInfo bi = {
		    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		    .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
		};
		r = vkBeginCommandBuffer(*cb, &bi);
	}
	if (r != VK_SUCCESS)
		snprintf(ctx->err, sizeof(ctx->err),
			 "allocating a command buffer: %s",
			 ax_vk_result_name(r));
	return ax_vk_error_from(r);
}

int ax_vk_submit(struct ax_vk_ctx *ctx, VkQueue queue,
		 const VkCommandBuffer *cbs, uint32_t n, VkFence fence)
{
	VkSubmitInfo si = {
	    .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
	    .commandBufferCount = n,
	    .pCommandBuffers = cbs,
	};
	VkResult r = vkQueueSubmit(queue, 1, &si, fence);
	if (r != VK_SUCCESS) {
		snprintf(ctx->err, sizeof(ctx->err), "vkQueueSubmit: %s",
			 ax_vk_result_name(r));
		if (r == VK_ERROR_DEVICE_LOST)
			ax_vk_mark_lost(ctx);
	}
	return ax_vk_error_from(r);
}

int ax_vk_cmd_submit_wait(struct ax_vk_ctx *ctx, VkCommandBuffer cb,
			  bool transfer, uint64_t timeout_ns)
{
	VkCommandPool pool = transfer ? ctx->transfer_pool : ctx->compute_pool;
	VkResult r = vkEndCommandBuffer(cb);
	int rc = ax_vk_error_from(r);
	if (rc == 0) {
		vkResetFences(ctx->dev, 1, &ctx->fence);
		rc = ax_vk_submit(
		    ctx, transfer ? ctx->transfer_queue : ctx->compute_queue,
		    &cb, 1, ctx->fence);
	}
	if (rc == 0) {
		bool stopped;
		r = ax_vk_wait_fence(ctx, ctx->fence, timeout_ns, true,
				     &stopped);
		rc = stopped ? AX_EINTR : ax_vk_error_from(r);
		if (r == VK_TIMEOUT) {
			ax_vk_mark_lost(ctx); /* the work is still pending */
			ctx->pending_cb = cb;
			ctx->pending_pool = pool;
			if (stopped)
				snprintf(ctx->err, sizeof(ctx->err),
					 "interrupted while waiting for the "
					 "GPU work");
			else
				snprintf(ctx->err, sizeof(ctx->err),
					 "the GPU work did not finish within "
					 "%.3g s (fence timeout)",
					 (double)timeout_ns / 1e9);
			return rc;
		}
		if (r != VK_SUCCESS) {
			if (r == VK_ERROR_DEVICE_LOST)
				ax_vk_mark_lost(ctx);
			snprintf(ctx->err, sizeof(ctx->err),
				 "waiting for the GPU: %s",
				 ax_vk_result_name(r));
		}
	}
	if (!ctx->lost)
		vkFreeCommandBuffers(ctx->dev, pool, 1, &cb);
	return rc;
}

void ax_vk_cmd_barrier(VkCommandBuffer cb)
{
	VkMemoryBarrier mb = {
	    .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
	    .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT |
			     VK_ACCESS_TRANSFER_WRITE_BIT |
			     VK_ACCESS_HOST_WRITE_BIT,
	    .dstAccessMask =
		VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
		VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
		VK_ACCESS_HOST_READ_BIT,
	};
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
			     VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &mb, 0,
			     NULL, 0, NULL);
}

void ax_vk_cmd_timestamp(struct ax_vk_ctx *ctx, VkCommandBuffer cb,
			 uint32_t slot)
{
	vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
			    ctx->timestamps, slot);
}

void ax_vk_cmd_reset_timestamps(struct ax_vk_ctx *ctx, VkCommandBuffer cb,
				uint32_t first, uint32_t count)
{
	vkCmdResetQueryPool(cb, ctx->timestamps, first, count);
}

int ax_vk_timestamp_delta_ns(struct ax_vk_ctx *ctx, uint32_t a, uint32_t b,
			     double *ns)
{
	uint64_t t[2];
	VkResult r = vkGetQueryPoolResults(
	    ctx->dev, ctx->timestamps, a, 1, sizeof(t[0]), &t[0], sizeof(t[0]),
	    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
	if (r == VK_SUCCESS)
		r = vkGetQueryPoolResults(ctx->dev, ctx->timestamps, b, 1,
					  sizeof(t[1]), &t[1], sizeof(t[1]),
					  VK_QUERY_RESULT_64_BIT |
					      VK_QUERY_RESULT_WAIT_BIT);
	if (r != VK_SUCCESS) {
		snprintf(ctx->err, sizeof(ctx->err), "reading timestamps: %s",
			 ax_vk_result_name(r));
		return ax_vk_error_from(r);
	}
	/* Masking handles counters narrower than 64 bits that wrapped. */
	uint64_t ticks = (t[1] - t[0]) & ctx->timestamp_mask;
	*ns = (double)ticks * ctx->timestamp_period_ns;
	return 0;
}
