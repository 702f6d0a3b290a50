/* cli/cmd_baseline.c - `axbench baseline save NAME [--run ID]` and
 * `axbench baseline list`: named runs for `compare baseline:NAME`. */
#include "cli/cli.h"

#include "core/db.h"
#include "core/error.h"
#include "core/text.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_RUN = 1, OPT_ALLOW_TUNE };

static const struct ax_cli_opt baseline_opts[] = {
    {OPT_RUN, "run", 'r', "ID|last",
     "the run to name (save only; default: last; `axbench runs` lists "
     "them)"},
    {OPT_ALLOW_TUNE, "allow-tune", 0, NULL,
     "name a tuning session's run too (save only; default: refused)"},
    {0},
};

extern const struct ax_cli_cmd ax_cmd_baseline;

/* Names go into "baseline:NAME" specs and file names in CI scripts, so
 * they stay to a safe alphabet. */
static bool valid_name(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-", *s))
			return false;
	return true;
}

/*
 * A baseline is what later runs are compared with, case by case, so the
 * run must have measured cases: a monitor's run (power readings only) and
 * a run that stored no result are refused, and so is a tuning session's
 * run unless --allow-tune says it is meant (`--run last` right after a
 * tune names it).  Each refusal names the run, why, and what to do.
 */
static int check_run(struct ax_cli *cli, struct ax_db *db, const char *text,
		     int64_t id, bool allow_tune)
{
	json_t *runs = NULL;
	struct ax_db_filter f = {.run_ids = &id, .n_run_ids = 1};
	if (ax_db_runs(db, &f, &runs))
		return ax_cli_error(cli, AX_EXIT_STORAGE, "baseline save: %s",
				    ax_db_errmsg(db));
	const json_t *r = json_array_get(runs, 0);
	const char *kind = json_string_value(json_object_get(r, "kind"));
	const char *label = json_string_value(json_object_get(r, "label"));
	const char *status = json_string_value(json_object_get(r, "status"));
	long long n = json_integer_value(json_object_get(r, "n_results"));
	/* "run 3 (--run last: the newest run; label "ci main")" */
	char how[600] = "", who[700];
	if (strcmp(text, "last") == 0)
		snprintf(how, sizeof(how), "--run last: the newest run");
	if (label)
		snprintf(how + strlen(how), sizeof(how) - strlen(how),
			 "%slabel \"%s\"", how[0] ? "; " : "", ax_term(label));
	snprintf(who, sizeof(who), "run %lld%s%s%s", (long long)id,
		 how[0] ? " (" : "", how, how[0] ? ")" : "");
	const char *pick = "pick a run that measured the cases to compare "
			   "with from `axbench runs` and pass --run ID";
	int rc = 0;
	if (kind && strcmp(kind, "monitor") == 0)
		rc =
		    ax_cli_error(cli, AX_EXIT_USAGE,
				 "baseline save: %s is a monitor run: it holds "
				 "power readings and no results, so later "
				 "runs would have nothing to be compared "
				 "with; %s",
				 who, pick);
	else if (n == 0)
		rc = ax_cli_error(cli, AX_EXIT_USAGE,
				  "baseline save: %s stored no results (status "
				  "%s), so later runs would have nothing to be "
				  "compared with; %s",
				  who, status ? ax_term(status) : "unknown",
				  pick);
	else if (kind && strcmp(kind, "tune") == 0 && !allow_tune)
		rc = ax_cli_error(
		    cli, AX_EXIT_USAGE,
		    "baseline save: %s is a tuning session (%lld results): a "
		    "tuning session measures many configurations once each, "
		    "not the profile's cases, so it is no baseline for the "
		    "runs compared with it; %s, or pass --allow-tune to name "
		    "this tuning session anyway",
		    who, n, pick);
	json_decref(runs);
	return rc;
}

