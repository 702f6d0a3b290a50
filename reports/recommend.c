/*
 * reports/recommend.c - placement and data-loading settings from stored
 * results (rules in reports/recommend.h), and the shell / numactl /
 * Slurm / PyTorch views of them.
 *
 * The rules read typed result rows (core/db_rows.h) and the typed suite
 * document; JSON is what they write: the recommendation document, whose
 * citations show a result as `results --json` does.
 */
#include "reports/recommend.h"

#include "core/config.h"
#include "core/error.h"
#include "core/params.h"
#include "reports/recommend_internal.h"
#include "reports/suite_doc.h"

#include <ctype.h>
#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_FRACTION 0.90
#define INFLIGHT_FRACTION 0.95
#define BATCH_FRACTION 0.90
#define PINNED_GAIN 1.05
#define MAX_POINTS 64
#define MAX_PATHS 32

typedef struct ax_db_result_row row_t;

/* The transfer parameters of a result of a transfer-role suite, through
 * the role's contract (core/params.h: ax_role_params). */
static struct ax_transfer_point xp(const row_t *r)
{
	struct ax_transfer_point x;
	ax_db_role_point(AX_ROLE_TRANSFER, &r->params, &x);
	return x;
}

static bool is_suite(const row_t *r, const char *suite)
{
	return r->suite && !strcmp(r->suite, suite);
}

/* ---- upload path and chunk size --------------------------------------- */

struct xpoint {
	int64_t x; /* chunk, inflight or batch */
	const row_t *r;
};

struct series {
	char key[1024];
	struct xpoint p[MAX_POINTS];
	int n;
	const row_t *peak;
};

/* Add r at x to the series called key; a repeated x keeps the newest. */
static void series_add(struct series *s, int *n, const char *key, int64_t x,
		       const row_t *r)
{
	int i = 0;
	while (i < *n && strcmp(s[i].key, key))
		i++;
	if (i == *n) {
		if (*n == MAX_PATHS)
			return;
		memset(&s[i], 0, sizeof(s[i]));
		snprintf(s[i].key, sizeof(s[i].key), "%s", key);
		(*n)++;
	}
	struct series *t = &s[i];
	int j = 0;
	while (j < t->n && t->p[j].x != x)
		j++;
	if (j == t->n) {
		if (t->n == MAX_POINTS)
			return;
		t->n++;
	}
	t->p[j] = (struct xpoint){x, r};
}

static int by_x(const void *a, const void *b)
{
	int64_t x = ((const struct xpoint *)a)->x;
	int64_t y = ((const struct xpoint *)b)->x;
	return (x > y) - (x < y);
}

/* Sort by x and find the peak (highest median). */
static void series_finish(struct series *s)
{
	qsort(s->p, (size_t)s->n, sizeof(s->p[0]), by_x);
	s->peak = NULL;
	for (int i = 0; i < s->n; i++)
		if (!s->peak || median(s->p[i].r) > median(s->peak))
			s->peak = s->p[i].r;
}

/* Smallest x whose median reaches frac of the peak. */
static const struct xpoint *knee(const struct series *s, double frac)
{
	for (int i = 0; i < s->n; i++)
		if (median(s->p[i].r) >= frac * median(s->peak))
			return &s->p[i];
	return NULL;
}

/* A host-to-device figure of a transfer-role suite (the caller passes
 * only those results: see with_role()). */
static bool is_h2d_ok(const row_t *r)
{
	const char *dir = xp(r).direction;
	return dir && !strcmp(dir, "h2d") && r->unit &&
	       !strcmp(r->unit, "GB/s") && median(r) > 0;
}

/* The h2d chunk sweeps, one series per path/source/inflight/total. */
static int chunk_series(const struct ax_rec_rows *rs, struct series *s)
{
	int n = 0;
	for (size_t i = 0; i < rs->n; i++) {
		const row_t *r = rs->v[i];
		char key[256];
		if (!is_h2d_ok(r))
			continue;
		struct ax_transfer_point x = xp(r);
		snprintf(key, sizeof(key), "%s|%s|%lld|%lld",
			 x.path ? x.path : "", x.source ? x.source : "",
			 (long long)x.inflight, (long long)x.total);
		series_add(s, &n, key, x.chunk, r);
	}
	for (int k = 0; k < n; k++)
		series_finish(&s[k]);
	return n;
}

/* T(n) = alpha + n / beta over the chunk sweep; NULL below 3 points. */
static json_t *chunk_fit(const struct series *s, double *chunk90)
{
	double x[MAX_POINTS], y[MAX_POINTS], c0, c1, v00, v01, v11, ss;
	*chunk90 = 0;
	if (s->n < 3)
		return NULL;
	for (int i = 0; i < s->n; i++) {
		x[i] = (double)s->p[i].x;
		y[i] = x[i] / (median(s->p[i].r) * 1e9);
	}
	gsl_fit_linear(x, 1, y, 1, (size_t)s->n, &c0, &c1, &v00, &v01, &v11,
		       &ss);
	if (!(c1 > 0) || c0 < 0)
		return json_pack("{s:s, s:f, s:f}", "model",
				 "T(n) = alpha + n / beta", "c0_s", c0,
				 "c1_s_per_byte", c1);
	double beta = 1 / c1, n_half = c0 * beta;
	*chunk90 = 9 * n_half;
	return json_pack("{s:s, s:f, s:f, s:f, s:f, s:i}", "model",
			 "T(n) = alpha + n / beta (least squares)", "alpha_s",
			 c0, "beta_gbps", beta / 1e9, "n_half_bytes", n_half,
			 "chunk_90_bytes", *chunk90, "points", s->n);
}

/* NAN where the sensor did not measure it (or no power row). */
static double perf_per_w(const row_t *r) { return r->power.perf_per_w; }

