/* suites/cpu_baseline.c - the suites' work on the host CPU through
 * OpenBLAS (see cpu_baseline.h). */
#include "suites/cpu_baseline.h"

#include "core/error.h"
#include "suites/attention_ref.h"
#include "suites/conv_ref.h"
#include "suites/gemm_ref.h"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* The CBLAS enum values used here, as every cblas.h defines them
 * (CblasRowMajor, CblasNoTrans, CblasTrans): written out so that the
 * build needs no cblas.h, whose two copies here (GSL's, OpenBLAS's)
 * would also declare the same functions twice. */
#define CBLAS_ROW_MAJOR 101
#define CBLAS_NO_TRANS 111
#define CBLAS_TRANS 112

#define OPENBLAS_DEFAULT_LIB "libopenblas.so.0"

/* Debian's libopenblas.so.0 takes 32-bit integers (blasint = int; the
 * 64-bit-index build is libopenblas64.so.0); the enums are passed as
 * int.  Every dimension the suites' parameter ranges allow fits in int,
 * and the one product that could not (conv's images * pixels) is kept
 * below INT_MAX by chunking. */
typedef void (*sgemm_fn)(int order, int trans_a, int trans_b, int m, int n,
			 int k, float alpha, const float *a, int lda,
			 const float *b, int ldb, float beta, float *c,
			 int ldc);

struct blas {
	sgemm_fn sgemm;
	void (*set_threads)(int);
	int (*get_threads)(void);
	char *(*config)(void);	 /* may be missing: "unknown" */
	char *(*corename)(void); /* may be missing: "unknown" */
};

static bool test_corrupt;

void ax_cpu_baseline_test_corrupt(bool on) { test_corrupt = on; }

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- loading OpenBLAS ---- */

static void *open_lib(const char **name, char *why, size_t len)
{
	const char *env = getenv("AXBENCH_OPENBLAS_LIB");
	*name = env && *env ? env : OPENBLAS_DEFAULT_LIB;
	void *lib = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		ax_errf(why, len, AX_ENOTFOUND, "OpenBLAS: %s; %s", dlerror(),
			env && *env ? "AXBENCH_OPENBLAS_LIB names that file"
				    : "install Debian's libopenblas-dev");
	return lib;
}

/*
 * Once it has served, the library is never closed: OpenBLAS keeps a pool
 * of worker threads that unloading would tear down and the next case
 * would build anew.  dlopen of a loaded library only counts a
 * reference.
 */
static int blas_load(struct blas *b, char *why, size_t len)
{
	const char *name;
	void *lib = open_lib(&name, why, len);
	if (!lib)
		return AX_ENOTFOUND;
#define SYM(field, sym) *(void **)&b->field = dlsym(lib, sym)
	SYM(sgemm, "cblas_sgemm");
	SYM(set_threads, "openblas_set_num_threads");
	SYM(get_threads, "openblas_get_num_threads");
	SYM(config, "openblas_get_config");
	SYM(corename, "openblas_get_corename");
#undef SYM
	if (b->sgemm && b->set_threads && b->get_threads)
		return 0;
	dlclose(lib);
	return ax_errf(why, len, AX_ENOTFOUND,
		       "OpenBLAS: %s lacks %s: it is not OpenBLAS", name,
		       !b->sgemm ? "cblas_sgemm" : "openblas_set_num_threads");
}

/* "OpenBLAS 0.3.21 DYNAMIC_ARCH ..." -> "0.3.21". */
static void parse_version(const char *config, char *buf, size_t len)
{
	const char *prefix = "OpenBLAS ";
	size_t n = strlen(prefix);
	snprintf(buf, len, "unknown");
	if (strncmp(config, prefix, n) != 0)
		return;
	size_t v = strcspn(config + n, " ");
	if (v > 0 && v < len)
		snprintf(buf, len, "%.*s", (int)v, config + n);
}

