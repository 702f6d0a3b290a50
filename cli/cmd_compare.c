/* cli/cmd_compare.c - `axbench compare BASE CAND`: the CI regression
 * check.  Verdict rules live in reports/compare.h; this file resolves the
 * two sides, writes every requested file, then picks the exit status. */
#include "app/suite_doc.h"
#include "cli/cli.h"

#include "core/db.h"
#include "core/error.h"
#include "core/outfile.h"
#include "reports/compare.h"
#include "suites/registry.h"
#include "suites/suite.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	OPT_THRESHOLD = 1,
	OPT_THRESHOLD_FOR,
	OPT_JSON,
	OPT_MARKDOWN,
	OPT_JUNIT,
	OPT_STRICT,
};

#define MAX_RULES 32

extern const struct ax_cli_cmd ax_cmd_compare;

static const struct ax_cli_opt compare_opts[] = {
    {OPT_THRESHOLD, "threshold", 't', "PCT",
     "minimum effect size in percent (default 2)"},
    {OPT_THRESHOLD_FOR, "threshold-for", 0, "GLOB=PCT",
     "minimum effect for suites matching GLOB (repeatable; last match "
     "wins; default: --threshold for every suite)"},
    {OPT_JSON, "json", 0, "[FILE]",
     "the comparison as JSON: to FILE (after BASE and CAND, or "
     "--json=FILE), or alone on stdout with no FILE or '-' (default: "
     "the text table)"},
    {OPT_MARKDOWN, "markdown", 0, "FILE",
     "also write a Markdown summary (CI job summary, PR comment; "
     "default: not written)"},
    {OPT_JUNIT, "junit", 0, "FILE",
     "also write JUnit XML (one test case per result; default: not "
     "written)"},
    {OPT_STRICT, "strict", 0, NULL,
     "no 'noisy' verdict (a result that missed its noise target keeps "
     "its statistical verdict), and exit 3 when a verdict is ambiguous "
     "and nothing regressed (default: exit 0)"},
    {0},
};

/* One side of the comparison: which database and which run. */
struct side {
	const char *spec; /* as given */
	char *path;	  /* database file (malloc'd) */
	struct ax_db *db;
	int64_t run_id;
	int64_t *run_ids; /* a baseline's runs (malloc'd), else &run_id */
	int n_run_ids;
	char label[512];
	struct ax_db_results results;
};

static bool is_run_spec(const char *s)
{
	int back;
	if (ax_app_parse_last(s, &back) || strncmp(s, "baseline:", 9) == 0)
		return true;
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* Split spec into a database path and a run spec (see usage). */
static int split_spec(const struct ax_app *app, struct side *s,
		      const char **run)
{
	if (is_run_spec(s->spec)) {
		s->path = strdup(app->db_path);
		*run = s->spec;
		return 0;
	}
	if (access(s->spec, F_OK) == 0) {
		s->path = strdup(s->spec);
		*run = "last";
		return 0;
	}
	const char *colon = strstr(s->spec, ":baseline:");
	if (!colon)
		colon = strrchr(s->spec, ':');
	if (colon && is_run_spec(colon + 1)) {
		s->path = strndup(s->spec, (size_t)(colon - s->spec));
		*run = colon + 1;
		if (s->path && access(s->path, F_OK) == 0)
			return 0;
	}
	return ax_app_error(app, AX_EXIT_USAGE,
			    "compare: '%s' is not a run id, 'last', "
			    "'last~N', 'baseline:NAME', an existing "
			    "database file or "
			    "FILE:RUN; see 'axbench help compare'",
			    s->spec);
}

/* "baseline:main (run 3)" or "baseline:main (runs 3,4,5)". */
static void baseline_label(char *buf, size_t len, const char *run,
			   struct side *s)
{
	size_t used = (size_t)snprintf(buf, len, "%s (run%s ", run,
				       s->n_run_ids == 1 ? "" : "s");
	for (int i = 0; i < s->n_run_ids && used < len; i++)
		used +=
		    (size_t)snprintf(buf + used, len - used, "%s%lld",
				     i ? "," : "", (long long)s->run_ids[i]);
	if (used < len)
		snprintf(buf + used, len - used, ")");
	s->run_id = s->run_ids[s->n_run_ids - 1];
}

/*
 * "last" ("last~N": N runs before it): the newest run of kind "run"
 * (AX_RUN_KIND_SQL): a tuning
 * session, a monitor, recommend --measure or a paired comparison
 * measures something else than the cases a CI run compares, so it is
 * named by its id when meant.  (ax_app_resolve_run keeps every kind but
 * a monitor's: `baseline save` and `results --run last` name a tune run
 * with "last", and say what it is.)
 */
static bool is_plain(const char *kind) { return strcmp(kind, "run") == 0; }

/* Say why "last" names no run: none at all, or none of kind "run". */
static int no_last_run(const struct ax_app *app, const struct side *s,
		       const char *run, size_t n_plain)
{
	if (n_plain > 0)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "compare: %s: %s holds %zu run%s of "
				    "`axbench run`, so 'last' is the newest "
				    "and 'last~%zu' the oldest",
				    run, s->path, n_plain,
				    n_plain == 1 ? "" : "s", n_plain - 1);
	size_t n_runs = 0;
	struct ax_db_runs runs;
	if (ax_db_run_rows(s->db, NULL, &runs) == 0) {
		n_runs = runs.n;
		ax_db_runs_free(&runs);
	}
	if (n_runs == 0)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "compare: %s: %s holds no runs yet; run "
				    "`axbench run` first",
				    s->spec, s->path);
	return ax_app_error(app, AX_EXIT_USAGE,
			    "compare: %s: 'last' is the newest run of "
			    "`axbench run`, and %s holds none (its %zu runs "
			    "are tuning sessions, monitors, recommend or "
			    "paired runs); name one by its id (`axbench "
			    "runs` lists them)",
			    s->spec, s->path, n_runs);
}

