/*
 * cli/cli.h - the command table and option parsing.
 *
 * Each command is one `const struct ax_cli_cmd` defined in its own
 * cli/cmd_*.c and listed in cli/main.c's table.  Its option table is the
 * single source for parsing and for `--help` / `axbench help CMD`; it
 * declares what it needs opened (the database, read-only or not; the
 * device), which app/app.c opens when the command first asks and
 * cli/main.c closes after it.  A command parses, calls the application
 * layer (app/), prints.  cli/ is the only place that calls exit();
 * commands return an exit code (app/app.h lists them).
 * Adding a command: the recipe in docs/ARCHITECTURE.md.
 */
#ifndef AX_CLI_H
#define AX_CLI_H

#include "app/app.h"

#include <stdbool.h>
#include <stdio.h>

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
	/* AX_APP_NEED_DB, AX_APP_READ_ONLY_DB, AX_APP_NEED_DEVICE (app/app.h):
	 * what ax_app_db and ax_app_device may open for it. */
	unsigned needs;
	int (*fn)(struct ax_app *app, int argc, char **argv);
};

/* A parent command's fn (cli/subcmd.c): run the subcommand whose word
 * comes first among argv's non-global arguments, or say which exist. */
int ax_cli_run_subs(struct ax_app *app, const struct ax_cli_cmd *parent,
		    int argc, char **argv);

/* `axbench help PARENT WORD`: the subcommand's page on stdout (exit 0),
 * or which subcommands there are (exit 2). */
int ax_cli_help_sub(const struct ax_cli_cmd *parent, const char *word);

/* Option iterator over one command's argv (argv[0] is the command name).
 * Global options (--db, --device, -q, -v, --json, --validate) are handled
 * inside and never returned. */
struct ax_cli_iter {
	struct ax_app *app;
	const struct ax_cli_cmd *cmd;
	int argc;
	char **argv;
	int i;		    /* next argv index */
	const char *optarg; /* argument of the option just returned */
	char optname[72];   /* "--name" of the option just returned */
	char **positional;  /* collected positional arguments */
	int n_positional;
};

void ax_cli_iter_init(struct ax_cli_iter *it, struct ax_app *app,
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

/* Parse helpers that print a usage error naming the option on failure. */
int ax_cli_parse_int(const struct ax_cli_iter *it, long long min, long long max,
		     long long *out);
int ax_cli_parse_double(const struct ax_cli_iter *it, double min, double max,
			double *out);

/* Columns of the terminal f writes to; else $COLUMNS when it is a
 * positive number; else 0: no limit (a pipe or a CI log gets whole
 * lines). */
int ax_cli_term_width(FILE *f);

#endif
