/* tuner/replay.c - Kernel Tuner cache files as a replay objective. */
#include "tuner/replay.h"

#include "core/error.h"
#include "core/infile.h"
#include "tuner/pareto.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define MAX_VALUES 65536

/* path opened as core/infile.h opens user files (a FIFO or a device is
 * refused, never waited on), as a zlib stream. */
static gzFile open_landscape(const char *path, char *err, size_t errlen,
			     int *rc)
{
	struct stat st;
	int fd = ax_infile_open(path, "landscape file", &st, err, errlen);
	if (fd == AX_EIO)
		ax_errf(err, errlen, AX_EIO,
			"%s: cannot open; check the path (%s)", path,
			strerror(errno));
	if (fd < 0) {
		*rc = fd;
		return NULL;
	}
	gzFile f = gzdopen(fd, "rb");
	if (!f) {
		close(fd);
		*rc = AX_ENOMEM;
	}
	return f;
}

/* Read the whole file, gunzipping when it is gzip (gzread passes plain
 * files through), refusing more than AX_REPLAY_MAX_BYTES. */
static int read_all(const char *path, char **buf, size_t *len, char *err,
		    size_t errlen)
{
	int rc = 0;
	gzFile f = open_landscape(path, err, errlen, &rc);
	if (!f)
		return rc;
	size_t cap = 1 << 20, n = 0;
	char *b = malloc(cap + 1);
	rc = b ? 0 : AX_ENOMEM;
	while (!rc) {
		if (n == cap) {
			if (cap >= AX_REPLAY_MAX_BYTES) {
				rc = ax_errf(err, errlen, AX_EINVAL,
					     "%s: more than %u MiB of JSON; "
					     "not a landscape this tool "
					     "replays",
					     path, AX_REPLAY_MAX_BYTES >> 20);
				break;
			}
			cap *= 2;
			char *g = realloc(b, cap + 1);
			if (!g) {
				rc = AX_ENOMEM;
				break;
			}
			b = g;
		}
		int got = gzread(f, b + n, (unsigned)(cap - n));
		if (got < 0) {
			int zerr;
			const char *msg = gzerror(f, &zerr);
			rc = ax_errf(err, errlen, AX_EIO,
				     "%s: corrupt gzip data (%s)", path, msg);
		} else if (got == 0) {
			break;
		}
		n += got > 0 ? (size_t)got : 0;
	}
	gzclose(f);
	if (rc) {
		free(b);
		return rc;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

/* Python's json writes NaN / Infinity / -Infinity, which are not JSON.
 * Outside strings, turn each into a same-length string, which the loader
 * then treats as a failure marker. */
static void neutralise_nonfinite(char *s, size_t n)
{
	int in_str = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
			continue;
		}
		if (c == '"') {
			in_str = 1;
		} else if (c == 'N' && n - i >= 3 && !memcmp(s + i, "NaN", 3)) {
			memcpy(s + i, "\"N\"", 3);
			i += 2;
		} else if (c == '-' && n - i >= 9 &&
			   !memcmp(s + i, "-Infinity", 9)) {
			memcpy(s + i, "\"-Infini\"", 9);
			i += 8;
		} else if (c == 'I' && n - i >= 8 &&
			   !memcmp(s + i, "Infinity", 8)) {
			memcpy(s + i, "\"Infini\"", 8);
			i += 7;
		}
	}
}

struct loader {
	const char *path;
	int ndims;
	const char *names[AX_MAX_PARAMS];
	json_t *vals[AX_MAX_PARAMS]; /* tune_params arrays, borrowed */
	enum ax_dim_kind kinds[AX_MAX_PARAMS];
	char *err;
	size_t errlen;
};

