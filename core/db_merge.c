/* core/db_merge.c - merging databases from many machines into one
 * (core/db_admin.h: ax_db_merge).
 *
 * Every row is matched on what names it across machines: hosts and
 * devices on their fingerprint, everything else on its UUID (a telemetry
 * reading, a power row and a baseline's run list on the rows they belong
 * to).  Each table is copied by two statements, one stepping through the
 * input and one inserting into the output what it lacks, with every
 * reference mapped through the UUID or fingerprint of the row it names:
 * memory holds one row, whatever the size of the inputs, and merging a
 * file twice adds nothing.  All inputs go in one transaction.
 *
 * The SQL is built only from the constant table descriptions below,
 * never from data: values travel as bound parameters.
 */
#include "core/db_internal.h"

#include "core/db_admin.h"
#include "core/error.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A column that names a row of another table by its integer id: copied
 * as that row's key (uuid or fingerprint), looked up in the output. */
struct ref {
	const char *col, *table, *key;
};

struct table {
	const char *name;	     /* the table */
	enum ax_db_merge_table slot; /* its count in the summary */
	const char *cols;	     /* columns copied as they are */
	struct ref refs[3];
	const char *match;  /* how an output row is the same row: a copied
			       column, or a ref's column (mapped) */
	const char *match2; /* a second one, or NULL */
	const char *later;  /* columns set after the rows they name exist */
};

/* A stored figure's column in a copied list (AX_DB_POWER_FIGURES,
 * AX_TEL_STORED): a new figure is merged with no edit here. */
#define MERGE_COLUMN(name) " " #name ","

static const struct table tables[] = {
    {"host",
     AX_DB_MERGE_HOST,
     "uuid, fingerprint, hostname, os, cpu_model, cores, numa_nodes,"
     " memory_bytes, topology_json, created_at",
     {{0}},
     "fingerprint",
     NULL,
     NULL},
    {"device",
     AX_DB_MERGE_DEVICE,
     "uuid, fingerprint, name, vendor, type, driver_name, driver_info,"
     " vendor_id, device_id, driver_id, api_version, driver_version,"
     " device_uuid, driver_uuid, pci_bus_id, properties_json, created_at,"
     " updated_at",
     {{0}},
     "fingerprint",
     NULL,
     NULL},
    {"run",
     AX_DB_MERGE_RUN,
     "uuid, started_at, finished_at, status, axbench_version, git_sha,"
     " argv_json, config_json, profile, owner_pid, owner_boot, owner_start,"
     " label",
     {{"host_id", "host", "fingerprint"},
      {"device_id", "device", "fingerprint"}},
     "uuid",
     NULL,
     NULL},
    {"cpu_baseline",
     AX_DB_MERGE_CPU_BASELINE,
     "uuid, suite, shape_json, shape_hash, library, version, corename,"
     " config, note, threads, unit, status, error_text, stop_reason, n,"
     " median, ci_lo, ci_hi, rel_noise, created_at, load_1m, busy_other,"
     " online_cpus",
     {{"host_id", "host", "fingerprint"}},
     "uuid",
     NULL,
     NULL},
    {"result",
     AX_DB_MERGE_RESULT,
     "uuid, suite, case_label, params_json, params_hash, shader_hash, unit,"
     " higher_is_better, work, timing_mode, stop_reason, status,"
     " error_text, n, median, min, max, mean, stddev, q1, q3, mad, ci_lo,"
     " ci_hi, rel_noise, extra_json, created_at, speedup_vs_cpu",
     {{"run_id", "run", "uuid"}, {"cpu_baseline_id", "cpu_baseline", "uuid"}},
     "uuid",
     NULL,
     NULL},
    {"sample",
     AX_DB_MERGE_SAMPLE,
     "uuid, idx, seconds, value",
     {{"result_id", "result", "uuid"}},
     "uuid",
     NULL,
     NULL},
    {"tune_session",
     AX_DB_MERGE_TUNE_SESSION,
     "uuid, suite, shape_json, strategy, objective, seed, budget,"
     " space_json, stop_reason, started_at, finished_at, stop_rule, mode,"
     " front_json",
     {{"device_id", "device", "fingerprint"}, {"owner_run_id", "run", "uuid"}},
     "uuid",
     NULL,
     "best_trial_id, prior_session_id"},
    {"trial",
     AX_DB_MERGE_TRIAL,
     "uuid, idx, params_json, status, value, seconds, compile_ms,"
     " error_text, created_at, objective_value",
     {{"session_id", "tune_session", "uuid"}, {"result_id", "result", "uuid"}},
     "uuid",
     NULL,
     NULL},
    {"telemetry_series",
     AX_DB_MERGE_TELEMETRY_SERIES,
     "uuid, kind, source, interval_s, timed_from_s, created_at",
     {{"run_id", "run", "uuid"},
      {"result_id", "result", "uuid"},
      {"device_id", "device", "fingerprint"}},
     "uuid",
     NULL,
     NULL},
    {"telemetry_sample",
     AX_DB_MERGE_TELEMETRY_SAMPLE,
     "idx, t," AX_TEL_STORED(MERGE_COLUMN) " throttle",
     {{"series_id", "telemetry_series", "uuid"}},
     "series_id",
     "idx",
     NULL},
    {"result_power",
     AX_DB_MERGE_RESULT_POWER,
     "source, reason, readings," AX_DB_POWER_FIGURES(
	 MERGE_COLUMN) " perf_per_w_unit, throttled, throttle_evidence",
     {{"result_id", "result", "uuid"},
      {"series_id", "telemetry_series", "uuid"}},
     "result_id",
     NULL,
     NULL},
    /* baseline: by hand (merge_baselines), for names that clash. */
    {"baseline_run",
     AX_DB_MERGE_BASELINE_RUN,
     "",
     {{"baseline_id", "baseline", "uuid"}, {"run_id", "run", "uuid"}},
     "baseline_id",
     "run_id",
     NULL},
};