static int resolve_run(const struct ax_app *app, struct side *s,
		       const char *run)
{
	int rc, back;
	size_t n_plain;
	if (ax_app_parse_last(run, &back)) {
		if ((rc = ax_app_nth_last_run(s->db, is_plain, back, &s->run_id,
					      &n_plain)) == AX_ENOTFOUND)
			return no_last_run(app, s, run, n_plain);
	} else if (strncmp(run, "baseline:", 9) == 0)
		rc = ax_db_baseline_runs(s->db, run + 9, &s->run_ids,
					 &s->n_run_ids);
	else if (!ax_app_parse_id(run, &s->run_id))
		return ax_app_error(app, AX_EXIT_USAGE,
				    "compare: '%s' is not a run id: give a "
				    "whole number from 1 to %lld, 'last', "
				    "'last~N' (the N-th run before it) or "
				    "'baseline:NAME'",
				    s->spec, (long long)INT64_MAX);
	else
		rc = ax_db_run_exists(s->db, s->run_id);
	/* A missing run or baseline is the caller's mistake (2); a lookup
	 * that failed is storage (5). */
	if (rc)
		/* The database's message names the file and the fix. */
		return ax_app_error(app, ax_app_exit_code(rc),
				    "compare: %s: %s%s", s->spec,
				    ax_db_errmsg(s->db),
				    strncmp(run, "baseline:", 9)
					? ""
					: " (`axbench baseline list` shows the "
					  "saved ones)");
	char what[300];
	if (strncmp(run, "baseline:", 9) == 0)
		baseline_label(what, sizeof(what), run, s);
	else
		snprintf(what, sizeof(what), "run %lld", (long long)s->run_id);
	if (strcmp(s->path, app->db_path) != 0)
		snprintf(s->label, sizeof(s->label), "%s %s", s->path, what);
	else
		snprintf(s->label, sizeof(s->label), "%s", what);
	return 0;
}

