/*
 * tests/unit/test_gemm_ref.c - the gemm checker on host data: a correct
 * product passes (fp32, fp16 rounding, transposes, batches, the sampled
 * mode for big shapes) and a corrupted one fails with the element named;
 * fp16 conversion round-trips; the validity predicate names the limit.
 */
#include "ax_test.h"

#include "core/error.h"
#include "suites/data.h"
#include "suites/gemm_ref.h"
#include "suites/suite.h"
#include "tuner/space.h"

extern const struct ax_suite ax_suite_gemm;

/* C = op(A) op(B) in float, the way a device would produce it. */
static float *product(const struct ax_gemm_shape *s, const float *a,
		      const float *b)
{
	float *c = malloc((size_t)s->batch * s->m * s->n * sizeof(float));
	for (uint32_t z = 0; z < s->batch; z++)
		for (uint32_t i = 0; i < s->m; i++)
			for (uint32_t j = 0; j < s->n; j++) {
				float acc = 0;
				for (uint32_t k = 0; k < s->k; k++) {
					size_t ai = s->trans_a
							? (size_t)k * s->m + i
							: (size_t)i * s->k + k;
					size_t bi = s->trans_b
							? (size_t)j * s->k + k
							: (size_t)k * s->n + j;
					acc = fmaf(
					    a[(size_t)z * s->m * s->k + ai],
					    b[(size_t)z * s->k * s->n + bi],
					    acc);
				}
				if (s->f16)
					acc = ax_half_to_float(
					    ax_half_from_float(acc));
				c[((size_t)z * s->m + i) * s->n + j] = acc;
			}
	return c;
}

/* Check s passes, then that corrupting element idx by delta fails. */
static void roundtrip(struct ax_gemm_shape s, size_t idx, float delta,
		      bool want_sampled)
{
	size_t na = (size_t)s.batch * s.m * s.k,
	       nb = (size_t)s.batch * s.k * s.n;
	float *a = malloc(na * sizeof(float)), *b = malloc(nb * sizeof(float));
	ax_gemm_fill(a, na, 11);
	ax_gemm_fill(b, nb, 12);
	float *c = product(&s, a, b);
	char why[512] = "";
	bool sampled = !want_sampled;
	int rc = ax_gemm_check(&s, a, b, c, &sampled, why, sizeof(why));
	if (rc)
		printf("#   %s\n", why);
	AX_CHECK_INT(rc, 0);
	AX_CHECK(sampled == want_sampled);
	c[idx] += delta;
	rc = ax_gemm_check(&s, a, b, c, NULL, why, sizeof(why));
	printf("#   corrupted: %s\n", why);
	AX_CHECK_INT(rc, AX_EVERIFY);
	AX_CHECK(strstr(why, "gemm:") != NULL);
	free(a), free(b), free(c);
}

static void test_full_check_edge_shapes(void)
{
	roundtrip((struct ax_gemm_shape){37, 29, 13, 1, false, false, false},
		  5 * 29 + 7, 0.01f, false);
	roundtrip((struct ax_gemm_shape){1, 300, 257, 1, true, false, false},
		  299, -0.05f, false);
	roundtrip((struct ax_gemm_shape){65, 3, 515, 2, false, true, false},
		  65 * 3 + 64 * 3 + 2, 0.1f, false);
	roundtrip((struct ax_gemm_shape){33, 17, 64, 3, true, true, true},
		  2 * 33 * 17 + 100, 0.25f, false);
}

static void test_nan_fails(void)
{
	struct ax_gemm_shape s = {4, 4, 4, 1, false, false, false};
	float a[16], b[16], c[16];
	ax_gemm_fill(a, 16, 1);
	ax_gemm_fill(b, 16, 2);
	float *ok = product(&s, a, b);
	memcpy(c, ok, sizeof(c));
	free(ok);
	uint32_t nan = 0xffffffffu;
	memcpy(&c[15], &nan, 4);
	char why[256];
	AX_CHECK_INT(ax_gemm_check(&s, a, b, c, NULL, why, sizeof(why)),
		     AX_EVERIFY);
	AX_CHECK(strstr(why, "C[batch 0][3][3]") != NULL);
}

/* Too big for a full check: an element off the sampled rows and columns
 * is still caught by the checksums. */
