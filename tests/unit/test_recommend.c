/*
 * tests/unit/test_recommend.c - recommend's rules on hand-built result
 * rows (core/db_rows.h, as the database gives them): chunk size at 90 %
 * of the path peak with the T(n) fit, buffers in flight, pinned gain,
 * batch knee, Little's law, nulls with reasons, the shell / Slurm /
 * torch views, and the ingest rules (storage-, upload- and compute-bound,
 * cold before warm, ingest before Little's law, the fallback where none
 * is stored).
 */
#include "core/db_rows.h"
#include "core/error.h"
#include "core/roles.h"
#include "reports/recommend.h"

#include "ax_test.h"

#include <math.h>

static int next_id = 1;

#define MAX_PARAMS 10

/* A row built by hand, its parameters beside it: one block, so that
 * ax_db_result_row_free (mem NULL) frees it all.  The stored documents
 * (params_doc, extra_doc) are the test's: drop() releases them. */
struct built {
	struct ax_db_result_row r;
	struct ax_db_param p[MAX_PARAMS];
};

static struct ax_db_result_row *row(const char *fp, const char *suite,
				    const char *unit, double median)
{
	struct built *b = calloc(1, sizeof(*b));
	struct ax_db_result_row *r = &b->r;
	r->id = next_id++;
	r->suite = suite;
	r->unit = unit;
	r->status = "ok";
	r->ok = true;
	r->higher_is_better = true;
	r->median = median;
	r->work = r->bytes = r->input_bytes = NAN;
	r->params.v = b->p;
	r->params_doc = json_object(); /* cited as the typed parameters */
	r->power.perf_per_w = NAN;
	r->device = (struct ax_db_device_row){
	    .id = 1,
	    .fingerprint = fp,
	    .name = "llvmpipe",
	    .vendor = "Mesa",
	    .type = "cpu",
	    .device_uuid = "lvp",
	    .vendor_id = AX_DB_NONE,
	    .device_id = AX_DB_NONE,
	};
	return r;
}

static void int_param(struct ax_db_result_row *r, const char *name, long long v)
{
	r->params.v[r->params.n++] = (struct ax_db_param){
	    .name = name, .type = AX_DB_VALUE_INT, .num = (double)v, .i = v};
}

static void text_param(struct ax_db_result_row *r, const char *name,
		       const char *v)
{
	r->params.v[r->params.n++] = (struct ax_db_param){
	    .name = name, .type = AX_DB_VALUE_TEXT, .num = NAN, .text = v};
}

static void add(struct ax_db_results *l, struct ax_db_result_row *r)
{
	AX_CHECK_INT(ax_db_results_push(l, r), 0);
}

/* Free l with the documents its rows hold. */
static void drop(struct ax_db_results *l)
{
	for (size_t i = 0; i < l->n; i++) {
		json_decref(l->v[i]->params_doc);
		json_decref(l->v[i]->extra_doc);
	}
	ax_db_results_free(l);
}

static struct ax_db_result_row *xfer(const char *fp, const char *source,
				     int inflight, long long chunk, double gbps)
{
	struct ax_db_result_row *r = row(fp, "transfer", "GB/s", gbps);
	int_param(r, "chunk", chunk);
	text_param(r, "direction", "h2d");
	int_param(r, "inflight", inflight);
	text_param(r, "path", "staged");
	text_param(r, "source", source);
	int_param(r, "total", 16LL << 20);
	r->work = 16.0 * (1 << 20);
	r->extra_doc = json_pack("{s:s, s:s, s:{s:s}}", "queue", "compute",
				 "reason", "no dedicated transfer queue family",
				 "memory", "device", "device-local");
	return r;
}

static struct ax_db_result_row *conv(const char *fp, int n, double gflops)
{
	struct ax_db_result_row *r = row(fp, "conv", "GFLOP/s", gflops);
	int_param(r, "c", 3);
	text_param(r, "dtype", "f32");
	int_param(r, "h", 224);
	int_param(r, "k", 64);
	int_param(r, "n", n);
	int_param(r, "w", 224);
	r->work = 1e9;
	r->input_bytes = 4.0 * n * 3 * 224 * 224;
	r->extra_doc = json_pack("{s:f}", "input_bytes", r->input_bytes);
	return r;
}

/* One ingest case (the suite's contract): the bound stage takes 0.5 s
 * per repetition, the other two 0.2 and 0.1 s, so verdicts quote them. */
