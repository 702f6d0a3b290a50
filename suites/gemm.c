/*
 * suites/gemm.c - C = op(A) * op(B), batched, fp32 or float16 storage
 * with fp32 accumulation, through one tiled kernel (shaders/gemm.comp)
 * whose tile, register-block, workgroup, load-width and buffering knobs
 * are specialization constants.
 *
 * kernel=coopmat runs shaders/gemm_coopmat.comp instead: tensor cores
 * through VK_NV_cooperative_matrix, float16 A and B, fp32 (or, acc=f16,
 * float16) accumulation, C stored as float16 like dtype=f16's, so the
 * same buffers and the same check serve both kernels.  Its knobs (cm_*,
 * sg_*, wg_s*, cm_ks) are tunables of kernel=coopmat alone, and the
 * tiled kernel's of kernel=tiled alone (`when` in the table): the
 * tuner's space is the Cartesian product of the knobs active at the
 * case, so neither kernel's space grows with the other's knobs.  The
 * coopmat tiles are constrained by the shapes the device lists, its
 * shared memory and its invocations (check_cm_device, check_cm_limits).
 *
 * Work model: 2 * m * n * k * batch FLOPs per repetition.  Output is
 * checked against a double-precision CPU reference (suites/gemm_ref.c):
 * every element for small problems, sampled rows and columns plus
 * row/column checksums for large ones.
 */
#include "core/error.h"
#include "suites/data.h"
#include "suites/gemm_ref.h"
#include "suites/suite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Why a device with only VK_KHR_cooperative_matrix is skipped: the
 * Makefile defines AX_GLSLC_KHR_COOPMAT when its glslc can compile
 * GL_KHR_cooperative_matrix; the KHR kernel itself is still to come. */
#ifdef AX_GLSLC_KHR_COOPMAT
#define AX_GEMM_KHR_NOTE                                                       \
	"this build has no GL_KHR_cooperative_matrix kernel yet; the NV "      \
	"path is used where the device has VK_NV_cooperative_matrix"
#else
#define AX_GEMM_KHR_NOTE                                                       \
	"this build's glslc cannot compile GL_KHR_cooperative_matrix; the "    \
	"NV path is used where the device has VK_NV_cooperative_matrix"
#endif

static const char *const gemm_dtypes[] = {"f32", "f16", NULL};
static const char *const gemm_kernels[] = {"tiled", "coopmat", NULL};
static const char *const gemm_shares[] = {"smem", "subgroup", NULL};
static const char *const gemm_accs[] = {"f32", "f16", NULL};

/* kernel=coopmat's knobs and the workgroup tile they make. */
struct gemm_cm {
	uint32_t m, n, k, sg_m, sg_n, wg_sm, wg_sn, ks;
	uint32_t bm, bn, bk; /* workgroup tile and k slice */
};

/* One point: the table binds each parameter into it (AX_FIELD); the rest
 * is derived in gemm_point(). */
struct gemm_point {
	struct ax_gemm_shape s;
	uint32_t dtype, kernel, acc; /* choice indices */
	bool coopmat;
	uint32_t bm, bn, bk, tm, tn, wg_x, wg_y, vec, dbuf, share, colmajor, mr,
	    tex, sg_size;
	struct gemm_cm cm;
	uint32_t gx, gy;
	uint64_t a_elems, b_elems, c_elems;
};

/* Each kernel's knobs are knobs of that kernel alone (core/params.h,
 * `when`): `tune gemm` searches the tiled kernel's, `tune gemm -p
 * kernel=coopmat` the cooperative-matrix tiles, never their product. */
#define GEMM_TILED "kernel=tiled"
#define GEMM_COOPMAT "kernel=coopmat"
#define GEMM_CM_KNOB (AX_PARAM_TUNABLE | AX_PARAM_POW2)

