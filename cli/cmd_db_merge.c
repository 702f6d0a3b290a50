/*
 * cli/cmd_db_merge.c - `axbench db merge`, `db info` and `db check`: the
 * databases of many machines (a Slurm array's tasks, a fleet's nodes)
 * brought into one, and a look at what one holds and whether it holds it
 * soundly.  The work is core/db_merge.c's and core/db_info.c's; each
 * prints from the typed result core returns (core/db_admin.h).
 */
#include "app/merge_out.h"
#include "cli/cli.h"
#include "core/interrupt.h"

#include "core/db.h"
#include "core/db_admin.h"
#include "core/error.h"
#include "core/text.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern const struct ax_cli_cmd ax_cmd_db_merge;
extern const struct ax_cli_cmd ax_cmd_db_info;
extern const struct ax_cli_cmd ax_cmd_db_check;

static const struct ax_cli_opt no_opts[] = {{0}};

/* Positional arguments of a subcommand with no options of its own. */
static int parse_positional(struct ax_app *app, const struct ax_cli_cmd *cmd,
			    int argc, char **argv, int min, int max,
			    char ***pos, int *n)
{
	struct ax_cli_iter it;
	int opt;
	ax_cli_iter_init(&it, app, cmd, argc, argv);
	while ((opt = ax_cli_next(&it)) > 0)
		;
	int end = ax_cli_parse_end(&it, opt, min, max);
	*n = it.n_positional;
	*pos = NULL;
	if (end == AX_CLI_CONTINUE && *n) {
		*pos = calloc((size_t)*n, sizeof(char *));
		for (int i = 0; *pos && i < *n; i++)
			(*pos)[i] = it.positional[i];
	}
	ax_cli_iter_release(&it);
	if (end != AX_CLI_CONTINUE)
		return end == AX_EXIT_OK ? -2 : end;
	return *n && !*pos ? ax_app_error(app, AX_EXIT_FAIL, "out of memory")
			   : 0;
}

/* ---- db merge --------------------------------------------------------- */

static long long file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

/* "a" of "/x/y/a.db": what a clashing baseline's new name starts with. */
static void source_name(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	if (n > 3 && !strcmp(base + n - 3, ".db"))
		n -= 3;
	snprintf(buf, len, "%.*s", (int)n, base);
}

/* Two names of one file: merging a database into itself, or one input
 * twice, is a mistake. */
static bool same_file(const char *a, const char *b)
{
	char x[PATH_MAX], y[PATH_MAX];
	return !strcmp(a, b) ||
	       (realpath(a, x) && realpath(b, y) && !strcmp(x, y));
}

static int check_names(struct ax_app *app, char **pos, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = 0; j < i; j++)
			if (same_file(pos[i], pos[j]))
				return ax_app_error(
				    app, AX_EXIT_USAGE,
				    "db merge: %s is named twice%s; name the "
				    "output once and each input once",
				    ax_term(pos[i]),
				    j == 0 ? " (as the output and an input)"
					   : "");
	return 0;
}

/* Every input, opened read-only and closed again before the output is
 * touched: a file that is not axbench's, or newer than this build, is
 * refused untouched (exit 5); one missing is exit 2.  The merge opens
 * them again one at a time, so that a hundred inputs do not hold a
 * hundred page caches. */
static int check_inputs(struct ax_app *app, char **paths, int n)
{
	for (int i = 0; i < n; i++) {
		char err[1024];
		struct ax_db *db;
		int rc =
		    ax_db_open(paths[i], AX_DB_READONLY, &db, err, sizeof(err));
		ax_db_close(db);
		if (rc)
			return ax_app_error(app, ax_app_db_open_exit(rc),
					    "db merge: %s; nothing was merged",
					    err);
	}
	return 0;
}

/* The --json document (docs/JSON.md#db-merge): the files, core's part,
 * then the output's sizes. */