struct ing {
	const char *cache;
	int readers, inflight;
	long long chunk;
	const char *io, *bound;
	double gbps, raw;
};

static json_t *stages(const char *bound)
{
	double rd = 0.2, up = 0.1, c = 0.1;
	if (!strcmp(bound, "read"))
		rd = 0.5;
	else if (!strcmp(bound, "upload"))
		up = 0.5;
	else
		c = 0.5;
	return json_pack("{s:f, s:f, s:f, s:f}", "read_s", rd, "upload_s", up,
			 "compute_s", c, "wall_s", 0.6);
}

static struct ax_db_result_row *ingest_result(const char *fp, struct ing c)
{
	struct ax_db_result_row *r = row(fp, "ingest", "GB/s", c.gbps);
	text_param(r, "cache", c.cache);
	int_param(r, "chunk", c.chunk);
	text_param(r, "compute", "checksum");
	text_param(r, "file", "auto");
	int_param(r, "inflight", c.inflight);
	text_param(r, "io", c.io);
	int_param(r, "readers", c.readers);
	int_param(r, "size", 1LL << 30);
	r->work = (double)(1LL << 30);
	r->extra_doc = json_pack("{s:o, s:s, s:f}", "stages", stages(c.bound),
				 "bound", c.bound, "raw_read_gbps", c.raw);
	return r;
}

/* The typed suite document (core/roles.h) of the suites used here:
 * recommend finds transfers, ingest, workload classes and batch
 * parameters by role, never by name.  Ingest comes last, so that
 * no_ingest leaves it out. */
static const struct ax_suite_info suite_infos[] = {
    {.name = "transfer", .roles = AX_ROLE_TRANSFER},
    {.name = "conv", .roles = AX_ROLE_WORKLOAD, .batch_param = "n"},
    {.name = "gemm", .roles = AX_ROLE_WORKLOAD},
    {.name = "ingest", .roles = AX_ROLE_INGEST},
};
static const struct ax_suite_doc suites = {suite_infos, 4};
static const struct ax_suite_doc no_ingest = {suite_infos, 3};

static void results(struct ax_db_results *a)
{
	static const long long chunks[] = {4096,   16384,   65536,
					   262144, 1 << 20, 4 << 20};
	static const double pinned[] = {1.0, 3.0, 6.0, 8.0, 9.5, 10.0};
	memset(a, 0, sizeof(*a));
	next_id = 1;
	for (int i = 0; i < 6; i++)
		add(a, xfer("d1", "pinned", 2, chunks[i], pinned[i]));
	add(a, xfer("d1", "pageable", 2, 1 << 20, 8.0));
	add(a, xfer("d1", "pageable", 2, 4 << 20, 8.5));
	add(a, xfer("d1", "pinned", 1, 1 << 20, 6.0));
	add(a, xfer("d1", "pinned", 3, 1 << 20, 9.8));
	add(a, xfer("d1", "pinned", 4, 1 << 20, 9.9));
	static const int ns[] = {1, 2, 4, 8, 16};
	static const double gf[] = {10, 18, 30, 33, 34};
	for (int i = 0; i < 5; i++)
		add(a, conv("d1", ns[i], gf[i]));
	struct ax_db_result_row *failed = conv("d1", 32, 99);
	failed->status = "failed-verification";
	failed->ok = false;
	add(a, failed);
	add(a, conv("d2", 1, 5));
}

static const json_t *get(const json_t *o, const char *path)
{
	char buf[256], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && o;
	     k = strtok_r(NULL, ".", &save))
		o = json_is_array(o) ? json_array_get(o, (size_t)atoi(k))
				     : json_object_get(o, k);
	return o;
}

/* The document of res (freed) under the suite document sd. */
static json_t *build_from(struct ax_db_results *res,
			  const struct ax_suite_doc *sd)
{
	json_t *doc = NULL;
	json_t *loc = json_pack("{s:{s:s, s:i, s:s, s:i, s:s, s:s}}", "d1",
				"pci_bus_id", "", "numa_node", -1, "cpuset",
				"0-1", "cores", 2, "confidence", "low",
				"reason", "the driver gives no PCI bus id");
	json_t *host = json_pack("{s:s, s:i, s:s}", "hostname", "h", "cores", 2,
				 "cpuset", "0-1");
	char err[256] = "";
	int rc =
	    ax_recommend_build(res, sd, host, loc, "t", &doc, err, sizeof(err));
	AX_CHECK_INT(rc, 0);
	drop(res);
	json_decref(loc);
	json_decref(host);
	return doc;
}

