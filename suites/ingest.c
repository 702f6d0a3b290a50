/*
 * suites/ingest.c - data loading measured from storage: a file is read in
 * chunks by reader threads straight into host-visible staging buffers,
 * each chunk is copied to a device buffer and checksummed there by a
 * light kernel (shaders/ingest.comp), as a data loader feeds a model.
 *
 * Work model: the file's first `size` bytes per repetition; GB/s end to
 * end (storage or page cache -> staging -> device -> kernel).
 *
 * The pipeline of one repetition, with k = inflight staging slots: the
 * first k chunks are handed to the readers; then, in chunk order, the
 * main thread waits for chunk i to be read, records and submits its copy
 * (and dispatch), and, once chunk i - 1's submission has finished (one
 * behind, so the device works on chunk i meanwhile; k = 1 waits for chunk
 * i itself), hands that slot the chunk k places further on.  Up to k - 1
 * chunks are read while the device works on another.  All Vulkan calls
 * are on the main thread; readers only pread / memcpy into mapped memory.
 *
 * Stages, per repetition: read = the readers' busy time / the readers
 * that can be busy at once (min(readers, inflight)), upload and compute =
 * GPU timestamps around the copy and the dispatch (host time of each
 * submission, waited for at once, when the queue has no timestamps).
 * They come from IG_PROFILE_REPS untimed repetitions after verification:
 * timestamps are not free (on lavapipe they halve the rate of 1 MiB
 * chunks), so the timed repetitions run without them and only their end-
 * to-end time is kept beside the profile.  The bound is the longest
 * stage.  The storage's raw sequential read of the same bytes, in
 * the same cache state, is measured in setup as the limit to compare to.
 *
 * Verification: the first repetitions (the runner's warm-up) always run
 * the checksum kernel, whatever `compute` says, and every chunk's two
 * sums must equal the CPU's sums of the file (taken in setup).
 * AXBENCH_INGEST_CORRUPT=1 (test-only) flips one byte of the first chunk
 * after it is read, so that the check can be seen to fail.
 */
#include "core/error.h"
#include "suites/ingest_file.h"
#include "suites/scratch.h"
#include "suites/suite.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define IG_MAX_SLOTS 16
#define IG_MAX_READERS 16
#define IG_WG 64
#define IG_EPI 16     /* uvec4 loads per invocation: 16 KiB a workgroup */
#define IG_ALIGN 4096 /* O_DIRECT buffers and lengths */
#define IG_CORRUPT_ENV "AXBENCH_INGEST_CORRUPT"
#define IG_PROFILE_REPS 3
/* More than this fraction still cached after a drop: not a cold read. */
#define IG_COLD_MAX_RESIDENT 0.10

enum ig_cache { IG_WARM, IG_COLD };
enum ig_io { IG_PREAD, IG_MMAP, IG_DIRECT };
enum ig_compute { IG_NONE, IG_CHECKSUM };

static const char *const ig_files[] = {"auto", NULL};
static const char *const ig_caches[] = {"warm", "cold", NULL};
static const char *const ig_ios[] = {"pread", "mmap", "direct", NULL};
static const char *const ig_computes[] = {"none", "checksum", NULL};

struct ig_point {
	const char *file; /* NULL for auto */
	uint64_t size, chunk, n_chunks;
	enum ig_cache cache;
	enum ig_io io;
	enum ig_compute compute;
	uint32_t readers, inflight;
};

static const struct ax_param_def ig_params[] = {
    {"file", AX_PT_TEXT, 0, 0, ig_files, 0, AX_PARAM_SHAPE,
     "the data file, or auto: a generated file of `size` bytes under "
     "--workdir (default the database's directory), removed at once",
     AX_FIELD(struct ig_point, file)},
    {"size", AX_PT_INT, 1, 1LL << 40, NULL, 64LL << 20,
     AX_PARAM_SHAPE | AX_PARAM_BYTES,
     "bytes read per repetition: the file's first `size` bytes",
     AX_FIELD(struct ig_point, size)},
    {"cache", AX_PT_ENUM, 0, 0, ig_caches, IG_WARM, AX_PARAM_SHAPE,
     "warm (the file in the page cache) or cold (dropped with "
     "posix_fadvise before every repetition: read from storage)",
     AX_FIELD(struct ig_point, cache)},
    {"compute", AX_PT_ENUM, 0, 0, ig_computes, IG_CHECKSUM, AX_PARAM_SHAPE,
     "the kernel run on each uploaded chunk: none, or checksum (two "
     "sums of its words), so reading, upload and compute overlap",
     AX_FIELD(struct ig_point, compute)},
    {"chunk", AX_PT_INT, 4096, 256LL << 20, NULL, 1LL << 20,
     AX_PARAM_TUNABLE | AX_PARAM_BYTES | AX_PARAM_POW2,
     "bytes per read and per upload", AX_FIELD(struct ig_point, chunk)},
    {"readers", AX_PT_INT, 1, IG_MAX_READERS, NULL, 2, AX_PARAM_TUNABLE,
     "reader threads", AX_FIELD(struct ig_point, readers)},
    {"inflight", AX_PT_INT, 1, IG_MAX_SLOTS, NULL, 4, AX_PARAM_TUNABLE,
     "staging buffers in rotation: chunks between storage and device",
     AX_FIELD(struct ig_point, inflight)},
    {"io", AX_PT_ENUM, 0, 0, ig_ios, IG_PREAD, AX_PARAM_TUNABLE,
     "pread (into staging memory), mmap (copied from a mapping) or "
     "direct (O_DIRECT, bypassing the page cache; skipped where the "
     "filesystem refuses it)",
     AX_FIELD(struct ig_point, io)},
};
#define IG_N_PARAMS ((int)(sizeof(ig_params) / sizeof(ig_params[0])))