static const struct ax_param_def gemm_params[] = {
    {"m", AX_PT_INT, 1, 1 << 20, NULL, 512, AX_PARAM_SHAPE,
     "rows of C and of op(A)", AX_FIELD(struct gemm_point, s.m)},
    {"n", AX_PT_INT, 1, 1 << 20, NULL, 512, AX_PARAM_SHAPE,
     "columns of C and of op(B)", AX_FIELD(struct gemm_point, s.n)},
    {"k", AX_PT_INT, 1, 1 << 20, NULL, 512, AX_PARAM_SHAPE, "inner dimension",
     AX_FIELD(struct gemm_point, s.k)},
    {"batch", AX_PT_INT, 1, 65535, NULL, 1, AX_PARAM_SHAPE,
     "independent products per dispatch (batched gemm)",
     AX_FIELD(struct gemm_point, s.batch)},
    {"dtype", AX_PT_ENUM, 0, 0, gemm_dtypes, 0, AX_PARAM_SHAPE,
     "storage type: f32, or f16 with fp32 accumulation",
     AX_FIELD(struct gemm_point, dtype)},
    {"trans_a", AX_PT_BOOL, 0, 1, NULL, 0, AX_PARAM_SHAPE,
     "A is stored k x m (transposed)",
     AX_KNOB(struct gemm_point, s.trans_a, 9)},
    {"trans_b", AX_PT_BOOL, 0, 1, NULL, 0, AX_PARAM_SHAPE,
     "B is stored n x k (transposed)",
     AX_KNOB(struct gemm_point, s.trans_b, 10)},
    {"kernel", AX_PT_ENUM, 0, 0, gemm_kernels, 0, AX_PARAM_SHAPE,
     "tiled (shared memory + registers) or coopmat (tensor cores "
     "through VK_NV_cooperative_matrix; needs dtype=f16, m, n and k "
     "multiples of the workgroup tile; knobs cm_*, sg_*, wg_s*)",
     AX_FIELD(struct gemm_point, kernel)},
    /* Defaults bm=128 tm=16 bk=8: on lavapipe, with tex=true and mr=1
     * below, 16-row blocks read as fast as 32-row ones at 1024^3
     * (`axbench ab`: 1.03x [1.01, 1.05]) and a tune found nothing
     * beyond 1.04x; with storage-buffer reads tm=32 had beaten tm=16 by
     * ~25 %.  64 invocations and 10 KiB of shared memory (bk=8) keep
     * share=smem within the smallest Vulkan limits. */
    {"bm", AX_PT_INT, 4, 256, NULL, 128, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "rows of C per workgroup", AX_KNOB(struct gemm_point, bm, 2),
     .when = GEMM_TILED},
    {"bn", AX_PT_INT, 4, 256, NULL, 64, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "columns of C per workgroup", AX_KNOB(struct gemm_point, bn, 3),
     .when = GEMM_TILED},
    {"bk", AX_PT_INT, 1, 64, NULL, 8, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "depth of the k slice staged in shared memory",
     AX_KNOB(struct gemm_point, bk, 4), .when = GEMM_TILED},
    {"tm", AX_PT_INT, 4, 64, NULL, 16, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "rows of C per invocation (register block)",
     AX_KNOB(struct gemm_point, tm, 5), .when = GEMM_TILED},
    {"tn", AX_PT_INT, 4, 32, NULL, 8, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "columns of C per invocation (register block)",
     AX_KNOB(struct gemm_point, tn, 6), .when = GEMM_TILED},
    {"wg_x", AX_PT_INT, 1, 1024, NULL, 8, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "workgroup width", AX_KNOB(struct gemm_point, wg_x, 0),
     .when = GEMM_TILED},
    {"wg_y", AX_PT_INT, 1, 1024, NULL, 8, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "workgroup height", AX_KNOB(struct gemm_point, wg_y, 1),
     .when = GEMM_TILED},
    {"vec", AX_PT_INT, 1, 4, NULL, 4, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "elements per global load (1, 2 or 4)", AX_KNOB(struct gemm_point, vec, 7),
     .when = GEMM_TILED},
    {"dbuf", AX_PT_BOOL, 0, 1, NULL, 0, AX_PARAM_TUNABLE,
     "double-buffer the shared tiles (one barrier per k slice)",
     AX_KNOB(struct gemm_point, dbuf, 8), .when = GEMM_TILED},
    /* Default subgroup: on lavapipe it is 2-3x the smem kernel at
     * 1024^3 (see shaders/gemm.comp); GPUs run either, and the tuner
     * picks smem where it wins. */
    {"share", AX_PT_ENUM, 0, 0, gemm_shares, 1, AX_PARAM_TUNABLE,
     "how invocations share A: smem (tiles staged in shared memory), "
     "or subgroup (no shared memory: groups of 8 lanes pass A round "
     "by subgroup shuffles; for CPU drivers)",
     AX_KNOB(struct gemm_point, share, 11), .when = GEMM_TILED},
    {"colmajor", AX_PT_BOOL, 0, 1, NULL, 0, AX_PARAM_TUNABLE,
     "share=subgroup: take the tiles of C column by column, so "
     "workgroups run together share B",
     AX_KNOB(struct gemm_point, colmajor, 13), .when = GEMM_TILED},
    /* mr=1 tex=true: on lavapipe at 1024^3 mr=1 read 42 GFLOP/s against
     * 35 for mr=tm (the old order), and tex=true 65-74 against 38-46
     * (shaders/gemm.comp says why). */
    {"mr", AX_PT_INT, 1, 64, NULL, 1, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "share=subgroup: rows of C per micro-tile (at most tm): their "
     "accumulators stay in registers over 8 k steps",
     AX_KNOB(struct gemm_point, mr, 14), .when = GEMM_TILED},
    {"tex", AX_PT_BOOL, 0, 1, NULL, 1, AX_PARAM_TUNABLE,
     "share=subgroup: read A and B through uniform texel buffers "
     "(samplerBuffer) instead of storage buffers",
     AX_KNOB(struct gemm_point, tex, 15), .when = GEMM_TILED},
    /* kernel=tiled: share=subgroup's lanes pass A round in groups of 8,
     * so it needs subgroups of 8 or more; smem runs at any size. */
    AX_SUITE_SG_SIZE_PARAM(struct gemm_point, sg_size, GEMM_TILED),
    /* kernel=coopmat only (see the top of this file).  acc is not a
     * knob (it changes the precision) and not a shape either, so the labels
     * and shape keys of every existing case stay as they were; a run label
     * names it where it is not the default.  Defaults: 16x16x16 is a shape
     * NVIDIA lists for f16; 2x2 tiles per subgroup and 2x2 subgroups make a
     * 64 x 64 workgroup tile, 32 k deep (11 KiB of shared memory). */
    {"acc", AX_PT_ENUM, 0, 0, gemm_accs, 0, 0,
     "kernel=coopmat: accumulate in f32, or in f16 (faster on some "
     "GPUs, less accurate: verified with a wider tolerance)",
     AX_FIELD(struct gemm_point, acc)},
    {"cm_m", AX_PT_INT, 8, 32, NULL, 16, GEMM_CM_KNOB,
     "rows (M) of one cooperative matrix: a shape the "
     "device lists (axbench devices)",
     AX_KNOB(struct gemm_point, cm.m, 21), .when = GEMM_COOPMAT},
    {"cm_n", AX_PT_INT, 8, 32, NULL, 16, GEMM_CM_KNOB,
     "columns (N) of one cooperative matrix",
     AX_KNOB(struct gemm_point, cm.n, 22), .when = GEMM_COOPMAT},
    {"cm_k", AX_PT_INT, 8, 32, NULL, 16, GEMM_CM_KNOB,
     "depth (K) of one cooperative matrix",
     AX_KNOB(struct gemm_point, cm.k, 23), .when = GEMM_COOPMAT},
    {"sg_m", AX_PT_INT, 1, 8, NULL, 2, GEMM_CM_KNOB,
     "matrix tiles per subgroup along M",
     AX_KNOB(struct gemm_point, cm.sg_m, 24), .when = GEMM_COOPMAT},
    {"sg_n", AX_PT_INT, 1, 8, NULL, 2, GEMM_CM_KNOB,
     "matrix tiles per subgroup along N",
     AX_KNOB(struct gemm_point, cm.sg_n, 25), .when = GEMM_COOPMAT},
    {"wg_sm", AX_PT_INT, 1, 8, NULL, 2, GEMM_CM_KNOB,
     "subgroups per workgroup along M (workgroup tile "
     "rows bm = wg_sm*sg_m*cm_m)",
     AX_KNOB(struct gemm_point, cm.wg_sm, 26), .when = GEMM_COOPMAT},
    {"wg_sn", AX_PT_INT, 1, 8, NULL, 2, GEMM_CM_KNOB,
     "subgroups per workgroup along N (workgroup tile "
     "columns bn = wg_sn*sg_n*cm_n)",
     AX_KNOB(struct gemm_point, cm.wg_sn, 27), .when = GEMM_COOPMAT},
    {"cm_ks", AX_PT_INT, 1, 8, NULL, 2, GEMM_CM_KNOB,
     "cm_k-deep steps per k slice staged in shared "
     "memory (bk = cm_ks*cm_k)",
     AX_KNOB(struct gemm_point, cm.ks, 28), .when = GEMM_COOPMAT},
};
#define N_PARAMS ((int)(sizeof(gemm_params) / sizeof(gemm_params[0])))

