/*
 * cli/cmd_db_prune.c - `axbench db prune`: remove old runs by a retention
 * policy (or the runs named), so that a CI database that gains a run per
 * commit stays a size that reads fast.  The policy and the removal are
 * core/db_prune.c's; this file parses, refuses, and says what happened.
 *
 * It decides on a read-only handle first, so that a dry run, a refused
 * --run and a mistyped --db leave the file byte for byte as it was; only
 * --yes opens for writing, and then decides again inside its transaction.
 */
#include "cli/cli.h"
#include "core/interrupt.h"

#include "core/db.h"
#include "core/db_admin.h"
#include "core/error.h"
#include "core/text.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { OPT_KEEP_LAST = 1, OPT_WEEKLY, OPT_NO_WEEKLY, OPT_RUN, OPT_YES };

#define DEFAULT_KEEP_LAST 30
#define MAX_KEEP_LAST 1000000

static const struct ax_cli_opt prune_opts[] = {
    {OPT_KEEP_LAST, "keep-last", 0, "N",
     "keep the newest N runs of each series (default 30)"},
    {OPT_WEEKLY, "weekly", 0, NULL,
     "before those, keep the newest run of each ISO week (the default)"},
    {OPT_NO_WEEKLY, "no-weekly", 0, NULL,
     "keep only the newest N runs of each series"},
    {OPT_RUN, "run", 'r', "ID",
     "remove exactly this run instead of the policy (repeatable; "
     "`axbench runs --all` lists them)"},
    {OPT_YES, "yes", 'y', NULL,
     "remove them (default: a dry run that only says what would go)"},
    {0},
};

extern const struct ax_cli_cmd ax_cmd_db_prune;

struct args {
	long long keep_last;
	bool keep_given, weekly, weekly_given, yes;
	int64_t *ids; /* --run, argc of them at most */
	int n_ids;
};

/* ---- parsing ---------------------------------------------------------- */

static int add_run(struct ax_app *app, const char *text, struct args *a)
{
	int64_t id;
	if (!ax_app_parse_id(text, &id))
		return ax_app_error(
		    app, AX_EXIT_USAGE,
		    "db prune: --run '%s' is not a run id: give "
		    "a whole number from 1, as `axbench runs "
		    "--all` lists them",
		    text);
	a->ids[a->n_ids++] = id;
	return 0;
}

static int take(struct ax_cli_iter *it, int opt, struct args *a)
{
	switch (opt) {
	case OPT_KEEP_LAST:
		a->keep_given = true;
		return ax_cli_parse_int(it, 1, MAX_KEEP_LAST, &a->keep_last)
			   ? AX_EXIT_USAGE
			   : 0;
	case OPT_WEEKLY:
	case OPT_NO_WEEKLY:
		a->weekly = opt == OPT_WEEKLY;
		a->weekly_given = true;
		return 0;
	case OPT_RUN:
		return add_run(it->app, it->optarg, a);
	case OPT_YES:
		a->yes = true;
		return 0;
	}
	return 0;
}

/* --run names runs; the policy's options would be ignored beside it. */
static int check_args(struct ax_app *app, const struct args *a)
{
	if (a->n_ids && (a->keep_given || a->weekly_given))
		return ax_app_error(app, AX_EXIT_USAGE,
				    "db prune: --run removes exactly the runs "
				    "named, so --keep-last, --weekly and "
				    "--no-weekly would be ignored; give --run "
				    "or the policy's options, not both");
	return 0;
}

static int parse(struct ax_app *app, int argc, char **argv, struct args *a)
{
	struct ax_cli_iter it;
	int opt, rc = 0;
	ax_cli_iter_init(&it, app, &ax_cmd_db_prune, argc, argv);
	while (rc == 0 && (opt = ax_cli_next(&it)) > 0)
		rc = take(&it, opt, a);
	if (rc == 0) {
		int end = ax_cli_parse_end(&it, opt, 0, 0);
		rc = end == AX_CLI_CONTINUE ? 0 : end == AX_EXIT_OK ? -2 : end;
	}
	ax_cli_iter_release(&it);
	return rc ? rc : check_args(app, a);
}

