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

typedef struct ax_db_result_row row_t;

/* The ingest parameters of a result of an ingest-role suite, through the
 * role's contract (core/params.h: ax_role_params). */
static struct ax_ingest_point ip(const row_t *r)
{
	struct ax_ingest_point x;
	ax_db_role_point(AX_ROLE_INGEST, &r->params, &x);
	return x;
}

static bool is_cold(const row_t *r)
{
	const char *c = ip(r).cache;
	return c && !strcmp(c, "cold");
}

/* A result the rules can use: a positive figure read by >= 1 reader. */
static bool usable(const row_t *r)
{
	return median(r) > 0 && ip(r).readers >= 1;
}

/* The usable results of one cache state (borrowed: free the list). */
static struct ax_rec_rows of_cache(const struct ax_rec_rows *rs, bool cold)
{
	struct ax_rec_rows out = {0};
	for (size_t i = 0; i < rs->n; i++)
		if (usable(rs->v[i]) && is_cold(rs->v[i]) == cold)
			rows_add(&out, rs->v[i]);
	return out;
}

/* Cold-cache results where any exist (a loader reads from storage), else
 * the warm ones. */
static struct ax_rec_rows pick_pool(const struct ax_rec_rows *rs, bool *cold)
{
	struct ax_rec_rows pool = of_cache(rs, true);
	*cold = pool.n > 0;
	if (!*cold) {
		rows_free(&pool);
		pool = of_cache(rs, false);
	}
	return pool;
}

static const row_t *fastest(const struct ax_rec_rows *rs)
{
	const row_t *best = NULL;
	for (size_t i = 0; i < rs->n; i++)
		if (!best || median(rs->v[i]) > median(best))
			best = rs->v[i];
	return best;
}

/* ---- the readers sweep of the fastest result ---------------------------- */

/* The results that differ from the fastest only in readers. */
struct sweep {
	struct ax_rec_rows group; /* the fastest included */
	const row_t *fewest;	  /* fastest at the fewest readers */
	const row_t *most;	  /* fastest at the most readers */
	int counts;		  /* distinct reader counts */
};

/* Is r the better pick at its reader count than cur, for pick's end
 * (want < 0: fewest readers; > 0: most)? */
static bool better_end(const row_t *r, const row_t *cur, int want)
{
	if (!cur)
		return true;
	int64_t a = ip(r).readers, b = ip(cur).readers;
	if (a != b)
		return want < 0 ? a < b : a > b;
	return median(r) > median(cur);
}

static bool count_seen(const struct ax_rec_rows *group, size_t upto, int64_t n)
{
	for (size_t j = 0; j < upto; j++)
		if (ip(group->v[j]).readers == n)
			return true;
	return false;
}

static void sweep_init(struct sweep *w, const struct ax_rec_rows *pool,
		       const row_t *best)
{
	memset(w, 0, sizeof(*w));
	for (size_t i = 0; i < pool->n; i++)
		if (same_params_but(pool->v[i], best, "readers"))
			rows_add(&w->group, pool->v[i]);
	for (size_t i = 0; i < w->group.n; i++) {
		const row_t *r = w->group.v[i];
		if (better_end(r, w->fewest, -1))
			w->fewest = r;
		if (better_end(r, w->most, 1))
			w->most = r;
		w->counts += !count_seen(&w->group, i, ip(r).readers);
	}
}

