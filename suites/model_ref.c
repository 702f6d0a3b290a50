/* suites/model_ref.c - the model layers on the host (model_ref.h). */
#include "suites/model_ref.h"

#include "core/error.h"
#include "suites/data.h"
#include "suites/gemm_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const decoder_tensors[] = {
    "attn_norm", "wqkv", "wo", "ffn_norm", "wgu", "wd", "k_cache", "v_cache"};
static const char *const encoder_tensors[] = {
    "wqkv", "wo", "ln1_gamma", "ln1_beta", "w1", "w2", "ln2_gamma", "ln2_beta"};
static const char *const resnet_tensors[] = {"w1", "w2", "w3"};

enum { D_NORM1, D_WQKV, D_WO, D_NORM2, D_WGU, D_WD, D_KC, D_VC };
enum { E_WQKV, E_WO, E_LN1G, E_LN1B, E_W1, E_W2, E_LN2G, E_LN2B };
enum { R_W1, R_W2, R_W3 };

int ax_model_tensor_count(enum ax_model_kind kind)
{
	return kind == AX_MODEL_RESNET ? 3 : 8;
}

const char *ax_model_tensor_name(enum ax_model_kind kind, int i)
{
	return kind == AX_MODEL_DECODER	  ? decoder_tensors[i]
	       : kind == AX_MODEL_ENCODER ? encoder_tensors[i]
					  : resnet_tensors[i];
}

size_t ax_model_rows(const struct ax_model_dims *d)
{
	if (d->kind == AX_MODEL_RESNET)
		return (size_t)d->batch * d->size * d->size;
	return (size_t)d->batch * d->tokens;
}

size_t ax_model_width(const struct ax_model_dims *d)
{
	return d->kind == AX_MODEL_RESNET ? d->channels : d->hidden;
}

static size_t qkv_width(const struct ax_model_dims *d)
{
	return (size_t)(d->heads + 2 * d->kv_heads) * d->head_dim;
}

static size_t decoder_elems(const struct ax_model_dims *d, int i)
{
	size_t h = d->hidden, f = d->ffn;
	size_t cache =
	    (size_t)d->batch * d->kv_heads * ax_model_cap(d) * d->head_dim;
	size_t n[] = {h,    h * qkv_width(d), h * h, h, h * 2 * f, f * h, cache,
		      cache};
	return n[i];
}

static size_t encoder_elems(const struct ax_model_dims *d, int i)
{
	size_t h = d->hidden, f = d->ffn;
	size_t n[] = {h * 3 * h, h * h, h, h, h * f, f * h, h, h};
	return n[i];
}

size_t ax_model_tensor_elems(const struct ax_model_dims *d, int i)
{
	if (d->kind == AX_MODEL_DECODER)
		return decoder_elems(d, i);
	if (d->kind == AX_MODEL_ENCODER)
		return encoder_elems(d, i);
	size_t c = d->channels, m = d->mid;
	size_t n[] = {c * m, 9 * m * m, m * c};
	return n[i];
}

/* ---- synthetic data ---- */

/* Fan-in of tensor i: weights are scaled by 1/sqrt of it, so every
 * product keeps the activations near unit size.  0 for the tensors that
 * are not weights of a product. */
static size_t fan_in(const struct ax_model_dims *d, int i)
{
	if (d->kind == AX_MODEL_DECODER) {
		size_t f[] = {0,	 d->hidden, d->hidden, 0,
			      d->hidden, d->ffn,    0,	       0};
		return f[i];
	}
	if (d->kind == AX_MODEL_ENCODER) {
		size_t f[] = {d->hidden, d->hidden, 0, 0,
			      d->hidden, d->ffn,    0, 0};
		return f[i];
	}
	size_t f[] = {d->channels, 9 * (size_t)d->mid, d->mid};
	return f[i];
}

/* Norm gains near 1 and biases near 0: a gain of exactly 1 would let a
 * kernel that ignores it pass. */
