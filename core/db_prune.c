/*
 * core/db_prune.c - `db prune`: which runs a retention policy removes,
 * and removing them in one transaction (the contract is in core/db.h).
 *
 * Every run is read once, sorted by series (label, else host and device;
 * then kind) and newest first, and decided here in C: the policy walks a
 * series keeping its newest runs and the newest run of each ISO week.
 * A run is protected whatever the policy says when something still needs
 * it: a baseline names it (compare would lose its side), it is a tuning
 * session's (its trials are later sessions' priors, and trial.result_id
 * has no ON DELETE CASCADE), or it is still running (its owner is
 * writing to it).  Removal deletes run rows only; the schema's cascades
 * take results, samples, power rows and telemetry with them, so foreign
 * keys must be on.
 */
#include "core/db_internal.h"

#include "core/error.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* Why a run stays; KEEP_NONE: it goes. */
enum keep {
	KEEP_NONE,
	KEEP_BASELINE,
	KEEP_TUNE,
	KEEP_RUNNING,
	KEEP_LAST,
	KEEP_WEEKLY,
	KEEP_NOT_NAMED,
	N_KEEP
};

static const char *const keep_names[N_KEEP] = {
    NULL, "baseline", "tune", "running", "last", "weekly", "not_named",
};

struct cand {
	int64_t id;
	char *started_at, *kind, *label, *series, *week, *status;
	json_t *baselines; /* names of the baselines that use it */
	bool trials;	   /* trials name its results */
	bool named;	   /* in run_ids */
	enum keep keep;
};

struct cands {
	struct cand *v;
	size_t n, cap;
};

/*
 * Every run with what the policy needs, sorted by series and kind, then
 * newest first.  The week is its Monday's date: date(t, 'weekday 0')
 * moves to the Sunday that ends t's ISO week (Monday to Sunday), and six
 * days back is that week's Monday, one key per ISO week.
 */
#define CAND_KIND AX_RUN_KIND_SQL("r")
#define CAND_STATUS AX_RUN_STATUS_SQL("r")
static const char cand_sql[] =
    "SELECT r.id, r.started_at, " CAND_KIND " AS kind, r.label,"
    " CASE WHEN r.label IS NOT NULL THEN 'label:' || r.label"
    " ELSE 'host:' || ifnull(r.host_id, '-') || ' device:' ||"
    " ifnull(r.device_id, '-') END AS series,"
    " date(r.started_at, 'weekday 0', '-6 days'), " CAND_STATUS ","
    " (SELECT json_group_array(name) FROM"
    " (SELECT b.name FROM baseline b WHERE b.run_id = r.id"
    " UNION SELECT b.name FROM baseline_run br"
    " JOIN baseline b ON b.id = br.baseline_id"
    " WHERE br.run_id = r.id)),"
    " EXISTS (SELECT 1 FROM result x JOIN trial t"
    " ON t.result_id = x.id WHERE x.run_id = r.id)"
    " FROM run r"
    " ORDER BY series, kind, r.started_at DESC, r.id DESC";

static char *col_dup(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return s ? strdup(s) : NULL;
}

static void cands_free(struct cands *c)
{
	for (size_t i = 0; i < c->n; i++) {
		struct cand *r = &c->v[i];
		free(r->started_at), free(r->kind), free(r->label);
		free(r->series), free(r->week), free(r->status);
		json_decref(r->baselines);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

/* Append the row st stands on; false when out of memory. */
static bool cand_add(struct cands *c, sqlite3_stmt *st)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct cand *v = realloc(c->v, cap * sizeof(*v));
		if (!v)
			return false;
		c->v = v, c->cap = cap;
	}
	struct cand *r = &c->v[c->n++];
	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(st, 0);
	r->started_at = col_dup(st, 1);
	r->kind = col_dup(st, 2);
	r->label = col_dup(st, 3);
	r->series = col_dup(st, 4);
	r->week = col_dup(st, 5);
	r->status = col_dup(st, 6);
	const char *b = (const char *)sqlite3_column_text(st, 7);
	r->baselines = json_loads(b ? b : "[]", 0, NULL);
	r->trials = sqlite3_column_int(st, 8) != 0;
	return r->kind && r->series && r->baselines;
}

