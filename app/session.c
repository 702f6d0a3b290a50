/* app/session.c - one measurement session (see session.h). */
#include "app/session.h"
#include "core/interrupt.h"
#include "suites/scratch.h"

#include "core/db.h"
#include "core/error.h"
#include "core/live.h"
#include "core/telemetry.h"
#include "core/vk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* After a result could not be stored, finishing the run row waits this
 * long for a lock at most: the user has waited once already. */
#define FINISH_WAIT_S 5.0

void ax_session_case_label(const struct ax_params *p, char *buf, size_t len)
{
	ax_params_label(p, AX_PARAM_SHAPE, buf, len);
	for (int i = 0; i < p->n; i++) {
		const struct ax_param_def *d = &p->defs[i];
		if ((d->flags & AX_PARAM_SHAPE) || p->v[i] == d->def)
			continue;
		char v[64];
		size_t used = strlen(buf);
		ax_param_format(d, p->v[i], v, sizeof(v));
		snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "",
			 d->name, v);
	}
}

void ax_session_init(struct ax_session *s, struct ax_app *app,
		     const char *command)
{
	memset(s, 0, sizeof(*s));
	s->app = app;
	s->command = command;
	ax_session_efficiency_default(&s->eff);
	s->idle_w = NAN;
	/* Before any case is checked: ingest's check looks at free space
	 * in this directory. */
	char dir[4096];
	if (app->workdir)
		snprintf(dir, sizeof(dir), "%s", app->workdir);
	else
		ax_scratch_dir_of(app->db_path, dir, sizeof(dir));
	ax_scratch_set_dir(dir);
}

void ax_session_efficiency_default(struct ax_session_efficiency *e)
{
	memset(e, 0, sizeof(*e));
	e->interval_s = AX_TEL_INTERVAL_DEFAULT;
	e->idle_s = AX_SESSION_IDLE_S;
	e->cpu = AX_CPU_BASELINE_AUTO;
}

int ax_session_choose_device(struct ax_session *s)
{
	int rc = ax_app_open_vk(s->app, &s->inst, &s->device_index);
	if (rc == 0)
		s->info = ax_vk_device_info(s->inst, s->device_index);
	return rc;
}

int ax_session_choose_device_at(struct ax_session *s, int index)
{
	int rc = ax_app_open_vk(s->app, &s->inst, NULL);
	if (rc)
		return rc;
	if (index < 0 || index >= ax_vk_device_count(s->inst))
		return ax_app_error(s->app, AX_EXIT_NODEV,
				    "%s: device %d is gone (%d devices now)",
				    s->command, index,
				    ax_vk_device_count(s->inst));
	s->device_index = index;
	s->info = ax_vk_device_info(s->inst, index);
	return 0;
}

int ax_session_open_db(struct ax_session *s)
{
	return s->db ? 0 : ax_app_open_db(s->app, false, &s->db);
}

int ax_session_begin_run(struct ax_session *s, const struct ax_session_run *run)
{
	char err[1024];
	int rc = ax_session_open_db(s);
	if (rc)
		return rc;
	if (ax_vk_open(s->inst, s->device_index, &s->vk, err, sizeof(err)))
		return ax_app_error(s->app, AX_EXIT_NODEV, "%s", err);
	rc = ax_app_register(s->app, s->db, s->vk->info, &s->host_id,
			     &s->device_id);
	if (rc)
		return rc;
	char *argv_json = ax_app_argv_json(s->app), label[512];
	if (run->label)
		snprintf(label, sizeof(label), "%s", run->label);
	else
		ax_app_default_label(s->info->name, label, sizeof(label));
	/* Identical devices get labels that tell them apart too. */
	if (!run->label && s->info->twin_of >= 0) {
		size_t used = strlen(label);
		snprintf(label + used, sizeof(label) - used, " #%d",
			 s->info->twin_rank + 1);
	}
	struct ax_db_run row = {
	    .host_id = s->host_id,
	    .device_id = s->device_id,
	    .axbench_version = AX_VERSION_STRING,
	    .git_sha = AX_GIT_SHA_STRING,
	    .argv_json = argv_json,
	    .config_json = run->config_json,
	    .profile = run->profile,
	    .label = label,
	};
	rc = ax_db_run_begin(s->db, &row, &s->run_id);
	free(argv_json);
	if (rc)
		return ax_app_error(s->app, AX_EXIT_STORAGE, "%s",
				    ax_db_errmsg(s->db));
	ax_session_power_open(s);
	return 0;
}

