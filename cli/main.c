/* cli/main.c - the command table and dispatch: the only place that exits. */
#include "cli/cli.h"
#include "core/interrupt.h"
#include "core/suggest.h"
#include "core/vk.h"
#include "suites/registry.h"

#include "core/outfile.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef AX_VERSION_STRING
#define AX_VERSION_STRING "0.1.0"
#endif
#ifndef AX_GIT_SHA_STRING
#define AX_GIT_SHA_STRING "unknown"
#endif

extern const struct ax_cli_cmd ax_cmd_devices;
extern const struct ax_cli_cmd ax_cmd_suites;
extern const struct ax_cli_cmd ax_cmd_run;
extern const struct ax_cli_cmd ax_cmd_results;
extern const struct ax_cli_cmd ax_cmd_runs;
extern const struct ax_cli_cmd ax_cmd_tune;
extern const struct ax_cli_cmd ax_cmd_compare;
extern const struct ax_cli_cmd ax_cmd_ab;
extern const struct ax_cli_cmd ax_cmd_baseline;
extern const struct ax_cli_cmd ax_cmd_report;
extern const struct ax_cli_cmd ax_cmd_export;
extern const struct ax_cli_cmd ax_cmd_recommend;
extern const struct ax_cli_cmd ax_cmd_monitor;
extern const struct ax_cli_cmd ax_cmd_db;
extern const struct ax_cli_cmd ax_cmd_fleet;
extern const struct ax_cli_cmd ax_cmd_kernel;

/* The commands, in the order --help lists them.  One line per command. */
static const struct ax_cli_cmd *const commands[] = {
    &ax_cmd_devices,  &ax_cmd_suites, &ax_cmd_run,     &ax_cmd_runs,
    &ax_cmd_results,  &ax_cmd_tune,   &ax_cmd_compare, &ax_cmd_ab,
    &ax_cmd_baseline, &ax_cmd_report, &ax_cmd_export,  &ax_cmd_recommend,
    &ax_cmd_monitor,  &ax_cmd_db,     &ax_cmd_fleet,   &ax_cmd_kernel,
};
#define N_COMMANDS ((int)(sizeof(commands) / sizeof(commands[0])))

static const char exit_codes[] =
    "Exit codes:\n"
    "  0    success\n"
    "  1    a regression was found, or a result failed verification\n"
    "  2    usage or configuration error\n"
    "  3    only ambiguous verdicts, with --strict\n"
    "  4    no usable Vulkan device\n"
    "  5    storage error (database or file, a lock held, out of memory)\n"
    "  6    partial: run --device all, some devices lost work (each\n"
    "       result measured is stored; stderr names the device)\n"
    "  130  interrupted by SIGINT (Ctrl-C): what was measured is kept\n"
    "  143  stopped by SIGTERM: likewise\n";

