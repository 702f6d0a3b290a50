/*
 * suites/suite.h - what a benchmark suite is (DESIGN section 4).
 *
 * A suite is a `const struct ax_suite` in its own suites/<name>.c, listed by
 * hand in suites/registry.c.  Its parameter table drives config validation,
 * `axbench suites NAME` and the tuner's search space.  The runner
 * (suites/runner.h) owns every timing loop; a suite only sets up buffers and
 * pipelines, records (or performs) one repetition of its work, and verifies
 * the output against a CPU reference.
 *
 * Lifecycle for one case (one fully specified parameter point):
 *   check -> setup -> [record | host_op] (warm-up) -> verify -> timed
 *   repetitions -> teardown.
 * A result that fails verification is stored as failed and never reported
 * as a speed.
 *
 * Adding a suite: its shader, its one .c file (the descriptor, whose
 * parameter table binds each knob once: AX_KNOB in core/params.h) and one
 * line in registry.c, plus its tests and profile lines (the recipe in
 * docs/ARCHITECTURE.md); nothing in reports/ changes.
 */
#ifndef AX_SUITE_H
#define AX_SUITE_H

#include "core/params.h"
#include "core/roles.h"
#include "core/vk.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

enum ax_metric {
	AX_METRIC_RATE, /* value = work / seconds / scale (GB/s, GFLOP/s) */
	AX_METRIC_TIME, /* value = seconds * scale (us per repetition) */
};

struct ax_suite {
	const char *name;
	const char *summary;	/* one line */
	const char *work_model; /* how work is counted, shown in `suites` */
	/* Rules between parameters that every point must meet, on any
	 * device (check() enforces them; `suites NAME` shows this text, one
	 * rule a line).  NULL when there are none beyond each parameter's
	 * own range and the device's limits. */
	const char *constraints;
	const char *unit; /* "GB/s", "GFLOP/s", "us" */
	enum ax_metric metric;
	double scale; /* see enum ax_metric */
	bool higher_is_better;

	const struct ax_param_def *params;
	int n_params;
	/* sizeof the struct that the table's AX_FIELD / AX_KNOB rows bind
	 * into (ax_params_store); 0 when no row is bound. */
	size_t config_size;

	/*
	 * Is the point possible on this device?  Runs before anything is
	 * built.  Return 0, or AX_EINVAL (impossible point: shared memory,
	 * invocations, divisibility, buffer ranges; why names the limit and
	 * the value) or AX_EUNSUPPORTED (feature missing, e.g. fp16: the
	 * case is stored as skipped with the reason).  May be NULL.
	 */
	int (*check)(const struct ax_params *p,
		     const struct ax_vk_device_info *dev, char *why,
		     size_t whylen);

	/* Allocate buffers, fill inputs, build pipelines.  *state is the
	 * suite's; on failure everything is released by setup itself. */
	int (*setup)(struct ax_vk_ctx *vk, const struct ax_params *p,
		     void **state, char *err, size_t errlen);

	/*
	 * GPU-timed suites: record `reps` back-to-back repetitions of the
	 * measured work into cb (with barriers between repetitions where
	 * they depend on each other).  NULL for host-timed suites.
	 */
	void (*record)(void *state, VkCommandBuffer cb, uint32_t reps);

	/*
	 * Host-timed suites (transfers that involve the CPU): perform one
	 * repetition synchronously, including waiting for the GPU.  The
	 * runner times it with a monotonic clock.  NULL when record is set.
	 */
	int (*host_op)(void *state, char *err, size_t errlen);

	/*
	 * Suites with both kinds of timing (latency: mode=dispatch is
	 * GPU-timed, mode=roundtrip host time of submit -> fence): true
	 * when point p is timed by host_op, false for record.  Set only
	 * with both record and host_op; NULL otherwise.
	 */
	bool (*host_timed)(const struct ax_params *p);

	/*
	 * Host-timed suites: called before every repetition, outside the
	 * timed span (ingest drops the page cache for a cold read here).
	 * When set, the runner times each repetition on its own and sums
	 * the spans.  May be NULL.
	 */
	int (*host_prepare)(void *state, char *err, size_t errlen);

	/* Compare the output of the last repetition with a CPU reference.
	 * 0 when correct, AX_EVERIFY with the first mismatch in why. */
	int (*verify)(void *state, char *why, size_t whylen);

	/* Work units (bytes or FLOPs) of one repetition. */
	double (*work)(const struct ax_params *p);

	/* Bytes one repetition must move between the processor and its
	 * memory (the compulsory traffic: a roofline's arithmetic intensity
	 * is work / bytes).  Stored with each result.  May be NULL. */
	double (*bytes)(const struct ax_params *p);

	/* Batched workloads: bytes of one batch's input, what a data
	 * loader uploads per step (recommend's loader threads).  Stored
	 * with each result.  NULL for the others. */
	double (*input_bytes)(const struct ax_params *p);