static void ig_point(const struct ax_params *p, struct ig_point *x)
{
	memset(x, 0, sizeof(*x));
	ax_params_store(p, x);
	if (x->file == ig_files[0]) /* value 0: the default, auto */
		x->file = NULL;
	x->n_chunks = (x->size + x->chunk - 1) / x->chunk;
}

/* ---- check ---- */

static int ig_check_device(const struct ig_point *x,
			   const struct ax_vk_device_info *dev, char *why,
			   size_t whylen)
{
	uint64_t ring = x->chunk * x->inflight, sums = 8 * x->n_chunks;
	uint64_t range = dev->limits.maxStorageBufferRange;
	if (ring > range)
		return ax_errf(why, whylen, AX_EINVAL,
			       "ingest: %u chunks of %llu bytes in flight need "
			       "a %llu-byte device buffer, over the device's "
			       "maxStorageBufferRange %llu; use a smaller "
			       "chunk or inflight",
			       x->inflight, (unsigned long long)x->chunk,
			       (unsigned long long)ring,
			       (unsigned long long)range);
	if (sums > range)
		return ax_errf(why, whylen, AX_EINVAL,
			       "ingest: %llu chunks need %llu bytes of "
			       "checksums, over maxStorageBufferRange %llu; "
			       "use a larger chunk",
			       (unsigned long long)x->n_chunks,
			       (unsigned long long)sums,
			       (unsigned long long)range);
	uint64_t heap0 = dev->memory.memoryHeaps[0].size;
	if (heap0 && 2 * ring > heap0 / 2)
		return ax_errf(why, whylen, AX_EINVAL,
			       "ingest: %llu bytes of staging and device "
			       "buffers are over half of memory heap 0 (%llu "
			       "bytes); use a smaller chunk or inflight",
			       (unsigned long long)(2 * ring),
			       (unsigned long long)heap0);
	return 0;
}

static int ig_check(const struct ax_params *p,
		    const struct ax_vk_device_info *dev, char *why,
		    size_t whylen)
{
	struct ig_point x;
	ig_point(p, &x);
	if (x.n_chunks > UINT32_MAX / 2)
		return ax_errf(why, whylen, AX_EINVAL,
			       "ingest: %llu chunks are too many; use a larger "
			       "chunk",
			       (unsigned long long)x.n_chunks);
	int rc =
	    x.file ? ax_ingest_file_usable(x.file, x.size, why, whylen)
		   : ax_ingest_file_room(ax_scratch_dir(), x.size, why, whylen);
	return rc ? rc : ig_check_device(&x, dev, why, whylen);
}

/* ---- state ---- */

enum ig_slot_state { SLOT_FREE, SLOT_READING, SLOT_READY };

struct ig_slot {
	struct ax_vk_buffer staging; /* host-visible, chunk bytes */
	unsigned char *bounce;	     /* io=direct where the mapping is not
					aligned, or cannot be pinned */
	struct ax_vk_slot sub;	     /* its command buffer and fence */
	enum ig_slot_state state;
	uint64_t chunk;	 /* the chunk it holds */
	uint32_t len;	 /* that chunk's bytes */
	int read_errno;	 /* 0, or why the read failed */
	double read_s;	 /* the reader's time on that chunk */
	double submit_t; /* when its submission was made */
};

struct ig_state {
	struct ax_vk_ctx *vk;
	struct ig_point pt;
	struct ax_ingest_file file;
	unsigned char *map; /* io=mmap: the file's first size bytes */
	struct ax_vk_buffer ring, sums;
	struct ax_vk_pipeline pipe;
	struct ig_slot slot[IG_MAX_SLOTS];
	uint32_t *want; /* the CPU's sums, two per chunk */
	bool checking;	/* run the checksum this repetition (warm-up) */
	bool corrupt;	/* the test hook */
	bool have_ts;	/* the queue has timestamps (3 a slot fit) */
	bool profiling; /* an untimed repetition that times its stages */