static void print_merge_json(const char *out, char **ins, int n,
			     const struct ax_db_merge_summary *sum,
			     long long before)
{
	json_t *inputs = json_array(), *part = ax_db_merge_json(sum);
	for (int i = 0; i < n; i++)
		json_array_append_new(inputs, json_string(ins[i]));
	json_t *doc = json_pack("{s:s,s:o}", "out", out, "inputs", inputs);
	json_object_update(doc, part);
	json_decref(part);
	json_object_set_new(doc, "bytes_before", json_integer(before));
	json_object_set_new(doc, "bytes_after", json_integer(file_size(out)));
	json_dumpf(doc, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(doc);
}

static void print_merge(const struct ax_app *app, const char *out, char **ins,
			int n, const struct ax_db_merge_summary *sum,
			long long before)
{
	const struct ax_db_merge_count *t = sum->tables;
	if (app->json) {
		print_merge_json(out, ins, n, sum, before);
		return;
	}
	printf("merged %d database%s into %s: %lld new runs, %lld results, "
	       "%lld samples, %lld tuning sessions, %lld baselines; "
	       "already there: %lld runs, %lld results, %lld samples\n",
	       n, n == 1 ? "" : "s", ax_term(out),
	       (long long)t[AX_DB_MERGE_RUN].added,
	       (long long)t[AX_DB_MERGE_RESULT].added,
	       (long long)t[AX_DB_MERGE_SAMPLE].added,
	       (long long)t[AX_DB_MERGE_TUNE_SESSION].added,
	       (long long)t[AX_DB_MERGE_BASELINE].added,
	       (long long)t[AX_DB_MERGE_RUN].skipped,
	       (long long)t[AX_DB_MERGE_RESULT].skipped,
	       (long long)t[AX_DB_MERGE_SAMPLE].skipped);
	for (size_t i = 0; i < sum->n_renamed; i++)
		printf("baseline \"%s\" was taken, so the merged one is named "
		       "\"%s\"\n",
		       ax_term(sum->renamed[i].old),
		       ax_term(sum->renamed[i].name));
	if (app->verbosity > 0)
		for (int i = 0; i < AX_DB_MERGE_N_TABLES; i++)
			printf("  %-17s %8lld added %8lld already there\n",
			       t[i].table, (long long)t[i].added,
			       (long long)t[i].skipped);
}

/* Each input's short name ("a" of "/x/a.db"), for renamed baselines;
 * NULL (said) when out of memory.  Free with free_names. */
static char **source_names(struct ax_app *app, char **ins, int n)
{
	char **names = calloc((size_t)n + 1, sizeof(*names));
	for (int i = 0; names && i < n; i++) {
		char buf[256];
		source_name(ins[i], buf, sizeof(buf));
		if (!(names[i] = strdup(buf)))
			break;
	}
	if (!names || (n && !names[n - 1])) {
		ax_app_error(app, AX_EXIT_FAIL, "out of memory");
		for (int i = 0; names && i < n; i++)
			free(names[i]);
		free(names);
		return NULL;
	}
	return names;
}

/* Merge the inputs into the file o names (OUT, or a new OUT's
 * temporary: app/merge_out.h), in one transaction. */
static int merge_into(struct ax_app *app, const struct ax_merge_out *o,
		      char **ins, char **names, int n,
		      struct ax_db_merge_summary **sum)
{
	struct ax_db *db = NULL;
	/* As every writer opens its database: the lock wait says what it
	 * waits for, and Ctrl-C ends it. */
	struct ax_app out_cli = *app;
	out_cli.db_path = o->work;
	int rc = ax_app_open_db(&out_cli, false, &db);
	if (rc)
		return rc;
	int mrc =
	    ax_db_merge(db, (const char *const *)ins,
			(const char *const *)names, n, &ax_interrupted, sum);
	if (mrc)
		rc = ax_app_error(app,
				  mrc == AX_EINTR ? AX_EXIT_INTERRUPTED
						  : ax_app_exit_code(mrc),
				  "db merge: %s; %s", ax_db_errmsg(db),
				  o->fresh ? "nothing was created"
					   : "the output was left as it was");
	ax_db_close(db);
	return rc;
}

static int do_merge(struct ax_app *app, char **pos, int n)
{
	const char *out = pos[0];
	int n_in = n - 1;
	struct ax_merge_out o = {0};
	struct ax_db_merge_summary *sum = NULL;
	long long before = file_size(out);
	char **names = NULL;
	int rc = check_inputs(app, pos + 1, n_in);
	if (!rc && !(names = source_names(app, pos + 1, n_in)))
		rc = AX_EXIT_FAIL;
	/* The output is opened (created if new) only once every input
	 * is known good. */
	if (!rc)
		rc = ax_merge_out_begin(app, out, &o);
	if (!rc)
		rc = merge_into(app, &o, pos + 1, names, n_in, &sum);
	if (!rc)
		rc = ax_merge_out_finish(app, &o);
	else
		ax_merge_out_abort(&o);
	if (!rc)
		print_merge(app, out, pos + 1, n_in, sum, before);
	ax_merge_out_release(&o);
	ax_db_merge_summary_free(sum);
	for (int i = 0; names && i < n_in; i++)
		free(names[i]);
	free(names);
	return rc;
}

static int merge_main(struct ax_app *app, int argc, char **argv)
{
	char **pos;
	int n;
	int rc = parse_positional(app, &ax_cmd_db_merge, argc, argv, 2, -1,
				  &pos, &n);
	if (rc == 0)
		rc = check_names(app, pos, n);
	if (rc == 0)
		rc = do_merge(app, pos, n);
	free(pos);
	return rc == -2 ? AX_EXIT_OK : rc;
}

const struct ax_cli_cmd ax_cmd_db_merge = {
    .name = "db merge",
    .summary = "merge databases of many machines into one",
    .usage = "OUT.db IN.db... [--json]",
    .details =
	"Copies runs, results, samples, tuning sessions and trials, "
	"telemetry, CPU\n"
	"baselines and baselines from each IN into OUT (created if it does "
	"not exist).\n"
	"Hosts and devices are matched on their fingerprint, every other row "
	"on its\n"
	"UUID, so merging the same file twice adds nothing, and the "
	"databases of a\n"
	"Slurm array's tasks merge in any order. A baseline whose name OUT "
	"already\n"
	"gives another baseline is renamed SOURCE:NAME (SOURCE: the input's "
	"file name\n"
	"without .db). All inputs go in one transaction: a failure or Ctrl-C "
	"leaves\n"
	"OUT as it was. A new OUT is built as .OUT.merging-PID in its "
	"directory and\n"
	"renamed to OUT once the merge has committed, so a killed merge "
	"leaves no OUT\n"
	"(the next merge removes such leftovers). An input that is not an "
	"axbench\n"
	"database, or newer than this build, is refused untouched (exit 5). "
	"Rows are\n"
	"copied one at a time: memory does not grow with the inputs.",
    .examples = {"axbench db merge fleet.db nodes/*.db",
		 "axbench --json db merge all.db a.db b.db",
		 "axbench --db fleet.db report -o fleet.html"},
    .opts = no_opts,
    .fn = merge_main,
};

/* ---- db info ---------------------------------------------------------- */

/* "vm (EPYC, 2 cores, 7.8 GiB, Linux 6.1 x86_64)": a host as one line
 * shows it.  A host whose cores were not stored says 0, as it always
 * has; memory and OS only where stored. */
static void host_text(const struct ax_db_info_host *h, char *buf, size_t len)
{
	char mem[32] = "";
	if (h->memory_bytes >= 0)
		snprintf(mem, sizeof(mem), ", %.1f GiB",
			 (double)h->memory_bytes / (1 << 30));
	snprintf(buf, len, "%s (%s, %lld cores%s%s%s)", ax_term(h->hostname),
		 ax_term(h->cpu_model),
		 (long long)(h->cores < 0 ? 0 : h->cores), mem,
		 h->os ? ", " : "", h->os ? ax_term(h->os) : "");
}

/* One host's line.  Two host rows can read alike (a fingerprint also
 * covers the NUMA layout and topology): the fingerprint then tells them
 * apart, rather than two identical lines. */
static void print_host(const struct ax_db_info *info, size_t i)
{
	char line[1024], other[1024];
	host_text(&info->hosts[i], line, sizeof(line));
	bool alike = false;
	for (size_t j = 0; j < info->n_hosts && !alike; j++) {
		host_text(&info->hosts[j], other, sizeof(other));
		alike = j != i && !strcmp(line, other);
	}
	const char *fp = info->hosts[i].fingerprint;
	printf("host %s%s%s%s: %lld runs\n", line,
	       alike && fp ? " [fingerprint " : "", alike && fp ? fp : "",
	       alike && fp ? "]" : "", (long long)info->hosts[i].runs);
}

static void print_info(const struct ax_app *app, const struct ax_db_info *info,
		       long long bytes)
{
	printf("%s: schema %d, %lld bytes\n", ax_term(app->db_path),
	       info->schema_version, bytes);
	for (int i = 0; i < AX_DB_INFO_N_COUNTS; i++)
		printf("  %-17s %10lld\n", info->counts[i].table,
		       (long long)info->counts[i].rows);
	if (info->first_run && info->last_run)
		printf("runs from %s to %s\n", info->first_run, info->last_run);
	for (size_t i = 0; i < info->n_hosts; i++)
		print_host(info, i);
	for (size_t i = 0; i < info->n_devices; i++) {
		const struct ax_db_info_device *d = &info->devices[i];
		printf("device %s (%s, %s): %lld runs\n", ax_term(d->name),
		       ax_term(d->vendor), ax_term(d->driver_info),
		       (long long)d->runs);
	}
}

/* The file and its -wal: what the database takes on disk. */
static long long disk_bytes(const char *path)
{
	char wal[PATH_MAX + 8];
	snprintf(wal, sizeof(wal), "%s-wal", path);
	return file_size(path) + file_size(wal);
}

static int info_main(struct ax_app *app, int argc, char **argv)
{
	char **pos;
	int n;
	int rc =
	    parse_positional(app, &ax_cmd_db_info, argc, argv, 0, 0, &pos, &n);
	free(pos);
	if (rc)
		return rc == -2 ? AX_EXIT_OK : rc;
	struct ax_db *db;
	struct ax_db_info *info = NULL;
	if ((rc = ax_app_db(app, &db)))
		return rc;
	int err = ax_db_info(db, &info);
	if (err) {
		rc = ax_app_error(app, ax_app_exit_code(err), "db info: %s",
				  ax_db_errmsg(db));
	} else if (app->json) {
		/* docs/JSON.md#db-info: core's part, then the file's. */
		json_t *doc = ax_db_info_json(info);
		json_object_set_new(doc, "path", json_string(app->db_path));
		json_object_set_new(doc, "bytes",
				    json_integer(disk_bytes(app->db_path)));
		json_dumpf(doc, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(doc);
	} else {
		print_info(app, info, disk_bytes(app->db_path));
	}
	ax_db_info_free(info);
	return rc;
}

const struct ax_cli_cmd ax_cmd_db_info = {
    .name = "db info",
    .summary = "what a database holds: schema, counts, size, hosts, devices",
    .usage = "[--json]",
    .details = "Opens the database read-only (--db) and says its schema "
	       "version, its size on\n"
	       "disk (the file and its -wal), how many rows each table "
	       "holds, the span of\n"
	       "its runs, and its hosts and devices with their number of "
	       "runs.",
    .examples = {"axbench --db fleet.db db info",
		 "axbench --db fleet.db --json db info"},
    .opts = no_opts,
    .needs = AX_APP_READ_ONLY_DB,
    .fn = info_main,
};

/* ---- db check --------------------------------------------------------- */

/* n with its thousands apart, as "156 012": a count of problems must be
 * read at a glance. */
static const char *grouped(int64_t n, char *buf, size_t len)
{
	char digits[32];
	int nd = snprintf(digits, sizeof(digits), "%lld", (long long)n);
	size_t o = 0;
	for (int i = 0; i < nd && o + 2 < len; i++) {
		if (i && digits[i - 1] != '-' && (nd - i) % 3 == 0)
			buf[o++] = ' ';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

/* Each problem listed, then for each check with more than were listed
 * how many it found, then the tally; or the --json document
 * (docs/JSON.md#db-check): core's part, then the path. */
static void print_check(const struct ax_app *app,
			const struct ax_db_check_report *r)
{
	char n[32];
	if (app->json) {
		json_t *doc = ax_db_check_json(r);
		json_object_set_new(doc, "path", json_string(app->db_path));
		json_dumpf(doc, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(doc);
		return;
	}
	for (size_t i = 0; i < r->n_problems; i++)
		printf("problem: %s: %s\n", r->problems[i].check,
		       ax_term(r->problems[i].problem));
	for (size_t i = 0; i < r->n_checks; i++)
		if (r->counts[i].found > (int64_t)r->counts[i].listed)
			printf("%s: first %zu of %s%s listed\n", r->checks[i],
			       r->counts[i].listed,
			       r->counts[i].capped ? "at least " : "",
			       grouped(r->counts[i].found, n, sizeof(n)));
	printf("%s: %zu checks, %s problem%s\n", ax_term(app->db_path),
	       r->n_checks, grouped(r->n_found, n, sizeof(n)),
	       r->n_found == 1 ? "" : "s");
}

/* How many checks of r found a problem. */
static size_t failed_checks(const struct ax_db_check_report *r)
{
	size_t bad = 0;
	for (size_t i = 0; i < r->n_checks; i++)
		bad += r->counts[i].found > 0;
	return bad;
}

static int check_main(struct ax_app *app, int argc, char **argv)
{
	char **pos;
	int n;
	int rc =
	    parse_positional(app, &ax_cmd_db_check, argc, argv, 0, 0, &pos, &n);
	free(pos);
	if (rc)
		return rc == -2 ? AX_EXIT_OK : rc;
	struct ax_db *db;
	struct ax_db_check_report *res = NULL;
	if ((rc = ax_app_db(app, &db)))
		return rc;
	int err = ax_db_check(db, &res);
	if (err)
		return ax_app_error(app, ax_app_exit_code(err), "db check: %s",
				    ax_db_errmsg(db));
	print_check(app, res);
	size_t bad = failed_checks(res);
	char found[32];
	if (bad)
		rc = ax_app_error(
		    app, AX_EXIT_STORAGE,
		    "db check: %s fails %zu check%s (%s problem%s); recover "
		    "what it holds with `sqlite3 %s .recover | sqlite3 "
		    "NEW.db`, or merge it into a new database with `axbench "
		    "db merge NEW.db %s`",
		    ax_term(app->db_path), bad, bad == 1 ? "" : "s",
		    grouped(res->n_found, found, sizeof(found)),
		    res->n_found == 1 ? "" : "s", ax_term(app->db_path),
		    ax_term(app->db_path));
	ax_db_check_report_free(res);
	return rc;
}

const struct ax_cli_cmd ax_cmd_db_check = {
    .name = "db check",
    .summary = "check a database: SQLite's integrity and axbench's rules",
    .usage = "[--json]",
    .details = "Opens the database read-only (--db) and runs SQLite's "
	       "integrity_check and\n"
	       "foreign_key_check, then axbench's own rules: every result "
	       "has its run and\n"
	       "every sample its result, runs name hosts and devices that "
	       "exist, an ok\n"
	       "result has a median and as many samples as its n, UUIDs are "
	       "whole. Exits 0\n"
	       "when all hold, 5 when any fails: every problem is counted, "
	       "the first 5 of\n"
	       "each check listed.",
    .examples = {"axbench --db fleet.db db check"},
    .opts = no_opts,
    .needs = AX_APP_READ_ONLY_DB,
    .fn = check_main,
};