static json_t *build(void)
{
	struct ax_db_results a;
	results(&a);
	return build_from(&a, &suites);
}
static void test_upload(void)
{
	json_t *doc = build();
	const json_t *d = get(doc, "devices.0");
	/* d1 and d2 share the UUID "lvp" (two lavapipe devices): each is
	 * keyed by its fingerprint, so the key names one of them. */
	AX_CHECK_STR(json_string_value(get(d, "key")), "fingerprint:d1");
	AX_CHECK_STR(json_string_value(get(d, "upload.path.value.source")),
		     "pinned");
	/* 9.5 is the first >= 0.9 * 10.0 */
	AX_CHECK_INT(json_integer_value(get(d, "upload.chunk_size.value")),
		     1 << 20);
	AX_CHECK_NEAR(
	    json_real_value(get(d, "upload.chunk_size.basis.chosen.value")),
	    9.5, 0);
	AX_CHECK_INT(json_integer_value(
			 get(d, "upload.chunk_size.basis.chosen.result_id")),
		     5);
	AX_CHECK_NEAR(
	    json_real_value(get(d, "upload.chunk_size.basis.peak.value")), 10.0,
	    0);
	const json_t *fit = get(d, "upload.chunk_size.basis.fit");
	AX_CHECK(json_real_value(json_object_get(fit, "n_half_bytes")) > 0);
	AX_CHECK(json_is_string(get(d, "upload.chunk_size.confidence")));
	AX_CHECK_STR(json_string_value(get(d, "upload.queue.value")),
		     "compute");
	AX_CHECK_STR(json_string_value(get(d, "upload.memory_type.value")),
		     "device-local");
	/* inflight 1: 6.0, 2: 9.5, 3: 9.8, 4: 9.9 -> 2 reaches 95 % */
	AX_CHECK_INT(
	    json_integer_value(get(d, "upload.buffers_in_flight.value")), 2);
	/* pinned 10.0 over pageable 8.5 at 4M */
	AX_CHECK(json_is_true(get(d, "data_loading.pinned_memory.value")));
	AX_CHECK_NEAR(
	    json_real_value(get(d, "data_loading.pinned_memory.basis.gain")),
	    10.0 / 8.5, 1e-12);
	json_decref(doc);
}

static void test_loading_and_nulls(void)
{
	json_t *doc = build();
	const json_t *d = get(doc, "devices.0");
	/* 33 is the first >= 0.9 * 34; the failed 99 never counts */
	AX_CHECK_INT(
	    json_integer_value(get(d, "data_loading.batch_size.value")), 8);
	AX_CHECK_INT(
	    json_integer_value(get(d, "data_loading.loader_threads.value")), 1);
	AX_CHECK_INT(
	    json_integer_value(get(d, "data_loading.prefetch_depth.value")), 2);
	AX_CHECK_NEAR(
	    json_real_value(get(d, "data_loading.loader_threads.basis.step_s")),
	    1e9 / 33e9, 1e-12);
	AX_CHECK(json_is_null(get(d, "locality.numa_node.value")));
	AX_CHECK_STR(json_string_value(get(d, "locality.numa_node.reason")),
		     "the driver gives no PCI bus id");
	AX_CHECK_INT(json_integer_value(get(d, "locality.local_cores.value")),
		     2);
	AX_CHECK_STR(json_string_value(get(d, "locality.cpuset.confidence")),
		     "low");
	/* d2 has one conv result only: everything else null + reason */
	const json_t *d2 = get(doc, "devices.1");
	AX_CHECK_STR(json_string_value(get(d2, "key")), "fingerprint:d2");
	AX_CHECK(json_is_null(get(d2, "upload.chunk_size.value")));
	AX_CHECK(json_is_null(get(d2, "upload.chunk_size.basis")));
	AX_CHECK(strstr(json_string_value(get(d2, "upload.chunk_size.reason")),
			"run axbench run transfer") != NULL);
	AX_CHECK(json_is_null(get(d2, "data_loading.batch_size.value")));
	AX_CHECK(json_is_null(get(d2, "locality.cpuset.value")));
	/* workloads: conv on d1 (34 > 5), gemm never measured */
	AX_CHECK_STR(json_string_value(get(doc, "workloads.conv.value")),
		     "fingerprint:d1");
	AX_CHECK(json_is_null(get(doc, "workloads.gemm.value")));
	AX_CHECK(json_is_string(get(doc, "workloads.gemm.reason")));
	json_decref(doc);
}

