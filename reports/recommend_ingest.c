/*
 * reports/recommend_ingest.c - data-loading settings from the results of
 * the ingest role (storage -> host -> device, rules in recommend.h):
 * loader threads, prefetch depth, read chunk and I/O mode from the
 * fastest result, and the storage note that says which stage bounds
 * loading and what to do about it.  Every figure it quotes is a stored
 * one (a median, a stage time, the raw read), and the note cites the
 * results it compared.
 */
#include "reports/recommend_internal.h"

#include "core/params.h"
#include "core/roles.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* More readers "help" when the most readers beat the fewest by 5 %. */
#define READERS_GAIN 1.05
/* Compute-bound: the fewest readers within 5 % of the fastest suffice. */
#define FEWER_FRACTION 0.95

#define RUN_READERS "run axbench run ingest -p readers=1,2,4"

/* ---- which results ------------------------------------------------------ */

/* The ingest parameters of a result of an ingest-role suite, through the
 * role's contract (core/params.h: ax_role_point). */
static struct ax_ingest_point ip(const json_t *r)
{
	struct ax_ingest_point x;
	ax_role_point(AX_ROLE_INGEST, json_object_get(r, "params"), &x);
	return x;
}

static bool is_cold(const json_t *r)
{
	const char *c = ip(r).cache;
	return c && !strcmp(c, "cold");
}

/* A result the rules can use: a positive figure read by >= 1 reader. */
static bool usable(const json_t *r)
{
	return median(r) > 0 && ip(r).readers >= 1;
}

/* The usable results of one cache state (a new array). */
static json_t *of_cache(const json_t *rs, bool cold)
{
	json_t *out = json_array();
	size_t i;
	json_t *r;
	json_array_foreach(rs, i, r)
	{
		if (usable(r) && is_cold(r) == cold)
			json_array_append(out, r);
	}
	return out;
}

/* Cold-cache results where any exist (a loader reads from storage), else
 * the warm ones (a new array). */
static json_t *pick_pool(const json_t *rs, bool *cold)
{
	json_t *pool = of_cache(rs, true);
	*cold = json_array_size(pool) > 0;
	if (!*cold) {
		json_decref(pool);
		pool = of_cache(rs, false);
	}
	return pool;
}

static const json_t *fastest(const json_t *rs)
{
	const json_t *best = NULL;
	size_t i;
	json_t *r;
	json_array_foreach(rs, i, r)
	{
		if (!best || median(r) > median(best))
			best = r;
	}
	return best;
}

/* Do a and b have the same parameters but for key? */
static bool same_but(const json_t *a, const json_t *b, const char *key)
{
	json_t *pa = json_deep_copy(json_object_get(a, "params"));
	json_t *pb = json_deep_copy(json_object_get(b, "params"));
	json_object_del(pa, key);
	json_object_del(pb, key);
	bool eq = json_equal(pa, pb);
	json_decref(pa);
	json_decref(pb);
	return eq;
}

/* ---- the readers sweep of the fastest result ---------------------------- */

/* The results that differ from the fastest only in readers. */
struct sweep {
	json_t *group;	      /* new array, the fastest included */
	const json_t *fewest; /* fastest at the fewest readers */
	const json_t *most;   /* fastest at the most readers */
	int counts;	      /* distinct reader counts */
};

/* Is r the better pick at its reader count than cur, for pick's end
 * (want < 0: fewest readers; > 0: most)? */
static bool better_end(const json_t *r, const json_t *cur, int want)
{
	if (!cur)
		return true;
	json_int_t a = ip(r).readers, b = ip(cur).readers;
	if (a != b)
		return want < 0 ? a < b : a > b;
	return median(r) > median(cur);
}

static bool count_seen(const json_t *group, size_t upto, json_int_t n)
{
	for (size_t j = 0; j < upto; j++)
		if (ip(json_array_get(group, j)).readers == n)
			return true;
	return false;
}

static void sweep_init(struct sweep *w, const json_t *pool, const json_t *best)
{
	size_t i;
	json_t *r;
	memset(w, 0, sizeof(*w));
	w->group = json_array();
	json_array_foreach(pool, i, r)
	{
		if (same_but(r, best, "readers"))
			json_array_append(w->group, r);
	}
	json_array_foreach(w->group, i, r)
	{
		if (better_end(r, w->fewest, -1))
			w->fewest = r;
		if (better_end(r, w->most, 1))
			w->most = r;
		w->counts += !count_seen(w->group, i, ip(r).readers);
	}
}

