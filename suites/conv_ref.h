/*
 * suites/conv_ref.h - the CPU side of the conv suite: shape arithmetic, the
 * validity predicate, a double-precision reference and the checker.
 *
 * Everything here is pure C (no Vulkan calls), so unit tests exercise the
 * checker on hand-made buffers: a correct output passes, a corrupted one is
 * reported with the index and values of the first mismatch.  The fp16 <->
 * fp32 helpers are shared with the attention suite.
 */
#ifndef AX_CONV_REF_H
#define AX_CONV_REF_H

#include "core/params.h"
#include "core/vk.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A convolution problem; p and q (output height, width) are derived. */
struct ax_conv_shape {
	int64_t n, c, h, w, k, r, s;
	int64_t stride, pad, dil;
	int64_t p, q;
	bool nhwc; /* NHWC input/output, KRSC weights; else NCHW, KCRS */
	bool f16;  /* fp16 storage (fp32 arithmetic) */
};

/* Tile parameters of the implicit-GEMM kernel. */
struct ax_conv_tiles {
	uint32_t bm, bn, bk, tm, tn;
	uint32_t share; /* 0 smem, 1 subgroup (shaders/conv.comp) */
	uint32_t mr;	/* share=subgroup: channels per micro-tile */
};

/* What conv's parameter table binds (suites/conv.c, AX_FIELD): the
 * shape, the tiles and the two choices (nhwc and f16 follow from them). */
struct ax_conv_point {
	struct ax_conv_shape sh;
	struct ax_conv_tiles t;
	uint32_t layout, dtype;
};

/*
 * Fill s from a conv parameter point (names as in suites/conv.c).  AX_EINVAL
 * when the filter, dilated, does not fit in the padded input (why names the
 * sizes).
 */
int ax_conv_shape_from_params(const struct ax_params *p,
			      struct ax_conv_shape *s, char *why,
			      size_t whylen);
void ax_conv_tiles_from_params(const struct ax_params *p,
			       struct ax_conv_tiles *t);

/* Element counts of the input, weights and output. */
size_t ax_conv_input_count(const struct ax_conv_shape *s);
size_t ax_conv_weight_count(const struct ax_conv_shape *s);
size_t ax_conv_output_count(const struct ax_conv_shape *s);

/* 2 * N*K*P*Q * C*R*S. */
double ax_conv_flops(const struct ax_conv_shape *s);

/* Workgroup invocations and shared-memory bytes of a tiling. */
uint32_t ax_conv_invocations(const struct ax_conv_tiles *t);
size_t ax_conv_shared_bytes(const struct ax_conv_tiles *t);

/*
 * Can the kernel run s with tiles t on dev?  Checks tile divisibility,
 * invocations and workgroup size, shared memory, workgroup counts and
 * maxStorageBufferRange; AX_EINVAL with a message naming the limit, the
 * value and the fix.
 */
int ax_conv_check_limits(const struct ax_conv_shape *s,
			 const struct ax_conv_tiles *t,
			 const VkPhysicalDeviceLimits *lim, char *why,
			 size_t whylen);

/* Output element at (n, k, p, q) in double precision; *abs_sum (may be
 * NULL) gets the sum of |x * w| over the window, for the tolerance. */
double ax_conv_ref_point(const struct ax_conv_shape *s, const float *x,
			 const float *w, int64_t n, int64_t k, int64_t p,
			 int64_t q, double *abs_sum);

/* Index of output element (n, k, p, q) in the shape's layout. */
size_t ax_conv_output_index(const struct ax_conv_shape *s, int64_t n, int64_t k,
			    int64_t p, int64_t q);

/*
 * Allowed absolute error of an output whose window has abs_sum = sum |x*w|
 * and reference value ref: fp32 accumulation error grows like
 * sqrt(C*R*S) * eps32 * abs_sum (a factor of 2 on it: lavapipe's
 * worst error measures about 1/30 of that line), and fp16 storage adds
 * the rounding of the output, eps16 * |ref|.
 */
double ax_conv_tolerance(const struct ax_conv_shape *s, double ref,
			 double abs_sum);

/*
 * Compare y (the device output, converted to float) with the reference.
 * Every output is checked when the problem has at most max_macs
 * multiply-adds, otherwise an evenly spread sample of outputs plus the
 * first and last ones.  0 when all agree; AX_EVERIFY with the first
 * mismatch (index, coordinates, got, expected, tolerance) in why.
 */
int ax_conv_ref_verify(const struct ax_conv_shape *s, const float *x,
		       const float *w, const float *y, double max_macs,
		       char *why, size_t whylen);

/*
 * The output buffer of a conv suite state (from ax_suite_conv.setup), so
 * tests can overwrite an element of a correct result and prove that
 * verification fails.  Defined in suites/conv.c; borrowed.
 */
struct ax_vk_buffer *ax_conv_state_output(void *state);

/*
 * Fill dst[0..n) with deterministic values in [-1, 1) from seed; when
 * f16 is true each value is rounded to the nearest fp16 so the device and
 * the reference see exactly the same inputs.
 */
void ax_conv_fill_inputs(float *dst, size_t n, uint64_t seed, bool f16);

/* The suite's inputs for shape s: x (ax_conv_input_count floats) and w
 * (ax_conv_weight_count), in the shape's layouts, fp16-rounded when
 * s->f16.  One definition, so the GPU case and its CPU baseline
 * (suites/cpu_baseline.h) convolve the same numbers. */
void ax_conv_case_inputs(const struct ax_conv_shape *s, float *x, float *w);

/* The suite verifies every output up to this many multiply-adds, a
 * sample past it, so verification of a ResNet-sized layer stays well
 * under a second. */
#define AX_CONV_VERIFY_MACS (1 << 27)

#endif