static bool is_gain(const struct ax_model_dims *d, int i)
{
	return (d->kind == AX_MODEL_DECODER &&
		(i == D_NORM1 || i == D_NORM2)) ||
	       (d->kind == AX_MODEL_ENCODER && (i == E_LN1G || i == E_LN2G));
}

static bool is_bias(const struct ax_model_dims *d, int i)
{
	return d->kind == AX_MODEL_ENCODER && (i == E_LN1B || i == E_LN2B);
}

static void round_f16(float *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = ax_half_to_float(ax_half_from_float(v[i]));
}

static void fill_tensor(const struct ax_model_dims *d, int i, float *v,
			size_t n, uint64_t seed)
{
	ax_gemm_fill(v, n, seed);
	size_t fi = fan_in(d, i);
	float scale = fi			       ? 1.0f / sqrtf((float)fi)
		      : is_gain(d, i) || is_bias(d, i) ? 0.25f
						       : 1.0f;
	for (size_t k = 0; k < n; k++)
		v[k] = v[k] * scale + (is_gain(d, i) ? 1.0f : 0.0f);
	if (d->f16)
		round_f16(v, n);
}

int ax_model_data_make(const struct ax_model_dims *d, struct ax_model_data *m)
{
	memset(m, 0, sizeof(*m));
	m->d = *d;
	int nt = ax_model_tensor_count(d->kind);
	size_t nx = ax_model_rows(d) * ax_model_width(d);
	m->x = malloc(nx * sizeof(float));
	m->t = calloc((size_t)d->layers * nt, sizeof(float *));
	if (!m->x || !m->t)
		goto fail;
	ax_gemm_fill(m->x, nx, 7);
	if (d->f16)
		round_f16(m->x, nx);
	for (uint32_t l = 0; l < d->layers; l++)
		for (int i = 0; i < nt; i++) {
			size_t n = ax_model_tensor_elems(d, i);
			float *v = malloc(n * sizeof(float));
			if (!v)
				goto fail;
			m->t[(size_t)l * nt + i] = v;
			fill_tensor(d, i, v, n, 100 + 16 * (uint64_t)l + i);
		}
	return 0;
fail:
	ax_model_data_free(m);
	return AX_ENOMEM;
}

void ax_model_data_free(struct ax_model_data *m)
{
	if (m->t)
		for (size_t i = 0;
		     i < (size_t)m->d.layers * ax_model_tensor_count(m->d.kind);
		     i++)
			free(m->t[i]);
	free(m->t);
	free(m->x);
	memset(m, 0, sizeof(*m));
}

/* ---- the forward pass ---- */

static void plain_sgemm(int m, int n, int k, const float *a, const float *b,
			float *c)
{
	memset(c, 0, (size_t)m * n * sizeof(float));
	for (int i = 0; i < m; i++)
		for (int kk = 0; kk < k; kk++) {
			float av = a[(size_t)i * k + kk];
			const float *br = b + (size_t)kk * n;
			float *cr = c + (size_t)i * n;
			for (int j = 0; j < n; j++)
				cr[j] += av * br[j];
		}
}

struct ref {
	const struct ax_model_dims *d;
	ax_model_sgemm_fn sgemm;
};

static void mm(const struct ref *r, size_t m, size_t n, size_t k,
	       const float *a, const float *b, float *c)
{
	r->sgemm((int)m, (int)n, (int)k, a, b, c);
}

/* RMSNorm (layer = false) or LayerNorm of each row. */
static void norm_rows(const float *x, const float *g, const float *beta,
		      bool layer, float eps, size_t rows, size_t cols, float *y)
{
	for (size_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		double s = 0, s2 = 0;
		for (size_t i = 0; i < cols; i++) {
			s += xr[i];
			s2 += (double)xr[i] * xr[i];
		}
		double mean = layer ? s / cols : 0;
		double var = s2 / cols - mean * mean;
		double inv = 1.0 / sqrt((var > 0 ? var : 0) + eps);
		for (size_t i = 0; i < cols; i++) {
			double v = (xr[i] - mean) * inv * g[i];
			y[r * cols + i] = (float)(layer ? v + beta[i] : v);
		}
	}
}

