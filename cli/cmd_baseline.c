/* cli/cmd_baseline.c - `axbench baseline save NAME [--run ID]` and
 * `axbench baseline list`: named runs for `compare baseline:NAME`. */
#include "cli/cli.h"

#include "core/db.h"
#include "core/db_rows.h"
#include "core/error.h"
#include "core/suggest.h"
#include "core/text.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_RUN = 1, OPT_RUNS, OPT_LAST, OPT_ALLOW_TUNE };

/* The most runs one baseline names. */
#define MAX_BASELINE_RUNS 100

static const struct ax_cli_opt baseline_opts[] = {
    {OPT_RUN, "run", 'r', "ID|last",
     "the run to name, last~N the N-th before the newest (save only; "
     "default: last; `axbench runs` lists them)"},
    {OPT_RUNS, "runs", 0, "A,B,...",
     "several runs as one baseline: compare pools them and allows for "
     "the spread between them (save only; default: one run, --run)"},
    {OPT_LAST, "last", 0, "K",
     "the K newest runs of `axbench run` as one baseline (save only; "
     "default: one run, --run)"},
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
static int check_run(struct ax_app *app, struct ax_db *db, const char *text,
		     int64_t id, bool allow_tune)
{
	struct ax_db_runs runs;
	struct ax_db_filter f = {.run_ids = &id, .n_run_ids = 1};
	if (ax_db_run_rows(db, &f, &runs)) {
		ax_db_runs_free(&runs);
		return ax_app_error(app, AX_EXIT_STORAGE, "baseline save: %s",
				    ax_db_errmsg(db));
	}
	/* A run that is gone since it was resolved has nothing stored. */
	const struct ax_db_run_row none = {.n_results = 0};
	const struct ax_db_run_row *r = runs.n ? runs.v[0] : &none;
	const char *kind = r->kind, *label = r->label, *status = r->status;
	long long n = r->n_results > 0 ? r->n_results : 0;
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
		    ax_app_error(app, AX_EXIT_USAGE,
				 "baseline save: %s is a monitor run: it holds "
				 "power readings and no results, so later "
				 "runs would have nothing to be compared "
				 "with; %s",
				 who, pick);
	else if (n == 0)
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "baseline save: %s stored no results (status "
				  "%s), so later runs would have nothing to be "
				  "compared with; %s",
				  who, status ? ax_term(status) : "unknown",
				  pick);
	else if (kind && strcmp(kind, "tune") == 0 && !allow_tune)
		rc = ax_app_error(
		    app, AX_EXIT_USAGE,
		    "baseline save: %s is a tuning session (%lld results): a "
		    "tuning session measures many configurations once each, "
		    "not the profile's cases, so it is no baseline for the "
		    "runs compared with it; %s, or pass --allow-tune to name "
		    "this tuning session anyway",
		    who, n, pick);
	ax_db_runs_free(&runs);
	return rc;
}

/* Which runs `baseline save` names: --run, --runs or --last. */
struct pick {
	const char *run;  /* --run ID|last */
	const char *runs; /* --runs A,B,... */
	int last;	  /* --last K; 0: not given */
	bool allow_tune;
};

/* --runs A,B,C: each an id or "last", resolved and checked. */
static int pick_listed(struct ax_app *app, struct ax_db *db,
		       const struct pick *p, int64_t *ids, int *n)
{
	char *list = strdup(p->runs), *save_ptr = NULL;
	int rc = list ? 0 : ax_app_error(app, AX_EXIT_STORAGE, "out of memory");
	for (char *t = list ? strtok_r(list, ",", &save_ptr) : NULL;
	     t && rc == 0; t = strtok_r(NULL, ",", &save_ptr)) {
		if (*n == MAX_BASELINE_RUNS)
			rc = ax_app_error(app, AX_EXIT_USAGE,
					  "baseline save: --runs names more "
					  "than %d runs",
					  MAX_BASELINE_RUNS);
		else if ((rc = ax_app_resolve_run(app, db, "baseline save", t,
						  &ids[*n])) == 0 &&
			 (rc = check_run(app, db, t, ids[*n], p->allow_tune)) ==
			     0)
			(*n)++;
	}
	if (rc == 0 && *n == 0)
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "baseline save: --runs '%s' names no run; "
				  "give ids like 3,4,5",
				  p->runs);
	free(list);
	return rc;
}