static const struct ax_cli_cmd *find_command(const char *name)
{
	for (int i = 0; i < N_COMMANDS; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

/* "axbench: no command 'rnu'; did you mean 'run'? ..." */
static int no_command(const char *name)
{
	struct ax_suggest sg;
	char hint[128];
	ax_suggest_init(&sg, name);
	for (int i = 0; i < N_COMMANDS; i++)
		ax_suggest_add(&sg, commands[i]->name);
	ax_suggest_add(&sg, "help");
	const char *dym = ax_suggest_text(&sg, hint, sizeof(hint));
	fprintf(stderr, "axbench: no command '%s'%s%s 'axbench --help'\n", name,
		dym, *dym ? " See" : "; see");
	return AX_EXIT_USAGE;
}

/* `help` itself, so that `axbench help help` answers like the others. */
static const struct ax_cli_opt help_opts[] = {{0}};
static const struct ax_cli_cmd help_cmd = {
    .name = "help",
    .summary = "show the commands, or one command's options, defaults and "
	       "examples",
    .usage = "[COMMAND]",
    .details = "Without COMMAND, lists the commands, the global options and "
	       "the exit codes.\n`axbench COMMAND --help` is the same as "
	       "`axbench help COMMAND`.",
    .opts = help_opts,
    .examples = {"axbench help run       # run's options and defaults",
		 "axbench help           # every command, in one line each"},
};

static void print_usage(FILE *out)
{
	fprintf(out,
		"usage: axbench [global options] COMMAND [options] [args]\n\n"
		"Measure, tune and compare compute accelerators through "
		"Vulkan.\n\nCommands:\n");
	for (int i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i]->name,
			commands[i]->summary);
	fprintf(out, "  %-10s %s\n\n", "help", "help CMD: options of CMD");
	fprintf(out, "Examples:\n"
		     "  axbench run                  # the quick profile\n"
		     "  axbench run gemm -p m=256..1024 --dry-run\n\n");
	ax_cli_print_help(out, NULL);
	fprintf(out, "\n%s", exit_codes);
}

static int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		print_usage(stdout);
		return AX_EXIT_OK;
	}
	const struct ax_cli_cmd *cmd =
	    strcmp(argv[1], "help") == 0 ? &help_cmd : find_command(argv[1]);
	if (!cmd)
		return no_command(argv[1]);
	if (argc >= 3 && cmd->subs) /* `help db merge`: the subcommand's */
		return ax_cli_help_sub(cmd, argv[2]);
	ax_cli_print_help(stdout, cmd);
	return AX_EXIT_OK;
}

static void init_cli(struct ax_app *app, int argc, char **argv)
{
	memset(app, 0, sizeof(*app));
	app->argc = argc;
	app->argv = argv;
	const char *db = getenv("AXBENCH_DB");
	app->db_path = db && *db ? db : "./axbench.db";
	app->db_chosen = db && *db;
	const char *wd = getenv("AXBENCH_WORKDIR");
	app->workdir = wd && *wd ? wd : NULL;
	const char *v = getenv("AXBENCH_VALIDATE");
	app->validate = v && strcmp(v, "0") != 0 && *v;
}

/* Global options before the command: consumed with a command-less
 * iterator; the first positional is the command. */
static int parse_leading(struct ax_app *app, int argc, char **argv, int *cmd_at)
{
	int i = 1;
	while (i < argc && argv[i][0] == '-') {
		if (strcmp(argv[i], "--version") == 0) {
			printf("axbench %s (%s)\n", AX_VERSION_STRING,
			       AX_GIT_SHA_STRING);
			return -3;
		}
		if (strcmp(argv[i], "--help") == 0 ||
		    strcmp(argv[i], "-h") == 0) {
			print_usage(stdout);
			return -2;
		}
		/* Re-parse argv[i..] up to the command with the iterator. */
		struct ax_cli_iter it;
		ax_cli_iter_init(&it, app, NULL, argc, argv);
		it.i = i;
		bool takes = ax_cli_global_arity(argv[i]) == 1;
		it.argc = takes ? i + 2 : i + 1;
		if (it.argc > argc)
			it.argc = argc;
		int rc = ax_cli_next(&it);
		i = it.i;
		ax_cli_iter_release(&it);
		if (rc < 0)
			return rc;
	}
	*cmd_at = i;
	return 0;
}

/*
 * Standard output's fate, judged once for every command after it returns:
 * output that could not be written (a full disk, /dev/full, an I/O error)
 * is lost, so a command that had succeeded fails with exit 5, naming the
 * reason.  A reader that went away (EPIPE: `axbench results | head -1`)
 * is not an error: it took what it wanted, so the status is kept and
 * nothing is said.  `run` goes on measuring when its reader goes (SIGPIPE
 * is ignored): the database, not the table, is what a run produces.
 * stdout is a stream that remembers the errno of its first failed write
 * (core/outfile.h): stdio alone keeps only an error flag.
 */
static int stdout_errno; /* of the first failed write to stdout */

