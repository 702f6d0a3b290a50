/*
 * core/db_prune.c - `db prune`: which runs a retention policy removes,
 * and removing them in one transaction (the contract is in
 * core/db_admin.h).
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

#include "core/db_admin.h"
#include "core/error.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* Why a run stays; KEEP_NONE: it goes.  The protections come first, in
 * the order of enum ax_db_prune_reason. */
enum keep {
	KEEP_NONE,
	KEEP_BASELINE = AX_DB_PRUNE_BASELINE,
	KEEP_TUNE = AX_DB_PRUNE_TUNE,
	KEEP_RUNNING = AX_DB_PRUNE_RUNNING,
	KEEP_LAST,
	KEEP_WEEKLY,
	KEEP_NOT_NAMED,
	N_KEEP
};

struct cand {
	int64_t id;
	char *started_at, *kind, *label, *series, *week, *status;
	bool baselined; /* a baseline uses it */
	bool trials;	/* trials name its results */
	bool named;	/* in run_ids */
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
    " EXISTS (SELECT 1 FROM baseline b WHERE b.run_id = r.id)"
    " OR EXISTS (SELECT 1 FROM baseline_run br WHERE br.run_id = r.id),"
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
	r->baselined = sqlite3_column_int(st, 7) != 0;
	r->trials = sqlite3_column_int(st, 8) != 0;
	return r->kind && r->series;
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
	if (r->baselined)
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

/* run_ids that name no run, once each, into p. */
static bool missing_ids(const struct cands *c, const struct ax_db_prune_opts *o,
			struct ax_db_prune_plan *p)
{
	if (o->n_run_ids &&
	    !(p->missing = calloc((size_t)o->n_run_ids, sizeof(*p->missing))))
		return false;
	for (int i = 0; i < o->n_run_ids; i++) {
		bool found = false, seen = false;
		for (size_t k = 0; k < c->n && !found; k++)
			found = c->v[k].id == o->run_ids[i];
		for (int k = 0; k < i && !seen; k++)
			seen = o->run_ids[k] == o->run_ids[i];
		if (!found && !seen)
			p->missing[p->n_missing++] = o->run_ids[i];
	}
	return true;
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

/* The removed runs into p, oldest first; their texts move from c. */
static bool removed_runs(struct cands *c, struct ax_db_prune_plan *p)
{
	struct cand **v = calloc(c->n + 1, sizeof(*v));
	p->removed = calloc(c->n + 1, sizeof(*p->removed));
	if (!v || !p->removed) {
		free(v);
		return false;
	}
	size_t n = 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].keep == KEEP_NONE)
			v[n++] = &c->v[i];
	qsort(v, n, sizeof(*v), by_start);
	for (size_t i = 0; i < n; i++) {
		struct ax_db_prune_run *r = &p->removed[i];
		r->id = v[i]->id;
		r->started_at = v[i]->started_at, v[i]->started_at = NULL;
		r->kind = v[i]->kind, v[i]->kind = NULL;
		r->label = v[i]->label, v[i]->label = NULL;
		r->status = v[i]->status, v[i]->status = NULL;
	}
	p->n_removed = n;
	free(v);
	return true;
}

/* The names of the baselines that use run id, by name, into r. */
static int baseline_names(struct ax_db *db, int64_t id,
			  struct ax_db_prune_refusal *r)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(
	    db,
	    "SELECT name FROM baseline WHERE run_id = ?1 UNION SELECT b.name"
	    " FROM baseline_run br JOIN baseline b ON b.id = br.baseline_id"
	    " WHERE br.run_id = ?1 ORDER BY 1",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char **v =
		    realloc(r->baselines, (r->n_baselines + 1) * sizeof(*v));
		char *name = v ? col_dup(st, 0) : NULL;
		if (v)
			r->baselines = v;
		if (!name) {
			sqlite3_finalize(st);
			return ax_dbi_fail(db, AX_ENOMEM, "out of memory");
		}
		r->baselines[r->n_baselines++] = name;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0
				 : ax_dbi_fail_sql(db, rc, "reading baselines");
}

