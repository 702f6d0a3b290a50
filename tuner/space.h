/*
 * tuner/space.h - the search space a tuner walks: a finite list of valid
 * points, each with its raw per-dimension values and an encoding in
 * [0,1]^d for the Gaussian process.
 *
 * A space is built either from a suite's parameter table (the tunable
 * parameters, a validity predicate applied before anything is proposed) or
 * from an explicit list of points (replay of a recorded landscape).  Points
 * are addressed by index 0..ax_space_size()-1; the index is what strategies
 * propose and what callers report results for.
 *
 * Encoding, per dimension: positive values that are all powers of two (three
 * or more levels) or span a ratio of 16 or more are taken as log2; then each
 * dimension is scaled to [0,1] on its own range.  Booleans stay 0/1; true
 * categoricals (enums with three or more choices) are one-hot.  Dimensions
 * with a single level are constant and take no encoded column.
 */
#ifndef AX_TUNER_SPACE_H
#define AX_TUNER_SPACE_H

#include "core/params.h"

#include <stddef.h>
#include <stdint.h>

/* Spaces whose Cartesian product exceeds the cap are sampled, not listed. */
#define AX_SPACE_DEFAULT_CAP 262144

struct ax_space;

/* How one dimension's values are treated. */
enum ax_dim_kind {
	AX_DIM_AUTO,	    /* explicit spaces: numeric, log2 when it fits */
	AX_DIM_NUMERIC,	    /* linear numeric */
	AX_DIM_LOG2,	    /* numeric on a log2 scale (values > 0) */
	AX_DIM_BOOL,	    /* 0 / 1 */
	AX_DIM_CATEGORICAL, /* unordered: value is a choice index, one-hot */
};

/*
 * Validity predicate of a parameter point: 0 when the point may be run,
 * non-zero otherwise (optionally writing the reason into why[0..n)).
 */
typedef int (*ax_space_valid_fn)(const struct ax_params *p, void *ctx,
				 char *why, size_t n);

/*
 * Build a space over the AX_PARAM_TUNABLE parameters of defs[0..ndefs);
 * the others keep their defaults in every point.  Levels per parameter:
 * POW2 integers take the powers of two in range, integer ranges of at most
 * 64 values every integer, wider ranges 32 log-spaced integers, enums every
 * choice, booleans 0/1.  valid may be NULL (every point valid).  When the
 * Cartesian product exceeds cap (0 means AX_SPACE_DEFAULT_CAP) up to cap
 * random distinct points are drawn with the given seed instead, and
 * ax_space_sampled() says so.  On success *out is the caller's to
 * ax_space_destroy.  Errors: AX_EINVAL (no tunable parameter, no valid
 * point, a space too large to index), AX_ENOMEM; message in err.
 */
int ax_space_create_params(struct ax_space **out,
			   const struct ax_param_def *defs, int ndefs,
			   ax_space_valid_fn valid, void *ctx, size_t cap,
			   uint64_t seed, char *err, size_t errlen);

/*
 * As ax_space_create_params over base's table, with only the knobs
 * active at base (ax_param_active: a row whose `when` does not hold,
 * such as gemm's cooperative-matrix tiles for kernel=tiled, keeps its
 * default, as a non-tunable does).  What `tune` searches.
 */
int ax_space_create_case(struct ax_space **out, const struct ax_params *base,
			 ax_space_valid_fn valid, void *ctx, size_t cap,
			 uint64_t seed, char *err, size_t errlen);

/*
 * Build a space from npoints explicit points of ndims dimensions each:
 * values[i * ndims + d] is point i's value on dimension d (a choice index
 * for categorical dimensions).  names[d] are copied; kinds may be NULL
 * (all AX_DIM_AUTO).  Points must be distinct and finite.  Errors:
 * AX_EINVAL with the offending point named, AX_ENOMEM.
 */
int ax_space_create_points(struct ax_space **out, int ndims,
			   const char *const *names,
			   const enum ax_dim_kind *kinds, const double *values,
			   size_t npoints, char *err, size_t errlen);

/* Free a space; NULL is allowed. */
void ax_space_destroy(struct ax_space *s);

/* Number of (valid) points. */
size_t ax_space_size(const struct ax_space *s);

/* Raw dimensions, and columns of the encoding (<= AX_SPACE_MAX_ENC). */
int ax_space_ndims(const struct ax_space *s);
int ax_space_enc_dims(const struct ax_space *s);
#define AX_SPACE_MAX_ENC 64

/* Dimension d's name and kind after AUTO was resolved; borrowed. */
const char *ax_space_dim_name(const struct ax_space *s, int d);
enum ax_dim_kind ax_space_dim_kind(const struct ax_space *s, int d);

/* Size of the Cartesian product of the levels (saturates at SIZE_MAX),
 * and whether the points were sampled rather than enumerated. */
size_t ax_space_cartesian(const struct ax_space *s);
int ax_space_sampled(const struct ax_space *s);

/* Point i's value on dimension d (a choice index for categoricals). */
double ax_space_value(const struct ax_space *s, size_t i, int d);

/* Dimension d's distinct values, ascending, into *lev (borrowed); returns
 * how many there are. */
int ax_space_dim_levels(const struct ax_space *s, int d, const double **lev);

/* Encode an arbitrary combination of level indices li[0..ndims) (each below
 * that dimension's level count) into enc[0..ax_space_enc_dims()), whether
 * or not it is a valid point: initial designs aim at such targets. */
void ax_space_encode_levels(const struct ax_space *s, const uint32_t *li,
			    double *enc);

/* Point i's encoding: ax_space_enc_dims() doubles in [0,1]; borrowed. */
const double *ax_space_encoded(const struct ax_space *s, size_t i);

/*
 * Point i as a parameter point (spaces from ax_space_create_params only;
 * AX_EINVAL otherwise).  Non-tunable parameters hold their defaults.
 */
int ax_space_point_params(const struct ax_space *s, size_t i,
			  struct ax_params *p);

/*
 * Index of the point whose values equal vals[0..ndims), or -1.  Used to map
 * stored trials back to indices (resume) and by tests.
 */
long ax_space_find(const struct ax_space *s, const double *vals);

/*
 * Index of the point holding parameter point p's tunable values (spaces
 * from ax_space_create_params), or -1 when it is not in the space (invalid
 * on this device, or not sampled).  Maps stored trials back to indices.
 */
long ax_space_find_params(const struct ax_space *s, const struct ax_params *p);

/*
 * The valid points that differ from point i in exactly one dimension,
 * written to out[0..max); returns how many exist (may exceed max, in which
 * case only max were written).
 */
size_t ax_space_neighbours(const struct ax_space *s, size_t i, size_t *out,
			   size_t max);

#endif
