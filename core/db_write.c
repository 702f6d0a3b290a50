/* core/db_write.c - inserts and updates, each in its own transaction
 * where it writes more than one row (see core/db.h). */
#include "core/db_internal.h"

#include "core/error.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writes ----------------------------------------------------------- */

int ax_db_host_upsert(struct ax_db *db, const struct ax_db_host *h, int64_t *id)
{
	char key[1024], fp[17];
	sqlite3_stmt *st;
	int rc;

	snprintf(key, sizeof(key), "%s|%s|%s|%d|%d|%" PRId64,
		 h->hostname ? h->hostname : "", h->os ? h->os : "",
		 h->cpu_model ? h->cpu_model : "", h->cores, h->numa_nodes,
		 h->memory_bytes);
	ax_dbi_hash_hex(key, fp);
	rc = ax_dbi_prepare(
	    db,
	    "INSERT INTO host (uuid, fingerprint, hostname, os,"
	    " cpu_model, cores, numa_nodes, memory_bytes,"
	    " topology_json, created_at)"
	    " VALUES (?,?,?,?,?,?,?,?,?," AX_NOW ")"
	    " ON CONFLICT(fingerprint) DO UPDATE SET topology_json ="
	    " coalesce(excluded.topology_json, topology_json)"
	    " RETURNING id",
	    &st);
	if (rc)
		return rc;
	ax_dbi_bind_uuid(st, 1);
	ax_dbi_bind_text(st, 2, fp);
	ax_dbi_bind_text(st, 3, h->hostname);
	ax_dbi_bind_text(st, 4, h->os);
	ax_dbi_bind_text(st, 5, h->cpu_model);
	sqlite3_bind_int(st, 6, h->cores);
	sqlite3_bind_int(st, 7, h->numa_nodes);
	sqlite3_bind_int64(st, 8, h->memory_bytes);
	ax_dbi_bind_text(st, 9, h->topology_json);
	return ax_dbi_step_done(db, st, id, "recording the host");
}

int ax_db_device_upsert(struct ax_db *db, const struct ax_db_device *d,
			int64_t *id)
{
	sqlite3_stmt *st;
	int rc;

	if (!d->fingerprint)
		return ax_dbi_fail(db, AX_EINVAL,
				   "device without a fingerprint");
	rc = ax_dbi_prepare(
	    db,
	    "INSERT INTO device (uuid, fingerprint, name, vendor,"
	    " type, driver_name, driver_info, vendor_id, device_id,"
	    " driver_id, api_version, driver_version, device_uuid,"
	    " driver_uuid, pci_bus_id, properties_json, created_at,"
	    " updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?," AX_NOW
	    "," AX_NOW ") ON CONFLICT(fingerprint) DO UPDATE"
	    " SET name = excluded.name,"
	    " driver_info = excluded.driver_info,"
	    " pci_bus_id = coalesce(excluded.pci_bus_id, pci_bus_id),"
	    " properties_json = excluded.properties_json,"
	    " updated_at = excluded.updated_at RETURNING id",
	    &st);
	if (rc)
		return rc;
	ax_dbi_bind_uuid(st, 1);
	ax_dbi_bind_text(st, 2, d->fingerprint);
	ax_dbi_bind_text(st, 3, d->name);
	ax_dbi_bind_text(st, 4, d->vendor);
	ax_dbi_bind_text(st, 5, d->type);
	ax_dbi_bind_text(st, 6, d->driver_name);
	ax_dbi_bind_text(st, 7, d->driver_info);
	sqlite3_bind_int64(st, 8, d->vendor_id);
	sqlite3_bind_int64(st, 9, d->device_id);
	sqlite3_bind_int64(st, 10, d->driver_id);
	sqlite3_bind_int64(st, 11, d->api_version);
	sqlite3_bind_int64(st, 12, d->driver_version);
	ax_dbi_bind_text(st, 13, d->device_uuid);
	ax_dbi_bind_text(st, 14, d->driver_uuid);
	ax_dbi_bind_text(st, 15, d->pci_bus_id);
	ax_dbi_bind_text(st, 16, d->properties_json);
	return ax_dbi_step_done(db, st, id, "recording the device");
}

