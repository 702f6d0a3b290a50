/*
 * app/session_cpu.c - the speed-up over the host CPU (issue 13): each
 * verified gemm, conv or attention result is set beside the same shape
 * timed on the host through OpenBLAS (suites/cpu_baseline.h).
 *
 * One clean CPU measurement per (host, shape, threads, library, kernel)
 * is enough: with --cpu-baseline auto the newest stored one that is clean
 * (ax_db_cpu_fit: its load known and not under load, its interval within
 * the case's noise target) is reused, and where none is, it is measured
 * and stored (issue 33: one taken while the machine was busy read a
 * tenth of the quiet figure, and every later speed-up inherited it);
 * always measures it again every run; off never.  It runs after the device's case, with the case's own sampling
 * settings, on as many threads as the device has local cores (hwloc) -
 * for a CPU device such as lavapipe, the cores it runs on itself.
 */
#include "app/session.h"
#include "core/interrupt.h"

#include "core/db.h"
#include "core/error.h"
#include "core/topo.h"
#include "core/vk.h"
#include "suites/cpu_baseline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The device's local cores, at most the host's: OpenBLAS takes any
 * thread count, and more threads than cores only add contention. */
static int local_threads(const struct ax_session *s)
{
	struct ax_topo *t;
	char err[256];
	if (ax_topo_create(&t, err, sizeof(err)))
		return 1;
	struct ax_topo_host h;
	struct ax_topo_locality loc;
	ax_topo_host(t, &h);
	int n = h.cores;
	const char *bus = s->info->pci_bus_id[0] ? s->info->pci_bus_id : NULL;
	if (ax_topo_locality(t, bus, &loc) == 0 && loc.cores > 0 &&
	    loc.cores < n)
		n = loc.cores;
	ax_topo_destroy(t);
	return n > 0 ? n : 1;
}

/* Decide once per session whether baselines can be had at all. */
static void cpu_open(struct ax_session *s)
{
	if (s->cpu_ready)
		return;
	s->cpu_ready = true;
	if (s->eff.cpu == AX_CPU_BASELINE_OFF)
		return;
	s->cpu_threads = local_threads(s);
	char why[512];
	if (ax_cpu_lib_query(s->cpu_threads, &s->cpu_lib, why, sizeof(why))) {
		s->cpu_threads = 0;
		if (s->app->verbosity >= 0 && !s->app->json)
			fprintf(stderr,
				"axbench %s: no speed-up over the CPU: %s\n",
				s->command, why);
	}
}

/* The shape alone, as the key of a baseline: tunables at their defaults
 * (they are the device kernel's, not the CPU library's). */
static char *shape_json(const struct ax_params *p)
{
	struct ax_params q = *p;
	for (int i = 0; i < q.n; i++)
		if (q.defs[i].flags & AX_PARAM_TUNABLE)
			q.v[i] = q.defs[i].def;
	return ax_params_to_json(&q);
}

/* OpenBLAS's workers spin for a while after a call before they sleep; a
 * CPU device timed straight after would share its cores with them. */
static void let_workers_sleep(const struct ax_session *s)
{
	if (strcmp(ax_vk_device_type_name(s->info->type), "cpu") != 0)
		return;
	struct timespec ts = {0, 200 * 1000 * 1000};
	nanosleep(&ts, NULL);
}

static void say_baseline(const struct ax_session *s,
			 const struct ax_suite *suite,
			 const struct ax_cpu_result *c)
{
	if (s->app->verbosity < 0 || s->app->json)
		return;
	if (c->status) {
		fprintf(stderr, "axbench %s: CPU baseline of %s: %s\n",
			s->command, suite->name, c->error);
		return;
	}
	char load[96] = "";
	if (c->load.known)
		snprintf(load, sizeof(load),
			 "; other processes kept %.2f of %d CPUs busy",
			 c->load.busy_other, c->load.online_cpus);
	fprintf(stderr,
		"axbench %s: CPU baseline of %s: %.4g %s (%s %s, %s kernel, "
		"%d threads%s)\n",
		s->command, suite->name, c->summary.median, suite->unit,
		c->lib.name, c->lib.version, c->lib.corename, c->lib.threads,
		load);
}

/* The noise target a stored baseline's interval is held to: the case's
 * (NAN: none). */
static double noise_target(const struct ax_runner_opts *opts)
{
	return opts->max_noise > 0 ? opts->max_noise : NAN;
}

/* What the reuse rule (ax_db_cpu_fit) reads of a baseline about to be
 * stored. */
static struct ax_db_cpu_row row_of(const struct ax_db_cpu_baseline *b)
{
	return (struct ax_db_cpu_row){
	    .rel_noise = b->rel_noise,
	    .busy_other = b->load_known ? b->busy_other : NAN,
	    .online_cpus = b->load_known ? b->online_cpus : AX_DB_NONE,
	};
}

/* A fresh baseline that is not clean still serves this result (nothing
 * better exists: no stored one was clean); the next run measures again. */
static void say_unfit(const struct ax_session *s, const struct ax_suite *suite,
		      const struct ax_db_cpu_baseline *b, double target)
{
	struct ax_db_cpu_row row = row_of(b);
	char why[256];
	if (s->app->verbosity < 0 || s->app->json ||
	    ax_db_cpu_fit(&row, target) == AX_DB_CPU_CLEAN)
		return;
	fprintf(stderr,
		"axbench %s: CPU baseline of %s: %s; this result's speed-up "
		"uses it, and the next run measures it again\n",
		s->command, suite->name,
		ax_db_cpu_fit_why(&row, target, why, sizeof(why)));
}