static void add_into(float *y, const float *a, const float *b, size_t n,
		     bool relu)
{
	for (size_t i = 0; i < n; i++) {
		float v = a[i] + b[i];
		y[i] = relu && v < 0 ? 0 : v;
	}
}

/* Head-major copy of heads columns from col0 of token-major rows, with
 * rotary positions pos0 + t when rope (model_permute.comp, mode 0). */
struct heads_io {
	const float *src;
	size_t ld, col0;
	uint32_t heads, cap, pos0; /* the first position written */
	uint32_t rpos0;		   /* the first token's rotary position */
	bool rope;
};

static void to_heads(const struct ax_model_dims *d, const struct heads_io *io,
		     float *dst)
{
	uint32_t D = d->head_dim, half = D / 2;
	for (uint32_t b = 0; b < d->batch; b++)
		for (uint32_t t = 0; t < d->tokens; t++)
			for (uint32_t h = 0; h < io->heads; h++) {
				const float *row =
				    io->src +
				    ((size_t)b * d->tokens + t) * io->ld +
				    io->col0 + (size_t)h * D;
				float *o = dst + (((size_t)b * io->heads + h) *
						      io->cap +
						  io->pos0 + t) *
						     D;
				for (uint32_t e = 0; e < D; e++) {
					float v = row[e];
					if (io->rope) {
						uint32_t p = e % half;
						float ang =
						    (float)(io->rpos0 + t) *
						    powf(AX_MODEL_ROPE_THETA,
							 -2.0f * (float)p /
							     (float)D);
						float c = cosf(ang),
						      s = sinf(ang);
						v = e < half
							? v * c -
							      row[e + half] * s
							: v * c +
							      row[e - half] * s;
					}
					o[e] = v;
				}
			}
}

/* Attention of every (batch, query head): q [b][heads][tokens][D], k and
 * v [b][kv_heads][cap][D], out token-major [b*tokens][heads*D]. */
static void attend(const struct ax_model_dims *d, const float *q,
		   const float *k, const float *v, uint32_t cap, bool causal,
		   float *out, double *p)
{
	uint32_t D = d->head_dim, group = d->heads / d->kv_heads;
	double scale = 1.0 / sqrt((double)D);
	for (uint32_t b = 0; b < d->batch; b++)
		for (uint32_t h = 0; h < d->heads; h++)
			for (uint32_t t = 0; t < d->tokens; t++) {
				const float *qr =
				    q +
				    (((size_t)b * d->heads + h) * d->tokens +
				     t) *
					D;
				size_t kvb =
				    ((size_t)b * d->kv_heads + h / group) *
				    cap * D;
				uint32_t end = causal ? d->depth + t + 1 : cap;
				double mx = -INFINITY, sum = 0;
				for (uint32_t j = 0; j < end; j++) {
					double s = 0;
					for (uint32_t e = 0; e < D; e++)
						s += (double)qr[e] *
						     k[kvb + (size_t)j * D + e];
					p[j] = s * scale;
					mx = p[j] > mx ? p[j] : mx;
				}
				for (uint32_t j = 0; j < end; j++) {
					p[j] = exp(p[j] - mx);
					sum += p[j];
				}
				float *o =
				    out +
				    ((size_t)b * d->tokens + t) * d->hidden +
				    (size_t)h * D;
				for (uint32_t e = 0; e < D; e++) {
					double acc = 0;
					for (uint32_t j = 0; j < end; j++)
						acc +=
						    p[j] *
						    v[kvb + (size_t)j * D + e];
					o[e] = (float)(acc / sum);
				}
			}
}

/* Scratch of one pass, sized for the largest layer kind. */
struct scratch {
	float *a, *b, *c, *big, *q, *kc, *vc;
	double *p;
};