static int load_keys(struct loader *ld, json_t *root)
{
	json_t *keys = json_object_get(root, "tune_params_keys");
	json_t *tp = json_object_get(root, "tune_params");
	if (!json_is_array(keys) || !json_is_object(tp))
		return ax_errf(ld->err, ld->errlen, AX_EINVAL,
			       "%s: not a Kernel Tuner cache file (needs "
			       "tune_params_keys and tune_params)",
			       ld->path);
	size_t nk = json_array_size(keys);
	if (nk == 0 || nk > AX_MAX_PARAMS)
		return ax_errf(ld->err, ld->errlen, AX_EINVAL,
			       "%s: %zu tune_params_keys; 1 to %d are "
			       "supported",
			       ld->path, nk, AX_MAX_PARAMS);
	for (size_t d = 0; d < nk; d++) {
		const char *name = json_string_value(json_array_get(keys, d));
		json_t *v = name ? json_object_get(tp, name) : NULL;
		size_t nv = json_array_size(v);
		if (!name || !json_is_array(v) || nv == 0 || nv > MAX_VALUES)
			return ax_errf(ld->err, ld->errlen, AX_EINVAL,
				       "%s: tune_params_keys[%zu] needs a "
				       "list of 1 to %d values in "
				       "tune_params",
				       ld->path, d, MAX_VALUES);
		for (size_t j = 0; j < d; j++)
			if (strcmp(ld->names[j], name) == 0)
				return ax_errf(ld->err, ld->errlen, AX_EINVAL,
					       "%s: parameter %s is listed "
					       "twice in tune_params_keys",
					       ld->path, name);
		int numeric = 1;
		for (size_t j = 0; j < nv; j++) {
			json_t *x = json_array_get(v, j);
			if (!json_is_number(x) ||
			    !isfinite(json_number_value(x)))
				numeric = 0;
		}
		ld->names[d] = name;
		ld->vals[d] = v;
		ld->kinds[d] = numeric ? AX_DIM_AUTO : AX_DIM_CATEGORICAL;
	}
	ld->ndims = (int)nk;
	return 0;
}

/* Index of x in the value list, or -1. */
static long value_index(json_t *list, json_t *x)
{
	size_t n = json_array_size(list);
	for (size_t j = 0; j < n; j++) {
		json_t *y = json_array_get(list, j);
		if (json_equal(x, y))
			return (long)j;
		if (json_is_number(x) && json_is_number(y) &&
		    json_number_value(x) == json_number_value(y))
			return (long)j;
	}
	return -1;
}

static double entry_time(json_t *e)
{
	json_t *t = json_object_get(e, "time");
	double v = json_is_number(t) ? json_number_value(t) : NAN;
	return isfinite(v) && v > 0 ? v : NAN;
}

/* Whether key names a figure of this kind: "energy", or an observer's
 * "<sensor>_energy" (Kernel Tuner's nvml_energy, ps_energy, ...). */
static int names_figure(const char *key, const char *kind)
{
	size_t n = strlen(key), k = strlen(kind);
	return !strcmp(key, kind) || (n > k + 1 && key[n - k - 1] == '_' &&
				      !strcmp(key + n - k, kind));
}

/* The energy of a successful entry in joules: an energy field, else a
 * power field (W) times its time (ms); NAN when it records neither. */
static double entry_energy(json_t *e, double time_ms)
{
	const char *key;
	json_t *v;
	double power = NAN;
	json_object_foreach(e, key, v)
	{
		if (!json_is_number(v))
			continue;
		double x = json_number_value(v);
		if (names_figure(key, "energy") && isfinite(x) && x > 0)
			return x;
		if (names_figure(key, "power") && isfinite(x) && x > 0 &&
		    isnan(power))
			power = x;
	}
	return power * time_ms * 1e-3;
}

static int load_entry(struct loader *ld, const char *key, json_t *e,
		      double *vals)
{
	if (!json_is_object(e))
		return ax_errf(ld->err, ld->errlen, AX_EINVAL,
			       "%s: cache entry \"%.64s\" is not an object",
			       ld->path, key);
	for (int d = 0; d < ld->ndims; d++) {
		json_t *x = json_object_get(e, ld->names[d]);
		long j = x ? value_index(ld->vals[d], x) : -1;
		if (j < 0)
			return ax_errf(ld->err, ld->errlen, AX_EINVAL,
				       "%s: cache entry \"%.64s\": %s is "
				       "missing or not one of its "
				       "tune_params values",
				       ld->path, key, ld->names[d]);
		vals[d] = ld->kinds[d] == AX_DIM_CATEGORICAL
			      ? (double)j
			      : json_number_value(x);
	}
	return 0;
}

static char *dup_string(json_t *root, const char *key)
{
	const char *s = json_string_value(json_object_get(root, key));
	return s ? strdup(s) : NULL;
}