static int load_side(const struct ax_app *app, struct side *s)
{
	const char *run = NULL;
	int rc = split_spec(app, s, &run);
	if (rc)
		return rc;
	if (!s->path)
		return ax_app_error(app, AX_EXIT_STORAGE, "out of memory");
	if ((rc = ax_app_open_db_at(app, s->path, true, "compare", &s->db)))
		return rc;
	if ((rc = resolve_run(app, s, run)))
		return rc;
	struct ax_db_filter f = {.run_ids =
				     s->run_ids ? s->run_ids : &s->run_id,
				 .n_run_ids = s->run_ids ? s->n_run_ids : 1,
				 .with_samples = true};
	if (ax_db_result_rows(s->db, &f, &s->results)) {
		fprintf(stderr, "axbench: compare: %s\n", ax_db_errmsg(s->db));
		return AX_EXIT_STORAGE;
	}
	if (s->results.n == 0)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "compare: %s (%s) holds no results; "
				    "nothing to compare",
				    s->spec, s->label);
	/* Parameters typed as in every document (a bool is a boolean);
	 * matching uses the stored hash, which keeps the canonical text. */
	for (size_t i = 0; i < s->results.n; i++)
		ax_app_type_row_params(s->results.v[i]);
	return ax_app_filter_device(app, &s->results, app->device_sel);
}

/* Is param a tunable of the built-in or registered suite (the table's
 * AX_PARAM_TUNABLE), for compare's matching on the case? */
static bool suite_tunable(const char *suite, const char *param)
{
	const struct ax_suite *s = ax_suite_find(suite);
	for (int i = 0; s && i < s->n_params; i++)
		if (strcmp(s->params[i].name, param) == 0)
			return s->params[i].flags & AX_PARAM_TUNABLE;
	return false;
}

/* Is v, as stored, its parameter's default in the suite's table? */
static bool suite_default(const char *suite, const struct ax_db_param *v)
{
	const struct ax_suite *s = ax_suite_find(suite);
	for (int i = 0; s && i < s->n_params; i++) {
		const struct ax_param_def *d = &s->params[i];
		if (strcmp(d->name, v->name) != 0)
			continue;
		char def[64], got[2048];
		ax_param_format(d, d->def, def, sizeof(def));
		return !strcmp(def,
			       ax_db_param_value_text(v, got, sizeof(got)));
	}
	return false;
}

static void side_release(struct side *s)
{
	ax_db_results_free(&s->results);
	ax_db_close(s->db);
	free(s->path);
	free(s->run_ids);
}

/* "5", "5%" or "0.5" percent as a fraction. */
static int parse_pct(const struct ax_app *app, const char *opt,
		     const char *text, double *out)
{
	char *end;
	double v = strtod(text, &end);
	if (end != text && *end == '%')
		end++;
	if (end == text || *end || !(v >= 0 && v <= 1000))
		return ax_app_error(app, AX_EXIT_USAGE,
				    "compare: %s takes a percentage between 0 "
				    "and 1000, like 2 or 2.5%% (got '%s')",
				    opt, text);
	*out = v / 100;
	return 0;
}

struct compare_args {
	struct ax_compare_opts o;
	struct ax_compare_rule rules[MAX_RULES];
	char *globs[MAX_RULES];
	const char *json, *markdown, *junit;
	bool json_stdout; /* --json with no FILE, or --json - */
	bool strict;
	char **pos;
	int n_pos;
};

static int threshold_for(const struct ax_app *app, struct compare_args *a,
			 const char *text)
{
	const char *eq = strrchr(text, '=');
	if (!eq || eq == text)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "compare: --threshold-for takes GLOB=PCT, "
				    "like 'gemm*=5' (got '%s')",
				    text);
	if (a->o.n_rules == MAX_RULES)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "compare: at most %d --threshold-for "
				    "rules",
				    MAX_RULES);
	int i = a->o.n_rules;
	if (parse_pct(app, "--threshold-for", eq + 1, &a->rules[i].threshold))
		return AX_EXIT_USAGE;
	a->globs[i] = strndup(text, (size_t)(eq - text));
	a->rules[i].glob = a->globs[i];
	a->o.n_rules++;
	return 0;
}

/* --json [FILE]: a file, or stdout ("-" or none). */
static int json_option(struct compare_args *a, struct ax_cli_iter *it)
{
	if (ax_cli_take_optional(it, 2))
		return AX_EXIT_USAGE;
	bool to_stdout = !it->optarg || strcmp(it->optarg, "-") == 0;
	a->json_stdout = to_stdout;
	a->json = to_stdout ? NULL : it->optarg;
	return 0;
}

