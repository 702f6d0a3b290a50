/* app/run_exec.c - measure a plan's cases and store each as it finishes. */
#include "app/run_exec.h"
#include "core/interrupt.h"

#include "app/case_column.h"
#include "app/session.h"
#include "core/error.h"
#include "core/live.h"
#include "core/vk.h"
#include "reports/export.h"

#include <math.h>
#include <pthread.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct exec {
	struct ax_app *app;
	struct ax_plan *plan;
	struct ax_runner_opts opts;
	bool skip_beyond_limits;
	struct ax_run_origin origin;
	struct ax_session session;
	int index;	   /* case being measured, 0-based */
	const char *label; /* of that case, for the progress line */
	char case_label[512];
	bool tty;
	int case_width;	  /* of the table's case column */
	struct ax_case_column cases; /* what that column shows */
	json_t *json_out; /* --json: results as they are stored */
	/* Verified results whose median ended less tight than max_noise,
	 * and the first few of them by name, for the warning at the end. */
	int n_noisy;
	char noisy_names[512];
};

static void on_progress(void *ctx, int n, double median)
{
	struct exec *ex = ctx;
	const struct ax_suite *s = ex->plan->cases[ex->index].suite;
	char line[1024];
	/* The case, the longest part, last: what is cut (core/live.h). */
	snprintf(line, sizeof(line), "[%d/%d] %s: %d samples, median %.4g %s | %s",
		 ex->index + 1, ex->plan->n, s->name, n, median, s->unit,
		 ex->label);
	ax_live_show(line);
}

/* The case column's width and contents; the table's header when print. */
static void print_header(struct exec *ex, bool print)
{
	ex->case_width = 4;
	ax_case_column_init(&ex->cases, ex->app->verbosity > 0);
	char label[512], shown[512];
	for (int i = 0; i < ex->plan->n; i++) {
		ax_session_case_label(&ex->plan->cases[i].params, label,
				      sizeof(label));
		ax_case_column_add(&ex->cases, ex->plan->cases[i].suite->name,
				   label);
	}
	for (int i = 0; i < ex->plan->n; i++) {
		ax_session_case_label(&ex->plan->cases[i].params, label,
				      sizeof(label));
		ax_case_column_text(&ex->cases, ex->plan->cases[i].suite->name,
				    label, shown, sizeof(shown));
		int w = (int)strlen(shown);
		if (w > ex->case_width)
			ex->case_width = w > 90 ? 90 : w;
	}
	if (!print || ex->app->json || ex->app->verbosity < 0)
		return;
	if (ex->origin.group) /* several devices: which one a row is */
		printf("%-3s ", "dev");
	printf("%-10s %-*s %12s %-8s %8s %4s %-11s %7s %8s %7s %s\n", "suite",
	       ex->case_width, "case", "median", "unit", "+-ci", "n", "stop",
	       "W", "perf/W", "vs-cpu", "status");
}

/* A figure of the table, or "-" where it was not measured. */
static const char *cell(char *buf, size_t len, double v, const char *fmt)
{
	if (isnan(v))
		return "-";
	snprintf(buf, len, fmt, v);
	return buf;
}

static void print_json_row(struct exec *ex, const struct ax_plan_case *c,
			   const struct ax_session_case *sc)
{
	const struct ax_runner_result *r = &sc->r;
	json_t *o =
	    json_pack("{s:I,s:s,s:s,s:s,s:s,s:i,s:s?,s:s?}", "id",
		      (json_int_t)sc->result_id, "suite", c->suite->name,
		      "case", sc->label, "status", r->status_text, "unit",
		      c->suite->unit, "n", r->n, "stop_reason", r->stop_reason,
		      "error", r->error[0] ? r->error : NULL);
	/* Every row has every key (docs/JSON.md): a figure that is not a
	 * verified speed is null, as `results --json` reads it back. */
	bool ok = r->status == 0 && r->n > 0;
	double figures[6] = {ok ? r->summary.median : NAN,
			     ok ? r->summary.ci_lo : NAN,
			     ok ? r->summary.ci_hi : NAN,
			     sc->mean_w,
			     sc->perf_per_w,
			     sc->speedup_vs_cpu};
	const char *keys[6] = {"median", "ci_lo",      "ci_hi",
			       "mean_w", "perf_per_w", "speedup_vs_cpu"};
	for (int i = 0; i < 6; i++)
		json_object_set_new(o, keys[i],
				    isfinite(figures[i]) ? json_real(figures[i])
							 : json_null());
	if (ex->origin.group)
		json_object_set_new(o, "device",
				    json_integer(ex->session.device_index));
	json_array_append_new(ex->json_out, o);
}

