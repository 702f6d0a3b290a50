/*
 * core/vk.h - the thin Vulkan layer every suite stands on.
 *
 * Instance (with the Khronos validation layer on request: any message it
 * prints is counted, and the CLI fails the command when the count is not
 * zero), device enumeration and selection, one logical device per run with
 * a compute queue and - where the device has one - a dedicated transfer
 * queue, buffers in the four memory kinds benchmarks care about, compute
 * pipelines from embedded (or a caller's) SPIR-V with specialization and
 * push constants,
 * one-shot command buffers submitted with a fence timeout, GPU timestamps,
 * and a VkPipelineCache persisted under $XDG_CACHE_HOME/axbench keyed by
 * device and driver.
 *
 * Only core/vk*.c and suites/ include Vulkan headers.  Failures return AX_E*
 * codes and leave a message in ctx->err (or the caller's buffer).
 */
#ifndef AX_VK_H
#define AX_VK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#define AX_VK_MAX_DEVICES 16
#define AX_VK_MAX_QUEUE_FAMILIES 16

struct ax_vk_queue_family {
	VkQueueFlags flags;
	uint32_t count;
	uint32_t timestamp_valid_bits;
};

/* Cooperative-matrix shapes kept per device (NVIDIA lists about ten). */
#define AX_VK_MAX_COOPMAT 32

/* One shape vkGetPhysicalDeviceCooperativeMatrixPropertiesNV lists:
 * D (m x n) = A (m x k) * B (k x n) + C in the given component types. */
struct ax_vk_coopmat_shape {
	uint32_t m, n, k;
	VkComponentTypeNV a, b, c, d;
	VkScopeNV scope;
};

/* Everything `axbench devices` shows about one physical device. */
struct ax_vk_device_info {
	int index; /* Vulkan enumeration order: display only, never a key */
	char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
	char vendor[32]; /* "NVIDIA", "AMD", "Intel", "Mesa" ... */
	VkPhysicalDeviceType type;
	uint32_t vendor_id, device_id, api_version, driver_version;
	VkDriverId driver_id;
	char driver_name[VK_MAX_DRIVER_NAME_SIZE];
	char driver_info[VK_MAX_DRIVER_INFO_SIZE];
	char driver_version_text[32]; /* decoded per vendor convention */
	char device_uuid[37], driver_uuid[37];
	bool has_pci_bus_info;
	char pci_bus_id[16];  /* "0000:65:00.0", "" when unknown */
	char fingerprint[17]; /* hash of vendor/device/driver/uuid/name */
	/* Devices the driver describes identically (two lavapipe manifests,
	 * a driver without UUIDs or PCI ids): twin_of is the first such
	 * device's index (-1: none), twin_rank this one's place among them
	 * (0 for the first), and the fingerprint of every later twin is
	 * the hash of the identity and its rank, so that the database,
	 * compare and the report keep them apart (see ax_vk_tell_twins). */
	int twin_of, twin_rank;
	VkPhysicalDeviceLimits limits;
	VkPhysicalDeviceMemoryProperties memory;
	uint32_t n_queue_families;
	struct ax_vk_queue_family queue_families[AX_VK_MAX_QUEUE_FAMILIES];
	uint32_t subgroup_size;
	VkDeviceSize max_memory_allocation_size;
	bool fp16_arith, storage16, int8_arith, storage8;
	/* shaderFloat64, shaderInt64, shaderInt16 (Vulkan 1.0 features) and
	 * shaderIntegerDotProduct (VK_KHR_shader_integer_dot_product, core
	 * in 1.3): the peak suite's f64, i64, i16 and dot4 types. */
	bool fp64_arith, int64_arith, int16_arith, int_dot;
	/* VK_EXT_subgroup_size_control (core in 1.3): the sizes a compute
	 * pipeline may require (min..max, powers of two) where
	 * subgroup_size_control is set, and whether it can also ask for
	 * full subgroups. */
	bool subgroup_size_control, compute_full_subgroups;
	uint32_t subgroup_size_min, subgroup_size_max;
	/* maxComputeWorkgroupSubgroups: a pipeline that requires size S
	 * may have at most S times this many invocations (0: unknown). */
	uint32_t max_workgroup_subgroups;
	bool coopmat; /* VK_KHR_cooperative_matrix, where the headers know it */
	bool vulkan_memory_model; /* the Vulkan 1.2 feature */
	/* VK_NV_cooperative_matrix with its cooperativeMatrix feature, and
	 * the shapes it lists (shaders/gemm_coopmat.comp runs on these). */
	bool coopmat_nv;
	uint32_t n_coopmat_nv;
	struct ax_vk_coopmat_shape coopmat_nv_shapes[AX_VK_MAX_COOPMAT];
	bool timestamps;    /* compute queue can write timestamps */
	bool memory_budget; /* VK_EXT_memory_budget */
	/* VK_EXT_external_memory_host: a host allocation imported as
	 * device memory (zero-copy), its address and size multiples of
	 * minImportedHostPointerAlignment (host_import_align). */
	bool host_import;
	VkDeviceSize host_import_align;
	/* VK_KHR_external_memory_fd: memory exported as an opaque fd and
	 * imported by another device of the same driver and device UUIDs
	 * (the d2d suite's path=fd). */
	bool memory_fd;
	/* VK_KHR_device_group (core in 1.1): the group this device is in,
	 * by the index of its first member, and how many it holds (1: the
	 * driver groups it with no other). */
	int group_first, group_size;
};

