/* app/run_concurrent.c - run --device all --concurrent: every device
 * measures each case at once (see app/run_exec.h). */
#include "app/run_exec_internal.h"

#include "core/error.h"
#include "core/interrupt.h"
#include "core/roles.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
			ax_exec_row(ex[k], sl[k].pc, &sl[k].t.c);
			ax_exec_note_noise(ex[k], sl[k].pc, &sl[k].t.c.r);
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

int ax_exec_open_group(struct ax_app *app, struct ax_plan **plans,
		       const struct ax_runner_opts *opts,
		       const struct ax_session_efficiency *eff,
		       const struct ax_run_origin *origin,
		       int (*check)(const struct exec *ex), struct exec **all,
		       struct exec **ex, int *n)
{
	struct ax_run_group *g = origin->group;
	*n = 0;
	*all = calloc((size_t)g->n, sizeof(**all));
	int rc = *all ? 0 : AX_EXIT_FAIL, opened_rc = 0;
	for (int k = 0; *all && k < g->n; k++) {
		struct exec *e = &(*all)[k];
		ax_exec_init(e, app, plans[k], opts, eff, false, origin);
		g->nth = k;
		rc = check ? check(e) : 0;
		if (rc)
			break;
		int orc = ax_exec_open(e);
		if (orc == 0) {
			ex[(*n)++] = e;
			continue;
		}
		/* A device that cannot open: the others go on without it,
		 * and the command says so ("partial"). */
		ax_run_group_lost(g, g->index[k], "could not be opened");
		opened_rc = orc;
		ax_exec_finish(e, orc);
	}
	if (rc == 0 && *n == 0)
		rc = opened_rc ? opened_rc : AX_EXIT_NODEV;
	if (rc == 0)
		rc = same_cases(ex, *n);
	return rc;
}

int ax_run_execute_concurrent(struct ax_app *app, struct ax_plan **plans,
			      const struct ax_runner_opts *opts,
			      const struct ax_session_efficiency *eff,
			      const struct ax_run_origin *origin)
{
	struct exec *all, *ex[AX_RUN_MAX_DEVICES];
	int n;
	int rc = ax_exec_open_group(app, plans, opts, eff, origin,
				    check_concurrent_suites, &all, ex, &n);
	for (int k = 0; rc == 0 && k < n; k++)
		ax_exec_header(ex[k], k == 0); /* one table for all */
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
		int frc = ax_exec_finish(ex[k], rc);
		if (!worst)
			worst = frc;
	}
	free(all);
	return worst;
}
