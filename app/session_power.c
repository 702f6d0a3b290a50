/*
 * app/session_power.c - the telemetry of a measurement session: the
 * device's sensor, the idle baseline and each case's power, energy,
 * temperatures, clocks and memory over its timed span (issue 13).
 *
 * Sampling runs from the case's set-up to its end; the runner's phase
 * callback marks where the timed samples begin and end, with a reading
 * taken at each mark, so that warm-up, compilation and verification do
 * not count.  Energy per repetition is the mean power of that span times
 * the median time of a repetition: the span is a whole number of
 * back-to-back samples, so its mean power is the power of the work.
 * Without a sensor the row says why, and holds no figure.
 */
#include "app/session.h"
#include "core/interrupt.h"

#include "core/config.h"
#include "core/error.h"
#include "core/telemetry.h"
#include "core/vk.h"
#include "suites/suite.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Readings a timed span needs before its power counts; the span is made
 * at least this many intervals long where the time limit allows. */
#define AX_POWER_SPAN_READINGS 3

/* ---- options ------------------------------------------------------- */

const char *const *ax_cpu_baseline_modes(void)
{
	static const char *const names[] = {"auto", "off", "always", NULL};
	return names;
}

int ax_session_apply_sustain(struct ax_app *app, double sustain_s,
			     unsigned measure_set, struct ax_runner_opts *o)
{
	unsigned clash = AX_MEASURE_MIN_TIME | AX_MEASURE_MAX_TIME |
			 AX_MEASURE_MAX_NOISE | AX_MEASURE_MAX_SAMPLES;
	if (measure_set & clash)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "--sustain %g sets how long each case "
				    "samples; drop --min-time, --max-time, "
				    "--max-noise and --max-samples",
				    sustain_s);
	o->min_time_s = o->max_time_s = sustain_s;
	o->max_noise = -1; /* never "noise": the whole span runs */
	/* Room for every sample of the span: a sample's repetitions are
	 * chosen from the fastest probe, so samples can come out shorter
	 * than target_sample_s; ten times as many as the target gives is
	 * room enough, the time limit ends the span. */
	double most = 10 * sustain_s / o->target_sample_s + 1000;
	o->max_samples = most > 1e6 ? 1000000 : (int)most;
	return 0;
}

/* ---- the session's sensor --------------------------------------------- */