/*
 * A device lost by an earlier case (a fence timeout or a device loss)
 * still holds pending work and is left alone; the session goes on with a
 * new logical device.  A few times at most: a device that keeps hanging
 * gets the rest of its cases stored as skipped by the runner, with the
 * reason.
 */
static void replace_lost_device(struct ax_session *s)
{
	char err[1024];
	struct ax_vk_ctx *fresh;
	bool say = s->app->verbosity >= 0;
	const char *how = s->lost_how ? s->lost_how : "was lost or timed out";
	const char *in = s->lost_case[0] ? " in case " : "";
	s->was_lost = true;
	if (s->reopens >= AX_SESSION_MAX_REOPENS) {
		if (say && !s->said_limit)
			fprintf(stderr,
				"axbench %s: the device %s%s%s; %d new "
				"logical devices were used (at most %d): the "
				"cases after it are skipped\n",
				s->command, how, in, s->lost_case, s->reopens,
				AX_SESSION_MAX_REOPENS);
		s->said_limit = true;
		return;
	}
	if (ax_vk_open(s->inst, s->device_index, &fresh, err, sizeof(err))) {
		fprintf(stderr,
			"axbench %s: cannot open the device again "
			"after a loss: %s\n",
			s->command, err);
		return;
	}
	s->reopens++;
	if (say)
		fprintf(stderr,
			"axbench %s: the device %s%s%s; going on with a new "
			"logical device (%d of at most %d)\n",
			s->command, how, in, s->lost_case, s->reopens,
			AX_SESSION_MAX_REOPENS);
	ax_vk_close(s->vk); /* lost: leaves it to the process exit */
	s->vk = fresh;
}

/*
 * Hangs cost a bounded time in all.  The grace period is a budget the
 * session's cases share: work that overran takes from it what it waited,
 * a hang the rest.  And once a device hung, warm-ups get at least 10 s
 * (suites/runner.c), not 60 s.  (Five hanging cases with --timeout 1
 * took 184 s: 60 s of warm-up and a whole grace period each.)
 */
static void bound_hangs(const struct ax_session *s, struct ax_runner_opts *o)
{
	if (o->grace_s >= 0) {
		double budget =
		    o->grace_s > 0 ? o->grace_s : ax_runner_grace_s(o->timeout_s);
		double left = budget - s->grace_spent_s;
		o->grace_s = left > 0 ? left : -1;
	}
	if (s->was_lost)
		o->short_warmup_floor = true;
}

/* What a case left of the budget and the device, for the next one. */
static void after_case(struct ax_session *s, const struct ax_runner_result *r,
		       const char *label)
{
	s->grace_spent_s += r->grace_waited_s;
	if (!s->vk->lost)
		return;
	s->was_lost = true;
	s->lost_how = r->outcome == AX_CASE_TIMEOUT ? "hung" : "was lost";
	snprintf(s->lost_case, sizeof(s->lost_case), "%s", label);
}

void ax_session_ensure_device(struct ax_session *s)
{
	if (s->vk->lost)
		replace_lost_device(s);
}

void ax_session_note_case(struct ax_session *s,
			  const struct ax_runner_result *r, const char *label)
{
	after_case(s, r, label);
}

int ax_session_reopen_device(struct ax_session *s)
{
	char err[1024];
	if (s->vk && s->vk->lost) {
		replace_lost_device(s); /* the rule for a lost device */
		return 0;
	}
	ax_vk_close(s->vk);
	s->vk = NULL;
	if (ax_vk_open(s->inst, s->device_index, &s->vk, err, sizeof(err)))
		return ax_app_error(s->app, AX_EXIT_NODEV,
				    "%s: cannot open the device again for the "
				    "next round: %s",
				    s->command, err);
	return 0;
}

/* The result's extra JSON: the caller's fields, the suite's own facts,
 * the bytes the work moves and the runner's bookkeeping (malloc'd). */
static char *extra_json(const struct ax_session *s,
			const struct ax_suite *suite, const struct ax_params *p,
			const struct ax_runner_result *r, const json_t *extra)
{
	json_t *o =
	    json_is_object(r->extra) ? json_deep_copy(r->extra) : json_object();
	if (extra)
		json_object_update(o, (json_t *)extra);
	if (suite->bytes)
		json_object_set_new(o, "bytes", json_real(suite->bytes(p)));
	if (suite->input_bytes)
		json_object_set_new(o, "input_bytes",
				    json_real(suite->input_bytes(p)));
	json_object_set_new(o, "reps_per_sample",
			    json_integer(r->reps_per_sample));
	json_object_set_new(o, "setup_ms", json_real(r->setup_ms));
	json_object_set_new(o, "compile_ms", json_real(r->compile_ms));
	if (s->eff.sustain) /* the report draws these runs' series */
		json_object_set_new(o, "sustained", json_true());
	char *text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return text;
}