static void gemm_point(const struct ax_params *p, struct gemm_point *g)
{
	memset(g, 0, sizeof(*g));
	ax_params_store(p, g);
	g->s.f16 = g->dtype == 1;
	g->coopmat = g->kernel == 1;
	g->s.acc16 = g->acc == 1;
	g->s.trunc_acc = g->coopmat;
	struct gemm_cm *c = &g->cm;
	c->bm = c->wg_sm * c->sg_m * c->m;
	c->bn = c->wg_sn * c->sg_n * c->n;
	c->bk = c->ks * c->k;
	uint32_t bm = g->coopmat ? g->cm.bm : g->bm;
	uint32_t bn = g->coopmat ? g->cm.bn : g->bn;
	g->gx = (g->s.n + bn - 1) / bn;
	g->gy = (g->s.m + bm - 1) / bm;
	g->a_elems = (uint64_t)g->s.batch * g->s.m * g->s.k;
	g->b_elems = (uint64_t)g->s.batch * g->s.k * g->s.n;
	g->c_elems = (uint64_t)g->s.batch * g->s.m * g->s.n;
}

/* The register blocks must tile the workgroup tile exactly, one per
 * invocation, and every global vector load must stay inside a tile row. */
static int check_blocking(const struct gemm_point *g, char *why, size_t whylen)
{
	if (g->bm % g->tm || g->bn % g->tn)
		return ax_errf(why, whylen, AX_EINVAL,
			       "gemm: bm=%u and bn=%u must be multiples of "
			       "tm=%u and tn=%u",
			       g->bm, g->bn, g->tm, g->tn);
	uint32_t blocks = (g->bm / g->tm) * (g->bn / g->tn);
	if (blocks != g->wg_x * g->wg_y)
		return ax_errf(why, whylen, AX_EINVAL,
			       "gemm: (bm/tm)*(bn/tn) = %u register blocks "
			       "but wg_x*wg_y = %u invocations; they must be "
			       "equal",
			       blocks, g->wg_x * g->wg_y);
	if (g->share && (g->bn % (8 * g->tn) || blocks % 8))
		return ax_errf(why, whylen, AX_EINVAL,
			       "gemm share=subgroup: bn=%u must be a multiple "
			       "of 8*tn=%u and wg_x*wg_y=%u of 8 (lanes work "
			       "in groups of 8)",
			       g->bn, 8 * g->tn, blocks);
	if (g->share && g->mr > g->tm)
		return ax_errf(why, whylen, AX_EINVAL,
			       "gemm share=subgroup: mr=%u rows per "
			       "micro-tile exceed tm=%u; lower mr",
			       g->mr, g->tm);
	uint32_t a_run = g->s.trans_a ? g->bm : g->bk;
	uint32_t b_run = g->s.trans_b ? g->bk : g->bn;
	if (a_run % g->vec || b_run % g->vec)
		return ax_errf(why, whylen, AX_EINVAL,
			       "gemm: vec=%u must divide the contiguous tile "
			       "extents (%u of A, %u of B); lower vec",
			       g->vec, a_run, b_run);
	return 0;
}

