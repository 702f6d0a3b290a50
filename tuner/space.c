/* tuner/space.c - enumeration, sampling, encoding and lookup of points. */
#include "tuner/space.h"

#include "core/error.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ax_dim {
	char *name;
	enum ax_dim_kind kind;
	uint32_t nlev;
	double *lev;	/* distinct values, ascending (a parameter's own
			   value list is ascending by the loader's rule) */
	int enc_off;	/* first encoded column */
	int enc_n;	/* encoded columns: 0 (constant), 1 or nlev, +1 for
			 * the alignment column */
	double lo, hi;	/* encoding range, log2 for AX_DIM_LOG2 */
	int align;	/* has an alignment column */
	int alo, ahi;	/* range of the levels' power-of-two valuations */
	int param;	/* index into defs, or -1 for explicit spaces */
	uint64_t radix; /* mixed-radix weight of the level index */
};

struct key_ent {
	uint64_t key;
	size_t idx;
};

struct ax_space {
	int ndims, enc_d;
	struct ax_dim dim[AX_MAX_PARAMS];
	size_t n;
	uint32_t *li;	      /* n x ndims level indices */
	double *enc;	      /* n x enc_d */
	struct key_ent *keys; /* sorted by key */
	const struct ax_param_def *defs;
	int ndefs;
	size_t cartesian;
	int sampled;
};