static char *view(const json_t *doc, const char *format, int *rc)
{
	char *buf = NULL, err[256];
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	*rc = ax_recommend_write(doc, format, f, err, sizeof(err));
	fclose(f);
	return buf;
}

static void test_views(void)
{
	json_t *doc = build();
	int rc;
	char *s = view(doc, "env", &rc);
	AX_CHECK_INT(rc, 0);
	AX_CHECK(strstr(s, "export OMP_NUM_THREADS=2\n") != NULL);
	AX_CHECK(strstr(s, "CUDA_VISIBLE_DEVICES") == NULL);
	free(s);
	s = view(doc, "numactl", &rc);
	AX_CHECK_STR(s, "numactl --physcpubind=0-1 --localalloc\n");
	free(s);
	/* a CPU device is the node: no GPU request, the node exclusive */
	s = view(doc, "slurm", &rc);
	AX_CHECK(strstr(s, "--gpu") == NULL);
	AX_CHECK(strstr(s, "#SBATCH --exclusive\n") != NULL);
	AX_CHECK(strstr(s, "#SBATCH --cpus-per-task=2\n") != NULL);
	free(s);
	json_t *dev = json_array_get(json_object_get(doc, "devices"), 0);
	json_object_set_new(dev, "type", json_string("discrete-gpu"));
	s = view(doc, "slurm", &rc);
	AX_CHECK(strstr(s, "#SBATCH --gpus-per-task=1\n") != NULL);
	AX_CHECK(strstr(s, "#SBATCH --gpu-bind=closest\n") != NULL);
	AX_CHECK(strstr(s, "--exclusive") == NULL);
	free(s);
	json_object_set_new(dev, "type", json_string("cpu"));
	s = view(doc, "torch", &rc);
	AX_CHECK(strstr(s, "LOCAL_CPUS = [0, 1]\n") != NULL);
	AX_CHECK(strstr(s, "    batch_size=8,\n") != NULL);
	AX_CHECK(strstr(s, "    pin_memory=True,\n") != NULL);
	free(s);
	s = view(doc, "xml", &rc);
	AX_CHECK_INT(rc, AX_EINVAL);
	free(s);
	json_decref(doc);
}

/* ---- ingest ----------------------------------------------------------- */

#define MB (1LL << 20)

/* A document of hand-written ingest cases on device d1 alone. */
static json_t *ingest_doc(const struct ing *cases, int n)
{
	struct ax_db_results a = {0};
	next_id = 1;
	for (int i = 0; i < n; i++)
		add(&a, ingest_result("d1", cases[i]));
	return build_from(&a, &suites);
}

/* Does the string at path contain needle?  Says what it holds if not. */
static int has(const json_t *o, const char *path, const char *needle)
{
	const char *s = json_string_value(get(o, path));
	if (s && strstr(s, needle))
		return 1;
	printf("#   %s = \"%s\", wanted \"%s\" in it\n", path, s ? s : "(null)",
	       needle);
	return 0;
}

/* Is there a string at path, without needle?  Says what it holds if not. */
static int lacks(const json_t *o, const char *path, const char *needle)
{
	const char *s = json_string_value(get(o, path));
	if (s && !strstr(s, needle))
		return 1;
	printf("#   %s = \"%s\", wanted no \"%s\" in it\n", path,
	       s ? s : "(null)", needle);
	return 0;
}

static json_int_t iget(const json_t *o, const char *path)
{
	return json_integer_value(get(o, path));
}