static void test_sampled_check(void)
{
	struct ax_gemm_shape s = {520, 300, 440, 1, false, false, false};
	AX_CHECK((uint64_t)s.m * s.n * s.k > AX_GEMM_FULL_CHECK_MAX);
	roundtrip(s, 101 * 300 + 203, 1e-3f, true);
}

static void test_half_conversion(void)
{
	AX_CHECK_INT(ax_half_from_float(1.0f), 0x3c00);
	AX_CHECK_INT(ax_half_from_float(-2.0f), 0xc000);
	AX_CHECK_INT(ax_half_from_float(65504.0f), 0x7bff);
	AX_CHECK_INT(ax_half_from_float(1e6f), 0x7c00);
	AX_CHECK_INT(ax_half_from_float(5.9604645e-8f), 0x0001);
	AX_CHECK_INT(ax_half_from_float(1.0f + 1.0f / 2048), 0x3c00);
	AX_CHECK_INT(ax_half_from_float(1.0f + 3.0f / 2048), 0x3c02);
	AX_CHECK_NEAR(ax_half_to_float(0x3555), 0.333251953125, 0);
	AX_CHECK_NEAR(ax_half_to_float(0x0001), 5.9604645e-8, 1e-15);
	float v[1024];
	ax_gemm_fill(v, 1024, 3);
	int exact = 1;
	for (int i = 0; i < 1024; i++) {
		exact &= ax_half_to_float(ax_half_from_float(v[i])) == v[i];
		exact &= v[i] >= -1.0f && v[i] < 1.0f;
	}
	AX_CHECK(exact);
}

static void lavapipe_like(struct ax_vk_device_info *d)
{
	memset(d, 0, sizeof(*d));
	strcpy(d->name, "test device");
	d->limits.maxComputeSharedMemorySize = 32768;
	d->limits.maxComputeWorkGroupInvocations = 1024;
	for (int i = 0; i < 3; i++) {
		d->limits.maxComputeWorkGroupSize[i] = 1024;
		d->limits.maxComputeWorkGroupCount[i] = 65535;
	}
	d->limits.maxStorageBufferRange = 128u << 20;
	d->limits.maxTexelBufferElements = 128u << 20;
	d->max_memory_allocation_size = 2ull << 30;
	d->subgroup_size = 8; /* share=subgroup, the default, needs 8 lanes */
}

static int check(const struct ax_vk_device_info *d, const char *const *kv,
		 char *why, size_t len)
{
	struct ax_params p;
	char err[256];
	ax_params_init(&p, ax_suite_gemm.params, ax_suite_gemm.n_params);
	for (int i = 0; kv[i]; i += 2)
		AX_CHECK_INT(
		    ax_params_set(&p, kv[i], kv[i + 1], err, sizeof(err)), 0);
	why[0] = 0;
	return ax_suite_gemm.check(&p, d, why, len);
}