void ax_space_destroy(struct ax_space *s)
{
	if (!s)
		return;
	for (int d = 0; d < s->ndims; d++) {
		free(s->dim[d].name);
		free(s->dim[d].lev);
	}
	free(s->li);
	free(s->enc);
	free(s->keys);
	free(s);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int cmp_key(const void *a, const void *b)
{
	const struct key_ent *x = a, *y = b;
	if (x->key != y->key)
		return (x->key > y->key) - (x->key < y->key);
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static int is_pow2_double(double v)
{
	if (v <= 0 || v != floor(v) || v > 9e15)
		return 0;
	uint64_t u = (uint64_t)v;
	return (u & (u - 1)) == 0;
}

/* Largest k with 2^k dividing v (v a positive integer below 2^53). */
static int valuation2(double v)
{
	uint64_t u = (uint64_t)v;
	int k = 0;
	while (u && !(u & 1)) {
		u >>= 1;
		k++;
	}
	return k;
}

/*
 * Integer levels that are not all powers of two get a second column: how
 * many times 2 divides the value.  GPU kernels reward aligned sizes (a
 * block of 32 or 128 threads against one of 48 or 112) in a way no smooth
 * function of the value itself can express; with the column the GP's
 * length scale on it decides whether alignment matters.
 */
static void set_alignment(struct ax_dim *dm)
{
	int all_pow2 = 1, lo = 64, hi = -1;
	if (dm->kind != AX_DIM_NUMERIC && dm->kind != AX_DIM_LOG2)
		return;
	for (uint32_t l = 0; l < dm->nlev; l++) {
		double v = dm->lev[l];
		if (v <= 0 || v != floor(v) || v > 9e15)
			return;
		all_pow2 &= is_pow2_double(v);
		int k = valuation2(v);
		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
	}
	if (all_pow2 || lo == hi)
		return;
	dm->align = 1;
	dm->alo = lo;
	dm->ahi = hi;
}

/* Decide AUTO kinds and the encoded columns of each dimension. */
static int resolve_encoding(struct ax_space *s, char *err, size_t errlen)
{
	int off = 0;
	for (int d = 0; d < s->ndims; d++) {
		struct ax_dim *dm = &s->dim[d];
		double lo = dm->lev[0], hi = dm->lev[dm->nlev - 1];
		if (dm->kind == AX_DIM_AUTO) {
			int pow2 = dm->nlev >= 3;
			for (uint32_t l = 0; l < dm->nlev && pow2; l++)
				pow2 = is_pow2_double(dm->lev[l]);
			dm->kind = lo > 0 && (pow2 || hi / lo >= 16)
				       ? AX_DIM_LOG2
				       : AX_DIM_NUMERIC;
		}
		if (dm->kind == AX_DIM_LOG2 && lo <= 0)
			return ax_errf(err, errlen, AX_EINVAL,
				       "dimension %s: a log2 scale needs "
				       "positive values (got %g)",
				       dm->name, lo);
		dm->lo = dm->kind == AX_DIM_LOG2 ? log2(lo) : lo;
		dm->hi = dm->kind == AX_DIM_LOG2 ? log2(hi) : hi;
		dm->enc_off = off;
		if (dm->nlev == 1)
			dm->enc_n = 0;
		else if (dm->kind == AX_DIM_CATEGORICAL && dm->nlev > 2)
			dm->enc_n = (int)dm->nlev;
		else
			dm->enc_n = 1;
		if (dm->nlev > 1)
			set_alignment(dm);
		dm->enc_n += dm->align;
		off += dm->enc_n;
		if (off > AX_SPACE_MAX_ENC)
			return ax_errf(err, errlen, AX_EINVAL,
				       "the encoding needs more than %d "
				       "columns; use fewer categorical "
				       "choices",
				       AX_SPACE_MAX_ENC);
	}
	s->enc_d = off;
	return 0;
}

static void encode_point(const struct ax_space *s, const uint32_t *li,
			 double *out)
{
	for (int d = 0; d < s->ndims; d++) {
		const struct ax_dim *dm = &s->dim[d];
		if (dm->enc_n == 0)
			continue;
		double v = dm->lev[li[d]];
		if (dm->align)
			out[dm->enc_off + 1] =
			    (double)(valuation2(v) - dm->alo) /
			    (dm->ahi - dm->alo);
		if (dm->enc_n - dm->align > 1) {
			for (int c = 0; c < dm->enc_n; c++)
				out[dm->enc_off + c] = c == (int)li[d];
			continue;
		}
		if (dm->kind == AX_DIM_LOG2)
			v = log2(v);
		out[dm->enc_off] = (v - dm->lo) / (dm->hi - dm->lo);
	}
}

static uint64_t point_key(const struct ax_space *s, const uint32_t *li)
{
	uint64_t k = 0;
	for (int d = 0; d < s->ndims; d++)
		k += li[d] * s->dim[d].radix;
	return k;
}

/* Radix weights and the Cartesian size; refuses products over 2^62. */
static int set_radix(struct ax_space *s, char *err, size_t errlen)
{
	uint64_t w = 1;
	for (int d = s->ndims - 1; d >= 0; d--) {
		s->dim[d].radix = w;
		if (w > (UINT64_C(1) << 62) / s->dim[d].nlev)
			return ax_errf(err, errlen, AX_EINVAL,
				       "the Cartesian product of the levels "
				       "exceeds 2^62 points; narrow the "
				       "parameter ranges");
		w *= s->dim[d].nlev;
	}
	s->cartesian = w > SIZE_MAX ? SIZE_MAX : (size_t)w;
	return 0;
}

/* Encode every point, build the sorted key index, reject duplicates. */
static int finish(struct ax_space *s, char *err, size_t errlen)
{
	int rc = resolve_encoding(s, err, errlen);
	if (rc)
		return rc;
	size_t n = s->n;
	s->enc = calloc(n * (size_t)(s->enc_d ? s->enc_d : 1), sizeof(double));
	s->keys = malloc(n * sizeof(*s->keys));
	if (!s->enc || !s->keys)
		return AX_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const uint32_t *li = s->li + i * (size_t)s->ndims;
		encode_point(s, li, s->enc + i * (size_t)s->enc_d);
		s->keys[i].key = point_key(s, li);
		s->keys[i].idx = i;
	}
	qsort(s->keys, n, sizeof(*s->keys), cmp_key);
	for (size_t i = 1; i < n; i++)
		if (s->keys[i].key == s->keys[i - 1].key)
			return ax_errf(err, errlen, AX_EINVAL,
				       "points %zu and %zu are the same "
				       "configuration; list each point once",
				       s->keys[i - 1].idx, s->keys[i].idx);
	return 0;
}

/* Levels of one tunable parameter, per the rules in space.h. */
static int param_levels(const struct ax_param_def *pd, struct ax_dim *dm)
{
	double buf[64];
	uint32_t n = 0;
	if (pd->type == AX_PT_BOOL) {
		buf[n++] = 0;
		buf[n++] = 1;
		dm->kind = AX_DIM_BOOL;
	} else if (pd->type == AX_PT_ENUM) {
		while (pd->choices && pd->choices[n] && n < 64)
			buf[n] = n, n++;
		dm->kind = AX_DIM_CATEGORICAL;
	} else if (pd->values) {
		for (int i = 0; i < pd->n_values && n < 64; i++)
			buf[n++] = (double)pd->values[i];
		dm->kind = AX_DIM_AUTO;
	} else if (pd->flags & AX_PARAM_POW2) {
		for (int64_t v = 1; v <= pd->max && n < 64; v *= 2)
			if (v >= pd->min)
				buf[n++] = (double)v;
		dm->kind = AX_DIM_LOG2;
	} else if (pd->max - pd->min < 64) {
		for (int64_t v = pd->min; v <= pd->max; v++)
			buf[n++] = (double)v;
		dm->kind = AX_DIM_AUTO;
	} else {
		/* Wide ranges: 32 log-spaced integers (linear when the range
		 * touches zero), so one knob cannot swamp the product. */
		double lo = (double)pd->min, hi = (double)pd->max;
		for (int k = 0; k < 32; k++) {
			double t = k / 31.0, v;
			if (lo > 0)
				v = round(
				    exp(log(lo) + t * (log(hi) - log(lo))));
			else
				v = round(lo + t * (hi - lo));
			if (n == 0 || v > buf[n - 1])
				buf[n++] = v;
		}
		dm->kind = AX_DIM_AUTO;
	}
	if (n == 0)
		return AX_EINVAL;
	dm->lev = malloc(n * sizeof(double));
	if (!dm->lev)
		return AX_ENOMEM;
	memcpy(dm->lev, buf, n * sizeof(double));
	dm->nlev = n;
	return 0;
}

static void li_to_params(const struct ax_space *s, const uint32_t *li,
			 struct ax_params *p)
{
	ax_params_init(p, s->defs, s->ndefs);
	for (int d = 0; d < s->ndims; d++)
		p->v[s->dim[d].param] = (int64_t)s->dim[d].lev[li[d]];
}

static int push_point(struct ax_space *s, size_t *cap, const uint32_t *li)
{
	if (s->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		uint32_t *g = realloc(s->li, nc * s->ndims * sizeof(uint32_t));
		if (!g)
			return AX_ENOMEM;
		s->li = g;
		*cap = nc;
	}
	memcpy(s->li + s->n * s->ndims, li, s->ndims * sizeof(uint32_t));
	s->n++;
	return 0;
}

static int keep_if_valid(struct ax_space *s, size_t *cap, const uint32_t *li,
			 ax_space_valid_fn valid, void *ctx)
{
	struct ax_params p;
	char why[128];
	li_to_params(s, li, &p);
	if (valid && valid(&p, ctx, why, sizeof(why)) != 0)
		return 0;
	return push_point(s, cap, li);
}

static int enumerate_all(struct ax_space *s, ax_space_valid_fn valid, void *ctx)
{
	uint32_t li[AX_MAX_PARAMS] = {0};
	size_t cap = 0;
	for (size_t k = 0; k < s->cartesian; k++) {
		size_t r = k;
		for (int d = s->ndims - 1; d >= 0; d--) {
			li[d] = (uint32_t)(r % s->dim[d].nlev);
			r /= s->dim[d].nlev;
		}
		int rc = keep_if_valid(s, &cap, li, valid, ctx);
		if (rc)
			return rc;
	}
	return 0;
}

/* Draw random points, keep valid distinct ones, at most cap of them. */
static int sample_points(struct ax_space *s, size_t want,
			 ax_space_valid_fn valid, void *ctx, uint64_t seed)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng)
		return AX_ENOMEM;
	gsl_rng_set(rng, (unsigned long)seed);
	uint32_t li[AX_MAX_PARAMS];
	size_t cap = 0;
	int rc = 0;
	for (size_t a = 0; a < 2 * want && !rc; a++) {
		for (int d = 0; d < s->ndims; d++)
			li[d] =
			    (uint32_t)gsl_rng_uniform_int(rng, s->dim[d].nlev);
		rc = keep_if_valid(s, &cap, li, valid, ctx);
	}
	gsl_rng_free(rng);
	if (rc)
		return rc;
	/* Remove duplicates through a key sort; keep points in draw order
	 * so truncating to want does not favour any region. */
	struct key_ent *k = malloc((s->n ? s->n : 1) * sizeof(*k));
	unsigned char *dup = calloc(s->n ? s->n : 1, 1);
	uint32_t *li2 = malloc((s->n ? s->n : 1) * s->ndims * sizeof(*li2));
	if (!k || !dup || !li2) {
		free(k);
		free(dup);
		free(li2);
		return AX_ENOMEM;
	}
	for (size_t i = 0; i < s->n; i++) {
		k[i].key = point_key(s, s->li + i * s->ndims);
		k[i].idx = i;
	}
	qsort(k, s->n, sizeof(*k), cmp_key);
	for (size_t i = 1; i < s->n; i++)
		if (k[i].key == k[i - 1].key)
			dup[k[i].idx] = 1; /* ties sort by draw order */
	size_t m = 0;
	for (size_t i = 0; i < s->n && m < want; i++)
		if (!dup[i])
			memcpy(li2 + m++ * s->ndims, s->li + i * s->ndims,
			       s->ndims * sizeof(uint32_t));
	free(k);
	free(dup);
	free(s->li);
	s->li = li2;
	s->n = m;
	s->sampled = 1;
	return 0;
}