int ax_db_run_begin(struct ax_db *db, const struct ax_db_run *r, int64_t *id)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(
	    db,
	    "INSERT INTO run (uuid, host_id, device_id,"
	    " started_at, status, axbench_version, git_sha,"
	    " argv_json, config_json, profile, owner_pid, owner_boot,"
	    " owner_start, label) VALUES (?,?,?," AX_NOW
	    ",'running',?,?,?,?,?,?,?,?,?) RETURNING id",
	    &st);

	if (rc)
		return rc;
	ax_dbi_bind_uuid(st, 1);
	ax_dbi_bind_id(st, 2, r->host_id);
	ax_dbi_bind_id(st, 3, r->device_id);
	ax_dbi_bind_text(st, 4, r->axbench_version);
	ax_dbi_bind_text(st, 5, r->git_sha);
	ax_dbi_bind_text(st, 6, r->argv_json);
	ax_dbi_bind_text(st, 7, r->config_json);
	ax_dbi_bind_text(st, 8, r->profile);
	ax_dbi_bind_owner(st, 9);
	ax_dbi_bind_text(st, 12, r->label);
	return ax_dbi_step_done(db, st, id, "starting a run");
}

int ax_db_run_finish(struct ax_db *db, int64_t run_id, const char *status)
{
	sqlite3_stmt *st;
	int rc =
	    ax_dbi_prepare(db,
			   "UPDATE run SET finished_at = " AX_NOW ", status = ?"
			   " WHERE id = ?",
			   &st);

	if (rc)
		return rc;
	ax_dbi_bind_text(st, 1, status ? status : "complete");
	sqlite3_bind_int64(st, 2, run_id);
	if ((rc = ax_dbi_step_done(db, st, NULL, "finishing a run")))
		return rc;
	if (sqlite3_changes(db->h) == 0)
		return ax_dbi_fail(db, AX_ENOTFOUND,
				   "%s: no run with id %" PRId64, db->path,
				   run_id);
	return 0;
}

static int insert_result(struct ax_db *db, const struct ax_db_result *r,
			 int64_t *id)
{
	double stats[11] = {r->median, r->min,	 r->max,      r->mean,
			    r->stddev, r->q1,	 r->q3,	      r->mad,
			    r->ci_lo,  r->ci_hi, r->rel_noise};
	char ph[17];
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(
	    db,
	    "INSERT INTO result (uuid, run_id, suite, case_label,"
	    " params_json, params_hash, shader_hash, unit,"
	    " higher_is_better, work, timing_mode, stop_reason,"
	    " status, error_text, n, median, min, max, mean,"
	    " stddev, q1, q3, mad, ci_lo, ci_hi, rel_noise,"
	    " extra_json, cpu_baseline_id, speedup_vs_cpu, created_at)"
	    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
	    "?,?,?,?," AX_NOW ") RETURNING id",
	    &st);

	if (rc)
		return rc;
	ax_dbi_hash_hex(r->params_json ? r->params_json : "{}", ph);
	ax_dbi_bind_uuid(st, 1);
	sqlite3_bind_int64(st, 2, r->run_id);
	ax_dbi_bind_text(st, 3, r->suite);
	ax_dbi_bind_text(st, 4, r->case_label);
	ax_dbi_bind_text(st, 5, r->params_json ? r->params_json : "{}");
	ax_dbi_bind_text(st, 6, ph);
	ax_dbi_bind_text(st, 7, r->shader_hash);
	ax_dbi_bind_text(st, 8, r->unit);
	sqlite3_bind_int(st, 9, r->higher_is_better);
	sqlite3_bind_double(st, 10, r->work);
	ax_dbi_bind_text(st, 11, r->timing_mode);
	ax_dbi_bind_text(st, 12, r->stop_reason);
	ax_dbi_bind_text(st, 13, r->status ? r->status : "ok");
	ax_dbi_bind_text(st, 14, r->error_text);
	sqlite3_bind_int(st, 15, r->n);
	/* SQLite stores a NaN as NULL, which reads back as JSON null. */
	for (int i = 0; i < 11; i++)
		sqlite3_bind_double(st, 16 + i, stats[i]);
	ax_dbi_bind_text(st, 27, r->extra_json);
	ax_dbi_bind_id(st, 28, r->cpu_baseline_id);
	/* A speed-up exists only beside the baseline it was taken from. */
	if (r->cpu_baseline_id)
		sqlite3_bind_double(st, 29, r->speedup_vs_cpu);
	return ax_dbi_step_done(db, st, id, "storing a result");
}