static void keep_load(struct ax_db_cpu_baseline *key, const struct ax_cpu_load *l)
{
	key->load_known = l->known;
	key->load_1m = l->load_1m;
	key->busy_other = l->busy_other;
	key->online_cpus = l->online_cpus;
}

/* Measure the baseline and store it, verified or not; *id and *median
 * of a verified one. */
static int measure_baseline(struct ax_session *s, const struct ax_suite *suite,
			    const struct ax_params *p,
			    const struct ax_runner_opts *opts,
			    struct ax_db_cpu_baseline *key, int64_t *id,
			    double *median)
{
	struct ax_cpu_result c;
	struct ax_runner_opts o = *opts;
	o.progress = NULL; /* the case's progress line is not this */
	ax_cpu_baseline_run(suite, p, s->cpu_threads, &o, &c);
	let_workers_sleep(s);
	say_baseline(s, suite, &c);
	if (c.status == AX_EINTR || c.status == AX_ENOTFOUND) {
		ax_cpu_result_release(&c);
		return AX_ENOTFOUND; /* nothing measured, nothing to keep */
	}
	key->corename = c.lib.corename;
	key->config = c.lib.config;
	key->note = c.lib.note[0] ? c.lib.note : NULL;
	key->status = c.status == 0	       ? "ok"
		      : c.status == AX_EVERIFY ? "failed-verification"
					       : "error";
	key->error_text = c.status ? c.error : NULL;
	key->stop_reason = c.stop_reason;
	key->n = c.n;
	key->median = c.n ? c.summary.median : NAN;
	key->ci_lo = c.n ? c.summary.ci_lo : NAN;
	key->ci_hi = c.n ? c.summary.ci_hi : NAN;
	key->rel_noise = c.n ? c.summary.rel_noise : NAN;
	keep_load(key, &c.load);
	int rc = ax_db_cpu_baseline_add(s->db, key, id);
	if (rc)
		fprintf(stderr,
			"axbench %s: the CPU baseline was not stored: %s\n",
			s->command, ax_db_errmsg(s->db));
	else if (c.status == 0)
		say_unfit(s, suite, key, noise_target(opts));
	*median = key->median;
	rc = rc ? rc : c.status ? AX_EVERIFY : 0;
	ax_cpu_result_release(&c);
	return rc;
}

/* The newest stored baseline that is clean (ax_db_cpu_fit), and the
 * newest one passed over with why. */
struct pick {
	double target;
	int64_t id, passed_id;
	double median;
	char why[256];
};

static int pick_clean(void *ctx, const struct ax_db_cpu_row *c)
{
	struct pick *k = ctx;
	if (ax_db_cpu_fit(c, k->target) == AX_DB_CPU_CLEAN) {
		k->id = c->id;
		k->median = c->median;
		return 1;
	}
	if (!k->passed_id) {
		k->passed_id = c->id;
		ax_db_cpu_fit_why(c, k->target, k->why, sizeof(k->why));
	}
	return 0;
}

/* --cpu-baseline auto: the newest clean stored baseline (0), or
 * AX_ENOTFOUND to measure one, saying why a stored one is not reused
 * (the old one stays, for history). */
static int find_clean(struct ax_session *s, const struct ax_suite *suite,
		      const struct ax_db_cpu_baseline *key, double target,
		      int64_t *id, double *median)
{
	struct pick k = {.target = target};
	int rc = ax_db_cpu_baselines_each(s->db, key, pick_clean, &k);
	if (rc == 1) {
		*id = k.id;
		*median = k.median;
		return 0;
	}
	bool say = s->app->verbosity >= 0 && !s->app->json;
	if (rc < 0)
		fprintf(stderr,
			"axbench %s: CPU baseline of %s: the stored ones could "
			"not be read (%s); measuring it\n",
			s->command, suite->name, ax_db_errmsg(s->db));
	else if (k.passed_id && say)
		fprintf(stderr,
			"axbench %s: CPU baseline of %s: measuring it again: "
			"stored baseline %lld is not reused: %s\n",
			s->command, suite->name, (long long)k.passed_id, k.why);
	return AX_ENOTFOUND;
}

void ax_session_cpu_compare(struct ax_session *s, const struct ax_suite *suite,
			    const struct ax_params *p,
			    const struct ax_runner_opts *opts,
			    const struct ax_runner_result *r,
			    int64_t *baseline_id, double *speedup)
{
	*baseline_id = 0;
	*speedup = NAN;
	if (r->outcome != AX_CASE_OK || !ax_cpu_baseline_has(suite))
		return;
	cpu_open(s);
	if (s->cpu_threads < 1 || ax_interrupted)
		return;
	char *shape = shape_json(p);
	struct ax_db_cpu_baseline key = {
	    .host_id = s->host_id,
	    .suite = suite->name,
	    .shape_json = shape,
	    .library = s->cpu_lib.name,
	    .version = s->cpu_lib.version,
	    .corename = s->cpu_lib.corename,
	    .threads = s->cpu_threads,
	    .unit = suite->unit,
	};
	double median = NAN;
	int rc = AX_ENOTFOUND;
	if (shape && s->eff.cpu == AX_CPU_BASELINE_AUTO)
		rc = find_clean(s, suite, &key, noise_target(opts),
				baseline_id, &median);
	if (shape && rc == AX_ENOTFOUND)
		rc = measure_baseline(s, suite, p, opts, &key, baseline_id,
				      &median);
	free(shape);
	if (rc || !(median > 0) || !(r->summary.median > 0)) {
		*baseline_id = rc == AX_EVERIFY ? *baseline_id : 0;
		return;
	}
	/* Both figures in the suite's unit: the ratio that says how many
	 * times better the device is (below 1: slower than the CPU). */
	*speedup = suite->higher_is_better ? r->summary.median / median
					   : median / r->summary.median;
}