static int create_params(struct ax_space **out, const struct ax_param_def *defs,
			 int ndefs, const struct ax_params *base,
			 ax_space_valid_fn valid, void *ctx, size_t cap,
			 uint64_t seed, char *err, size_t errlen);

int ax_space_create_params(struct ax_space **out,
			   const struct ax_param_def *defs, int ndefs,
			   ax_space_valid_fn valid, void *ctx, size_t cap,
			   uint64_t seed, char *err, size_t errlen)
{
	return create_params(out, defs, ndefs, NULL, valid, ctx, cap, seed, err,
			     errlen);
}

int ax_space_create_case(struct ax_space **out, const struct ax_params *base,
			 ax_space_valid_fn valid, void *ctx, size_t cap,
			 uint64_t seed, char *err, size_t errlen)
{
	return create_params(out, base->defs, base->n, base, valid, ctx, cap,
			     seed, err, errlen);
}

/* base NULL: every tunable row is a dimension. */
static int create_params(struct ax_space **out, const struct ax_param_def *defs,
			 int ndefs, const struct ax_params *base,
			 ax_space_valid_fn valid, void *ctx, size_t cap,
			 uint64_t seed, char *err, size_t errlen)
{
	*out = NULL;
	if (ndefs < 0 || ndefs > AX_MAX_PARAMS)
		return ax_errf(err, errlen, AX_EINVAL,
			       "%d parameters given; at most %d are supported",
			       ndefs, AX_MAX_PARAMS);
	struct ax_space *s = calloc(1, sizeof(*s));
	if (!s)
		return AX_ENOMEM;
	s->defs = defs;
	s->ndefs = ndefs;
	int rc = 0;
	for (int i = 0; i < ndefs && !rc; i++) {
		if (!(defs[i].flags & AX_PARAM_TUNABLE) ||
		    (base && !ax_param_active(base, i)))
			continue;
		struct ax_dim *dm = &s->dim[s->ndims++];
		dm->param = i;
		dm->name = strdup(defs[i].name);
		rc = dm->name ? param_levels(&defs[i], dm) : AX_ENOMEM;
		if (rc == AX_EINVAL)
			rc = ax_errf(err, errlen, AX_EINVAL,
				     "%s has no value to try; check its "
				     "range",
				     defs[i].name);
	}
	if (!rc && s->ndims == 0)
		rc = ax_errf(err, errlen, AX_EINVAL,
			     "no parameter is marked tunable; nothing to "
			     "tune");
	if (!rc)
		rc = set_radix(s, err, errlen);
	if (!cap)
		cap = AX_SPACE_DEFAULT_CAP;
	if (!rc)
		rc = s->cartesian <= cap
			 ? enumerate_all(s, valid, ctx)
			 : sample_points(s, cap, valid, ctx, seed);
	if (!rc && s->n == 0)
		rc = ax_errf(err, errlen, AX_EINVAL,
			     "no point of the %zu-point space passes the "
			     "validity check; widen the ranges",
			     s->cartesian);
	if (!rc)
		rc = finish(s, err, errlen);
	if (rc) {
		ax_space_destroy(s);
		return rc;
	}
	*out = s;
	return 0;
}