static int insert_samples(struct ax_db *db, int64_t result_id,
			  const double *seconds, const double *values, int n)
{
	sqlite3_stmt *st;
	int rc =
	    ax_dbi_prepare(db,
			   "INSERT INTO sample (uuid, result_id, idx, seconds,"
			   " value) VALUES (?,?,?,?,?)",
			   &st);

	if (rc)
		return rc;
	for (int i = 0; i < n; i++) {
		sqlite3_reset(st);
		ax_dbi_bind_uuid(st, 1);
		sqlite3_bind_int64(st, 2, result_id);
		sqlite3_bind_int(st, 3, i);
		if (seconds)
			sqlite3_bind_double(st, 4, seconds[i]);
		else
			sqlite3_bind_null(st, 4);
		if (values)
			sqlite3_bind_double(st, 5, values[i]);
		else
			sqlite3_bind_null(st, 5);
		rc = sqlite3_step(st);
		if (rc != SQLITE_DONE) {
			rc = ax_dbi_fail_sql(db, rc, "storing samples");
			sqlite3_finalize(st);
			return rc;
		}
	}
	sqlite3_finalize(st);
	return 0;
}

/* NAN (and infinities) bind as NULL: a figure not measured is never 0. */
static void bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

/* The stored figures' columns and placeholders (AX_DB_POWER_FIGURES,
 * AX_TEL_STORED: lists of names), and a power figure's bind. */
#define POWER_COLUMN(name) " " #name ","
#define POWER_PLACE(name) "?,"
#define POWER_BIND(name) bind_real(st, k++, p->name);

static int insert_series_samples(struct ax_db *db, int64_t series_id,
				 const struct ax_db_series *s)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(
	    db,
	    "INSERT INTO telemetry_sample (series_id, idx, "
	    "t," AX_TEL_STORED(POWER_COLUMN) " throttle) VALUES "
					     "(?,?,?," AX_TEL_STORED(
						 POWER_PLACE) "?)",
	    &st);
	if (rc)
		return rc;
	for (size_t i = 0; i < s->n; i++) {
		const struct ax_tel_reading *r = &s->readings[i];
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, series_id);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		sqlite3_bind_double(st, 3, r->t - s->t0);
		int k = 4;
#define READING_BIND(name) bind_real(st, k++, r->name);
		AX_TEL_STORED(READING_BIND)
#undef READING_BIND
		if (r->has_throttle)
			sqlite3_bind_int64(st, k, (int64_t)r->throttle);
		else
			sqlite3_bind_null(st, k);
		rc = sqlite3_step(st);
		if (rc != SQLITE_DONE) {
			rc = ax_dbi_fail_sql(db, rc, "storing telemetry");
			sqlite3_finalize(st);
			return rc;
		}
	}
	sqlite3_finalize(st);
	return 0;
}

/* The series row and its samples (inside the caller's transaction). */
static int insert_series(struct ax_db *db, const struct ax_db_series *s,
			 int64_t result_id, int64_t *id)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(
	    db,
	    "INSERT INTO telemetry_series (uuid, run_id, result_id,"
	    " device_id, kind, source, interval_s, timed_from_s,"
	    " created_at) VALUES (?,?,?,?,?,?,?,?," AX_NOW ") RETURNING id",
	    &st);
	if (rc)
		return rc;
	ax_dbi_bind_uuid(st, 1);
	ax_dbi_bind_id(st, 2, s->run_id);
	ax_dbi_bind_id(st, 3, result_id ? result_id : s->result_id);
	ax_dbi_bind_id(st, 4, s->device_id);
	ax_dbi_bind_text(st, 5, s->kind);
	ax_dbi_bind_text(st, 6, s->source);
	bind_real(st, 7, s->interval_s);
	bind_real(st, 8, s->timed_from_s);
	if ((rc = ax_dbi_step_done(db, st, id, "storing a telemetry series")))
		return rc;
	return insert_series_samples(db, *id, s);
}