static void print_row(struct exec *ex, const struct ax_plan_case *c,
		      const struct ax_session_case *sc)
{
	const struct ax_runner_result *r = &sc->r;
	if (ex->app->json)
		return print_json_row(ex, c, sc);
	char label[512];
	ax_case_column_text(&ex->cases, c->suite->name, sc->label, label,
			    sizeof(label));
	if (ex->origin.group)
		printf("%-3d ", ex->session.device_index);
	if (r->status != 0) {
		printf(
		    "%-10s %-*s %12s %-8s %8s %4d %-11s %7s %8s %7s %s: %s\n",
		    c->suite->name, ex->case_width, label, "-",
		    c->suite->unit, "-", r->n,
		    r->stop_reason ? r->stop_reason : "-", "-", "-", "-",
		    r->status_text, r->error);
	} else {
		char w[32], pw[32], x[32];
		double half = (r->summary.ci_hi - r->summary.ci_lo) / 2;
		printf("%-10s %-*s %12.4g %-8s %7.2f%% %4d %-11s %7s %8s %7s "
		       "%s\n",
		       c->suite->name, ex->case_width, label,
		       r->summary.median, c->suite->unit,
		       r->summary.median ? 100 * half / r->summary.median : 0,
		       r->n, r->stop_reason,
		       cell(w, sizeof(w), sc->mean_w, "%.1f"),
		       cell(pw, sizeof(pw), sc->perf_per_w, "%.3g"),
		       cell(x, sizeof(x), sc->speedup_vs_cpu, "%.2fx"),
		       "verified");
	}
	fflush(stdout);
}

/* A verified result that stopped on its sample or time limit with a
 * median less tight than asked: noted for warn_noise. */
static void note_noise(struct exec *ex, const struct ax_plan_case *pc,
		       const struct ax_runner_result *r)
{
	double target = ex->opts.max_noise;
	if (r->status != 0 || !(target > 0) || !(r->summary.rel_noise > target))
		return;
	if (ex->n_noisy++ < 3) {
		size_t used = strlen(ex->noisy_names);
		snprintf(ex->noisy_names + used, sizeof(ex->noisy_names) - used,
			 "%s%s %s +/-%.3g%% (%s)", used ? ", " : "",
			 pc->suite->name, ex->case_label,
			 100 * r->summary.rel_noise,
			 r->stop_reason ? r->stop_reason : "?");
	}
}

/* Results that missed the noise target are said, with what would help:
 * compare calls a change between them "noisy", not a regression. */
static void warn_noise(const struct exec *ex)
{
	const struct ax_session *s = &ex->session;
	if (!ex->n_noisy || ex->app->verbosity < 0 || ex->app->json)
		return; /* --json: the rows carry stop_reason and n */
	fprintf(stderr,
		"axbench: warning: %d of %d verified result%s ended above the "
		"noise target of +/-%.3g%%: %s%s; compare calls a change "
		"between such results \"noisy\", not a regression. What "
		"helps: more samples (--max-samples, --max-time), a quieter "
		"machine (nothing else running, a fixed clock)%s, or a target "
		"this machine can meet (--max-noise).\n",
		ex->n_noisy, s->n_ok, s->n_ok == 1 ? "" : "s",
		100 * ex->opts.max_noise, ex->noisy_names,
		ex->n_noisy > 3 ? ", ..." : "",
		ex->opts.mode == AX_MODE_COLD
		    ? ", --mode batch (back-to-back repetitions)"
		    : "");
}