static int check_limits(const struct gemm_point *g,
			const VkPhysicalDeviceLimits *l, char *why,
			size_t whylen)
{
	uint64_t shared =
	    4ull * (g->bm * g->bk + g->bk * g->bn) * (g->dbuf ? 2 : 1);
	if (shared > l->maxComputeSharedMemorySize)
		return ax_errf(why, whylen, AX_EINVAL,
			       "gemm: %s(BM*BK + BK*BN) floats = %llu bytes "
			       "of shared memory exceeds "
			       "maxComputeSharedMemorySize %u; lower bm, bn "
			       "or bk%s",
			       g->dbuf ? "2*" : "", (unsigned long long)shared,
			       l->maxComputeSharedMemorySize,
			       g->dbuf ? " or set dbuf=0" : "");
	uint32_t inv = g->wg_x * g->wg_y;
	if (inv > l->maxComputeWorkGroupInvocations)
		return ax_errf(why, whylen, AX_EINVAL,
			       "gemm: wg_x*wg_y = %u invocations exceeds "
			       "maxComputeWorkGroupInvocations %u",
			       inv, l->maxComputeWorkGroupInvocations);
	if (g->wg_x > l->maxComputeWorkGroupSize[0] ||
	    g->wg_y > l->maxComputeWorkGroupSize[1])
		return ax_errf(why, whylen, AX_EINVAL,
			       "gemm: workgroup %ux%u exceeds "
			       "maxComputeWorkGroupSize %ux%u",
			       g->wg_x, g->wg_y, l->maxComputeWorkGroupSize[0],
			       l->maxComputeWorkGroupSize[1]);
	if (g->gx > l->maxComputeWorkGroupCount[0] ||
	    g->gy > l->maxComputeWorkGroupCount[1] ||
	    g->s.batch > l->maxComputeWorkGroupCount[2])
		return ax_errf(why, whylen, AX_EINVAL,
			       "gemm: %u x %u x %u workgroups exceed "
			       "maxComputeWorkGroupCount %u x %u x %u; raise "
			       "bm/bn or lower batch",
			       g->gx, g->gy, g->s.batch,
			       l->maxComputeWorkGroupCount[0],
			       l->maxComputeWorkGroupCount[1],
			       l->maxComputeWorkGroupCount[2]);
	return 0;
}

static int check_buffers(const struct gemm_point *g,
			 const struct ax_vk_device_info *dev, char *why,
			 size_t whylen)
{
	uint64_t es = g->s.f16 ? 2 : 4;
	const char *names[3] = {"A", "B", "C"};
	uint64_t elems[3] = {g->a_elems, g->b_elems, g->c_elems};
	uint64_t range = dev->limits.maxStorageBufferRange;
	if (dev->max_memory_allocation_size &&
	    dev->max_memory_allocation_size < range)
		range = dev->max_memory_allocation_size;
	for (int i = 0; i < 3; i++)
		if (elems[i] * es > range)
			return ax_errf(why, whylen, AX_EINVAL,
				       "gemm: %s needs %llu bytes, over "
				       "maxStorageBufferRange / "
				       "maxMemoryAllocationSize %llu; use a "
				       "smaller shape or batch",
				       names[i],
				       (unsigned long long)(elems[i] * es),
				       (unsigned long long)range);
	return 0;
}

/* kernel=coopmat's rules, on any device: they refuse the point. */
static int check_cm_rules(const struct gemm_point *g, char *why, size_t whylen)
{
	const struct gemm_cm *c = &g->cm;
	if (!g->s.f16)
		return ax_errf(why, whylen, AX_EINVAL,
			       "gemm kernel=coopmat: dtype=f32 is not "
			       "supported: cooperative matrices multiply "
			       "float16 A and B; use -p dtype=f16");
	const char *dim[3] = {"m", "n", "k"};
	const char *tile[3] = {"bm", "bn", "bk"};
	const char *how[3] = {"wg_sm*sg_m*cm_m", "wg_sn*sg_n*cm_n",
			      "cm_ks*cm_k"};
	uint32_t v[3] = {g->s.m, g->s.n, g->s.k};
	uint32_t t[3] = {c->bm, c->bn, c->bk};
	for (int i = 0; i < 3; i++)
		if (v[i] % t[i])
			return ax_errf(why, whylen, AX_EINVAL,
				       "gemm kernel=coopmat: %s=%u must be a "
				       "multiple of %s=%u (%s: the kernel has "
				       "no edge tiles); change %s or the tile",
				       dim[i], v[i], tile[i], t[i], how[i],
				       dim[i]);
	return 0;
}