/* --last K: the K newest runs of `axbench run` that stored results. */
static int pick_last(struct ax_app *app, struct ax_db *db, const struct pick *p,
		     int64_t *ids, int *n)
{
	struct ax_db_runs runs;
	if (ax_db_run_rows(db, NULL, &runs)) {
		ax_db_runs_free(&runs);
		return ax_app_error(app, AX_EXIT_STORAGE, "baseline save: %s",
				    ax_db_errmsg(db));
	}
	/* ax_db_run_rows lists the newest first. */
	for (size_t i = 0; i < runs.n && *n < p->last; i++) {
		const struct ax_db_run_row *r = runs.v[i];
		if (r->kind && strcmp(r->kind, "run") == 0 && r->n_results > 0)
			ids[(*n)++] = r->id;
	}
	ax_db_runs_free(&runs);
	if (*n < p->last)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "baseline save: --last %d, but %s holds "
				    "%d run%s of `axbench run` with results; "
				    "run more, or ask for fewer (`axbench "
				    "runs` lists them)",
				    p->last, app->db_path, *n,
				    *n == 1 ? "" : "s");
	return 0;
}

static int pick_runs(struct ax_app *app, struct ax_db *db, const struct pick *p,
		     int64_t *ids, int *n)
{
	*n = 0;
	if ((p->run != NULL) + (p->runs != NULL) + (p->last > 0) > 1)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "baseline save: give one of --run, --runs "
				    "and --last");
	if (p->runs)
		return pick_listed(app, db, p, ids, n);
	if (p->last)
		return pick_last(app, db, p, ids, n);
	const char *text = p->run ? p->run : "last";
	int rc = ax_app_resolve_run(app, db, "baseline save", text, &ids[0]);
	if (rc == 0)
		rc = check_run(app, db, text, ids[0], p->allow_tune);
	*n = rc == 0;
	return rc;
}

/* "3" or "3, 4 and 5" for the message. */
static void say_saved(const char *name, const int64_t *ids, int n)
{
	printf("baseline %s = run%s ", name, n == 1 ? "" : "s");
	for (int i = 0; i < n; i++)
		printf("%s%lld",
		       i == 0	    ? ""
		       : i == n - 1 ? " and "
				    : ", ",
		       (long long)ids[i]);
	putchar('\n');
}

static int save(struct ax_app *app, const char *name, const struct pick *p)
{
	if (!valid_name(name))
		return ax_app_error(app, AX_EXIT_USAGE,
				    "baseline save: name '%s' must be 1-64 "
				    "letters, digits, '.', '_' or '-'",
				    name);
	struct ax_db *db;
	int64_t ids[MAX_BASELINE_RUNS];
	int n = 0;
	/* Read-only first, so that a mistyped --db path is not created and
	 * a run refused here leaves the file as it was. */
	int rc = ax_app_open_db(app, true, &db);
	if (rc)
		return rc;
	rc = pick_runs(app, db, p, ids, &n);
	ax_db_close(db);
	if (rc)
		return rc;
	if ((rc = ax_app_open_db(app, false, &db)))
		return rc;
	/* The runs were resolved above, so what fails here is storage (a
	 * locked or full database): exit as its cause says, not 2. */
	int err = ax_db_baseline_save(db, name, ids, n);
	if (err)
		rc = ax_app_error(app, ax_app_exit_code(err),
				  "baseline save: %s", ax_db_errmsg(db));
	if (rc == 0 && app->verbosity >= 0)
		say_saved(name, ids, n);
	ax_db_close(db);
	return rc;
}

/* "3,4,5": a baseline's runs (its run_ids, else its run_id). */
static void runs_text(const struct ax_db_baseline_row *b, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < b->n_run_ids && used < len; i++)
		used +=
		    (size_t)snprintf(buf + used, len - used, "%s%lld",
				     i ? "," : "", (long long)b->run_ids[i]);
	if (!buf[0])
		snprintf(buf, len, "%lld", (long long)b->run_id);
}

static void print_list(const struct ax_db_baselines *l)
{
	char runs[256];
	printf("%-24s %-16s  %s\n", "NAME", "RUNS", "CREATED");
	for (size_t i = 0; i < l->n; i++) {
		runs_text(&l->v[i], runs, sizeof(runs));
		printf("%-24s %-16s  %s\n", ax_term(l->v[i].name), runs,
		       ax_term(l->v[i].created_at));
	}
	if (l->n == 0)
		printf("(no baselines; save one with `axbench "
		       "baseline save NAME`)\n");
}