static void scratch_free(struct scratch *s)
{
	free(s->a);
	free(s->b);
	free(s->c);
	free(s->big);
	free(s->q);
	free(s->kc);
	free(s->vc);
	free(s->p);
}

static int scratch_make(const struct ax_model_dims *d, struct scratch *s)
{
	size_t rows = ax_model_rows(d), w = ax_model_width(d);
	size_t wide = d->kind == AX_MODEL_RESNET ? 9 * (size_t)d->mid
		      : d->kind == AX_MODEL_DECODER
			  ? 3 * (size_t)d->ffn + qkv_width(d)
			  : (size_t)d->ffn + 3 * d->hidden;
	size_t cache =
	    d->kind == AX_MODEL_DECODER ? decoder_elems(d, D_KC) : rows * w;
	memset(s, 0, sizeof(*s));
	s->a = malloc(rows * w * sizeof(float));
	s->b = malloc(rows * w * sizeof(float));
	s->c = malloc(rows * w * sizeof(float));
	s->big = malloc(rows * wide * sizeof(float));
	s->q = malloc(rows * w * sizeof(float));
	s->kc = malloc(cache * sizeof(float));
	s->vc = malloc(cache * sizeof(float));
	s->p =
	    malloc(((size_t)ax_model_cap(d) + d->tokens + 1) * sizeof(double));
	if (!s->a || !s->b || !s->c || !s->big || !s->q || !s->kc || !s->vc ||
	    !s->p) {
		scratch_free(s);
		return AX_ENOMEM;
	}
	return 0;
}

static void decoder_layer(const struct ref *r, const struct ax_model_data *m,
			  uint32_t l, const float *x, float *y,
			  struct scratch *s)
{
	const struct ax_model_dims *d = r->d;
	size_t T = ax_model_rows(d), H = d->hidden, F = d->ffn;
	size_t qw = qkv_width(d), D = d->head_dim;
	float *qkv = s->big, *n1 = s->a, *attn = s->b, *h = s->c;
	norm_rows(x, ax_model_tensor(m, l, D_NORM1), NULL, false,
		  AX_MODEL_RMS_EPS, T, H, n1);
	mm(r, T, qw, H, n1, ax_model_tensor(m, l, D_WQKV), qkv);
	size_t cache = decoder_elems(d, D_KC);
	memcpy(s->kc, ax_model_tensor(m, l, D_KC), cache * sizeof(float));
	memcpy(s->vc, ax_model_tensor(m, l, D_VC), cache * sizeof(float));
	uint32_t cap = ax_model_cap(d);
	/* New token t is at position depth + t: its query and key are
	 * rotated there, and its key and value stored there. */
	struct heads_io q = {qkv,	qw, 0,	      d->heads,
			     d->tokens, 0,  d->depth, true};
	struct heads_io k = {qkv, qw,	    d->heads * D, d->kv_heads,
			     cap, d->depth, d->depth,	  true};
	struct heads_io v = {qkv,	  qw,	(d->heads + d->kv_heads) * D,
			     d->kv_heads, cap,	d->depth,
			     d->depth,	  false};
	to_heads(d, &q, s->q);
	to_heads(d, &k, s->kc);
	to_heads(d, &v, s->vc);
	attend(d, s->q, s->kc, s->vc, cap, true, n1, s->p);
	mm(r, T, H, H, n1, ax_model_tensor(m, l, D_WO), attn);
	add_into(h, x, attn, T * H, false);
	norm_rows(h, ax_model_tensor(m, l, D_NORM2), NULL, false,
		  AX_MODEL_RMS_EPS, T, H, n1);
	float *gu = s->big;
	mm(r, T, 2 * F, H, n1, ax_model_tensor(m, l, D_WGU), gu);
	float *act = s->big + T * 2 * F;
	for (size_t t = 0; t < T; t++)
		for (size_t j = 0; j < F; j++) {
			float g = gu[t * 2 * F + j], u = gu[t * 2 * F + F + j];
			act[t * F + j] = g / (1.0f + expf(-g)) * u;
		}
	mm(r, T, H, F, act, ax_model_tensor(m, l, D_WD), attn);
	add_into(y, h, attn, T * H, false);
}

