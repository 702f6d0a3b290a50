/*
 * core/config.h - YAML in and out: run profiles, and a generic bridge
 * between YAML text and jansson documents (DESIGN section 8).
 *
 * The only module that includes yaml.h.  core/ must not see suites/, so
 * the caller passes the schema: one struct ax_config_schema per suite,
 * naming the suite and its parameter table.
 *
 * Run profile format (schema axbench.profile/v1):
 *
 *   schema: axbench.profile/v1    # required, this exact string
 *   name: quick                   # optional, defaults to the file name
 *   description: "..."            # optional free text
 *   device: null                  # optional device selector (string)
 *   measure:                      # optional; every key optional
 *     min_samples: 5              # integer 1..1000000
 *     max_samples: 30             # integer 1..1000000, >= min_samples
 *     max_noise_pct: 3            # number, > 0 and <= 100
 *     min_time_s: 0.02            # number 0..86400
 *     max_time_s: 2               # number > 0 .. 86400, >= min_time_s
 *     timeout_s: 10               # number > 0 .. 86400 (per dispatch)
 *     warmup: 2                   # integer 0..10000
 *     mode: batch                 # batch or cold
 *   suites:                       # required, at least one suite
 *     bandwidth:
 *       params:                   # name: value, [list], "a,b" or "LO..HI"
 *         op: [read, write, copy]
 *         size: 64K..16M          # doubles: 64K, 128K, ... 16M
 *     gemm:
 *       cases:                    # explicit points
 *         - {m: 256, n: 256, k: 256}
 *         - {m: 1000, n: 1000, k: 37}
 *
 * A suite entry is either null (`gemm:` alone: one case, all defaults) or
 * a mapping with `params` and/or `cases`.  Every value may be a scalar, a
 * sequence of scalars, or a scalar string holding "a,b,c" or "LO..HI"
 * (core/params.h ax_param_parse_list).  The cases of a suite are: for
 * each entry of `cases` (or one empty entry when there is none), `params`
 * overlaid with that entry's keys, then the cartesian product of every
 * list; parameters named nowhere keep their defaults.  Repeated points are
 * dropped, first occurrence kept, in file order.  A profile may expand to
 * at most AX_CONFIG_MAX_CASES cases in all.
 *
 * Every error is "FILE:LINE:COL: what is wrong; what is allowed", 1-based,
 * pointing at the offending key or value, and the return is AX_ECONFIG
 * (AX_EIO when the file cannot be read, AX_ENOMEM when memory runs out).
 * YAML aliases (*name) are refused in profiles: they buy nothing in a
 * profile and are the vector of exponential "billion laughs" blow-ups.
 * Duplicate keys are refused, since YAML leaves their meaning undefined.
 */
#ifndef AX_CONFIG_H
#define AX_CONFIG_H

#include "core/params.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define AX_CONFIG_SCHEMA "axbench.profile/v1"
#define AX_CONFIG_MAX_CASES 10000
#define AX_CONFIG_MAX_BYTES (4 << 20) /* larger files are refused */
/* The YAML -> JSON bridge stops after this many values, so a document
 * whose aliases expand exponentially fails instead of eating memory. */
#define AX_CONFIG_MAX_NODES 1000000

/* One suite as the profile loader sees it: its name and parameter table
 * (both borrowed, normally static data of suites/). */
struct ax_config_schema {
	const char *suite;
	const struct ax_param_def *params;
	int n_params;
};

/* Bits of struct ax_config_measure.set: which settings the profile gave,
 * so that command-line options can override and defaults fill the rest. */
enum ax_config_measure_bit {
	AX_MEASURE_MIN_SAMPLES = 1u << 0,
	AX_MEASURE_MAX_SAMPLES = 1u << 1,
	AX_MEASURE_MAX_NOISE = 1u << 2,
	AX_MEASURE_MIN_TIME = 1u << 3,
	AX_MEASURE_MAX_TIME = 1u << 4,
	AX_MEASURE_TIMEOUT = 1u << 5,
	AX_MEASURE_WARMUP = 1u << 6,
	AX_MEASURE_MODE = 1u << 7,
};

/* Mirrors suites/runner.h enum ax_run_mode, which core/ cannot see. */
enum ax_config_mode {
	AX_CONFIG_MODE_BATCH, /* back-to-back dispatches */
	AX_CONFIG_MODE_COLD,  /* cache scrub before every sample */
};

/* Measurement settings; a field is meaningful only when its bit is set.
 * max_noise_pct is in percent (the runner's max_noise is a fraction). */
