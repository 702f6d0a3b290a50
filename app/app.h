/*
 * app/app.h - the application layer under the command line.
 *
 * cli/ parses argv and prints; what a command does lives here and below
 * (app/session.h: the one measurement session; app/run_plan.h and
 * app/run_exec.h: `run`; app/tune.h: live tuning and priors;
 * app/suite_doc.h: the suite document).  Every function of the layer is
 * handed a `struct ax_app`, the global settings, never argv; unit tests
 * link it (build/libax.a).  Errors are printed here, as "axbench: ...",
 * and returned as the documented exit codes, so a command's code is its
 * last app call's.
 */
#ifndef AX_APP_H
#define AX_APP_H

#include "core/db_rows.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit codes (README and --help list them). */
enum ax_exit {
	AX_EXIT_OK = 0,
	AX_EXIT_FAIL = 1,      /* regression found, or a result failed */
	AX_EXIT_USAGE = 2,     /* usage or config error */
	AX_EXIT_AMBIGUOUS = 3, /* only ambiguous verdicts under --strict */
	AX_EXIT_NODEV = 4,     /* no usable Vulkan device */
	AX_EXIT_STORAGE = 5,   /* database / file error */
	AX_EXIT_PARTIAL = 6,   /* several devices: some could not finish */
	AX_EXIT_INTERRUPTED = 130,
};

/* Map an AX_E* code to the documented exit status. */
int ax_app_exit_code(int err);

/* The exit status of a failed ax_db_open: a database that is missing
 * (for a reader: "run something first") or not named (an empty path) is
 * a usage error; anything else is storage. */
int ax_app_db_open_exit(int rc);

/* What a command needs opened for it (struct ax_cli_cmd.needs), as git's
 * run_builtin flags: one place opens them (ax_app_db, ax_app_device),
 * maps their errors to exit codes and closes them (ax_app_release). */
enum ax_app_need {
	AX_APP_NEED_DB = 1u << 0,	   /* the database, read-write */
	AX_APP_READ_ONLY_DB = 1u << 1, /* the database, read-only, never made */
	AX_APP_NEED_DEVICE = 1u << 2,  /* the Vulkan instance and --device */
};

struct ax_db;
struct ax_vk_instance;

/* Global settings, from global options and the environment, and what
 * the running command declared it needs, once opened. */
struct ax_app {
	const char *db_path;	/* --db, AXBENCH_DB, default ./axbench.db */
	bool db_chosen;		/* --db or AXBENCH_DB named it (monitor
				   writes only to a database it was given) */
	const char *device_sel; /* --device, NULL = default choice */
	const char *workdir;	/* --workdir, AXBENCH_WORKDIR, or NULL: the
				   database's directory (suites/scratch.h) */
	int verbosity;		/* -q: -1, default 0, -v: 1 (-vv: 2) */
	bool json;		/* --json */
	bool validate;		/* --validate or AXBENCH_VALIDATE=1 */
	int argc;		/* the whole command line, for the run row */
	char **argv;
	unsigned needs;		/* the command's AX_NEED_* / AX_APP_READ_ONLY_DB */
	struct ax_db *db;	/* ax_app_db's, closed by ax_app_release */
	struct ax_vk_instance *vk; /* ax_app_device's, likewise */
	int device_index;	   /* --device resolved on vk */
};

/* Longest message ax_app_error prints; longer ones lose the middle of
 * their (over-long) argument, never the reason (ax_vfmt_fit). */
#define AX_APP_MSG_MAX 1024