#define N_TABLES ((int)(sizeof(tables) / sizeof(tables[0])))
#define N_REFS(t) ((int)(sizeof((t)->refs) / sizeof((t)->refs[0])))

/* The number of comma-separated columns in cols. */
static int count_cols(const char *cols)
{
	int n = *cols != 0;
	for (const char *p = cols; *p; p++)
		n += *p == ',';
	return n;
}

/* The i-th column name of cols into buf. */
static void nth_col(const char *cols, int i, char *buf, size_t len)
{
	const char *p = cols;
	for (; i > 0 && p; i--) {
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	while (p && *p == ' ')
		p++;
	size_t n = p ? strcspn(p, ",") : 0;
	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p ? p : "");
}

static int n_refs(const struct table *t)
{
	int n = 0;
	while (n < N_REFS(t) && t->refs[n].col)
		n++;
	return n;
}

/* The statement s holds, NULL (and s freed) when it ran out of memory;
 * sqlite3_free it. */
static char *finish_sql(sqlite3_str *s)
{
	if (sqlite3_str_errcode(s) != SQLITE_OK) {
		sqlite3_free(sqlite3_str_finish(s));
		return NULL;
	}
	return sqlite3_str_finish(s);
}

/* The input side: the copied columns, then each reference's key. */
static char *select_sql(const struct table *t)
{
	sqlite3_str *s = sqlite3_str_new(NULL);

	sqlite3_str_appendall(s, "SELECT ");
	int nc = count_cols(t->cols);
	for (int i = 0; i < nc; i++) {
		char c[64];
		nth_col(t->cols, i, c, sizeof(c));
		sqlite3_str_appendf(s, "%st.%s", i ? ", " : "", c);
	}
	for (int i = 0; i < n_refs(t); i++)
		sqlite3_str_appendf(
		    s, "%s(SELECT k.%s FROM %s k WHERE k.id = t.%s)",
		    nc || i ? ", " : "", t->refs[i].key, t->refs[i].table,
		    t->refs[i].col);
	sqlite3_str_appendf(s, " FROM %s t", t->name);
	return finish_sql(s);
}

/* The output-side value of column col: its parameter, or a reference's
 * lookup by key. */
static void value_of(sqlite3_str *s, const struct table *t, const char *col)
{
	int nc = count_cols(t->cols);
	for (int i = 0; i < n_refs(t); i++)
		if (!strcmp(col, t->refs[i].col)) {
			sqlite3_str_appendf(
			    s, "(SELECT id FROM %s WHERE %s = ?%d)",
			    t->refs[i].table, t->refs[i].key, nc + i + 1);
			return;
		}
	for (int i = 0; i < nc; i++) {
		char c[64];
		nth_col(t->cols, i, c, sizeof(c));
		if (!strcmp(c, col)) {
			sqlite3_str_appendf(s, "?%d", i + 1);
			return;
		}
	}
	sqlite3_str_appendall(s, "NULL");
}