/* Measure one case, store it, print it.  Returns an exit code when the run
 * must stop (storage error), else 0. */
static int run_one(struct exec *ex, int i, int round)
{
	const struct ax_plan_case *pc = &ex->plan->cases[i];
	struct ax_session_case c;
	ex->index = i;
	ax_session_case_label(&pc->params, ex->case_label,
			      sizeof(ex->case_label));
	ex->label = ex->case_label;
	/* Each round's result says which it is, for compare and reports. */
	json_t *extra = ex->plan->rounds > 1
			    ? json_pack("{s:i,s:i}", "round", round, "rounds",
					ex->plan->rounds)
			    : NULL;
	int rc = ax_session_measure(&ex->session, pc->suite, &pc->params,
				    &ex->opts, extra, &c);
	json_decref(extra);
	ax_live_clear();
	if (rc == 0)
		print_row(ex, pc, &c);
	if (rc == 0)
		note_noise(ex, pc, &c.r);
	ax_session_case_release(&c);
	return rc;
}

/* Pass r of rounds over every case; from the second on, on a freshly
 * opened logical device. */
static int run_round(struct exec *ex, int r, int rounds)
{
	int rc = 0;
	if (r > 1)
		rc = ax_session_reopen_device(&ex->session);
	if (rc == 0 && rounds > 1 && ex->app->verbosity >= 0 && !ex->app->json)
		fprintf(stderr, "axbench: round %d of %d\n", r, rounds);
	for (int i = 0; rc == 0 && i < ex->plan->n; i++) {
		if (ax_interrupted)
			break;
		rc = run_one(ex, i, r);
	}
	return rc;
}

/* The measurement settings and the profile, as the run row keeps them,
 * with the command that asked (readers tell a recommend run by it:
 * AX_RUN_KIND_SQL in core/db_internal.h). */
static char *run_config_json(const struct exec *ex)
{
	const struct ax_runner_opts *o = &ex->opts;
	json_t *cfg = json_pack(
	    "{s:s,s:i,s:i,s:i,s:f,s:f,s:f,s:f,s:s,s:i,s:o?}", "command",
	    ex->origin.command, "warmup", o->warmup, "min_samples",
	    o->min_samples, "max_samples", o->max_samples, "max_noise",
	    o->max_noise, "min_time_s", o->min_time_s, "max_time_s",
	    o->max_time_s, "timeout_s", o->timeout_s, "mode",
	    o->mode == AX_MODE_COLD ? "cold" : "batch", "rounds",
	    ex->plan->rounds > 1 ? ex->plan->rounds : 1, "profile",
	    ex->plan->profile ? ax_config_to_json(ex->plan->profile) : NULL);
	const struct ax_run_group *g = ex->origin.group;
	if (g)
		json_object_set_new(
		    cfg, "devices",
		    json_pack("{s:s,s:i,s:i,s:s}", "group", g->id, "nth",
			      g->nth, "of", g->n, "mode",
			      g->concurrent ? "concurrent" : "sequential"));
	char *text = json_dumps(cfg, JSON_COMPACT);
	json_decref(cfg);
	return text;
}

/* --tuned: the cases take the tuned parameters (app/run_plan.c). */
static void apply_tuned(struct exec *ex, const struct ax_vk_device_info *info)
{
	if (!ex->plan->tuned)
		return;
	struct ax_plan_tuned_count n =
	    ax_plan_apply_tuned(ex->plan, info->fingerprint);
	if (ex->app->verbosity < 0)
		return;
	fprintf(stderr,
		"axbench: --tuned gave %d of %d cases their parameters (%d "
		"from this device, %d from another)",
		n.here + n.elsewhere, ex->plan->n, n.here, n.elsewhere);
	if (n.defaults)
		fprintf(stderr,
			": %d tuned, %d the defaults (no tuned point beat "
			"them)",
			n.here + n.elsewhere - n.defaults, n.defaults);
	fputc('\n', stderr);
}

