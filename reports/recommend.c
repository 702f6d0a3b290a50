/*
 * reports/recommend.c - placement and data-loading settings from stored
 * results (rules in reports/recommend.h), and the shell / numactl /
 * Slurm / PyTorch views of them.
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

/* The transfer parameters of a result of a transfer-role suite, through
 * the role's contract (core/params.h: ax_role_point). */
static struct ax_transfer_point xp(const json_t *r)
{
	struct ax_transfer_point x;
	ax_role_point(AX_ROLE_TRANSFER, json_object_get(r, "params"), &x);
	return x;
}

static bool is_suite(const json_t *r, const char *suite)
{
	const char *s = str_of(r, "suite");
	return s && !strcmp(s, suite);
}

/* ---- upload path and chunk size --------------------------------------- */

struct xpoint {
	json_int_t x; /* chunk, inflight or batch */
	const json_t *r;
};

struct series {
	char key[1024];
	struct xpoint p[MAX_POINTS];
	int n;
	const json_t *peak;
};

/* Add r at x to the series called key; a repeated x keeps the newest. */
static void series_add(struct series *s, int *n, const char *key, json_int_t x,
		       const json_t *r)
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
	json_int_t x = ((const struct xpoint *)a)->x;
	json_int_t y = ((const struct xpoint *)b)->x;
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
static bool is_h2d_ok(const json_t *r)
{
	const char *dir = xp(r).direction;
	const char *unit = str_of(r, "unit");
	return dir && !strcmp(dir, "h2d") && unit && !strcmp(unit, "GB/s") &&
	       median(r) > 0;
}

