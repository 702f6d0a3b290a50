/*
 * core/params.h - typed, named parameters of a suite.
 *
 * One table of struct ax_param_def per suite drives everything that talks
 * about parameters: `-p name=value` parsing, YAML profile validation,
 * `axbench suites NAME` help, the canonical JSON stored with each result and
 * the tuner's search space.  A point in that space is a struct ax_params:
 * one int64 per definition (an integer, an enum's choice index, or 0/1).
 */
#ifndef AX_PARAMS_H
#define AX_PARAMS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AX_MAX_PARAMS 32
#define AX_SWEEP_MAX 4096 /* values in one -p list or range */

enum ax_param_type {
	AX_PT_INT,  /* integer in [min, max] */
	AX_PT_ENUM, /* one of choices[], stored as its index */
	AX_PT_BOOL, /* 0 or 1 */
	AX_PT_TEXT, /* free text (a file path): choices[0] is the default
		       text; values are interned (see ax_param_text) */
};

/* Longest text an AX_PT_TEXT parameter takes. */
#define AX_PARAM_TEXT_MAX 1024

enum ax_param_flag {
	AX_PARAM_TUNABLE = 1u << 0, /* a knob the tuner may turn */
	AX_PARAM_SHAPE = 1u << 1,   /* problem size: results are per shape */
	AX_PARAM_POW2 = 1u << 2,    /* INT restricted to powers of two */
	AX_PARAM_BYTES = 1u << 3,   /* INT is a byte count: K/M/G suffixes */
};

struct ax_param_def {
	const char *name;
	enum ax_param_type type;
	int64_t min, max;	    /* INT only: inclusive range */
	const char *const *choices; /* ENUM only: NULL-terminated */
	int64_t def;		    /* default value / choice index / 0-1 */
	unsigned flags;		    /* enum ax_param_flag bits */
	const char *help;
	/* INT only, may be NULL: the only values allowed, ascending, which
	 * are also the tuner's levels (a user kernel's `values: [8, 16,
	 * 48]`); min and max must still bound them.  Last, so that the
	 * suites' positional tables need not name them. */
	const int64_t *values;
	int n_values;
	/* A tunable that only one kernel of the suite reads, or NULL: "NAME=
	 * CHOICE", a knob only where the enum or bool parameter NAME (never
	 * itself tunable) is CHOICE, as gemm's cooperative-matrix tiles are
	 * knobs of kernel=coopmat alone.  Elsewhere the row keeps its
	 * default and stays out of the tuner's space (ax_param_active), so
	 * one kernel's space is not multiplied by another's knobs.
	 * Designated (.when =), after the positional fields. */
	const char *when;
	/* Built-in suites bind each row once (AX_FIELD, AX_KNOB): where the
	 * value goes in the suite's config struct (ax_params_store) and the
	 * specialization constant it sets (the suites' generic packing).
	 * Unbound: field.size 0, spec.set false. */
	struct ax_param_field {
		size_t offset, size; /* size 1 (bool), 4 or 8 bytes */
	} field;
	struct ax_param_spec {
		bool set;
		uint32_t id; /* the shader's layout(constant_id = id) */
	} spec;
};

/*
 * A row's bindings, written after its help text: AX_FIELD(T, F) stores the
 * value in field F of struct T; AX_SPEC(ID) sets the specialization
 * constant ID; AX_KNOB(T, F, ID) does both.  A bool field gets 0 or 1, a 4-byte
 * field the value as uint32_t (an enum's choice index), an 8-byte one as
 * int64_t; an AX_PT_TEXT row's field is a const char * (ax_param_text's
 * pointer).
 */
#define AX_FIELD(T, F) .field = {offsetof(T, F), sizeof(((T *)0)->F)}
#define AX_SPEC(ID) .spec = {true, (ID)}
#define AX_KNOB(T, F, ID) AX_FIELD(T, F), AX_SPEC(ID)