static int parse_args(struct ax_app *app, int argc, char **argv,
		      struct compare_args *a, struct ax_cli_iter *it)
{
	int opt, rc = 0;
	ax_compare_opts_init(&a->o);
	a->o.rules = a->rules;
	a->o.is_tunable = suite_tunable;
	a->o.is_default = suite_default;
	ax_cli_iter_init(it, app, &ax_cmd_compare, argc, argv);
	while (rc == 0 && (opt = ax_cli_next(it)) > 0) {
		if (opt == OPT_THRESHOLD)
			rc = parse_pct(app, "--threshold", it->optarg,
				       &a->o.threshold);
		else if (opt == OPT_THRESHOLD_FOR)
			rc = threshold_for(app, a, it->optarg);
		else if (opt == OPT_JSON)
			rc = json_option(a, it);
		else if (opt == OPT_MARKDOWN)
			a->markdown = it->optarg;
		else if (opt == OPT_JUNIT)
			a->junit = it->optarg;
		else if (opt == OPT_STRICT)
			a->strict = a->o.strict = true;
	}
	if (rc)
		return rc;
	int end = ax_cli_parse_end(it, opt, 2, 2);
	if (end != AX_CLI_CONTINUE)
		return end == AX_EXIT_OK ? -2 : end;
	a->pos = it->positional;
	a->n_pos = it->n_positional;
	return 0;
}

/* Write one output file through core/outfile.h (a temporary file beside
 * it, then rename): on a full disk the old file stays whole.  Prints the
 * error, with the system's reason, and returns an exit code. */
static int write_file(const struct ax_app *app, const char *path,
		      const struct ax_compare *c,
		      int (*w)(const struct ax_compare *, FILE *))
{
	char err[512];
	struct ax_outfile o;
	if (!path)
		return 0;
	if (ax_outfile_open(&o, path, err, sizeof(err)))
		return ax_app_error(app, AX_EXIT_STORAGE, "compare: %s", err);
	/* A write error is sticky on the stream, and commit reports it
	 * with its errno; anything else the writer refused is said here. */
	int rc = w(c, o.f);
	if (rc && !ferror(o.f)) {
		ax_outfile_abort(&o);
		return ax_app_error(app, AX_EXIT_STORAGE,
				    "compare: writing %s failed: %s", path,
				    ax_strerror(rc));
	}
	if (ax_outfile_commit(&o, err, sizeof(err)))
		return ax_app_error(app, AX_EXIT_STORAGE, "compare: %s", err);
	return 0;
}

/* The documented exit status of a finished comparison. */
static int verdict_exit(const struct ax_app *app, const struct ax_compare *c,
			bool strict)
{
	if (c->regressions)
		return AX_EXIT_FAIL;
	if (ax_compare_n_compared(c) == 0)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "compare: nothing comparable: no result "
				    "matched on device, suite and parameters "
				    "with usable samples on both sides");
	if (strict && c->count[AX_VERDICT_AMBIGUOUS])
		return AX_EXIT_AMBIGUOUS;
	return AX_EXIT_OK;
}

static int run_compare(struct ax_app *app, struct compare_args *a,
		       struct side *base, struct side *cand)
{
	struct ax_compare *c = NULL;
	char err[512];
	if (ax_compare_run(&base->results, &cand->results, base->label,
			   cand->label, &a->o, &c, err, sizeof(err)))
		return ax_app_error(app, AX_EXIT_USAGE, "compare: %s", err);
	/* Every file is attempted even when one fails, so CI gets all it
	 * can; the first failure decides the exit status. */
	int rj = write_file(app, a->json, c, ax_compare_write_json);
	int rm = write_file(app, a->markdown, c, ax_compare_write_markdown);
	int rx = write_file(app, a->junit, c, ax_compare_write_junit);
	int rc = rj ? rj : rm ? rm : rx;
	/* --json with no FILE (or '-'), before or after the command name,
	 * makes stdout the JSON document and nothing else; the text table
	 * is the default. */
	if (app->json || a->json_stdout)
		ax_compare_write_json(c, stdout);
	else if (app->verbosity >= 0)
		ax_compare_write_text(c, stdout, ax_cli_term_width(stdout));
	else
		ax_compare_write_regressions(c, stdout,
					     ax_cli_term_width(stdout));
	fflush(stdout);
	if (rc == 0)
		rc = verdict_exit(app, c, a->strict);
	ax_compare_destroy(c);
	return rc;
}