static void blas_describe(const struct blas *b, struct ax_cpu_lib *lib)
{
	const char *config = b->config ? b->config() : NULL;
	const char *core = b->corename ? b->corename() : NULL;
	snprintf(lib->config, sizeof(lib->config), "%s",
		 config ? config : "unknown");
	snprintf(lib->corename, sizeof(lib->corename), "%s",
		 core && *core ? core : "unknown");
	parse_version(lib->config, lib->version, sizeof(lib->version));
	lib->threads = b->get_threads();
}

/* ---- the work of one repetition, per suite ---- */

struct cpu_work {
	const struct cpu_kind *kind;
	const struct blas *blas;
	struct ax_gemm_shape gemm;
	struct ax_conv_shape conv;
	struct ax_attention_shape att;
	bool f16;
	float *in[3]; /* A, B | x, w | q, k, v */
	size_t n_in[3];
	float *out; /* C | y | o */
	size_t n_out;
	float *scratch; /* conv: im2col matrix; attention: a block of
			   scores */
	size_t n_scratch;
	bool conv_direct;   /* 1x1, stride 1, no pad: x is the matrix */
	int64_t conv_chunk; /* nhwc: images per sgemm */
};

struct cpu_kind {
	const char *suite;
	/* Shape from p, buffer sizes into w; AX_EINVAL for a bad shape. */
	int (*shape)(struct cpu_work *w, const struct ax_params *p, char *why,
		     size_t len);
	void (*inputs)(struct cpu_work *w);
	void (*rep)(const struct cpu_work *w);
	int (*verify)(const struct cpu_work *w, char *why, size_t len);
};

/* gemm: batch x cblas_sgemm, op(A) and op(B) as gemm_ref.h lays them. */

static int gemm_shape(struct cpu_work *w, const struct ax_params *p, char *why,
		      size_t len)
{
	struct ax_gemm_shape *s = &w->gemm;
	s->m = (uint32_t)ax_params_get(p, "m");
	s->n = (uint32_t)ax_params_get(p, "n");
	s->k = (uint32_t)ax_params_get(p, "k");
	s->batch = (uint32_t)ax_params_get(p, "batch");
	s->trans_a = ax_params_get(p, "trans_a") != 0;
	s->trans_b = ax_params_get(p, "trans_b") != 0;
	s->f16 = w->f16 = ax_params_get(p, "dtype") == 1;
	w->n_in[0] = (size_t)s->batch * s->m * s->k;
	w->n_in[1] = (size_t)s->batch * s->k * s->n;
	w->n_out = (size_t)s->batch * s->m * s->n;
	return 0;
}

static void gemm_inputs(struct cpu_work *w)
{
	ax_gemm_case_inputs(&w->gemm, w->in[0], w->in[1]);
}

static void gemm_rep(const struct cpu_work *w)
{
	const struct ax_gemm_shape *s = &w->gemm;
	int m = (int)s->m, n = (int)s->n, k = (int)s->k;
	for (uint32_t z = 0; z < s->batch; z++)
		w->blas->sgemm(
		    CBLAS_ROW_MAJOR, s->trans_a ? CBLAS_TRANS : CBLAS_NO_TRANS,
		    s->trans_b ? CBLAS_TRANS : CBLAS_NO_TRANS, m, n, k, 1.0f,
		    w->in[0] + (size_t)z * m * k, s->trans_a ? m : k,
		    w->in[1] + (size_t)z * k * n, s->trans_b ? k : n, 0.0f,
		    w->out + (size_t)z * m * n, n);
}

static int gemm_verify(const struct cpu_work *w, char *why, size_t len)
{
	return ax_gemm_check(&w->gemm, w->in[0], w->in[1], w->out, NULL, why,
			     len);
}

/* conv: im2col into a matrix whose rows (nchw) or columns (nhwc) follow
 * the weights' reduction order, then one sgemm per image (nchw) or per
 * chunk of images (nhwc, where consecutive images' outputs are
 * consecutive rows). */

