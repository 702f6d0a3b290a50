/*
 * core/roles.h - what a suite's results mean beyond their own chart.
 *
 * A suite declares its roles in its descriptor (suites/suite.h); cli/
 * writes them, by name, into the suite document it gives the report and
 * recommend (app/suite_doc.h), which read them there instead of knowing
 * suites by name.  One list, so both sides spell each role the same way.
 */
#ifndef AX_ROLES_H
#define AX_ROLES_H

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
	X(AX_ROLE_INGEST, 1u << 5, "ingest")

enum ax_role {
#define AX_ROLE_ENUM(name, bit, text) name = bit,
	AX_ROLES(AX_ROLE_ENUM)
#undef AX_ROLE_ENUM
};

/* The role's name in the suite document ("compute-peak"); NULL for a
 * value that is not exactly one role. */
const char *ax_role_name(enum ax_role role);

#endif
