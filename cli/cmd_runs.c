/*
 * cli/cmd_runs.c - `axbench runs`: the stored runs, newest first, with
 * what each one is (a run, a tuning session, a monitor, recommend's
 * measurements), its label, device, results and status, so that a run
 * is picked by its id (baseline save --run ID, compare, results --run)
 * rather than guessed with `last`.
 */
#include "cli/cli.h"
#include "core/interrupt.h"

#include "core/db.h"
#include "core/error.h"
#include "core/text.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_LIMIT = 1, OPT_ALL };

#define DEFAULT_LIMIT 20

static const struct ax_cli_opt runs_opts[] = {
    {OPT_LIMIT, "limit", 0, "N", "list the newest N runs (default 20)"},
    {OPT_ALL, "all", 0, NULL, "list every run (default: the newest 20)"},
    {0},
};

extern const struct ax_cli_cmd ax_cmd_runs;

/* A text that may not be stored, as the document shows it. */
static json_t *text_json(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* The fields `runs --json` shows of one run (the table's too): numbers
 * as numbers, null where nothing is stored. */
static json_t *brief(const struct ax_db_run_row *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", json_integer(r->id));
	json_object_set_new(o, "started_at", text_json(r->started_at));
	json_object_set_new(o, "kind", text_json(r->kind));
	json_object_set_new(o, "profile", text_json(r->profile));
	json_object_set_new(o, "label", text_json(r->label));
	json_object_set_new(o, "device", text_json(r->device.name));
	json_object_set_new(o, "n_results",
			    r->n_results == AX_DB_NONE
				? json_null()
				: json_integer(r->n_results));
	json_object_set_new(o, "status", text_json(r->status));
	return o;
}

enum {
	C_ID,
	C_STARTED,
	C_KIND,
	C_PROFILE,
	C_LABEL,
	C_DEVICE,
	C_RESULTS,
	C_STATUS,
	N_COLS
};

static const char *const heads[N_COLS] = {
    "ID",    "STARTED (UTC)", "KIND",	 "PROFILE",
    "LABEL", "DEVICE",	      "RESULTS", "STATUS",
};

/* "2026-12-01T21:48:19.123Z" as "2026-12-01 21:48:19"; anything else
 * as stored. */
static void started_text(const char *at, char *buf, size_t len)
{
	if (at && strlen(at) >= 19 && at[10] == 'T')
		snprintf(buf, len, "%.10s %.8s", at, at + 11);
	else
		snprintf(buf, len, "%s", at ? at : "-");
}

/* One cell as the terminal shows it (malloc'd): stored text ("-" where
 * none was stored) with its control characters escaped (core/text.h),
 * whole: a label or device name is never cut.  Escapes at most quadruple
 * a byte. */
static char *cell(const char *text)
{
	if (!text)
		text = "-";
	size_t len = 4 * strlen(text) + 1;
	char *buf = malloc(len);
	const char *shown = buf ? ax_text_term(text, buf, len) : NULL;
	if (shown && shown != buf)
		memcpy(buf, shown, strlen(shown) + 1); /* needed no escape */
	return buf;
}

/* s padded to width columns (left, or right for numbers); no padding
 * after the last column. */
static void put_cell(const char *s, size_t width, bool right, bool last)
{
	size_t pad = width - ax_text_chars(s);
	if (right)
		printf("%*s%s", (int)pad, "", s);
	else
		printf("%s%*s", s, last ? 0 : (int)pad, "");
	if (!last)
		fputs("  ", stdout);
}

/* A run's cells, as texts (NULL: "-"). */
static void run_cells(const struct ax_db_run_row *r, const char **v, char *id,
		      char *at, char *results, size_t len)
{
	snprintf(id, len, "%lld", (long long)r->id);
	started_text(r->started_at, at, len);
	snprintf(results, len, "%lld", (long long)r->n_results);
	v[C_ID] = id;
	v[C_STARTED] = at;
	v[C_KIND] = r->kind;
	v[C_PROFILE] = r->profile;
	v[C_LABEL] = r->label;
	v[C_DEVICE] = r->device.name;
	v[C_RESULTS] = r->n_results == AX_DB_NONE ? NULL : results;
	v[C_STATUS] = r->status;
}

/* The table, each column as wide as its widest cell. */
static int print_table(const struct ax_app *app,
		       struct ax_db_run_row *const *rows, size_t n)
{
	size_t width[N_COLS];
	char **cells = calloc(n * N_COLS + 1, sizeof(char *));
	if (!cells)
		return AX_EXIT_FAIL;
	for (int c = 0; c < N_COLS; c++)
		width[c] = ax_text_chars(heads[c]);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		char id[64], at[64], results[64];
		const char *v[N_COLS];
		run_cells(rows[i], v, id, at, results, sizeof(at));
		for (int c = 0; c < N_COLS && rc == 0; c++) {
			char *s = cells[i * N_COLS + c] = cell(v[c]);
			if (!s)
				rc = AX_EXIT_FAIL;
			else if (ax_text_chars(s) > width[c])
				width[c] = ax_text_chars(s);
		}
	}
	for (int c = 0; c < N_COLS && rc == 0; c++)
		put_cell(heads[c], width[c], c == C_ID || c == C_RESULTS,
			 c == N_COLS - 1);
	if (rc == 0)
		putchar('\n');
	for (size_t i = 0; i < n && rc == 0; i++) {
		for (int c = 0; c < N_COLS; c++)
			put_cell(cells[i * N_COLS + c], width[c],
				 c == C_ID || c == C_RESULTS, c == N_COLS - 1);
		putchar('\n');
	}
	for (size_t i = 0; i < n * N_COLS; i++)
		free(cells[i]);
	free(cells);
	if (rc)
		return ax_app_error(app, rc, "runs: out of memory");
	if (n == 0)
		printf("(no runs; measure with `axbench run`)\n");
	return 0;
}

/* --device keeps the runs on a matching stored device (the limit then
 * counts those); matching none is said (2), as for results.  They stay
 * at the front of l->v, *kept of them; l still frees them all. */
static int keep_on_device(const struct ax_app *app, struct ax_db_runs *l,
			  size_t *kept)
{
	const char *sel = app->device_sel;
	int rc;
	*kept = l->n;
	if (!sel || !strcmp(sel, "all"))
		return 0;
	if ((rc = ax_app_check_device(app, sel)))
		return rc;
	*kept = 0;
	for (size_t i = 0; i < l->n; i++) {
		struct ax_db_run_row *r = l->v[i];
		if (ax_app_row_on_device(&r->device, sel)) {
			l->v[i] = l->v[*kept];
			l->v[(*kept)++] = r;
		}
	}
	return *kept ? 0 : ax_app_no_device_match(app, sel);
}

/* The newest runs as one JSON array of their brief fields. */
static void print_json(struct ax_db_run_row *const *rows, size_t n)
{
	json_t *doc = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(doc, brief(rows[i]));
	json_dumpf(doc, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(doc);
}

static int list(struct ax_app *app, long long limit)
{
	struct ax_db *db;
	struct ax_db_runs all;
	size_t total = 0;
	int rc = ax_app_db(app, &db);
	if (rc)
		return rc;
	struct ax_db_filter f = {.stop = &ax_interrupted};
	if (ax_db_run_rows(db, &f, &all)) {
		ax_db_runs_free(&all);
		return ax_app_error(
		    app, ax_interrupted ? AX_EXIT_INTERRUPTED : AX_EXIT_STORAGE,
		    "runs: %s", ax_db_errmsg(db));
	}
	if ((rc = keep_on_device(app, &all, &total))) {
		ax_db_runs_free(&all);
		return rc;
	}
	size_t shown =
	    limit > 0 && (size_t)limit < total ? (size_t)limit : total;
	if (app->json)
		print_json(all.v, shown);
	else
		rc = print_table(app, all.v, shown);
	ax_db_runs_free(&all);
	/* The note follows the table it is about, also where both streams
	 * go to one place. */
	fflush(stdout);
	if (rc == 0 && shown < total && app->verbosity >= 0)
		fprintf(stderr,
			"axbench runs: the newest %zu of %zu runs; --all "
			"lists every one\n",
			shown, total);
	return rc;
}

static int runs_main(struct ax_app *app, int argc, char **argv)
{
	struct ax_cli_iter it;
	long long limit = DEFAULT_LIMIT;
	bool limit_given = false, all = false;
	int opt, rc = 0;
	ax_cli_iter_init(&it, app, &ax_cmd_runs, argc, argv);
	while (rc == 0 && (opt = ax_cli_next(&it)) > 0) {
		if (opt == OPT_LIMIT) {
			limit_given = true;
			if (ax_cli_parse_int(&it, 1, 1000000000, &limit))
				rc = AX_EXIT_USAGE;
		} else if (opt == OPT_ALL) {
			all = true;
		}
	}
	if (rc == 0) {
		int end = ax_cli_parse_end(&it, opt, 0, 0);
		rc = end == AX_CLI_CONTINUE ? 0 : end == AX_EXIT_OK ? -2 : end;
	}
	ax_cli_iter_release(&it);
	if (rc == 0 && all && limit_given)
		rc =
		    ax_app_error(app, AX_EXIT_USAGE,
				 "runs: --all lists every run and --limit %lld "
				 "the newest %lld; give one of them",
				 limit, limit);
	if (rc == 0)
		rc = list(app, all ? 0 : limit);
	return rc == -2 ? AX_EXIT_OK : rc;
}

const struct ax_cli_cmd ax_cmd_runs = {
    .name = "runs",
    .summary = "list the stored runs, newest first: id, kind, label, "
	       "device, status",
    .usage = "[--limit N | --all] [--json]",
    .details =
	"One line per run: its id, when it started (UTC), its kind (run; "
	"tune: a tuning\nsession's trials; monitor: telemetry only; "
	"recommend: recommend --measure),\nits profile, its label "
	"(run --label; by default HOST/DEVICE), its device, how\nmany "
	"results it stored and its status (complete, failed, interrupted, "
	"running,\nor abandoned when its process is gone).  Pick a run's ID "
	"for `baseline save\n--run ID`, `compare` or `results --run ID`.  "
	"--json prints one array of\nthose fields (null where nothing is "
	"stored); --device SEL keeps the runs on\nmatching devices.",
    .examples = {"axbench runs                      # the newest 20 runs",
		 "axbench runs --all --json         # every run, as one JSON "
		 "array",
		 "axbench baseline save main --run 12   # then name the one "
		 "you meant"},
    .opts = runs_opts,
    .needs = AX_APP_READ_ONLY_DB,
    .fn = runs_main,
};