struct ax_vk_instance;

/*
 * Create the instance and enumerate devices.  validate enables
 * VK_LAYER_KHRONOS_validation (AX_EUNSUPPORTED if it is not installed).
 * AX_ENODEV when there is no loader or no device.  err gets the reason.
 */
int ax_vk_instance_create(bool validate, struct ax_vk_instance **out, char *err,
			  size_t errlen);
void ax_vk_instance_destroy(struct ax_vk_instance *inst);

int ax_vk_device_count(const struct ax_vk_instance *inst);
const struct ax_vk_device_info *
ax_vk_device_info(const struct ax_vk_instance *inst, int index);

/* Number of validation-layer messages (warnings and errors) so far. */
int ax_vk_validation_messages(const struct ax_vk_instance *inst);

/*
 * Resolve a --device selector: NULL/"" picks the first discrete GPU, else
 * the first device; otherwise an index, a UUID, a PCI bus id, a
 * fingerprint, or a case-insensitive name substring (must be unique).
 * AX_ENOTFOUND / AX_EINVAL with the list of devices in err.
 */
int ax_vk_select(const struct ax_vk_instance *inst, const char *sel, int *index,
		 char *err, size_t errlen);

/* At most this many devices in one selection. */
#define AX_VK_MAX_SELECTED 16

/* Whether sel names several devices: "all", or a list "0,2". */
bool ax_vk_select_is_many(const char *sel);

/*
 * Resolve a selector of several devices (run --device all / 0,2 / a,b):
 * "all" is every device in enumeration order; a list is each item as
 * ax_vk_select reads it, in the order given, none twice.  Fills
 * index[0..*n).  AX_ENOTFOUND / AX_EINVAL with the reason in err.
 */
int ax_vk_select_many(const struct ax_vk_instance *inst, const char *sel,
		      int *index, int *n, char *err, size_t errlen);

/* Everything `devices --json` says about a device but its locality (a
 * new reference): the device row stores it, `devices --json` prints it. */
json_t *ax_vk_device_json(const struct ax_vk_device_info *info);

/*
 * The words of that document, for views that read the struct itself
 * (the `devices` table): each is what ax_vk_device_json writes, so the
 * table and the document cannot drift apart, and callers outside core/
 * never name a Vulkan constant.
 */
/* The extension the cooperative-matrix shapes come from. */
#define AX_VK_COOPMAT_NV_EXT VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME
/* "1.3.230" for a packed API version. */
void ax_vk_api_version_text(uint32_t version, char *buf, size_t len);
/* Whether memory heap `heap` (< info->memory.memoryHeapCount) is
 * device-local. */
bool ax_vk_heap_device_local(const struct ax_vk_device_info *info,
			     uint32_t heap);
/* A queue family's flags as "graphics compute transfer" (the ones it
 * has, in that order; "" for none). */
void ax_vk_queue_flags_text(uint32_t flags, char *buf, size_t len);
/* Whether a compute pipeline on the device may require subgroup size
 * `size`: a power of two in subgroup_size_min..max, on a device with
 * VK_EXT_subgroup_size_control. */
bool ax_vk_subgroup_size_ok(const struct ax_vk_device_info *info,
			    uint32_t size);
/* Does the device list the VK_NV_cooperative_matrix shape m x n x k with
 * f16 A and B and f32 C and D (f16 with acc16) at subgroup scope: what
 * gemm kernel=coopmat and peak type=matrix run on? */