/* A shape the device lists for f16 A and B, C and D in the accumulator
 * type, at subgroup scope (the only scope the shader uses). */
/* What the device must have for kernel=coopmat; skipped without it. */
static int check_cm_device(const struct gemm_point *g,
			   const struct ax_vk_device_info *dev, char *why,
			   size_t whylen)
{
	if (!dev->coopmat_nv)
		return ax_errf(why, whylen, AX_EUNSUPPORTED,
			       "gemm kernel=coopmat: %s has no "
			       "VK_NV_cooperative_matrix%s (" AX_GEMM_KHR_NOTE
			       ")",
			       dev->name,
			       dev->coopmat ? " (it has VK_KHR_cooperative_"
					      "matrix)"
					    : "");
	if (!dev->vulkan_memory_model || !dev->fp16_arith)
		return ax_errf(why, whylen, AX_EUNSUPPORTED,
			       "gemm kernel=coopmat: %s lacks %s, which the "
			       "cooperative-matrix shader needs",
			       dev->name,
			       !dev->fp16_arith ? "shaderFloat16"
						: "vulkanMemoryModel");
	if (!ax_vk_coopmat_nv_lists(dev, g->cm.m, g->cm.n, g->cm.k,
				    g->s.acc16)) {
		char shapes[512];
		ax_vk_coopmat_nv_shapes_text(dev, shapes, sizeof(shapes));
		return ax_errf(why, whylen, AX_EUNSUPPORTED,
			       "gemm kernel=coopmat: %s lists no "
			       "VK_NV_cooperative_matrix shape %ux%ux%u with "
			       "f16 A and B and %s C at subgroup scope; it "
			       "lists: %s; set cm_m, cm_n, cm_k (and acc) to "
			       "one of them",
			       dev->name, g->cm.m, g->cm.n, g->cm.k,
			       g->s.acc16 ? "f16" : "f32",
			       shapes[0] ? shapes : "none");
	}
	return 0;
}

/* The device's limits: in a sweep such a point is left out, not refused. */
static int check_cm_limits(const struct gemm_point *g,
			   const struct ax_vk_device_info *dev, char *why,
			   size_t whylen)
{
	const VkPhysicalDeviceLimits *l = &dev->limits;
	const struct gemm_cm *c = &g->cm;
	uint32_t inv = c->wg_sm * c->wg_sn * dev->subgroup_size;
	if (inv > l->maxComputeWorkGroupInvocations ||
	    inv > l->maxComputeWorkGroupSize[0])
		return ax_errf(why, whylen, AX_EINVAL,
			       "gemm kernel=coopmat: wg_sm*wg_sn = %u "
			       "subgroups of %u lanes = %u invocations "
			       "exceed maxComputeWorkGroupInvocations %u or "
			       "maxComputeWorkGroupSize.x %u; lower wg_sm or "
			       "wg_sn",
			       c->wg_sm * c->wg_sn, dev->subgroup_size, inv,
			       l->maxComputeWorkGroupInvocations,
			       l->maxComputeWorkGroupSize[0]);
	/* The shader's As and Bs: the slices in 16-byte vectors plus a
	 * padding vector per row, sized for either orientation. */
	uint64_t shared = 2ull * c->bk * (c->bm + c->bn) +
			  16ull * (c->bm + 2 * c->bk + c->bn);
	if (shared > l->maxComputeSharedMemorySize)
		return ax_errf(why, whylen, AX_EINVAL,
			       "gemm kernel=coopmat: 2*bk*(bm+bn) + "
			       "16*(bm+2*bk+bn) = %llu bytes of shared memory "
			       "exceeds maxComputeSharedMemorySize %u; lower "
			       "cm_ks, sg_m, sg_n, wg_sm or wg_sn",
			       (unsigned long long)shared,
			       l->maxComputeSharedMemorySize);
	if (g->gx > l->maxComputeWorkGroupCount[0] ||
	    g->gy > l->maxComputeWorkGroupCount[1] ||
	    g->s.batch > l->maxComputeWorkGroupCount[2])
		return ax_errf(why, whylen, AX_EINVAL,
			       "gemm kernel=coopmat: %u x %u x %u workgroups "
			       "exceed maxComputeWorkGroupCount %u x %u x %u; "
			       "raise the tile or lower batch",
			       g->gx, g->gy, g->s.batch,
			       l->maxComputeWorkGroupCount[0],
			       l->maxComputeWorkGroupCount[1],
			       l->maxComputeWorkGroupCount[2]);
	return 0;
}

static int check_coopmat(const struct gemm_point *g,
			 const struct ax_vk_device_info *dev, char *why,
			 size_t whylen)
{
	int rc = check_cm_rules(g, why, whylen);
	if (!rc)
		rc = check_cm_device(g, dev, why, whylen);
	if (!rc)
		rc = check_cm_limits(g, dev, why, whylen);
	if (!rc)
		rc = check_buffers(g, dev, why, whylen);
	return rc;
}

/* tex=true views A and B four elements a texel (share=subgroup only;
 * the smem kernel reads storage buffers).  Checked after the storage
 * ranges, which every point needs. */