/* Sweep points beyond the device's limits are left out, named here;
 * anything else impossible stops the run before it is stored. */
static int precheck(struct exec *ex, const struct ax_vk_device_info *info)
{
	int rc = ax_plan_check(ex->plan, info, ex->skip_beyond_limits,
			       ex->origin.command);
	for (int i = 0; i < ex->plan->n_skipped; i++) {
		const struct ax_plan_skip *k = &ex->plan->skipped[i];
		char label[512];
		ax_session_case_label(&k->c.params, label, sizeof(label));
		if (ex->app->verbosity >= 0)
			fprintf(stderr, "axbench %s: skipping %s %s: %s\n",
				ex->origin.command, k->c.suite->name, label, k->why);
	}
	return rc;
}

static int open_all(struct exec *ex)
{
	struct ax_session *s = &ex->session;
	const struct ax_run_group *g = ex->origin.group;
	int rc = g ? ax_session_choose_device_at(s, g->index[g->nth])
		   : ax_session_choose_device(s);
	if (rc)
		return rc;
	apply_tuned(ex, s->info);
	rc = ax_plan_apply_defaults(ex->plan, s->info, ex->app);
	if (rc == 0)
		rc = precheck(ex, s->info);
	if (rc)
		return rc;
	char *cfg = run_config_json(ex);
	struct ax_session_run run = {
	    .config_json = cfg,
	    .profile = ex->plan->profile ? ex->plan->profile->name : NULL,
	    .label = ex->origin.label,
	};
	rc = ax_session_begin_run(s, &run);
	free(cfg);
	if (rc == 0 && ex->app->verbosity >= 0 && !ex->app->json)
		fprintf(stderr, "axbench: %d case%s on %s, database %s\n",
			ex->plan->n, ex->plan->n == 1 ? "" : "s", s->info->name,
			ex->app->db_path);
	return rc;
}

static int finish(struct exec *ex, int rc)
{
	const struct ax_session *s = &ex->session;
	bool interrupted = ax_interrupted != 0;
	if (ex->json_out && s->run_id) {
		json_t *doc =
		    json_pack("{s:I,s:O}", "run_id", (json_int_t)s->run_id,
			      "results", ex->json_out);
		if (ex->origin.group) { /* one document for all devices */
			json_object_set_new(
			    doc, "device",
			    json_integer(s->device_index));
			json_array_append_new(ex->origin.group->json_runs, doc);
		} else {
			json_dumpf(doc, stdout, JSON_INDENT(2));
			putchar('\n');
			json_decref(doc);
		}
	}
	if (s->run_id && !ex->app->json && ex->app->verbosity >= 0)
		fprintf(stderr,
			"axbench: run %lld: %d verified, %d failed, %d "
			"skipped%s\n",
			(long long)s->run_id, s->n_ok, s->n_failed,
			s->n_skipped, interrupted ? ", interrupted" : "");
	if (ax_case_column_cut(&ex->cases) && !ex->app->json &&
	    ex->app->verbosity >= 0)
	{
		fflush(stdout); /* after the table, where both are one file */
		fprintf(stderr, "axbench: %s\n", AX_CASE_COLUMN_NOTE);
	}
	ax_case_column_free(&ex->cases);
	warn_noise(ex);
	int n_failed = s->n_failed;
	json_decref(ex->json_out);
	if (ex->origin.group && s->was_lost) {
		char why[700];
		snprintf(why, sizeof(why), "%s in case %s",
			 s->lost_how ? s->lost_how : "was lost",
			 s->lost_case[0] ? s->lost_case : "?");
		ax_run_group_lost(ex->origin.group, s->device_index, why);
	}
	/* A failed result fails the command, not the run row: the run went
	 * through, and each result says how it ended. */
	rc = ax_session_finish(&ex->session, rc);
	return rc == 0 && n_failed ? AX_EXIT_FAIL : rc;
}