/* Distinct sorted values of dimension d over all points. */
static int explicit_levels(struct ax_dim *dm, const double *values,
			   size_t npoints, int ndims, int d)
{
	double *v = malloc(npoints * sizeof(double));
	if (!v)
		return AX_ENOMEM;
	for (size_t i = 0; i < npoints; i++)
		v[i] = values[i * ndims + d];
	qsort(v, npoints, sizeof(double), cmp_double);
	size_t m = 0;
	for (size_t i = 0; i < npoints; i++)
		if (m == 0 || v[i] != v[m - 1])
			v[m++] = v[i];
	dm->lev = realloc(v, m * sizeof(double));
	if (!dm->lev)
		dm->lev = v;
	dm->nlev = (uint32_t)m;
	return 0;
}

static uint32_t level_of(const struct ax_dim *dm, double v)
{
	const double *p =
	    bsearch(&v, dm->lev, dm->nlev, sizeof(double), cmp_double);
	return (uint32_t)(p - dm->lev);
}

static int check_values(int ndims, const char *const *names,
			const enum ax_dim_kind *kinds, const double *values,
			size_t npoints, char *err, size_t errlen)
{
	if (ndims < 1 || ndims > AX_MAX_PARAMS)
		return ax_errf(err, errlen, AX_EINVAL,
			       "%d dimensions given; 1 to %d are supported",
			       ndims, AX_MAX_PARAMS);
	if (npoints == 0)
		return ax_errf(err, errlen, AX_EINVAL,
			       "the point list is empty; give at least one");
	if (npoints > UINT32_MAX)
		return ax_errf(err, errlen, AX_EINVAL,
			       "%zu points given; at most %u are supported",
			       npoints, UINT32_MAX);
	for (size_t i = 0; i < npoints; i++)
		for (int d = 0; d < ndims; d++) {
			double v = values[i * ndims + d];
			int cat = kinds && kinds[d] == AX_DIM_CATEGORICAL;
			if (!isfinite(v) || (cat && (v < 0 || v != floor(v))))
				return ax_errf(err, errlen, AX_EINVAL,
					       "point %zu: %s = %g is not %s",
					       i, names[d], v,
					       cat ? "a choice index"
						   : "a finite number");
		}
	return 0;
}