static void test_validity(void)
{
	struct ax_vk_device_info d;
	char why[512];
	lavapipe_like(&d);
	const char *none[] = {NULL};
	AX_CHECK_INT(check(&d, none, why, sizeof(why)), 0);

	/* The defaults fit the smallest limits Vulkan allows. */
	d.limits.maxComputeSharedMemorySize = 16384;
	d.limits.maxComputeWorkGroupInvocations = 128;
	d.limits.maxComputeWorkGroupSize[0] = 128;
	d.limits.maxComputeWorkGroupSize[1] = 128;
	d.limits.maxTexelBufferElements = 65536;
	AX_CHECK_INT(check(&d, none, why, sizeof(why)), 0);
	/* tex=true views A and B four elements a texel: 1024 x 1024 is
	 * past 65536 texels, and reading storage buffers is not limited. */
	const char *texels[] = {"m", "1024", "k", "1024", NULL};
	AX_CHECK_INT(check(&d, texels, why, sizeof(why)), AX_EINVAL);
	AX_CHECK(strstr(why, "262144 texels exceeds maxTexelBufferElements "
			     "65536; use tex=false") != NULL);
	const char *no_tex[] = {"m", "1024", "k", "1024", "tex", "false", NULL};
	AX_CHECK_INT(check(&d, no_tex, why, sizeof(why)), 0);
	lavapipe_like(&d);
	const char *mr[] = {"mr", "32", NULL};
	AX_CHECK_INT(check(&d, mr, why, sizeof(why)), AX_EINVAL);
	AX_CHECK(strstr(why, "mr=32 rows per micro-tile exceed tm=16") != NULL);

	const char *big[] = {"bm", "128", "bn", "128", "bk", "32",
			     "tm", "16",  "tn", "16",  NULL};
	/* Exactly at the limit is allowed; one step over is not. */
	AX_CHECK_INT(check(&d, big, why, sizeof(why)), 0);
	const char *big2[] = {"bm", "128", "bn", "128", "bk", "64",
			      "tm", "16",  "tn", "16",	NULL};
	AX_CHECK_INT(check(&d, big2, why, sizeof(why)), AX_EINVAL);
	AX_CHECK(strstr(why, "= 65536 bytes of shared memory exceeds "
			     "maxComputeSharedMemorySize 32768") != NULL);

	const char *blocks[] = {"wg_x", "16", NULL};
	AX_CHECK_INT(check(&d, blocks, why, sizeof(why)), AX_EINVAL);
	AX_CHECK(strstr(why, "register blocks") != NULL);

	const char *inv[] = {"bm",   "256", "bn",   "256", "bk",
			     "4",    "tm",  "4",    "tn",  "4",
			     "wg_x", "64",  "wg_y", "64",  NULL};
	AX_CHECK_INT(check(&d, inv, why, sizeof(why)), AX_EINVAL);
	AX_CHECK(strstr(why, "maxComputeWorkGroupInvocations 1024") != NULL);

	const char *vec[] = {"bk", "2", "vec", "4", NULL};
	AX_CHECK_INT(check(&d, vec, why, sizeof(why)), AX_EINVAL);

	const char *range[] = {"m", "8192", "k", "8192", NULL};
	AX_CHECK_INT(check(&d, range, why, sizeof(why)), AX_EINVAL);
	AX_CHECK(strstr(why, "maxStorageBufferRange") != NULL);

	const char *f16[] = {"dtype", "f16", NULL};
	AX_CHECK_INT(check(&d, f16, why, sizeof(why)), AX_EUNSUPPORTED);
	AX_CHECK(strstr(why, "16-bit storage") != NULL);
	d.storage16 = d.fp16_arith = true;
	AX_CHECK_INT(check(&d, f16, why, sizeof(why)), 0);

	/* share=subgroup needs subgroups of a multiple of 8 lanes; smem not */
	d.subgroup_size = 4;
	AX_CHECK_INT(check(&d, none, why, sizeof(why)), AX_EUNSUPPORTED);
	const char *smem[] = {"share", "smem", NULL};
	AX_CHECK_INT(check(&d, smem, why, sizeof(why)), 0);
	d.subgroup_size = 8;

	/* acc=f16 is the coopmat kernel's alone */
	const char *acc[] = {"acc", "f16", NULL};
	AX_CHECK_INT(check(&d, acc, why, sizeof(why)), AX_EINVAL);
	AX_CHECK(strstr(why, "only kernel=coopmat") != NULL);
}

/* A device like an NVIDIA GPU with VK_NV_cooperative_matrix: the shapes
 * a Turing-or-later driver lists for float16 (values as reported). */
static void nvidia_like(struct ax_vk_device_info *d)
{
	lavapipe_like(d);
	snprintf(d->name, sizeof(d->name), "NVIDIA test GPU");
	d->subgroup_size = 32;
	d->limits.maxComputeSharedMemorySize = 49152;
	d->coopmat_nv = d->vulkan_memory_model = true;
	d->fp16_arith = d->storage16 = true;
	const uint32_t mnk[3][3] = {{16, 8, 16}, {16, 8, 8}, {16, 16, 16}};
	for (int i = 0; i < 3; i++)
		for (int acc = 0; acc < 2; acc++) {
			VkComponentTypeNV c =
			    acc ? VK_COMPONENT_TYPE_FLOAT32_NV
				: VK_COMPONENT_TYPE_FLOAT16_NV;
			d->coopmat_nv_shapes[d->n_coopmat_nv++] =
			    (struct ax_vk_coopmat_shape){
				mnk[i][0],
				mnk[i][1],
				mnk[i][2],
				VK_COMPONENT_TYPE_FLOAT16_NV,
				VK_COMPONENT_TYPE_FLOAT16_NV,
				c,
				c,
				VK_SCOPE_SUBGROUP_NV};
		}
}

