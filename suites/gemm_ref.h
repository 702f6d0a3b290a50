/*
 * suites/gemm_ref.h - CPU side of the gemm suite: input data, fp16
 * conversion, and the checker that compares a device's C with a
 * double-precision reference.
 *
 * Kept apart from suites/gemm.c (which talks to Vulkan) so the checker
 * is unit-tested on host data alone, corrupted buffers included.
 */
#ifndef AX_GEMM_REF_H
#define AX_GEMM_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One problem: batch x (C[m x n] = op(A) * op(B)), all row-major.
 * A is m x k (k x m when trans_a), B is k x n (n x k when trans_b). */
struct ax_gemm_shape {
	uint32_t m, n, k, batch;
	bool trans_a, trans_b;
	bool f16; /* storage is float16 (C rounded to it), accumulation fp32 */
	/* kernel=coopmat: accumulation in float16 (acc=f16), and additions
	 * that may round toward zero, as tensor cores' do (their fp32
	 * accumulation is not round-to-nearest: each block of products is
	 * aligned to its largest exponent and truncated). */
	bool acc16, trunc_acc;
};

/* Products m*n*k*batch up to this are verified element by element;
 * larger ones on sampled rows and columns plus row/column checksums. */
#define AX_GEMM_FULL_CHECK_MAX (1ull << 26)

/* n pseudo-random values j/512 - 1 (j < 1024) from seed: exactly
 * representable in float16, so both dtypes multiply the same numbers. */
void ax_gemm_fill(float *dst, size_t n, uint64_t seed);

/* The suite's inputs for shape s: A (batch*m*k floats) and B
 * (batch*k*n), in the layouts of struct ax_gemm_shape.  One definition,
 * so the GPU case and its CPU baseline (suites/cpu_baseline.h) multiply
 * the same numbers. */
void ax_gemm_case_inputs(const struct ax_gemm_shape *s, float *a, float *b);

/*
 * Compare c (batch * m * n floats, as read back and widened) with
 * a * b computed in double.  Per element the tolerance is
 * min(k, 8 sqrt(k)) * u * sum|a||b| (the accumulation error, worst case
 * for short k, a generous random-walk bound for long k), plus 2^-11 |c|
 * for float16 output rounding.  u is the unit roundoff of the adder:
 * 2^-24 for fp32, 2^-23 for fp32 that truncates (trunc_acc), 2^-10 for
 * float16 accumulation (acc16; 2^-11 doubled for truncation too).  Returns 0,
 * or AX_EVERIFY with the first mismatch (batch, row, column, values, tolerance)
 * in why. *sampled is set when the shape was too big for a full check.
 */
int ax_gemm_check(const struct ax_gemm_shape *s, const float *a, const float *b,
		  const float *c, bool *sampled, char *why, size_t whylen);

/*
 * The device buffer holding C of a gemm suite state (from
 * ax_suite_gemm.setup), borrowed: tests overwrite one element after a
 * correct run to prove a wrong output is reported as failed.
 */
struct ax_vk_buffer;
struct ax_vk_buffer *ax_gemm_state_output(void *state);

#endif