/* Floats of im2col matrix an nhwc chunk may take (64 MiB). */
#define CONV_COL_BUDGET ((int64_t)1 << 24)

static int conv_shape(struct cpu_work *w, const struct ax_params *p, char *why,
		      size_t len)
{
	struct ax_conv_shape *s = &w->conv;
	int rc = ax_conv_shape_from_params(p, s, why, len);
	if (rc)
		return rc;
	w->f16 = s->f16;
	int64_t pq = s->p * s->q, crs = s->c * s->r * s->s;
	w->conv_direct =
	    s->r == 1 && s->s == 1 && s->stride == 1 && s->pad == 0;
	int64_t chunk = 1;
	if (s->nhwc) {
		chunk = w->conv_direct ? s->n : CONV_COL_BUDGET / (pq * crs);
		chunk = chunk < 1 ? 1 : chunk > s->n ? s->n : chunk;
		if (chunk > INT_MAX / pq)
			chunk = INT_MAX / pq;
	}
	w->conv_chunk = chunk;
	w->n_in[0] = ax_conv_input_count(s);
	w->n_in[1] = ax_conv_weight_count(s);
	w->n_out = ax_conv_output_count(s);
	w->n_scratch = w->conv_direct ? 0 : (size_t)(chunk * pq * crs);
	return 0;
}

static void conv_inputs(struct cpu_work *w)
{
	ax_conv_case_inputs(&w->conv, w->in[0], w->in[1]);
}

/* The output columns q whose input column q*stride + off lies inside
 * 0..w-1: [*q0, *q1). */
static void valid_cols(const struct ax_conv_shape *s, int64_t off, int64_t *q0,
		       int64_t *q1)
{
	int64_t lo = off >= 0 ? 0 : (-off + s->stride - 1) / s->stride;
	int64_t hi = s->w - 1 - off < 0 ? 0 : (s->w - 1 - off) / s->stride + 1;
	*q0 = lo < s->q ? lo : s->q;
	*q1 = hi < *q0 ? *q0 : hi > s->q ? s->q : hi;
}

/* One output row p of matrix row (c, r, t): zeros where the tap falls
 * into the padding, the input row's samples between. */
static void im2col_segment(const struct ax_conv_shape *s, const float *xrow,
			   int64_t off, float *dst)
{
	int64_t q0, q1;
	valid_cols(s, off, &q0, &q1);
	memset(dst, 0, (size_t)q0 * sizeof(float));
	if (s->stride == 1)
		memcpy(dst + q0, xrow + q0 + off,
		       (size_t)(q1 - q0) * sizeof(float));
	else
		for (int64_t q = q0; q < q1; q++)
			dst[q] = xrow[q * s->stride + off];
	memset(dst + q1, 0, (size_t)(s->q - q1) * sizeof(float));
}

/* Matrix row (c, r, t) of one nchw image x: the tap's input sample
 * for every output pixel, col[p*Q + q]. */
static void im2col_nchw_row(const struct ax_conv_shape *s, const float *x,
			    int64_t c, int64_t r, int64_t t, float *col)
{
	for (int64_t p = 0; p < s->p; p++, col += s->q) {
		int64_t hi = p * s->stride - s->pad + r * s->dil;
		if (hi < 0 || hi >= s->h)
			memset(col, 0, (size_t)s->q * sizeof(float));
		else
			im2col_segment(s, x + (c * s->h + hi) * s->w,
				       t * s->dil - s->pad, col);
	}
}

/* col[(c*R + r)*S + t][p*Q + q]: rows in KCRS's reduction order. */
static void im2col_nchw(const struct ax_conv_shape *s, const float *x,
			float *col)
{
	int64_t pq = s->p * s->q, crs = s->c * s->r * s->s;
	for (int64_t row = 0; row < crs; row++)
		im2col_nchw_row(s, x, row / (s->r * s->s), row / s->s % s->r,
				row % s->s, col + row * pq);
}