static int insert_power(struct ax_db *db, int64_t result_id,
			const struct ax_db_power *p)
{
	int64_t series_id = 0;
	int rc =
	    p->series ? insert_series(db, p->series, result_id, &series_id) : 0;
	if (rc)
		return rc;
	sqlite3_stmt *st;
	rc = ax_dbi_prepare(
	    db,
	    "INSERT INTO result_power (result_id, source, reason, "
	    "readings," AX_DB_POWER_FIGURES(
		POWER_COLUMN) " perf_per_w_unit, throttled,"
			      " throttle_evidence, series_id) VALUES "
			      "(?,?,?,?," AX_DB_POWER_FIGURES(
				  POWER_PLACE) "?,?,?,?)",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, result_id);
	ax_dbi_bind_text(st, 2, p->source);
	ax_dbi_bind_text(st, 3, p->reason);
	sqlite3_bind_int(st, 4, p->readings);
	int k = 5;
	AX_DB_POWER_FIGURES(POWER_BIND)
	ax_dbi_bind_text(st, k++,
			 isfinite(p->perf_per_w) ? p->perf_per_w_unit : NULL);
	if (p->throttled >= 0)
		sqlite3_bind_int(st, k++, p->throttled);
	else
		sqlite3_bind_null(st, k++);
	ax_dbi_bind_text(st, k++, p->throttle_evidence);
	ax_dbi_bind_id(st, k, series_id);
	return ax_dbi_step_done(db, st, NULL, "storing a result's power");
}

int ax_db_result_add(struct ax_db *db, const struct ax_db_result *r,
		     const double *seconds, const double *values, int n,
		     int64_t *id)
{
	int64_t rid = 0;
	int rc;

	if (n < 0 || (n > 0 && !seconds && !values))
		return ax_dbi_fail(
		    db, AX_EINVAL,
		    "result of %s: %d samples but no sample arrays",
		    r->suite ? r->suite : "?", n);
	if ((rc = ax_dbi_begin(db)))
		return rc;
	if ((rc = insert_result(db, r, &rid)) ||
	    (rc = insert_samples(db, rid, seconds, values, n)) ||
	    (r->power && (rc = insert_power(db, rid, r->power))) ||
	    (rc = ax_dbi_commit(db)))
		return ax_dbi_rollback(db, rc);
	if (id)
		*id = rid;
	return 0;
}

int ax_db_session_begin(struct ax_db *db, const struct ax_db_session *s,
			int64_t *id)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(
	    db,
	    "INSERT INTO tune_session (uuid, device_id, suite,"
	    " shape_json, strategy, objective, seed, budget,"
	    " space_json, stop_rule, prior_session_id, mode, started_at)"
	    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?," AX_NOW ") RETURNING id",
	    &st);

	if (rc)
		return rc;
	ax_dbi_bind_uuid(st, 1);
	ax_dbi_bind_id(st, 2, s->device_id);
	ax_dbi_bind_text(st, 3, s->suite);
	ax_dbi_bind_text(st, 4, s->shape_json);
	ax_dbi_bind_text(st, 5, s->strategy);
	ax_dbi_bind_text(st, 6, s->objective);
	/* The 64-bit seed is kept by bit pattern; reads undo the cast. */
	sqlite3_bind_int64(st, 7, (int64_t)s->seed);
	sqlite3_bind_int(st, 8, s->budget);
	ax_dbi_bind_text(st, 9, s->space_json);
	ax_dbi_bind_text(st, 10, s->stop_rule);
	ax_dbi_bind_id(st, 11, s->prior_session_id);
	ax_dbi_bind_text(st, 12, s->mode ? s->mode : "batch");
	return ax_dbi_step_done(db, st, id, "starting a tuning session");
}