/* The sweep as a basis lists it: readers, result id, value as stored. */
static json_t *sweep_json(const struct sweep *w)
{
	json_t *a = json_array();
	for (size_t i = 0; i < w->group.n; i++) {
		const row_t *r = w->group.v[i];
		json_array_append_new(a, json_pack("{s:I, s:I, s:o}", "readers",
						   (json_int_t)ip(r).readers,
						   "result_id",
						   (json_int_t)r->id, "value",
						   num_or_null(median(r))));
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

static json_t *ingest_basis(const char *rule, const row_t *best, bool cold)
{
	return json_pack("{s:s, s:s, s:s, s:o}", "rule", rule, "cache",
			 cold ? "cold" : "warm", "cache_rule", cache_rule(cold),
			 "result", cite(best));
}

/* The fewest readers reaching FEWER_FRACTION of the fastest, among the
 * results that differ from it only in readers: a loader thread that adds
 * less than the noise of a figure is a thread taken from the model's
 * host work for nothing. */
static const row_t *enough_readers(const struct sweep *w, const row_t *best)
{
	const row_t *pick = NULL;
	for (size_t i = 0; i < w->group.n; i++) {
		const row_t *r = w->group.v[i];
		if (median(r) >= FEWER_FRACTION * median(best) &&
		    better_end(r, pick, -1))
			pick = r;
	}
	return pick ? pick : best;
}

static json_t *threads_setting(const row_t *best, const struct sweep *w,
			       bool cold)
{
	const row_t *pick = enough_readers(w, best);
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
static json_t *prefetch_setting(const row_t *best, const struct sweep *w,
				bool cold)
{
	const row_t *pick = enough_readers(w, best);
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

static json_t *chunk_setting(const row_t *best, const struct sweep *w,
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

static json_t *io_setting(const row_t *best, const struct sweep *w, bool cold)
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
	const row_t *warm; /* a warm result the advice quotes, or NULL */
};

/* A stage's seconds per repetition (extra.stages.STAGE), or NAN. */
static double stage_s(const row_t *r, const char *stage)
{
	char path[64];
	snprintf(path, sizeof(path), "stages.%s", stage);
	return ax_db_extra_num(r, path);
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
static const row_t *warm_twin(const struct ax_rec_rows *all, const row_t *best)
{
	struct ax_rec_rows warm = of_cache(all, false);
	const row_t *twin = NULL;
	for (size_t i = 0; i < warm.n; i++) {
		const row_t *r = warm.v[i];
		if (same_params_but(r, best, "cache") &&
		    (!twin || median(r) > median(twin)))
			twin = r;
	}
	if (!twin)
		twin = fastest(&warm);
	rows_free(&warm); /* the results live on in all */
	return twin;
}

static void readers_helped_advice(struct note *n, const row_t *best,
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
static void warm_up_advice(struct note *n, const struct ax_rec_rows *all,
			   const row_t *best, bool cold)
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

static void storage_bound(struct note *n, const struct ax_rec_rows *all,
			  const row_t *best, const struct sweep *w, bool cold)
{
	char raw[128] = "", cmp[160];
	double g = ax_db_extra_num(best, "raw_read_gbps");
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

static void upload_bound(struct note *n, const row_t *best)
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

static void compute_bound(struct note *n, const row_t *best,
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
	const row_t *few = enough_readers(w, best);
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

static json_t *note_basis(const row_t *best, const struct sweep *w,
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

static json_t *storage_note(const struct ax_rec_rows *all, const row_t *best,
			    const struct sweep *w, bool cold)
{
	struct note n = {.reason = NULL};
	const char *bound = ax_db_extra_text(best, "bound");
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
	double raw = ax_db_extra_num(best, "raw_read_gbps");
	bool has_raw = raw > 0;
	char why[512];
	const char *reason = note_reason(
	    why, sizeof(why), n.reason,
	    has_raw ? NULL
		    : "the fastest ingest result records no raw sequential "
		      "read (extra.raw_read_gbps) to compare with");
	return json_pack(
	    "{s:s?, s:o, s:o, s:o, s:s?, s:s?, s:s, s:o, s:s?}", "bound", bound,
	    "gbps", num_or_null(median(best)), "raw_read_gbps",
	    has_raw ? json_real(raw) : json_null(), "ratio_to_raw",
	    has_raw ? json_real(median(best) / raw) : json_null(), "verdict",
	    *n.verdict ? n.verdict : NULL, "advice",
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

json_t *ax_rec_ingest_loading(const struct ax_rec_rows *ingest, bool *measured)
{
	bool cold;
	struct ax_rec_rows pool = pick_pool(ingest, &cold);
	const row_t *best = fastest(&pool);
	*measured = best != NULL;
	if (!best) {
		rows_free(&pool);
		return none_measured();
	}
	struct sweep w;
	sweep_init(&w, &pool, best);
	json_t *dl =
	    json_pack("{s:o, s:o, s:o, s:o, s:o}", "loader_threads",
		      threads_setting(best, &w, cold), "prefetch_depth",
		      prefetch_setting(best, &w, cold), "read_chunk",
		      chunk_setting(best, &w, cold), "io_mode",
		      io_setting(best, &w, cold), "storage",
		      storage_note(ingest, best, &w, cold));
	rows_free(&w.group);
	rows_free(&pool);
	return dl;
}