/* Matrix row of output pixel (p, q) of one nhwc image x: its (r, t, c)
 * window, each tap one contiguous run of C channels. */
static void im2col_nhwc_pixel(const struct ax_conv_shape *s, const float *x,
			      int64_t p, int64_t q, float *col)
{
	size_t run = (size_t)s->c * sizeof(float);
	for (int64_t r = 0; r < s->r; r++)
		for (int64_t t = 0; t < s->s; t++, col += s->c) {
			int64_t hi = p * s->stride - s->pad + r * s->dil;
			int64_t wi = q * s->stride - s->pad + t * s->dil;
			if (hi < 0 || hi >= s->h || wi < 0 || wi >= s->w)
				memset(col, 0, run);
			else
				memcpy(col, x + (hi * s->w + wi) * s->c, run);
		}
}

/* col[(img*P + p)*Q + q][(r*S + t)*C + c]: columns in KRSC's order. */
static void im2col_nhwc(const struct ax_conv_shape *s, const float *x,
			int64_t images, float *col)
{
	int64_t crs = s->c * s->r * s->s;
	for (int64_t img = 0; img < images; img++)
		for (int64_t p = 0; p < s->p; p++)
			for (int64_t q = 0; q < s->q; q++, col += crs)
				im2col_nhwc_pixel(
				    s, x + img * s->h * s->w * s->c, p, q, col);
}

static void conv_rep_nchw(const struct cpu_work *w)
{
	const struct ax_conv_shape *s = &w->conv;
	int64_t pq = s->p * s->q, crs = s->c * s->r * s->s;
	for (int64_t n = 0; n < s->n; n++) {
		const float *x = w->in[0] + n * s->c * s->h * s->w;
		const float *col = x;
		if (!w->conv_direct) {
			im2col_nchw(s, x, w->scratch);
			col = w->scratch;
		}
		/* Y[K][PQ] = W[K][CRS] . col[CRS][PQ] */
		w->blas->sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS,
			       (int)s->k, (int)pq, (int)crs, 1.0f, w->in[1],
			       (int)crs, col, (int)pq, 0.0f,
			       w->out + n * s->k * pq, (int)pq);
	}
}

static void conv_rep_nhwc(const struct cpu_work *w)
{
	const struct ax_conv_shape *s = &w->conv;
	int64_t pq = s->p * s->q, crs = s->c * s->r * s->s;
	for (int64_t n = 0; n < s->n; n += w->conv_chunk) {
		int64_t images =
		    s->n - n < w->conv_chunk ? s->n - n : w->conv_chunk;
		const float *x = w->in[0] + n * s->h * s->w * s->c;
		const float *col = x;
		if (!w->conv_direct) {
			im2col_nhwc(s, x, images, w->scratch);
			col = w->scratch;
		}
		/* Y[images*PQ][K] = col[images*PQ][RSC] . W[K][RSC]^T */
		w->blas->sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_TRANS,
			       (int)(images * pq), (int)s->k, (int)crs, 1.0f,
			       col, (int)crs, w->in[1], (int)crs, 0.0f,
			       w->out + n * pq * s->k, (int)s->k);
	}
}

static void conv_rep(const struct cpu_work *w)
{
	if (w->conv.nhwc)
		conv_rep_nhwc(w);
	else
		conv_rep_nchw(w);
}

static int conv_verify(const struct cpu_work *w, char *why, size_t len)
{
	return ax_conv_ref_verify(&w->conv, w->in[0], w->in[1], w->out,
				  AX_CONV_VERIFY_MACS, why, len);
}

/* attention: blocks of query rows; each block's scores against the keys
 * its last row sees (causal: the keys no row of the block sees are never
 * computed), a masked softmax per row, then the weighted sum of V. */

#define ATT_ROWS 64