int ax_db_session_finish(struct ax_db *db, int64_t session_id,
			 const char *stop_reason, int64_t best_trial_id)
{
	sqlite3_stmt *st;
	int rc =
	    ax_dbi_prepare(db,
			   "UPDATE tune_session SET finished_at = " AX_NOW ","
			   " stop_reason = ?, best_trial_id = ? WHERE id = ?",
			   &st);

	if (rc)
		return rc;
	ax_dbi_bind_text(st, 1, stop_reason);
	ax_dbi_bind_id(st, 2, best_trial_id);
	sqlite3_bind_int64(st, 3, session_id);
	if ((rc = ax_dbi_step_done(db, st, NULL, "finishing a tuning session")))
		return rc;
	if (sqlite3_changes(db->h) == 0)
		return ax_dbi_fail(db, AX_ENOTFOUND,
				   "%s: no tuning session with id %" PRId64,
				   db->path, session_id);
	return 0;
}

int ax_db_session_set_front(struct ax_db *db, int64_t session_id,
			    const char *front_json)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(
	    db, "UPDATE tune_session SET front_json = ? WHERE id = ?", &st);
	if (rc)
		return rc;
	ax_dbi_bind_text(st, 1, front_json);
	sqlite3_bind_int64(st, 2, session_id);
	return ax_dbi_step_done(db, st, NULL, "storing a session's front");
}

int ax_db_trial_add(struct ax_db *db, const struct ax_db_trial *t, int64_t *id)
{
	sqlite3_stmt *st;
	int rc =
	    ax_dbi_prepare(db,
			   "INSERT INTO trial (uuid, session_id, idx,"
			   " params_json, status, value, seconds, compile_ms,"
			   " result_id, error_text, objective_value,"
			   " created_at) VALUES"
			   " (?,?,?,?,?,?,?,?,?,?,?," AX_NOW ") RETURNING id",
			   &st);

	if (rc)
		return rc;
	ax_dbi_bind_uuid(st, 1);
	sqlite3_bind_int64(st, 2, t->session_id);
	sqlite3_bind_int(st, 3, t->index);
	ax_dbi_bind_text(st, 4, t->params_json);
	ax_dbi_bind_text(st, 5, t->status ? t->status : "ok");
	sqlite3_bind_double(st, 6, t->value);
	sqlite3_bind_double(st, 7, t->seconds);
	sqlite3_bind_double(st, 8, t->compile_ms);
	ax_dbi_bind_id(st, 9, t->result_id);
	ax_dbi_bind_text(st, 10, t->error_text);
	bind_real(st, 11, t->objective_value);
	return ax_dbi_step_done(db, st, id, "storing a tuning trial");
}

/* The baseline row itself, its run_id the newest of the runs. */
static int upsert_baseline(struct ax_db *db, const char *name, int64_t newest)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(
	    db,
	    "INSERT INTO baseline (uuid, name, run_id, created_at)"
	    " VALUES (?,?,?," AX_NOW ") ON CONFLICT(name) DO UPDATE"
	    " SET run_id = excluded.run_id,"
	    " created_at = excluded.created_at",
	    &st);
	if (rc)
		return rc;
	ax_dbi_bind_uuid(st, 1);
	ax_dbi_bind_text(st, 2, name);
	sqlite3_bind_int64(st, 3, newest);
	return ax_dbi_step_done(db, st, NULL, "saving a baseline");
}

/* Its runs: the old list replaced by run_ids. */
static int set_baseline_runs(struct ax_db *db, const char *name,
			     const int64_t *run_ids, int n)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(db,
				"DELETE FROM baseline_run WHERE baseline_id ="
				" (SELECT id FROM baseline WHERE name = ?)",
				&st);
	if (rc)
		return rc;
	ax_dbi_bind_text(st, 1, name);
	if ((rc = ax_dbi_step_done(db, st, NULL, "saving a baseline")))
		return rc;
	for (int i = 0; i < n && rc == 0; i++) {
		rc = ax_dbi_prepare(
		    db,
		    "INSERT OR IGNORE INTO baseline_run (baseline_id, run_id)"
		    " SELECT id, ? FROM baseline WHERE name = ?",
		    &st);
		if (rc)
			return rc;
		sqlite3_bind_int64(st, 1, run_ids[i]);
		ax_dbi_bind_text(st, 2, name);
		rc = ax_dbi_step_done(db, st, NULL, "saving a baseline");
	}
	return rc;
}