static int check_texels(const struct gemm_point *g,
			const VkPhysicalDeviceLimits *l, char *why,
			size_t whylen)
{
	uint64_t texels = (g->a_elems > g->b_elems ? g->a_elems : g->b_elems);
	texels = (texels + 3) / 4;
	if (g->share && g->tex && texels > l->maxTexelBufferElements)
		return ax_errf(why, whylen, AX_EINVAL,
			       "gemm tex=true: a texel view of %llu texels "
			       "exceeds maxTexelBufferElements %u; use "
			       "tex=false or a smaller shape",
			       (unsigned long long)texels,
			       l->maxTexelBufferElements);
	return 0;
}

static int gemm_check(const struct ax_params *p,
		      const struct ax_vk_device_info *dev, char *why,
		      size_t whylen)
{
	struct gemm_point g;
	gemm_point(p, &g);
	if (g.coopmat && g.sg_size)
		return ax_errf(why, whylen, AX_EINVAL,
			       "gemm kernel=coopmat: sg_size=%u: the kernel's "
			       "workgroup is wg_sm*wg_sn subgroups of the "
			       "driver's size; use sg_size=0",
			       g.sg_size);
	if (g.coopmat)
		return check_coopmat(&g, dev, why, whylen);
	if (ax_suite_check_subgroup_size(
		"gemm", g.sg_size, (uint64_t)g.wg_x * g.wg_y, dev, why, whylen))
		return AX_EINVAL;
	/* The size the shuffles will see. */
	uint32_t sg = g.sg_size ? g.sg_size : dev->subgroup_size;
	if (g.share && g.sg_size && g.sg_size % 8)
		return ax_errf(why, whylen, AX_EINVAL,
			       "gemm share=subgroup: sg_size=%u: lanes pass A "
			       "round in groups of 8, so the subgroup size "
			       "must be a multiple of 8; raise sg_size or use "
			       "share=smem",
			       g.sg_size);
	if (g.s.acc16)
		return ax_errf(why, whylen, AX_EINVAL,
			       "gemm acc=f16: only kernel=coopmat accumulates "
			       "in float16 (the tiled kernel always "
			       "accumulates in fp32); use acc=f32 or "
			       "kernel=coopmat");
	if (g.s.f16 && !(dev->fp16_arith && dev->storage16))
		return ax_errf(why, whylen, AX_EUNSUPPORTED,
			       "gemm dtype=f16: %s lacks %s", dev->name,
			       !dev->storage16 ? "16-bit storage buffers"
					       : "shaderFloat16");
	if (g.share && (dev->subgroup_size < 8 || dev->subgroup_size % 8))
		return ax_errf(why, whylen, AX_EUNSUPPORTED,
			       "gemm share=subgroup: %s has subgroups of %u "
			       "lanes; it needs a multiple of 8",
			       dev->name, dev->subgroup_size);
	/* The kernel hands A round inside groups of 8 consecutive
	 * invocations (t = y * wg_x + x), which must be lanes of one
	 * subgroup in that order.  GPUs fill subgroups in local invocation
	 * index order, so wg_x*wg_y a multiple of 8 (check_blocking) is
	 * enough there.  lavapipe fills a subgroup from one row of the
	 * workgroup and leaves the rest of its lanes idle: with wg_x below
	 * the subgroup size the shuffles read lanes that never ran and C
	 * was wrong (wg_x=2 wg_y=4 failed verification). */
	if (g.share && dev->driver_id == VK_DRIVER_ID_MESA_LLVMPIPE &&
	    g.wg_x % sg)
		return ax_errf(why, whylen, AX_EINVAL,
			       "gemm share=subgroup: wg_x=%u must be a "
			       "multiple of the subgroup size of %s (%u): "
			       "its subgroups are rows of the workgroup; "
			       "raise wg_x or use share=smem",
			       g.wg_x, dev->name, sg);
	int rc = check_blocking(&g, why, whylen);
	if (!rc)
		rc = check_limits(&g, &dev->limits, why, whylen);
	if (!rc)
		rc = check_buffers(&g, dev, why, whylen);
	if (!rc)
		rc = check_texels(&g, &dev->limits, why, whylen);
	return rc;
}

struct gemm_state {
	struct gemm_point g;
	struct ax_vk_ctx *vk;
	struct ax_vk_buffer a, b, c;
	struct ax_vk_pipeline pipe;
	float *ha, *hb; /* inputs as the device sees them */
	bool sampled;
};

static void gemm_teardown(struct ax_vk_ctx *vk, void *state)
{
	struct gemm_state *s = state;
	if (!s)
		return;
	ax_vk_pipeline_destroy(vk, &s->pipe);
	ax_vk_buffer_destroy(vk, &s->a);
	ax_vk_buffer_destroy(vk, &s->b);
	ax_vk_buffer_destroy(vk, &s->c);
	free(s->ha);
	free(s->hb);
	free(s);
}

/* Upload n floats (already float16-exact) in the storage type. */
static int upload(struct gemm_state *s, struct ax_vk_buffer *buf,
		  const float *src, uint64_t n)
{
	if (!s->g.s.f16)
		return ax_vk_upload(s->vk, buf, 0, src, n * 4);
	uint16_t *h = malloc(n * 2);
	if (!h)
		return AX_ENOMEM;
	for (uint64_t i = 0; i < n; i++)
		h[i] = ax_half_from_float(src[i]);
	int rc = ax_vk_upload(s->vk, buf, 0, h, n * 2);
	free(h);
	return rc;
}

