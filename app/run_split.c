/*
 * app/run_split.c - run --split: one large job shared by every selected
 * device (see app/run_exec.h).
 *
 * A case becomes a job of `items` work items, each `reps` repetitions of
 * the case (the repetitions the first device's probe chose, the same for
 * every device, so that items are equal work).  Three phases per case:
 *   alone    each device in turn runs items / devices items by itself:
 *            its rate alone, and the best of them the baseline;
 *   even     the items split evenly and fixed in advance, all devices at
 *            once: what a static split gets;
 *   dynamic  the items in one shared queue, each device taking the next
 *            as it finishes one (work stealing from a central queue), all
 *            at once.
 * The job's rate is its work over its wall time, from the start signal to
 * the last item's end; speed-up and efficiency are against the best
 * device alone (efficiency = speed-up / devices).
 *
 * A device whose item fails (a hang past the fence timeout, a lost
 * device) stops taking items; in the dynamic phase its item goes back to
 * the queue and another device does it, so every item is done exactly
 * once while any device is left; in the even phase its items stay undone
 * (a fixed split has no one to hand them to), and the job is incomplete.
 * Each phase's result on each device is stored in that device's run
 * (its samples: the items' seconds per repetition), with extra.split.
 */
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

enum split_phase { PH_ALONE, PH_EVEN, PH_DYNAMIC, PH_N };
static const char *const phase_names[PH_N] = {"alone", "even", "dynamic"};

/* One device's share of one phase. */
struct split_dev {
	struct exec *ex;
	struct ax_runner_case *c;
	struct ax_runner_result r;
	int done;	  /* items it finished */
	double busy_s;	  /* their time */
	double end_s;	  /* when its last item ended (job clock) */
	int failed_item;  /* the item it was on when it failed; -1 */
	bool open_failed; /* its case did not open: r says why */
	int seed;	  /* dynamic: the item handed to it at the start */
	int rc;		  /* its failure */
	struct split_job *job;
	int k; /* its place in the job */
};

/* The queue and the phase's bookkeeping, shared by the device threads. */
struct split_job {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	enum split_phase phase;
	int items, n_dev;
	uint32_t reps;
	int *queue, n_queued; /* a stack of item ids (dynamic) */
	int in_flight;
	int *done_by; /* per item: the device that finished it, or -1 */
	int requeued, dup;
	bool go;
	struct timespec t0;
};

static double since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* One item on device d; the caller holds no lock. */
static int do_item(struct split_dev *d, int item)
{
	double sec;
	int rc = ax_runner_case_work(d->c, d->job->reps, &sec);
	if (rc) {
		d->failed_item = item;
		d->rc = rc;
		return rc;
	}
	d->busy_s += sec * d->job->reps;
	return 0;
}

/* Mark item done by d (under the lock).  Alone, every device runs the
 * same item numbers of its own job. */
static void finish_item(struct split_dev *d, int item)
{
	struct split_job *j = d->job;
	if (j->phase != PH_ALONE && j->done_by[item] >= 0)
		j->dup++; /* never: each item is handed out once */
	j->done_by[item] = d->k;
	d->done++;
	d->end_s = since(&j->t0);
}

static void wait_go(struct split_job *j)
{
	pthread_mutex_lock(&j->mu);
	while (!j->go)
		pthread_cond_wait(&j->cv, &j->mu);
	pthread_mutex_unlock(&j->mu);
}

/* even: items [k * items / n, (k + 1) * items / n), in order. */
static void run_even(struct split_dev *d)
{
	struct split_job *j = d->job;
	int from = d->k * j->items / j->n_dev;
	int to = (d->k + 1) * j->items / j->n_dev;
	for (int i = from; i < to && !ax_interrupted; i++) {
		if (do_item(d, i))
			return;
		pthread_mutex_lock(&j->mu);
		finish_item(d, i);
		pthread_mutex_unlock(&j->mu);
	}
}

/* dynamic: the next item from the shared queue until it is empty and
 * nothing in flight can come back to it. */
static void run_dynamic(struct split_dev *d)
{
	struct split_job *j = d->job;
	pthread_mutex_lock(&j->mu);
	while (!ax_interrupted) {
		int item = d->seed;
		d->seed = -1;
		if (item < 0 && j->n_queued == 0) {
			if (j->in_flight == 0)
				break;
			pthread_cond_wait(&j->cv, &j->mu);
			continue;
		}
		if (item < 0) {
			item = j->queue[--j->n_queued];
			j->in_flight++;
		}
		pthread_mutex_unlock(&j->mu);
		int rc = do_item(d, item);
		pthread_mutex_lock(&j->mu);
		j->in_flight--;
		if (rc) {
			/* Back to the queue for the others; this device
			 * takes no more. */
			j->queue[j->n_queued++] = item;
			j->requeued++;
			pthread_cond_broadcast(&j->cv);
			break;
		}
		finish_item(d, item);
		pthread_cond_broadcast(&j->cv);
	}
	pthread_mutex_unlock(&j->mu);
}