/* The one mapping from a runner result to a database row. */
static int store(struct ax_session *s, const struct ax_suite *suite,
		 const struct ax_params *p, const json_t *extra,
		 const struct ax_db_power *power, int64_t cpu_baseline_id,
		 struct ax_session_case *c)
{
	const struct ax_runner_result *r = &c->r;
	/* A result that is not ok stores no figure (NULL, never 0): a
	 * failed case's summary is zeros, and a timed-out case's the
	 * samples before the timeout, neither of them a speed.  Its raw
	 * samples are still stored. */
	static const struct ax_summary none = {
	    .median = NAN,
	    .min = NAN,
	    .max = NAN,
	    .mean = NAN,
	    .stddev = NAN,
	    .q1 = NAN,
	    .q3 = NAN,
	    .mad = NAN,
	    .ci_lo = NAN,
	    .ci_hi = NAN,
	    .rel_noise = NAN,
	};
	const struct ax_summary *m =
	    r->outcome == AX_CASE_OK && r->n > 0 ? &r->summary : &none;
	char *params = ax_params_to_json(p);
	char *extra_text = extra_json(s, suite, p, r, extra);
	struct ax_db_result row = {
	    .run_id = s->run_id,
	    .suite = suite->name,
	    .case_label = c->label,
	    .params_json = params,
	    .shader_hash = r->shader_hash[0] ? r->shader_hash : NULL,
	    .unit = suite->unit,
	    .higher_is_better = suite->higher_is_better,
	    .work = suite->work ? suite->work(p) : 0,
	    .timing_mode = r->timing_mode,
	    .stop_reason = r->stop_reason,
	    .status = r->status_text,
	    .error_text = r->error[0] ? r->error : NULL,
	    .n = r->n,
	    .median = m->median,
	    .min = m->min,
	    .max = m->max,
	    .mean = m->mean,
	    .stddev = m->stddev,
	    .q1 = m->q1,
	    .q3 = m->q3,
	    .mad = m->mad,
	    .ci_lo = m->ci_lo,
	    .ci_hi = m->ci_hi,
	    .rel_noise = m->rel_noise,
	    .extra_json = extra_text,
	    .cpu_baseline_id = cpu_baseline_id,
	    .speedup_vs_cpu = c->speedup_vs_cpu,
	    .power = power,
	};
	int rc = ax_db_result_add(s->db, &row, r->seconds, r->values, r->n,
				  &c->result_id);
	free(params);
	free(extra_text);
	return rc;
}

static void count(struct ax_session *s, const struct ax_runner_result *r)
{
	if (r->outcome == AX_CASE_OK)
		s->n_ok++;
	else if (r->outcome == AX_CASE_SKIPPED)
		s->n_skipped++;
	else if (r->outcome != AX_CASE_INTERRUPTED)
		s->n_failed++;
}

/*
 * A result measured but not stored (the database stayed locked, the disk
 * is full ...): say exactly what was kept and what was not, with the
 * figure itself so that it is not lost with the process.  The session
 * stops after this; the run row is finished without waiting long again.
 */
static void say_not_stored(struct ax_session *s, const struct ax_suite *suite,
			   const struct ax_session_case *c)
{
	const struct ax_runner_result *r = &c->r;
	fprintf(stderr, "axbench %s: storing the result: %s\n", s->command,
		ax_db_errmsg(s->db));
	fprintf(stderr, "axbench %s: NOT stored: %s %s (%s", s->command,
		suite->name, c->label, ax_case_status_name(r->outcome));
	if (r->summary.n > 0)
		fprintf(stderr, ", median %.6g %s over %d samples",
			r->summary.median, suite->unit, r->summary.n);
	fprintf(stderr,
		"); stored before it: %d result%s of run %lld; the cases "
		"after it were not measured\n",
		s->n_ok + s->n_failed + s->n_skipped,
		s->n_ok + s->n_failed + s->n_skipped == 1 ? "" : "s",
		(long long)s->run_id);
	s->store_failed = true;
	ax_db_set_lock_wait(FINISH_WAIT_S, &ax_interrupted, NULL, NULL);
}

/* The power callback of the case, then the caller's (s->phase_hook):
 * telemetry marks its span first, then --concurrent's rendezvous. */