/* The output side: the row, unless a row that matches it is there. */
static char *insert_sql(const struct table *t)
{
	sqlite3_str *s = sqlite3_str_new(NULL);
	int nc = count_cols(t->cols), nr = n_refs(t);

	sqlite3_str_appendf(s, "INSERT INTO %s (%s", t->name, t->cols);
	for (int i = 0; i < nr; i++)
		sqlite3_str_appendf(s, "%s%s", nc || i ? ", " : "",
				    t->refs[i].col);
	sqlite3_str_appendall(s, ") SELECT ");
	for (int i = 0; i < nc; i++)
		sqlite3_str_appendf(s, "%s?%d", i ? ", " : "", i + 1);
	for (int i = 0; i < nr; i++) {
		sqlite3_str_appendall(s, nc || i ? ", " : "");
		value_of(s, t, t->refs[i].col);
	}
	sqlite3_str_appendf(s,
			    " WHERE NOT EXISTS (SELECT 1 FROM %s WHERE %s IS ",
			    t->name, t->match);
	value_of(s, t, t->match);
	if (t->match2) {
		sqlite3_str_appendf(s, " AND %s IS ", t->match2);
		value_of(s, t, t->match2);
	}
	sqlite3_str_appendall(s, ")");
	return finish_sql(s);
}

struct merge {
	struct ax_db *out, *in;
	const volatile int *stop;
	struct ax_db_merge_summary *summary;
};

/* A failure on the input's handle, said on the output's, which the
 * caller reads. */
static int fail_in(struct merge *m, int rc)
{
	return ax_dbi_fail(m->out, rc, "%s", m->in->msg);
}

static void count(struct merge *m, enum ax_db_merge_table t, bool added)
{
	struct ax_db_merge_count *c = &m->summary->tables[t];
	if (added)
		c->added++;
	else
		c->skipped++;
}

/* Step through the input's rows of t, inserting each the output lacks. */
static int copy_table(struct merge *m, const struct table *t)
{
	char *sel = select_sql(t), *ins = insert_sql(t);
	sqlite3_stmt *in = NULL, *out = NULL;
	int rc =
	    sel && ins ? 0 : ax_dbi_fail(m->out, AX_ENOMEM, "out of memory");
	if (!rc && (rc = ax_dbi_prepare(m->in, sel, &in)))
		rc = fail_in(m, rc);
	if (!rc)
		rc = ax_dbi_prepare(m->out, ins, &out);
	int width = count_cols(t->cols) + n_refs(t), step = SQLITE_DONE;
	while (!rc && (step = sqlite3_step(in)) == SQLITE_ROW) {
		if (m->stop && *m->stop) {
			rc = ax_dbi_fail(m->out, AX_EINTR, "interrupted");
			break;
		}
		for (int i = 0; i < width; i++)
			sqlite3_bind_value(out, i + 1,
					   sqlite3_column_value(in, i));
		step = sqlite3_step(out);
		sqlite3_reset(out);
		if (step != SQLITE_DONE) {
			rc = ax_dbi_fail_sql(m->out, step, "merging rows");
			break;
		}
		count(m, t->slot, sqlite3_changes(m->out->h) > 0);
	}
	if (!rc && step != SQLITE_DONE)
		rc = fail_in(m, ax_dbi_fail_sql(m->in, step, "reading"));
	sqlite3_finalize(in);
	sqlite3_finalize(out);
	sqlite3_free(sel);
	sqlite3_free(ins);
	return rc;
}

/* A tuning session's best trial and prior session, once both exist. */
static int link_sessions(struct merge *m)
{
	sqlite3_stmt *in = NULL, *out = NULL;
	int rc = ax_dbi_prepare(
	    m->in,
	    "SELECT t.uuid, (SELECT uuid FROM trial WHERE id ="
	    " t.best_trial_id), (SELECT uuid FROM tune_session WHERE id ="
	    " t.prior_session_id) FROM tune_session t",
	    &in);
	if (rc)
		rc = fail_in(m, rc);
	if (!rc)
		rc = ax_dbi_prepare(
		    m->out,
		    "UPDATE tune_session SET best_trial_id = coalesce("
		    "best_trial_id, (SELECT id FROM trial WHERE uuid = ?2)),"
		    " prior_session_id = coalesce(prior_session_id, (SELECT"
		    " id FROM tune_session WHERE uuid = ?3)) WHERE uuid = ?1",
		    &out);
	int step = SQLITE_DONE;
	while (!rc && (step = sqlite3_step(in)) == SQLITE_ROW) {
		for (int i = 0; i < 3; i++)
			sqlite3_bind_value(out, i + 1,
					   sqlite3_column_value(in, i));
		step = sqlite3_step(out);
		sqlite3_reset(out);
		if (step != SQLITE_DONE)
			rc = ax_dbi_fail_sql(m->out, step, "linking sessions");
	}
	if (!rc && step != SQLITE_DONE)
		rc = fail_in(m, ax_dbi_fail_sql(m->in, step, "reading"));
	sqlite3_finalize(in);
	sqlite3_finalize(out);
	return rc;
}