static void *device_thread(void *arg)
{
	struct split_dev *d = arg;
	wait_go(d->job);
	if (d->job->phase == PH_EVEN)
		run_even(d);
	else
		run_dynamic(d);
	return NULL;
}

/* Open device d's case for the phase (from the main thread, one device
 * after another, so cases are numbered alike in every run). */
static int open_case(struct split_dev *d, const struct ax_plan_case *pc)
{
	struct ax_session *s = &d->ex->session;
	ax_session_ensure_device(s);
	d->failed_item = -1;
	int rc = ax_runner_case_open(s->vk, pc->suite, &pc->params,
				     &d->ex->opts, &d->r, &d->c);
	d->open_failed = d->c == NULL;
	return rc;
}

/* The phase on every device whose case opened: alone one after another,
 * else all at once from one start signal.  Returns the wall time. */
static double run_phase(struct split_job *j, struct split_dev *d, int n,
			int alone_items)
{
	double wall = 0;
	if (j->phase == PH_ALONE) {
		for (int k = 0; k < n; k++) {
			if (!d[k].c)
				continue;
			clock_gettime(CLOCK_MONOTONIC, &j->t0);
			for (int i = 0; i < alone_items && !ax_interrupted;
			     i++) {
				if (do_item(&d[k], i))
					break;
				finish_item(&d[k], i);
			}
			d[k].end_s = since(&j->t0);
		}
		return 0; /* per device: end_s */
	}
	pthread_t th[AX_RUN_MAX_DEVICES];
	bool started[AX_RUN_MAX_DEVICES] = {0};
	for (int k = 0; k < n; k++) {
		d[k].seed = -1;
		if (d[k].c)
			started[k] = pthread_create(&th[k], NULL,
						    device_thread, &d[k]) == 0;
		/* Every device starts with an item in hand, so that one
		 * whose thread the scheduler wakes late still takes part
		 * (and a fault injected into its first item is met). */
		if (started[k] && j->phase == PH_DYNAMIC && j->n_queued) {
			d[k].seed = j->queue[--j->n_queued];
			j->in_flight++;
		}
	}
	pthread_mutex_lock(&j->mu);
	clock_gettime(CLOCK_MONOTONIC, &j->t0);
	j->go = true;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
	for (int k = 0; k < n; k++)
		if (started[k])
			pthread_join(th[k], NULL);
	for (int k = 0; k < n; k++)
		if (d[k].end_s > wall)
			wall = d[k].end_s;
	return wall;
}

/* Units of the suite per second for `items` items of j on p. */
static double rate_of(const struct ax_suite *s, const struct ax_params *p,
		      const struct split_job *j, int items, double seconds)
{
	if (!(seconds > 0) || items <= 0)
		return NAN;
	return s->work(p) * j->reps * items / seconds / s->scale;
}

/* What one phase found, for the table and each stored result. */
struct phase_sum {
	int done, items;
	double wall, rate, speedup, efficiency;
};

static json_t *split_extra(const struct ax_run_group *g,
			   const struct split_job *j, const struct split_dev *d,
			   const struct phase_sum *ps, double best_alone)
{
	json_t *o = json_pack(
	    "{s:s,s:s,s:i,s:i,s:i,s:i,s:i}", "group", g->id, "phase",
	    phase_names[j->phase], "items", ps->items, "item_reps",
	    (int)j->reps, "devices", j->n_dev, "items_done", d->done,
	    "job_items_done", ps->done);
	json_object_set_new(o, "share",
			    json_real(ps->items ? (double)d->done / ps->items
						: 0));
	json_object_set_new(o, "job_rate", json_real(ps->rate));
	json_object_set_new(o, "job_wall_s", json_real(ps->wall));
	json_object_set_new(o, "best_alone_rate", json_real(best_alone));
	json_object_set_new(o, "speedup", json_real(ps->speedup));
	json_object_set_new(o, "efficiency", json_real(ps->efficiency));
	json_object_set_new(o, "requeued", json_integer(j->requeued));
	if (d->failed_item >= 0)
		json_object_set_new(o, "failed_item",
				    json_integer(d->failed_item));
	return json_pack("{s:o}", "split", o);
}