static float gelu(float v)
{
	const float k = 0.7978845608028654f; /* sqrt(2 / pi) */
	return 0.5f * v * (1.0f + tanhf(k * (v + 0.044715f * v * v * v)));
}

static void encoder_layer(const struct ref *r, const struct ax_model_data *m,
			  uint32_t l, const float *x, float *y,
			  struct scratch *s)
{
	const struct ax_model_dims *d = r->d;
	size_t T = ax_model_rows(d), H = d->hidden, F = d->ffn;
	float *qkv = s->big, *o = s->a, *h = s->b, *h1 = s->c;
	mm(r, T, 3 * H, H, x, ax_model_tensor(m, l, E_WQKV), qkv);
	uint32_t n = d->tokens;
	struct heads_io q = {qkv, 3 * H, 0, d->heads, n, 0, 0, false};
	struct heads_io k = {qkv, 3 * H, H, d->heads, n, 0, 0, false};
	struct heads_io v = {qkv, 3 * H, 2 * H, d->heads, n, 0, 0, false};
	to_heads(d, &q, s->q);
	to_heads(d, &k, s->kc);
	to_heads(d, &v, s->vc);
	attend(d, s->q, s->kc, s->vc, n, false, o, s->p);
	mm(r, T, H, H, o, ax_model_tensor(m, l, E_WO), h);
	add_into(h, x, h, T * H, false);
	norm_rows(h, ax_model_tensor(m, l, E_LN1G),
		  ax_model_tensor(m, l, E_LN1B), true, AX_MODEL_LN_EPS, T, H,
		  h1);
	float *f = s->big;
	mm(r, T, F, H, h1, ax_model_tensor(m, l, E_W1), f);
	for (size_t i = 0; i < T * F; i++)
		f[i] = gelu(f[i]);
	mm(r, T, H, F, f, ax_model_tensor(m, l, E_W2), h);
	add_into(h, h1, h, T * H, false);
	norm_rows(h, ax_model_tensor(m, l, E_LN2G),
		  ax_model_tensor(m, l, E_LN2B), true, AX_MODEL_LN_EPS, T, H,
		  y);
}

/* model_im2col.comp on the host. */
static void im2col3(const struct ax_model_dims *d, const float *src, uint32_t c,
		    float *dst)
{
	uint32_t S = d->size;
	for (uint32_t b = 0; b < d->batch; b++)
		for (uint32_t yy = 0; yy < S; yy++)
			for (uint32_t xx = 0; xx < S; xx++) {
				size_t pix = ((size_t)b * S + yy) * S + xx;
				float *row = dst + pix * 9 * c;
				for (int tap = 0; tap < 9; tap++) {
					int sy = (int)yy + tap / 3 - 1;
					int sx = (int)xx + tap % 3 - 1;
					bool in = sy >= 0 && sy < (int)S &&
						  sx >= 0 && sx < (int)S;
					/* Outside the image: zeros, and no
					 * pointer formed there. */
					if (!in) {
						memset(row + (size_t)tap * c, 0,
						       c * sizeof(float));
						continue;
					}
					const float *sp =
					    src +
					    (((size_t)b * S + sy) * S + sx) * c;
					memcpy(row + (size_t)tap * c, sp,
					       c * sizeof(float));
				}
			}
}

static void relu_rows(float *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = v[i] < 0 ? 0 : v[i];
}

static void resnet_layer(const struct ref *r, const struct ax_model_data *m,
			 uint32_t l, const float *x, float *y,
			 struct scratch *s)
{
	const struct ax_model_dims *d = r->d;
	size_t P = ax_model_rows(d), C = d->channels, M = d->mid;
	float *t1 = s->a, *t2 = s->b, *col = s->big;
	mm(r, P, M, C, x, ax_model_tensor(m, l, R_W1), t1);
	relu_rows(t1, P * M);
	im2col3(d, t1, (uint32_t)M, col);
	mm(r, P, M, 9 * M, col, ax_model_tensor(m, l, R_W2), t2);
	relu_rows(t2, P * M);
	mm(r, P, C, M, t2, ax_model_tensor(m, l, R_W3), s->c);
	add_into(y, s->c, x, P * C, true);
}