/* Named runs that must stay, with why, into p. */
static int refused_runs(struct ax_db *db, const struct cands *c,
			struct ax_db_prune_plan *p)
{
	int rc = 0;
	p->refused = calloc(c->n + 1, sizeof(*p->refused));
	if (!p->refused)
		return ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	for (size_t i = 0; i < c->n && !rc; i++) {
		const struct cand *r = &c->v[i];
		if (!r->named || r->keep == KEEP_NONE)
			continue;
		struct ax_db_prune_refusal *f = &p->refused[p->n_refused++];
		f->id = r->id;
		f->reason = (enum ax_db_prune_reason)r->keep;
		if (r->keep == KEEP_BASELINE)
			rc = baseline_names(db, r->id, f);
	}
	return rc;
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

/* The ids of p's removed runs as a JSON array's text, for json_each;
 * NULL when out of memory (free it).  A bound value, never SQL: made with
 * jansson so that no format builds text for SQLite here
 * (tests/cli/hostile.bats). */
static char *removed_ids(const struct ax_db_prune_plan *p)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < p->n_removed; i++)
		json_array_append_new(a, json_integer(p->removed[i].id));
	char *text = a ? json_dumps(a, JSON_COMPACT) : NULL;
	json_decref(a);
	return text;
}

static int count_removed(struct ax_db *db, struct ax_db_prune_plan *p)
{
	char *ids = removed_ids(p);
	sqlite3_stmt *st;
	int rc = ids ? ax_dbi_prepare(db, count_sql, &st)
		     : ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	if (rc) {
		free(ids);
		return rc;
	}
	sqlite3_bind_text(st, 1, ids, -1, free);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return ax_dbi_fail_sql(db, rc, "counting what the runs hold");
	}
	p->results = sqlite3_column_int64(st, 0);
	p->samples = sqlite3_column_int64(st, 1);
	p->telemetry_series = sqlite3_column_int64(st, 2);
	p->telemetry_readings = sqlite3_column_int64(st, 3);
	sqlite3_finalize(st);
	return 0;
}

static void count_kept(const struct cands *c, struct ax_db_prune_plan *p)
{
	int64_t n[N_KEEP] = {0};
	for (size_t i = 0; i < c->n; i++)
		n[c->v[i].keep]++;
	p->kept_by.baseline = n[KEEP_BASELINE];
	p->kept_by.tune = n[KEEP_TUNE];
	p->kept_by.running = n[KEEP_RUNNING];
	p->kept_by.last = n[KEEP_LAST];
	p->kept_by.weekly = n[KEEP_WEEKLY];
	p->kept_by.not_named = n[KEEP_NOT_NAMED];
}

/* The plan of ax_db_prune_plan from decided runs (whose removed runs'
 * texts move into it). */
static int plan_of(struct ax_db *db, struct cands *c,
		   const struct ax_db_prune_opts *o, struct ax_db_prune_plan *p)
{
	p->total = (int64_t)c->n;
	count_kept(c, p);
	if (!removed_runs(c, p) || (o->run_ids && !missing_ids(c, o, p)))
		return ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	p->kept = p->total - (int64_t)p->n_removed;
	int rc = count_removed(db, p);
	return rc ? rc : refused_runs(db, c, p);
}