static void test_coopmat_validity(void)
{
	struct ax_vk_device_info d;
	char why[1024];
	lavapipe_like(&d);
	/* Rules first, on any device: they refuse (exit 2), not skip. */
	const char *f32[] = {"kernel", "coopmat", NULL};
	AX_CHECK_INT(check(&d, f32, why, sizeof(why)), AX_EINVAL);
	AX_CHECK(strstr(why, "dtype=f32 is not supported") != NULL);
	const char *odd[] = {"kernel", "coopmat", "dtype", "f16",
			     "m",      "1000",	  NULL};
	AX_CHECK_INT(check(&d, odd, why, sizeof(why)), AX_EINVAL);
	AX_CHECK(strstr(why, "m=1000 must be a multiple of bm=64") != NULL);
	const char *oddk[] = {"kernel", "coopmat", "dtype", "f16",
			      "k",	"48",	   NULL};
	AX_CHECK_INT(check(&d, oddk, why, sizeof(why)), AX_EINVAL);
	AX_CHECK(strstr(why, "k=48 must be a multiple of bk=32") != NULL);

	/* A device without the extension skips, naming it and why KHR is
	 * not used. */
	const char *cm[] = {"kernel", "coopmat", "dtype", "f16", NULL};
	d.storage16 = d.fp16_arith = true;
	AX_CHECK_INT(check(&d, cm, why, sizeof(why)), AX_EUNSUPPORTED);
	AX_CHECK(strstr(why, "has no VK_NV_cooperative_matrix") != NULL);
	AX_CHECK(strstr(why, "GL_KHR_cooperative_matrix") != NULL);

	nvidia_like(&d);
	AX_CHECK_INT(check(&d, cm, why, sizeof(why)), 0);
	const char *acc16[] = {"kernel", "coopmat", "dtype", "f16",
			       "acc",	 "f16",	    NULL};
	AX_CHECK_INT(check(&d, acc16, why, sizeof(why)), 0);
	const char *n8[] = {"kernel", "coopmat", "dtype", "f16", "cm_n",
			    "8",      "cm_k",	 "8",	  NULL};
	AX_CHECK_INT(check(&d, n8, why, sizeof(why)), 0);
	const char *t[] = {"kernel", "coopmat", "dtype", "f16", "trans_a",
			   "true",   "trans_b", "true",	 NULL};
	AX_CHECK_INT(check(&d, t, why, sizeof(why)), 0);

	/* An unlisted shape skips and lists what the device has. */
	const char *m32[] = {"kernel", "coopmat", "dtype", "f16",
			     "cm_m",   "32",	  NULL};
	AX_CHECK_INT(check(&d, m32, why, sizeof(why)), AX_EUNSUPPORTED);
	AX_CHECK(strstr(why, "no VK_NV_cooperative_matrix shape 32x16x16") !=
		 NULL);
	AX_CHECK(strstr(why, "16x8x16 f16*f16+f32") != NULL);
	d.n_coopmat_nv = 2; /* only 16x8x16: acc=f32 at 16x16x16 missing */
	AX_CHECK_INT(check(&d, cm, why, sizeof(why)), AX_EUNSUPPORTED);
	nvidia_like(&d);
	d.vulkan_memory_model = false;
	AX_CHECK_INT(check(&d, cm, why, sizeof(why)), AX_EUNSUPPORTED);
	AX_CHECK(strstr(why, "vulkanMemoryModel") != NULL);
	nvidia_like(&d);

	/* Device limits: 8x8 subgroups of 32 lanes = 2048 invocations. */
	const char *inv[] = {"kernel", "coopmat", "dtype", "f16", "wg_sm",
			     "8",      "wg_sn",	  "8",	   "m",	  "1024",
			     "n",      "1024",	  NULL};
	AX_CHECK_INT(check(&d, inv, why, sizeof(why)), AX_EINVAL);
	AX_CHECK(strstr(why, "2048 invocations") != NULL);
	/* 2*bk*(bm+bn) + 16*(bm+2*bk+bn) = 2*64*(128+64) + 16*(128+128+64)
	 * = 29696 bytes: within the limit */
	const char *smem2[] = {"kernel", "coopmat", "dtype", "f16",  "cm_ks",
			       "4",	 "k",	    "256",   "sg_m", "4",
			       "m",	 "1024",    NULL};
	AX_CHECK_INT(check(&d, smem2, why, sizeof(why)), 0);
	const char *smem3[] = {"kernel", "coopmat", "dtype", "f16",  "cm_ks",
			       "8",	 "k",	    "256",   "sg_m", "8",
			       "sg_n",	 "8",	    "m",     "1024", "n",
			       "1024",	 NULL};
	AX_CHECK_INT(check(&d, smem3, why, sizeof(why)), AX_EINVAL);
	AX_CHECK(strstr(why, "= 143360 bytes of shared memory exceeds "
			     "maxComputeSharedMemorySize 49152") != NULL);
}

