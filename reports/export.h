/*
 * reports/export.h - tuned kernel configurations out of the database as a
 * versioned document, and that document read back for `run --tuned`.
 *
 * Document (schema axbench.tuned/v1), YAML or JSON:
 *
 *   schema: axbench.tuned/v1
 *   generated_by: axbench 0.1.0
 *   devices:
 *     - fingerprint: 3f2a...          # stable identity (core/vk.h)
 *       name, vendor, type, driver_name, driver_info,
 *       api_version ("1.3.230"), device_uuid, pci_bus_id, and
 *       vendor_id, device_id, driver_version (text), the packed
 *       api_version_packed / driver_version_packed where the database
 *       gives them (docs/JSON.md)
 *       suites:
 *         gemm:
 *           - shape: {m: 256, n: 256, k: 256}   # every non-tunable one
 *             tuned: {tile_m: 64, ...}          # the AX_PARAM_TUNABLE ones
 *             params: {...}                     # the whole point
 *             choice: tuned | defaults
 *             reason: "..."                     # why that choice
 *             value: 123.4 | null               # median, as stored
 *             unit: GFLOP/s
 *             higher_is_better: true
 *             default_value: 98.1 | null        # the defaults, measured
 *             speedup: 1.258 | null             # only for choice: tuned
 *             speedup_reason: "..."             # only when speedup is null
 *             speedup_lo: 1.18 | null           # the paired interval (95 %)
 *             speedup_hi: 1.31 | null           # of speedup, and the rounds
 *             rounds: 20 | null                 # behind it; null unless the
 *                                               # point won a paired
 *                                               # measurement
 *             interval_reason: "..."            # a tuned point without one
 *             evidence: {verdict: faster, threshold, p_value,
 *                        improvement, improvement_lo, improvement_hi,
 *                        method: paired | samples, rounds, level,
 *                        run_id, default_result_id, tuned_result_id}
 *                                               # only for choice: tuned
 *             result_id, result_uuid, run_id, run_uuid, date
 *                                               # of the exported point's
 *                                               # result; null if none
 *             session_id: 7 | null              # tuning session, if any
 *   skipped: [{result_id, suite, reason}]       # results left out, and why
 *
 * Booleans are YAML booleans; enums are their names.
 *
 * The choice (so that using the document never makes things slower): a
 * tuned point is exported only when it was measured beside the defaults
 * -- in the same run, on the same device and shape, both fully sampled
 * (tuning trials, role "trial", are sampled lightly and never count) --
 * and compare's statistics (reports/compare.h: Mann-Whitney U, the
 * Hodges-Lehmann shift's confidence interval and the minimum effect) call
 * it "faster" than those defaults.  Where the point and the defaults were
 * measured in paired rounds (extra.pair: `tune` measures its verdict so),
 * compare's rules apply to the paired speed-up's interval instead
 * (reports/compare_paired.h): tuned only when its lower end clears the
 * threshold, and in such a run only the paired point counts.  Results
 * stored before pairing keep the sample rule, and their speed-up (a
 * ratio of medians) has no interval.  Of several such points the largest
 * improvement wins.  Otherwise the entry holds the defaults at that shape
 * (choice: defaults) and the reason.  Parameters identical to the
 * defaults are never a speed-up.  Failed, skipped or unverified results
 * never count.
 *
 * A shape whose newest tuning session was tuned for time and energy
 * (`tune --objective time,energy`) is chosen from that session's stored
 * Pareto front, re-timed beside the defaults in one run: the point
 * `--pick` names is exported as tuned when it is not the defaults and
 * beats them by the margin of what it was picked for -- fastest: 2 % less
 * time per repetition; least-energy: 5 % less energy (compare's energy
 * margin); knee: either -- else the defaults, with the reason.  The entry
 * says `pick`.
 */
#ifndef AX_EXPORT_H
#define AX_EXPORT_H

#include "core/config.h"
#include "core/db_rows.h"
#include "core/params.h"
#include "reports/compare.h"

#include <jansson.h>
#include <stddef.h>

#define AX_EXPORT_SCHEMA "axbench.tuned/v1"

/* One --shapes filter: SUITE[:NAME=VALUE[,NAME=VALUE...]], every NAME a
 * shape (non-tunable) parameter of SUITE, values as `-p` takes them. */
struct ax_export_shape {
	const struct ax_config_schema *suite; /* borrowed */
	struct ax_params want;
	bool named[AX_MAX_PARAMS]; /* which values of want must match */
};

/* Parse text into *out against schema.  AX_EINVAL with a message naming
 * the filter, the rule and the fix. */