static void exec_init(struct exec *ex, struct ax_app *app, struct ax_plan *plan,
		      const struct ax_runner_opts *opts,
		      const struct ax_session_efficiency *eff,
		      bool skip_beyond_limits, const struct ax_run_origin *origin)
{
	memset(ex, 0, sizeof(*ex));
	ex->app = app;
	ex->plan = plan;
	ex->opts = *opts;
	ex->skip_beyond_limits = skip_beyond_limits;
	ex->origin.command = "run";
	if (origin)
		ex->origin = *origin;
	if (!ex->origin.command)
		ex->origin.command = "run";
	ex->tty = isatty(2) && app->verbosity >= 0;
	ex->opts.stop = &ax_interrupted;
	/* One live line per process: several devices at once get none. */
	if (ex->tty && !(ex->origin.group && ex->origin.group->concurrent)) {
		ex->opts.progress = on_progress;
		ex->opts.progress_ctx = ex;
	}
	if (app->json)
		ex->json_out = json_array();
	ax_session_init(&ex->session, app, "run");
	if (eff)
		ex->session.eff = *eff;
}

int ax_run_execute(struct ax_app *app, struct ax_plan *plan,
		   const struct ax_runner_opts *opts,
		   const struct ax_session_efficiency *eff,
		   bool skip_beyond_limits, const struct ax_run_origin *origin)
{
	struct exec ex;
	exec_init(&ex, app, plan, opts, eff, skip_beyond_limits, origin);
	int rc = open_all(&ex);
	if (rc == 0)
		print_header(&ex, true);
	int rounds = plan->rounds > 1 ? plan->rounds : 1;
	for (int r = 1; rc == 0 && r <= rounds && !ax_interrupted; r++)
		rc = run_round(&ex, r, rounds);
	return finish(&ex, rc);
}

/* ---- run --concurrent ------------------------------------------------- */

void ax_run_group_lost(struct ax_run_group *g, int device, const char *why)
{
	if (g->n_lost++ < 4) {
		size_t used = strlen(g->lost);
		snprintf(g->lost + used, sizeof(g->lost) - used,
			 "%sdevice %d %s", used ? "; " : "", device, why);
	}
}

/*
 * The devices' timed spans start together: each thread waits at its
 * case's first timed sample until every device still measuring has come
 * there (a device whose case ended before, failed or skipped, leaves the
 * count).  The wait is bounded: a device that takes longer than
 * AX_CONC_WAIT_S to get there (a hang in its set-up) lets the others go.
 */
#define AX_CONC_WAIT_S 300.0

struct rendezvous {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int live, arrived;
	bool open;
	bool waited_out; /* someone went ahead alone */
};

static void rv_open_if_all(struct rendezvous *rv)
{
	if (!rv->open && rv->arrived >= rv->live) {
		rv->open = true;
		pthread_cond_broadcast(&rv->cv);
	}
}

static void rv_arrive(void *ctx, enum ax_runner_phase phase)
{
	struct rendezvous *rv = ctx;
	if (phase != AX_PHASE_TIMED)
		return;
	pthread_mutex_lock(&rv->mu);
	rv->arrived++;
	rv_open_if_all(rv);
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)AX_CONC_WAIT_S;
	while (!rv->open && !ax_interrupted) {
		struct timespec slice;
		clock_gettime(CLOCK_REALTIME, &slice);
		if (slice.tv_sec >= until.tv_sec) {
			rv->waited_out = true;
			break;
		}
		slice.tv_nsec += 200000000L; /* Ctrl-C is seen in 0.2 s */
		if (slice.tv_nsec >= 1000000000L) {
			slice.tv_sec++;
			slice.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&rv->cv, &rv->mu, &slice);
	}
	pthread_mutex_unlock(&rv->mu);
}

static void rv_leave(struct rendezvous *rv)
{
	pthread_mutex_lock(&rv->mu);
	rv->live--;
	rv_open_if_all(rv);
	pthread_mutex_unlock(&rv->mu);
}

/* One device's share of one case. */
struct conc_slot {
	struct exec *ex;
	const struct ax_plan_case *pc;
	struct rendezvous *rv;
	struct ax_session_timing t;
};