static int read_cands(struct ax_db *db, const volatile int *stop,
		      struct cands *c)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(db, cand_sql, &st);
	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (stop && *stop) {
			sqlite3_finalize(st);
			return ax_dbi_fail(db, AX_EINTR,
					   "%s: interrupted while reading the "
					   "runs; nothing was removed",
					   db->path);
		}
		if (!cand_add(c, st)) {
			sqlite3_finalize(st);
			return ax_dbi_fail(db, AX_ENOMEM, "out of memory");
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0
				 : ax_dbi_fail_sql(db, rc, "reading the runs");
}

/* What keeps r whatever the policy: KEEP_NONE when nothing does. */
static enum keep protect(const struct cand *r)
{
	if (json_array_size(r->baselines) > 0)
		return KEEP_BASELINE;
	if (strcmp(r->kind, "tune") == 0 || r->trials)
		return KEEP_TUNE;
	if (r->status && strcmp(r->status, "running") == 0)
		return KEEP_RUNNING;
	return KEEP_NONE;
}

static bool same_text(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* The policy, over runs sorted by series and kind, newest first: the
 * first keep_last of a series, and the first of each week (weeks are
 * contiguous in that order).  A run with no readable time is kept. */
static void decide_policy(struct cands *c, const struct ax_db_prune_opts *o)
{
	const struct cand *prev = NULL;
	int pos = 0;
	for (size_t i = 0; i < c->n; i++) {
		struct cand *r = &c->v[i];
		bool same = prev && same_text(prev->series, r->series) &&
			    same_text(prev->kind, r->kind);
		pos = same ? pos + 1 : 0;
		bool new_week = !same || !same_text(prev->week, r->week);
		r->keep = protect(r);
		if (r->keep == KEEP_NONE && pos < o->keep_last)
			r->keep = KEEP_LAST;
		else if (r->keep == KEEP_NONE && o->weekly && new_week)
			r->keep = KEEP_WEEKLY;
		prev = r;
	}
}

static bool is_named(const struct ax_db_prune_opts *o, int64_t id)
{
	for (int i = 0; i < o->n_run_ids; i++)
		if (o->run_ids[i] == id)
			return true;
	return false;
}

/* run_ids: those runs go unless protected (then they are refused);
 * every other run stays. */
static void decide_named(struct cands *c, const struct ax_db_prune_opts *o)
{
	for (size_t i = 0; i < c->n; i++) {
		struct cand *r = &c->v[i];
		r->named = is_named(o, r->id);
		r->keep = r->named ? protect(r) : KEEP_NOT_NAMED;
	}
}

/* run_ids that name no run, once each. */
static json_t *missing_ids(const struct cands *c,
			   const struct ax_db_prune_opts *o)
{
	json_t *a = json_array();
	for (int i = 0; i < o->n_run_ids; i++) {
		bool found = false, seen = false;
		for (size_t k = 0; k < c->n && !found; k++)
			found = c->v[k].id == o->run_ids[i];
		for (int k = 0; k < i && !seen; k++)
			seen = o->run_ids[k] == o->run_ids[i];
		if (!found && !seen)
			json_array_append_new(a, json_integer(o->run_ids[i]));
	}
	return a;
}

static json_t *text_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *run_brief(const struct cand *r)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o}", "id", (json_int_t)r->id,
			 "started_at", text_or_null(r->started_at), "kind",
			 text_or_null(r->kind), "label", text_or_null(r->label),
			 "status", text_or_null(r->status));
}

/* Oldest first: by start time, then id. */
static int by_start(const void *a, const void *b)
{
	const struct cand *x = *(const struct cand *const *)a;
	const struct cand *y = *(const struct cand *const *)b;
	int t = strcmp(x->started_at ? x->started_at : "",
		       y->started_at ? y->started_at : "");
	return t ? t : (x->id > y->id) - (x->id < y->id);
}