int ax_model_ref_forward(const struct ax_model_data *m, ax_model_sgemm_fn sgemm,
			 float *out)
{
	const struct ax_model_dims *d = &m->d;
	struct ref r = {d, sgemm ? sgemm : plain_sgemm};
	struct scratch s;
	size_t n = ax_model_rows(d) * ax_model_width(d);
	float *cur = malloc(n * sizeof(float));
	if (!cur || scratch_make(d, &s)) {
		free(cur);
		return AX_ENOMEM;
	}
	memcpy(cur, m->x, n * sizeof(float));
	for (uint32_t l = 0; l < d->layers; l++) {
		if (d->kind == AX_MODEL_DECODER)
			decoder_layer(&r, m, l, cur, out, &s);
		else if (d->kind == AX_MODEL_ENCODER)
			encoder_layer(&r, m, l, cur, out, &s);
		else
			resnet_layer(&r, m, l, cur, out, &s);
		memcpy(cur, out, n * sizeof(float));
	}
	free(cur);
	scratch_free(&s);
	return 0;
}

/* Unmasked (query, key) pairs of one sequence and head. */
static double attention_pairs(const struct ax_model_dims *d)
{
	double n = d->tokens;
	if (d->kind == AX_MODEL_ENCODER)
		return n * n;
	/* token t sees depth + t + 1 positions */
	return n * d->depth + n * (n + 1) / 2;
}

double ax_model_flops(const struct ax_model_dims *d)
{
	double rows = (double)ax_model_rows(d), f = 0;
	double H = d->hidden, F = d->ffn;
	if (d->kind == AX_MODEL_RESNET) {
		double C = d->channels, M = d->mid;
		f = 2 * rows * (C * M + 9 * M * M + M * C);
	} else {
		double qw =
		    d->kind == AX_MODEL_DECODER ? (double)qkv_width(d) : 3 * H;
		double ffn_w = d->kind == AX_MODEL_DECODER ? 3 * F : 2 * F;
		f = 2 * rows * H * (qw + H + ffn_w) + 4.0 * d->head_dim *
							  attention_pairs(d) *
							  d->heads * d->batch;
	}
	return f * d->layers;
}

double ax_model_items(const struct ax_model_dims *d)
{
	if (d->kind == AX_MODEL_DECODER)
		return (double)d->batch * d->tokens;
	return d->batch;
}

int ax_model_check(const struct ax_model_dims *d, const float *got,
		   const float *ref, char *why, size_t whylen)
{
	size_t n = ax_model_rows(d) * ax_model_width(d), worst = 0;
	double ss = 0, werr = -1;
	for (size_t i = 0; i < n; i++)
		ss += (double)ref[i] * ref[i];
	double rms = sqrt(ss / (double)n);
	if (!(rms > 0))
		rms = 1;
	for (size_t i = 0; i < n; i++) {
		double e = fabs((double)got[i] - ref[i]);
		if (!(e <= werr)) { /* NaN counts as the worst */
			werr = isnan(e) ? INFINITY : e;
			worst = i;
		}
	}
	double tol = d->f16 ? AX_MODEL_TOL_F16 : AX_MODEL_TOL_F32;
	if (werr / rms <= tol)
		return 0;
	size_t w = ax_model_width(d);
	return ax_errf(why, whylen, AX_EVERIFY,
		       "output row %zu column %zu: %g, reference %g: error "
		       "%.3g of the output's RMS %.3g exceeds the %s tolerance "
		       "%g",
		       worst / w, worst % w, (double)got[worst],
		       (double)ref[worst], werr / rms, rms,
		       d->f16 ? "fp16" : "fp32", tol);
}
