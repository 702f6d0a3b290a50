/*
 * tests/unit/test_recommend.c - recommend's rules on hand-written results
 * (the JSON shape core/db.h documents): chunk size at 90 % of the path
 * peak with the T(n) fit, buffers in flight, pinned gain, batch knee,
 * Little's law, nulls with reasons, and the shell / Slurm / torch views.
 */
#include "core/error.h"
#include "reports/recommend.h"

#include "ax_test.h"

static int next_id = 1;

static json_t *dev(const char *fp)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:n, s:s}", "fingerprint", fp,
			 "name", "llvmpipe", "vendor", "Mesa", "type", "cpu",
			 "pci_bus_id", "device_uuid", "lvp");
}

static json_t *xfer(const char *fp, const char *source, int inflight,
		    long long chunk, double gbps)
{
	return json_pack(
	    "{s:i, s:s, s:{s:s, s:s, s:s, s:I, s:I, s:i}, s:s, "
	    "s:b, s:f, s:s, s:f, s:o, s:{s:s, s:s, s:{s:s}}}",
	    "id", next_id++, "suite", "transfer", "params", "direction", "h2d",
	    "path", "staged", "source", source, "chunk", chunk, "total",
	    16LL << 20, "inflight", inflight, "unit", "GB/s",
	    "higher_is_better", 1, "median", gbps, "status", "ok", "work",
	    16.0 * (1 << 20), "device", dev(fp), "extra", "queue", "compute",
	    "reason", "no dedicated transfer queue family", "memory", "device",
	    "device-local");
}

static json_t *conv(const char *fp, int n, double gflops)
{
	return json_pack("{s:i, s:s, s:{s:i, s:i, s:i, s:i, s:i, s:s}, s:s, "
			 "s:b, s:f, s:s, s:f, s:o, s:{s:f}}",
			 "id", next_id++, "suite", "conv", "params", "n", n,
			 "c", 3, "h", 224, "w", 224, "k", 64, "dtype", "f32",
			 "unit", "GFLOP/s", "higher_is_better", 1, "median",
			 gflops, "status", "ok", "work", 1e9, "device", dev(fp),
			 "extra", "input_bytes", 4.0 * n * 3 * 224 * 224);
}

/* The suite document (cli/suite_doc.c's format) of the suites used
 * here: recommend finds transfers, workload classes and batch
 * parameters by role, never by name. */
static json_t *suite_doc(void)
{
	return json_pack("{s:{s:[s]}, s:{s:[s], s:s}, s:{s:[s]}}", "transfer",
			 "roles", "transfer", "conv", "roles", "workload",
			 "batch_param", "n", "gemm", "roles", "workload");
}

static json_t *results(void)
{
	static const long long chunks[] = {4096,   16384,   65536,
					   262144, 1 << 20, 4 << 20};
	static const double pinned[] = {1.0, 3.0, 6.0, 8.0, 9.5, 10.0};
	json_t *a = json_array();
	next_id = 1;
	for (int i = 0; i < 6; i++)
		json_array_append_new(
		    a, xfer("d1", "pinned", 2, chunks[i], pinned[i]));
	json_array_append_new(a, xfer("d1", "pageable", 2, 1 << 20, 8.0));
	json_array_append_new(a, xfer("d1", "pageable", 2, 4 << 20, 8.5));
	json_array_append_new(a, xfer("d1", "pinned", 1, 1 << 20, 6.0));
	json_array_append_new(a, xfer("d1", "pinned", 3, 1 << 20, 9.8));
	json_array_append_new(a, xfer("d1", "pinned", 4, 1 << 20, 9.9));
	static const int ns[] = {1, 2, 4, 8, 16};
	static const double gf[] = {10, 18, 30, 33, 34};
	for (int i = 0; i < 5; i++)
		json_array_append_new(a, conv("d1", ns[i], gf[i]));
	json_t *failed = conv("d1", 32, 99);
	json_object_set_new(failed, "status",
			    json_string("failed-verification"));
	json_array_append_new(a, failed);
	json_array_append_new(a, conv("d2", 1, 5));
	return a;
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

static json_t *build(void)
{
	json_t *res = results(), *doc = NULL;
	json_t *loc = json_pack("{s:{s:s, s:i, s:s, s:i, s:s, s:s}}", "d1",
				"pci_bus_id", "", "numa_node", -1, "cpuset",
				"0-1", "cores", 2, "confidence", "low",
				"reason", "the driver gives no PCI bus id");
	json_t *host = json_pack("{s:s, s:i, s:s}", "hostname", "h", "cores", 2,
				 "cpuset", "0-1");
	char err[256] = "";
	json_t *suites = suite_doc();
	int rc = ax_recommend_build(res, suites, host, loc, "t", &doc, err,
				    sizeof(err));
	json_decref(suites);
	AX_CHECK_INT(rc, 0);
	json_decref(res);
	json_decref(loc);
	json_decref(host);
	return doc;
}

static void test_upload(void)
{
	json_t *doc = build();
	const json_t *d = get(doc, "devices.0");
	AX_CHECK_STR(json_string_value(get(d, "key")), "uuid:lvp");
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
	AX_CHECK(json_is_null(get(d2, "upload.chunk_size.value")));
	AX_CHECK(json_is_null(get(d2, "upload.chunk_size.basis")));
	AX_CHECK(strstr(json_string_value(get(d2, "upload.chunk_size.reason")),
			"run axbench run transfer") != NULL);
	AX_CHECK(json_is_null(get(d2, "data_loading.batch_size.value")));
	AX_CHECK(json_is_null(get(d2, "locality.cpuset.value")));
	/* workloads: conv on d1 (34 > 5), gemm never measured */
	AX_CHECK_STR(json_string_value(get(doc, "workloads.conv.value")),
		     "uuid:lvp");
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
	s = view(doc, "slurm", &rc);
	AX_CHECK(strstr(s, "#SBATCH --gpu-bind=closest\n") != NULL);
	AX_CHECK(strstr(s, "#SBATCH --cpus-per-task=2\n") != NULL);
	free(s);
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

AX_TEST_MAIN(AX_TEST(test_upload), AX_TEST(test_loading_and_nulls),
	     AX_TEST(test_views))