static void print_phase(const struct exec *ex, const struct ax_suite *s,
			const struct split_job *j, const struct split_dev *d,
			int n, const struct phase_sum *ps,
			const struct ax_params *p)
{
	if (ex->app->json || ex->app->verbosity < 0)
		return;
	for (int k = 0; k < n; k++) {
		const struct split_dev *e = &d[k];
		double r = rate_of(s, p, j, e->done, e->busy_s);
		char share[16] = "-";
		if (j->phase != PH_ALONE && ps->items)
			snprintf(share, sizeof(share), "%.0f%%",
				 100.0 * e->done / ps->items);
		printf("%-8s %-4d %6d %7s %12.4g %s", phase_names[j->phase],
		       e->ex->session.device_index, e->done, share, r,
		       s->unit);
		if (e->failed_item >= 0)
			printf("   lost at item %d (%s)%s", e->failed_item,
			       ax_strerror(e->rc),
			       j->phase == PH_DYNAMIC ? ": re-queued" : "");
		putchar('\n');
	}
	if (j->phase == PH_ALONE)
		return;
	printf("%-8s %-4s %6d %6.0f%% %12.4g %s   %.2fx the best device "
	       "alone, efficiency %.0f%%, %.3g s%s\n",
	       phase_names[j->phase], "job", ps->done,
	       ps->items ? 100.0 * ps->done / ps->items : 0.0, ps->rate,
	       s->unit, ps->speedup, 100 * ps->efficiency, ps->wall,
	       ps->done < ps->items ? " (incomplete)" : "");
	fflush(stdout);
}

static int job_init(struct split_job *j, enum split_phase ph, int items,
		    int n, uint32_t reps)
{
	memset(j, 0, sizeof(*j));
	j->phase = ph;
	j->items = items;
	j->n_dev = n;
	j->reps = reps;
	j->queue = calloc((size_t)items + 1, sizeof(int));
	j->done_by = calloc((size_t)items + 1, sizeof(int));
	if (!j->queue || !j->done_by)
		return AX_EXIT_FAIL;
	for (int i = 0; i < items; i++) {
		j->done_by[i] = -1;
		j->queue[i] = items - 1 - i; /* popped 0, 1, 2 ... */
	}
	j->n_queued = items;
	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->cv, NULL);
	return 0;
}

static void job_release(struct split_job *j)
{
	pthread_cond_destroy(&j->cv);
	pthread_mutex_destroy(&j->mu);
	free(j->queue);
	free(j->done_by);
}

/* Close each device's case and store it in its run, with the phase. */
static int store_phase(struct split_dev *d, int n, const struct split_job *j,
		       const struct phase_sum *ps, double best_alone,
		       int case_i)
{
	int rc = 0;
	for (int k = 0; k < n; k++) {
		struct split_dev *e = &d[k];
		if (!e->c && !e->open_failed)
			continue;
		if (e->c) /* a case that did not open is stored as it ended */
			ax_runner_case_close(e->c, e->rc);
		e->c = NULL;
		struct ax_session *s = &e->ex->session;
		const struct ax_plan_case *pc = &e->ex->plan->cases[case_i];
		struct ax_session_timing t = {.s = s};
		t.c.r = e->r;
		t.c.mean_w = t.c.perf_per_w = t.c.energy_rep_j = NAN;
		t.c.speedup_vs_cpu = NAN;
		ax_session_case_label(&pc->params, t.c.label,
				      sizeof(t.c.label));
		ax_session_note_case(s, &t.c.r, t.c.label);
		json_t *extra =
		    split_extra(e->ex->origin.group, j, e, ps, best_alone);
		int st = rc ? rc
			    : ax_session_store_case(s, pc->suite, &pc->params,
						    &e->ex->opts, extra, &t);
		json_decref(extra);
		if (st == 0 && e->ex->app->json) { /* the group's document */
			ax_exec_row(e->ex, pc, &t.c);
			json_object_set_new(
			    json_array_get(e->ex->json_out,
					   json_array_size(e->ex->json_out) -
					       1),
			    "phase", json_string(phase_names[j->phase]));
		}
		rc = rc ? rc : st;
		ax_session_case_release(&t.c);
		memset(&e->r, 0, sizeof(e->r));
	}
	return rc;
}

