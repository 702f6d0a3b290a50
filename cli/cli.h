/*
 * cli/cli.h - the command table, option parsing and exit codes.
 *
 * Each command is one `const struct ax_cli_cmd` defined in its own
 * cli/cmd_*.c and listed in cli/main.c's table.  Its option table is the
 * single source for parsing and for `--help` / `axbench help CMD`.
 * cli/ is the only place that calls exit(); commands return an exit code.
 * Adding a command: the recipe in docs/ARCHITECTURE.md.
 */
#ifndef AX_CLI_H
#define AX_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* Exit codes (README and --help list them). */
enum ax_exit {
	AX_EXIT_OK = 0,
	AX_EXIT_FAIL = 1,      /* regression found, or a result failed */
	AX_EXIT_USAGE = 2,     /* usage or config error */
	AX_EXIT_AMBIGUOUS = 3, /* only ambiguous verdicts under --strict */
	AX_EXIT_NODEV = 4,     /* no usable Vulkan device */
	AX_EXIT_STORAGE = 5,   /* database / file error */
	AX_EXIT_INTERRUPTED = 130,
};

/* Map an AX_E* code to the documented exit status. */
int ax_cli_exit_code(int err);

/* Global settings, from global options and the environment. */
struct ax_cli {
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
};

struct ax_cli_opt {
	int id;		  /* > 0, returned by ax_cli_next() */
	const char *name; /* long name without "--" */
	char short_name;  /* 0 for none */
	const char *arg;  /* metavariable ("N"), NULL for a flag */
	const char *help;
};

/* An option whose value must be one of a table's names (the tuner's
 * strategies, recommend's formats): `help` lists them and ax_cli_next
 * refuses any other value, naming the allowed ones.  The list comes from
 * the table that defines the names, so it is written once. */
struct ax_cli_choice {
	int opt_id;
	const char *const *(*names)(void); /* NULL-terminated */
};

#define AX_CLI_MAX_EXAMPLES 4

struct ax_cli_cmd {
	const char *name;
	const char *summary; /* one line for `axbench --help` */
	const char *usage;   /* "[SUITE...] [options]" */
	const char *details; /* paragraph(s) for `help CMD`; may be NULL */
	/* Command lines `help CMD` shows under "Examples:", each with its
	 * comment after "  # "; at least two per command (a test checks). */
	const char *examples[AX_CLI_MAX_EXAMPLES + 1]; /* NULL-terminated */
	const struct ax_cli_opt *opts;		       /* terminated by {0} */
	const struct ax_cli_choice *choices; /* terminated by {0}; or NULL */
	/* A command made of subcommands (`db prune`): each is a command of
	 * its own named "PARENT SUB", listed by `help PARENT`; NULL-
	 * terminated, or NULL. */
	const struct ax_cli_cmd *const *subs;
	int (*fn)(struct ax_cli *cli, int argc, char **argv);
};

/* A parent command's fn (cli/subcmd.c): run the subcommand whose word
 * comes first among argv's non-global arguments, or say which exist. */
int ax_cli_run_subs(struct ax_cli *cli, const struct ax_cli_cmd *parent,
		    int argc, char **argv);

/* Option iterator over one command's argv (argv[0] is the command name).
 * Global options (--db, --device, -q, -v, --json, --validate) are handled
 * inside and never returned. */
struct ax_cli_iter {
	struct ax_cli *cli;
	const struct ax_cli_cmd *cmd;
	int argc;
	char **argv;
	int i;		    /* next argv index */
	const char *optarg; /* argument of the option just returned */
	char optname[72];   /* "--name" of the option just returned */
	char **positional;  /* collected positional arguments */
	int n_positional;
};

void ax_cli_iter_init(struct ax_cli_iter *it, struct ax_cli *cli,
		      const struct ax_cli_cmd *cmd, int argc, char **argv);