int ax_space_create_points(struct ax_space **out, int ndims,
			   const char *const *names,
			   const enum ax_dim_kind *kinds, const double *values,
			   size_t npoints, char *err, size_t errlen)
{
	*out = NULL;
	int rc =
	    check_values(ndims, names, kinds, values, npoints, err, errlen);
	if (rc)
		return rc;
	struct ax_space *s = calloc(1, sizeof(*s));
	if (!s)
		return AX_ENOMEM;
	s->ndims = ndims;
	for (int d = 0; d < ndims && !rc; d++) {
		struct ax_dim *dm = &s->dim[d];
		dm->param = -1;
		dm->kind = kinds ? kinds[d] : AX_DIM_AUTO;
		dm->name = strdup(names[d]);
		rc = dm->name ? explicit_levels(dm, values, npoints, ndims, d)
			      : AX_ENOMEM;
	}
	if (!rc)
		rc = set_radix(s, err, errlen);
	if (!rc && !(s->li = malloc(npoints * ndims * sizeof(uint32_t))))
		rc = AX_ENOMEM;
	if (!rc) {
		s->n = npoints;
		for (size_t i = 0; i < npoints; i++)
			for (int d = 0; d < ndims; d++)
				s->li[i * ndims + d] =
				    level_of(&s->dim[d], values[i * ndims + d]);
		rc = finish(s, err, errlen);
	}
	if (rc) {
		ax_space_destroy(s);
		return rc;
	}
	*out = s;
	return 0;
}