static int save(struct ax_cli *cli, const char *name, const char *run,
		bool allow_tune)
{
	if (!valid_name(name))
		return ax_cli_error(cli, AX_EXIT_USAGE,
				    "baseline save: name '%s' must be 1-64 "
				    "letters, digits, '.', '_' or '-'",
				    name);
	struct ax_db *db;
	int64_t id = 0;
	const char *text = run ? run : "last";
	/* Read-only first, so that a mistyped --db path is not created and
	 * a run refused here leaves the file as it was. */
	int rc = ax_cli_open_db(cli, true, &db);
	if (rc)
		return rc;
	rc = ax_cli_resolve_run(cli, db, "baseline save", text, &id);
	if (rc == 0)
		rc = check_run(cli, db, text, id, allow_tune);
	ax_db_close(db);
	if (rc)
		return rc;
	if ((rc = ax_cli_open_db(cli, false, &db)))
		return rc;
	/* The run was resolved above, so what fails here is storage (a
	 * locked or full database): exit as its cause says, not 2. */
	int err = ax_db_baseline_save(db, name, id);
	if (err)
		rc = ax_cli_error(cli, ax_cli_exit_code(err),
				  "baseline save: %s", ax_db_errmsg(db));
	if (rc == 0 && cli->verbosity >= 0)
		printf("baseline %s = run %lld\n", name, (long long)id);
	ax_db_close(db);
	return rc;
}

static int list(struct ax_cli *cli)
{
	struct ax_db *db;
	json_t *b = NULL;
	int rc = ax_cli_open_db(cli, true, &db);
	if (rc)
		return rc;
	if (ax_db_baselines(db, &b)) {
		fprintf(stderr, "axbench: baseline list: %s\n",
			ax_db_errmsg(db));
		ax_db_close(db);
		return AX_EXIT_STORAGE;
	}
	size_t i;
	json_t *o;
	if (cli->json) {
		json_dumpf(b, stdout, JSON_INDENT(2));
		putchar('\n');
	} else {
		printf("%-24s %8s  %s\n", "NAME", "RUN", "CREATED");
		json_array_foreach(b, i, o) printf(
		    "%-24s %8lld  %s\n",
		    ax_term(json_string_value(json_object_get(o, "name"))),
		    (long long)json_integer_value(json_object_get(o, "run_id")),
		    ax_term(
			json_string_value(json_object_get(o, "created_at"))));
		if (json_array_size(b) == 0)
			printf("(no baselines; save one with `axbench "
			       "baseline save NAME`)\n");
	}
	json_decref(b);
	ax_db_close(db);
	return 0;
}

/* baseline save NAME [--run ID] [--allow-tune] | baseline list */
static int dispatch(struct ax_cli *cli, char **pos, int n, const char *run,
		    bool allow_tune)
{
	if (n == 2 && strcmp(pos[0], "save") == 0)
		return save(cli, pos[1], run, allow_tune);
	if (n == 1 && strcmp(pos[0], "list") == 0 && !run && !allow_tune)
		return list(cli);
	return ax_cli_error(cli, AX_EXIT_USAGE,
			    "baseline: use 'baseline save NAME [--run ID] "
			    "[--allow-tune]' or 'baseline list'");
}

static int baseline_main(struct ax_cli *cli, int argc, char **argv)
{
	struct ax_cli_iter it;
	const char *run = NULL;
	bool allow_tune = false;
	int opt;
	ax_cli_iter_init(&it, cli, &ax_cmd_baseline, argc, argv);
	while ((opt = ax_cli_next(&it)) > 0)
		if (opt == OPT_RUN)
			run = it.optarg;
		else if (opt == OPT_ALLOW_TUNE)
			allow_tune = true;
	char **pos = it.positional;
	int n = it.n_positional;
	int rc = ax_cli_parse_end(&it, opt, 1, 2);
	if (rc == AX_CLI_CONTINUE)
		rc = dispatch(cli, pos, n, run, allow_tune);
	ax_cli_iter_release(&it);
	return rc;
}

const struct ax_cli_cmd ax_cmd_baseline = {
    .name = "baseline",
    .summary = "name a run as a baseline, or list baselines",
    .usage = "save NAME [--run ID|last] [--allow-tune] | list",
    .details = "A baseline names a run so that CI can compare against it "
	       "with `axbench\n"
	       "compare baseline:NAME last`. Saving a name again moves it "
	       "to the new run.\n"
	       "NAME is 1-64 letters, digits, '.', '_' or '-'.  `axbench "
	       "runs` lists the runs\n"
	       "to pick from.  A run that stored no results (a monitor's) is "
	       "refused, and\n"
	       "so is a tuning session's (its trials are many configurations "
	       "measured once\n"
	       "each, not the profile's cases) unless --allow-tune is given; "
	       "exit 2, and\n"
	       "nothing is written.",
    .examples = {"axbench runs && axbench baseline save main --run 12   # "
		 "name run 12 \"main\"",
		 "axbench baseline save main --run last   # name the newest "
		 "run \"main\"",
		 "axbench baseline list                   # every baseline and "
		 "its run"},
    .opts = baseline_opts,
    .fn = baseline_main,
};