int ax_export_shape_parse(const char *text,
			  const struct ax_config_schema *schema, int n_schema,
			  struct ax_export_shape *out, char *err,
			  size_t errlen);

/* Which point of a time-and-energy session's Pareto front to export
 * (`export --pick`): the knee (the default), the fastest, or the one
 * drawing the least energy. */
enum ax_export_pick {
	AX_PICK_KNEE = 0,
	AX_PICK_FASTEST,
	AX_PICK_LEAST_ENERGY,
};
/* "knee", "fastest", "least-energy" (NULL-terminated, enum order). */
const char *const *ax_export_picks(void);

struct ax_export_opts {
	const struct ax_export_shape *shapes;  /* a result is exported when */
	int n_shapes;			       /* it matches one; none: all */
	const struct ax_compare_opts *compare; /* NULL: compare's defaults */
	bool tuned_only; /* leave out the shapes that keep their defaults */
	enum ax_export_pick pick; /* of a time,energy session's front */
};

/* What export chose for one shape (an entry of the document), to be
 * said to the person running it. */
struct ax_export_choice {
	const char *suite;  /* borrowed from the schema */
	const char *device; /* the device's name, borrowed from the results
			       (NULL: none stored) */
	char *shape;	    /* the shape, as compact JSON */
	bool tuned;	    /* choice: tuned (else defaults) */
	double speedup;	    /* over the defaults; NAN: none */
	double speedup_lo;  /* its paired interval; NAN: none (not */
	double speedup_hi;  /* measured in paired rounds) */
	int rounds;	    /* paired rounds behind it; 0: none */
	char *reason;	    /* the entry's reason */
	bool left_out;	    /* not in the document (tuned_only) */
};

/* The document and its choices, in the document's order. */
struct ax_export_out {
	json_t *doc;
	struct ax_export_choice *choices;
	size_t n;
};

/*
 * Build the document from results (core/db_rows.h, read with samples:
 * the choice is made from them) and sessions (or NULL), knowing each
 * suite's parameter table from schema[0..n_schema).  opts may be NULL.
 * Results of suites the schema lacks, or whose parameters no longer
 * parse, go to `skipped`.  generator is the `generated_by` text.  *out
 * is the caller's to ax_export_out_free (its choices borrow from schema
 * and results, which must outlive it).  AX_EINVAL with a message when
 * results is NULL.
 */
int ax_export_build(const struct ax_db_results *results,
		    const struct ax_db_sessions *sessions,
		    const struct ax_config_schema *schema, int n_schema,
		    const struct ax_export_opts *opts, const char *generator,
		    struct ax_export_out *out, char *err, size_t errlen);
void ax_export_out_free(struct ax_export_out *o);

/* One tuned point read back. */
struct ax_tuned_entry {
	char *fingerprint;		      /* device it was tuned on */
	const struct ax_config_schema *suite; /* borrowed from the caller */
	struct ax_params params;	      /* the whole point */
	double value;			      /* the figure it measured */
	char *unit;
	/* choice: defaults - no tuned point beat the defaults, so params
	 * are the defaults (run --tuned says so rather than "tuned") */
	bool defaults;
};

struct ax_tuned {
	int n;
	struct ax_tuned_entry *entries; /* in document order */
};

/*
 * Read an export document (YAML or JSON) at path, validating it against
 * schema.  Errors name the file and the place: "FILE: devices[0].suites.
 * gemm[2].params: tile_m must be ..." (AX_ECONFIG), or carry the YAML
 * position for syntax errors.  *out is the caller's to destroy.
 */
int ax_export_load_tuned(const char *path,
			 const struct ax_config_schema *schema, int n_schema,
			 struct ax_tuned **out, char *err, size_t errlen);

/* As ax_export_load_tuned, from a document already parsed (name is used
 * in messages): read once into a typed form, then checked in document
 * order. */
int ax_export_tuned_from_json(const json_t *doc, const char *name,
			      const struct ax_config_schema *schema,
			      int n_schema, struct ax_tuned **out, char *err,
			      size_t errlen);

void ax_export_tuned_destroy(struct ax_tuned *t);

/*
 * Find the entry for device fingerprint (NULL: any device, first match
 * wins), suite and p's point with every non-tunable parameter equal, and
 * copy its tunable values into p.  Returns the entry, or NULL (p left
 * alone) when there is none.
 */
const struct ax_tuned_entry *ax_export_tuned_apply(const struct ax_tuned *t,
						   const char *fingerprint,
						   const char *suite,
						   struct ax_params *p);

#endif
