/*
 * suites/runner_pair.c - paired A/B measurement in alternating rounds
 * (runner.h).  The judgement is the Wilcoxon signed-rank test of the
 * per-round log speed-ups with the Hodges-Lehmann interval
 * (core/stats.h): no normality is assumed, and one round a scheduler
 * preempted moves the estimate by one rank, not by its size.
 */
#include "suites/runner.h"

#include "core/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void ax_runner_pair_opts_default(struct ax_runner_pair_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->min_rounds = 10;
	o->max_rounds = 100;
	o->samples_per_round = 3;
	o->max_noise = 0.01;
	o->max_time_s = 60;
	o->conf = 0.95;
	o->higher_is_better = true;
	o->block_rounds = 10;
	o->max_rebuild_share = 0.25;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool opts_valid(const struct ax_runner_pair_opts *o)
{
	return o->min_rounds >= 1 && o->max_rounds >= o->min_rounds &&
	       o->samples_per_round >= 1 && o->max_noise >= 0 &&
	       o->max_time_s >= 0 && o->conf > 0 && o->conf < 1 &&
	       o->block_rounds >= 0 && o->max_rebuild_share >= 0;
}

/* A round's speed from its value: the value itself where higher is
 * better, its reciprocal where it is a time. */
static double speed(const struct ax_runner_pair_opts *o, double v)
{
	return o->higher_is_better ? v : 1 / v;
}

/* The judgement over the rounds so far: the rounds' signed-rank test
 * and, from 3 blocks on, the interval widened to the blocks' spread where
 * that is wider (what a rebuild changes is then inside it). */
static int judge(struct ax_runner_pair_result *r, double conf)
{
	int rc =
	    ax_stats_signed_rank(r->log_speedup, r->rounds, conf, &r->test);
	if (rc)
		return rc;
	double c = r->test.center, lo = r->test.lo, hi = r->test.hi;
	r->p_value = r->test.p_value;
	if (ax_stats_block_spread(r->log_speedup, r->block, r->rounds, conf,
				  &r->blocks) == 0) {
		lo = fmin(lo, c - r->blocks.half_width);
		hi = fmax(hi, c + r->blocks.half_width);
		r->p_value = fmax(r->p_value, r->blocks.p_value);
	}
	r->speedup = exp(c);
	r->lo = exp(lo);
	r->hi = exp(hi);
	r->half_width = (r->hi - r->lo) / 2 / r->speedup;
	return 0;
}

/* One round, in the order that alternates which side goes first. */
static int one_round(const struct ax_runner_pair_side *a,
		     const struct ax_runner_pair_side *b,
		     const struct ax_runner_pair_opts *o,
		     struct ax_runner_pair_result *r)
{
	int i = r->rounds, k = o->samples_per_round, rc;
	double va = NAN, vb = NAN;
	const struct ax_runner_pair_side *first = i % 2 ? b : a;
	const struct ax_runner_pair_side *second = i % 2 ? a : b;
	double *v1 = i % 2 ? &vb : &va, *v2 = i % 2 ? &va : &vb;
	if ((rc = first->round(first->ctx, k, v1)) == 0)
		rc = second->round(second->ctx, k, v2);
	else
		r->failed_side = first == a ? 1 : 2;
	if (rc && !r->failed_side)
		r->failed_side = second == a ? 1 : 2;
	if (rc)
		return rc;
	double sa = speed(o, va), sb = speed(o, vb);
	if (!(sa > 0) || !isfinite(sa))
		r->failed_side = 1;
	else if (!(sb > 0) || !isfinite(sb))
		r->failed_side = 2;
	if (r->failed_side)
		return AX_EINVAL; /* a side measured nothing usable */
	r->a[i] = va;
	r->b[i] = vb;
	r->log_speedup[i] = log(sb / sa);
	r->rounds++;
	return 0;
}

/* Whether the sides are rebuilt between blocks. */
static bool blocked(const struct ax_runner_pair_side *a,
		    const struct ax_runner_pair_side *b,
		    const struct ax_runner_pair_opts *o)
{
	return o->block_rounds > 0 && a->rebuild && b->rebuild;
}