static void test_ingest_storage_bound(void)
{
	/* Cold: 1, 2, 4 readers within 3 %; warm: the same case at 6 GB/s
	 * and a faster warm case the advice must not quote. */
	const struct ing c[] = {
	    {"cold", 1, 8, MB, "pread", "read", 1.85, 2.0},
	    {"cold", 2, 8, MB, "pread", "read", 1.88, 2.0},
	    {"cold", 4, 8, MB, "pread", "read", 1.9, 2.0},
	    {"warm", 4, 8, MB, "pread", "read", 6.0, 6.5},
	    {"warm", 8, 8, MB, "pread", "read", 7.0, 6.5},
	};
	json_t *doc = ingest_doc(c, 5);
	const json_t *dl = get(doc, "devices.0.data_loading");
	/* 1 reader is within 5 % of the fastest (4): one thread is enough */
	AX_CHECK_INT(iget(dl, "loader_threads.value"), 1);
	AX_CHECK_STR(json_string_value(get(dl, "loader_threads.basis.cache")),
		     "cold");
	AX_CHECK_INT(iget(dl, "loader_threads.basis.result.result_id"), 3);
	AX_CHECK_INT(iget(dl, "loader_threads.basis.chosen.result_id"), 1);
	AX_CHECK_STR(json_string_value(get(dl, "loader_threads.confidence")),
		     "high");
	AX_CHECK(json_is_null(get(dl, "loader_threads.reason")));
	AX_CHECK_INT(json_array_size(get(dl, "loader_threads.basis.sweep")), 3);
	AX_CHECK_INT(iget(dl, "prefetch_depth.value"), 8); /* 8 / 1 */
	AX_CHECK_INT(iget(dl, "read_chunk.value"), MB);
	AX_CHECK_STR(json_string_value(get(dl, "io_mode.value")), "pread");
	const json_t *st = get(dl, "storage");
	AX_CHECK_STR(json_string_value(get(st, "bound")), "read");
	AX_CHECK_NEAR(json_number_value(get(st, "gbps")), 1.9, 0);
	AX_CHECK_NEAR(json_number_value(get(st, "raw_read_gbps")), 2.0, 0);
	AX_CHECK_NEAR(json_number_value(get(st, "ratio_to_raw")), 0.95, 1e-12);
	AX_CHECK(has(st, "verdict",
		     "storage-bound at 1.9 GB/s (95 % of the 2 "
		     "GB/s raw sequential read): more readers "
		     "do not help (4 readers 1.9 GB/s against "
		     "1 reader 1.85 GB/s)"));
	AX_CHECK(has(st, "advice", "warm the page cache with a first pass"));
	AX_CHECK(has(st, "advice",
		     "a warm cache gave 6 GB/s against 1.9 GB/s "
		     "cold"));
	AX_CHECK(lacks(st, "advice", "use 4"));
	AX_CHECK_NEAR(json_number_value(get(st, "basis.readers.gain")),
		      1.9 / 1.85, 1e-12);
	AX_CHECK_INT(iget(st, "basis.readers.most.result_id"), 3);
	AX_CHECK_INT(iget(st, "basis.readers.fewest.result_id"), 1);
	AX_CHECK_INT(iget(st, "basis.warm.result_id"), 4);
	json_decref(doc);
}

static void test_ingest_more_readers_helped(void)
{
	const struct ing c[] = {
	    {"cold", 1, 4, MB, "pread", "read", 1.2, 3.5},
	    {"cold", 2, 4, MB, "pread", "read", 2.4, 3.5},
	    {"cold", 4, 4, MB, "pread", "read", 3.1, 3.5},
	    {"cold", 8, 4, MB, "pread", "read", 3.0, 3.5},
	};
	/* The fastest at the most readers measured: try more. */
	json_t *doc = ingest_doc(c, 3);
	const json_t *dl = get(doc, "devices.0.data_loading");
	AX_CHECK_INT(iget(dl, "loader_threads.value"), 4);
	AX_CHECK_INT(iget(dl, "prefetch_depth.value"), 1); /* 4 / 4 */
	AX_CHECK(has(dl, "storage.verdict",
		     "more readers helped: 4 readers 3.1 GB/s against 1 "
		     "reader 1.2 GB/s"));
	AX_CHECK(has(dl, "storage.advice", "use 4 readers"));
	AX_CHECK(has(dl, "storage.advice", "readers=4,8,16"));
	AX_CHECK(lacks(dl, "storage.advice", "page cache"));
	json_decref(doc);
	/* 8 readers measured slower than 4: keep 4, no call for more. */
	doc = ingest_doc(c, 4);
	dl = get(doc, "devices.0.data_loading");
	AX_CHECK_INT(iget(dl, "loader_threads.value"), 4);
	AX_CHECK(has(dl, "storage.verdict",
		     "more readers helped: 8 readers 3 GB/s against 1 "
		     "reader 1.2 GB/s"));
	AX_CHECK(has(dl, "storage.advice", "use 4 readers, the fastest"));
	AX_CHECK(lacks(dl, "storage.advice", "readers=4,8,16"));
	json_decref(doc);
	/* 2 readers within 5 % of the fastest (4): the advice says 2, as
	 * loader_threads does. */
	const struct ing e[] = {
	    {"cold", 1, 4, MB, "pread", "read", 1.2, 4.0},
	    {"cold", 2, 4, MB, "pread", "read", 3.0, 4.0},
	    {"cold", 4, 4, MB, "pread", "read", 3.1, 4.0},
	    {"cold", 8, 4, MB, "pread", "read", 2.9, 4.0},
	};
	doc = ingest_doc(e, 4);
	dl = get(doc, "devices.0.data_loading");
	AX_CHECK_INT(iget(dl, "loader_threads.value"), 2);
	AX_CHECK(has(dl, "storage.advice",
		     "use 2 readers: the fewest within 5 % of the fastest (4 "
		     "readers)"));
	json_decref(doc);
}