/* A baseline renamed on its way in: the summary lists it. */
static int add_rename(struct merge *m, const char *fresh, const char *old)
{
	struct ax_db_merge_summary *s = m->summary;
	struct ax_db_merge_rename *v =
	    realloc(s->renamed, (s->n_renamed + 1) * sizeof(*v));
	if (!v)
		return ax_dbi_fail(m->out, AX_ENOMEM, "out of memory");
	s->renamed = v;
	struct ax_db_merge_rename *r = &v[s->n_renamed];
	r->name = strdup(fresh), r->old = strdup(old);
	if (!r->name || !r->old) {
		free(r->name), free(r->old);
		return ax_dbi_fail(m->out, AX_ENOMEM, "out of memory");
	}
	s->n_renamed++;
	return 0;
}

/* The output's id of a baseline named name, or 0. */
static int64_t baseline_named(struct merge *m, sqlite3_stmt *st,
			      const char *name)
{
	sqlite3_reset(st);
	ax_dbi_bind_text(st, 1, name);
	return sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
}

/*
 * Baselines by UUID; one whose name the output already gives another
 * baseline is renamed "SOURCE:NAME" (then "SOURCE:NAME#2", ...): both
 * machines' "main" survive, and the summary lists the new names.
 */
static int merge_baselines(struct merge *m, const char *source)
{
	sqlite3_stmt *in = NULL, *out = NULL, *by_name = NULL;
	int rc = ax_dbi_prepare(m->in,
				"SELECT b.uuid, b.name, b.created_at, (SELECT"
				" uuid FROM run WHERE id = b.run_id) FROM"
				" baseline b",
				&in);
	if (rc)
		rc = fail_in(m, rc);
	if (!rc)
		rc = ax_dbi_prepare(m->out,
				    "INSERT INTO baseline (uuid, name, run_id,"
				    " created_at) SELECT ?1, ?2, (SELECT id"
				    " FROM run WHERE uuid = ?4), ?3 WHERE NOT"
				    " EXISTS (SELECT 1 FROM baseline WHERE"
				    " uuid = ?1)",
				    &out);
	if (!rc)
		rc = ax_dbi_prepare(
		    m->out, "SELECT id FROM baseline WHERE name = ?", &by_name);
	int step = SQLITE_DONE;
	while (!rc && (step = sqlite3_step(in)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(in, 1);
		char fresh[512];
		snprintf(fresh, sizeof(fresh), "%s", name ? name : "");
		for (int k = 1; baseline_named(m, by_name, fresh); k++)
			snprintf(fresh, sizeof(fresh),
				 k == 1 ? "%s:%s" : "%s:%s#%d", source,
				 name ? name : "", k);
		for (int i = 0; i < 4; i++)
			sqlite3_bind_value(out, i + 1,
					   sqlite3_column_value(in, i));
		ax_dbi_bind_text(out, 2, fresh);
		step = sqlite3_step(out);
		sqlite3_reset(out);
		if (step != SQLITE_DONE) {
			rc = ax_dbi_fail_sql(m->out, step, "merging baselines");
			break;
		}
		bool added = sqlite3_changes(m->out->h) > 0;
		if (added && strcmp(fresh, name ? name : ""))
			rc = add_rename(m, fresh, name ? name : "");
		count(m, AX_DB_MERGE_BASELINE, added);
	}
	if (!rc && step != SQLITE_DONE)
		rc = fail_in(m, ax_dbi_fail_sql(m->in, step, "reading"));
	sqlite3_finalize(in);
	sqlite3_finalize(out);
	sqlite3_finalize(by_name);
	return rc;
}

/* Is every column of the output's table t copied, referenced, set later
 * or its id?  A migration that adds a column must teach the merge, or
 * merged databases would lose it without a word: refused instead. */
static int check_columns(struct merge *m, const struct table *t)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(m->out, "SELECT name FROM pragma_table_info(?)",
				&st);
	if (rc)
		return rc;
	ax_dbi_bind_text(st, 1, t->name);
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		const char *col = (const char *)sqlite3_column_text(st, 0);
		bool known = !strcmp(col, "id");
		const char *lists[] = {t->cols, t->later ? t->later : ""};
		for (int l = 0; l < 2 && !known; l++)
			for (int i = 0; i < count_cols(lists[l]) && !known;
			     i++) {
				char c[64];
				nth_col(lists[l], i, c, sizeof(c));
				known = !strcmp(c, col);
			}
		for (int i = 0; i < n_refs(t) && !known; i++)
			known = !strcmp(t->refs[i].col, col);
		if (!known)
			rc =
			    ax_dbi_fail(m->out, AX_EINVAL,
					"%s: column %s.%s is not known to "
					"this build's merge (core/db_merge.c); "
					"nothing was merged",
					m->out->path, t->name, col);
	}
	sqlite3_finalize(st);
	return rc;
}