int ax_db_baseline_save(struct ax_db *db, const char *name,
			const int64_t *run_ids, int n)
{
	int rc;
	if (!name || !*name)
		return ax_dbi_fail(db, AX_EINVAL,
				   "baseline name is empty; give it a name");
	if (n < 1 || !run_ids)
		return ax_dbi_fail(
		    db, AX_EINVAL,
		    "baseline %s names no run; give at least one", name);
	if ((rc = ax_dbi_begin(db)))
		return rc;
	int64_t newest = run_ids[0];
	for (int i = 0; i < n; i++) {
		if ((rc = ax_db_run_exists(db, run_ids[i])))
			return ax_dbi_rollback(db, rc);
		newest = run_ids[i] > newest ? run_ids[i] : newest;
	}
	if ((rc = upsert_baseline(db, name, newest)) ||
	    (rc = set_baseline_runs(db, name, run_ids, n)) ||
	    (rc = ax_dbi_commit(db)))
		return ax_dbi_rollback(db, rc);
	return 0;
}

int ax_db_series_add(struct ax_db *db, const struct ax_db_series *s,
		     int64_t *id)
{
	int64_t sid = 0;
	int rc = ax_dbi_begin(db);
	if (rc)
		return rc;
	if ((rc = insert_series(db, s, 0, &sid)) || (rc = ax_dbi_commit(db)))
		return ax_dbi_rollback(db, rc);
	if (id)
		*id = sid;
	return 0;
}

int ax_db_cpu_baseline_add(struct ax_db *db, const struct ax_db_cpu_baseline *b,
			   int64_t *id)
{
	char sh[17];
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(
	    db,
	    "INSERT INTO cpu_baseline (uuid, host_id, suite, shape_json,"
	    " shape_hash, library, version, corename, config, note,"
	    " threads, unit, status, error_text, stop_reason, n, median,"
	    " ci_lo, ci_hi, rel_noise, load_1m, busy_other, online_cpus,"
	    " created_at) VALUES"
	    " (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?," AX_NOW ")"
	    " RETURNING id",
	    &st);
	if (rc)
		return rc;
	ax_dbi_hash_hex(b->shape_json, sh);
	ax_dbi_bind_uuid(st, 1);
	sqlite3_bind_int64(st, 2, b->host_id);
	ax_dbi_bind_text(st, 3, b->suite);
	ax_dbi_bind_text(st, 4, b->shape_json);
	ax_dbi_bind_text(st, 5, sh);
	ax_dbi_bind_text(st, 6, b->library);
	ax_dbi_bind_text(st, 7, b->version);
	ax_dbi_bind_text(st, 8, b->corename);
	ax_dbi_bind_text(st, 9, b->config);
	ax_dbi_bind_text(st, 10, b->note);
	sqlite3_bind_int(st, 11, b->threads);
	ax_dbi_bind_text(st, 12, b->unit);
	ax_dbi_bind_text(st, 13, b->status);
	ax_dbi_bind_text(st, 14, b->error_text);
	ax_dbi_bind_text(st, 15, b->stop_reason);
	sqlite3_bind_int(st, 16, b->n);
	bind_real(st, 17, b->median);
	bind_real(st, 18, b->ci_lo);
	bind_real(st, 19, b->ci_hi);
	bind_real(st, 20, b->rel_noise);
	/* Unknown load stays NULL (bind nothing): never a quiet 0. */
	if (b->load_known) {
		bind_real(st, 21, b->load_1m);
		bind_real(st, 22, b->busy_other);
		if (b->online_cpus > 0)
			sqlite3_bind_int(st, 23, b->online_cpus);
	}
	return ax_dbi_step_done(db, st, id, "storing a CPU baseline");
}
