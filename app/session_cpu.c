/*
 * app/session_cpu.c - the speed-up over the host CPU (issue 13): each
 * verified gemm, conv or attention result is set beside the same shape
 * timed on the host through OpenBLAS (suites/cpu_baseline.h).
 *
 * One CPU measurement per (host, shape, threads, library, kernel) is
 * enough: with --cpu-baseline auto it is measured the first time and read
 * from the database afterwards; always measures it again every run; off
 * never.  It runs after the device's case, with the case's own sampling
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
	if (c->status)
		fprintf(stderr, "axbench %s: CPU baseline of %s: %s\n",
			s->command, suite->name, c->error);
	else
		fprintf(stderr,
			"axbench %s: CPU baseline of %s: %.4g %s (%s %s, %s "
			"kernel, %d threads)\n",
			s->command, suite->name, c->summary.median, suite->unit,
			c->lib.name, c->lib.version, c->lib.corename,
			c->lib.threads);
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
	int rc = ax_db_cpu_baseline_add(s->db, key, id);
	if (rc)
		fprintf(stderr,
			"axbench %s: the CPU baseline was not stored: %s\n",
			s->command, ax_db_errmsg(s->db));
	*median = key->median;
	rc = rc ? rc : c.status ? AX_EVERIFY : 0;
	ax_cpu_result_release(&c);
	return rc;
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
		rc = ax_db_cpu_baseline_find(s->db, &key, baseline_id, &median);
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