bool ax_vk_coopmat_nv_lists(const struct ax_vk_device_info *info, uint32_t m,
			    uint32_t n, uint32_t k, bool acc16);
/* The listed shapes as "16x8x16 f16*f16+f32, ..." into buf ("" for none),
 * for a skip message. */
void ax_vk_coopmat_nv_shapes_text(const struct ax_vk_device_info *info,
				  char *buf, size_t len);
/* Why the device lists no cooperative-matrix shape (static text), or
 * NULL where it lists some. */
const char *ax_vk_coopmat_absent(const struct ax_vk_device_info *info);
/* "subgroup", "workgroup" ... for a cooperative-matrix shape's scope. */
const char *ax_vk_scope_name(VkScopeNV scope);

/* The device as core/telemetry names it (vendor, PCI bus id, UUID, CPU or
 * GPU, name): the adapter that keeps Vulkan out of the telemetry module. */
struct ax_tel_device;
void ax_vk_telemetry_device(const struct ax_vk_device_info *info,
			    struct ax_tel_device *out);

/* Device-local memory in use and the budget the driver gives this
 * process, summed over device-local heaps (VK_EXT_memory_budget): 0, or
 * AX_EUNSUPPORTED where the device lacks the extension. */
struct ax_vk_ctx;
int ax_vk_memory_budget(const struct ax_vk_ctx *vk, double *used_b,
			double *budget_b);

/* Human names for enums. */
const char *ax_vk_device_type_name(VkPhysicalDeviceType t);
/* "f16", "f32", "s8" ... for a cooperative-matrix component type. */
const char *ax_vk_component_type_name(VkComponentTypeNV t);
const char *ax_vk_result_name(VkResult r);

/* An open logical device.  Fields are read-only for callers. */
struct ax_vk_ctx {
	struct ax_vk_instance *inst;
	const struct ax_vk_device_info *info;
	VkPhysicalDevice phys;
	VkDevice dev;
	uint32_t compute_family, transfer_family;
	VkQueue compute_queue, transfer_queue; /* equal when no dedicated */
	bool dedicated_transfer;
	VkCommandPool compute_pool, transfer_pool;
	VkFence fence;
	VkPipelineCache cache;
	char cache_path[512];
	VkQueryPool timestamps; /* AX_VK_TIMESTAMPS queries, or NULL */
	double timestamp_period_ns;
	uint64_t timestamp_mask;
	double compile_ms_total;    /* pipeline creation time, accumulated */
	uint64_t timeout_ns;	    /* fence timeout for the current case: the
				       runner sets it from --timeout (30 s
				       until then); suites waiting on fences
				       of their own use it too */
	bool lost;		    /* a fence timed out or the device was lost:
				       set only through ax_vk_mark_lost */
	VkCommandBuffer pending_cb; /* what a timed-out submit left running */
	VkCommandPool pending_pool;
	char err[1024]; /* last error message */
};

#define AX_VK_TIMESTAMPS 64

/* Open device index of inst (creates queues, pools, cache, query pool). */
int ax_vk_open(struct ax_vk_instance *inst, int index, struct ax_vk_ctx **out,
	       char *err, size_t errlen);
/* Pending work did not finish (a suite's own fence timed out): nothing
 * more is submitted, nothing is destroyed (see ax_vk_close). */
void ax_vk_mark_lost(struct ax_vk_ctx *ctx);

/*
 * After ax_vk_cmd_submit_wait timed out: wait up to grace_ns more for that
 * submission.  If it finishes, the work only overran its timeout and the
 * context is usable again (returns 0, lost cleared); otherwise it stays
 * lost (AX_ETIMEOUT, or AX_EINTR when the stop flag ended the wait).  A
 * context lost any other way stays lost.
 */
int ax_vk_recover(struct ax_vk_ctx *ctx, uint64_t grace_ns);

/*
 * After a wait that the stop flag ended (AX_EINTR): wait up to wait_ns for
 * the submission left pending, whatever the flag says (the caller is
 * already stopping, and a context whose work finished can be closed
 * properly).  0 when it finished (lost cleared), else it stays lost.
 */
int ax_vk_settle(struct ax_vk_ctx *ctx, uint64_t wait_ns);