struct ax_params {
	const struct ax_param_def *defs; /* borrowed, static tables */
	int n;
	int64_t v[AX_MAX_PARAMS];
	/* Bit i: v[i] is the user's choice (-p, a profile, a stored
	 * point), not a default, so per-device defaults leave it alone
	 * (core/defaults.h).  Values alone decide equality. */
	uint32_t given;
};

/* Fill p with the defaults of defs[0..n).  n must be <= AX_MAX_PARAMS. */
void ax_params_init(struct ax_params *p, const struct ax_param_def *defs,
		    int n);

/* Index of the parameter called name, or -1. */
int ax_params_find(const struct ax_params *p, const char *name);

/* Is row k of p a knob at this point: tunable, and its `when` (if any)
 * holds for p's values?  (ax_param_table_check vouches for the names.) */
bool ax_param_active(const struct ax_params *p, int k);

/* Value of the parameter called name; the caller guarantees it exists
 * (suites ask for their own names), otherwise this aborts. */
int64_t ax_params_get(const struct ax_params *p, const char *name);

/* Write each bound value of p (AX_FIELD) into cfg, a struct of the
 * suite's config type; unbound rows and other fields are left as they
 * are.  The registry checked every field at start-up (ax_param_table_check). */
void ax_params_store(const struct ax_params *p, void *cfg);

/*
 * Is defs[0..n) a table the rest of axbench can rely on?  Names unique and
 * non-empty, help given, ranges ordered, defaults valid (in range, a power
 * of two where asked, a choice that exists, one of values[]), spec ids
 * unique, each bound field 1, 4 or 8 bytes (1 only for a bool, a pointer
 * for text), inside cfg_size bytes, no two fields overlapping.  AX_EINVAL
 * naming the row and the rule.
 */
int ax_param_table_check(const struct ax_param_def *defs, int n,
			 size_t cfg_size, char *err, size_t errlen);

/*
 * Parse text as a value of d: integers with optional K/M/G (binary) suffix
 * for AX_PARAM_BYTES, enum choice names, booleans true/false/1/0/yes/no/
 * on/off.  Range, power-of-two and choice rules are checked.  On error
 * returns AX_EINVAL and writes "NAME must be ... (got TEXT)" into err.
 */
int ax_param_parse(const struct ax_param_def *d, const char *text, int64_t *out,
		   char *err, size_t errlen);

/*
 * Parse a sweep: "a,b,c" (each parsed as above) or a range of an integer
 * parameter, one rule for all of them: "LO..HI" doubles from LO (LO, 2LO,
 * 4LO, ... while <= HI; LO must be positive), "LO..HI:xF" multiplies by
 * F (2..1024), "LO..HI:STEP" adds STEP (a byte count for byte
 * parameters).  Every value must be valid for d.  At most AX_SWEEP_MAX
 * values.  *vals is malloc'd, the caller's to free.
 */
int ax_param_parse_list(const struct ax_param_def *d, const char *text,
			int64_t **vals, int *count, char *err, size_t errlen);

/* The text of an AX_PT_TEXT value: value 0 is the definition's default
 * (choices[0]), any other the text it was parsed from.  Texts are
 * interned for the life of the process, so equal texts are equal values
 * (points compare and hash as integers) and the pointer stays valid. */
const char *ax_param_text(const struct ax_param_def *d, int64_t v);

/* Format one value as text ("64M", "copy", "true", "37"); an
 * AX_PT_TEXT value longer than len is cut (ax_param_text has it whole). */
void ax_param_format(const struct ax_param_def *d, int64_t v, char *buf,
		     size_t len);

/* Check every value against its definition; AX_EINVAL with a message. */
int ax_params_check(const struct ax_params *p, char *err, size_t errlen);

/* -p NAME=VALUE texts: AX_EINVAL naming the key and both values when one
 * NAME is given twice (the later would silently win, as a duplicate YAML
 * key would; both are refused). */