static int att_shape(struct cpu_work *w, const struct ax_params *p, char *why,
		     size_t len)
{
	struct ax_attention_shape *s = &w->att;
	ax_attention_shape_from_params(p, s);
	w->f16 = s->f16;
	w->n_in[0] = ax_attention_q_count(s);
	w->n_in[1] = w->n_in[2] = ax_attention_kv_count(s);
	w->n_out = ax_attention_q_count(s);
	w->n_scratch = (size_t)ATT_ROWS * (size_t)s->skv;
	return 0;
}

static void att_inputs(struct cpu_work *w)
{
	ax_attention_case_inputs(&w->att, w->in[0], w->in[1], w->in[2]);
}

/* Row x[0..n) of scores becomes softmax weights over its first nvis
 * entries and zeros after them (keys the mask hides). */
static void softmax_row(float *x, int64_t n, int64_t nvis)
{
	float m = -INFINITY;
	for (int64_t j = 0; j < nvis; j++)
		m = x[j] > m ? x[j] : m;
	double sum = 0.0;
	for (int64_t j = 0; j < nvis; j++) {
		x[j] = expf(x[j] - m);
		sum += x[j];
	}
	float inv = sum > 0.0 ? (float)(1.0 / sum) : 0.0f;
	for (int64_t j = 0; j < nvis; j++)
		x[j] *= inv;
	for (int64_t j = nvis; j < n; j++)
		x[j] = 0.0f;
}

static void att_block(const struct cpu_work *w, int64_t bh, int64_t i0,
		      int64_t rows)
{
	const struct ax_attention_shape *s = &w->att;
	int64_t d = s->d, nk = ax_attention_visible(s, i0 + rows - 1);
	float *o = w->out + (bh * s->sq + i0) * d;
	if (nk == 0) {
		/* No row of the block sees a key: zeros, as the suite. */
		memset(o, 0, (size_t)(rows * d) * sizeof(float));
		return;
	}
	const float *q = w->in[0] + (bh * s->sq + i0) * d;
	const float *k = w->in[1] + bh * s->skv * d;
	const float *v = w->in[2] + bh * s->skv * d;
	/* The suite's kernel scales by 1/sqrt(d) in float too. */
	float scale = (float)(1.0 / sqrt((double)d));
	/* S[rows][nk] = scale * Q[rows][d] . K[nk][d]^T */
	w->blas->sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_TRANS, (int)rows,
		       (int)nk, (int)d, scale, q, (int)d, k, (int)d, 0.0f,
		       w->scratch, (int)nk);
	for (int64_t r = 0; r < rows; r++)
		softmax_row(w->scratch + r * nk, nk,
			    ax_attention_visible(s, i0 + r));
	/* O[rows][d] = P[rows][nk] . V[nk][d] */
	w->blas->sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS,
		       (int)rows, (int)d, (int)nk, 1.0f, w->scratch, (int)nk, v,
		       (int)d, 0.0f, o, (int)d);
}

static void att_rep(const struct cpu_work *w)
{
	const struct ax_attention_shape *s = &w->att;
	for (int64_t bh = 0; bh < s->batch * s->heads; bh++)
		for (int64_t i0 = 0; i0 < s->sq; i0 += ATT_ROWS)
			att_block(w, bh, i0,
				  s->sq - i0 < ATT_ROWS ? s->sq - i0
							: ATT_ROWS);
}

static int att_verify(const struct cpu_work *w, char *why, size_t len)
{
	return ax_attention_ref_verify(&w->att, w->in[0], w->in[1], w->in[2],
				       w->out, AX_ATTENTION_VERIFY_MACS, why,
				       len);
}

static const struct cpu_kind kinds[] = {
    {"gemm", gemm_shape, gemm_inputs, gemm_rep, gemm_verify},
    {"conv", conv_shape, conv_inputs, conv_rep, conv_verify},
    {"attention", att_shape, att_inputs, att_rep, att_verify},
};