static void *time_on_device(void *arg)
{
	struct conc_slot *sl = arg;
	ax_session_time_case(&sl->ex->session, sl->pc->suite,
			     &sl->pc->params, &sl->ex->opts, &sl->t);
	rv_leave(sl->rv);
	return NULL;
}

/* What the devices did together: the sum of their rates, or for a time
 * the slowest device's (the work of all is done when it is). */
static double aggregate(const struct ax_suite *suite,
			const struct conc_slot *sl, int n, int *n_ok)
{
	double agg = NAN;
	*n_ok = 0;
	for (int k = 0; k < n; k++) {
		const struct ax_runner_result *r = &sl[k].t.c.r;
		if (r->outcome != AX_CASE_OK || r->n == 0)
			continue;
		double v = r->summary.median;
		if (!(*n_ok)++)
			agg = v;
		else
			agg = suite->higher_is_better ? agg + v
						      : (v > agg ? v : agg);
	}
	return agg;
}

static void print_aggregate(const struct exec *ex, const struct ax_suite *suite,
			    double agg, int n_ok, int n)
{
	if (ex->app->json || ex->app->verbosity < 0)
		return;
	printf("%-3s %-10s %-*s %12.4g %-8s %s of %d device%s%s\n", "all",
	       suite->name, ex->case_width, "(together)", agg, suite->unit,
	       suite->higher_is_better ? "sum" : "slowest", n_ok,
	       n_ok == 1 ? "" : "s",
	       n_ok < n ? " (the others failed)" : "");
	fflush(stdout);
}

/* One case on every device at once, then stored device by device. */
static int run_together(struct exec **ex, int n, int i, bool *waited_out)
{
	struct conc_slot sl[AX_RUN_MAX_DEVICES];
	pthread_t th[AX_RUN_MAX_DEVICES];
	bool started[AX_RUN_MAX_DEVICES] = {0};
	struct rendezvous rv = {.live = n};
	pthread_mutex_init(&rv.mu, NULL);
	pthread_cond_init(&rv.cv, NULL);
	for (int k = 0; k < n; k++) {
		sl[k] = (struct conc_slot){ex[k], &ex[k]->plan->cases[i], &rv};
		ex[k]->index = i;
		ex[k]->session.phase_hook = rv_arrive;
		ex[k]->session.phase_ctx = &rv;
		started[k] =
		    pthread_create(&th[k], NULL, time_on_device, &sl[k]) == 0;
		if (!started[k])
			time_on_device(&sl[k]); /* no thread: alone, then */
	}
	for (int k = 0; k < n; k++)
		if (started[k])
			pthread_join(th[k], NULL);
	*waited_out |= rv.waited_out;
	pthread_cond_destroy(&rv.cv);
	pthread_mutex_destroy(&rv.mu);
	const struct ax_suite *suite = sl[0].pc->suite;
	int n_ok, rc = 0;
	double agg = aggregate(suite, sl, n, &n_ok);
	for (int k = 0; k < n; k++) {
		json_t *extra = json_pack(
		    "{s:{s:s,s:i,s:i,s:s}}", "concurrent", "group",
		    ex[k]->origin.group->id, "devices", n, "devices_ok", n_ok,
		    "rule", suite->higher_is_better ? "sum" : "slowest");
		json_object_set_new(json_object_get(extra, "concurrent"),
				    "aggregate", json_real(agg));
		ax_session_case_label(&sl[k].pc->params, ex[k]->case_label,
				      sizeof(ex[k]->case_label));
		int st = rc ? rc
			    : ax_session_store_case(&ex[k]->session, suite,
						    &sl[k].pc->params,
						    &ex[k]->opts, extra,
						    &sl[k].t);
		json_decref(extra);
		if (st == 0 && rc == 0) {
			print_row(ex[k], sl[k].pc, &sl[k].t.c);
			note_noise(ex[k], sl[k].pc, &sl[k].t.c.r);
		} else if (rc) {
			ax_session_power_release(&sl[k].t.power);
		}
		rc = rc ? rc : st;
		ax_session_case_release(&sl[k].t.c);
	}
	if (rc == 0 && n_ok > 0)
		print_aggregate(ex[0], suite, agg, n_ok, n);
	return rc;
}