/* The sweep as a basis lists it: readers, result id, value as stored. */
static json_t *sweep_json(const struct sweep *w)
{
	json_t *a = json_array();
	size_t i;
	json_t *r;
	json_array_foreach(w->group, i, r)
	{
		json_array_append_new(
		    a, json_pack("{s:I, s:O?, s:O?}", "readers", ip(r).readers,
				 "result_id", json_object_get(r, "id"), "value",
				 json_object_get(r, "median")));
	}
	return a;
}

/* ---- the settings ------------------------------------------------------- */

static const char *cache_rule(bool cold)
{
	return cold ? "cold-cache results: a loader reads from storage"
		    : "warm-cache results only (none cold stored): the "
		      "figures assume the data is in the page cache";
}

/* A measured sweep and a cold cache are what make a figure a loader's. */
static const char *confidence(const struct sweep *w, bool cold)
{
	if (w->counts >= 2 && cold)
		return "high";
	return w->counts >= 2 || cold ? "medium" : "low";
}

static const char *caveat(const struct sweep *w, bool cold)
{
	if (w->counts < 2)
		return "one reader count measured; " RUN_READERS " to compare";
	return cold ? NULL
		    : "warm page cache only; run axbench run ingest -p "
		      "cache=cold for a loader reading from storage";
}

static json_t *ingest_basis(const char *rule, const json_t *best, bool cold)
{
	return json_pack("{s:s, s:s, s:s, s:o}", "rule", rule, "cache",
			 cold ? "cold" : "warm", "cache_rule", cache_rule(cold),
			 "result", cite(best));
}

/* The fewest readers reaching FEWER_FRACTION of the fastest, among the
 * results that differ from it only in readers: a loader thread that adds
 * less than the noise of a figure is a thread taken from the model's
 * host work for nothing. */
static const json_t *enough_readers(const struct sweep *w, const json_t *best)
{
	const json_t *pick = NULL;
	size_t i;
	json_t *r;
	json_array_foreach(w->group, i, r)
	{
		if (median(r) >= FEWER_FRACTION * median(best) &&
		    better_end(r, pick, -1))
			pick = r;
	}
	return pick ? pick : best;
}

static json_t *threads_setting(const json_t *best, const struct sweep *w,
			       bool cold)
{
	const json_t *pick = enough_readers(w, best);
	json_t *basis =
	    ingest_basis("the fewest reader threads reaching 95 % of the "
			 "fastest ingest result (PyTorch num_workers)",
			 best, cold);
	json_object_set_new(basis, "chosen", cite(pick));
	json_object_set_new(basis, "sweep", sweep_json(w));
	return setting(json_integer(ip(pick).readers), basis,
		       confidence(w, cold), caveat(w, cold));
}

/* prefetch_factor counts batches per worker: the staging buffers kept
 * in rotation, shared among the chosen readers. */
static json_t *prefetch_setting(const json_t *best, const struct sweep *w,
				bool cold)
{
	const json_t *pick = enough_readers(w, best);
	json_int_t readers = ip(pick).readers;
	json_int_t inflight = ip(pick).inflight;
	if (inflight < 1)
		return unmeasured("the fastest ingest result records no "
				  "inflight (staging buffers)");
	json_int_t depth = (inflight + readers - 1) / readers;
	json_t *basis = ingest_basis(
	    "ceil(inflight / readers) at the chosen reader threads, at least "
	    "1 (PyTorch prefetch_factor is per worker)",
	    pick, cold);
	json_object_set_new(basis, "inflight", json_integer(inflight));
	json_object_set_new(basis, "readers", json_integer(readers));
	return setting(json_integer(depth < 1 ? 1 : depth), basis,
		       confidence(w, cold), caveat(w, cold));
}

static json_t *chunk_setting(const json_t *best, const struct sweep *w,
			     bool cold)
{
	json_int_t chunk = ip(best).chunk;
	if (chunk < 1)
		return unmeasured("the fastest ingest result records no "
				  "chunk");
	return setting(json_integer(chunk),
		       ingest_basis("read size (bytes) of the fastest ingest "
				    "result",
				    best, cold),
		       confidence(w, cold), caveat(w, cold));
}