	pthread_t thread[IG_MAX_READERS];
	uint32_t n_threads;
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	int queue[IG_MAX_SLOTS]; /* slots waiting for a reader */
	int q_head, q_len;
	bool quit, sync_made;

	/* Stage sums of the profiled repetitions, and the end-to-end time
	 * of the profiled and of the timed ones. */
	double read_s, upload_s, compute_s, prof_wall_s, wall_s;
	uint64_t reps;
	double raw_read_gbps, resident_after_drop;
};

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- readers ---- */

static int read_full(int fd, unsigned char *dst, size_t len, uint64_t off)
{
	size_t got = 0;
	while (got < len) {
		ssize_t r = pread(fd, dst + got, len - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno;
		if (r == 0)
			return ENODATA; /* the file shrank under us */
		got += (size_t)r;
	}
	return 0;
}

/* O_DIRECT wants aligned memory, offsets and lengths: the length is
 * rounded up (a read at the end of the file returns what is there).  A
 * driver's mapping that the kernel cannot pin for DMA (EFAULT) gets an
 * aligned bounce buffer instead, kept for the slot's later reads. */
static int read_direct(struct ig_state *s, struct ig_slot *sl,
		       unsigned char *dst, uint64_t off)
{
	size_t want =
	    ((size_t)sl->len + IG_ALIGN - 1) & ~(size_t)(IG_ALIGN - 1);
	size_t got = 0;
	while (got < sl->len) {
		unsigned char *buf = sl->bounce ? sl->bounce : dst;
		ssize_t r = pread(s->file.direct_fd, buf + got, want - got,
				  (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EFAULT && !sl->bounce && got == 0) {
			if (posix_memalign((void **)&sl->bounce, IG_ALIGN,
					   s->pt.chunk))
				return ENOMEM;
			continue;
		}
		if (r < 0)
			return errno;
		if (r == 0)
			return ENODATA;
		got += (size_t)r;
	}
	if (sl->bounce)
		memcpy(dst, sl->bounce, sl->len);
	return 0;
}

static int read_chunk(struct ig_state *s, struct ig_slot *sl)
{
	unsigned char *dst = sl->staging.map;
	uint64_t off = sl->chunk * s->pt.chunk;
	int e = 0;
	if (s->pt.io == IG_MMAP)
		memcpy(dst, s->map + off, sl->len);
	else if (s->pt.io == IG_DIRECT)
		e = read_direct(s, sl, dst, off);
	else
		e = read_full(s->file.fd, dst, sl->len, off);
	/* Whole uvec4 for the kernel: the tail is zero-padded (zero words
	 * add nothing to either sum, as in the CPU's). */
	size_t padded = ((size_t)sl->len + 15) & ~(size_t)15;
	memset(dst + sl->len, 0, padded - sl->len);
	if (s->corrupt && sl->chunk == 0)
		dst[sl->len / 2] ^= 0x40;
	return e;
}

static void *reader_main(void *arg)
{
	struct ig_state *s = arg;
	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!s->q_len && !s->quit)
			pthread_cond_wait(&s->work, &s->mu);
		if (s->quit)
			break;
		struct ig_slot *sl = &s->slot[s->queue[s->q_head]];
		s->q_head = (s->q_head + 1) % IG_MAX_SLOTS;
		s->q_len--;
		pthread_mutex_unlock(&s->mu);
		double t0 = now_s();
		int e = read_chunk(s, sl);
		double dt = now_s() - t0;
		pthread_mutex_lock(&s->mu);
		sl->read_errno = e;
		sl->read_s = dt;
		sl->state = SLOT_READY;
		pthread_cond_broadcast(&s->done);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* Hand slot i the chunk c to read. */
static void post_read(struct ig_state *s, int i, uint64_t c)
{
	struct ig_slot *sl = &s->slot[i];
	uint64_t left = s->pt.size - c * s->pt.chunk;
	sl->chunk = c;
	sl->len = (uint32_t)(left < s->pt.chunk ? left : s->pt.chunk);
	pthread_mutex_lock(&s->mu);
	sl->state = SLOT_READING;
	s->queue[(s->q_head + s->q_len) % IG_MAX_SLOTS] = i;
	s->q_len++;
	pthread_cond_signal(&s->work);
	pthread_mutex_unlock(&s->mu);
}

static void wait_read(struct ig_state *s, struct ig_slot *sl)
{
	pthread_mutex_lock(&s->mu);
	while (sl->state != SLOT_READY)
		pthread_cond_wait(&s->done, &s->mu);
	pthread_mutex_unlock(&s->mu);
}

static int start_readers(struct ig_state *s)
{
	if (pthread_mutex_init(&s->mu, NULL) ||
	    pthread_cond_init(&s->work, NULL) ||
	    pthread_cond_init(&s->done, NULL))
		return AX_ENOMEM;
	s->sync_made = true;
	for (uint32_t i = 0; i < s->pt.readers; i++) {
		if (pthread_create(&s->thread[i], NULL, reader_main, s))
			return AX_ENOMEM;
		s->n_threads++;
	}
	return 0;
}

static void stop_readers(struct ig_state *s)
{
	if (!s->sync_made)
		return;
	pthread_mutex_lock(&s->mu);
	s->quit = true;
	pthread_cond_broadcast(&s->work);
	pthread_mutex_unlock(&s->mu);
	for (uint32_t i = 0; i < s->n_threads; i++)
		pthread_join(s->thread[i], NULL);
	pthread_cond_destroy(&s->work);
	pthread_cond_destroy(&s->done);
	pthread_mutex_destroy(&s->mu);
}

/* ---- teardown and setup ---- */

static void ig_teardown(struct ax_vk_ctx *vk, void *state)
{
	struct ig_state *s = state;
	if (!s)
		return;
	stop_readers(s);
	for (int i = 0; i < IG_MAX_SLOTS; i++) {
		struct ig_slot *sl = &s->slot[i];
		ax_vk_slot_release(vk, &sl->sub);
		ax_vk_buffer_destroy(vk, &sl->staging);
		free(sl->bounce);
	}
	ax_vk_pipeline_destroy(vk, &s->pipe);
	ax_vk_buffer_destroy(vk, &s->ring);
	ax_vk_buffer_destroy(vk, &s->sums);
	if (s->map)
		munmap(s->map, s->pt.size);
	ax_ingest_file_close(&s->file);
	free(s->want);
	free(s);
}

static int open_file(struct ig_state *s, char *err, size_t errlen)
{
	if (s->pt.file)
		return ax_ingest_file_open(s->pt.file, &s->file, err, errlen);
	return ax_ingest_file_generated(ax_scratch_dir(), s->pt.size, &s->file,
					err, errlen);
}

/* A reason found only on the file that the point cannot be measured. */
static int direct_supported(struct ig_state *s, char *err, size_t errlen)
{
	if (s->pt.io == IG_DIRECT && s->file.direct_fd < 0)
		return ax_errf(err, errlen, AX_EUNSUPPORTED,
			       "ingest: io=direct: the %s filesystem of %s "
			       "refuses O_DIRECT (%s); use io=pread, or "
			       "--workdir on a disk filesystem",
			       s->file.fs, s->file.path,
			       strerror(s->file.direct_errno));
	return 0;
}

/* Cold: can the file's pages be dropped at all?  (After cpu_sums, which
 * reads them in.) */
static int cold_supported(struct ig_state *s, char *err, size_t errlen)
{
	if (s->pt.cache != IG_COLD)
		return 0;
	ax_ingest_drop_cache(&s->file, s->pt.size);
	s->resident_after_drop = ax_ingest_resident(&s->file, s->pt.size);
	if (s->resident_after_drop > IG_COLD_MAX_RESIDENT)
		return ax_errf(
		    err, errlen, AX_EUNSUPPORTED,
		    "ingest: cache=cold: %.0f %% of %s stayed in memory after "
		    "posix_fadvise(DONTNEED) (a %s filesystem keeps its files "
		    "in memory, or the pages are locked); a cold figure would "
		    "be a warm one: use --workdir on a disk filesystem",
		    100 * s->resident_after_drop, s->file.path, s->file.fs);
	return 0;
}

/* The CPU's sums of every chunk, read with plain preads. */
static int cpu_sums(struct ig_state *s, char *err, size_t errlen)
{
	uint64_t n = s->pt.n_chunks, chunk = s->pt.chunk;
	s->want = malloc(8 * n);
	unsigned char *buf = malloc(chunk);
	int e = s->want && buf ? 0 : ENOMEM;
	for (uint64_t c = 0; e == 0 && c < n; c++) {
		uint64_t left = s->pt.size - c * chunk;
		size_t len = (size_t)(left < chunk ? left : chunk);
		e = read_full(s->file.fd, buf, len, c * chunk);
		if (e == 0)
			ax_ingest_checksum(buf, len, &s->want[2 * c]);
	}
	free(buf);
	char why[PATH_MAX + 128];
	if (e)
		ax_ingest_read_failure(&s->file, e, why, sizeof(why));
	if (e)
		return ax_errf(err, errlen, e == ENOMEM ? AX_ENOMEM : AX_EIO,
			       "ingest: reading %s for its checksums failed "
			       "(%s)",
			       s->file.path, why);
	return 0;
}

static int slot_init(struct ig_state *s, struct ig_slot *sl, char *err,
		     size_t errlen)
{
	struct ax_vk_ctx *vk = s->vk;
	int rc = ax_vk_slot_init(vk, false, &sl->sub);
	if (rc)
		return ax_errf(err, errlen, rc, "ingest: %s on %s", vk->err,
			       vk->info->name);
	rc = ax_vk_buffer_create(vk, s->pt.chunk, 0, AX_MEM_UPLOAD,
				 &sl->staging);
	if (rc)
		return rc;
	/* O_DIRECT reads straight into the mapping when it is aligned. */
	if (s->pt.io == IG_DIRECT &&
	    ((uintptr_t)sl->staging.map % IG_ALIGN) != 0 &&
	    posix_memalign((void **)&sl->bounce, IG_ALIGN, s->pt.chunk))
		return AX_ENOMEM;
	return 0;
}

static int device_init(struct ig_state *s, char *err, size_t errlen)
{
	struct ax_vk_ctx *vk = s->vk;
	const VkBufferUsageFlags ssbo = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
	int rc = ax_vk_buffer_create(vk, s->pt.chunk * s->pt.inflight, ssbo,
				     AX_MEM_DEVICE, &s->ring);
	if (!rc)
		rc = ax_vk_buffer_create(vk, 8 * s->pt.n_chunks, ssbo,
					 AX_MEM_DEVICE, &s->sums);
	/* constant_id 0 and 1 in shaders/ingest.comp: fixed, not knobs */
	struct ax_vk_spec spec[] = {{0, IG_WG}, {1, IG_EPI}};
	if (!rc)
		rc = ax_vk_pipeline_create(vk, "ingest", 2, 12, spec, 2,
					   &s->pipe);
	struct ax_vk_binding bind[2] = {{&s->ring, 0, 0}, {&s->sums, 0, 0}};
	if (!rc)
		rc = ax_vk_pipeline_bind(vk, &s->pipe, bind, 2);
	for (uint32_t i = 0; !rc && i < s->pt.inflight; i++)
		rc = slot_init(s, &s->slot[i], err, errlen);
	return rc;
}

static int map_file(struct ig_state *s, char *err, size_t errlen)
{
	if (s->pt.io != IG_MMAP)
		return 0;
	void *m = mmap(NULL, s->pt.size, PROT_READ, MAP_SHARED, s->file.fd, 0);
	if (m == MAP_FAILED)
		return ax_errf(err, errlen, AX_EIO,
			       "ingest: io=mmap: mapping %s failed (%s)",
			       s->file.path, strerror(errno));
	s->map = m;
	madvise(m, s->pt.size, MADV_SEQUENTIAL);
	return 0;
}

static int ig_setup_steps(struct ig_state *s, char *err, size_t errlen)
{
	int rc = open_file(s, err, errlen);
	if (!rc)
		rc = direct_supported(s, err, errlen);
	if (!rc)
		rc = cpu_sums(s, err, errlen);
	if (!rc)
		rc = cold_supported(s, err, errlen);
	if (!rc)
		rc = ax_ingest_raw_read(&s->file, s->pt.size,
					s->pt.cache == IG_COLD,
					&s->raw_read_gbps, err, errlen);
	if (!rc)
		rc = map_file(s, err, errlen);
	if (!rc)
		rc = device_init(s, err, errlen);
	if (!rc)
		rc = start_readers(s);
	return rc;
}

static int ig_setup(struct ax_vk_ctx *vk, const struct ax_params *p,
		    void **state, char *err, size_t errlen)
{
	struct ig_state *s = calloc(1, sizeof(*s));
	if (!s)
		return AX_ENOMEM;
	s->vk = vk;
	s->file.fd = s->file.direct_fd = -1;
	s->resident_after_drop = -1;
	ig_point(p, &s->pt);
	s->checking = true;
	s->have_ts = vk->timestamps != VK_NULL_HANDLE &&
		     3 * s->pt.inflight <= AX_VK_TIMESTAMPS;
	const char *c = getenv(IG_CORRUPT_ENV);
	s->corrupt = c && strcmp(c, "1") == 0;
	int rc = ig_setup_steps(s, err, errlen);
	if (rc) {
		if (err && !err[0])
			ax_errf(err, errlen, rc, "ingest setup: %s",
				vk->err[0] ? vk->err : ax_strerror(rc));
		ig_teardown(vk, s);
		return rc;
	}
	*state = s;
	return 0;
}

/* ---- one repetition ---- */

static bool computing(const struct ig_state *s)
{
	return s->checking || s->pt.compute == IG_CHECKSUM;
}

static void record_chunk(struct ig_state *s, int i, struct ig_slot *sl)
{
	struct ax_vk_ctx *vk = s->vk;
	VkCommandBuffer cb = sl->sub.cb;
	uint32_t q = 3 * (uint32_t)i;
	if (sl->chunk == 0 && computing(s)) {
		/* The sums of this repetition start from zero; the barrier
		 * in every later chunk's buffer orders its atomics after
		 * this fill (earlier in submission order on one queue). */
		vkCmdFillBuffer(cb, s->sums.buf, 0, VK_WHOLE_SIZE, 0);
		ax_vk_cmd_barrier(cb);
	}
	bool ts = s->profiling && s->have_ts;
	if (ts) {
		ax_vk_cmd_reset_timestamps(vk, cb, q, 3);
		ax_vk_cmd_timestamp(vk, cb, q);
	}
	uint32_t padded = (sl->len + 15) & ~15u;
	VkBufferCopy region = {0, (VkDeviceSize)i * s->pt.chunk, padded};
	vkCmdCopyBuffer(cb, sl->staging.buf, s->ring.buf, 1, &region);
	if (ts)
		ax_vk_cmd_timestamp(vk, cb, q + 1);
	if (computing(s)) {
		ax_vk_cmd_barrier(cb);
		struct {
			uint32_t first_vec4, n_vec4, chunk;
		} push = {(uint32_t)((uint64_t)i * s->pt.chunk / 16),
			  padded / 16, (uint32_t)sl->chunk};
		uint32_t per_group = IG_WG * IG_EPI;
		uint32_t groups = (push.n_vec4 + per_group - 1) / per_group;
		ax_vk_cmd_dispatch(cb, &s->pipe, &push, groups, 1, 1);
	}
	if (ts)
		ax_vk_cmd_timestamp(vk, cb, q + 2);
}

/* A chunk that could not be read: the file shrank (said with its sizes,
 * the case stored as an error) or the system's reason. */
static int read_failed(struct ig_state *s, const struct ig_slot *sl, char *err,
		       size_t errlen)
{
	char why[PATH_MAX + 128];
	unsigned long long off = sl->chunk * s->pt.chunk;
	if (ax_ingest_read_failure(&s->file, sl->read_errno, why, sizeof(why)))
		return ax_errf(err, errlen, AX_EIO,
			       "ingest: %s: the read of %u bytes at offset "
			       "%llu found its end; keep the file unchanged "
			       "while it is measured",
			       why, sl->len, off);
	return ax_errf(err, errlen, AX_EIO,
		       "ingest: reading %u bytes of %s at offset %llu failed "
		       "(%s)",
		       sl->len, s->file.path, off, why);
}

static int submit_chunk(struct ig_state *s, int i, char *err, size_t errlen)
{
	struct ax_vk_ctx *vk = s->vk;
	struct ig_slot *sl = &s->slot[i];
	if (sl->read_errno)
		return read_failed(s, sl, err, errlen);
	if (s->profiling)
		s->read_s += sl->read_s;
	int rc = ax_vk_flush(vk, &sl->staging);
	if (rc)
		return rc;
	rc = ax_vk_slot_begin(vk, &sl->sub);
	if (rc == 0) {
		record_chunk(s, i, sl);
		rc = ax_vk_slot_submit(vk, &sl->sub);
	}
	if (rc)
		return ax_errf(err, errlen, rc,
			       "ingest: submitting chunk %llu failed: %s",
			       (unsigned long long)sl->chunk, vk->err);
	sl->submit_t = now_s();
	return 0;
}

/* A profiled repetition: the GPU's time on a retired slot's copy and
 * dispatch; host time since submission when there are no timestamps
 * (the submission was waited for at once: see ig_rep). */
static void gpu_stages(struct ig_state *s, int i, double host_s)
{
	double up = 0, comp = 0;
	uint32_t q = 3 * (uint32_t)i;
	if (!s->profiling)
		return;
	if (s->have_ts && ax_vk_timestamp_delta_ns(s->vk, q, q + 1, &up) == 0 &&
	    ax_vk_timestamp_delta_ns(s->vk, q + 1, q + 2, &comp) == 0) {
		s->upload_s += up / 1e9;
		s->compute_s += comp / 1e9;
		return;
	}
	s->upload_s += host_s;
}

/* Wait for slot i's submission. */
static int retire(struct ig_state *s, int i, char *err, size_t errlen)
{
	struct ax_vk_ctx *vk = s->vk;
	struct ig_slot *sl = &s->slot[i];
	if (!sl->sub.busy)
		return 0;
	int rc = ax_vk_slot_wait(vk, &sl->sub);
	if (rc == AX_ETIMEOUT)
		return ax_errf(err, errlen, rc,
			       "ingest: chunk %llu did not complete within "
			       "%.3g s (--timeout)",
			       (unsigned long long)sl->chunk,
			       (double)vk->timeout_ns / 1e9);
	if (rc)
		return ax_errf(err, errlen, rc,
			       "ingest: waiting for chunk %llu failed: %s",
			       (unsigned long long)sl->chunk, vk->err);
	gpu_stages(s, i, now_s() - sl->submit_t);
	return 0;
}

static int ig_rep(struct ig_state *s, char *err, size_t errlen)
{
	uint64_t n = s->pt.n_chunks, k = s->pt.inflight;
	/* One chunk behind, so the device is never idle waiting for the
	 * host to notice the last chunk finished; none with one slot, nor
	 * when a profile times submissions on the host. */
	uint64_t lag = k > 1 && !(s->profiling && !s->have_ts) ? 1 : 0;
	for (uint64_t c = 0; c < n && c < k; c++)
		post_read(s, (int)c, c);
	int rc = 0;
	for (uint64_t c = 0; rc == 0 && c < n; c++) {
		int i = (int)(c % k);
		wait_read(s, &s->slot[i]);
		rc = submit_chunk(s, i, err, errlen);
		if (rc || c < lag)
			continue;
		int j = (int)((c - lag) % k);
		rc = retire(s, j, err, errlen);
		if (rc == 0 && c - lag + k < n)
			post_read(s, j, c - lag + k);
	}
	for (uint64_t c = n > lag ? n - lag : 0; rc == 0 && c < n; c++)
		rc = retire(s, (int)(c % k), err, errlen);
	return rc;
}

/* A failed repetition can leave reads in flight: wait for them, so no
 * reader writes a buffer that teardown frees. */
static void drain_reads(struct ig_state *s)
{
	for (uint32_t i = 0; i < s->pt.inflight; i++) {
		pthread_mutex_lock(&s->mu);
		while (s->slot[i].state == SLOT_READING)
			pthread_cond_wait(&s->done, &s->mu);
		pthread_mutex_unlock(&s->mu);
	}
}

static int ig_host_op(void *state, char *err, size_t errlen)
{
	struct ig_state *s = state;
	double t0 = now_s();
	int rc = ig_rep(s, err, errlen);
	if (rc) {
		drain_reads(s);
		return rc;
	}
	if (s->profiling)
		s->prof_wall_s += now_s() - t0;
	else
		s->wall_s += now_s() - t0, s->reps++;
	return 0;
}

static int ig_prepare(void *state, char *err, size_t errlen)
{
	struct ig_state *s = state;
	if (s->pt.cache != IG_COLD)
		return 0;
	/* Mapped pages are not dropped while mapped into us. */
	if (s->map)
		madvise(s->map, s->pt.size, MADV_DONTNEED);
	if (ax_ingest_drop_cache(&s->file, s->pt.size))
		return ax_errf(err, errlen, AX_EIO,
			       "ingest: cache=cold: posix_fadvise on %s "
			       "failed",
			       s->file.path);
	return 0;
}

/* ---- verify, describe ---- */

/* Untimed repetitions that time their stages (see the head comment),
 * run between verification and the timed repetitions. */
static int profile(struct ig_state *s, char *err, size_t errlen)
{
	s->read_s = s->upload_s = s->compute_s = s->prof_wall_s = 0;
	s->profiling = true;
	int rc = 0;
	for (int r = 0; rc == 0 && r < IG_PROFILE_REPS; r++) {
		rc = ig_prepare(s, err, errlen);
		if (rc == 0)
			rc = ig_host_op(s, err, errlen);
	}
	s->profiling = false;
	s->wall_s = 0;
	s->reps = 0;
	return rc;
}

static int ig_verify(void *state, char *why, size_t whylen)
{
	struct ig_state *s = state;
	uint64_t n = s->pt.n_chunks;
	uint32_t *got = malloc(8 * n);
	if (!got)
		return AX_ENOMEM;
	int rc = ax_vk_download(s->vk, &s->sums, 0, got, 8 * n);
	for (uint64_t c = 0; rc == 0 && c < n; c++)
		if (got[2 * c] != s->want[2 * c] ||
		    got[2 * c + 1] != s->want[2 * c + 1])
			rc = ax_errf(
			    why, whylen, AX_EVERIFY,
			    "ingest: chunk %llu of %s (offset %llu): "
			    "the device's checksum is "
			    "%08x/%08x, the file's %08x/%08x%s",
			    (unsigned long long)c, s->file.path,
			    (unsigned long long)(c * s->pt.chunk), got[2 * c],
			    got[2 * c + 1], s->want[2 * c], s->want[2 * c + 1],
			    s->corrupt ? " [byte flipped by " IG_CORRUPT_ENV
					 ", test-only]"
				       : "");
	free(got);
	/* What follows runs the point's own compute setting. */
	s->checking = false;
	return rc ? rc : profile(s, why, whylen);
}

static const char *bound_of(double rd, double up, double comp)
{
	if (rd >= up && rd >= comp)
		return "read";
	return up >= comp ? "upload" : "compute";
}

static json_t *stages_json(const struct ig_state *s, const char **bound)
{
	double n = IG_PROFILE_REPS;
	uint32_t busy =
	    s->pt.readers < s->pt.inflight ? s->pt.readers : s->pt.inflight;
	double rd = s->read_s / busy / n, up = s->upload_s / n,
	       comp = s->compute_s / n;
	*bound = bound_of(rd, up, comp);
	return json_pack(
	    "{s:f, s:f, s:f, s:f, s:f, s:i, s:i, s:s}", "read_s", rd,
	    "upload_s", up, "compute_s", comp, "wall_s",
	    s->reps ? s->wall_s / (double)s->reps : 0.0, "profiled_wall_s",
	    s->prof_wall_s / n, "profiled_reps", IG_PROFILE_REPS,
	    "readers_busy_at_once", busy, "timing",
	    s->have_ts ? "per repetition, from untimed profiled repetitions: "
			 "read from the readers' clocks, upload and compute "
			 "from GPU timestamps; wall_s from the timed ones"
		       : "per repetition, from untimed profiled repetitions: "
			 "read from the readers' clocks, upload from the host "
			 "time of each submission (includes compute: no "
			 "timestamps); wall_s from the timed ones");
}

static json_t *ig_describe(void *state)
{
	struct ig_state *s = state;
	const char *bound;
	json_t *stages = stages_json(s, &bound);
	json_t *o = json_pack(
	    "{s:s, s:s, s:I, s:I, s:o, s:s, s:f, s:s, s:s}", "file",
	    s->file.path, "filesystem", s->file.fs, "chunks_per_rep",
	    (json_int_t)s->pt.n_chunks, "bytes_per_rep", (json_int_t)s->pt.size,
	    "stages", stages, "bound", bound, "raw_read_gbps", s->raw_read_gbps,
	    "raw_read",
	    "one thread reading the same bytes in order (64 MiB preads), same "
	    "cache state, median of 3",
	    "queue", "compute (copy and kernel in one submission per chunk)");
	if (!o)
		return NULL;
	if (s->pt.file == NULL)
		json_object_set_new(o, "generated",
				    json_string("pseudo-random bytes under the "
						"workdir, unlinked once "
						"opened"));
	if (s->pt.cache == IG_COLD && s->resident_after_drop >= 0)
		json_object_set_new(o, "resident_after_drop",
				    json_real(s->resident_after_drop));
	if (s->pt.io == IG_DIRECT) {
		bool bounced = false;
		for (uint32_t i = 0; i < s->pt.inflight; i++)
			bounced |= s->slot[i].bounce != NULL;
		json_object_set_new(o, "direct_bounce", json_boolean(bounced));
	}
	return o;
}

static double ig_work(const struct ax_params *p)
{
	struct ig_point x;
	ig_point(p, &x);
	return (double)x.size;
}

static const char *ig_shader(const struct ax_params *p) { return "ingest"; }

static const struct ax_suite_need ig_needs[] = {{"readers", 2}, {NULL, 0}};

static const struct ax_suite_curve ig_curve = {
    "chunk", (const char *const[]){"readers", "io", NULL},
    "Ingest rate against chunk size", "chunk (bytes)"};

const struct ax_suite ax_suite_ingest = {
    .name = "ingest",
    .summary = "data loading from storage: a file read in chunks by "
	       "reader threads into staging memory, uploaded and "
	       "checksummed on the device",
    .work_model = "GB/s = bytes read from the file per repetition / time "
		  "/ 1e9, end to end (read, upload, kernel)",
    .constraints = "inflight x chunk <= the device's "
		   "maxStorageBufferRange\n"
		   "file=PATH: a readable regular file of at least size "
		   "bytes\n"
		   "file=auto: size bytes free under --workdir\n"
		   "io=direct: the filesystem must take O_DIRECT (not "
		   "tmpfs), else skipped\n"
		   "cache=cold: the filesystem must drop the pages (not "
		   "tmpfs), else skipped",
    .unit = "GB/s",
    .metric = AX_METRIC_RATE,
    .scale = 1e9,
    .higher_is_better = true,
    .params = ig_params,
    .n_params = IG_N_PARAMS,
    .config_size = sizeof(struct ig_point),
    .check = ig_check,
    .setup = ig_setup,
    .host_op = ig_host_op,
    .host_prepare = ig_prepare,
    .verify = ig_verify,
    .work = ig_work,
    .bytes = ig_work,
    .roles = AX_ROLE_INGEST,
    .curve = &ig_curve,
    .recommend_needs = ig_needs,
    .shader = ig_shader,
    .describe = ig_describe,
    .teardown = ig_teardown,
};