static void test_ingest_one_reader_count(void)
{
	const struct ing c[] = {{"cold", 2, 3, MB, "direct", "read", 1.5, 1.6}};
	json_t *doc = ingest_doc(c, 1);
	const json_t *dl = get(doc, "devices.0.data_loading");
	AX_CHECK_INT(iget(dl, "prefetch_depth.value"), 2); /* ceil(3 / 2) */
	AX_CHECK_STR(json_string_value(get(dl, "io_mode.value")), "direct");
	AX_CHECK_STR(json_string_value(get(dl, "loader_threads.confidence")),
		     "medium");
	AX_CHECK(has(dl, "loader_threads.reason", "readers=1,2,4"));
	AX_CHECK(has(dl, "storage.verdict",
		     "only one reader count measured (2 readers)"));
	AX_CHECK(has(dl, "storage.reason",
		     "run axbench run ingest -p "
		     "readers=1,2,4"));
	AX_CHECK(has(dl, "storage.advice", "cache=warm,cold"));
	AX_CHECK(json_is_null(get(dl, "storage.basis.readers.gain")));
	AX_CHECK(json_is_null(get(dl, "storage.basis.warm")));
	json_decref(doc);
}

static void test_ingest_upload_bound(void)
{
	const struct ing c[] = {
	    {"cold", 1, 3, MB, "pread", "upload", 2.4, 6.0},
	    {"cold", 2, 3, MB, "pread", "upload", 2.5, 6.0},
	};
	json_t *doc = ingest_doc(c, 2);
	const json_t *dl = get(doc, "devices.0.data_loading");
	/* 2.4 is within 5 % of 2.5: one reader, all 3 buffers its own */
	AX_CHECK_INT(iget(dl, "loader_threads.value"), 1);
	AX_CHECK_INT(iget(dl, "prefetch_depth.value"), 3);
	AX_CHECK_STR(json_string_value(get(dl, "storage.bound")), "upload");
	AX_CHECK(has(dl, "storage.verdict",
		     "upload-bound at 2.5 GB/s: the copy to the device takes "
		     "0.5 s per repetition against 0.2 s to read"));
	AX_CHECK(has(dl, "storage.advice", "pinned staging memory"));
	AX_CHECK(has(dl, "storage.advice",
		     "chunks larger than 1048576 bytes "
		     "and more than 3 buffers in flight"));
	AX_CHECK(has(dl, "storage.advice",
		     "-p chunk=1048576,4194304 -p inflight=3,6"));
	AX_CHECK(lacks(dl, "storage.advice", "page cache"));
	json_decref(doc);
}

static void test_ingest_compute_bound(void)
{
	const struct ing c[] = {
	    {"cold", 1, 2, MB, "mmap", "compute", 4.0, 9.0},
	    {"cold", 2, 2, MB, "mmap", "compute", 4.1, 9.0},
	    {"cold", 4, 2, MB, "mmap", "compute", 4.12, 9.0},
	};
	json_t *doc = ingest_doc(c, 3);
	const json_t *dl = get(doc, "devices.0.data_loading");
	AX_CHECK_INT(iget(dl, "loader_threads.value"), 1);
	AX_CHECK_INT(iget(dl, "prefetch_depth.value"), 2); /* ceil(2/1) */
	AX_CHECK(has(dl, "storage.verdict",
		     "compute-bound: the loader keeps up with the kernel "
		     "(compute 0.5 s per repetition against read 0.2 s and "
		     "upload 0.1 s)"));
	AX_CHECK(has(dl, "storage.advice",
		     "fewer readers suffice: with 1 reader, 4 GB/s is within "
		     "5 % of the fastest (4 readers, 4.12 GB/s)"));
	json_decref(doc);
	/* One reader is 2x slower: fewer readers do not suffice here. */
	const struct ing d[] = {
	    {"cold", 1, 2, MB, "mmap", "compute", 2.0, 9.0},
	    {"cold", 4, 2, MB, "mmap", "compute", 4.12, 9.0},
	};
	doc = ingest_doc(d, 2);
	dl = get(doc, "devices.0.data_loading");
	AX_CHECK(has(dl, "storage.advice",
		     "keep 4 readers: fewer were slower (1 reader 2 GB/s)"));
	json_decref(doc);
}