/* The h2d chunk sweeps, one series per path/source/inflight/total. */
static int chunk_series(const json_t *rs, struct series *s)
{
	int n = 0;
	size_t i;
	json_t *r;
	json_array_foreach(rs, i, r)
	{
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

static double perf_per_w(const json_t *r)
{
	const json_t *v =
	    json_object_get(json_object_get(r, "power"), "perf_per_w");
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/*
 * The power-aware note of a sweep (issue 13): the point with the best
 * perf/W beside the fastest one, where the device's sensor measured them;
 * else why there is none (the stored reason of the first point).  The
 * chosen value stays the throughput rule's: this says what a user who
 * pays for power would pick instead.
 */
static json_t *power_note(const struct series *s, const char *what)
{
	const struct xpoint *eff = NULL;
	for (int i = 0; i < s->n; i++)
		if (perf_per_w(s->p[i].r) > 0 &&
		    (!eff || perf_per_w(s->p[i].r) > perf_per_w(eff->r)))
			eff = &s->p[i];
	if (!eff) {
		const json_t *pw =
		    s->n ? json_object_get(s->p[0].r, "power") : NULL;
		const char *why = str_of(pw, "reason");
		return json_pack("{s:s}", "note",
				 why ? why
				     : "no power figures stored with these "
				       "results (measured before telemetry, or "
				       "without a sensor)");
	}
	const json_t *pu = json_object_get(json_object_get(eff->r, "power"),
					   "perf_per_w_unit");
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
	return json_pack("{s:s, s:I, s:f, s:O?, s:o, s:o, s:o}", "note", note,
			 "best_perf_per_w_at", (json_int_t)eff->x,
			 "best_perf_per_w", perf_per_w(eff->r), "unit", pu,
			 "fastest_perf_per_w",
			 isfinite(fast) ? json_real(fast) : json_null(),
			 "efficient", cite(eff->r), "fastest", cite(s->peak));
}

static json_t *chunk_setting(const struct series *s)
{
	const struct xpoint *k = knee(s, CHUNK_FRACTION);
	double fit90;
	json_t *fit = chunk_fit(s, &fit90), *sweep = json_array();
	for (int i = 0; i < s->n; i++)
		json_array_append_new(
		    sweep,
		    json_pack("{s:I, s:O, s:O}", "chunk", (json_int_t)s->p[i].x,
			      "result_id", json_object_get(s->p[i].r, "id"),
			      "value", json_object_get(s->p[i].r, "median")));
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

/* The queue and memory the peak of the path used (suite's extra). */
static void path_facts(json_t *up, const json_t *peak)
{
	json_t *extra = json_object_get(peak, "extra");
	json_t *basis = json_pack("{s:s, s:o}", "rule",
				  "what the transfer suite recorded for the "
				  "path's peak",
				  "result", cite(peak));
	json_t *q = json_object_get(extra, "queue");
	json_t *mem =
	    json_object_get(json_object_get(extra, "memory"), "device");
	json_object_set_new(up, "queue",
			    q ? setting(json_incref(q), json_deep_copy(basis),
					"high", str_of(extra, "reason"))
			      : unmeasured("the transfer result records no "
					   "queue"));
	json_object_set_new(
	    up, "memory_type",
	    mem ? setting(json_incref(mem), json_deep_copy(basis), "high", NULL)
		: unmeasured("the transfer result records no "
			     "memory type"));
	json_decref(basis);
}

/* Buffers in flight: the inflight sweep with the most points. */
static json_t *inflight_setting(const json_t *rs)
{
	static struct series s[MAX_PATHS];
	int n = 0, best = -1;
	size_t i;
	json_t *r;
	json_array_foreach(rs, i, r)
	{
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

/* Pinned gain: pairs that differ only in source; the fastest pinned. */
static json_t *pinned_setting(const json_t *rs)
{
	const json_t *pin = NULL, *page = NULL;
	size_t i, j;
	json_t *a, *b;
	json_array_foreach(rs, i, a)
	{
		struct ax_transfer_point xa = xp(a);
		if (!is_h2d_ok(a) || !xa.source || strcmp(xa.source, "pinned"))
			continue;
		json_array_foreach(rs, j, b)
		{
			struct ax_transfer_point xb = xp(b);
			if (!is_h2d_ok(b) || !xb.source ||
			    strcmp(xb.source, "pageable") ||
			    xa.chunk != xb.chunk ||
			    xa.inflight != xb.inflight ||
			    xa.total != xb.total || strcmp(xa.path, xb.path))
				continue;
			if (!pin || median(a) > median(pin))
				pin = a, page = b;
		}
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
static json_t *upload_json(const json_t *rs, double *gbps)
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
		const json_t *pk = s[best].peak;
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
 * result (extra.input_bytes). */
static double batch_bytes(const json_t *r)
{
	return json_number_value(
	    json_object_get(json_object_get(r, "extra"), "input_bytes"));
}

/* Batch sweeps of the suites that declare a batch parameter (conv's n,
 * attention's batch): the longest wins. */
static int batch_sweep(const json_t *rs, const json_t *suites,
		       struct series *best)
{
	static struct series s[MAX_PATHS];
	int n = 0, pick = -1;
	size_t i;
	json_t *r;
	json_array_foreach(rs, i, r)
	{
		const char *bp = json_string_value(ax_suite_doc_get(
		    suites, str_of(r, "suite"), "batch_param"));
		if (!bp || median(r) <= 0)
			continue;
		json_t *rest = json_deep_copy(json_object_get(r, "params"));
		json_object_del(rest, bp);
		char *key = json_dumps(rest, JSON_SORT_KEYS | JSON_COMPACT);
		char full[1024];
		snprintf(full, sizeof(full), "%s|%s", str_of(r, "suite"),
			 key ? key : "");
		free(key);
		json_decref(rest);
		/* The batch parameter is data (the suite document names
		 * it), so it is the one looked up by name. */
		series_add(s, &n, full,
			   json_integer_value(json_object_get(
			       json_object_get(r, "params"), bp)),
			   r);
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

static json_t *batch_setting(const struct series *s, const json_t **at)
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

/* Little's law from one batch's step time and its upload time. */
static void loader_settings(json_t *dl, const json_t *step, double gbps,
			    json_int_t cores)
{
	const char *unit = str_of(step, "unit");
	double work = json_number_value(json_object_get(step, "work"));
	if (!unit || strcmp(unit, "GFLOP/s") || !(work > 0) || !(gbps > 0)) {
		const char *why = gbps > 0 ? "the batch result has no work "
					     "in GFLOP to time a step"
					   : "no host-to-device bandwidth "
					     "measured to time an upload";
		json_object_set_new(dl, "loader_threads", unmeasured(why));
		json_object_set_new(dl, "prefetch_depth", unmeasured(why));
		return;
	}
	double step_s = work / (median(step) * 1e9);
	if (!(batch_bytes(step) > 0)) {
		const char *why = "the batch result states no input bytes "
				  "(extra.input_bytes) to time an upload";
		json_object_set_new(dl, "loader_threads", unmeasured(why));
		json_object_set_new(dl, "prefetch_depth", unmeasured(why));
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
static void transfer_loader(json_t *dl, const json_t *at, double gbps,
			    json_int_t cores)
{
	if (at) {
		loader_settings(dl, at, gbps, cores);
		return;
	}
	const char *why = "no ingest results and no batch sweep measured; "
			  "run axbench run ingest -p readers=1,2,4 (or conv "
			  "with -p n=1,2,4,8,16 for Little's law)";
	json_object_set_new(dl, "loader_threads", unmeasured(why));
	json_object_set_new(dl, "prefetch_depth", unmeasured(why));
}

/* Ingest results first (they measure storage -> device loading itself);
 * the transfer rules only where a device has none. */
static json_t *loading_json(const json_t *rs, const json_t *xfers,
			    const json_t *ingest, const json_t *suites,
			    double gbps, json_int_t cores)
{
	static struct series s;
	json_t *dl = json_object();
	const json_t *at = NULL;
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

static json_t *locality_json(const json_t *loc, const json_t *host,
			     json_int_t *cores)
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
	const char *conf = str_of(loc, "confidence");
	const char *reason = str_of(loc, "reason");
	if (reason && !*reason)
		reason = NULL;
	json_t *basis =
	    json_pack("{s:s, s:O?}", "rule",
		      "hwloc locality of "
		      "the device's PCI bus id",
		      "pci_bus_id", json_object_get(loc, "pci_bus_id"));
	json_int_t node = json_integer_value(json_object_get(loc, "numa_node"));
	*cores = json_integer_value(json_object_get(loc, "cores"));
	json_object_set_new(o, "numa_node",
			    node >= 0
				? setting(json_integer(node),
					  json_deep_copy(basis), conf, reason)
				: unmeasured(reason ? reason : "no NUMA node"));
	json_object_set_new(o, "cpuset",
			    setting(json_incref(json_object_get(loc, "cpuset")),
				    json_deep_copy(basis), conf, reason));
	json_object_set_new(o, "local_cores",
			    setting(json_integer(*cores), basis, conf, reason));
	(void)host;
	return o;
}

static json_t *device_key(const json_t *dev)
{
	const char *bus = str_of(dev, "pci_bus_id");
	const char *uuid = str_of(dev, "device_uuid");
	char key[160];
	if (bus && *bus)
		snprintf(key, sizeof(key), "pci:%s", bus);
	else if (uuid && *uuid)
		snprintf(key, sizeof(key), "uuid:%s", uuid);
	else
		snprintf(key, sizeof(key), "fingerprint:%s",
			 str_of(dev, "fingerprint"));
	return json_string(key);
}

/* The results of rs whose suite has the role (new array). */
static json_t *with_role(const json_t *rs, const json_t *suites,
			 enum ax_role role)
{
	json_t *out = json_array();
	size_t i;
	json_t *r;
	json_array_foreach(rs, i, r)
	{
		if (ax_suite_doc_result_has_role(suites, r, role))
			json_array_append(out, r);
	}
	return out;
}

static json_t *device_json(const json_t *dev, const json_t *rs,
			   const json_t *loc, const json_t *host,
			   const json_t *suites)
{
	json_int_t cores;
	double gbps;
	json_t *d = json_pack("{s:o, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?}",
			      "key", device_key(dev), "fingerprint",
			      json_object_get(dev, "fingerprint"), "name",
			      json_object_get(dev, "name"), "vendor",
			      json_object_get(dev, "vendor"), "type",
			      json_object_get(dev, "type"), "pci_bus_id",
			      json_object_get(dev, "pci_bus_id"), "device_uuid",
			      json_object_get(dev, "device_uuid"));
	/* Mesa's device-select layer names a device by its PCI ids. */
	json_t *vid = json_object_get(dev, "vendor_id");
	json_t *did = json_object_get(dev, "device_id");
	if (json_is_integer(vid) && json_is_integer(did)) {
		char sel[32];
		snprintf(sel, sizeof(sel), "%llx:%llx",
			 (unsigned long long)json_integer_value(vid),
			 (unsigned long long)json_integer_value(did));
		json_object_set_new(d, "mesa_device_select", json_string(sel));
	}
	json_object_set_new(d, "locality", locality_json(loc, host, &cores));
	json_t *xfers = with_role(rs, suites, AX_ROLE_TRANSFER);
	json_t *ingest = with_role(rs, suites, AX_ROLE_INGEST);
	json_object_set_new(d, "upload", upload_json(xfers, &gbps));
	json_object_set_new(
	    d, "data_loading",
	    loading_json(rs, xfers, ingest, suites, gbps, cores));
	json_decref(ingest);
	json_decref(xfers);
	return d;
}

/* The device with the best stored figure of one suite. */
static json_t *workload_json(const json_t *by_dev, const json_t *devices,
			     const char *suite)
{
	const json_t *best = NULL, *best_dev = NULL;
	json_t *all = json_array();
	size_t d;
	json_t *dev;
	json_array_foreach(devices, d, dev)
	{
		const json_t *mine = NULL;
		size_t i;
		json_t *r;
		json_array_foreach(
		    json_object_get(by_dev, str_of(dev, "fingerprint")), i, r)
		{
			bool hib = json_is_true(
			    json_object_get(r, "higher_is_better"));
			if (is_suite(r, suite) &&
			    (!mine || (hib ? median(r) > median(mine)
					   : median(r) < median(mine))))
				mine = r;
		}
		if (!mine)
			continue;
		json_array_append_new(all, cite(mine));
		if (!best || median(mine) > median(best))
			best = mine, best_dev = dev;
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
	return setting(json_incref(json_object_get(best_dev, "key")), basis,
		       json_array_size(devices) > 1 ? "medium" : "high",
		       json_array_size(devices) > 1
			   ? "devices may have been measured at "
			     "different shapes"
			   : NULL);
}

/* Results that count ("ok" with a number), per device fingerprint. */
static json_t *ok_by_device(const json_t *results, json_t *devs)
{
	json_t *by = json_object();
	size_t i;
	json_t *r;
	json_array_foreach(results, i, r)
	{
		const char *st = str_of(r, "status");
		json_t *dev = json_object_get(r, "device");
		const char *fp = str_of(dev, "fingerprint");
		if (!st || strcmp(st, "ok") || !fp ||
		    !json_is_number(json_object_get(r, "median")))
			continue;
		json_t *list = json_object_get(by, fp);
		if (!list) {
			list = json_array();
			json_object_set_new(by, fp, list);
			json_array_append(devs, dev);
		}
		json_array_append(list, r);
	}
	return by;
}

int ax_recommend_build(const json_t *results, const json_t *suites,
		       const json_t *host, const json_t *localities,
		       const char *generator, json_t **out, char *err,
		       size_t errlen)
{
	*out = NULL;
	if (!json_is_array(results))
		return ax_errf(err, errlen, AX_EINVAL,
			       "recommend: results must be a JSON array");
	json_t *devs = json_array(), *devices = json_array();
	json_t *by = ok_by_device(results, devs), *work = json_object();
	size_t i;
	json_t *dev;
	json_array_foreach(devs, i, dev)
	{
		const char *fp = str_of(dev, "fingerprint");
		json_array_append_new(
		    devices,
		    device_json(dev, json_object_get(by, fp),
				json_object_get(localities, fp), host, suites));
	}
	/* One placement per workload class, in the suite table's order. */
	const char *suite;
	const json_t *entry;
	json_object_foreach(
	    (json_t *)suites, suite,
	    entry) if (ax_suite_doc_has_role(suites, suite, AX_ROLE_WORKLOAD))
	    json_object_set_new(work, suite, workload_json(by, devices, suite));
	*out = json_pack("{s:s, s:s, s:{s:O?, s:O?, s:O?}, s:o, s:o}", "schema",
			 AX_RECOMMEND_SCHEMA, "generated_by",
			 generator ? generator : "axbench", "host", "hostname",
			 json_object_get(host, "hostname"), "cores",
			 json_object_get(host, "cores"), "cpuset",
			 json_object_get(host, "cpuset"), "devices", devices,
			 "workloads", work);
	json_decref(by);
	json_decref(devs);
	return *out ? 0 : AX_ENOMEM;
}

/* ---- views ------------------------------------------------------------- */

static const json_t *item(const json_t *dev, const char *group,
			  const char *name)
{
	return json_object_get(
	    json_object_get(json_object_get(dev, group), name), "value");
}

/* "# name: not known (reason)" for a null setting. */
static void why_null(FILE *out, const char *lead, const json_t *dev,
		     const char *group, const char *name)
{
	const json_t *s = json_object_get(json_object_get(dev, group), name);
	fprintf(out, "%s %s: not set (%s)\n", lead, name,
		str_of(s, "reason") ? str_of(s, "reason") : "not measured");
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
static void write_loader_env(FILE *out, const json_t *dev)
{
	const json_t *chunk = item(dev, "data_loading", "read_chunk");
	const json_t *io = item(dev, "data_loading", "io_mode");
	if (json_is_integer(chunk))
		fprintf(out, "export AXBENCH_READ_CHUNK=%lld\n",
			(long long)json_integer_value(chunk));
	else
		why_null(out, "#", dev, "data_loading", "read_chunk");
	if (plain_word(json_string_value(io)))
		fprintf(out, "export AXBENCH_IO_MODE=%s\n",
			json_string_value(io));
	else
		why_null(out, "#", dev, "data_loading", "io_mode");
}

static void write_env(FILE *out, const json_t *dev)
{
	const char *vendor = str_of(dev, "vendor");
	const char *uuid = str_of(dev, "device_uuid");
	const json_t *cores = item(dev, "locality", "local_cores");
	fprintf(out, "# axbench recommend for %s (%s)\n", str_of(dev, "name"),
		str_of(dev, "key"));
	const char *sel = str_of(dev, "mesa_device_select");
	if (sel)
		fprintf(out, "export MESA_VK_DEVICE_SELECT=%s\n", sel);
	else
		fprintf(out, "# MESA_VK_DEVICE_SELECT: no vendor/device ids "
			     "stored for this device\n");
	if (vendor && strstr(vendor, "NVIDIA") && uuid)
		fprintf(out, "export CUDA_VISIBLE_DEVICES=GPU-%s\n", uuid);
	if (json_is_integer(cores) && json_integer_value(cores) > 0) {
		fprintf(out, "export OMP_NUM_THREADS=%lld\n",
			(long long)json_integer_value(cores));
		fprintf(out, "export OMP_PLACES=cores\n");
		fprintf(out, "export OMP_PROC_BIND=close\n");
	} else {
		why_null(out, "#", dev, "locality", "local_cores");
	}
	write_loader_env(out, dev);
}

static void write_numactl(FILE *out, const json_t *dev)
{
	const json_t *node = item(dev, "locality", "numa_node");
	const json_t *cpus = item(dev, "locality", "cpuset");
	if (json_is_integer(node))
		fprintf(out, "numactl --cpunodebind=%lld --membind=%lld\n",
			(long long)json_integer_value(node),
			(long long)json_integer_value(node));
	else if (json_is_string(cpus))
		fprintf(out, "numactl --physcpubind=%s --localalloc\n",
			json_string_value(cpus));
	else
		why_null(out, "#", dev, "locality", "cpuset");
}

static void write_slurm(FILE *out, const json_t *dev)
{
	const json_t *cores = item(dev, "locality", "local_cores");
	fprintf(out, "#SBATCH --gpus-per-task=1\n#SBATCH --gpu-bind=closest\n"
		     "#SBATCH --cpu-bind=cores\n");
	if (json_is_integer(cores) && json_integer_value(cores) > 0)
		fprintf(out, "#SBATCH --cpus-per-task=%lld\n",
			(long long)json_integer_value(cores));
	else
		why_null(out, "#", dev, "locality", "local_cores");
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

static void torch_kw(FILE *out, const json_t *dev, const char *name,
		     const char *kw)
{
	const json_t *v = item(dev, "data_loading", name);
	if (json_is_integer(v))
		fprintf(out, "    %s=%lld,\n", kw,
			(long long)json_integer_value(v));
	else if (json_is_boolean(v))
		fprintf(out, "    %s=%s,\n", kw,
			json_is_true(v) ? "True" : "False");
	else
		why_null(out, "    #", dev, "data_loading", name);
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
static void torch_storage(FILE *out, const json_t *dev)
{
	const json_t *dl = json_object_get(dev, "data_loading");
	const json_t *chunk = item(dev, "data_loading", "read_chunk");
	const json_t *io = item(dev, "data_loading", "io_mode");
	const json_t *st = json_object_get(dl, "storage");
	if (json_is_integer(chunk))
		fprintf(out, "# read_chunk: %lld bytes per read\n",
			(long long)json_integer_value(chunk));
	else
		why_null(out, "#", dev, "data_loading", "read_chunk");
	if (json_is_string(io))
		comment(out, "io_mode", json_string_value(io));
	else
		why_null(out, "#", dev, "data_loading", "io_mode");
	if (str_of(st, "verdict"))
		comment(out, "storage", str_of(st, "verdict"));
	if (str_of(st, "advice"))
		comment(out, "advice", str_of(st, "advice"));
	if (str_of(st, "reason"))
		comment(out, "storage", str_of(st, "reason"));
}

static void write_torch(FILE *out, const json_t *dev)
{
	const json_t *cpus = item(dev, "locality", "cpuset");
	fprintf(out,
		"# axbench recommend: DataLoader settings for %s (%s)\n"
		"import os\n\n",
		str_of(dev, "name"), str_of(dev, "key"));
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
	torch_kw(out, dev, "batch_size", "batch_size");
	torch_kw(out, dev, "loader_threads", "num_workers");
	torch_kw(out, dev, "pinned_memory", "pin_memory");
	torch_kw(out, dev, "prefetch_depth", "prefetch_factor");
	fprintf(out, "    worker_init_fn=worker_init_fn,\n)\n");
	torch_storage(out, dev);
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
		       void (*fn)(FILE *, const json_t *))
{
	const json_t *dev = json_array_get(json_object_get(doc, "devices"), 0);
	if (!dev)
		fprintf(out, "# no device has stored results\n");
	else
		fn(out, dev);
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