static int compare_main(struct ax_app *app, int argc, char **argv)
{
	struct compare_args a;
	struct ax_cli_iter it;
	struct side base = {0}, cand = {0};
	memset(&a, 0, sizeof(a));
	int rc = parse_args(app, argc, argv, &a, &it);
	if (rc == 0) {
		base.spec = a.pos[0];
		cand.spec = a.pos[1];
		rc = load_side(app, &base);
		if (rc == 0)
			rc = load_side(app, &cand);
		if (rc == 0)
			rc = run_compare(app, &a, &base, &cand);
	}
	side_release(&base);
	side_release(&cand);
	for (int i = 0; i < a.o.n_rules; i++)
		free(a.globs[i]);
	ax_cli_iter_release(&it);
	return rc == -2 ? AX_EXIT_OK : rc;
}

const struct ax_cli_cmd ax_cmd_compare = {
    .name = "compare",
    .summary = "compare two runs; exit 1 on a regression (CI check)",
    .usage = "BASE CAND [--threshold PCT] [--threshold-for GLOB=PCT] "
	     "[--json [FILE]] [--markdown FILE] [--junit FILE] [--strict]",
    .details = "BASE and CAND are each a run id, 'last', 'last~N' (N runs "
	       "before it, as\n"
	       "git's HEAD~N), 'baseline:NAME', a database file (its newest "
	       "run) or FILE:RUN\n"
	       "with RUN as before. 'last' and "
	       "a file alone take\n"
	       "the newest run of `axbench run`: a tuning session, monitor, "
	       "recommend or\n"
	       "paired run is named by its id. Results are matched by "
	       "device fingerprint,\n"
	       "suite and canonical parameters; those left over, by their "
	       "case alone (the\n"
	       "parameters less the suite's tunables: a `run --tuned` "
	       "against a default\n"
	       "run), the row naming the tunables that differ.\n\n"
	       "Each pair is judged from its raw samples: Mann-Whitney U "
	       "(significant at p\n"
	       "< 0.05) and the Hodges-Lehmann shift with its 95% "
	       "interval, relative to the\n"
	       "BASE median. faster or slower: significant and the whole "
	       "interval beyond\n"
	       "the threshold; same: the whole interval within "
	       "+/-threshold; otherwise\n"
	       "ambiguous (also with fewer than 5 samples a side). "
	       "Direction-aware: for\n"
	       "GB/s higher is better, for times lower. A result that was "
	       "ok in BASE and\n"
	       "failed in CAND counts as a regression. Unmatched and "
	       "incomparable results\n"
	       "are listed with the reason. All files are written before "
	       "the exit.\n\n"
	       "Replicates - results of one side with the same device, "
	       "suite and parameters:\n"
	       "the rounds of `run --rounds N`, the runs of a baseline "
	       "saved with --runs or\n"
	       "--last - are pooled, and the spread between their medians "
	       "widens the minimum\n"
	       "effect. noisy: a change inside that spread, or one that a "
	       "side's missed noise\n"
	       "target can explain (its run's --max-noise); said and "
	       "counted, never a\n"
	       "regression (--strict judges the samples alone). Large "
	       "changes read as ratios\n"
	       "(\"18.6x slower\"), small ones in percent.\n\n"
	       "Every output states its minimum detectable effect (MDE): "
	       "per case the\n"
	       "threshold the interval had to clear plus the interval's "
	       "half-width, and the\n"
	       "median and range over the cases, with the runs a side "
	       "(baseline save --last K,\n"
	       "run --rounds K) that would bring the noise down to the "
	       "threshold.\n\n"
	       "Exit status: 0 no regression (improvements pass); 1 "
	       "regression; 2 usage\n"
	       "error or nothing comparable; 3 ambiguous verdicts with "
	       "--strict and no\n"
	       "regression; 5 file or database error.",
    .examples =
	{"axbench compare baseline:main last      # CI: exit 1 on a regression",
	 "axbench compare 3 7 --json -            # one JSON document on "
	 "stdout",
	 "axbench compare 3 7 --threshold 5 --markdown summary.md"},
    .opts = compare_opts,
    .fn = compare_main,
};