/* Every device must measure the same cases, in the same order: each took
 * its own defaults and limits, and may have come out otherwise. */
static int same_cases(struct exec **ex, int n)
{
	char a[512], b[512];
	for (int k = 1; k < n; k++) {
		struct ax_plan *p0 = ex[0]->plan, *pk = ex[k]->plan;
		bool same = p0->n == pk->n;
		for (int i = 0; same && i < p0->n; i++) {
			ax_session_case_label(&p0->cases[i].params, a,
					      sizeof(a));
			ax_session_case_label(&pk->cases[i].params, b,
					      sizeof(b));
			same = p0->cases[i].suite == pk->cases[i].suite &&
			       !strcmp(a, b);
		}
		if (!same)
			return ax_app_error(
			    ex[0]->app, AX_EXIT_USAGE,
			    "run --concurrent: devices %d and %d would "
			    "measure different cases (their defaults or limits "
			    "differ: see `axbench run --dry-run --device N`); "
			    "give the tunables with -p so that both run the "
			    "same, or leave out --concurrent",
			    ex[0]->session.device_index,
			    ex[k]->session.device_index);
	}
	return 0;
}

/* Suites that keep per-process state a second device would share. */
static int check_concurrent_suites(const struct exec *ex)
{
	for (int i = 0; i < ex->plan->n; i++) {
		const struct ax_suite *s = ex->plan->cases[i].suite;
		if (s->roles & AX_ROLE_INGEST)
			return ax_app_error(
			    ex->app, AX_EXIT_USAGE,
			    "run --concurrent: suite %s reads one data file "
			    "the whole process shares, so two devices cannot "
			    "run it at once; run it without --concurrent "
			    "(--device all measures the devices one after "
			    "another)",
			    s->name);
	}
	return 0;
}

int ax_run_execute_concurrent(struct ax_app *app, struct ax_plan **plans,
			      const struct ax_runner_opts *opts,
			      const struct ax_session_efficiency *eff,
			      const struct ax_run_origin *origin)
{
	struct ax_run_group *g = origin->group;
	struct exec *all = calloc((size_t)g->n, sizeof(*all));
	struct exec *ex[AX_RUN_MAX_DEVICES];
	int n = 0, rc = all ? 0 : AX_EXIT_FAIL, opened_rc = 0;
	for (int k = 0; all && k < g->n; k++) {
		struct ax_run_origin o = *origin;
		exec_init(&all[k], app, plans[k], opts, eff, false, &o);
		g->nth = k;
		rc = check_concurrent_suites(&all[k]);
		if (rc)
			break;
		int orc = open_all(&all[k]);
		if (orc == 0) {
			ex[n++] = &all[k];
			continue;
		}
		/* A device that cannot open: the others go on without it,
		 * and the command says so ("partial"). */
		ax_run_group_lost(g, g->index[k], "could not be opened");
		opened_rc = orc;
		finish(&all[k], orc);
	}
	if (rc == 0 && n == 0)
		rc = opened_rc ? opened_rc : AX_EXIT_NODEV;
	if (rc == 0)
		rc = same_cases(ex, n);
	for (int k = 0; rc == 0 && k < n; k++)
		print_header(ex[k], k == 0); /* one table for all */
	bool waited_out = false;
	for (int i = 0; rc == 0 && n > 0 && i < ex[0]->plan->n; i++) {
		if (ax_interrupted)
			break;
		rc = run_together(ex, n, i, &waited_out);
	}
	if (waited_out)
		fprintf(stderr,
			"axbench run: a device took longer than %.0f s to "
			"start timing; the others went ahead without it, so "
			"those cases did not all run at once\n",
			AX_CONC_WAIT_S);
	int worst = rc;
	for (int k = 0; k < n; k++) {
		int frc = finish(ex[k], rc);
		if (!worst)
			worst = frc;
	}
	/* Devices that had opened are finished; one that did not was
	 * finished where it failed. */
	free(all);
	return worst;
}
