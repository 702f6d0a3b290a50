/* tests/unit/test_html.c - escaping and the HTML report built from
 * hand-made documents in the shapes core/db.h documents. */
#include "ax_test.h"

#include "reports/html.h"
#include "reports/html_escape.h"

#include <jansson.h>

#define EVIL "<script>alert(1)</script>"

static void escape_html(void)
{
	char *s = ax_html_escape_str(EVIL " & \"q\" 'a'");
	AX_CHECK_STR(s, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; "
			"&quot;q&quot; &#39;a&#39;");
	free(s);
	s = ax_html_escape_str("bell\a tab\t");
	AX_CHECK_STR(s, "bell\xef\xbf\xbd tab\t");
	free(s);
	s = ax_html_escape_str(NULL);
	AX_CHECK_STR(s, "");
	free(s);
}

static void escape_json(void)
{
	json_t *doc = json_pack("{s:s,s:s}", "name", "</script><!--&", "ls",
				"a\xe2\x80\xa8z");
	char *s = ax_json_for_html(doc);
	AX_CHECK(s && !strchr(s, '<') && !strchr(s, '>') && !strchr(s, '&'));
	AX_CHECK(s && strstr(s, "\\u003c/script\\u003e") != NULL);
	AX_CHECK(s && strstr(s, "\\u2028") != NULL);
	/* Still JSON, and the same strings come back. */
	json_t *back = s ? json_loads(s, 0, NULL) : NULL;
	AX_CHECK(back && json_equal(back, doc));
	json_decref(back);
	json_decref(doc);
	free(s);
}

static json_t *device(const char *fp, const char *name)
{
	return json_pack(
	    "{s:i,s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:n,s:n}", "id", 1, "fingerprint",
	    fp, "name", name, "vendor", "Mesa", "type", "cpu", "driver_name",
	    "llvmpipe", "driver_info", "Mesa 22.3.6", "api_version",
	    (1 << 22) | (3 << 12) | 230, "pci_bus_id", "device_uuid");
}

static json_t *result(int run, const char *fp, const char *name,
		      const char *suite, json_t *params, const char *unit,
		      double median, const char *status)
{
	json_t *s = json_array();
	for (int i = 0; i < 8; i++)
		json_array_append_new(s, json_real(median * (1 + 0.001 * i)));
	/* The canonical text stands in for the hash: equal params match. */
	char *hash = json_dumps(params, JSON_SORT_KEYS | JSON_COMPACT);
	json_t *r = json_pack(
	    "{s:i,s:i,s:s,s:s,s:s,s:o,s:s,s:s,s:b,s:f,s:s,s:s,s:n,s:i,"
	    "s:f,s:f,s:f,s:f,s:o,s:o,s:{s:s,s:s,s:i}}",
	    "id", run * 100, "run_id", run, "started_at",
	    "2024-01-01T00:00:00Z", "suite", suite, "case", "", "params",
	    params, "params_hash", hash, "unit", unit, "higher_is_better", 1,
	    "work", 2e9, "stop_reason", "noise", "status", status, "error", "n",
	    8, "median", median, "q1", median * 0.99, "q3", median * 1.01,
	    "rel_noise", 0.01, "device", device(fp, name), "samples", s, "host",
	    "hostname", "box", "cpu_model", "Xeon", "cores", 2);
	free(hash);
	return r;
}

/* The suite document of the suites these tests use, as cli/suite_doc.c
 * writes it: the report finds ceilings and curves by role. */
static json_t *suite_doc(void)
{
	return json_pack(
	    "{s:{s:b,s:[s,s],s:{s:s,s:[s],s:s,s:s}},s:{s:b,s:[s]},"
	    "s:{s:b,s:[s]}}",
	    "bandwidth", "higher_is_better", 1, "roles", "bandwidth-peak",
	    "workload", "curve", "x", "size", "group", "op", "title",
	    "Bandwidth against working-set size", "x_label",
	    "working set (bytes)", "peak", "higher_is_better", 1, "roles",
	    "compute-peak", "gemm", "higher_is_better", 1, "roles", "workload");
}

/* The report of a small but complete data set, as a string. */
static char *report(json_t *results, json_t *sessions)
{
	json_t *suites = suite_doc();
	struct ax_html_data d = {.results = results,
				 .sessions = sessions,
				 .generated_at = "2024-01-01T00:00:00Z",
				 .suites = suites};
	char *buf = NULL, err[200] = "";
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	AX_CHECK_INT(ax_html_report_write(f, &d, err, sizeof(err)), 0);
	fclose(f);
	json_decref(suites);
	return buf;
}