/* One case as a job over the devices ex[0..n): its three phases. */
static int split_case(struct exec **ex, int n, int i, int items)
{
	const struct ax_plan_case *pc = &ex[0]->plan->cases[i];
	const struct ax_suite *s = pc->suite;
	struct split_dev d[AX_RUN_MAX_DEVICES];
	double alone_rate[AX_RUN_MAX_DEVICES], best_alone = NAN;
	uint32_t reps = 0;
	int alone_items = items / n > 0 ? items / n : 1, rc = 0;
	char shown[512];
	ax_case_column_text(&ex[0]->cases, s->name, ex[0]->case_label, shown,
			    sizeof(shown));
	if (!ex[0]->app->json && ex[0]->app->verbosity >= 0)
		printf("split %s %s: %d items\n%-8s %-4s %6s %7s %12s\n",
		       s->name, shown, items, "phase", "dev", "items", "share",
		       "rate");
	for (int ph = PH_ALONE; rc == 0 && ph < PH_N && !ax_interrupted;
	     ph++) {
		for (int k = 0; k < n; k++) {
			d[k] = (struct split_dev){.ex = ex[k], .k = k};
			if (open_case(&d[k], &ex[k]->plan->cases[i]) == 0 &&
			    !reps)
				reps = ax_runner_case_reps(d[k].c);
		}
		struct split_job j;
		if (job_init(&j, (enum split_phase)ph,
			     ph == PH_ALONE ? alone_items : items, n,
			     reps ? reps : 1)) {
			rc = AX_EXIT_FAIL;
			break;
		}
		for (int k = 0; k < n; k++)
			d[k].job = &j;
		double wall = run_phase(&j, d, n, alone_items);
		struct phase_sum ps = {.items = j.items, .wall = wall};
		for (int k = 0; k < n; k++)
			ps.done += d[k].done;
		if (ph == PH_ALONE) {
			for (int k = 0; k < n; k++) {
				alone_rate[k] = rate_of(s, &pc->params, &j,
							d[k].done, d[k].end_s);
				if (isfinite(alone_rate[k]) &&
				    !(alone_rate[k] <= best_alone))
					best_alone = alone_rate[k];
			}
			ps.done = alone_items;
			ps.rate = best_alone;
		} else {
			ps.rate = rate_of(s, &pc->params, &j, ps.done, wall);
		}
		ps.speedup = ps.rate / best_alone;
		ps.efficiency = ps.speedup / n;
		if (j.dup) /* a bug, never a figure */
			fprintf(stderr,
				"axbench run: internal error: %d items of the "
				"%s split were done twice\n",
				j.dup, phase_names[ph]);
		print_phase(ex[0], s, &j, d, n, &ps, &pc->params);
		rc = store_phase(d, n, &j, &ps, best_alone, i);
		job_release(&j);
	}
	return rc;
}

/* Suites a split can share: rates, and no per-process state. */
static int check_split_suites(const struct exec *ex)
{
	for (int i = 0; i < ex->plan->n; i++) {
		const struct ax_suite *s = ex->plan->cases[i].suite;
		if (s->roles & AX_ROLE_INGEST)
			return ax_app_error(
			    ex->app, AX_EXIT_USAGE,
			    "run --split: suite %s reads one data file the "
			    "whole process shares, so two devices cannot "
			    "share its work; run it without --split",
			    s->name);
		if (s->metric != AX_METRIC_RATE)
			return ax_app_error(
			    ex->app, AX_EXIT_USAGE,
			    "run --split: suite %s measures a time (%s), and "
			    "a job split across devices is judged by its "
			    "rate; split a suite of work per second (gemm, "
			    "conv, bandwidth ...)",
			    s->name, s->unit);
	}
	return 0;
}

int ax_run_execute_split(struct ax_app *app, struct ax_plan **plans,
			 const struct ax_runner_opts *opts,
			 const struct ax_session_efficiency *eff,
			 const struct ax_run_origin *origin, int items)
{
	struct exec *all, *ex[AX_RUN_MAX_DEVICES];
	int n;
	struct ax_session_efficiency e = *eff;
	e.no_power = true; /* one job, several devices: no one sensor */
	int rc = ax_exec_open_group(app, plans, opts, &e, origin,
				    check_split_suites, &all, ex, &n);
	for (int k = 0; rc == 0 && k < n; k++)
		ax_exec_header(ex[k], false); /* its own table, below */
	for (int i = 0; rc == 0 && n > 0 && i < ex[0]->plan->n; i++) {
		if (ax_interrupted)
			break;
		ax_session_case_label(&ex[0]->plan->cases[i].params,
				      ex[0]->case_label,
				      sizeof(ex[0]->case_label));
		rc = split_case(ex, n, i, items);
	}
	int worst = rc;
	for (int k = 0; k < n; k++) {
		int frc = ax_exec_finish(ex[k], rc);
		if (!worst)
			worst = frc;
	}
	free(all);
	return worst;
}