static int merge_one(struct merge *m, const char *source)
{
	int rc = 0;
	for (int i = 0; i < N_TABLES && !rc; i++) {
		/* Baselines before their run lists. */
		if (!strcmp(tables[i].name, "baseline_run"))
			rc = merge_baselines(m, source);
		if (!rc)
			rc = copy_table(m, &tables[i]);
		if (!rc && !strcmp(tables[i].name, "trial"))
			rc = link_sessions(m);
	}
	return rc;
}

/* Open input i read-only, as every reader opens a database (an older
 * schema through a migrated private copy), its failure said on out. */
static int open_input(struct ax_db *out, const char *path, struct ax_db **in)
{
	char err[1024];
	int rc = ax_db_open(path, AX_DB_READONLY, in, err, sizeof(err));
	return rc ? ax_dbi_fail(out, rc, "%s", err) : 0;
}

/* The tables' names, in the order of enum ax_db_merge_table. */
static const char *const summary_names[AX_DB_MERGE_N_TABLES] = {
    "host",
    "device",
    "run",
    "result",
    "sample",
    "tune_session",
    "trial",
    "baseline",
    "baseline_run",
    "cpu_baseline",
    "result_power",
    "telemetry_series",
    "telemetry_sample",
};

static struct ax_db_merge_summary *new_summary(void)
{
	struct ax_db_merge_summary *s = calloc(1, sizeof(*s));
	for (int i = 0; s && i < AX_DB_MERGE_N_TABLES; i++)
		s->tables[i].table = summary_names[i];
	return s;
}

void ax_db_merge_summary_free(struct ax_db_merge_summary *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_renamed; i++)
		free(s->renamed[i].name), free(s->renamed[i].old);
	free(s->renamed);
	free(s);
}

json_t *ax_db_merge_json(const struct ax_db_merge_summary *s)
{
	json_t *counts = json_object(), *renamed = json_object();
	for (int i = 0; i < AX_DB_MERGE_N_TABLES; i++) {
		const struct ax_db_merge_count *c = &s->tables[i];
		json_object_set_new(counts, c->table,
				    json_pack("{s:I,s:I}", "added",
					      (json_int_t)c->added, "skipped",
					      (json_int_t)c->skipped));
	}
	for (size_t i = 0; i < s->n_renamed; i++)
		json_object_set_new(renamed, s->renamed[i].name,
				    json_string(s->renamed[i].old));
	return json_pack("{s:o,s:o}", "tables", counts, "renamed_baselines",
			 renamed);
}

int ax_db_merge(struct ax_db *out, const char *const *paths,
		const char *const *sources, int n, const volatile int *stop,
		struct ax_db_merge_summary **summary)
{
	struct merge m = {.out = out, .stop = stop};
	*summary = NULL;
	m.summary = new_summary();
	if (!m.summary)
		return ax_dbi_fail(out, AX_ENOMEM, "out of memory");
	int rc = 0;
	for (int i = 0; i < N_TABLES && !rc; i++)
		rc = check_columns(&m, &tables[i]);
	/* Rows land all over the output's UUID indices: a larger page
	 * cache than SQLite's 2 MiB default saves most of the reads back.
	 * Inputs are read in order and open one at a time, so memory stays
	 * this cache and one input's. */
	if (!rc)
		rc = ax_dbi_exec(out, "PRAGMA cache_size = -65536",
				 "sizing the page cache");
	if (!rc)
		rc = ax_dbi_begin(out);
	for (int i = 0; i < n && !rc; i++) {
		m.in = NULL;
		rc = open_input(out, paths[i], &m.in);
		if (!rc)
			rc = merge_one(&m, sources[i]);
		ax_db_close(m.in);
	}
	if (!rc)
		rc = ax_dbi_commit(out);
	else if (out->h && !sqlite3_get_autocommit(out->h))
		ax_dbi_rollback(out, rc);
	if (rc) {
		ax_db_merge_summary_free(m.summary);
		return rc;
	}
	*summary = m.summary;
	return 0;
}