static int plan(struct ax_db *db, const struct ax_db_prune_opts *o,
		struct ax_db_prune_plan **out)
{
	struct cands c = {0};
	*out = NULL;
	if (!o->run_ids && o->keep_last < 1)
		return ax_dbi_fail(db, AX_EINVAL,
				   "keep_last must be at least 1 (got %d)",
				   o->keep_last);
	struct ax_db_prune_plan *p = calloc(1, sizeof(*p));
	int rc = p ? read_cands(db, o->stop, &c)
		   : ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	if (!rc) {
		if (o->run_ids)
			decide_named(&c, o);
		else
			decide_policy(&c, o);
		rc = plan_of(db, &c, o, p);
	}
	cands_free(&c);
	if (rc) {
		ax_db_prune_plan_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int ax_db_prune_plan(struct ax_db *db, const struct ax_db_prune_opts *o,
		     struct ax_db_prune_plan **out)
{
	return plan(db, o, out);
}

void ax_db_prune_plan_free(struct ax_db_prune_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_removed; i++) {
		struct ax_db_prune_run *r = &p->removed[i];
		free(r->started_at), free(r->kind), free(r->label);
		free(r->status);
	}
	for (size_t i = 0; i < p->n_refused; i++) {
		for (size_t k = 0; k < p->refused[i].n_baselines; k++)
			free(p->refused[i].baselines[k]);
		free(p->refused[i].baselines);
	}
	free(p->removed);
	free(p->refused);
	free(p->missing);
	free(p);
}

/* The policy as the document says it: what o asked for. */
static json_t *policy_json(const struct ax_db_prune_opts *o)
{
	if (!o->run_ids)
		return json_pack("{s:s, s:i, s:b, s:n}", "mode", "retention",
				 "keep_last", o->keep_last, "weekly", o->weekly,
				 "run_ids");
	json_t *ids = json_array();
	for (int i = 0; i < o->n_run_ids; i++)
		json_array_append_new(ids, json_integer(o->run_ids[i]));
	return json_pack("{s:s, s:n, s:n, s:o}", "mode", "runs", "keep_last",
			 "weekly", "run_ids", ids);
}

json_t *ax_db_prune_json(const struct ax_db_prune_plan *p,
			 const struct ax_db_prune_opts *o, bool dry_run)
{
	json_t *ids = json_array();
	for (size_t i = 0; i < p->n_removed; i++)
		json_array_append_new(ids, json_integer(p->removed[i].id));
	return json_pack(
	    "{s:b, s:o, s:I, s:{s:I, s:I, s:I, s:I, s:I, s:I},"
	    " s:{s:o, s:I, s:I, s:I, s:I}}",
	    "dry_run", dry_run, "policy", policy_json(o), "kept",
	    (json_int_t)p->kept, "kept_by", "baseline",
	    (json_int_t)p->kept_by.baseline, "tune",
	    (json_int_t)p->kept_by.tune, "running",
	    (json_int_t)p->kept_by.running, "last", (json_int_t)p->kept_by.last,
	    "weekly", (json_int_t)p->kept_by.weekly, "not_named",
	    (json_int_t)p->kept_by.not_named, "removed", "runs", ids, "results",
	    (json_int_t)p->results, "samples", (json_int_t)p->samples,
	    "telemetry_series", (json_int_t)p->telemetry_series,
	    "telemetry_readings", (json_int_t)p->telemetry_readings);
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

/* Delete the runs of p, one statement each, so that Ctrl-C is seen
 * between runs. */
static int delete_runs(struct ax_db *db, const struct ax_db_prune_plan *p,
		       const volatile int *stop)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(db, "DELETE FROM run WHERE id = ?", &st);
	for (size_t i = 0; !rc && i < p->n_removed; i++) {
		if (stop && *stop) {
			rc = AX_EINTR;
			break;
		}
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, p->removed[i].id);
		int s = sqlite3_step(st);
		if (s != SQLITE_DONE)
			rc = ax_dbi_fail_sql(db, s, "deleting a run");
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

int ax_db_prune(struct ax_db *db, const struct ax_db_prune_opts *o,
		struct ax_db_prune_plan **out)
{
	struct ax_db_prune_plan *p = NULL;
	*out = NULL;
	int rc = check_foreign_keys(db);
	if (rc || (rc = ax_dbi_begin(db)))
		return rc;
	if ((rc = plan(db, o, &p)))
		return ax_dbi_rollback(db, rc);
	/* Refused or missing named runs found inside the transaction: the
	 * database changed since the caller looked. */
	if (p->n_refused || p->n_missing)
		rc = ax_dbi_fail(db, AX_EINVAL,
				 "%s: a named run is gone or is now kept (a "
				 "baseline, a tuning session or a running "
				 "run); nothing was removed; look again",
				 db->path);
	if (!rc)
		rc = delete_runs(db, p, o->stop);
	if (!rc && o->stop && *o->stop)
		rc = AX_EINTR;
	if (rc == AX_EINTR)
		rc = interrupted(db);
	if (!rc)
		rc = ax_dbi_commit(db);
	if (rc) {
		ax_db_prune_plan_free(p);
		return ax_dbi_rollback(db, rc);
	}
	*out = p;
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