/* The note of a sweep whose points have no perf/W: the stored reason of
 * the first point, else why there is none. */
static json_t *no_power_note(const struct series *s)
{
	const char *why = s->n ? s->p[0].r->power.reason : NULL;
	return json_pack("{s:s}", "note",
			 why ? why
			     : "no power figures stored with these "
			       "results (measured before telemetry, or "
			       "without a sensor)");
}

/*
 * The power-aware note of a sweep (issue 13): the point with the best
 * perf/W beside the fastest one, where the device's sensor measured them;
 * else why there is none.  The chosen value stays the throughput rule's:
 * this says what a user who pays for power would pick instead.
 */
static json_t *power_note(const struct series *s, const char *what)
{
	const struct xpoint *eff = NULL;
	for (int i = 0; i < s->n; i++)
		if (perf_per_w(s->p[i].r) > 0 &&
		    (!eff || perf_per_w(s->p[i].r) > perf_per_w(eff->r)))
			eff = &s->p[i];
	if (!eff)
		return no_power_note(s);
	char note[256];
	double fast = perf_per_w(s->peak);
	if (eff->r == s->peak)
		snprintf(note, sizeof(note),
			 "the fastest %s is also the most efficient", what);
	else if (isnan(fast))
		snprintf(note, sizeof(note),
			 "%s %lld gives the best perf/W (%.3g); the fastest "
			 "has no power figure",
			 what, (long long)eff->x, perf_per_w(eff->r));
	else
		snprintf(note, sizeof(note),
			 "%s %lld gives the best perf/W (%.3g against %.3g at "
			 "the fastest)",
			 what, (long long)eff->x, perf_per_w(eff->r), fast);
	return json_pack("{s:s, s:I, s:f, s:o, s:o, s:o, s:o}", "note", note,
			 "best_perf_per_w_at", (json_int_t)eff->x,
			 "best_perf_per_w", perf_per_w(eff->r), "unit",
			 text_or_null(eff->r->power.perf_per_w_unit),
			 "fastest_perf_per_w", num_or_null(fast), "efficient",
			 cite(eff->r), "fastest", cite(s->peak));
}

static json_t *chunk_setting(const struct series *s)
{
	const struct xpoint *k = knee(s, CHUNK_FRACTION);
	double fit90;
	json_t *fit = chunk_fit(s, &fit90), *sweep = json_array();
	for (int i = 0; i < s->n; i++)
		json_array_append_new(
		    sweep,
		    json_pack("{s:I, s:I, s:o}", "chunk", (json_int_t)s->p[i].x,
			      "result_id", (json_int_t)s->p[i].r->id, "value",
			      num_or_null(median(s->p[i].r))));
	const char *conf = "low";
	if (fit90 > 0) {
		double ratio = (double)k->x / fit90;
		conf = ratio >= 0.25 && ratio <= 4 ? "high" : "medium";
	}
	json_t *basis = json_pack(
	    "{s:s, s:o, s:o, s:o, s:o}", "rule",
	    "smallest chunk whose host-to-device GB/s reaches 90 % of the "
	    "path's peak",
	    "peak", cite(s->peak), "chosen", cite(k->r), "sweep", sweep, "fit",
	    fit ? fit : json_null());
	json_object_set_new(basis, "power", power_note(s, "chunk"));
	return setting(json_integer(k->x), basis, conf,
		       s->n < 3 ? "fewer than 3 chunk sizes measured: no fit "
				  "to cross-check"
				: NULL);
}

/* The queue and memory the peak of the path used, as the transfer suite
 * stored them (extra.queue, extra.reason, extra.memory.device). */
static void path_facts(json_t *up, const row_t *peak)
{
	json_t *basis = json_pack("{s:s, s:o}", "rule",
				  "what the transfer suite recorded for the "
				  "path's peak",
				  "result", cite(peak));
	const char *q = ax_db_extra_text(peak, "queue");
	const char *mem = ax_db_extra_text(peak, "memory.device");
	json_object_set_new(up, "queue",
			    q ? setting(json_string(q), json_deep_copy(basis),
					"high",
					ax_db_extra_text(peak, "reason"))
			      : unmeasured("the transfer result records no "
					   "queue"));
	json_object_set_new(
	    up, "memory_type",
	    mem ? setting(json_string(mem), json_deep_copy(basis), "high", NULL)
		: unmeasured("the transfer result records no "
			     "memory type"));
	json_decref(basis);
}

/* Buffers in flight: the inflight sweep with the most points. */
static json_t *inflight_setting(const struct ax_rec_rows *rs)
{
	static struct series s[MAX_PATHS];
	int n = 0, best = -1;
	for (size_t i = 0; i < rs->n; i++) {
		const row_t *r = rs->v[i];
		char key[256];
		struct ax_transfer_point x = xp(r);
		if (!is_h2d_ok(r) || !x.path || strcmp(x.path, "staged"))
			continue;
		snprintf(key, sizeof(key), "%s|%lld|%lld", x.source,
			 (long long)x.chunk, (long long)x.total);
		series_add(s, &n, key, x.inflight, r);
	}
	for (int k = 0; k < n; k++) {
		series_finish(&s[k]);
		if (s[k].n >= 2 && (best < 0 || s[k].n > s[best].n))
			best = k;
	}
	if (best < 0)
		return unmeasured("no staged host-to-device sweep over "
				  "inflight; run transfer with -p "
				  "inflight=1,2,3,4");
	const struct xpoint *k = knee(&s[best], INFLIGHT_FRACTION);
	json_t *basis =
	    json_pack("{s:s, s:o, s:o}", "rule",
		      "fewest transfers in flight reaching 95 % "
		      "of the best in the sweep",
		      "peak", cite(s[best].peak), "chosen", cite(k->r));
	return setting(json_integer(k->x), basis,
		       s[best].n >= 3 ? "high" : "medium", NULL);
}