static int gemm_buffers(struct gemm_state *s)
{
	const struct gemm_point *g = &s->g;
	uint64_t es = g->s.f16 ? 2 : 4;
	VkBufferUsageFlags u = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
	/* Round sizes up to 16 bytes so the vec4 views cover them. */
	uint64_t sa = (g->a_elems * es + 15) & ~15ull;
	uint64_t sb = (g->b_elems * es + 15) & ~15ull;
	uint64_t sc = (g->c_elems * es + 15) & ~15ull;
	s->ha = malloc(g->a_elems * sizeof(float));
	s->hb = malloc(g->b_elems * sizeof(float));
	if (!s->ha || !s->hb)
		return AX_ENOMEM;
	ax_gemm_case_inputs(&g->s, s->ha, s->hb);
	/* A and B are also read through texel views (tex=1). */
	VkBufferUsageFlags ut = u | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
	int rc = ax_vk_buffer_create(s->vk, sa, ut, AX_MEM_DEVICE, &s->a);
	if (!rc)
		rc = ax_vk_buffer_create(s->vk, sb, ut, AX_MEM_DEVICE, &s->b);
	if (!rc)
		rc = ax_vk_buffer_create(s->vk, sc, u, AX_MEM_DEVICE, &s->c);
	if (!rc)
		rc = upload(s, &s->a, s->ha, g->a_elems);
	if (!rc)
		rc = upload(s, &s->b, s->hb, g->b_elems);
	if (!rc) {
		/* NaN everywhere: an element the kernel misses fails. */
		void *nan = malloc(sc);
		if (!nan)
			return AX_ENOMEM;
		memset(nan, 0xff, sc);
		rc = ax_vk_upload(s->vk, &s->c, 0, nan, sc);
		free(nan);
	}
	return rc;
}

/* shaders/gemm_coopmat.comp: A, B and C as 16-byte vectors.  spec holds
 * the table's knobs (n of them); the workgroup size is derived. */
static int gemm_cm_pipeline(struct gemm_state *s, struct ax_vk_spec *spec,
			    int n)
{
	const struct gemm_point *g = &s->g;
	const struct gemm_cm *c = &g->cm;
	/* constant_id 20: local_size_x, subgroups * the subgroup size */
	spec[n++] = (struct ax_vk_spec){20, c->wg_sm * c->wg_sn *
						s->vk->info->subgroup_size};
	int rc = ax_vk_pipeline_create(
	    s->vk, g->s.acc16 ? "gemm_coopmat_acc16" : "gemm_coopmat", 3, 12,
	    spec, n, &s->pipe);
	if (rc)
		return rc;
	struct ax_vk_binding bind[3] = {
	    {&s->a, 0, 0}, {&s->b, 0, 0}, {&s->c, 0, 0}};
	return ax_vk_pipeline_bind(s->vk, &s->pipe, bind, 3);
}

static int gemm_pipeline(struct gemm_state *s, const struct ax_params *p)
{
	const struct gemm_point *g = &s->g;
	struct ax_vk_spec spec[AX_MAX_PARAMS + 1];
	int n = ax_suite_spec(p, spec);
	if (g->coopmat)
		return gemm_cm_pipeline(s, spec, n);
	/* constant_id 12: B is read as vec4 where its rows allow it */
	spec[n++] = (struct ax_vk_spec){12, !g->s.trans_b && g->s.n % 4 == 0};
	int rc =
	    ax_vk_pipeline_create_texel(s->vk, g->s.f16 ? "gemm_f16" : "gemm",
					10, 3u << 8, 12, spec, n, &s->pipe);
	if (rc)
		return rc;
	/* Bindings 8 and 9 are texel views of A and B, four elements a
	 * texel.  Every pipeline declares them; without tex=true
	 * (share=subgroup) they cover one texel, so no device's
	 * maxTexelBufferElements limits a point that does not read them. */
	VkFormat fmt = g->s.f16 ? VK_FORMAT_R16G16B16A16_SFLOAT
				: VK_FORMAT_R32G32B32A32_SFLOAT;
	VkDeviceSize one = g->share && g->tex ? 0 : (g->s.f16 ? 8 : 16);
	struct ax_vk_binding bind[10] = {
	    {&s->a, 0, 0},	  {&s->b, 0, 0}, {&s->c, 0, 0},
	    {&s->a, 0, 0},	  {&s->b, 0, 0}, {&s->c, 0, 0},
	    {&s->a, 0, 0},	  {&s->b, 0, 0}, {&s->a, 0, one, fmt},
	    {&s->b, 0, one, fmt},
	};
	return ax_vk_pipeline_bind(s->vk, &s->pipe, bind, 10);
}