static int build(struct loader *ld, json_t *root, struct ax_landscape *l)
{
	int rc = load_keys(ld, root);
	if (rc)
		return rc;
	json_t *cache = json_object_get(root, "cache");
	size_t n = json_object_size(cache);
	if (!json_is_object(cache) || n == 0)
		return ax_errf(ld->err, ld->errlen, AX_EINVAL,
			       "%s: \"cache\" must be a non-empty object",
			       ld->path);
	if (n > AX_REPLAY_MAX_ENTRIES)
		return ax_errf(ld->err, ld->errlen, AX_EINVAL,
			       "%s: %zu cache entries; at most %u are "
			       "supported",
			       ld->path, n, AX_REPLAY_MAX_ENTRIES);
	double *vals = malloc(n * ld->ndims * sizeof(double));
	l->cost = malloc(n * sizeof(double));
	l->energy = malloc(n * sizeof(double));
	if (!vals || !l->cost || !l->energy) {
		free(vals);
		return AX_ENOMEM;
	}
	size_t i = 0;
	const char *key;
	json_t *e;
	l->optimum = INFINITY;
	json_object_foreach(cache, key, e)
	{
		if ((rc = load_entry(ld, key, e, vals + i * ld->ndims)))
			break;
		l->cost[i] = entry_time(e);
		l->energy[i] =
		    isnan(l->cost[i]) ? NAN : entry_energy(e, l->cost[i]);
		l->n_energy += !isnan(l->energy[i]);
		if (isnan(l->cost[i]))
			l->nfailed++;
		else if (l->cost[i] < l->optimum)
			l->optimum = l->cost[i], l->opt_index = i;
		i++;
	}
	l->n = n;
	if (!rc && !isfinite(l->optimum))
		rc = ax_errf(ld->err, ld->errlen, AX_EINVAL,
			     "%s: none of the %zu configurations has a valid "
			     "time",
			     ld->path, n);
	if (!rc)
		rc = ax_space_create_points(&l->space, ld->ndims, ld->names,
					    ld->kinds, vals, n, ld->err,
					    ld->errlen);
	free(vals);
	return rc;
}

/* Line and column (1-based, as jansson counts) of the first character
 * of the top-level value: the first one that is not JSON whitespace. */
static void value_position(const char *buf, size_t len, int *line, int *column)
{
	*line = 1;
	*column = 1;
	for (size_t i = 0; i < len && strchr(" \t\r\n", buf[i]) && buf[i];
	     i++) {
		if (buf[i] == '\n') {
			++*line;
			*column = 1;
		} else {
			++*column;
		}
	}
}

/* "array", "string"... for a message about the wrong kind of value. */
static const char *json_typeof_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "object";
	case JSON_ARRAY:
		return "array";
	case JSON_STRING:
		return "string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "boolean";
	default:
		return "null";
	}
}

int ax_replay_load(const char *path, struct ax_landscape **out, char *err,
		   size_t errlen)
{
	*out = NULL;
	char *buf = NULL;
	size_t len = 0;
	int rc = read_all(path, &buf, &len, err, errlen);
	if (rc)
		return rc;
	neutralise_nonfinite(buf, len);
	json_error_t jerr;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	int line, column;
	value_position(buf, len, &line, &column);
	free(buf);
	if (!root)
		return ax_errf(err, errlen, AX_EINVAL,
			       "%s:%d:%d: not valid JSON: %s", path, jerr.line,
			       jerr.column, jerr.text);
	if (!json_is_object(root)) {
		/* jansson parsed it, so jerr says nothing: name where the
		 * value starts and what it is instead. */
		const char *kind = json_typeof_name(root);
		json_decref(root);
		return ax_errf(err, errlen, AX_EINVAL,
			       "%s:%d:%d: the top level is a JSON %s; a "
			       "landscape is one JSON object, a Kernel Tuner "
			       "cache file {\"tune_params_keys\": [...], "
			       "\"tune_params\": {...}, \"cache\": {...}}",
			       path, line, column, kind);
	}
	struct ax_landscape *l = calloc(1, sizeof(*l));
	if (!l) {
		json_decref(root);
		return AX_ENOMEM;
	}
	struct loader ld = {.path = path, .err = err, .errlen = errlen};
	rc = build(&ld, root, l);
	if (!rc) {
		l->kernel_name = dup_string(root, "kernel_name");
		l->device_name = dup_string(root, "device_name");
	}
	json_decref(root);
	if (rc) {
		ax_landscape_destroy(l);
		return rc;
	}
	*out = l;
	return 0;
}