struct ax_config_measure {
	unsigned set; /* enum ax_config_measure_bit */
	int min_samples, max_samples, warmup;
	double max_noise_pct, min_time_s, max_time_s, timeout_s;
	enum ax_config_mode mode;
};

/* A 1-based place in the profile file. */
struct ax_config_pos {
	int line, col;
};

/* The concrete cases of one suite, in the order the profile lists them. */
struct ax_config_suite {
	const struct ax_config_schema *schema; /* borrowed from the caller */
	int n_cases;
	struct ax_params *cases; /* owned by the struct ax_config */
	/* Where each case came from (its `cases` entry, else `params`,
	 * else the suite's key), for messages about a case; owned. */
	struct ax_config_pos *pos;
	int line;		      /* 1-based position of the suite's key */
	struct ax_config_pos pos_key; /* the suite's key, line and column */
};

struct ax_config {
	char *path;	   /* as given to the loader */
	char *name;	   /* `name`, else the file's base name sans .yaml */
	char *description; /* NULL when absent */
	char *device;	   /* NULL when absent or null */
	struct ax_config_measure measure;
	int n_suites; /* in file order */
	struct ax_config_suite *suites;
	int n_cases; /* sum over suites */
};

/*
 * Load and validate the profile at path against schema[0..n_schema).
 * On success *out is a new profile, the caller's to ax_config_destroy.
 * On failure *out is NULL and err holds "PATH:LINE:COL: message" (or
 * "PATH: message" when no position applies).
 */
int ax_config_load(const char *path, const struct ax_config_schema *schema,
		   int n_schema, struct ax_config **out, char *err,
		   size_t errlen);

/* As ax_config_load, from text[0..len); name stands for the path in
 * messages and in cfg->path. */
int ax_config_parse(const char *text, size_t len, const char *name,
		    const struct ax_config_schema *schema, int n_schema,
		    struct ax_config **out, char *err, size_t errlen);

/* Free a profile; NULL is allowed. */
void ax_config_destroy(struct ax_config *cfg);

/* The suite called name in cfg, or NULL. */
const struct ax_config_suite *ax_config_suite(const struct ax_config *cfg,
					      const char *name);

/*
 * The profile as a JSON object for the run row's config column:
 * {"schema", "name", "path", "device", "measure": {only the set keys},
 *  "suites": {NAME: {"cases": N}}}.  New reference, NULL on no memory.
 */
json_t *ax_config_to_json(const struct ax_config *cfg);

/* ---- generic YAML <-> JSON bridge ------------------------------------ */

/*
 * Write doc as one YAML document to out: block style, object keys in the
 * document's order, null as `null`, booleans and numbers plain, strings
 * plain unless a YAML 1.1 or 1.2 reader would take them for something
 * else (null, a boolean, a number, a date) or they need quoting, in
 * which case they are double-quoted.  Real numbers are written in the
 * shortest form that reads back exactly.  Returns 0, AX_EINVAL for a
 * value YAML cannot hold (NaN) or AX_EIO when writing fails.
 */
int ax_config_emit_yaml(const json_t *doc, FILE *out);

/* As ax_config_emit_yaml, into a malloc'd NUL-terminated string. */
int ax_config_emit_yaml_string(const json_t *doc, char **out);

/*
 * Read the single YAML document at path as JSON: mappings become objects
 * (keys must be scalars and unique), sequences arrays; plain scalars
 * resolve by the YAML 1.2 core schema (null, ~ and empty -> null,
 * true/false, integers incl. 0x/0o, floats; .inf/.nan are refused since
 * JSON cannot hold them), quoted and block scalars are strings.  Aliases
 * are expanded, but no more than AX_CONFIG_MAX_NODES values in all.  On
 * error *out is NULL and err holds "PATH:LINE:COL: message"; AX_ECONFIG
 * (AX_EIO when unreadable).  *out is a new reference.
 */
int ax_config_load_yaml_json(const char *path, json_t **out, char *err,
			     size_t errlen);

/* As ax_config_load_yaml_json, from text[0..len); name is for messages. */
int ax_config_parse_yaml_json(const char *text, size_t len, const char *name,
			      json_t **out, char *err, size_t errlen);

/* ---- shared by core/config*.c ---------------------------------------- */

/* Read the whole file at path, at most AX_CONFIG_MAX_BYTES, into a
 * malloc'd NUL-terminated buffer (the caller's to free), through
 * core/infile.h.  AX_EIO with "PATH: reason" when unreadable, AX_ECONFIG
 * when too large or not a regular file (a FIFO is never waited on). */
int ax_config_read_file(const char *path, char **text, size_t *len, char *err,
			size_t errlen);

#endif