/* The cooperative-matrix tiles are the tuner's knobs of kernel=coopmat
 * alone: its space holds them and nothing of the tiled kernel, and every
 * point in it passes the device's constraints (a shape it lists, its
 * invocations, its shared memory).  The device is nvidia_like's
 * description, named as the fake it is: no device here has the
 * extension. */
struct space_ctx {
	const struct ax_params *base;
	const struct ax_vk_device_info *dev;
};

static int coopmat_valid(const struct ax_params *t, void *vctx, char *why,
			 size_t n)
{
	const struct space_ctx *c = vctx;
	struct ax_params p = *c->base;
	for (int k = 0; k < p.n; k++)
		if (p.defs[k].flags & AX_PARAM_TUNABLE)
			p.v[k] = t->v[k];
	int rc = ax_params_check(&p, why, n);
	return rc ? rc : ax_suite_gemm.check(&p, c->dev, why, n);
}

static void test_coopmat_space(void)
{
	struct ax_vk_device_info d;
	nvidia_like(&d);
	struct ax_params base;
	char err[512];
	ax_params_init(&base, ax_suite_gemm.params, ax_suite_gemm.n_params);
	const char *kv[] = {"kernel", "coopmat", "dtype", "f16", "m", "256",
			    "n",      "256",	 "k",	  "256", NULL};
	for (int i = 0; kv[i]; i += 2)
		AX_CHECK_INT(
		    ax_params_set(&base, kv[i], kv[i + 1], err, sizeof(err)),
		    0);
	struct space_ctx c = {&base, &d};
	struct ax_space *sp = NULL;
	AX_CHECK_INT(ax_space_create_case(&sp, &base, coopmat_valid, &c, 0, 1,
					  err, sizeof(err)),
		     0);
	if (!sp)
		return;
	AX_CHECK_INT(ax_space_ndims(sp), 8);
	for (int dim = 0; dim < ax_space_ndims(sp); dim++) {
		const char *name = ax_space_dim_name(sp, dim);
		AX_CHECK(strncmp(name, "cm_", 3) == 0 ||
			 strncmp(name, "sg_", 3) == 0 ||
			 strncmp(name, "wg_s", 4) == 0);
	}
	AX_CHECK(ax_space_size(sp) > 10);
	int i_m = ax_params_find(&base, "cm_m"),
	    i_n = ax_params_find(&base, "cm_n");
	int i_k = ax_params_find(&base, "cm_k");
	int i_sm = ax_params_find(&base, "wg_sm"),
	    i_sn = ax_params_find(&base, "wg_sn");
	for (size_t i = 0; i < ax_space_size(sp); i++) {
		struct ax_params t;
		ax_space_point_params(sp, i, &t);
		int64_t m = t.v[i_m], n = t.v[i_n], k = t.v[i_k];
		/* the shapes nvidia_like lists: 16x8x16, 16x8x8, 16x16x16 */
		AX_CHECK(m == 16 && ((n == 8 && (k == 16 || k == 8)) ||
				     (n == 16 && k == 16)));
		AX_CHECK(t.v[i_sm] * t.v[i_sn] * 32 <= 1024);
	}
	ax_space_destroy(sp);
	/* kernel=tiled: the tiled kernel's knobs, none of coopmat's. */
	struct ax_params tiled;
	ax_params_init(&tiled, ax_suite_gemm.params, ax_suite_gemm.n_params);
	AX_CHECK(!ax_param_active(&tiled, i_m));
	AX_CHECK(ax_param_active(&tiled, ax_params_find(&tiled, "bm")));
	AX_CHECK(!ax_param_active(&base, ax_params_find(&base, "bm")));
	AX_CHECK(ax_param_active(&base, i_m));
}

/* peak type=matrix on the same described devices: skipped without the
 * extension or with an unlisted shape (naming what is listed), run on a
 * listed one, its work counted per subgroup. */
extern const struct ax_suite ax_suite_peak;