static const struct cpu_kind *find_kind(const struct ax_suite *suite)
{
	for (size_t i = 0; suite && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(suite->name, kinds[i].suite) == 0)
			return &kinds[i];
	return NULL;
}

bool ax_cpu_baseline_has(const struct ax_suite *suite)
{
	return find_kind(suite) != NULL;
}

/* ---- buffers ---- */

/* Refuse a shape that would not fit rather than let the kernel's
 * out-of-memory killer end the whole run: at most half the RAM. */
static int check_memory(const struct cpu_work *w, double bytes, char *why,
			size_t len)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	double ram = (double)pages * (double)page;
	if (pages <= 0 || page <= 0 || bytes <= ram / 2)
		return 0;
	return ax_errf(why, len, AX_ENOMEM,
		       "%s CPU baseline: the shape needs %.1f GiB of host "
		       "memory (inputs, output, scratch), over half of this "
		       "machine's %.1f GiB; use a smaller shape",
		       w->kind->suite, bytes / 1073741824.0,
		       ram / 1073741824.0);
}

static int alloc_buffers(struct cpu_work *w, char *why, size_t len)
{
	double floats = (double)w->n_out + (double)w->n_scratch;
	for (int i = 0; i < 3; i++)
		floats += (double)w->n_in[i];
	int rc = check_memory(w, floats * sizeof(float), why, len);
	if (rc)
		return rc;
	bool ok = true;
	for (int i = 0; i < 3; i++)
		if (w->n_in[i])
			ok &= (w->in[i] = malloc(w->n_in[i] * 4)) != NULL;
	ok &= (w->out = malloc(w->n_out * 4)) != NULL;
	if (w->n_scratch)
		ok &= (w->scratch = malloc(w->n_scratch * 4)) != NULL;
	if (!ok)
		return ax_errf(why, len, AX_ENOMEM,
			       "%s CPU baseline: out of host memory for "
			       "%.0f MiB of buffers",
			       w->kind->suite, floats * 4 / 1048576.0);
	/* NaN everywhere: an element the computation misses fails. */
	memset(w->out, 0xff, w->n_out * 4);
	w->kind->inputs(w);
	return 0;
}

static void free_buffers(struct cpu_work *w)
{
	for (int i = 0; i < 3; i++)
		free(w->in[i]);
	free(w->out);
	free(w->scratch);
}

/* ---- measuring ---- */

static int time_reps(void *ctx, uint32_t reps, double *sec)
{
	const struct cpu_work *w = ctx;
	double t0 = now_s();
	for (uint32_t i = 0; i < reps; i++)
		w->kind->rep(w);
	*sec = (now_s() - t0) / reps;
	return 0;
}

static bool stopped(const struct ax_runner_opts *o)
{
	return o->stop && *o->stop;
}

/* ---- the machine's load (struct ax_cpu_load) ---- */

/* What the load is computed from, at one moment. */
struct load_mark {
	bool ok;
	double wall, self_s, busy_s; /* busy_s: of the CPUs counted */
	int cpus;
};

/* The busy seconds since boot of the online CPUs this thread may run
 * on, from /proc/stat's per-CPU lines ("cpuN user nice system idle
 * iowait irq softirq steal ..."; idle and iowait are not busy, guest
 * time is inside user). */
static bool read_busy(struct load_mark *m)
{
	cpu_set_t set;
	FILE *f = fopen("/proc/stat", "r");
	long tck = sysconf(_SC_CLK_TCK);
	if (!f || tck <= 0 || sched_getaffinity(0, sizeof(set), &set)) {
		if (f)
			fclose(f);
		return false;
	}
	char line[512];
	unsigned long long sum = 0;
	m->cpus = 0;
	while (fgets(line, sizeof(line), f)) {
		int cpu;
		unsigned long long v[8] = {0};
		/* The "cpu " line of all CPUs has no number: left out. */
		if (sscanf(line,
			   "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu",
			   &cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
			   &v[6], &v[7]) < 8 ||
		    cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &set))
			continue;
		sum += v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
		m->cpus++;
	}
	fclose(f);
	m->busy_s = (double)sum / (double)tck;
	return m->cpus > 0;
}