/* Does b, a pageable result, pair with a, a pinned one: the same chunk,
 * inflight, total and path? */
static bool pageable_twin(const struct ax_transfer_point *xa, const row_t *b)
{
	struct ax_transfer_point xb = xp(b);
	return is_h2d_ok(b) && xb.source && !strcmp(xb.source, "pageable") &&
	       xa->chunk == xb.chunk && xa->inflight == xb.inflight &&
	       xa->total == xb.total && !strcmp(xa->path, xb.path);
}

/* Pinned gain: pairs that differ only in source; the fastest pinned. */
static json_t *pinned_setting(const struct ax_rec_rows *rs)
{
	const row_t *pin = NULL, *page = NULL;
	for (size_t i = 0; i < rs->n; i++) {
		const row_t *a = rs->v[i];
		struct ax_transfer_point xa = xp(a);
		if (!is_h2d_ok(a) || !xa.source || strcmp(xa.source, "pinned"))
			continue;
		for (size_t j = 0; j < rs->n; j++)
			if (pageable_twin(&xa, rs->v[j]) &&
			    (!pin || median(a) > median(pin)))
				pin = a, page = rs->v[j];
	}
	if (!pin)
		return unmeasured("no host-to-device pair differing only in "
				  "source; run transfer with -p "
				  "source=pageable,pinned");
	double gain = median(pin) / median(page);
	json_t *basis = json_pack("{s:s, s:o, s:o, s:f}", "rule",
				  "pinned if its bandwidth beats pageable by "
				  "at least 5 % at the same chunk",
				  "pinned", cite(pin), "pageable", cite(page),
				  "gain", gain);
	return setting(json_boolean(gain >= PINNED_GAIN), basis,
		       fabs(gain - 1) > 0.10 ? "high" : "medium", NULL);
}

/* Fill `upload`; *gbps is the h2d bandwidth at the chosen chunk. */
static json_t *upload_json(const struct ax_rec_rows *rs, double *gbps)
{
	static struct series s[MAX_PATHS];
	int n = chunk_series(rs, s), best = -1;
	json_t *up = json_object();
	*gbps = 0;
	for (int k = 0; k < n; k++)
		if (best < 0 || median(s[k].peak) > median(s[best].peak))
			best = k;
	if (best < 0) {
		const char *why = "no host-to-device transfer results on this "
				  "device; run axbench run transfer";
		json_object_set_new(up, "path", unmeasured(why));
		json_object_set_new(up, "queue", unmeasured(why));
		json_object_set_new(up, "memory_type", unmeasured(why));
		json_object_set_new(up, "chunk_size", unmeasured(why));
	} else {
		const row_t *pk = s[best].peak;
		json_t *basis = json_pack("{s:s, s:o}", "rule",
					  "the path with the highest "
					  "host-to-device peak",
					  "peak", cite(pk));
		json_object_set_new(
		    up, "path",
		    setting(json_pack("{s:s?, s:s?}", "path", xp(pk).path,
				      "source", xp(pk).source),
			    basis, n > 1 ? "high" : "medium", NULL));
		path_facts(up, pk);
		json_object_set_new(up, "chunk_size", chunk_setting(&s[best]));
		*gbps = median(knee(&s[best], CHUNK_FRACTION)->r);
	}
	json_object_set_new(up, "buffers_in_flight", inflight_setting(rs));
	return up;
}

/* ---- batch size, loader threads, prefetch ------------------------------ */

/* Bytes of one batch's input, as the suite declared them with the
 * result (extra.input_bytes, or the suite's hook: app/suite_doc.h). */
static double batch_bytes(const row_t *r) { return r->input_bytes; }

/* The series key of r: its suite and every parameter but skip, each with
 * its type, so that results group exactly when all else is equal. */
static void key_but(const row_t *r, const char *skip, char *key, size_t len)
{
	size_t at = (size_t)snprintf(key, len, "%s", r->suite);
	for (int i = 0; i < r->params.n && at < len; i++) {
		const struct ax_db_param *p = &r->params.v[i];
		if (!strcmp(p->name, skip))
			continue;
		if (p->type == AX_DB_VALUE_INT)
			at += (size_t)snprintf(key + at, len - at, "|%s=i%lld",
					       p->name, (long long)p->i);
		else if (p->type == AX_DB_VALUE_TEXT ||
			 p->type == AX_DB_VALUE_OTHER)
			at += (size_t)snprintf(key + at, len - at, "|%s=%d%s",
					       p->name, (int)p->type,
					       p->text ? p->text : "");
		else
			at +=
			    (size_t)snprintf(key + at, len - at, "|%s=%d%.17g",
					     p->name, (int)p->type, p->num);
	}
}

/* Batch sweeps of the suites that declare a batch parameter (conv's n,
 * attention's batch): the longest wins. */
static int batch_sweep(const struct ax_rec_rows *rs,
		       const struct ax_suite_doc *suites, struct series *best)
{
	static struct series s[MAX_PATHS];
	int n = 0, pick = -1;
	for (size_t i = 0; i < rs->n; i++) {
		const row_t *r = rs->v[i];
		const struct ax_suite_info *info =
		    ax_suite_info_find(suites, r->suite);
		const char *bp = info ? info->batch_param : NULL;
		if (!bp || median(r) <= 0)
			continue;
		char key[1024];
		key_but(r, bp, key, sizeof(key));
		/* The batch parameter is data (the suite document names
		 * it), so it is the one looked up by name. */
		const struct ax_db_param *b = ax_db_param_find(&r->params, bp);
		series_add(s, &n, key,
			   b && b->type == AX_DB_VALUE_INT ? b->i : 0, r);
	}
	for (int k = 0; k < n; k++) {
		series_finish(&s[k]);
		if (s[k].n >= 2 && (pick < 0 || s[k].n > s[pick].n))
			pick = k;
	}
	if (pick >= 0)
		*best = s[pick];
	return pick >= 0;
}