/* Why to stop after this round, or NULL to go on.  Blocked, the noise
 * target counts only once 3 blocks give the spread between them. */
static const char *stop_now(const struct ax_runner_pair_opts *o,
			    const struct ax_runner_pair_result *r, bool blocks,
			    double elapsed)
{
	if (r->rounds >= o->max_rounds)
		return "max-rounds";
	if (r->rounds < o->min_rounds)
		return NULL;
	if (r->half_width <= o->max_noise && (!blocks || r->blocks.blocks >= 3))
		return "noise";
	if (elapsed >= o->max_time_s)
		return "time-limit";
	return NULL;
}

/* Where a block ends, how many rounds it has so far and how long the
 * rounds took, to size the next block. */
struct block_clock {
	int index, len, in_block;
	double round_s;
};

/* Rebuild both sides when the block is full: the next block starts (its
 * rounds are told apart by r->block), grown so that a rebuild as long as
 * this one takes at most max_rebuild_share of its rounds' time. */
static int next_block(const struct ax_runner_pair_side *a,
		      const struct ax_runner_pair_side *b,
		      const struct ax_runner_pair_opts *o,
		      struct block_clock *k, struct ax_runner_pair_result *r)
{
	if (k->in_block < k->len)
		return 0;
	double t0 = now_s();
	int rc = a->rebuild(a->ctx);
	if (rc) {
		r->failed_side = 1;
		return rc;
	}
	if ((rc = b->rebuild(b->ctx))) {
		r->failed_side = 2;
		return rc;
	}
	double cost = now_s() - t0, per_round = k->round_s / r->rounds;
	r->rebuild_s += cost;
	k->index++;
	k->in_block = 0;
	if (o->max_rebuild_share > 0 && per_round > 0) {
		double want = cost / (o->max_rebuild_share * per_round);
		k->len = want > o->block_rounds ? (int)ceil(fmin(want, 1e6))
						: o->block_rounds;
	}
	return 0;
}

int ax_runner_pair(const struct ax_runner_pair_side *a,
		   const struct ax_runner_pair_side *b,
		   const struct ax_runner_pair_opts *o,
		   struct ax_runner_pair_result *out)
{
	memset(out, 0, sizeof(*out));
	out->speedup = out->lo = out->hi = out->half_width = out->p_value = NAN;
	out->stop_reason = "error";
	if (!a || !b || !a->round || !b->round || !o || !opts_valid(o))
		return AX_EINVAL;
	size_t n = (size_t)o->max_rounds;
	out->a = calloc(n, sizeof(double));
	out->b = calloc(n, sizeof(double));
	out->log_speedup = calloc(n, sizeof(double));
	out->block = calloc(n, sizeof(int));
	if (!out->a || !out->b || !out->log_speedup || !out->block)
		return AX_ENOMEM;
	bool blocks = blocked(a, b, o);
	struct block_clock k = {0, o->block_rounds, 0, 0};
	double start = now_s();
	for (;;) {
		if (o->stop && *o->stop) {
			out->stop_reason = "interrupted";
			return 0;
		}
		int rc = blocks ? next_block(a, b, o, &k, out) : 0;
		double t0 = now_s();
		if (rc == 0)
			rc = one_round(a, b, o, out);
		if (rc == 0) {
			out->block[out->rounds - 1] = k.index;
			rc = judge(out, o->conf);
		}
		if (rc)
			return rc;
		k.round_s += now_s() - t0;
		k.in_block++;
		if (o->progress)
			o->progress(o->progress_ctx, out);
		const char *why = stop_now(o, out, blocks, now_s() - start);
		if (why) {
			out->stop_reason = why;
			return 0;
		}
	}
}

void ax_runner_pair_result_release(struct ax_runner_pair_result *r)
{
	free(r->a);
	free(r->b);
	free(r->log_speedup);
	free(r->block);
	memset(r, 0, sizeof(*r));
}