static void nap(double seconds)
{
	struct timespec ts = {
	    (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
	while (nanosleep(&ts, &ts) && !ax_interrupted)
		;
}

/* The idle baseline: the device's mean power over eff.idle_s seconds with
 * nothing submitted, stored as its own series of the run. */
static void measure_idle(struct ax_session *s)
{
	struct ax_tel_sampler *smp;
	if (ax_tel_sampler_start(s->tel, s->eff.interval_s, &smp))
		return;
	nap(s->eff.idle_s);
	ax_tel_sampler_stop(smp);
	size_t n;
	const struct ax_tel_reading *r = ax_tel_sampler_series(smp, &n);
	s->idle_w = ax_tel_mean_power(r, n);
	struct ax_db_series row = {
	    .run_id = s->run_id,
	    .device_id = s->device_id,
	    .kind = "idle",
	    .source = ax_tel_source_name(s->tel),
	    .interval_s = s->eff.interval_s,
	    .t0 = n ? r[0].t : 0,
	    .timed_from_s = NAN,
	    .readings = r,
	    .n = n,
	};
	if (ax_db_series_add(s->db, &row, NULL))
		fprintf(stderr,
			"axbench %s: the idle series was not stored: %s\n",
			s->command, ax_db_errmsg(s->db));
	ax_tel_sampler_destroy(smp);
}

void ax_session_power_open(struct ax_session *s)
{
	struct ax_tel_device dev;
	s->idle_w = NAN;
	if (s->eff.no_power) {
		snprintf(s->tel_reason, sizeof(s->tel_reason),
			 "not measured by `axbench %s`", s->command);
		return;
	}
	ax_vk_telemetry_device(s->vk->info, &dev);
	if (ax_tel_open(&dev, &s->tel, s->tel_reason, sizeof(s->tel_reason)))
		s->tel = NULL;
	if (s->tel && s->eff.idle_s > 0)
		measure_idle(s);
	if (s->app->verbosity < 0 || s->app->json)
		return;
	if (!s->tel)
		fprintf(stderr, "axbench %s: power: %s\n", s->command,
			s->tel_reason);
	else if (!isnan(s->idle_w))
		fprintf(stderr,
			"axbench %s: power: %s, idle %.2f W over %.1f s\n",
			s->command, ax_tel_source_name(s->tel), s->idle_w,
			s->eff.idle_s);
	else
		fprintf(stderr, "axbench %s: power: %s\n", s->command,
			ax_tel_source_name(s->tel));
}

int ax_session_power_probe(const struct ax_session *s, char *why, size_t len)
{
	struct ax_tel_device dev;
	struct ax_tel_source *src;
	ax_vk_telemetry_device(s->info, &dev);
	int rc = ax_tel_open(&dev, &src, why, len);
	ax_tel_close(src);
	return rc;
}

void ax_session_power_close(struct ax_session *s)
{
	ax_tel_close(s->tel);
	s->tel = NULL;
}

static void read_budget(struct ax_session_power *cp)
{
	double used, budget;
	if (ax_vk_memory_budget(cp->s->vk, &used, &budget) == 0) {
		if (isnan(cp->mem_used_b) || used > cp->mem_used_b)
			cp->mem_used_b = used;
		cp->mem_budget_b = budget;
	}
}

static void on_phase(void *ctx, enum ax_runner_phase phase)
{
	struct ax_session_power *cp = ctx;
	read_budget(cp); /* the case's buffers exist at both marks */
	if (!cp->sampler)
		return;
	size_t at = ax_tel_sampler_mark(cp->sampler);
	if (phase == AX_PHASE_TIMED) {
		cp->timed_from = at;
		cp->have_from = true;
	} else {
		cp->timed_to = at;
		cp->have_to = true;
	}
}

void ax_session_power_start(struct ax_session *s, struct ax_session_power *cp,
			    struct ax_runner_opts *opts)
{
	memset(cp, 0, sizeof(*cp));
	cp->s = s;
	cp->mem_used_b = cp->mem_budget_b = NAN;
	if (s->tel &&
	    ax_tel_sampler_start(s->tel, s->eff.interval_s, &cp->sampler))
		cp->sampler = NULL;
	/* A span shorter than a few readings has no power to speak of (a
	 * counter may not even tick in it).  With a sensor, each batch
	 * sample is made long enough that the fewest samples the case may
	 * stop at still span AX_POWER_SPAN_READINGS intervals: the samples
	 * hold more repetitions, their number and the stop rule stay. */
	double span = AX_POWER_SPAN_READINGS * s->eff.interval_s;
	int few = opts->min_samples > 1 ? opts->min_samples : 1;
	if (cp->sampler && opts->target_sample_s * few < span)
		opts->target_sample_s = span / few;
	/* ... and the span itself, where a sample came out short (a slow
	 * first probe chose too few repetitions). */
	if (cp->sampler && opts->min_time_s < span)
		opts->min_time_s =
		    span < opts->max_time_s ? span : opts->max_time_s;
	opts->phase = on_phase;
	opts->phase_ctx = cp;
}

static void clear_row(struct ax_db_power *p)
{
	memset(p, 0, sizeof(*p));
	p->seconds = p->mean_w = p->max_w = p->idle_w = NAN;
	p->energy_rep_j = p->energy_rep_net_j = NAN;
	p->temp_mean_c = p->temp_max_c = p->sm_mhz = p->mem_mhz = NAN;
	p->mem_peak_b = p->mem_budget_b = p->perf_per_w = NAN;
	p->throttled = -1;
}

/* The figures of the timed span [timed_from, timed_to] of the series. */
static void fill_from_series(struct ax_session_power *cp,
			     const struct ax_suite *suite,
			     const struct ax_runner_result *r,
			     const struct ax_tel_reading *all, size_t n)
{
	struct ax_db_power *p = &cp->row;
	struct ax_session *s = cp->s;
	struct ax_tel_summary m;
	size_t from = cp->timed_from,
	       to = cp->timed_to < n ? cp->timed_to : n - 1;
	ax_tel_summarize(all + from, to - from + 1, &m);
	p->source = ax_tel_source_name(s->tel);
	double need = (AX_POWER_SPAN_READINGS - 1) * s->eff.interval_s;
	if (m.n < AX_POWER_SPAN_READINGS || !(m.seconds >= need)) {
		snprintf(cp->reason, sizeof(cp->reason),
			 "the timed span (%zu readings over %.3f s) is shorter "
			 "than %d sensor intervals of %.2f s: too short to "
			 "tell its power (the samples ended first: "
			 "--max-samples, cold mode)",
			 m.n, isnan(m.seconds) ? 0.0 : m.seconds,
			 AX_POWER_SPAN_READINGS - 1, s->eff.interval_s);
		p->reason = cp->reason;
		return;
	}
	if (!(m.mean_w > 0)) {
		/* A counter that did not advance (or a sensor that reads
		 * 0 W) under load is a sensor that did not measure: its
		 * 0 is not stored as a figure. */
		snprintf(cp->reason, sizeof(cp->reason),
			 "the sensor gave %s over the timed span (%zu "
			 "readings over %.3f s): not a measurement",
			 isnan(m.mean_w) ? "no power" : "0 W", m.n, m.seconds);
		p->reason = cp->reason;
		return;
	}
	p->readings = (int)m.n;
	p->seconds = m.seconds;
	p->mean_w = m.mean_w;
	p->max_w = m.max_w;
	p->idle_w = s->idle_w;
	double rep_s = ax_runner_median_seconds(r);
	p->energy_rep_j = m.mean_w * rep_s;
	p->energy_rep_net_j = (m.mean_w - s->idle_w) * rep_s;
	p->temp_mean_c = m.temp_mean_c;
	p->temp_max_c = m.temp_max_c;
	p->sm_mhz = m.sm_mhz;
	p->mem_mhz = m.mem_mhz;
	p->mem_peak_b = m.mem_peak_b;
	if (suite->metric == AX_METRIC_RATE && m.mean_w > 0) {
		p->perf_per_w = r->summary.median / m.mean_w;
		snprintf(cp->unit, sizeof(cp->unit), "%s/W", suite->unit);
		p->perf_per_w_unit = cp->unit;
	}
	p->throttled = m.throttled			? 1
		       : strstr(m.evidence, "no clock") ? -1
							: 0;
	snprintf(cp->evidence, sizeof(cp->evidence), "%s", m.evidence);
	cp->series = (struct ax_db_series){
	    .run_id = s->run_id,
	    .device_id = s->device_id,
	    .kind = "case",
	    .source = p->source,
	    .interval_s = s->eff.interval_s,
	    .t0 = all[0].t,
	    .timed_from_s = all[from].t - all[0].t,
	    .readings = all,
	    .n = n,
	};
	p->series = &cp->series;
}

/* --sustain: the slowdown rule on the timed samples, beside (or instead
 * of) what the sensor says. */
static void apply_sustain(struct ax_session_power *cp,
			  const struct ax_runner_result *r)
{
	struct ax_db_power *p = &cp->row;
	char ev[256];
	bool slowed =
	    ax_tel_sustain_slowed(r->seconds, (size_t)r->n, ev, sizeof(ev));
	size_t used = strlen(cp->evidence);
	snprintf(cp->evidence + used, sizeof(cp->evidence) - used, "%s%s",
		 used ? "; " : "", ev);
	if (slowed)
		p->throttled = 1;
	else if (p->throttled < 0 && r->n >= AX_TEL_SUSTAIN_MIN_SAMPLES)
		p->throttled = 0;
}

const struct ax_db_power *
ax_session_power_finish(struct ax_session_power *cp,
			const struct ax_suite *suite,
			const struct ax_runner_result *r)
{
	struct ax_session *s = cp->s;
	struct ax_db_power *p = &cp->row;
	if (cp->sampler)
		ax_tel_sampler_stop(cp->sampler);
	if (r->outcome != AX_CASE_OK || r->n == 0)
		return NULL;
	clear_row(p);
	size_t n = 0;
	const struct ax_tel_reading *all =
	    cp->sampler ? ax_tel_sampler_series(cp->sampler, &n) : NULL;
	if (n && cp->have_from && cp->have_to)
		fill_from_series(cp, suite, r, all, n);
	else
		p->reason =
		    s->tel ? "the sensor gave no reading" : s->tel_reason;
	p->mem_budget_b = cp->mem_budget_b;
	if (!isnan(cp->mem_used_b) &&
	    (isnan(p->mem_peak_b) || cp->mem_used_b > p->mem_peak_b))
		p->mem_peak_b = cp->mem_used_b;
	if (s->eff.sustain)
		apply_sustain(cp, r);
	p->throttle_evidence = cp->evidence[0] ? cp->evidence : NULL;
	return p;
}

void ax_session_power_release(struct ax_session_power *cp)
{
	ax_tel_sampler_destroy(cp->sampler);
	cp->sampler = NULL;
}