void ax_landscape_destroy(struct ax_landscape *l)
{
	if (!l)
		return;
	ax_space_destroy(l->space);
	free(l->cost);
	free(l->energy);
	free(l->kernel_name);
	free(l->device_name);
	free(l);
}

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define TAIL 20

/* The measured front against the landscape's whole front (see
 * struct ax_replay_result). */
static int front_figures(const struct ax_landscape *l, struct ax_tuner *t,
			 struct ax_replay_result *res)
{
	size_t *all = malloc(l->n * sizeof(size_t));
	size_t *found = malloc(l->n * sizeof(size_t));
	if (!all || !found) {
		free(all);
		free(found);
		return AX_ENOMEM;
	}
	size_t m = ax_pareto_front(l->cost, l->energy, l->n, all);
	size_t k = ax_tuner_front(t, l->n, found);
	double lo_a = l->cost[all[0]], lo_b = l->energy[all[m - 1]];
	double ref_a = 1.1 * l->cost[all[m - 1]];
	double ref_b = 1.1 * l->energy[all[0]];
	double whole = ax_pareto_hypervolume(l->cost, l->energy, all, m, lo_a,
					     lo_b, ref_a, ref_b);
	double got = ax_pareto_hypervolume(l->cost, l->energy, found, k, lo_a,
					   lo_b, ref_a, ref_b);
	res->true_front = m;
	res->hv_ratio = whole > 0 ? got / whole : 1;
	res->nfront = k < AX_REPLAY_FRONT_MAX ? k : AX_REPLAY_FRONT_MAX;
	memcpy(res->front, found, res->nfront * sizeof(size_t));
	res->knee =
	    k ? ax_pareto_knee(l->cost, l->energy, res->front, res->nfront) : 0;
	free(all);
	free(found);
	return 0;
}

/* ax_replay_run, also writing the evaluated points in order to
 * order[0..order_len) when order is not NULL. */
static int replay_loop(const struct ax_landscape *l, const char *strategy,
		       uint64_t seed, const struct ax_tuner_options *opt,
		       double *trace, size_t trace_len, size_t *order,
		       size_t order_len, struct ax_replay_result *res,
		       char *err, size_t errlen)
{
	struct ax_tuner *t;
	memset(res, 0, sizeof(*res));
	if (opt && opt->objectives == 2 && l->n_energy == 0)
		return ax_errf(err, errlen, AX_EINVAL,
			       "this landscape records no energy: none of its "
			       "entries has an \"energy\" or \"<sensor>_energy"
			       "\" field (J), nor a \"power\" or "
			       "\"<sensor>_power\" one (W); a Pareto front of "
			       "time and energy needs one");
	int rc =
	    ax_tuner_create(&t, l->space, strategy, seed, opt, err, errlen);
	if (rc)
		return rc;
	double best = INFINITY, ring[TAIL] = {0}, ring_cpu[TAIL] = {0};
	size_t e = 0;
	for (;;) {
		size_t i;
		double w0 = clock_s(CLOCK_MONOTONIC);
		double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
		rc = ax_tuner_ask(t, &i);
		double w1 = clock_s(CLOCK_MONOTONIC);
		double c1 = clock_s(CLOCK_THREAD_CPUTIME_ID);
		if (rc)
			break;
		res->last_ask_s = w1 - w0;
		ring[e % TAIL] = w1 - w0;
		ring_cpu[e % TAIL] = c1 - c0;
		double c = l->cost[i];
		int two = opt && opt->objectives == 2;
		int ok = !isnan(c) && (!two || !isnan(l->energy[i]));
		rc = two ? ax_tuner_tell2(t, i,
					  ok ? AX_TRIAL_OK : AX_TRIAL_FAILED, c,
					  l->energy[i])
			 : ax_tuner_tell(t, i,
					 ok ? AX_TRIAL_OK : AX_TRIAL_FAILED, c);
		res->tuner_s += clock_s(CLOCK_MONOTONIC) - w0;
		res->tuner_cpu_s += clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
		if (rc)
			break;
		if (ok && c < best)
			best = c;
		if (trace && e < trace_len)
			trace[e] = best;
		if (order && e < order_len)
			order[e] = i;
		e++;
	}
	if (rc == AX_ENOTFOUND)
		rc = 0;
	res->evals = e;
	for (size_t j = 0; j < TAIL && j < e; j++) {
		res->tail_ask_s += ring[j] / (double)(e < TAIL ? e : TAIL);
		res->tail_ask_cpu_s +=
		    ring_cpu[j] / (double)(e < TAIL ? e : TAIL);
	}
	res->best_found = best;
	const char *why = ax_tuner_stop_reason(t);
	snprintf(res->stop_reason, sizeof(res->stop_reason), "%s",
		 why ? why : "");
	res->best_cost = INFINITY;
	if (!rc && ax_tuner_best(t, &res->best_index, &res->best_cost))
		res->best_cost = INFINITY;
	if (!rc && opt && opt->objectives == 2)
		rc = front_figures(l, t, res);
	ax_tuner_destroy(t);
	return rc;
}