/* ---- refusals --------------------------------------------------------- */

/* "'main'" or "'main' and 'nightly'" into buf. */
static void names_text(char *const *names, size_t n, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s'%s'",
					 i == 0	      ? ""
					 : i == n - 1 ? " and "
						      : ", ",
					 ax_term(names[i]));
}

static int refuse_baseline(const struct ax_app *app,
			   const struct ax_db_prune_refusal *r)
{
	char list[512];
	long long id = (long long)r->id;
	names_text(r->baselines, r->n_baselines, list, sizeof(list));
	const char *first = ax_term(r->n_baselines ? r->baselines[0] : NULL);
	return ax_app_error(
	    app, AX_EXIT_USAGE,
	    "db prune: run %lld is used by baseline %s: `compare "
	    "baseline:NAME` "
	    "would lose it, so nothing was removed; move the baseline to "
	    "other runs first (`axbench baseline save %s --run ID`; "
	    "`axbench baseline list` shows each baseline's runs), or leave "
	    "--run %lld out",
	    id, list, first, id);
}

/* One refused run, said with the fix. */
static int refuse(const struct ax_app *app, const struct ax_db_prune_refusal *r)
{
	long long id = (long long)r->id;
	if (r->reason == AX_DB_PRUNE_BASELINE)
		return refuse_baseline(app, r);
	if (r->reason == AX_DB_PRUNE_TUNE)
		return ax_app_error(
		    app, AX_EXIT_USAGE,
		    "db prune: run %lld is a tuning session's: later tuning "
		    "uses its trials as priors, and its trials name its "
		    "results (no ON DELETE CASCADE), so db prune keeps every "
		    "tuning run and nothing was removed; leave --run %lld out",
		    id, id);
	return ax_app_error(app, AX_EXIT_USAGE,
			    "db prune: run %lld is still running (its "
			    "process lives, or it runs on another host, "
			    "which cannot be checked), so nothing was "
			    "removed; let it finish, or leave --run %lld out",
			    id, id);
}

/* Exit 2 when a named run is missing or must stay, else 0. */
static int check_named(const struct ax_app *app,
		       const struct ax_db_prune_plan *plan)
{
	if (plan->n_missing)
		return ax_app_error(
		    app, AX_EXIT_USAGE,
		    "db prune: --run %lld names no run in %s, so nothing was "
		    "removed; `axbench runs --all` lists the runs",
		    (long long)plan->missing[0], app->db_path);
	if (plan->n_refused)
		return refuse(app, &plan->refused[0]);
	return 0;
}

/* What core is asked: the policy, or the runs named. */
static struct ax_db_prune_opts prune_opts_of(const struct args *a)
{
	return (struct ax_db_prune_opts){
	    .keep_last = (int)a->keep_last,
	    .weekly = a->weekly,
	    .run_ids = a->n_ids ? a->ids : NULL,
	    .n_run_ids = a->n_ids,
	    .stop = &ax_interrupted,
	};
}

/* ---- output ----------------------------------------------------------- */

/* Bytes the database takes on disk: the file and its -wal; -1 when the
 * file cannot be read. */
static long long file_bytes(const char *path)
{
	struct stat sb;
	if (stat(path, &sb) != 0)
		return -1;
	long long n = sb.st_size;
	size_t len = strlen(path) + 5;
	char *wal = malloc(len);
	if (wal) {
		snprintf(wal, len, "%s-wal", path);
		if (stat(wal, &sb) == 0)
			n += sb.st_size;
	}
	free(wal);
	return n;
}

static json_t *bytes_json(long long n)
{
	return n >= 0 ? json_integer(n) : json_null();
}