static void load_mark(struct load_mark *m)
{
	struct rusage ru;
	m->wall = now_s();
	m->ok = read_busy(m) && getrusage(RUSAGE_SELF, &ru) == 0;
	if (m->ok)
		m->self_s =
		    (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Wait out what is left of AX_CPU_LOAD_MIN_S since `from`, in steps
 * that see the stop flag. */
static void load_window(double from, const struct ax_runner_opts *o)
{
	struct timespec step = {0, 10 * 1000 * 1000};
	while (now_s() - from < AX_CPU_LOAD_MIN_S && !stopped(o))
		nanosleep(&step, NULL);
}

/* The load between two marks: others' busy time over the wall time, in
 * CPUs, within [0, cpus] (the two clocks count differently, so a quiet
 * machine can read a hair below 0). */
static void load_between(const struct load_mark *a, const struct load_mark *b,
			 struct ax_cpu_load *out)
{
	double l1 = NAN;
	out->load_1m = getloadavg(&l1, 1) == 1 ? l1 : NAN;
	double wall = b->wall - a->wall;
	out->known = a->ok && b->ok && a->cpus == b->cpus && wall > 0;
	if (!out->known)
		return;
	double other = (b->busy_s - a->busy_s) - (b->self_s - a->self_s);
	other /= wall;
	out->online_cpus = b->cpus;
	out->busy_other = other < 0	    ? 0
			  : other > b->cpus ? (double)b->cpus
					    : other;
}

/* As the runner: warm up (caches, OpenBLAS's thread pool), then check
 * the last repetition's output before any time counts. */
static int warm_up_and_verify(struct cpu_work *w,
			      const struct ax_runner_opts *o,
			      struct ax_cpu_result *out)
{
	int warm = o->warmup > 0 ? o->warmup : 1;
	for (int i = 0; i < warm; i++) {
		if (stopped(o))
			return ax_errf(out->error, sizeof(out->error), AX_EINTR,
				       "interrupted before the first sample");
		w->kind->rep(w);
	}
	if (test_corrupt)
		w->out[0] += 1.0f;
	char why[sizeof(out->error)];
	int rc = w->kind->verify(w, why, sizeof(why));
	if (rc)
		ax_errf(out->error, sizeof(out->error), rc,
			"%s CPU baseline (OpenBLAS): %s", w->kind->suite, why);
	return rc;
}

static int sample(struct cpu_work *w, const struct ax_suite *suite,
		  const struct ax_params *p, const struct ax_runner_opts *o,
		  struct ax_cpu_result *out)
{
	struct ax_runner_samples s;
	/* Not the device case's timed span (cpu_baseline.h). */
	struct ax_runner_opts cpu_opts = *o;
	cpu_opts.phase = NULL;
	struct load_mark before, after;
	load_mark(&before);
	int rc = ax_runner_time_fn(suite, p, &cpu_opts, time_reps, w, &s);
	load_window(before.wall, o);
	load_mark(&after);
	load_between(&before, &after, &out->load);
	out->stop_reason = s.stop_reason;
	out->n = s.n;
	out->seconds = s.seconds;
	out->values = s.values;
	out->summary = s.summary;
	out->reps_per_sample = s.reps_per_sample;
	if (rc)
		return ax_errf(out->error, sizeof(out->error), rc,
			       "%s CPU baseline: %s", suite->name,
			       ax_strerror(rc));
	if (out->n == 0)
		return ax_errf(out->error, sizeof(out->error), AX_EINTR,
			       "interrupted before the first sample");
	ax_stats_summarize(out->values, out->n, 0.95, &out->summary);
	return 0;
}

/* The checks that need no library: a suite with a baseline, a thread
 * count, a point of that suite that keeps its rules. */
static int check_request(const struct ax_suite *suite,
			 const struct ax_params *p, int threads,
			 struct ax_cpu_result *out)
{
	char *err = out->error;
	size_t len = sizeof(out->error);
	if (!find_kind(suite))
		return ax_errf(err, len, AX_EUNSUPPORTED,
			       "%s has no CPU baseline (gemm, conv and "
			       "attention have one)",
			       suite ? suite->name : "(no suite)");
	if (threads < 1)
		return ax_errf(err, len, AX_EINVAL,
			       "CPU baseline: threads must be at least 1 (got "
			       "%d)",
			       threads);
	if (p->defs != suite->params)
		return ax_errf(err, len, AX_EINVAL,
			       "%s CPU baseline: the point is not of %s's "
			       "parameter table",
			       suite->name, suite->name);
	return ax_params_check(p, err, len);
}

static int run(const struct ax_suite *suite, const struct ax_params *p,
	       int threads, const struct ax_runner_opts *opts,
	       struct ax_cpu_result *out)
{
	char *err = out->error;
	size_t len = sizeof(out->error);
	int rc = check_request(suite, p, threads, out);
	struct blas blas = {0};
	if (rc == 0)
		rc = blas_load(&blas, err, len);
	if (rc)
		return rc;
	blas.set_threads(threads);
	blas_describe(&blas, &out->lib);
	struct cpu_work w = {.kind = find_kind(suite), .blas = &blas};
	rc = w.kind->shape(&w, p, err, len);
	if (w.f16)
		snprintf(out->lib.note, sizeof(out->lib.note),
			 "fp32 arithmetic on fp16-rounded inputs");
	if (rc == 0)
		rc = alloc_buffers(&w, err, len);
	if (rc == 0)
		rc = warm_up_and_verify(&w, opts, out);
	if (rc == 0)
		rc = sample(&w, suite, p, opts, out);
	free_buffers(&w);
	return rc;
}

int ax_cpu_baseline_run(const struct ax_suite *suite, const struct ax_params *p,
			int threads, const struct ax_runner_opts *opts,
			struct ax_cpu_result *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->lib.name, sizeof(out->lib.name), "OpenBLAS");
	snprintf(out->lib.version, sizeof(out->lib.version), "unknown");
	out->load.load_1m = out->load.busy_other = NAN;
	out->status = run(suite, p, threads, opts, out);
	if (out->status == AX_EINTR)
		out->stop_reason = "interrupted";
	return out->status;
}

int ax_cpu_lib_query(int threads, struct ax_cpu_lib *lib, char *why, size_t len)
{
	struct blas blas = {0};
	memset(lib, 0, sizeof(*lib));
	snprintf(lib->name, sizeof(lib->name), "OpenBLAS");
	snprintf(lib->version, sizeof(lib->version), "unknown");
	if (threads < 1)
		return ax_errf(why, len, AX_EINVAL,
			       "CPU baseline: threads must be at least 1");
	int rc = blas_load(&blas, why, len);
	if (rc)
		return rc;
	blas.set_threads(threads);
	blas_describe(&blas, lib);
	return 0;
}

void ax_cpu_result_release(struct ax_cpu_result *r)
{
	free(r->seconds);
	free(r->values);
	memset(r, 0, sizeof(*r));
}

/* ---- an sgemm for the suites' references (model_ref.h) ---- */

static sgemm_fn ref_sgemm;

static void openblas_product(int m, int n, int k, const float *a,
			     const float *b, float *c)
{
	ref_sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, m, n, k,
		  1.0f, a, k, b, n, 0.0f, c, n);
}

ax_model_sgemm_fn ax_cpu_reference_sgemm(void)
{
	static bool tried;
	if (!tried) {
		struct blas blas = {0};
		char why[256];
		tried = true;
		if (blas_load(&blas, why, sizeof(why)) == 0)
			ref_sgemm = blas.sgemm;
	}
	return ref_sgemm ? openblas_product : NULL;
}