static void on_phase_chain(void *ctx, enum ax_runner_phase phase)
{
	struct ax_session_timing *t = ctx;
	if (t->power_phase)
		t->power_phase(t->power_ctx, phase);
	t->s->phase_hook(t->s->phase_ctx, phase);
}

void ax_session_time_case(struct ax_session *s, const struct ax_suite *suite,
			  const struct ax_params *p,
			  const struct ax_runner_opts *opts,
			  struct ax_session_timing *t)
{
	struct ax_session_case *out = &t->c;
	memset(out, 0, sizeof(*out));
	t->s = s;
	out->mean_w = out->perf_per_w = out->speedup_vs_cpu = NAN;
	out->energy_rep_j = NAN;
	ax_session_case_label(p, out->label, sizeof(out->label));
	if (s->vk->lost)
		replace_lost_device(s);
	struct ax_runner_opts o = *opts;
	bound_hangs(s, &o);
	ax_session_power_start(s, &t->power, &o);
	if (s->phase_hook) {
		t->power_phase = o.phase;
		t->power_ctx = o.phase_ctx;
		o.phase = on_phase_chain;
		o.phase_ctx = t;
	}
	ax_runner_run_case(s->vk, suite, p, &o, &out->r);
	/* What follows (the CPU baseline, a lost device) may speak: the
	 * case's live line goes first, or the words join it. */
	ax_live_clear();
	after_case(s, &out->r, out->label);
	t->row = ax_session_power_finish(&t->power, suite, &out->r);
	out->mean_w = t->row ? t->row->mean_w : NAN;
	out->perf_per_w = t->row ? t->row->perf_per_w : NAN;
	out->energy_rep_j = t->row ? t->row->energy_rep_j : NAN;
}

int ax_session_store_case(struct ax_session *s, const struct ax_suite *suite,
			  const struct ax_params *p,
			  const struct ax_runner_opts *opts, const json_t *extra,
			  struct ax_session_timing *t)
{
	struct ax_session_case *out = &t->c;
	int64_t cpu_id;
	ax_session_cpu_compare(s, suite, p, opts, &out->r, &cpu_id,
			       &out->speedup_vs_cpu);
	int rc = store(s, suite, p, extra, t->row, cpu_id, out);
	ax_session_power_release(&t->power);
	t->row = NULL;
	if (rc) {
		out->result_id = 0;
		say_not_stored(s, suite, out);
		return rc == AX_EINTR ? AX_EXIT_INTERRUPTED : AX_EXIT_STORAGE;
	}
	count(s, &out->r);
	return 0;
}

int ax_session_measure(struct ax_session *s, const struct ax_suite *suite,
		       const struct ax_params *p,
		       const struct ax_runner_opts *opts, const json_t *extra,
		       struct ax_session_case *out)
{
	struct ax_session_timing t;
	ax_session_time_case(s, suite, p, opts, &t);
	int rc = ax_session_store_case(s, suite, p, opts, extra, &t);
	*out = t.c; /* the runner result moves to the caller */
	return rc;
}

void ax_session_case_release(struct ax_session_case *c)
{
	ax_runner_result_release(&c->r);
}

int ax_session_finish(struct ax_session *s, int rc)
{
	bool interrupted = ax_interrupted != 0;
	/* "failed": the session could not measure everything it was asked
	 * to (a storage error, or a device was lost and cases skipped);
	 * failed results of a run that went through are per result. */
	if (s->run_id && ax_db_run_finish(s->db, s->run_id,
					  interrupted	      ? "interrupted"
					  : rc || s->was_lost ? "failed"
							      : "complete"))
		fprintf(stderr,
			"axbench %s: run %lld could not be marked finished "
			"(%s); readers show it as abandoned once this "
			"process has exited\n",
			s->command, (long long)s->run_id, ax_db_errmsg(s->db));
	if (rc == 0 && interrupted)
		rc = AX_EXIT_INTERRUPTED;
	rc = ax_app_check_validation(s->app, s->inst, rc);
	ax_session_power_close(s);
	ax_vk_close(s->vk);
	ax_db_close(s->db);
	ax_vk_instance_destroy(s->inst);
	memset(s, 0, sizeof(*s));
	return rc;
}

/* ---- paired measurement ------------------------------------------------ */

/* The pairing's facts, stored in both sides' extra JSON as "pair", so
 * that a reader of either result finds the verdict's figures and the
 * other side. */