static int list(struct ax_app *app)
{
	struct ax_db *db;
	struct ax_db_baselines b;
	int rc = ax_app_open_db(app, true, &db);
	if (rc)
		return rc;
	if (ax_db_baseline_rows(db, &b)) {
		fprintf(stderr, "axbench: baseline list: %s\n",
			ax_db_errmsg(db));
		ax_db_baselines_free(&b);
		ax_db_close(db);
		return AX_EXIT_STORAGE;
	}
	if (app->json) {
		json_t *doc = ax_db_baselines_json(&b);
		json_dumpf(doc, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(doc);
	} else {
		print_list(&b);
	}
	ax_db_baselines_free(&b);
	ax_db_close(db);
	return 0;
}

/* baseline save NAME [--run ID | --runs A,B | --last K] [--allow-tune]
 * | baseline list */
static int dispatch(struct ax_app *app, char **pos, int n, const struct pick *p)
{
	if (n == 2 && strcmp(pos[0], "save") == 0)
		return save(app, pos[1], p);
	if (n == 1 && strcmp(pos[0], "list") == 0 && !p->run && !p->runs &&
	    !p->last && !p->allow_tune)
		return list(app);
	/* a mistyped subcommand: the nearest one first */
	char hint[128] = "";
	if (n >= 1 && strcmp(pos[0], "save") && strcmp(pos[0], "list")) {
		struct ax_suggest sg;
		ax_suggest_init(&sg, pos[0]);
		ax_suggest_add(&sg, "save");
		ax_suggest_add(&sg, "list");
		if (sg.best)
			snprintf(hint, sizeof(hint),
				 "no subcommand '%s'; did you mean '%s'? ",
				 ax_term(pos[0]), sg.best);
	}
	return ax_app_error(app, AX_EXIT_USAGE,
			    "baseline: %suse 'baseline save NAME [--run ID | "
			    "--runs A,B,... | --last K] [--allow-tune]' or "
			    "'baseline list'",
			    hint);
}

static int parse_last(struct ax_cli_iter *it, struct pick *p)
{
	long long k;
	if (ax_cli_parse_int(it, 1, MAX_BASELINE_RUNS, &k))
		return AX_EXIT_USAGE;
	p->last = (int)k;
	return 0;
}

static int baseline_main(struct ax_app *app, int argc, char **argv)
{
	struct ax_cli_iter it;
	struct pick p = {0};
	int opt, rc = 0;
	ax_cli_iter_init(&it, app, &ax_cmd_baseline, argc, argv);
	while (rc == 0 && (opt = ax_cli_next(&it)) > 0)
		if (opt == OPT_RUN)
			p.run = it.optarg;
		else if (opt == OPT_RUNS)
			p.runs = it.optarg;
		else if (opt == OPT_LAST)
			rc = parse_last(&it, &p);
		else if (opt == OPT_ALLOW_TUNE)
			p.allow_tune = true;
	char **pos = it.positional;
	int n = it.n_positional;
	if (rc == 0)
		rc = ax_cli_parse_end(&it, opt, 1, 2);
	if (rc == AX_CLI_CONTINUE)
		rc = dispatch(app, pos, n, &p);
	ax_cli_iter_release(&it);
	return rc;
}

const struct ax_cli_cmd ax_cmd_baseline = {
    .name = "baseline",
    .summary = "name runs as a baseline, or list baselines",
    .usage = "save NAME [--run ID|last | --runs A,B,... | --last K] "
	     "[--allow-tune] | list",
    .details = "A baseline names a run, or several, so that CI can compare "
	       "against it with\n"
	       "`axbench compare baseline:NAME last`. Saving a name again "
	       "moves it to the\n"
	       "new runs.  Several runs (--runs, --last K: the K newest runs "
	       "of `axbench run`)\n"
	       "are replicates: compare pools their samples and takes the "
	       "spread between\n"
	       "them, the noise between processes, into its minimum "
	       "effect.\n"
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
		 "axbench baseline save main --last 3     # the 3 newest runs, "
		 "one baseline",
		 "axbench baseline list                   # every baseline and "
		 "its run"},
    .opts = baseline_opts,
    .fn = baseline_main,
};