static void test_ingest_cold_over_warm(void)
{
	const struct ing c[] = {
	    {"warm", 8, 8, 4 * MB, "mmap", "read", 10.0, 11.0},
	    {"warm", 4, 8, 4 * MB, "mmap", "read", 9.9, 11.0},
	    {"cold", 2, 4, MB, "pread", "read", 1.5, 1.6},
	};
	json_t *doc = ingest_doc(c, 3);
	const json_t *dl = get(doc, "devices.0.data_loading");
	AX_CHECK_INT(iget(dl, "loader_threads.value"), 2);
	AX_CHECK_INT(iget(dl, "read_chunk.value"), MB);
	AX_CHECK_STR(json_string_value(get(dl, "io_mode.value")), "pread");
	AX_CHECK_STR(json_string_value(get(dl, "loader_threads.basis.cache")),
		     "cold");
	AX_CHECK(has(dl, "loader_threads.basis.cache_rule", "cold-cache"));
	AX_CHECK_NEAR(
	    json_number_value(get(dl, "loader_threads.basis.result.value")),
	    1.5, 0);
	AX_CHECK_STR(json_string_value(get(dl, "storage.cache")), "cold");
	AX_CHECK_NEAR(json_number_value(get(dl, "storage.gbps")), 1.5, 0);
	/* No warm twin of the cold case: the fastest warm one is quoted. */
	AX_CHECK(has(dl, "storage.advice", "a warm cache gave 10 GB/s"));
	json_decref(doc);
	/* Warm only: said so, and no advice to warm what is warm. */
	doc = ingest_doc(c, 2);
	dl = get(doc, "devices.0.data_loading");
	/* 4 readers (9.9) are within 5 % of 8 (10) */
	AX_CHECK_INT(iget(dl, "loader_threads.value"), 4);
	AX_CHECK_STR(json_string_value(get(dl, "loader_threads.basis.cache")),
		     "warm");
	AX_CHECK_STR(json_string_value(get(dl, "loader_threads.confidence")),
		     "medium");
	AX_CHECK(has(dl, "loader_threads.reason", "-p cache=cold"));
	AX_CHECK(has(dl, "storage.verdict",
		     "read-bound from a warm page cache at 10 GB/s"));
	AX_CHECK(has(dl, "storage.advice", "io=pread,mmap,direct"));
	AX_CHECK(lacks(dl, "storage.advice", "first pass"));
	json_decref(doc);
}

/* A result without a raw read or a known bound: nulls and reasons, no
 * verdict made up. */
static void test_ingest_missing_figures(void)
{
	struct ax_db_results a = {0};
	next_id = 1;
	struct ax_db_result_row *r = ingest_result(
	    "d1", (struct ing){"cold", 2, 4, MB, "pread", "read", 1.5, 0});
	json_object_del(r->extra_doc, "raw_read_gbps");
	json_object_set_new(r->extra_doc, "bound", json_string("decode"));
	add(&a, r);
	json_t *doc = build_from(&a, &suites);
	const json_t *st = get(doc, "devices.0.data_loading.storage");
	AX_CHECK_NEAR(json_number_value(get(st, "gbps")), 1.5, 0);
	AX_CHECK(json_is_null(get(st, "raw_read_gbps")));
	AX_CHECK(json_is_null(get(st, "ratio_to_raw")));
	AX_CHECK(json_is_null(get(st, "verdict")));
	AX_CHECK(json_is_null(get(st, "advice")));
	AX_CHECK(has(st, "reason", "no bound stage known here"));
	AX_CHECK(has(st, "reason", "extra.raw_read_gbps"));
	/* The settings still come from the one result. */
	AX_CHECK_INT(iget(doc, "devices.0.data_loading.loader_threads.value"),
		     2);
	json_decref(doc);
}

/* results() (transfers and a conv batch sweep: Little's law gives 1
 * thread, depth 2) plus ingest cases on d1. */
static struct ax_db_results *with_ingest(struct ax_db_results *a)
{
	results(a);
	const struct ing c[] = {
	    {"cold", 1, 9, MB, "mmap", "read", 1.0, 4.0},
	    {"cold", 3, 9, MB, "mmap", "read", 2.9, 4.0},
	};
	for (int i = 0; i < 2; i++)
		add(a, ingest_result("d1", c[i]));
	return a;
}