int ax_params_check_unique(const char *const *texts, int n, char *err,
			   size_t errlen);

/* Set name=value from text; AX_ENOTFOUND names the known parameters. */
int ax_params_set(struct ax_params *p, const char *name, const char *text,
		  char *err, size_t errlen);

/*
 * Canonical JSON of p: an object with keys sorted by name, integers as
 * numbers, enums and booleans as their names.  Two equal points give equal
 * strings, so results match across runs and devices.  malloc'd.
 */
char *ax_params_to_json(const struct ax_params *p);

/*
 * A value as the JSON documents show it (docs/JSON.md: results, tune,
 * export, recommend, the suites' defaults): integers as numbers, booleans
 * as JSON booleans, enums and text as their names.  The canonical text
 * above differs in booleans only, which it keeps as the names "true" /
 * "false": that text is stored and hashed into params_hash, so changing
 * it would unmatch every result stored before.  New references.
 */
json_t *ax_param_json(const struct ax_param_def *d, int64_t v);
json_t *ax_params_json(const struct ax_params *p);

/* In an object read back from canonical JSON, turn each boolean
 * parameter of defs[0..n) stored as "true" / "false" into a JSON boolean,
 * in place; other keys and values are left as they are. */
void ax_params_json_retype(json_t *params, const struct ax_param_def *defs,
			   int n);

/* Parse canonical (or any) JSON object into p, starting from defaults;
 * unknown keys are errors. */
int ax_params_from_json(struct ax_params *p, const struct ax_param_def *defs,
			int n, const char *json, char *err, size_t errlen);

/*
 * Role contracts: the parameters a role (core/roles.h) requires of every
 * suite that has it, and where each goes in the role's typed point, so
 * that recommend reads a stored result's parameters as fields, never by
 * name.  ax_suite_validate checks each suite against its roles' contracts.
 */
struct ax_role_param {
	const char *name;
	enum ax_param_type
	    type;      /* AX_PT_INT -> int64_t, ENUM -> const char * */
	size_t offset; /* in the role's point struct */
};

/* AX_ROLE_TRANSFER: host <-> device copies. */
struct ax_transfer_point {
	const char *direction, *path, *source; /* "h2d", "staged", "pinned" */
	int64_t chunk, inflight, total;
};

/* AX_ROLE_INGEST: storage -> host -> device loading. */
struct ax_ingest_point {
	const char *cache, *io; /* "cold", "pread" */
	int64_t readers, inflight, chunk;
};

/* AX_ROLE_ZEROCOPY: a kernel on host memory in place, or staged. */
struct ax_zerocopy_point {
	const char *pattern, *path; /* "once", "import" */
	int64_t size;
};

/* AX_ROLE_D2D: a copy from the run's device into device peer. */
struct ax_d2d_point {
	const char *path; /* "staged", "direct" */
	int64_t peer, size;
};

/* The contract of role (one AX_ROLE_* bit): its parameters and their
 * count in *n; NULL (and *n 0) for a role that requires none. */
const struct ax_role_param *ax_role_params(unsigned role, int *n);

/* Does the table defs[0..n) hold every parameter of role's contract with
 * its type?  AX_EINVAL naming the missing one otherwise. */
int ax_role_check(unsigned role, const struct ax_param_def *defs, int n,
		  char *err, size_t errlen);

/* Fill out, role's point struct, from a result's "params" object as
 * stored: an integer missing or of another type reads 0, a string NULL
 * (the document keeps what it borrows: strings point into params). */
void ax_role_point(unsigned role, const json_t *params, void *out);

/* Short "name=value name=value" label of the parameters whose flags
 * hold every bit of only (AX_PARAM_SHAPE: the shape; AX_PARAM_TUNABLE:
 * the tunables; 0: all of them). */
void ax_params_label(const struct ax_params *p, unsigned only, char *buf,
		     size_t len);

#endif