size_t ax_space_size(const struct ax_space *s) { return s->n; }

int ax_space_ndims(const struct ax_space *s) { return s->ndims; }

int ax_space_enc_dims(const struct ax_space *s) { return s->enc_d; }

const char *ax_space_dim_name(const struct ax_space *s, int d)
{
	return s->dim[d].name;
}

enum ax_dim_kind ax_space_dim_kind(const struct ax_space *s, int d)
{
	return s->dim[d].kind;
}

size_t ax_space_cartesian(const struct ax_space *s) { return s->cartesian; }

int ax_space_sampled(const struct ax_space *s) { return s->sampled; }

double ax_space_value(const struct ax_space *s, size_t i, int d)
{
	return s->dim[d].lev[s->li[i * s->ndims + d]];
}

const double *ax_space_encoded(const struct ax_space *s, size_t i)
{
	return s->enc + i * (size_t)s->enc_d;
}

int ax_space_point_params(const struct ax_space *s, size_t i,
			  struct ax_params *p)
{
	if (!s->defs || i >= s->n)
		return AX_EINVAL;
	li_to_params(s, s->li + i * s->ndims, p);
	return 0;
}

static long find_key(const struct ax_space *s, uint64_t key)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->keys[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->keys[lo].key == key ? (long)s->keys[lo].idx : -1;
}

long ax_space_find(const struct ax_space *s, const double *vals)
{
	uint64_t key = 0;
	for (int d = 0; d < s->ndims; d++) {
		const struct ax_dim *dm = &s->dim[d];
		const double *p = bsearch(&vals[d], dm->lev, dm->nlev,
					  sizeof(double), cmp_double);
		if (!p)
			return -1;
		key += (uint64_t)(p - dm->lev) * dm->radix;
	}
	return find_key(s, key);
}

long ax_space_find_params(const struct ax_space *s, const struct ax_params *p)
{
	double vals[AX_MAX_PARAMS];
	if (!s->defs || p->n != s->ndefs)
		return -1;
	for (int d = 0; d < s->ndims; d++)
		vals[d] = (double)p->v[s->dim[d].param];
	return ax_space_find(s, vals);
}

size_t ax_space_neighbours(const struct ax_space *s, size_t i, size_t *out,
			   size_t max)
{
	const uint32_t *li = s->li + i * s->ndims;
	uint64_t key = point_key(s, li);
	size_t found = 0;
	for (int d = 0; d < s->ndims; d++) {
		const struct ax_dim *dm = &s->dim[d];
		for (uint32_t l = 0; l < dm->nlev; l++) {
			if (l == li[d])
				continue;
			uint64_t k2 = key - li[d] * dm->radix + l * dm->radix;
			long j = find_key(s, k2);
			if (j < 0)
				continue;
			if (found < max)
				out[found] = (size_t)j;
			found++;
		}
	}
	return found;
}

int ax_space_dim_levels(const struct ax_space *s, int d, const double **lev)
{
	*lev = s->dim[d].lev;
	return (int)s->dim[d].nlev;
}

void ax_space_encode_levels(const struct ax_space *s, const uint32_t *li,
			    double *enc)
{
	encode_point(s, li, enc);
}