static void test_ingest_over_transfer(void)
{
	struct ax_db_results a;
	json_t *doc = build_from(with_ingest(&a), &suites);
	const json_t *d = get(doc, "devices.0");
	AX_CHECK_INT(iget(d, "data_loading.loader_threads.value"), 3);
	AX_CHECK_INT(iget(d, "data_loading.prefetch_depth.value"), 3);
	AX_CHECK(has(d, "data_loading.loader_threads.basis.rule", "ingest"));
	AX_CHECK(has(d, "data_loading.prefetch_depth.basis.rule", "inflight"));
	/* The transfer group, pinned memory and batch size stay. */
	AX_CHECK_INT(iget(d, "upload.chunk_size.value"), 1 << 20);
	AX_CHECK_INT(iget(d, "data_loading.batch_size.value"), 8);
	AX_CHECK(json_is_true(get(d, "data_loading.pinned_memory.value")));
	int rc;
	char *s = view(doc, "torch", &rc);
	AX_CHECK_INT(rc, 0);
	AX_CHECK(strstr(s, "    num_workers=3,\n") != NULL);
	AX_CHECK(strstr(s, "    prefetch_factor=3,\n") != NULL);
	AX_CHECK(strstr(s, "# read_chunk: 1048576 bytes per read\n") != NULL);
	AX_CHECK(strstr(s, "# io_mode: mmap\n") != NULL);
	AX_CHECK(strstr(s, "# storage: storage-bound at 2.9 GB/s") != NULL);
	free(s);
	s = view(doc, "env", &rc);
	AX_CHECK(strstr(s, "export AXBENCH_READ_CHUNK=1048576\n") != NULL);
	AX_CHECK(strstr(s, "export AXBENCH_IO_MODE=mmap\n") != NULL);
	free(s);
	json_decref(doc);
}

static void test_transfer_fallback(void)
{
	json_t *doc = build();
	const json_t *dl = get(doc, "devices.0.data_loading");
	AX_CHECK_INT(iget(dl, "loader_threads.value"), 1);
	AX_CHECK(has(dl, "loader_threads.basis.rule", "Little's law"));
	AX_CHECK(json_is_null(get(dl, "read_chunk.value")));
	AX_CHECK(json_is_null(get(dl, "read_chunk.basis")));
	AX_CHECK(has(dl, "read_chunk.reason", "run axbench run ingest"));
	AX_CHECK(json_is_null(get(dl, "io_mode.value")));
	AX_CHECK(json_is_null(get(dl, "storage.verdict")));
	AX_CHECK(json_is_null(get(dl, "storage.gbps")));
	AX_CHECK(has(dl, "storage.reason", "readers=1,2,4"));
	/* d2: neither ingest nor a batch sweep */
	AX_CHECK(json_is_null(get(doc, "devices.1.data_loading.loader_threads."
				       "value")));
	AX_CHECK(has(doc, "devices.1.data_loading.loader_threads.reason",
		     "no ingest results and no batch sweep"));
	int rc;
	char *s = view(doc, "env", &rc);
	AX_CHECK(strstr(s, "# read_chunk: not set (no ingest results") != NULL);
	free(s);
	json_decref(doc);
	/* Ingest results are found by role: without it they do not count. */
	struct ax_db_results a;
	doc = build_from(with_ingest(&a), &no_ingest);
	dl = get(doc, "devices.0.data_loading");
	AX_CHECK_INT(iget(dl, "loader_threads.value"), 1);
	AX_CHECK_INT(iget(dl, "prefetch_depth.value"), 2);
	AX_CHECK(json_is_null(get(dl, "read_chunk.value")));
	json_decref(doc);
}

AX_TEST_MAIN(AX_TEST(test_upload), AX_TEST(test_loading_and_nulls),
	     AX_TEST(test_views), AX_TEST(test_ingest_storage_bound),
	     AX_TEST(test_ingest_more_readers_helped),
	     AX_TEST(test_ingest_one_reader_count),
	     AX_TEST(test_ingest_upload_bound),
	     AX_TEST(test_ingest_compute_bound),
	     AX_TEST(test_ingest_cold_over_warm),
	     AX_TEST(test_ingest_missing_figures),
	     AX_TEST(test_ingest_over_transfer),
	     AX_TEST(test_transfer_fallback))