	/* What the results mean to the report and recommend: AX_ROLE_*
	 * flags (core/roles.h). */
	unsigned roles;
	/* The parameter that is the batch size (recommend's batch sweep),
	 * or NULL. */
	const char *batch_param;
	/* The report's curve for this suite, or NULL. */
	const struct ax_suite_curve *curve;
	/* What recommend reads: {NULL, 0}-terminated, or NULL when it reads
	 * nothing of this suite (recommend --measure measures what is
	 * missing of these). */
	const struct ax_suite_need *recommend_needs;

	/* Name of the embedded shader the point uses, for the shader hash;
	 * NULL when it uses none (copy commands).  May be NULL. */
	const char *(*shader)(const struct ax_params *p);

	/* Suites that build their shader at set-up (user kernels): the
	 * hash of the SPIR-V the case runs, read after setup.  NULL for
	 * the others, whose shader() names an embedded one. */
	const char *(*spirv_hash)(void *state);

	/* Optional facts worth keeping with the result (queue used,
	 * fallbacks, workgroups): a new JSON object, the caller's to
	 * release, or NULL.  May be NULL. */
	json_t *(*describe)(void *state);

	/*
	 * Points whose samples are a latency distribution (model layers'
	 * scenario=single|server): each sample one repetition, at least
	 * the returned number of them whatever the noise, and the result's
	 * extra gains "latency" (p50/p90/p99 of the repetitions).  0 for a
	 * point sampled as usual.  May be NULL.
	 */
	int (*latency_passes)(const struct ax_params *p);

	/*
	 * Measurement after the timed samples, outside them, on the same
	 * state (model layers: each kernel timed alone for the glue
	 * overhead; the server scenario's rate search).  seconds[0..n) are
	 * the samples' seconds per repetition; what it finds goes into
	 * extra (the result's JSON object).  A failure fails the case with
	 * err.  May be NULL.
	 */
	int (*after)(void *state, const struct ax_params *p,
		     const double *seconds, int n, json_t *extra, char *err,
		     size_t errlen);

	/* Release everything setup made.  Called even when the context was
	 * lost (vk->lost): ax_vk_buffer_destroy / ax_vk_pipeline_destroy are
	 * no-ops then, and a suite destroying Vulkan objects itself must
	 * skip them, freeing only host memory. */
	void (*teardown)(struct ax_vk_ctx *vk, void *state);
};

/*
 * The specialization constants of p: one per row bound with AX_SPEC /
 * AX_KNOB, in table order, into out (room for AX_MAX_PARAMS); returns how
 * many.  A suite appends the constants it derives (not knobs) after them.
 * Every pipeline of a suite gets them all: an id its shader does not
 * declare is ignored (VkSpecializationInfo), so the ids of one table are
 * unique across the suite's shaders.
 */
int ax_suite_spec(const struct ax_params *p, struct ax_vk_spec *out);

/*
 * The sg_size knob, one row for every suite that has it: the subgroup
 * size its pipelines require (AX_VK_SPEC_SUBGROUP_SIZE), 0 for the
 * driver's choice.  The levels are every size Vulkan allows; the suite's
 * check refuses (AX_EINVAL, a device limit: sweeps skip such a point and
 * the tuner never proposes it) those the device cannot require, through
 * ax_suite_check_subgroup_size.  On a device with one size (lavapipe: 8)
 * the knob has two points, 0 and that size, which build the same code.
 * WHEN: the row's condition (core/params.h), NULL for none.
 */
extern const int64_t ax_suite_sg_sizes[];
#define AX_SUITE_SG_SIZES 9
#define AX_SUITE_SG_SIZE_PARAM(T, F, WHEN)                                     \
	{                                                                      \
		"sg_size", AX_PT_INT, 0, 128, NULL, 0, AX_PARAM_TUNABLE,       \
		    "subgroup size the pipeline requires "                     \
		    "(VK_EXT_subgroup_size_control;"                           \
		    " 0: the driver's choice): a power of two in the "         \
		    "device's "                                                \
		    "minSubgroupSize..maxSubgroupSize (axbench devices)",      \
		    ax_suite_sg_sizes, AX_SUITE_SG_SIZES,                      \
		    AX_KNOB(T, F, AX_VK_SPEC_SUBGROUP_SIZE), .when = WHEN      \
	}

/* AX_EINVAL naming suite, the size and the sizes dev can require, unless
 * size is 0 or one of them and a workgroup of `invocations` fits in
 * size x maxComputeWorkgroupSubgroups (a limit of required sizes). */
int ax_suite_check_subgroup_size(const char *suite, uint32_t size,
				 uint64_t invocations,
				 const struct ax_vk_device_info *dev, char *why,
				 size_t whylen);

/*
 * Is s a descriptor the runner, the report and recommend can rely on?
 * Name, unit and summary given; hooks that come together (setup and
 * teardown, verify, work; record or host_op, not both; host_prepare only
 * with host_op; spirv_hash only without shader); a positive scale; the
 * parameter table (ax_param_table_check against config_size); the
 * parameters that batch_param, curve and recommend_needs name exist; and
 * each role's contract (ax_role_params: transfer and ingest name the
 * parameters recommend reads).  AX_EINVAL "suite NAME: rule" otherwise.
 */
int ax_suite_validate(const struct ax_suite *s, char *err, size_t errlen);

#endif