/*
 * Next option id; 0 at the end (positionals are then in it->positional),
 * -1 after printing a usage error naming the bad option (return
 * AX_EXIT_USAGE), or -2 when --help was given and help was printed
 * (return AX_EXIT_OK).
 */
int ax_cli_next(struct ax_cli_iter *it);

/*
 * For an option whose value is optional (its arg is written "[FILE]"):
 * when ax_cli_next returned it without an inline value (--json=FILE) and
 * the command already has its max_pos positional arguments, the next
 * argument is its value unless it is another option.  So `compare A B
 * --json out.json` writes a file, `compare A B --json` and `compare
 * --json A B` print to stdout.  Sets it->optarg (NULL: no value).
 * Returns 0, or -1 after a usage error (an empty value).
 */
int ax_cli_take_optional(struct ax_cli_iter *it, int max_pos);
void ax_cli_iter_release(struct ax_cli_iter *it);

/* ax_cli_parse_end's "no error, go on". */
#define AX_CLI_CONTINUE (-1)

/*
 * The end of a command's option loop; last is ax_cli_next's final value.
 * Returns AX_EXIT_OK after --help, AX_EXIT_USAGE after a bad option
 * (already named) or when the number of positional arguments is outside
 * [min_pos, max_pos] (max_pos < 0: no limit; the message shows the
 * command's usage), else AX_CLI_CONTINUE.
 */
int ax_cli_parse_end(const struct ax_cli_iter *it, int last, int min_pos,
		     int max_pos);

/* Does the global option arg ("--db", "-d", "--db=x") take a separate
 * value?  1 yes, 0 no (a flag, or the value is inline), -1 when arg is
 * not a global option. */
int ax_cli_global_arity(const char *arg);

/* Print `help CMD` text generated from the option table. */
void ax_cli_print_help(FILE *out, const struct ax_cli_cmd *cmd);

/*
 * "Did you mean": the candidate nearest to what was typed, by edit
 * distance, when it is near enough to be a typo (at most a third of the
 * typed length, at least 1, at most 3 edits).  Feed candidates with
 * ax_cli_suggest_add, then read best (NULL when none is close).
 */
struct ax_cli_suggest {
	const char *typed;
	const char *best;
	int distance;
};
void ax_cli_suggest_init(struct ax_cli_suggest *s, const char *typed);
void ax_cli_suggest_add(struct ax_cli_suggest *s, const char *candidate);
/* "; did you mean 'X'?" or "" (a static or borrowed string). */
const char *ax_cli_suggest_text(const struct ax_cli_suggest *s, char *buf,
				size_t len);

/* Longest message ax_cli_error prints; longer ones lose the middle of
 * their (over-long) argument, never the reason (ax_vfmt_fit). */
#define AX_CLI_MSG_MAX 1024