static int check_stdout(const char *cmd, int rc)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	int e = stdout_errno;
	if (e == EPIPE)
		return rc;
	/* A stop ended a write its reader did not take: the stop is what
	 * happened (the exit status says so), not a failed system call. */
	if (e == EINTR && ax_interrupted) {
		fprintf(stderr,
			"axbench%s%s: interrupted while writing standard "
			"output (its reader stopped reading); the output is "
			"incomplete\n",
			cmd ? " " : "", cmd ? cmd : "");
		return rc == AX_EXIT_OK ? AX_EXIT_INTERRUPTED : rc;
	}
	fprintf(stderr,
		"axbench%s%s: writing standard output failed: %s; the output "
		"is incomplete\n",
		cmd ? " " : "", cmd ? cmd : "",
		e ? strerror(e) : "an earlier write was refused");
	return rc == AX_EXIT_OK ? AX_EXIT_STORAGE : rc;
}

/*
 * A process asked to stop by a signal says which, as a shell reports a
 * process the signal killed: 130 for SIGINT, 143 for SIGTERM.  An error
 * that the interruption caused (a lock wait or a read it cut short: exit
 * 2, 4 or 5) is the interruption; a verdict already reached on what was
 * measured (0, 1, 3) stands.
 */
static int interrupted_status(int rc)
{
	int sig = ax_interrupted;
	if (!sig)
		return rc;
	if (rc == AX_EXIT_USAGE || rc == AX_EXIT_NODEV ||
	    rc == AX_EXIT_STORAGE || rc == AX_EXIT_INTERRUPTED)
		return 128 + sig;
	return rc;
}

static int dispatch(int argc, char **argv, const char **name)
{
	struct ax_app app;
	int cmd_at = 1;
	init_cli(&app, argc, argv);
	int rc = parse_leading(&app, argc, argv, &cmd_at);
	if (rc == -1)
		return AX_EXIT_USAGE;
	if (rc < 0)
		return AX_EXIT_OK;
	if (cmd_at >= argc) {
		print_usage(stderr);
		return AX_EXIT_USAGE;
	}
	*name = argv[cmd_at];
	if (strcmp(*name, "help") == 0)
		return cmd_help(argc - cmd_at, argv + cmd_at);
	const struct ax_cli_cmd *cmd = find_command(*name);
	if (!cmd) {
		rc = no_command(*name);
		*name = NULL;
		return rc;
	}
	/* A built-in suite descriptor that breaks a rule (hooks that must
	 * come together, ids, defaults, fields) is a bug of this build:
	 * said before any command reads the table directly. */
	ax_registry_check_once();
	ax_interrupt_install();
	app.needs = cmd->needs;
	rc = cmd->fn(&app, argc - cmd_at, argv + cmd_at);
	/* What the command's needs opened is closed here, once; a
	 * validation message fails it. */
	return ax_app_release(&app, rc);
}

int main(int argc, char **argv)
{
	const char *name = NULL;
	/* A closed pipe on stdout is an error return (EPIPE), not a silent
	 * death that would leave a run row `running`; check_stdout and the
	 * commands decide what it means. */
	signal(SIGPIPE, SIG_IGN);
	FILE *std_out = stdout;
	FILE *out = ax_outfile_stream(STDOUT_FILENO, &stdout_errno);
	if (out)
		stdout = out;
	/* Ctrl-C stops writing output files at once (the writer then
	 * removes its temporary file and exits 130). */
	ax_outfile_set_stop(&ax_interrupted);
	/* And ends every fence wait at once (exit 130 or 143). */
	ax_vk_set_stop(&ax_interrupted);
	int rc = dispatch(argc, argv, &name);
	rc = check_stdout(name, rc);
	rc = interrupted_status(rc);
	/* The stream is ours to close (exit only flushes it); anything
	 * printed later goes to the C library's own stdout. */
	if (out) {
		stdout = std_out;
		fclose(out);
	}
	return rc;
}