/*
 * Make every fence wait from now on end within AX_VK_STOP_SLICE_MS of *stop
 * becoming non-zero (cli/ passes its SIGINT/SIGTERM flag; NULL: never):
 * vkWaitForFences cannot be interrupted by a signal, so waits are taken in
 * slices that look at the flag between them.  A wait so ended returns
 * AX_EINTR and leaves the context lost with its work pending, as a timeout
 * does (nothing is destroyed under work that may still run).
 * Process-wide, as the flag is.
 */
void ax_vk_set_stop(const volatile int *stop);
#define AX_VK_STOP_SLICE_MS 50

/* Wait idle (unless lost), save the pipeline cache, destroy everything. */
void ax_vk_close(struct ax_vk_ctx *ctx);

enum ax_vk_mem {
	AX_MEM_DEVICE,	    /* device-local */
	AX_MEM_UPLOAD,	    /* host-visible + coherent (staging for upload) */
	AX_MEM_READBACK,    /* host-visible, cached if possible */
	AX_MEM_DEVICE_HOST, /* device-local + host-visible (BAR / UMA) */
};
const char *ax_vk_mem_name(enum ax_vk_mem kind);

struct ax_vk_buffer {
	VkBuffer buf;
	VkDeviceMemory mem;
	VkDeviceSize size;
	void *map; /* persistent mapping when host-visible */
	uint32_t type_index;
	VkMemoryPropertyFlags props;
	bool imported; /* map is the caller's memory (ax_vk_buffer_import) */
	VkDeviceSize mem_size; /* the allocation's size (>= size) */
};

/*
 * Create a buffer of size bytes with usage | TRANSFER_SRC | TRANSFER_DST in
 * memory of the given kind.  AX_EUNSUPPORTED when the device has no such
 * memory type, AX_EDEVMEM (message names the size and the limit) when the
 * allocation does not fit.
 */
int ax_vk_buffer_create(struct ax_vk_ctx *ctx, VkDeviceSize size,
			VkBufferUsageFlags usage, enum ax_vk_mem kind,
			struct ax_vk_buffer *out);
void ax_vk_buffer_destroy(struct ax_vk_ctx *ctx, struct ax_vk_buffer *b);

/*
 * A buffer over size bytes of the caller's host memory at ptr, imported
 * with VK_EXT_external_memory_host (no copy: the device reads and writes
 * that memory in place; out->map is ptr, out->imported set).  ptr and
 * size must be multiples of info->host_import_align, and the memory must
 * outlive the buffer (ax_vk_buffer_destroy leaves it to the caller).
 * AX_EUNSUPPORTED (the reason in ctx->err) without the extension or a
 * memory type that takes the pointer; AX_EINVAL for a misaligned one.
 */
int ax_vk_buffer_import_host(struct ax_vk_ctx *ctx, void *ptr,
			     VkDeviceSize size, VkBufferUsageFlags usage,
			     struct ax_vk_buffer *out);

/*
 * Memory shared between two devices (VK_KHR_external_memory_fd): a
 * device-local buffer of size bytes on ctx whose memory is exported as
 * an opaque fd (*fd, the caller's to hand on), and its import on another
 * device (peer), which may then copy from it or into it directly.  The
 * import takes the fd (closed on failure too) and must use the
 * exporter's allocation size and memory type (out->mem_size,
 * out->type_index of the exported buffer).  AX_EUNSUPPORTED, the reason
 * in ctx->err, where the extension is missing, the devices' UUIDs
 * differ, or the driver will not export or import a buffer so.
 */
int ax_vk_buffer_create_exported(struct ax_vk_ctx *ctx, VkDeviceSize size,
				 VkBufferUsageFlags usage,
				 struct ax_vk_buffer *out, int *fd);
int ax_vk_buffer_import_fd(struct ax_vk_ctx *peer, int fd, VkDeviceSize size,
			   const struct ax_vk_buffer *exported,
			   VkBufferUsageFlags usage, struct ax_vk_buffer *out);

/* Copy host data into / out of a buffer at offset: directly when mapped,
 * else through a temporary staging buffer and vkCmdCopyBuffer. */
int ax_vk_upload(struct ax_vk_ctx *ctx, struct ax_vk_buffer *b,
		 VkDeviceSize offset, const void *data, size_t size);
int ax_vk_download(struct ax_vk_ctx *ctx, struct ax_vk_buffer *b,
		   VkDeviceSize offset, void *data, size_t size);

/* Make host writes visible to the device / device writes to the host for
 * non-coherent mappings (no-ops for coherent memory). */