/* Print "axbench: message" to stderr and return code. */
int ax_app_error(const struct ax_app *app, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * The database the command declared (AX_APP_NEED_DB, or AX_APP_READ_ONLY_DB:
 * opened read-only, never created), opened at the first call, after the
 * command has checked its arguments (so a usage error creates no file),
 * and kept until ax_app_release.  Prints the error and returns the exit
 * code (0: *db is the app's, not the caller's to close).
 */
int ax_app_db(struct ax_app *app, struct ax_db **db);

/* The Vulkan instance (validation per app->validate) and --device
 * resolved, for a command that declared AX_APP_NEED_DEVICE; opened at the
 * first call, kept until ax_app_release.  index may be NULL (only the
 * instance: `devices` lists them all).  Prints, returns an exit code. */
int ax_app_device(struct ax_app *app, struct ax_vk_instance **inst,
		  int *index);

/* After the command: close what ax_app_db and ax_app_device opened, and
 * turn code into AX_EXIT_FAIL (saying so) when validation was on and the
 * layer printed anything.  Returns the final exit code. */
int ax_app_release(struct ax_app *app, int code);

/* The openers behind ax_app_db and ax_app_device, for a command that
 * holds more than one (compare's and report's sources, merge's output,
 * a session that replaces a lost device).  ax_app_open_db_at opens path
 * (NULL: --db), naming cmd in its message when cmd is not NULL. */
int ax_app_open_db(const struct ax_app *app, bool readonly, struct ax_db **db);
int ax_app_open_db_at(const struct ax_app *app, const char *path,
		      bool readonly, const char *cmd, struct ax_db **db);
/* Create the Vulkan instance (validation per app->validate) and resolve
 * --device; prints errors, returns an exit code. */
int ax_app_open_vk(const struct ax_app *app, struct ax_vk_instance **inst,
		   int *device_index);

/* After a command that used Vulkan: AX_EXIT_FAIL (after saying so) when
 * validation was on and the layer printed anything, else code. */
int ax_app_check_validation(const struct ax_app *app,
			    const struct ax_vk_instance *inst, int code);

/* The command line as a JSON array text (malloc'd). */
char *ax_app_argv_json(const struct ax_app *app);

/* Directory holding the shipped profiles (configs/): AXBENCH_CONFIG_DIR,
 * else next to the executable, else the install prefix. */
const char *ax_app_config_dir(void);

/* The vendor peak figures, specs.yaml in ax_app_config_dir(), into *out
 * (the caller's: ax_specs_free).  A missing file is no error: *out is
 * NULL and every device is "spec unknown" (said once on stderr with
 * verbosity >= 0 when note is set).  A file that cannot be read or is
 * malformed: AX_EXIT_USAGE with the FILE:LINE:COL message. */
struct ax_specs;
int ax_app_load_specs(const struct ax_app *app, const char *cmd, bool note,
		      struct ax_specs **out);

struct ax_vk_device_info;

/* Insert or find the host and device rows for a run on info. */
int ax_app_register(const struct ax_app *app, struct ax_db *db,
		    const struct ax_vk_device_info *info, int64_t *host_id,
		    int64_t *device_id);

/* A run id as typed: a whole number from 1 to INT64_MAX, digits only.
 * false for anything else, an overflowing number included (never
 * clamped or wrapped). */
bool ax_app_parse_id(const char *text, int64_t *id);

/* "last" (*back 0) or "last~N" (*back N: the N-th run before the newest,
 * as git's HEAD~N counts, N from 1 to 1000000); false for anything
 * else. */
bool ax_app_parse_last(const char *text, int *back);

/* The run `back` places before the newest of those whose kind keep
 * accepts (newest first, as `axbench runs` lists them): 0 or
 * AX_ENOTFOUND, with the number of runs kept in *n_kept; a read that
 * failed is the database's error. */
int ax_app_nth_last_run(struct ax_db *db, bool (*keep)(const char *kind),
			int back, int64_t *id, size_t *n_kept);

/* "last~back" of --run: as ax_app_nth_last_run over every run that
 * measured (a monitor's holds no results); "last" (back 0) is one indexed
 * query. */
int ax_app_last_run(struct ax_db *db, int back, int64_t *id, size_t *n_kept);

/* --run ID|last of command cmd: a positive run id, or the newest run.
 * The run must exist: an id that names no run is a usage error, as is
 * a malformed one.  Prints the error (naming cmd) and returns the exit
 * code. */
int ax_app_resolve_run(const struct ax_app *app, struct ax_db *db,
		       const char *cmd, const char *text, int64_t *id);

/* Keep the results of l whose device matches --device SEL (the others
 * are freed): fingerprint, UUID or PCI bus id exactly, or a name part;
 * NULL or "all" keeps everything.  A bare Vulkan index is refused: stored
 * devices are never keyed by it.  Prints the error, returns the code. */
int ax_app_filter_device(const struct ax_app *app, struct ax_db_results *l,
			 const char *sel);

/* ax_app_filter_device in parts, for a reader that streams results one at
 * a time (ax_db_result_rows_each) and so cannot remove them from an array:
 * ax_app_check_device refuses a bare Vulkan index (printing the error,
 * returning the exit code; "all" and NULL pass), ax_app_row_on_device
 * says whether a row's device is kept, and ax_app_no_device_match prints the error
 * for a selection that kept nothing and returns its exit code. */
int ax_app_check_device(const struct ax_app *app, const char *sel);
/* The same test of a stored device (a row's): a fingerprint, UUID or PCI
 * bus id exactly, a name as a case-insensitive substring; NULL or "all"
 * matches every device. */
bool ax_app_row_on_device(const struct ax_db_device_row *dev, const char *sel);
int ax_app_no_device_match(const struct ax_app *app, const char *sel);

/* A run's label (run, tune and recommend --measure --label NAME): at most
 * this many characters, so that `axbench runs` stays a table. */
#define AX_APP_LABEL_MAX 100

/* --label of command cmd: 1 to AX_APP_LABEL_MAX characters of UTF-8
 * without control characters (core/text.h ax_text_check_plain).  0, or
 * AX_EXIT_USAGE after printing the option, the rule, what is wrong and
 * the fix. */
int ax_app_check_label(const struct ax_app *app, const char *cmd,
		       const char *label);

/* The label of a run given none: "HOST/DEVICE", this machine's host name
 * and device_name, into buf. */
void ax_app_default_label(const char *device_name, char *buf, size_t len);

#endif