static int gemm_setup(struct ax_vk_ctx *vk, const struct ax_params *p,
		      void **state, char *err, size_t errlen)
{
	struct gemm_state *s = calloc(1, sizeof(*s));
	if (!s)
		return AX_ENOMEM;
	gemm_point(p, &s->g);
	s->vk = vk;
	int rc = gemm_buffers(s);
	if (!rc)
		rc = gemm_pipeline(s, p);
	if (rc) {
		ax_errf(err, errlen, rc, "gemm setup: %s",
			rc == AX_ENOMEM ? "out of host memory" : vk->err);
		gemm_teardown(vk, s);
		return rc;
	}
	*state = s;
	return 0;
}

static void gemm_record(void *state, VkCommandBuffer cb, uint32_t reps)
{
	struct gemm_state *s = state;
	uint32_t push[3] = {s->g.s.m, s->g.s.n, s->g.s.k};
	for (uint32_t r = 0; r < reps; r++) {
		/* Repetitions write the same C: keep them in order. */
		if (r)
			ax_vk_cmd_barrier(cb);
		ax_vk_cmd_dispatch(cb, &s->pipe, push, s->g.gx, s->g.gy,
				   s->g.s.batch);
	}
}

static int gemm_verify(void *state, char *why, size_t whylen)
{
	struct gemm_state *s = state;
	uint64_t n = s->g.c_elems;
	float *c = malloc(n * sizeof(float));
	uint16_t *h = s->g.s.f16 ? malloc(n * 2) : NULL;
	int rc = !c || (s->g.s.f16 && !h) ? AX_ENOMEM : 0;
	if (!rc && s->g.s.f16) {
		rc = ax_vk_download(s->vk, &s->c, 0, h, n * 2);
		for (uint64_t i = 0; !rc && i < n; i++)
			c[i] = ax_half_to_float(h[i]);
	} else if (!rc) {
		rc = ax_vk_download(s->vk, &s->c, 0, c, n * 4);
	}
	if (rc)
		ax_errf(why, whylen, rc, "gemm: reading C: %s",
			rc == AX_ENOMEM ? "out of host memory" : s->vk->err);
	else
		rc = ax_gemm_check(&s->g.s, s->ha, s->hb, c, &s->sampled, why,
				   whylen);
	free(c);
	free(h);
	return rc;
}

struct ax_vk_buffer *ax_gemm_state_output(void *state)
{
	return &((struct gemm_state *)state)->c;
}

static double gemm_work(const struct ax_params *p)
{
	struct gemm_point g;
	gemm_point(p, &g);
	return 2.0 * g.s.m * (double)g.s.n * g.s.k * g.s.batch;
}

static const char *gemm_shader(const struct ax_params *p)
{
	struct gemm_point g;
	gemm_point(p, &g);
	if (g.coopmat)
		return g.s.acc16 ? "gemm_coopmat_acc16" : "gemm_coopmat";
	return g.s.f16 ? "gemm_f16" : "gemm";
}

static json_t *gemm_describe(void *state)
{
	struct gemm_state *s = state;
	return json_pack("{s:[i,i,i],s:s}", "workgroups", (int)s->g.gx,
			 (int)s->g.gy, (int)s->g.s.batch, "verification",
			 s->sampled ? "sampled rows/columns + checksums"
				    : "every element");
}

/* Compulsory traffic: A, B and C once each, per batch entry. */
static double gemm_bytes(const struct ax_params *p)
{
	struct gemm_point g;
	gemm_point(p, &g);
	double m = g.s.m, n = g.s.n, k = g.s.k, es = g.s.f16 ? 2 : 4;
	return es * (m * k + k * n + m * n) * g.s.batch;
}

static const struct ax_suite_need gemm_needs[] = {{NULL, 1}, {NULL, 0}};

const struct ax_suite ax_suite_gemm = {
    .name = "gemm",
    .summary = "matrix multiply C = op(A) op(B), batched, fp32 or fp16 "
	       "storage, tiled kernel tuned through specialization "
	       "constants",
    .work_model = "GFLOP/s = 2*m*n*k*batch / time / 1e9",
    .constraints = "bm is a multiple of tm, and bn of tn\n"
		   "(bm/tm)*(bn/tn) = wg_x*wg_y: one register block per "
		   "invocation\n"
		   "share=subgroup: bn a multiple of 8*tn, wg_x*wg_y of 8 "
		   "(on lavapipe, wg_x of the subgroup size)\n"
		   "vec divides the contiguous tile extents (bk of A, or bm "
		   "with trans_a; bn of B, or bk with trans_b)\n"
		   "kernel=coopmat (instead of the rules above): dtype=f16; "
		   "m, n, k multiples of wg_sm*sg_m*cm_m, wg_sn*sg_n*cm_n, "
		   "cm_ks*cm_k; cm_m x cm_n x cm_k a shape the device lists\n"
		   "acc=f16 only with kernel=coopmat",
    .unit = "GFLOP/s",
    .metric = AX_METRIC_RATE,
    .scale = 1e9,
    .higher_is_better = true,
    .params = gemm_params,
    .n_params = N_PARAMS,
    .config_size = sizeof(struct gemm_point),
    .check = gemm_check,
    .setup = gemm_setup,
    .record = gemm_record,
    .verify = gemm_verify,
    .work = gemm_work,
    .bytes = gemm_bytes,
    .roles = AX_ROLE_WORKLOAD,
    .recommend_needs = gemm_needs,
    .shader = gemm_shader,
    .describe = gemm_describe,
    .teardown = gemm_teardown,
};