int ax_vk_flush(struct ax_vk_ctx *ctx, struct ax_vk_buffer *b);
int ax_vk_invalidate(struct ax_vk_ctx *ctx, struct ax_vk_buffer *b);

/* Deterministic pseudo-random 32-bit words (xorshift64*), for filling
 * buffers: zeros and untouched pages inflate bandwidth figures. */
void ax_vk_fill_random_words(uint32_t *dst, size_t n_words, uint64_t seed);

/* One specialization constant (all axbench constants are 32-bit); a
 * pipeline takes at most AX_VK_MAX_SPEC of them. */
#define AX_VK_MAX_SPEC 32
struct ax_vk_spec {
	uint32_t id;
	uint32_t value;
};
/*
 * Not a specialization constant: an entry with this id sets the compute
 * stage's required subgroup size (VkPipelineShaderStageRequiredSubgroup-
 * SizeCreateInfo, VK_EXT_subgroup_size_control) to its value, and 0
 * leaves the size to the driver.  A parameter row binds it as a knob
 * like any constant (AX_KNOB), so a suite's packing, the tuner and the
 * stored point need nothing of their own; the pipeline takes it out of
 * the specialization data.  A size the device cannot require is refused
 * with AX_EINVAL (suites check first: ax_suite_check_subgroup_size).
 */
#define AX_VK_SPEC_SUBGROUP_SIZE 0x7fff0001u

/* A storage-buffer binding: range 0 means "to the end of the buffer". */
struct ax_vk_binding {
	const struct ax_vk_buffer *buffer;
	VkDeviceSize offset, range;
	/* A binding the pipeline declares a uniform texel buffer: the
	 * format of its view (the buffer needs
	 * VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT); ignored otherwise. */
	VkFormat format;
};

struct ax_vk_pipeline {
	VkShaderModule module;
	VkDescriptorSetLayout set_layout;
	VkPipelineLayout layout;
	VkPipeline pipeline;
	VkDescriptorPool pool;
	VkDescriptorSet set;
	uint32_t n_bindings, push_size;
	uint32_t texel_mask;	/* bit i: binding i is a uniform texel buffer */
	VkBufferView views[16]; /* their views, made by ax_vk_pipeline_bind */
	double compile_ms;
	char shader_hash[17];
};

/*
 * Build a compute pipeline from embedded shader `shader` (its base name
 * under shaders/, or a variant from shaders/variants.mk) with n_bindings
 * storage buffers at bindings 0..n-1 and push_size bytes of push constants.
 * AX_ENOTFOUND for an unknown shader, AX_ECOMPILE when the driver cannot
 * build the module or the pipeline, AX_EVK (or AX_EDEVMEM ...) with the
 * VkResult when a layout or pool fails.
 */
int ax_vk_pipeline_create(struct ax_vk_ctx *ctx, const char *shader,
			  uint32_t n_bindings, uint32_t push_size,
			  const struct ax_vk_spec *spec, int n_spec,
			  struct ax_vk_pipeline *out);
/*
 * As ax_vk_pipeline_create, from caller-owned SPIR-V (size bytes; only
 * read during the call) with entry point `entry` (NULL: "main"); the
 * shader hash is that of the code.  AX_EINVAL for code that is not whole
 * words, n_bindings above 16 or n_spec above AX_VK_MAX_SPEC (both entry
 * points); AX_ECOMPILE when the driver cannot build the module or the
 * pipeline (ctx->err names the VkResult).
 */
int ax_vk_pipeline_create_spirv(struct ax_vk_ctx *ctx, const uint32_t *code,
				size_t size, const char *entry,
				uint32_t n_bindings, uint32_t push_size,
				const struct ax_vk_spec *spec, int n_spec,
				struct ax_vk_pipeline *out);
/*
 * As ax_vk_pipeline_create, with the bindings in texel_mask (bit i for
 * binding i) declared uniform texel buffers (samplerBuffer in GLSL)
 * instead of storage buffers.  Why: CPU drivers gather texel fetches
 * with vector instructions, where lavapipe loads a storage buffer one
 * lane at a time (shaders/gemm.comp, tex=1).
 */
int ax_vk_pipeline_create_texel(struct ax_vk_ctx *ctx, const char *shader,
				uint32_t n_bindings, uint32_t texel_mask,
				uint32_t push_size,
				const struct ax_vk_spec *spec, int n_spec,
				struct ax_vk_pipeline *out);