/* Print "axbench CMD: message" to stderr (unless quiet) and return code. */
int ax_cli_error(const struct ax_cli *cli, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Parse helpers that print a usage error naming the option on failure. */
int ax_cli_parse_int(const struct ax_cli_iter *it, long long min, long long max,
		     long long *out);
int ax_cli_parse_double(const struct ax_cli_iter *it, double min, double max,
			double *out);

/* ---- shared helpers of the commands (cli/common.c) ------------------ */

struct ax_db;
struct ax_vk_instance;

/* Open the database named by --db / AXBENCH_DB / ./axbench.db; prints the
 * error and returns the exit code (0 on success). */
int ax_cli_open_db(const struct ax_cli *cli, bool readonly, struct ax_db **db);

/* Create the Vulkan instance (validation per cli->validate) and resolve
 * --device; prints errors, returns an exit code. */
int ax_cli_open_vk(const struct ax_cli *cli, struct ax_vk_instance **inst,
		   int *device_index);

/* After a command that used Vulkan: AX_EXIT_FAIL (after saying so) when
 * validation was on and the layer printed anything, else code. */
int ax_cli_check_validation(const struct ax_cli *cli,
			    const struct ax_vk_instance *inst, int code);

/* The command line as a JSON array text (malloc'd). */
char *ax_cli_argv_json(const struct ax_cli *cli);

/* Columns of the terminal f writes to; else $COLUMNS when it is a
 * positive number; else 0: no limit (a pipe or a CI log gets whole
 * lines). */
int ax_cli_term_width(FILE *f);

/* Directory holding the shipped profiles (configs/): AXBENCH_CONFIG_DIR,
 * else next to the executable, else the install prefix. */
const char *ax_cli_config_dir(void);

/* The vendor peak figures, specs.yaml in ax_cli_config_dir(), into *out
 * (the caller's: ax_specs_free).  A missing file is no error: *out is
 * NULL and every device is "spec unknown" (said once on stderr with
 * verbosity >= 0 when note is set).  A file that cannot be read or is
 * malformed: AX_EXIT_USAGE with the FILE:LINE:COL message. */
struct ax_specs;
int ax_cli_load_specs(const struct ax_cli *cli, const char *cmd, bool note,
		      struct ax_specs **out);

struct ax_vk_device_info;
#include <jansson.h>
#include <stdint.h>

/* Insert or find the host and device rows for a run on info. */
int ax_cli_register(const struct ax_cli *cli, struct ax_db *db,
		    const struct ax_vk_device_info *info, int64_t *host_id,
		    int64_t *device_id);

/* A run id as typed: a whole number from 1 to INT64_MAX, digits only.
 * false for anything else, an overflowing number included (never
 * clamped or wrapped). */
bool ax_cli_parse_id(const char *text, int64_t *id);

/* --run ID|last of command cmd: a positive run id, or the newest run.
 * The run must exist: an id that names no run is a usage error, as is
 * a malformed one.  Prints the error (naming cmd) and returns the exit
 * code. */
int ax_cli_resolve_run(const struct ax_cli *cli, struct ax_db *db,
		       const char *cmd, const char *text, int64_t *id);

/* Keep the stored results (ax_db_results JSON) whose device matches
 * --device SEL: fingerprint, UUID or PCI bus id exactly, or a name part;
 * NULL or "all" keeps everything.  A bare Vulkan index is refused: stored
 * devices are never keyed by it.  Prints the error, returns the code. */
int ax_cli_filter_device(const struct ax_cli *cli, json_t *results,
			 const char *sel);

/* ax_cli_filter_device in parts, for a reader that streams results one at
 * a time (ax_db_results_each) and so cannot remove them from an array:
 * ax_cli_check_device refuses a bare Vulkan index (printing the error,
 * returning the exit code; "all" and NULL pass), ax_cli_on_device says
 * whether result r is kept, and ax_cli_no_device_match prints the error
 * for a selection that kept nothing and returns its exit code. */
int ax_cli_check_device(const struct ax_cli *cli, const char *sel);
bool ax_cli_on_device(const json_t *r, const char *sel);
int ax_cli_no_device_match(const struct ax_cli *cli, const char *sel);

/* A run's label (run, tune and recommend --measure --label NAME): at most
 * this many characters, so that `axbench runs` stays a table. */
#define AX_CLI_LABEL_MAX 100

/* --label of command cmd: 1 to AX_CLI_LABEL_MAX characters of UTF-8
 * without control characters (core/text.h ax_text_check_plain).  0, or
 * AX_EXIT_USAGE after printing the option, the rule, what is wrong and
 * the fix. */
int ax_cli_check_label(const struct ax_cli *cli, const char *cmd,
		       const char *label);

/* The label of a run given none: "HOST/DEVICE", this machine's host name
 * and device_name, into buf. */
void ax_cli_default_label(const char *device_name, char *buf, size_t len);

/* Set by the SIGINT/SIGTERM handler; long loops check it and stop. */
extern volatile int ax_cli_interrupted;
void ax_cli_install_signal_handlers(void);

#endif