static int peak_check(const struct ax_vk_device_info *d, const char *const *kv,
		      char *why, size_t len, double *work)
{
	struct ax_params p;
	char err[256];
	ax_params_init(&p, ax_suite_peak.params, ax_suite_peak.n_params);
	for (int i = 0; kv[i]; i += 2)
		AX_CHECK_INT(
		    ax_params_set(&p, kv[i], kv[i + 1], err, sizeof(err)), 0);
	why[0] = 0;
	*work = ax_suite_peak.work(&p);
	return ax_suite_peak.check(&p, d, why, len);
}

static void test_peak_matrix_validity(void)
{
	struct ax_vk_device_info d;
	char why[1024];
	double work;
	const char *m[] = {"type", "matrix", "iters", "64", "groups",
			   "8",	   "acc",    "2",     NULL};
	lavapipe_like(&d);
	AX_CHECK_INT(peak_check(&d, m, why, sizeof(why), &work),
		     AX_EUNSUPPORTED);
	AX_CHECK(strstr(why, "lists no cooperative-matrix shape") != NULL);
	nvidia_like(&d);
	AX_CHECK_INT(peak_check(&d, m, why, sizeof(why), &work), 0);
	/* 8 subgroups x 2 matrices x (64 + 1) steps x 2*16*16*16 */
	AX_CHECK_NEAR(work, 8.0 * 2 * 65 * 8192, 1e-6);
	const char *n8[] = {"type", "matrix", "cm_n", "8", NULL};
	AX_CHECK_INT(peak_check(&d, n8, why, sizeof(why), &work), 0);
	const char *big[] = {"type", "matrix", "cm_m", "32", NULL};
	AX_CHECK_INT(peak_check(&d, big, why, sizeof(why), &work),
		     AX_EUNSUPPORTED);
	AX_CHECK(strstr(why, "lists no shape 32x16x16") != NULL);
	AX_CHECK(strstr(why, "16x8x16 f16*f16+f32") != NULL);
	d.vulkan_memory_model = false;
	AX_CHECK_INT(peak_check(&d, m, why, sizeof(why), &work),
		     AX_EUNSUPPORTED);
	AX_CHECK(strstr(why, "vulkanMemoryModel") != NULL);
	/* The tiles are knobs of type=matrix alone. */
	struct ax_params p;
	ax_params_init(&p, ax_suite_peak.params, ax_suite_peak.n_params);
	AX_CHECK(!ax_param_active(&p, ax_params_find(&p, "cm_m")));
}

/* Each accumulation gets the tolerance of its adder: a C off by 2^-9 of
 * k passes with fp16 accumulation, not with fp32 (exact or truncating). */
static void test_acc_tolerance(void)
{
	struct ax_gemm_shape s = {
	    .m = 4, .n = 4, .k = 64, .batch = 1, .f16 = true};
	float a[256], b[256], c[16];
	bool sampled;
	char why[256];
	ax_gemm_case_inputs(&s, a, b);
	float *ref = product(&s, a, b);
	memcpy(c, ref, sizeof(c));
	free(ref);
	/* 2^-9 of the largest possible sum|a||b| (k): beyond fp32 (and
	 * fp16 output) bounds, within fp16 accumulation's. */
	c[5] += 64.0f / 512.0f;
	AX_CHECK_INT(ax_gemm_check(&s, a, b, c, &sampled, why, sizeof(why)),
		     AX_EVERIFY);
	s.trunc_acc = true;
	AX_CHECK_INT(ax_gemm_check(&s, a, b, c, &sampled, why, sizeof(why)),
		     AX_EVERIFY);
	s.acc16 = true;
	AX_CHECK_INT(ax_gemm_check(&s, a, b, c, &sampled, why, sizeof(why)), 0);
	c[5] += 64.0f; /* far off is still caught */
	AX_CHECK_INT(ax_gemm_check(&s, a, b, c, &sampled, why, sizeof(why)),
		     AX_EVERIFY);
	AX_CHECK(strstr(why, "with f16 accumulation") != NULL);
}

AX_TEST_MAIN(AX_TEST(test_full_check_edge_shapes), AX_TEST(test_nan_fails),
	     AX_TEST(test_sampled_check), AX_TEST(test_half_conversion),
	     AX_TEST(test_validity), AX_TEST(test_coopmat_validity),
	     AX_TEST(test_coopmat_space), AX_TEST(test_peak_matrix_validity),
	     AX_TEST(test_acc_tolerance))