int ax_replay_run(const struct ax_landscape *l, const char *strategy,
		  uint64_t seed, const struct ax_tuner_options *opt,
		  double *trace, size_t trace_len, struct ax_replay_result *res,
		  char *err, size_t errlen)
{
	return replay_loop(l, strategy, seed, opt, trace, trace_len, NULL, 0,
			   res, err, errlen);
}

int ax_replay_prior(const struct ax_landscape *l,
		    const struct ax_landscape *other, uint64_t seed,
		    size_t budget, struct ax_prior **out, char *err,
		    size_t errlen)
{
	struct ax_tuner_options o;
	struct ax_replay_result r;
	int D = ax_space_ndims(other->space);
	const char *names[AX_MAX_PARAMS];
	*out = NULL;
	ax_tuner_options_init(&o);
	o.budget = budget;
	size_t *order = malloc((budget ? budget : 1) * sizeof(size_t));
	double *vals =
	    malloc((budget ? budget : 1) * (size_t)D * sizeof(double));
	double *cost = malloc((budget ? budget : 1) * sizeof(double));
	int rc = order && vals && cost ? 0 : AX_ENOMEM;
	if (!rc)
		rc = replay_loop(other, "bo", seed, &o, NULL, 0, order, budget,
				 &r, err, errlen);
	for (size_t e = 0; !rc && e < r.evals; e++) {
		for (int d = 0; d < D; d++)
			vals[e * (size_t)D + (size_t)d] =
			    ax_space_value(other->space, order[e], d);
		cost[e] = other->cost[order[e]];
	}
	for (int d = 0; d < D; d++)
		names[d] = ax_space_dim_name(other->space, d);
	if (!rc)
		rc = ax_prior_create(out, l->space, D, names, vals, cost,
				     r.evals, seed, err, errlen);
	free(order);
	free(vals);
	free(cost);
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* log C(a, k), -inf when a < k. */
static double log_choose(double a, double k)
{
	if (a < k)
		return -INFINITY;
	return lgamma(a + 1) - lgamma(k + 1) - lgamma(a - k + 1);
}

int ax_replay_random_stats(const struct ax_landscape *l, size_t k,
			   double *expect_ratio, double *median_ratio,
			   double *p_within5)
{
	size_t N = l->n, V = N - l->nfailed;
	double *c = malloc((V ? V : 1) * sizeof(double));
	if (!c)
		return AX_ENOMEM;
	size_t m = 0;
	for (size_t i = 0; i < N; i++)
		if (!isnan(l->cost[i]))
			c[m++] = l->cost[i];
	qsort(c, V, sizeof(double), cmp_double);
	if (k > N)
		k = N;
	/* q(r): probability that the r best valid points were all missed. */
	double lcn = log_choose((double)N, (double)k);
#define Q(r) exp(log_choose((double)(N - (r)), (double)k) - lcn)
	double ex = 0, qprev = 1, med = INFINITY, within = 0;
	for (size_t i = 1; i <= V; i++) {
		double qi = Q(i);
		/* A point that is never the best adds nothing, even when its
		 * ratio overflows: inf * 0 would make the mean NaN. */
		if (qprev > qi)
			ex += c[i - 1] / c[0] * (qprev - qi);
		if (!isfinite(med) && 1 - qi >= 0.5)
			med = c[i - 1] / c[0];
		if (c[i - 1] <= 1.05 * c[0])
			within = 1 - qi;
		qprev = qi;
	}
	double none = Q(V);
#undef Q
	free(c);
	if (expect_ratio)
		*expect_ratio = none < 1 ? ex / (1 - none) : INFINITY;
	if (median_ratio)
		*median_ratio = med;
	if (p_within5)
		*p_within5 = within;
	return 0;
}