static json_t *pair_extra(const struct ax_session_pair_side *side,
			  const char *name,
			  const struct ax_runner_pair_result *pr,
			  int64_t other_id)
{
	json_t *o = json_is_object(side->extra) ? json_deep_copy(side->extra)
						: json_object();
	json_t *pair = json_pack("{s:s, s:i, s:i, s:s}", "side", name,
				 "rounds", pr->rounds, "blocks",
				 pr->blocks.blocks,
				 "stop_reason", pr->stop_reason);
	/* B's speed over A's and its interval (json_real of NAN is NULL,
	 * so an unmeasured figure is simply absent). */
	json_object_set_new(pair, "speedup", json_real(pr->speedup));
	json_object_set_new(pair, "speedup_lo", json_real(pr->lo));
	json_object_set_new(pair, "speedup_hi", json_real(pr->hi));
	json_object_set_new(pair, "p_value", json_real(pr->p_value));
	json_object_set_new(pair, "level", json_real(pr->test.ci_level));
	if (other_id > 0)
		json_object_set_new(pair, "other_result_id",
				    json_integer(other_id));
	json_object_set_new(o, "pair", pair);
	return o;
}

/* Store one side as ax_session_measure stores a case (no power: the
 * sensor cannot tell two interleaved sides apart). */
static int store_side(struct ax_session *s, const struct ax_runner_opts *opts,
		      struct ax_session_pair_side *side, const char *name,
		      const struct ax_runner_pair_result *pr, int64_t other_id)
{
	struct ax_session_case *c = &side->c;
	int64_t cpu_id;
	ax_session_cpu_compare(s, side->suite, side->p, opts, &c->r, &cpu_id,
			       &c->speedup_vs_cpu);
	json_t *extra = pair_extra(side, name, pr, other_id);
	int rc = store(s, side->suite, side->p, extra, NULL, cpu_id, c);
	json_decref(extra);
	if (rc) {
		c->result_id = 0;
		say_not_stored(s, side->suite, c);
		return rc == AX_EINTR ? AX_EXIT_INTERRUPTED : AX_EXIT_STORAGE;
	}
	count(s, &c->r);
	return 0;
}

static void side_init(struct ax_session_pair_side *side)
{
	memset(&side->c, 0, sizeof(side->c));
	side->c.mean_w = side->c.perf_per_w = side->c.energy_rep_j = NAN;
	side->c.speedup_vs_cpu = NAN;
	ax_session_case_label(side->p, side->c.label, sizeof(side->c.label));
}

int ax_session_measure_pair(struct ax_session *s,
			    const struct ax_runner_opts *opts,
			    const struct ax_runner_pair_opts *po,
			    struct ax_session_pair_side *a,
			    struct ax_session_pair_side *b,
			    struct ax_runner_pair_result *pr)
{
	memset(pr, 0, sizeof(*pr));
	pr->speedup = pr->lo = pr->hi = pr->half_width = pr->p_value = NAN;
	pr->stop_reason = "error";
	side_init(a);
	side_init(b);
	if (s->vk->lost)
		replace_lost_device(s);
	struct ax_runner_case *ca = NULL, *cb = NULL;
	int rc = 0;
	struct ax_runner_opts o = *opts;
	bound_hangs(s, &o);
	ax_runner_case_open(s->vk, a->suite, a->p, &o, &a->c.r, &ca);
	if (ca)
		ax_runner_case_open(s->vk, b->suite, b->p, &o, &b->c.r, &cb);
	if (ca && cb) {
		struct ax_runner_pair_side sa = {ax_runner_case_round, ca,
						 ax_runner_case_rebuild};
		struct ax_runner_pair_side sb = {ax_runner_case_round, cb,
						 ax_runner_case_rebuild};
		rc = ax_runner_pair(&sa, &sb, po, pr);
	}
	/* A side's error stopped the rounds: it fails with it, the other
	 * keeps what it measured. */
	bool both = ca && cb;
	if (ca)
		ax_runner_case_close(ca, pr->failed_side == 1 ? rc : 0);
	if (cb)
		ax_runner_case_close(cb, pr->failed_side == 2 ? rc : 0);
	const struct ax_session_pair_side *lost = pr->failed_side == 2 ? b : a;
	s->grace_spent_s += (pr->failed_side == 2 ? a : b)->c.r.grace_waited_s;
	after_case(s, &lost->c.r, lost->c.label);
	/* A side that never opened is stored with its reason; its partner,
	 * never sampled, has nothing to store. */
	int st = 0;
	if (both || !ca)
		st = store_side(s, opts, a, "A", pr, 0);
	if (st == 0 && ca)
		st = store_side(s, opts, b, "B", pr, a->c.result_id);
	return st;
}