static json_t *batch_setting(const struct series *s, const row_t **at)
{
	const struct xpoint *k = knee(s, BATCH_FRACTION);
	*at = k->r;
	json_t *basis = json_pack(
	    "{s:s, s:o, s:o, s:n, s:s}", "rule",
	    "smallest batch reaching 90 % of the best throughput of the "
	    "sweep",
	    "peak", cite(s->peak), "chosen", cite(k->r), "memory_cap",
	    "memory_cap_reason",
	    "not applied: the device memory budget is not stored with "
	    "the results");
	json_object_set_new(basis, "power", power_note(s, "batch"));
	return setting(json_integer(k->x), basis, s->n >= 3 ? "medium" : "low",
		       "capped by nothing but the sweep: check that the batch "
		       "fits your model's memory");
}

static void loader_unmeasured(json_t *dl, const char *why)
{
	json_object_set_new(dl, "loader_threads", unmeasured(why));
	json_object_set_new(dl, "prefetch_depth", unmeasured(why));
}

/* Little's law from one batch's step time and its upload time. */
static void loader_settings(json_t *dl, const row_t *step, double gbps,
			    json_int_t cores)
{
	const char *unit = step->unit;
	double work = step->work;
	if (!unit || strcmp(unit, "GFLOP/s") || !(work > 0) || !(gbps > 0)) {
		loader_unmeasured(dl, gbps > 0 ? "the batch result has no work "
						 "in GFLOP to time a step"
					       : "no host-to-device bandwidth "
						 "measured to time an upload");
		return;
	}
	double step_s = work / (median(step) * 1e9);
	if (!(batch_bytes(step) > 0)) {
		loader_unmeasured(dl, "the batch result states no input bytes "
				      "(extra.input_bytes) to time an upload");
		return;
	}
	double xfer_s = batch_bytes(step) / (gbps * 1e9);
	double in_flight = xfer_s / step_s;
	json_int_t threads = (json_int_t)ceil(in_flight);
	threads = threads < 1 ? 1 : threads;
	if (cores > 0 && threads > cores)
		threads = cores;
	json_t *basis = json_pack(
	    "{s:s, s:o, s:f, s:f, s:f, s:f, s:o}", "rule",
	    "Little's law: batches in flight = upload time / step time; "
	    "threads capped by the device's local cores",
	    "step", cite(step), "step_s", step_s, "batch_bytes",
	    batch_bytes(step), "upload_gbps", gbps, "upload_s", xfer_s,
	    "local_cores", cores > 0 ? json_integer(cores) : json_null());
	json_object_set_new(dl, "loader_threads",
			    setting(json_integer(threads),
				    json_deep_copy(basis), "medium",
				    "counts only the upload; host-side "
				    "decoding needs more threads"));
	json_object_set_new(
	    dl, "prefetch_depth",
	    setting(json_integer((json_int_t)ceil(in_flight) + 1), basis,
		    "medium", NULL));
}

/* Loader threads and prefetch depth by Little's law where no ingest
 * result measured them; at is the batch the sweep chose, or NULL. */
static void transfer_loader(json_t *dl, const row_t *at, double gbps,
			    json_int_t cores)
{
	if (at) {
		loader_settings(dl, at, gbps, cores);
		return;
	}
	loader_unmeasured(dl, "no ingest results and no batch sweep measured; "
			      "run axbench run ingest -p readers=1,2,4 (or "
			      "conv with -p n=1,2,4,8,16 for Little's law)");
}

/* Ingest results first (they measure storage -> device loading itself);
 * the transfer rules only where a device has none. */
static json_t *loading_json(const struct ax_rec_rows *rs,
			    const struct ax_rec_rows *xfers,
			    const struct ax_rec_rows *ingest,
			    const struct ax_suite_doc *suites, double gbps,
			    json_int_t cores)
{
	static struct series s;
	json_t *dl = json_object();
	const row_t *at = NULL;
	bool measured;
	json_object_set_new(dl, "pinned_memory", pinned_setting(xfers));
	if (batch_sweep(rs, suites, &s))
		json_object_set_new(dl, "batch_size", batch_setting(&s, &at));
	else
		json_object_set_new(dl, "batch_size",
				    unmeasured("no batch sweep measured; run "
					       "conv with -p n=1,2,4,8,16 (or "
					       "attention -p batch=...)"));
	json_t *ing = ax_rec_ingest_loading(ingest, &measured);
	if (!measured) {
		json_object_del(ing, "loader_threads");
		json_object_del(ing, "prefetch_depth");
		transfer_loader(dl, at, gbps, cores);
	}
	json_object_update(dl, ing);
	json_decref(ing);
	return dl;
}

/* ---- locality and devices ---------------------------------------------- */

/* The device's locality from loc, ax_topo_locality_json()'s document
 * (core/topo.h): the caller's topology, not a stored result. */