/* One line per run to remove: id, start, kind, label. */
static void print_runs(const struct ax_db_prune_plan *plan)
{
	if (plan->n_removed)
		printf("%8s  %-19s  %-9s  %s\n", "ID", "STARTED (UTC)", "KIND",
		       "LABEL");
	for (size_t i = 0; i < plan->n_removed; i++) {
		const struct ax_db_prune_run *r = &plan->removed[i];
		const char *at = r->started_at;
		printf("%8lld  %.10s %.8s  %-9s  %s\n", (long long)r->id,
		       at ? at : "-", at && strlen(at) > 11 ? at + 11 : "",
		       r->kind, r->label ? ax_term(r->label) : "-");
	}
}

static void print_policy(const struct args *a)
{
	if (a->n_ids)
		printf("the runs named by --run\n");
	else if (a->weekly)
		printf("keep the newest %lld runs of each series and, before "
		       "them, the newest run of each ISO week\n",
		       a->keep_last);
	else
		printf("keep the newest %lld runs of each series\n",
		       a->keep_last);
}

static void print_text(const struct ax_app *app, const struct args *a,
		       const struct ax_db_prune_plan *plan, bool dry,
		       long long before, long long after)
{
	size_t n = plan->n_removed;
	if (app->verbosity >= 0) {
		printf("%s: ", dry ? "dry run" : "policy");
		print_policy(a);
		print_runs(plan);
	}
	printf("%s %zu run%s, %lld results, %lld samples, %lld telemetry "
	       "readings; kept %lld run%s (%lld newest, %lld weekly, %lld "
	       "baselines', %lld tuning, %lld running)\n",
	       dry ? "would remove" : "removed", n, n == 1 ? "" : "s",
	       (long long)plan->results, (long long)plan->samples,
	       (long long)plan->telemetry_readings, (long long)plan->kept,
	       plan->kept == 1 ? "" : "s", (long long)plan->kept_by.last,
	       (long long)plan->kept_by.weekly,
	       (long long)plan->kept_by.baseline, (long long)plan->kept_by.tune,
	       (long long)plan->kept_by.running);
	if (dry && n)
		printf("nothing was removed; pass --yes to remove them\n");
	else if (!dry)
		printf("%s: %lld bytes before, %lld bytes after VACUUM\n",
		       app->db_path, before, after);
}

/* The --json document (docs/JSON.md#db-prune): core's part, then the
 * file's sizes. */