static json_t *io_setting(const json_t *best, const struct sweep *w, bool cold)
{
	const char *io = ip(best).io;
	if (!io)
		return unmeasured("the fastest ingest result records no io "
				  "mode");
	return setting(json_string(io),
		       ingest_basis("I/O mode (pread, mmap or direct) of the "
				    "fastest ingest result",
				    best, cold),
		       confidence(w, cold), caveat(w, cold));
}

/* ---- the storage note --------------------------------------------------- */

/* What the note says: verdict, advice, and what is missing. */
struct note {
	char verdict[512];
	char advice[512];
	const char *reason;
	const json_t *warm; /* a warm result the advice quotes, or NULL */
};

static double extra_num(const json_t *r, const char *key)
{
	const json_t *v = json_object_get(json_object_get(r, "extra"), key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A stage's seconds per repetition (extra.stages), or NAN. */
static double stage_s(const json_t *r, const char *stage)
{
	const json_t *v = json_object_get(
	    json_object_get(json_object_get(r, "extra"), "stages"), stage);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *readers_word(json_int_t n)
{
	return n == 1 ? "reader" : "readers";
}

/* "4 readers 3.1 GB/s against 1 reader 1.2 GB/s" */
static void most_against_fewest(char *buf, size_t len, const struct sweep *w)
{
	json_int_t m = ip(w->most).readers, f = ip(w->fewest).readers;
	snprintf(buf, len, "%lld %s %.3g GB/s against %lld %s %.3g GB/s",
		 (long long)m, readers_word(m), median(w->most), (long long)f,
		 readers_word(f), median(w->fewest));
}

/* The warm result to quote beside a cold one: the same case warm where
 * stored, else the fastest warm result. */
static const json_t *warm_twin(const json_t *all, const json_t *best)
{
	json_t *warm = of_cache(all, false);
	const json_t *twin = NULL;
	size_t i;
	json_t *r;
	json_array_foreach(warm, i, r)
	{
		if (same_but(r, best, "cache") &&
		    (!twin || median(r) > median(twin)))
			twin = r;
	}
	if (!twin)
		twin = fastest(warm);
	json_decref(warm); /* the results live on in all */
	return twin;
}

static void readers_helped_advice(struct note *n, const json_t *best,
				  const struct sweep *w)
{
	json_int_t b = ip(best).readers;
	if (best == w->most)
		snprintf(n->advice, sizeof(n->advice),
			 "use %lld readers; the most readers measured was the "
			 "fastest, so more may help: run axbench run ingest "
			 "-p readers=%lld,%lld,%lld",
			 (long long)b, (long long)b, (long long)(2 * b),
			 (long long)(4 * b));
	else {
		/* loader_threads' own choice, so advice and setting agree */
		json_int_t k = ip(enough_readers(w, best)).readers;
		if (k == b)
			snprintf(n->advice, sizeof(n->advice),
				 "use %lld %s, the fastest of the sweep",
				 (long long)b, readers_word(b));
		else
			snprintf(n->advice, sizeof(n->advice),
				 "use %lld %s: the fewest within 5 %% of the "
				 "fastest (%lld %s)",
				 (long long)k, readers_word(k), (long long)b,
				 readers_word(b));
	}
}

/* Storage-bound advice when more readers did not help: keep the data in
 * memory; the warm figure says how much that gives. */
static void warm_up_advice(struct note *n, const json_t *all,
			   const json_t *best, bool cold)
{
	if (!cold) {
		snprintf(n->advice, sizeof(n->advice),
			 "the data already came from the page cache, so "
			 "warming cannot help; compare I/O modes (now %s): "
			 "run axbench run ingest -p io=pread,mmap,direct",
			 ip(best).io ? ip(best).io : "unknown");
		return;
	}
	n->warm = warm_twin(all, best);
	if (n->warm)
		snprintf(n->advice, sizeof(n->advice),
			 "keep the dataset in RAM or warm the page cache with "
			 "a first pass: a warm cache gave %.3g GB/s against "
			 "%.3g GB/s cold",
			 median(n->warm), median(best));
	else
		snprintf(n->advice, sizeof(n->advice),
			 "keep the dataset in RAM or warm the page cache with "
			 "a first pass; run axbench run ingest -p "
			 "cache=warm,cold to measure the gain");
}

static void storage_bound(struct note *n, const json_t *all, const json_t *best,
			  const struct sweep *w, bool cold)
{
	char raw[128] = "", cmp[160];
	double g = extra_num(best, "raw_read_gbps");
	if (g > 0)
		snprintf(raw, sizeof(raw),
			 " (%.0f %% of the %.3g GB/s raw sequential read)",
			 100 * median(best) / g, g);
	const char *what =
	    cold ? "storage-bound" : "read-bound from a warm page cache";
	if (w->counts < 2) {
		json_int_t b = ip(best).readers;
		snprintf(n->verdict, sizeof(n->verdict),
			 "%s at %.3g GB/s%s; only one reader count measured "
			 "(%lld %s)",
			 what, median(best), raw, (long long)b,
			 readers_word(b));
		n->reason = RUN_READERS " to see whether more readers help";
		warm_up_advice(n, all, best, cold);
		return;
	}
	most_against_fewest(cmp, sizeof(cmp), w);
	if (median(w->most) >= READERS_GAIN * median(w->fewest)) {
		snprintf(n->verdict, sizeof(n->verdict),
			 "%s at %.3g GB/s%s; more readers helped: %s", what,
			 median(best), raw, cmp);
		readers_helped_advice(n, best, w);
		return;
	}
	snprintf(n->verdict, sizeof(n->verdict),
		 "%s at %.3g GB/s%s: more readers do not help (%s)", what,
		 median(best), raw, cmp);
	warm_up_advice(n, all, best, cold);
}

static void upload_bound(struct note *n, const json_t *best)
{
	double up = stage_s(best, "upload_s"), rd = stage_s(best, "read_s");
	long long chunk = (long long)ip(best).chunk;
	long long inflight = (long long)ip(best).inflight;
	if (isnan(up) || isnan(rd))
		snprintf(n->verdict, sizeof(n->verdict),
			 "upload-bound at %.3g GB/s: the copy to the device "
			 "is the slowest stage",
			 median(best));
	else
		snprintf(n->verdict, sizeof(n->verdict),
			 "upload-bound at %.3g GB/s: the copy to the device "
			 "takes %.3g s per repetition against %.3g s to read",
			 median(best), up, rd);
	snprintf(n->advice, sizeof(n->advice),
		 "use pinned staging memory, chunks larger than %lld bytes "
		 "and more than %lld buffers in flight; measure them: run "
		 "axbench run ingest -p chunk=%lld,%lld -p inflight=%lld,%lld",
		 chunk, inflight, chunk, 4 * chunk, inflight, 2 * inflight);
}

static void compute_bound(struct note *n, const json_t *best,
			  const struct sweep *w)
{
	double c = stage_s(best, "compute_s"), rd = stage_s(best, "read_s");
	double up = stage_s(best, "upload_s");
	json_int_t b = ip(best).readers;
	if (isnan(c) || isnan(rd) || isnan(up))
		snprintf(n->verdict, sizeof(n->verdict),
			 "compute-bound: the loader keeps up with the kernel");
	else
		snprintf(n->verdict, sizeof(n->verdict),
			 "compute-bound: the loader keeps up with the kernel "
			 "(compute %.3g s per repetition against read %.3g s "
			 "and upload %.3g s)",
			 c, rd, up);
	const json_t *few = enough_readers(w, best);
	json_int_t f = ip(few).readers;
	if (f < b)
		snprintf(n->advice, sizeof(n->advice),
			 "fewer readers suffice: with %lld %s, %.3g GB/s is "
			 "within 5 %% of the fastest (%lld readers, %.3g "
			 "GB/s)",
			 (long long)f, readers_word(f), median(few),
			 (long long)b, median(best));
	else if (b == 1)
		snprintf(n->advice, sizeof(n->advice), "one reader suffices");
	else if (best == w->fewest)
		snprintf(n->advice, sizeof(n->advice),
			 "fewer readers may suffice; none below %lld measured: "
			 "run axbench run ingest -p readers=1,%lld",
			 (long long)b, (long long)b);
	else
		snprintf(n->advice, sizeof(n->advice),
			 "keep %lld readers: fewer were slower (%lld %s %.3g "
			 "GB/s)",
			 (long long)b, (long long)ip(w->fewest).readers,
			 readers_word(ip(w->fewest).readers),
			 median(w->fewest));
}

static json_t *note_basis(const json_t *best, const struct sweep *w,
			  const struct note *n, bool cold)
{
	bool two = w->counts >= 2;
	return json_pack(
	    "{s:s, s:s, s:o, s:{s:o, s:o, s:o}, s:o}", "rule",
	    "the bound stage of the fastest result; storage-bound: the most "
	    "readers against the fewest, same other parameters (more readers "
	    "help at >= 5 %)",
	    "cache", cold ? "cold" : "warm", "result", cite(best), "readers",
	    "fewest", two ? cite(w->fewest) : json_null(), "most",
	    two ? cite(w->most) : json_null(), "gain",
	    two ? json_real(median(w->most) / median(w->fewest)) : json_null(),
	    "warm", n->warm ? cite(n->warm) : json_null());
}

/* The note's reason: what the rules missed, joined by "; " (NULL: none). */
static const char *note_reason(char *buf, size_t len, const char *a,
			       const char *b)
{
	if (!a || !b)
		return a ? a : b;
	snprintf(buf, len, "%s; %s", a, b);
	return buf;
}

static json_t *storage_note(const json_t *all, const json_t *best,
			    const struct sweep *w, bool cold)
{
	struct note n = {.reason = NULL};
	const json_t *extra = json_object_get(best, "extra");
	const char *bound = str_of(extra, "bound");
	if (bound && !strcmp(bound, "read"))
		storage_bound(&n, all, best, w, cold);
	else if (bound && !strcmp(bound, "upload"))
		upload_bound(&n, best);
	else if (bound && !strcmp(bound, "compute"))
		compute_bound(&n, best, w);
	else
		n.reason = "the fastest ingest result records no bound stage "
			   "known here (extra.bound: read, upload or compute)";
	/* The raw read as stored; 0 or none means it was not measured. */
	const json_t *raw = json_object_get(extra, "raw_read_gbps");
	bool has_raw = json_number_value(raw) > 0;
	char why[512];
	const char *reason = note_reason(
	    why, sizeof(why), n.reason,
	    has_raw ? NULL
		    : "the fastest ingest result records no raw sequential "
		      "read (extra.raw_read_gbps) to compare with");
	return json_pack(
	    "{s:s?, s:O, s:o, s:o, s:s?, s:s?, s:s, s:o, s:s?}", "bound", bound,
	    "gbps", json_object_get(best, "median"), "raw_read_gbps",
	    has_raw ? json_incref((json_t *)raw) : json_null(), "ratio_to_raw",
	    has_raw ? json_real(median(best) / json_number_value(raw))
		    : json_null(),
	    "verdict", *n.verdict ? n.verdict : NULL, "advice",
	    *n.advice ? n.advice : NULL, "cache", cold ? "cold" : "warm",
	    "basis", note_basis(best, w, &n, cold), "reason", reason);
}

/* ---- nothing measured --------------------------------------------------- */

static json_t *none_measured(void)
{
	const char *why =
	    "no ingest results on this device; " RUN_READERS " -p cache=cold";
	return json_pack(
	    "{s:o, s:o, s:o, s:o, s:{s:n, s:n, s:n, s:n, s:n, s:n, s:n, "
	    "s:n, s:s}}",
	    "loader_threads", unmeasured(why), "prefetch_depth",
	    unmeasured(why), "read_chunk", unmeasured(why), "io_mode",
	    unmeasured(why), "storage", "bound", "gbps", "raw_read_gbps",
	    "ratio_to_raw", "verdict", "advice", "cache", "basis", "reason",
	    why);
}

json_t *ax_rec_ingest_loading(const json_t *ingest, bool *measured)
{
	bool cold;
	json_t *pool = pick_pool(ingest, &cold);
	const json_t *best = fastest(pool);
	*measured = best != NULL;
	if (!best) {
		json_decref(pool);
		return none_measured();
	}
	struct sweep w;
	sweep_init(&w, pool, best);
	json_t *dl =
	    json_pack("{s:o, s:o, s:o, s:o, s:o}", "loader_threads",
		      threads_setting(best, &w, cold), "prefetch_depth",
		      prefetch_setting(best, &w, cold), "read_chunk",
		      chunk_setting(best, &w, cold), "io_mode",
		      io_setting(best, &w, cold), "storage",
		      storage_note(ingest, best, &w, cold));
	json_decref(w.group);
	json_decref(pool);
	return dl;
}