static json_t *locality_json(const json_t *loc, json_int_t *cores)
{
	json_t *o = json_object();
	*cores = 0;
	if (!loc) {
		const char *why = "no topology information was given";
		json_object_set_new(o, "numa_node", unmeasured(why));
		json_object_set_new(o, "cpuset", unmeasured(why));
		json_object_set_new(o, "local_cores", unmeasured(why));
		return o;
	}
	json_t *conf = NULL, *why = NULL, *bus = NULL, *node = NULL, *n = NULL,
	       *cpuset = NULL;
	json_unpack((json_t *)loc, "{s?o, s?o, s?o, s?o, s?o, s?o}",
		    "confidence", &conf, "reason", &why, "pci_bus_id", &bus,
		    "numa_node", &node, "cores", &n, "cpuset", &cpuset);
	const char *reason = json_string_value(why);
	if (reason && !*reason)
		reason = NULL;
	json_t *basis = json_pack("{s:s, s:O?}", "rule",
				  "hwloc locality of "
				  "the device's PCI bus id",
				  "pci_bus_id", bus);
	json_int_t nn = json_integer_value(node);
	*cores = json_integer_value(n);
	json_object_set_new(
	    o, "numa_node",
	    nn >= 0 ? setting(json_integer(nn), json_deep_copy(basis),
			      json_string_value(conf), reason)
		    : unmeasured(reason ? reason : "no NUMA node"));
	json_object_set_new(o, "cpuset",
			    setting(json_incref(cpuset), json_deep_copy(basis),
				    json_string_value(conf), reason));
	json_object_set_new(o, "local_cores",
			    setting(json_integer(*cores), basis,
				    json_string_value(conf), reason));
	return o;
}

/* One device of the document: its stored identity and the results that
 * count on it. */
struct rec_device {
	const struct ax_db_device_row *dev;
	char key[160];
	struct ax_rec_rows rows;
};

struct rec_devices {
	struct rec_device *v;
	size_t n;
};

/* pci:BUS, uuid:UUID or fingerprint:FP: never the Vulkan index. */
static void device_key(const struct ax_db_device_row *dev, char *key,
		       size_t len)
{
	const char *bus = dev->pci_bus_id, *uuid = dev->device_uuid;
	if (bus && *bus)
		snprintf(key, len, "pci:%s", bus);
	else if (uuid && *uuid)
		snprintf(key, len, "uuid:%s", uuid);
	else
		snprintf(key, len, "fingerprint:%s", dev->fingerprint);
}

/* The results of rs whose suite has the role (borrowed). */
static struct ax_rec_rows with_role(const struct ax_rec_rows *rs,
				    const struct ax_suite_doc *suites,
				    enum ax_role role)
{
	struct ax_rec_rows out = {0};
	for (size_t i = 0; i < rs->n; i++)
		if (ax_suite_info_row_has_role(suites, rs->v[i], role))
			rows_add(&out, rs->v[i]);
	return out;
}

/* The device's identity as the document shows it. */
static json_t *identity_json(const struct rec_device *d)
{
	const struct ax_db_device_row *dev = d->dev;
	json_t *o = json_pack(
	    "{s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "key", d->key, "fingerprint",
	    text_or_null(dev->fingerprint), "name", text_or_null(dev->name),
	    "vendor", text_or_null(dev->vendor), "type",
	    text_or_null(dev->type), "pci_bus_id",
	    text_or_null(dev->pci_bus_id), "device_uuid",
	    text_or_null(dev->device_uuid));
	/* Mesa's device-select layer names a device by its PCI ids. */
	if (o && dev->vendor_id != AX_DB_NONE && dev->device_id != AX_DB_NONE) {
		char sel[40];
		snprintf(sel, sizeof(sel), "%llx:%llx",
			 (unsigned long long)dev->vendor_id,
			 (unsigned long long)dev->device_id);
		json_object_set_new(o, "mesa_device_select", json_string(sel));
	}
	return o;
}

static json_t *device_json(const struct rec_device *dv, const json_t *loc,
			   const struct ax_suite_doc *suites)
{
	json_int_t cores;
	double gbps;
	json_t *d = identity_json(dv);
	json_object_set_new(d, "locality", locality_json(loc, &cores));
	struct ax_rec_rows xfers =
	    with_role(&dv->rows, suites, AX_ROLE_TRANSFER);
	struct ax_rec_rows ingest =
	    with_role(&dv->rows, suites, AX_ROLE_INGEST);
	struct ax_rec_rows zc = with_role(&dv->rows, suites, AX_ROLE_ZEROCOPY);
	json_object_set_new(d, "upload", upload_json(&xfers, &gbps));
	json_object_set_new(d, "zero_copy", ax_rec_zerocopy(&zc));
	rows_free(&zc);
	json_object_set_new(
	    d, "data_loading",
	    loading_json(&dv->rows, &xfers, &ingest, suites, gbps, cores));
	rows_free(&ingest);
	rows_free(&xfers);
	return d;
}

/* The best result of suite on one device (by the result's direction of
 * better), or NULL. */
static const row_t *best_of(const struct rec_device *d, const char *suite)
{
	const row_t *mine = NULL;
	for (size_t i = 0; i < d->rows.n; i++) {
		const row_t *r = d->rows.v[i];
		if (is_suite(r, suite) &&
		    (!mine || (r->higher_is_better ? median(r) > median(mine)
						   : median(r) < median(mine))))
			mine = r;
	}
	return mine;
}

/* The device with the best stored figure of one suite. */
static json_t *workload_json(const struct rec_devices *devs, const char *suite)
{
	const row_t *best = NULL;
	const struct rec_device *best_dev = NULL;
	json_t *all = json_array();
	for (size_t d = 0; d < devs->n; d++) {
		const row_t *mine = best_of(&devs->v[d], suite);
		if (!mine)
			continue;
		json_array_append_new(all, cite(mine));
		if (!best || median(mine) > median(best))
			best = mine, best_dev = &devs->v[d];
	}
	if (!best) {
		json_decref(all);
		char why[128];
		snprintf(why, sizeof(why),
			 "no %s results stored; run axbench "
			 "run %s",
			 suite, suite);
		return unmeasured(why);
	}
	json_t *basis = json_pack("{s:s, s:o}", "rule",
				  "the device with the best stored figure "
				  "(best result per device)",
				  "candidates", all);
	return setting(json_string(best_dev->key), basis,
		       devs->n > 1 ? "medium" : "high",
		       devs->n > 1 ? "devices may have been measured at "
				     "different shapes"
				   : NULL);
}

