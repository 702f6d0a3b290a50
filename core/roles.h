/*
 * core/roles.h - what a suite's results mean beyond their own chart.
 *
 * A suite declares its roles in its descriptor (suites/suite.h); app/
 * copies them, as bits, into the suite document it gives the report and
 * recommend (struct ax_suite_doc below, app/suite_doc.h), which read them
 * there instead of knowing suites by name; `suites --json` writes them by
 * name.  One list, so every side spells each role the same way.
 */
#ifndef AX_ROLES_H
#define AX_ROLES_H

#include <stdbool.h>

#define AX_ROLES(X)                                                            \
	/* best GFLOP/s: the compute ceiling (roofline, % of peak) */          \
	X(AX_ROLE_COMPUTE_PEAK, 1u << 0, "compute-peak")                       \
	/* best GB/s: the memory ceiling of the roofline */                    \
	X(AX_ROLE_BANDWIDTH_PEAK, 1u << 1, "bandwidth-peak")                   \
	/* host <-> device: recommend's upload path, chunk, buffering */       \
	X(AX_ROLE_TRANSFER, 1u << 2, "transfer")                               \
	/* time per dispatch */                                                \
	X(AX_ROLE_LATENCY, 1u << 3, "latency")                                 \
	/* a workload class recommend places on a device */                    \
	X(AX_ROLE_WORKLOAD, 1u << 4, "workload")                               \
	/* storage -> host -> device loading: recommend's readers, chunk,   */ \
	/* prefetch depth and I/O mode, before any transfer figure          */ \
	X(AX_ROLE_INGEST, 1u << 5, "ingest")                                   \
	/* a sweep of arithmetic intensity: the measured roofline and its   */ \
	/* ridge point (reports/roofline.h)                                 */ \
	X(AX_ROLE_ROOFLINE, 1u << 6, "roofline")                               \
	/* host memory read in place against staged copies, per access     */  \
	/* pattern: recommend's zero-copy verdict                           */ \
	X(AX_ROLE_ZEROCOPY, 1u << 7, "zerocopy")                               \
	/* device -> device copies: the report's device x device matrix     */ \
	X(AX_ROLE_D2D, 1u << 8, "d2d")

enum ax_role {
#define AX_ROLE_ENUM(name, bit, text) name = bit,
	AX_ROLES(AX_ROLE_ENUM)
#undef AX_ROLE_ENUM
};

/* The role's name in the suite document ("compute-peak"); NULL for a
 * value that is not exactly one role. */
const char *ax_role_name(enum ax_role role);

/* A chart of the median against one numeric parameter, one line per
 * combination of the group parameters. */
struct ax_suite_curve {
	const char *x;		  /* numeric parameter on the x axis (a byte
				     count: the axis is drawn in bytes) */
	const char *const *group; /* NULL-terminated; may be NULL */
	const char *title;	  /* "Bandwidth against working-set size" */
	const char *x_label;	  /* "working set (bytes)" */
};

/* recommend needs results at `distinct` values of param (NULL: at least
 * one result) on a device before its rules for this suite apply. */
struct ax_suite_need {
	const char *param;
	int distinct;
};

/*
 * What the report and recommend know of a suite, from its descriptor
 * (app/suite_doc.h builds the table; reports/suite_doc.h reads it): plain
 * data, so reports/ never sees suites/, whose descriptors carry Vulkan
 * hooks.  Every pointer is the descriptor's (static).
 */
struct ax_suite_info {
	const char *name, *unit;
	bool higher_is_better;
	unsigned roles;			    /* enum ax_role bits */
	const char *batch_param;	    /* NULL: none */
	const struct ax_suite_curve *curve; /* NULL: none */
	const struct ax_suite_need *needs;  /* {NULL, 0}-terminated; NULL:
					       recommend reads nothing */
};

/* Every suite, in the order `axbench suites` lists them. */
struct ax_suite_doc {
	const struct ax_suite_info *v;
	int n;
};

#endif