static void print_out(const struct ax_app *app, const struct args *a,
		      const struct ax_db_prune_plan *plan, bool dry,
		      long long before, long long after)
{
	if (!app->json) {
		print_text(app, a, plan, dry, before, after);
		return;
	}
	struct ax_db_prune_opts o = prune_opts_of(a);
	json_t *doc = ax_db_prune_json(plan, &o, dry);
	json_object_set_new(doc, "bytes_before", bytes_json(before));
	json_object_set_new(doc, "bytes_after",
			    dry ? json_null() : bytes_json(after));
	json_dumpf(doc, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(doc);
}

/* ---- the command ------------------------------------------------------ */

static int db_fail(const struct ax_app *app, struct ax_db *db, int err)
{
	int rc = ax_app_error(app, ax_app_exit_code(err), "db prune: %s",
			      ax_db_errmsg(db));
	ax_db_close(db);
	return rc;
}

/* The plan, on a read-only handle: nothing is written. */
static int look(struct ax_app *app, const struct args *a,
		struct ax_db_prune_plan **plan)
{
	struct ax_db *db;
	struct ax_db_prune_opts o = prune_opts_of(a);
	int rc = ax_app_open_db(app, true, &db);
	if (rc)
		return rc;
	int err = ax_db_prune_plan(db, &o, plan);
	if (err)
		return db_fail(app, db, err);
	ax_db_close(db);
	rc = check_named(app, *plan);
	if (rc)
		ax_db_prune_plan_free(*plan), *plan = NULL;
	return rc;
}

/* Remove, then VACUUM.  Runs removed but a failed VACUUM still print
 * what was removed before the error (exit 5). */
static int remove_runs(struct ax_app *app, const struct args *a,
		       long long before)
{
	struct ax_db *db;
	struct ax_db_prune_plan *done = NULL;
	struct ax_db_prune_opts o = prune_opts_of(a);
	int rc = ax_app_open_db(app, false, &db);
	if (rc)
		return rc;
	int err = ax_db_prune(db, &o, &done);
	if (err)
		return db_fail(app, db, err);
	int verr = ax_db_vacuum(db);
	char msg[AX_APP_MSG_MAX];
	snprintf(msg, sizeof(msg), "%s", ax_db_errmsg(db));
	ax_db_close(db);
	print_out(app, a, done, false, before, file_bytes(app->db_path));
	ax_db_prune_plan_free(done);
	if (verr)
		return ax_app_error(app, ax_app_exit_code(verr),
				    "db prune: the runs were removed, but %s; "
				    "the file keeps its size until a VACUUM "
				    "succeeds (run db prune again)",
				    msg);
	return 0;
}

static int prune_main(struct ax_app *app, int argc, char **argv)
{
	struct args a = {.keep_last = DEFAULT_KEEP_LAST, .weekly = true};
	struct ax_db_prune_plan *plan = NULL;
	a.ids = calloc((size_t)argc + 1, sizeof(*a.ids));
	int rc = a.ids ? parse(app, argc, argv, &a)
		       : ax_app_error(app, AX_EXIT_FAIL, "out of memory");
	if (rc == 0)
		rc = look(app, &a, &plan);
	if (rc == 0) {
		long long before = file_bytes(app->db_path);
		if (a.yes && plan->n_removed)
			rc = remove_runs(app, &a, before);
		else
			print_out(app, &a, plan, !a.yes, before, before);
	}
	ax_db_prune_plan_free(plan);
	free(a.ids);
	return rc == -2 ? AX_EXIT_OK : rc;
}

const struct ax_cli_cmd ax_cmd_db_prune = {
    .name = "db prune",
    .summary = "remove old runs by a retention policy (a dry run unless "
	       "--yes)",
    .usage = "[--keep-last N] [--weekly | --no-weekly] [--run ID ...] "
	     "[--yes] [--json]",
    .details =
	"Runs form series: a run's label (runs stored before labels: its "
	"host and\n"
	"device) and its kind (run, tune, monitor, recommend).  In each "
	"series the\n"
	"newest N runs are kept (--keep-last, default 30) and, before them, "
	"the newest\n"
	"run of each ISO week (UTC, by start time; --no-weekly keeps only "
	"the last N).\n"
	"Always kept, whatever the policy: every run a baseline uses "
	"(`axbench\n"
	"baseline list`), every tuning session's run (later tuning uses its "
	"trials as\n"
	"priors, and trials name its results without ON DELETE CASCADE), "
	"and every run\n"
	"still running.  --run ID removes exactly the runs named instead; "
	"one of those\n"
	"kept runs is refused (exit 2, nothing removed), with the fix.\n"
	"Without --yes nothing is written: the runs that would go are "
	"listed.  With\n"
	"--yes they are removed in one transaction, with their results, "
	"samples, power\n"
	"and telemetry (Ctrl-C before the commit leaves the database as it "
	"was), then\n"
	"VACUUM shrinks the file; the sizes before and after are printed.  "
	"--json\n"
	"prints one document (docs/JSON.md#db-prune).",
    .examples = {"axbench db prune                      # what would go, "
		 "nothing removed",
		 "axbench db prune --keep-last 10 --yes # remove it, then "
		 "VACUUM",
		 "axbench db prune --run 12 --run 13 --yes   # exactly these "
		 "runs"},
    .opts = prune_opts,
    .fn = prune_main,
};