/* The removed runs, oldest first, and their ids as JSON text. */
static json_t *removed_runs(const struct cands *c, char **ids_json)
{
	const struct cand **v = calloc(c->n + 1, sizeof(*v));
	json_t *runs = json_array(), *ids = json_array();
	size_t n = 0;
	for (size_t i = 0; v && i < c->n; i++)
		if (c->v[i].keep == KEEP_NONE)
			v[n++] = &c->v[i];
	if (v)
		qsort(v, n, sizeof(*v), by_start);
	for (size_t i = 0; v && i < n; i++) {
		json_array_append_new(runs, run_brief(v[i]));
		json_array_append_new(ids, json_integer(v[i]->id));
	}
	*ids_json = v ? json_dumps(ids, JSON_COMPACT) : NULL;
	free(v);
	json_decref(ids);
	return runs;
}

/* Named runs that must stay, with why. */
static json_t *refused_runs(const struct cands *c)
{
	json_t *a = json_array();
	for (size_t i = 0; i < c->n; i++) {
		const struct cand *r = &c->v[i];
		if (r->named && r->keep != KEEP_NONE)
			json_array_append_new(
			    a, json_pack("{s:I, s:s, s:O}", "id",
					 (json_int_t)r->id, "reason",
					 keep_names[r->keep], "baselines",
					 r->baselines));
	}
	return a;
}

/*
 * What the removed runs (ids: a JSON array text) hold.  Every id is a
 * bound value: json_each walks it inside SQLite.  Telemetry series are
 * a run's (idle, monitor) or a result's (cases).
 */
static const char count_sql[] =
    "WITH gone(id) AS (SELECT value FROM json_each(?1)),"
    " res(id) AS (SELECT x.id FROM result x WHERE x.run_id IN gone),"
    " ser(id) AS (SELECT s.id FROM telemetry_series s"
    " WHERE s.run_id IN gone UNION"
    " SELECT s.id FROM telemetry_series s WHERE s.result_id IN res)"
    " SELECT (SELECT count(*) FROM res),"
    " (SELECT count(*) FROM sample s WHERE s.result_id IN res),"
    " (SELECT count(*) FROM ser),"
    " (SELECT count(*) FROM telemetry_sample t WHERE t.series_id IN ser)";

static int count_removed(struct ax_db *db, const char *ids, json_t *removed)
{
	static const char *const keys[] = {
	    "results", "samples", "telemetry_series", "telemetry_readings"};
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(db, count_sql, &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, ids, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return ax_dbi_fail_sql(db, rc, "counting what the runs hold");
	}
	for (int i = 0; i < 4; i++)
		json_object_set_new(removed, keys[i],
				    json_integer(sqlite3_column_int64(st, i)));
	sqlite3_finalize(st);
	return 0;
}

static json_t *kept_by(const struct cands *c)
{
	json_int_t n[N_KEEP] = {0};
	json_t *o = json_object();
	for (size_t i = 0; i < c->n; i++)
		n[c->v[i].keep]++;
	for (int k = KEEP_NONE + 1; k < N_KEEP; k++)
		json_object_set_new(o, keep_names[k], json_integer(n[k]));
	return o;
}

/* The document of ax_db_prune_plan from decided runs. */
static int plan_doc(struct ax_db *db, const struct cands *c,
		    const struct ax_db_prune_opts *o, json_t **out)
{
	char *ids = NULL;
	json_t *runs = removed_runs(c, &ids);
	json_t *removed = json_pack("{s:o}", "runs", runs);
	size_t gone = json_array_size(runs);
	int rc = ids && removed ? count_removed(db, ids, removed)
				: ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	free(ids);
	json_t *doc = json_pack(
	    "{s:I, s:I, s:o, s:o, s:o, s:o}", "total", (json_int_t)c->n, "kept",
	    (json_int_t)(c->n - gone), "kept_by", kept_by(c), "removed",
	    removed, "refused", refused_runs(c), "missing",
	    o->run_ids ? missing_ids(c, o) : json_array());
	if (!rc && !doc)
		rc = ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	if (rc) {
		json_decref(doc);
		return rc;
	}
	*out = doc;
	return 0;
}