/* Point the pipeline's descriptor set at the buffers (n == n_bindings).
 * Ranges above maxStorageBufferRange are refused with AX_EINVAL, texel
 * views of more than maxTexelBufferElements texels too. */
int ax_vk_pipeline_bind(struct ax_vk_ctx *ctx, struct ax_vk_pipeline *p,
			const struct ax_vk_binding *b, uint32_t n);
void ax_vk_pipeline_destroy(struct ax_vk_ctx *ctx, struct ax_vk_pipeline *p);

/* Record: bind pipeline + set, push constants (may be NULL), dispatch. */
void ax_vk_cmd_dispatch(VkCommandBuffer cb, const struct ax_vk_pipeline *p,
			const void *push, uint32_t gx, uint32_t gy,
			uint32_t gz);
/* Record a full memory barrier between two dispatches / copies. */
void ax_vk_cmd_barrier(VkCommandBuffer cb);

/* Allocate and begin a one-time command buffer on the compute queue's
 * pool (or the transfer queue's when transfer is true). */
int ax_vk_cmd_begin(struct ax_vk_ctx *ctx, bool transfer, VkCommandBuffer *cb);
/*
 * End, submit, wait for the fence up to timeout_ns, free cb.  AX_ETIMEOUT
 * when the fence did not signal, AX_EINTR when the stop flag ended the wait
 * (ax_vk_set_stop) (either way the context is then marked lost: pending
 * work cannot be reclaimed safely), AX_EDEVLOST on VK_ERROR_DEVICE_LOST.
 */
int ax_vk_cmd_submit_wait(struct ax_vk_ctx *ctx, VkCommandBuffer cb,
			  bool transfer, uint64_t timeout_ns);

/* Submit several recorded command buffers to one queue with one fence. */
int ax_vk_submit(struct ax_vk_ctx *ctx, VkQueue queue,
		 const VkCommandBuffer *cbs, uint32_t n, VkFence fence);

/*
 * A submission slot: a resettable command buffer of one queue and its
 * fence, for suites that keep several submissions in flight and recycle
 * them (transfer's and ingest's staging rotation).  busy: submitted and
 * not yet waited for.
 */
struct ax_vk_slot {
	VkCommandBuffer cb;
	VkFence fence;
	bool transfer; /* the transfer queue's, else the compute queue's */
	bool busy;
};

/* Allocate the command buffer and the fence (unsignalled).  AX_EVK or
 * AX_EDEVLOST with ctx->err naming the call. */
int ax_vk_slot_init(struct ax_vk_ctx *ctx, bool transfer, struct ax_vk_slot *s);
/* Begin recording (one-time submit; beginning resets the buffer). */
int ax_vk_slot_begin(struct ax_vk_ctx *ctx, struct ax_vk_slot *s);
/* End recording and submit to the slot's queue with its fence. */
int ax_vk_slot_submit(struct ax_vk_ctx *ctx, struct ax_vk_slot *s);
/* Wait for a busy slot up to ctx->timeout_ns and reset its fence (0 at
 * once when not busy).  AX_ETIMEOUT, or AX_EINTR when the stop flag ended
 * the wait, marks the context lost (pending work cannot be reclaimed
 * safely); the caller words the message. */
int ax_vk_slot_wait(struct ax_vk_ctx *ctx, struct ax_vk_slot *s);
/* Wait if busy, free the buffer and the fence (only host memory is left
 * alone when the context is lost). */
void ax_vk_slot_release(struct ax_vk_ctx *ctx, struct ax_vk_slot *s);

/* Timestamp query `slot` (< AX_VK_TIMESTAMPS) at the end of all work. */
void ax_vk_cmd_timestamp(struct ax_vk_ctx *ctx, VkCommandBuffer cb,
			 uint32_t slot);
/* Reset queries [first, first+count) (record before writing them). */
void ax_vk_cmd_reset_timestamps(struct ax_vk_ctx *ctx, VkCommandBuffer cb,
				uint32_t first, uint32_t count);
/* Nanoseconds between timestamp slots a and b (masked to the valid bits,
 * scaled by timestampPeriod), after the submission completed. */
int ax_vk_timestamp_delta_ns(struct ax_vk_ctx *ctx, uint32_t a, uint32_t b,
			     double *ns);

/* Hex FNV-1a hash of an embedded shader's SPIR-V, "" if unknown. */
void ax_vk_shader_hash(const char *shader, char hex[17]);

#endif