static void report_escapes_device_names(void)
{
	json_t *res = json_array();
	json_array_append_new(
	    res, result(1, "A", EVIL, "bandwidth",
			json_pack("{s:s,s:i}", "op", "copy", "size", 65536),
			"GB/s", 10, "ok"));
	json_array_append_new(
	    res, result(1, "B", "llvmpipe", "bandwidth",
			json_pack("{s:s,s:i}", "op", "copy", "size", 65536),
			"GB/s", 12, "failed-verification"));
	char *html = report(res, NULL);
	AX_CHECK(html && strstr(html, "<script>") == NULL);
	AX_CHECK(html && strstr(html, "&lt;script&gt;alert(1)") != NULL);
	AX_CHECK(html && strstr(html, "\\u003cscript\\u003e") != NULL);
	/* One script element only, and it is data. */
	AX_CHECK(html && strstr(html, "<script type=\"application/json\""));
	AX_CHECK(html && strstr(html, "default-src 'none'") != NULL);
	/* No resource may come from elsewhere. */
	AX_CHECK(html && strstr(html, "src=") == NULL);
	AX_CHECK(html && strstr(html, "href=\"http") == NULL);
	/* Failed results are badged, not charted as speeds. */
	AX_CHECK(html && strstr(html, "failed verification") != NULL);
	free(html);
	json_decref(res);
}

static void empty_sections_say_so(void)
{
	json_t *res = json_array();
	char *html = report(res, NULL);
	AX_CHECK(html && strstr(html, "No devices in the selected data."));
	AX_CHECK(html && strstr(html, "No successful results"));
	/* A declared curve without results says how to get it. */
	AX_CHECK(html && strstr(html, "No bandwidth results with a size "
				      "parameter: run `axbench run "
				      "bandwidth`"));
	AX_CHECK(html && strstr(html, "no roofline"));
	AX_CHECK(html && strstr(html, "No tuning sessions"));
	AX_CHECK(html && strstr(html, "more than one of the selected runs"));
	free(html);
	/* Without a suite document no suite has a curve or a ceiling. */
	struct ax_html_data bare = {.results = res,
				    .generated_at = "2024-01-01T00:00:00Z"};
	size_t len = 0;
	FILE *f = open_memstream(&html, &len);
	AX_CHECK_INT(ax_html_report_write(f, &bare, NULL, 0), 0);
	fclose(f);
	AX_CHECK(html && strstr(html, "No suite declares a curve."));
	free(html);
	json_decref(res);
	struct ax_html_data d = {0};
	AX_CHECK_INT(ax_html_report_write(stdout, &d, NULL, 0), -1);
}

static void sections_with_data(void)
{
	json_t *res = json_array();
	for (int run = 1; run <= 2; run++)
		for (int sz = 4096; sz <= 1 << 20; sz *= 4)
			json_array_append_new(
			    res, result(run, "A", "gpu", "bandwidth",
					json_pack("{s:s,s:i}", "op", "copy",
						  "size", sz),
					"GB/s", run == 1 ? 10 : 5, "ok"));
	json_array_append_new(res, result(1, "A", "gpu", "peak",
					  json_pack("{s:s}", "op", "fma"),
					  "GFLOP/s", 400, "ok"));
	json_t *gemm =
	    result(1, "A", "gpu", "gemm",
		   json_pack("{s:i,s:i,s:i}", "m", 512, "n", 512, "k", 512),
		   "GFLOP/s", 100, "ok");
	/* The bytes the suite declares: a point on the roofline. */
	json_object_set_new(gemm, "extra",
			    json_pack("{s:f}", "bytes", 3.0 * 512 * 512 * 4));
	json_array_append_new(res, gemm);
	json_t *ses = json_pack(
	    "[{s:i,s:s,s:s,s:i,s:s,s:{s:s},s:[{s:i,s:{s:i},s:s,s:f},"
	    "{s:i,s:{s:i},s:s,s:f}]}]",
	    "id", 1, "suite", "gemm", "strategy", "bo", "seed", 7, "objective",
	    "GFLOP/s", "device", "fingerprint", "A", "trials", "index", 0,
	    "params", "tile", 8, "status", "ok", "value", 50.0, "index", 1,
	    "params", "tile", 16, "status", "ok", "value", 90.0);
	char *html = report(res, ses);
	AX_CHECK(html && strstr(html, "Bandwidth against working-set size"));
	AX_CHECK(html && strstr(html, "Roofline of gpu"));
	AX_CHECK(html && strstr(html, "25% of measured peak"));
	AX_CHECK(html && strstr(html, "Tuner convergence on gemm"));
	AX_CHECK(html && strstr(html, "slower (regression)"));
	AX_CHECK(html && strstr(html, "(higher is better)"));
	AX_CHECK(html && strstr(html, "<title>"));
	free(html);
	json_decref(res);
	json_decref(ses);
}

AX_TEST_MAIN(AX_TEST(escape_html), AX_TEST(escape_json),
	     AX_TEST(report_escapes_device_names),
	     AX_TEST(empty_sections_say_so), AX_TEST(sections_with_data))