/* The device of fingerprint fp in devs, added (in the order results
 * first name them) when new; NULL when out of memory. */
static struct rec_device *device_of(struct rec_devices *devs, const row_t *r)
{
	for (size_t i = 0; i < devs->n; i++)
		if (!strcmp(devs->v[i].dev->fingerprint, r->device.fingerprint))
			return &devs->v[i];
	struct rec_device *v = realloc(devs->v, (devs->n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	devs->v = v;
	struct rec_device *d = &v[devs->n++];
	memset(d, 0, sizeof(*d));
	d->dev = &r->device;
	device_key(d->dev, d->key, sizeof(d->key));
	return d;
}

/* Results that count ("ok" with a number), per device fingerprint. */
static int ok_by_device(const struct ax_db_results *results,
			struct rec_devices *devs)
{
	for (size_t i = 0; i < results->n; i++) {
		const row_t *r = results->v[i];
		if (!r->ok || !r->device.fingerprint || !isfinite(r->median))
			continue;
		struct rec_device *d = device_of(devs, r);
		if (!d || !rows_add(&d->rows, r))
			return AX_ENOMEM;
	}
	return 0;
}

/* Identical devices (two lavapipe manifests: one UUID, no PCI bus id)
 * would share a key: those are named by their fingerprints, which core/vk
 * keeps apart (twins). */
static void unique_keys(struct rec_devices *devs)
{
	bool *shared = calloc(devs->n + 1, sizeof(*shared));
	if (!shared)
		return;
	for (size_t i = 0; i < devs->n; i++)
		for (size_t j = 0; j < devs->n; j++)
			shared[i] |=
			    j != i && !strcmp(devs->v[i].key, devs->v[j].key);
	for (size_t i = 0; i < devs->n; i++)
		if (shared[i])
			snprintf(devs->v[i].key, sizeof(devs->v[i].key),
				 "fingerprint:%s", devs->v[i].dev->fingerprint);
	free(shared);
}

static void devices_free(struct rec_devices *devs)
{
	for (size_t i = 0; i < devs->n; i++)
		rows_free(&devs->v[i].rows);
	free(devs->v);
}

/* The locality localities gives the device (an object keyed by
 * fingerprint), or NULL. */
static const json_t *locality_of(const json_t *localities,
				 const struct rec_device *d)
{
	json_t *loc = NULL;
	json_unpack((json_t *)localities, "{s?o}", d->dev->fingerprint, &loc);
	return loc;
}

/* The document's devices and workloads from devs. */
static json_t *document(const struct rec_devices *devs,
			const struct ax_suite_doc *suites, const json_t *host,
			const json_t *localities, const char *generator)
{
	json_t *devices = json_array(), *work = json_object();
	json_t *name = NULL, *cores = NULL, *cpuset = NULL;
	for (size_t i = 0; i < devs->n; i++)
		json_array_append_new(
		    devices,
		    device_json(&devs->v[i],
				locality_of(localities, &devs->v[i]), suites));
	/* One placement per workload class, in the suite table's order. */
	for (int i = 0; suites && i < suites->n; i++)
		if (suites->v[i].roles & AX_ROLE_WORKLOAD)
			json_object_set_new(
			    work, suites->v[i].name,
			    workload_json(devs, suites->v[i].name));
	json_unpack((json_t *)host, "{s?o, s?o, s?o}", "hostname", &name,
		    "cores", &cores, "cpuset", &cpuset);
	return json_pack("{s:s, s:s, s:{s:O?, s:O?, s:O?}, s:o, s:o}", "schema",
			 AX_RECOMMEND_SCHEMA, "generated_by",
			 generator ? generator : "axbench", "host", "hostname",
			 name, "cores", cores, "cpuset", cpuset, "devices",
			 devices, "workloads", work);
}

int ax_recommend_build(const struct ax_db_results *results,
		       const struct ax_suite_doc *suites, const json_t *host,
		       const json_t *localities, const char *generator,
		       json_t **out, char *err, size_t errlen)
{
	*out = NULL;
	if (!results)
		return ax_errf(err, errlen, AX_EINVAL,
			       "recommend: no results were given");
	struct rec_devices devs = {0};
	int rc = ok_by_device(results, &devs);
	if (!rc)
		unique_keys(&devs);
	if (!rc)
		*out = document(&devs, suites, host, localities, generator);
	devices_free(&devs);
	if (rc)
		return ax_errf(err, errlen, rc, "recommend: out of memory");
	return *out ? 0 : AX_ENOMEM;
}

/* ---- views ------------------------------------------------------------- */

/* One setting of the document as a view shows it: its value (NULL where
 * the document has none) and the reason it gives. */
struct shown {
	const char *name;
	const json_t *value;
	const char *reason;
};

/* What the views show of one device of the document they describe. */
struct dev_view {
	const char *name, *key, *vendor, *type, *uuid, *mesa;
	struct shown numa_node, cpuset, local_cores;
	struct shown batch_size, loader_threads, pinned_memory, prefetch_depth,
	    read_chunk, io_mode;
	const char *verdict, *advice, *storage_reason; /* storage note */
};

static struct shown shown_of(const json_t *group, const char *name)
{
	json_t *s = NULL, *value = NULL, *reason = NULL;
	json_unpack((json_t *)group, "{s?o}", name, &s);
	json_unpack(s, "{s?o, s?o}", "value", &value, "reason", &reason);
	return (struct shown){name, value, json_string_value(reason)};
}

/* The view of dev, an entry of the document's devices ("{s?o}": a key
 * that is missing or of another type leaves NULL). */
static void view_of(const json_t *dev, struct dev_view *v)
{
	json_t *name = NULL, *key = NULL, *vendor = NULL, *type = NULL,
	       *uuid = NULL, *mesa = NULL, *loc = NULL, *dl = NULL, *st = NULL,
	       *verdict = NULL, *advice = NULL, *reason = NULL;
	json_unpack((json_t *)dev, "{s?o, s?o, s?o, s?o, s?o, s?o, s?o, s?o}",
		    "name", &name, "key", &key, "vendor", &vendor, "type",
		    &type, "device_uuid", &uuid, "mesa_device_select", &mesa,
		    "locality", &loc, "data_loading", &dl);
	json_unpack(dl, "{s?o}", "storage", &st);
	json_unpack(st, "{s?o, s?o, s?o}", "verdict", &verdict, "advice",
		    &advice, "reason", &reason);
	*v = (struct dev_view){
	    .name = json_string_value(name),
	    .key = json_string_value(key),
	    .vendor = json_string_value(vendor),
	    .type = json_string_value(type),
	    .uuid = json_string_value(uuid),
	    .mesa = json_string_value(mesa),
	    .numa_node = shown_of(loc, "numa_node"),
	    .cpuset = shown_of(loc, "cpuset"),
	    .local_cores = shown_of(loc, "local_cores"),
	    .batch_size = shown_of(dl, "batch_size"),
	    .loader_threads = shown_of(dl, "loader_threads"),
	    .pinned_memory = shown_of(dl, "pinned_memory"),
	    .prefetch_depth = shown_of(dl, "prefetch_depth"),
	    .read_chunk = shown_of(dl, "read_chunk"),
	    .io_mode = shown_of(dl, "io_mode"),
	    .verdict = json_string_value(verdict),
	    .advice = json_string_value(advice),
	    .storage_reason = json_string_value(reason),
	};
}

/* "# name: not known (reason)" for a null setting. */
static void why_null(FILE *out, const char *lead, const struct shown *s)
{
	fprintf(out, "%s %s: not set (%s)\n", lead, s->name,
		s->reason ? s->reason : "not measured");
}

/* A value safe to export unquoted: letters, digits and '_' only. */
static bool plain_word(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* The read size and I/O mode of the fastest ingest result, for a loader
 * of one's own to read (axbench sets nothing with them). */
static void write_loader_env(FILE *out, const struct dev_view *d)
{
	const json_t *chunk = d->read_chunk.value, *io = d->io_mode.value;
	if (json_is_integer(chunk))
		fprintf(out, "export AXBENCH_READ_CHUNK=%lld\n",
			(long long)json_integer_value(chunk));
	else
		why_null(out, "#", &d->read_chunk);
	if (plain_word(json_string_value(io)))
		fprintf(out, "export AXBENCH_IO_MODE=%s\n",
			json_string_value(io));
	else
		why_null(out, "#", &d->io_mode);
}

static void write_env(FILE *out, const struct dev_view *d)
{
	const json_t *cores = d->local_cores.value;
	fprintf(out, "# axbench recommend for %s (%s)\n", d->name, d->key);
	if (d->mesa)
		fprintf(out, "export MESA_VK_DEVICE_SELECT=%s\n", d->mesa);
	else
		fprintf(out, "# MESA_VK_DEVICE_SELECT: no vendor/device ids "
			     "stored for this device\n");
	if (d->vendor && strstr(d->vendor, "NVIDIA") && d->uuid)
		fprintf(out, "export CUDA_VISIBLE_DEVICES=GPU-%s\n", d->uuid);
	if (json_is_integer(cores) && json_integer_value(cores) > 0) {
		fprintf(out, "export OMP_NUM_THREADS=%lld\n",
			(long long)json_integer_value(cores));
		fprintf(out, "export OMP_PLACES=cores\n");
		fprintf(out, "export OMP_PROC_BIND=close\n");
	} else {
		why_null(out, "#", &d->local_cores);
	}
	write_loader_env(out, d);
}

static void write_numactl(FILE *out, const struct dev_view *d)
{
	const json_t *node = d->numa_node.value, *cpus = d->cpuset.value;
	if (json_is_integer(node))
		fprintf(out, "numactl --cpunodebind=%lld --membind=%lld\n",
			(long long)json_integer_value(node),
			(long long)json_integer_value(node));
	else if (json_is_string(cpus))
		fprintf(out, "numactl --physcpubind=%s --localalloc\n",
			json_string_value(cpus));
	else
		why_null(out, "#", &d->cpuset);
}

static void write_slurm(FILE *out, const struct dev_view *d)
{
	const json_t *cores = d->local_cores.value;
	/* Vulkan's device types: integrated-gpu, discrete-gpu, virtual-gpu,
	 * cpu, other.  Only a GPU is a GPU Slurm can schedule; a CPU device
	 * (lavapipe) is the node itself, as `fleet slurm` says too. */
	if (d->type && strstr(d->type, "gpu"))
		fprintf(out, "#SBATCH --gpus-per-task=1\n"
			     "#SBATCH --gpu-bind=closest\n");
	else
		fprintf(out,
			"# no GPU requested: the device is a %s, the "
			"node itself\n#SBATCH --exclusive\n",
			d->type ? d->type : "device of unknown type");
	fprintf(out, "#SBATCH --cpu-bind=cores\n");
	if (json_is_integer(cores) && json_integer_value(cores) > 0)
		fprintf(out, "#SBATCH --cpus-per-task=%lld\n",
			(long long)json_integer_value(cores));
	else
		why_null(out, "#", &d->local_cores);
}

/* "0-2,5" -> "0, 1, 2, 5" for a Python list. */
static void cpu_list(FILE *out, const char *set)
{
	const char *p = set;
	bool first = true;
	while (p && *p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		if (end == p)
			break;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (long c = lo; c <= hi && c - lo < 4096; c++)
			fprintf(out, "%s%ld", first ? "" : ", ", c),
			    first = false;
		p = *end == ',' ? end + 1 : NULL;
	}
}

static void torch_kw(FILE *out, const struct shown *s, const char *kw)
{
	const json_t *v = s->value;
	if (json_is_integer(v))
		fprintf(out, "    %s=%lld,\n", kw,
			(long long)json_integer_value(v));
	else if (json_is_boolean(v))
		fprintf(out, "    %s=%s,\n", kw,
			json_is_true(v) ? "True" : "False");
	else
		why_null(out, "    #", s);
}

/* "# lead: text" on one line: control characters become spaces, so that
 * stored text cannot end the comment. */
static void comment(FILE *out, const char *lead, const char *text)
{
	fprintf(out, "# %s: ", lead);
	for (const char *p = text; *p; p++)
		fputc(iscntrl((unsigned char)*p) ? ' ' : *p, out);
	fputc('\n', out);
}

/* What the ingest suite found, below the kwargs: the read size and mode
 * for the Dataset's own reads, and the storage verdict. */
static void torch_storage(FILE *out, const struct dev_view *d)
{
	const json_t *chunk = d->read_chunk.value, *io = d->io_mode.value;
	if (json_is_integer(chunk))
		fprintf(out, "# read_chunk: %lld bytes per read\n",
			(long long)json_integer_value(chunk));
	else
		why_null(out, "#", &d->read_chunk);
	if (json_is_string(io))
		comment(out, "io_mode", json_string_value(io));
	else
		why_null(out, "#", &d->io_mode);
	if (d->verdict)
		comment(out, "storage", d->verdict);
	if (d->advice)
		comment(out, "advice", d->advice);
	if (d->storage_reason)
		comment(out, "storage", d->storage_reason);
}

static void write_torch(FILE *out, const struct dev_view *d)
{
	const json_t *cpus = d->cpuset.value;
	fprintf(out,
		"# axbench recommend: DataLoader settings for %s (%s)\n"
		"import os\n\n",
		d->name, d->key);
	if (json_is_string(cpus)) {
		fprintf(out, "LOCAL_CPUS = [");
		cpu_list(out, json_string_value(cpus));
		fprintf(out, "]\n\n\ndef worker_init_fn(worker_id):\n"
			     "    os.sched_setaffinity(0, LOCAL_CPUS)\n\n\n");
	} else {
		fprintf(out, "worker_init_fn = None  # no local CPU set known\n"
			     "\n\n");
	}
	fprintf(out, "dataloader_kwargs = dict(\n");
	torch_kw(out, &d->batch_size, "batch_size");
	torch_kw(out, &d->loader_threads, "num_workers");
	torch_kw(out, &d->pinned_memory, "pin_memory");
	torch_kw(out, &d->prefetch_depth, "prefetch_factor");
	fprintf(out, "    worker_init_fn=worker_init_fn,\n)\n");
	torch_storage(out, d);
}

static int write_yaml(FILE *out, const json_t *doc)
{
	return ax_config_emit_yaml(doc, out);
}

static int write_json(FILE *out, const json_t *doc)
{
	int rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	return rc || ferror(out) ? AX_EIO : 0;
}

/* The views of one device: the document's first. */
static int device_view(FILE *out, const json_t *doc,
		       void (*fn)(FILE *, const struct dev_view *))
{
	json_t *devices = NULL;
	json_unpack((json_t *)doc, "{s?o}", "devices", &devices);
	const json_t *dev = json_array_get(devices, 0);
	struct dev_view v;
	if (!dev) {
		fprintf(out, "# no device has stored results\n");
	} else {
		view_of(dev, &v);
		fn(out, &v);
	}
	return ferror(out) ? AX_EIO : 0;
}

static int view_env(FILE *out, const json_t *doc)
{
	return device_view(out, doc, write_env);
}

static int view_numactl(FILE *out, const json_t *doc)
{
	return device_view(out, doc, write_numactl);
}

static int view_slurm(FILE *out, const json_t *doc)
{
	return device_view(out, doc, write_slurm);
}

static int view_torch(FILE *out, const json_t *doc)
{
	return device_view(out, doc, write_torch);
}

/* Every format, once: the names the command line accepts come from
 * here (ax_recommend_formats). */
static const struct {
	const char *name;
	int (*write)(FILE *, const json_t *);
} formats[] = {
    {"yaml", write_yaml},      {"json", write_json},  {"env", view_env},
    {"numactl", view_numactl}, {"slurm", view_slurm}, {"torch", view_torch},
};
#define N_FORMATS (sizeof(formats) / sizeof(formats[0]))

const char *const *ax_recommend_formats(void)
{
	static const char *names[N_FORMATS + 1];
	for (size_t i = 0; i < N_FORMATS; i++)
		names[i] = formats[i].name;
	return names;
}

int ax_recommend_write(const json_t *doc, const char *format, FILE *out,
		       char *err, size_t errlen)
{
	for (size_t i = 0; i < N_FORMATS; i++)
		if (!strcmp(format, formats[i].name))
			return formats[i].write(out, doc);
	char known[128];
	ax_join_names(ax_recommend_formats(), known, sizeof(known));
	return ax_errf(err, errlen, AX_EINVAL, "unknown format '%s'; use %s",
		       format, known);
}