static int plan(struct ax_db *db, const struct ax_db_prune_opts *o,
		json_t **out)
{
	struct cands c = {0};
	*out = NULL;
	if (!o->run_ids && o->keep_last < 1)
		return ax_dbi_fail(db, AX_EINVAL,
				   "keep_last must be at least 1 (got %d)",
				   o->keep_last);
	int rc = read_cands(db, o->stop, &c);
	if (!rc) {
		if (o->run_ids)
			decide_named(&c, o);
		else
			decide_policy(&c, o);
		rc = plan_doc(db, &c, o, out);
	}
	cands_free(&c);
	return rc;
}

int ax_db_prune_plan(struct ax_db *db, const struct ax_db_prune_opts *o,
		     json_t **out)
{
	return plan(db, o, out);
}

/* The cascades do the work, so a connection without foreign keys would
 * leave every result and sample behind with no run: refuse it. */
static int check_foreign_keys(struct ax_db *db)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(db, "PRAGMA foreign_keys", &st);
	if (rc)
		return rc;
	bool on = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return on ? 0
		  : ax_dbi_fail(db, AX_EDB,
				"%s: foreign keys are off on this connection, "
				"so deleting runs would leave their results "
				"behind; nothing was removed",
				db->path);
}

/* Delete the runs of doc, one statement each, so that Ctrl-C is seen
 * between runs. */
static int delete_runs(struct ax_db *db, const json_t *runs,
		       const volatile int *stop)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(db, "DELETE FROM run WHERE id = ?", &st);
	size_t i;
	json_t *r;
	json_array_foreach(runs, i, r)
	{
		if (stop && *stop) {
			rc = AX_EINTR;
			break;
		}
		sqlite3_reset(st);
		sqlite3_bind_int64(
		    st, 1, json_integer_value(json_object_get(r, "id")));
		int s = sqlite3_step(st);
		if (s != SQLITE_DONE) {
			rc = ax_dbi_fail_sql(db, s, "deleting a run");
			break;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

static int interrupted(struct ax_db *db)
{
	return ax_dbi_fail(db, AX_EINTR,
			   "%s: interrupted before the commit; nothing was "
			   "removed",
			   db->path);
}

/* Refused or missing named runs found inside the transaction: the
 * database changed since the caller looked. */
static bool named_trouble(const json_t *doc)
{
	return json_array_size(json_object_get(doc, "refused")) > 0 ||
	       json_array_size(json_object_get(doc, "missing")) > 0;
}

int ax_db_prune(struct ax_db *db, const struct ax_db_prune_opts *o,
		json_t **out)
{
	json_t *doc = NULL;
	*out = NULL;
	int rc = check_foreign_keys(db);
	if (rc || (rc = ax_dbi_begin(db)))
		return rc;
	if ((rc = plan(db, o, &doc)))
		return ax_dbi_rollback(db, rc);
	if (named_trouble(doc))
		rc = ax_dbi_fail(db, AX_EINVAL,
				 "%s: a named run is gone or is now kept (a "
				 "baseline, a tuning session or a running "
				 "run); nothing was removed; look again",
				 db->path);
	if (!rc) {
		const json_t *runs =
		    json_object_get(json_object_get(doc, "removed"), "runs");
		rc = delete_runs(db, runs, o->stop);
	}
	if (!rc && o->stop && *o->stop)
		rc = AX_EINTR;
	if (rc == AX_EINTR)
		rc = interrupted(db);
	if (!rc)
		rc = ax_dbi_commit(db);
	if (rc) {
		json_decref(doc);
		return ax_dbi_rollback(db, rc);
	}
	*out = doc;
	return 0;
}

int ax_db_vacuum(struct ax_db *db)
{
	int rc = ax_dbi_exec(db, "VACUUM", "compacting the database (VACUUM)");
	if (!rc)
		rc = ax_dbi_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)",
				 "writing the compacted database back");
	return rc;
}
