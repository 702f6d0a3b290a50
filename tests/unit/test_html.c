/* tests/unit/test_html.c - escaping and the HTML report built from
 * hand-made documents in the shapes core/db.h documents. */
#include "ax_test.h"

#include "core/error.h"
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
	    "s:f,s:f,s:f,s:f,s:f,s:f,s:o,s:o,s:{s:s,s:s,s:i}}",
	    "id", run * 100, "run_id", run, "started_at",
	    "2024-01-01T00:00:00Z", "suite", suite, "case", "", "params",
	    params, "params_hash", hash, "unit", unit, "higher_is_better", 1,
	    "work", 2e9, "stop_reason", "noise", "status", status, "error", "n",
	    8, "median", median, "q1", median * 0.99, "q3", median * 1.01,
	    "ci_lo", median * 0.995, "ci_hi", median * 1.005, "rel_noise", 0.01,
	    "device", device(fp, name), "samples", s, "host", "hostname", "box",
	    "cpu_model", "Xeon", "cores", 2);
	free(hash);
	return r;
}

/* The suite document of the suites these tests use, as app/suite_doc.c
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
	AX_CHECK(html && strstr(html, "No power figures and no speed-up"));
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
	AX_CHECK(html && strstr(html, "Roofline of #1 box/gpu"));
	/* The ceilings named with their values, several y ticks, and each
	 * kernel named in its point's tooltip. */
	AX_CHECK(html && strstr(html, ">measured peak 400 GFLOP/s</text>"));
	AX_CHECK(html && strstr(html, "<title>gemm m=512 n=512 k=512 (100 "
				      "GFLOP/s at 636 FLOP/B, 25 % of the "
				      "roof)</title>"));
	AX_CHECK(html && strstr(html, ">100</text>") &&
		 strstr(html, ">200</text>") && strstr(html, ">50</text>"));
	AX_CHECK(html && strstr(html, "25% of measured peak"));
	AX_CHECK(html && strstr(html, "Tuner convergence on gemm"));
	/* Run 2 halved every bandwidth case: marked worse in the history,
	 * from the stored medians and intervals. */
	AX_CHECK(html && strstr(html, "(-50.0 %, worse)"));
	AX_CHECK(html && strstr(html, "5 changes for the worse marked."));
	AX_CHECK(html && strstr(html, "(higher is better)"));
	AX_CHECK(html && strstr(html, "<title>"));
	free(html);
	json_decref(res);
	json_decref(ses);
}

/* ---- efficiency ------------------------------------------------------- */

#define DASH "\xe2\x80\x94"
#define TIMES "\xc3\x97"
#define NO_RAPL                                                                \
	"no sensor for llvmpipe (LLVM 15.0.6, 256 bits): RAPL: "               \
	"/sys/class/powercap: No such file or directory"

/* A power object as core/db.h documents it, every figure null. */
static json_t *power_none(const char *reason)
{
	return json_pack(
	    "{s:s?,s:i,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,"
	    "s:n,s:n,s:n,s:n,s:n}",
	    "reason", reason, "readings", 0, "source", "seconds", "mean_w",
	    "max_w", "idle_w", "energy_rep_j", "energy_rep_net_j",
	    "temp_mean_c", "temp_max_c", "sm_mhz", "mem_mhz", "mem_peak_b",
	    "mem_budget_b", "perf_per_w", "perf_per_w_unit", "throttled",
	    "throttle_evidence", "series_id");
}

/* gemm at 100 GFLOP/s (2 GFLOP a repetition) drawing 50 W on RAPL: no
 * temperature, a clock, 1.5 GiB of 8 GiB, throttled, sustained. */
static json_t *power_rapl(void)
{
	json_t *p = power_none(NULL);
	json_object_set_new(p, "source", json_string("RAPL"));
	json_object_set_new(p, "readings", json_integer(40));
	json_object_set_new(p, "seconds", json_real(4.0));
	json_object_set_new(p, "mean_w", json_real(50));
	json_object_set_new(p, "max_w", json_real(61));
	json_object_set_new(p, "idle_w", json_real(10));
	json_object_set_new(p, "energy_rep_j", json_real(1.0));
	json_object_set_new(p, "energy_rep_net_j", json_real(0.8));
	json_object_set_new(p, "sm_mhz", json_real(1410));
	json_object_set_new(p, "mem_peak_b", json_real(1.5 * (1 << 30)));
	json_object_set_new(p, "mem_budget_b", json_real(8.0 * (1 << 30)));
	json_object_set_new(p, "perf_per_w", json_real(2));
	json_object_set_new(p, "perf_per_w_unit", json_string("GFLOP/s/W"));
	json_object_set_new(p, "throttled", json_true());
	json_object_set_new(p, "throttle_evidence",
			    json_string("median of the last 20 % of 40 "
					"samples 12 % slower <b>"));
	json_object_set_new(p, "series_id", json_integer(7));
	return p;
}

/* n readings every 0.1 s: power 40..60 W, no temperature, a clock. */
static json_t *series(int n)
{
	json_t *t = json_array(), *w = json_array(), *temp = json_array(),
	       *sm = json_array();
	for (int i = 0; i < n; i++) {
		json_array_append_new(t, json_real(0.1 * i));
		json_array_append_new(w, json_real(40 + 20 * (i % 2)));
		json_array_append_new(temp, json_null());
		json_array_append_new(sm, json_real(1410));
	}
	return json_pack("{s:i,s:s,s:s,s:f,s:f,s:o,s:o,s:o,s:o}", "id", 7,
			 "kind", "case", "source", "RAPL", "interval_s", 0.1,
			 "timed_from_s", 0.5, "t", t, "power_w", w, "temp_c",
			 temp, "sm_mhz", sm);
}

static json_t *gemm_result(int run, double median, double speedup)
{
	json_t *r =
	    result(run, "A", "llvmpipe", "gemm",
		   json_pack("{s:i,s:i,s:i}", "m", 1024, "n", 1024, "k", 1024),
		   "GFLOP/s", median, "ok");
	json_object_set_new(r, "speedup_vs_cpu", json_real(speedup));
	json_object_set_new(
	    r, "cpu",
	    json_pack("{s:i,s:s,s:s,s:s,s:i,s:s,s:f,s:s}", "id", 1, "library",
		      "OpenBLAS", "version", "0.3.21", "corename", "Haswell",
		      "threads", 2, "note", "same inputs", "median",
		      median / speedup, "unit", "GFLOP/s"));
	return r;
}

static void efficiency_with_a_sensor(void)
{
	json_t *res = json_array();
	json_t *r = gemm_result(1, 100, 0.42);
	json_object_set_new(r, "power", power_rapl());
	json_object_set_new(r, "extra", json_pack("{s:b}", "sustained", 1));
	json_object_set_new(r, "telemetry", series(30));
	json_array_append_new(res, r);
	/* 0.996 must not read as "1.00x". */
	json_array_append_new(res, gemm_result(2, 99.6, 0.996));
	char *html = report(res, NULL);
	AX_CHECK(html && strstr(html, "<h2 id=\"efficiency\">Efficiency"));
	AX_CHECK(html && strstr(html, "href=\"#efficiency\""));
	/* perf/W: the bar chart and the table cell. */
	AX_CHECK(html && strstr(html, "gemm: performance per watt, "
				      "GFLOP/s/W (higher is better)"));
	AX_CHECK(html && strstr(html, ">2 GFLOP/s/W</td>"));
	/* Power, J per repetition gross and net, energy per GFLOP (1 J over
	 * the 2 GFLOP "work" of one repetition). */
	AX_CHECK(html && strstr(html, "<th>J per repetition</th>"));
	AX_CHECK(html && strstr(html, ">50 / 61</td>"));
	AX_CHECK(html && strstr(html, ">1</td><td class=\"num\">0.8</td>"));
	AX_CHECK(html && strstr(html, ">0.5 J/GFLOP</td>"));
	AX_CHECK(html && strstr(html, ">1.5 GiB of 8 GiB</td>"));
	/* Temperature was not measured: a dash, never a 0. */
	AX_CHECK(html && strstr(html, "<td class=\"num\">" DASH "</td>"));
	AX_CHECK(html && strstr(html, ">1410 / " DASH "</td>"));
	AX_CHECK(html && !strstr(html, "<td class=\"num\">0</td>"));
	AX_CHECK(html && !strstr(html, "0 / 0"));
	/* Below 1: slower, said in words, not rounded up. */
	AX_CHECK(html && strstr(html, "0.42" TIMES
				      " &mdash; slower than the host CPU"));
	AX_CHECK(html && strstr(html, "0.996" TIMES " &mdash; slower"));
	AX_CHECK(html && !strstr(html, "1.00" TIMES));
	AX_CHECK(html && strstr(html, "OpenBLAS 0.3.21, Haswell kernel, 2 "
				      "threads"));
	AX_CHECK(html && strstr(html, ">238.1 GFLOP/s</td>"));
	/* Throttled: a badge with its evidence, escaped. */
	AX_CHECK(html && strstr(html, "<span class=\"badge throttled\" "
				      "title=\"median of the last 20 % of 40 "
				      "samples 12 % slower &lt;b&gt;\">"
				      "throttled</span>"));
	AX_CHECK(html && strstr(html, "<small>median of the last 20 %"));
	AX_CHECK(html && !strstr(html, "slower <b>"));
	/* The sustained result's series: power and clock against time,
	 * the timed span's start marked, temperature said missing. */
	AX_CHECK(html && strstr(html, "Sustained runs against time"));
	AX_CHECK(html && strstr(html, "aria-label=\"Power (W)\""));
	AX_CHECK(html && strstr(html, "aria-label=\"SM clock (MHz)\""));
	AX_CHECK(html && !strstr(html, "aria-label=\"Temperature"));
	AX_CHECK(html && strstr(html, "timed span from 0.5 s"));
	AX_CHECK(html && strstr(html, "Not measured: temperature."));
	AX_CHECK(html && strstr(html, "RAPL every 0.1 s, 30 readings;"));
	/* Every result has power or none is missing one: no reason line. */
	AX_CHECK(html && !strstr(html, "No power sensor"));
	free(html);
	json_decref(res);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; p && (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void efficiency_without_a_sensor(void)
{
	json_t *res = json_array();
	for (int i = 0; i < 2; i++) {
		json_t *r = gemm_result(1, 30 + i, 0.4);
		json_object_set_new(r, "power", power_none(NO_RAPL));
		json_array_append_new(res, r);
	}
	char *html = report(res, NULL);
	/* One line, the stored reason quoted once for both results (the
	 * embedded data, cut off here, has it with each). */
	char *data = html ? strstr(html, "<h2 id=\"data\">") : NULL;
	if (data)
		*data = 0;
	AX_CHECK_INT(count(html, "No power sensor: " NO_RAPL), 1);
	AX_CHECK_INT(count(html, NO_RAPL), 1);
	/* No chart or table of figures that do not exist... */
	AX_CHECK(html && !strstr(html, "performance per watt"));
	AX_CHECK(html && !strstr(html, "<th>J per repetition</th>"));
	/* ...but the speed-up table all the same. */
	AX_CHECK(html && strstr(html, "0.40" TIMES
				      " &mdash; slower than the host CPU"));
	free(html);
	/* Stored text of the section is escaped like every other. */
	json_t *r = gemm_result(1, 30, 0.4);
	json_object_set_new(r, "power", power_none(EVIL));
	json_object_set_new(json_object_get(r, "cpu"), "library",
			    json_string(EVIL));
	json_array_append_new(res, r);
	html = report(res, NULL);
	AX_CHECK(html && !strstr(html, "<script>"));
	AX_CHECK_INT(count(html, "No power sensor (1 result): &lt;script&gt;"),
		     1);
	AX_CHECK(html && strstr(html, "<td>&lt;script&gt;alert(1)"));
	free(html);
	json_decref(res);
}

static void telemetry_thinned(void)
{
	json_t *s = series(5000);
	AX_CHECK_INT(ax_html_telemetry_thin(s, 2000), 0);
	AX_CHECK_INT(json_array_size(json_object_get(s, "t")), 1667);
	AX_CHECK_INT(json_array_size(json_object_get(s, "temp_c")), 1667);
	AX_CHECK_INT(json_integer_value(json_object_get(s, "n_readings")),
		     5000);
	AX_CHECK_INT(json_integer_value(json_object_get(s, "thinned_every")),
		     3);
	AX_CHECK_NEAR(
	    json_number_value(json_array_get(json_object_get(s, "t"), 1)), 0.3,
	    1e-12);
	/* Short series stay as they are. */
	json_t *short_one = series(10);
	AX_CHECK_INT(ax_html_telemetry_thin(short_one, 2000), 0);
	AX_CHECK(json_object_get(short_one, "n_readings") == NULL);
	json_decref(short_one);
	/* The caption says how many readings there were and how many are
	 * drawn. */
	json_t *res = json_array();
	json_t *r = gemm_result(1, 100, 2.5);
	json_object_set_new(r, "power", power_rapl());
	json_object_set_new(r, "telemetry", s);
	json_array_append_new(res, r);
	char *html = report(res, NULL);
	AX_CHECK(html && strstr(html, "5000 readings, 1 in 3 drawn"));
	AX_CHECK(html && strstr(html, "2.50" TIMES
				      " &mdash; faster than the host CPU"));
	free(html);
	json_decref(res);
}

/* ---- systems side by side ------------------------------------------ */

/* A result with its 95 % interval (+-5 %) and a run label. */
static json_t *labelled(int run, const char *fp, const char *name,
			const char *suite, json_t *params, const char *unit,
			double median, bool hib, const char *label)
{
	json_t *r = result(run, fp, name, suite, params, unit, median, "ok");
	json_object_set_new(r, "ci_lo", json_real(median * 0.95));
	json_object_set_new(r, "ci_hi", json_real(median * 1.05));
	json_object_set_new(r, "higher_is_better", json_boolean(hib));
	if (label)
		json_object_set_new(r, "label", json_string(label));
	return r;
}

static char *report_d(struct ax_html_data *d, int *rc)
{
	json_t *suites = suite_doc();
	char *buf = NULL, err[400] = "";
	size_t len = 0;
	d->suites = suites;
	d->generated_at = "2024-01-01T00:00:00Z";
	FILE *f = open_memstream(&buf, &len);
	*rc = ax_html_report_write(f, d, err, sizeof(err));
	fclose(f);
	json_decref(suites);
	if (*rc)
		printf("# %s\n", err);
	return buf;
}

/* Two systems, B at 0.8 of A on two bandwidth cases and 1.25x on a
 * latency case (lower is better, 8 us against 10 us), one failed case. */
static json_t *two_systems(void)
{
	json_t *res = json_array();
	for (int sz = 4096; sz <= 8192; sz *= 2) {
		json_array_append_new(
		    res,
		    labelled(1, "A", "gpu-a", "bandwidth",
			     json_pack("{s:s,s:i}", "op", "copy", "size", sz),
			     "GB/s", 10, true, NULL));
		json_array_append_new(
		    res,
		    labelled(2, "B", "gpu-b", "bandwidth",
			     json_pack("{s:s,s:i}", "op", "copy", "size", sz),
			     "GB/s", 8, true, NULL));
	}
	json_array_append_new(res, labelled(1, "A", "gpu-a", "latency",
					    json_pack("{s:s}", "op", "submit"),
					    "us", 10, false, NULL));
	json_array_append_new(res, labelled(2, "B", "gpu-b", "latency",
					    json_pack("{s:s}", "op", "submit"),
					    "us", 8, false, NULL));
	json_array_append_new(res, result(1, "A", "gpu-a", "gemm",
					  json_pack("{s:i}", "m", 64),
					  "GFLOP/s", 30, "ok"));
	json_array_append_new(res, result(2, "B", "gpu-b", "gemm",
					  json_pack("{s:i}", "m", 64),
					  "GFLOP/s", 0, "failed-verification"));
	return res;
}

static void systems_side_by_side(void)
{
	json_t *res = two_systems();
	json_t *runs = json_pack(
	    "[{s:i,s:s,s:s,s:s,s:s,s:[s,s,s],s:o,s:{s:s,s:s,s:i}},"
	    "{s:i,s:s,s:s,s:s,s:s,s:[s,s],s:o,s:{s:s,s:s,s:i}}]",
	    "id", 2, "started_at", "2024-01-02", "profile", "quick", "git_sha",
	    "abc1234", "axbench_version", "0.1.0", "argv", "axbench", "run",
	    "--profile=quick", "device", device("B", "gpu-b"), "host",
	    "hostname", "box", "cpu_model", "Xeon", "cores", 2, "id", 1,
	    "started_at", "2024-01-01", "profile", "full", "git_sha", "abc1234",
	    "axbench_version", "0.1.0", "argv", "axbench", "it's <b>", "device",
	    device("A", "gpu-a"), "host", "hostname", "box", "cpu_model",
	    "Xeon", "cores", 2);
	struct ax_html_data d = {.results = res, .runs = runs};
	int rc;
	char *html = report_d(&d, &rc);
	AX_CHECK_INT(rc, 0);
	/* Two systems named host/device, each with its own colour. */
	AX_CHECK(html &&
		 strstr(html, "<span class=\"sw c0\">\xe2\x96\xa0</span>#1 "
			      "box/gpu-a"));
	AX_CHECK(html &&
		 strstr(html, "<span class=\"sw c1\">\xe2\x96\xa0</span>#2 "
			      "box/gpu-b"));
	AX_CHECK(html && strstr(html, "fill=\"#0072B2\"") &&
		 strstr(html, "fill=\"#E69F00\""));
	/* The overview: geometric mean of 0.8, 0.8 and 1.25 (latency
	 * inverted: 8 us is better), over the 3 cases both passed. */
	AX_CHECK(html && strstr(html, "over the 3 cases that every system"));
	AX_CHECK(html && strstr(html, "0.93" TIMES " (-7.17 %, slower); 1 "
				      "win, 2 losses, 0 ties"));
	AX_CHECK(html && strstr(html, "1.25" TIMES " faster (+25 %); 1 win, "
				      "0 losses, 0 ties"));
	AX_CHECK(html && strstr(html, "0.80" TIMES " (-20 %, slower); 0 "
				      "wins, 2 losses, 0 ties"));
	AX_CHECK(html && strstr(html, "1 case measured (or passed) on some "
				      "systems only is left out"));
	/* Per case: value, half its interval, the ratio. */
	AX_CHECK(html && strstr(html, ">8 \xc2\xb1"
				      "0.4 \xc2\xb7 0.80" TIMES
				      " (-20 %, slower)</text>"));
	AX_CHECK(html && strstr(html, ">10 \xc2\xb1"
				      "0.5 \xc2\xb7 "
				      "reference</text>"));
	/* A failed result says so, with no bar (never a 0). */
	AX_CHECK(html && strstr(html, ">failed: failed verification (no "
				      "figure)</text>"));
	AX_CHECK(html && !strstr(html, "width=\"0.0\""));
	/* The systems table: profile, commit, version and command line,
	 * rows that differ marked, shared ones once. */
	AX_CHECK(html && strstr(html, "<tr class=\"diff\"><th scope=\"row\">"
				      "Profile"));
	AX_CHECK(html && strstr(html, "<td>full</td><td>quick</td>"));
	AX_CHECK(html && strstr(html, "abc1234</code> (all systems)"));
	AX_CHECK(html && strstr(html, "<code>axbench run --profile=quick"
				      "</code>"));
	AX_CHECK(html && strstr(html, "<code>axbench &#39;it&#39;\\&#39;&#39;"
				      "s &lt;b&gt;&#39;</code>"));
	free(html);

	/* The reference by number: B, so A is 1.25x faster on bandwidth. */
	d.reference = "2";
	html = report_d(&d, &rc);
	AX_CHECK_INT(rc, 0);
	AX_CHECK(html && strstr(html, "1.25" TIMES " faster (+25 %); 2 wins"));
	free(html);
	/* By a part of a name; one that matches nothing or both is
	 * refused before anything is written, naming the systems. */
	d.reference = "gpu-b";
	html = report_d(&d, &rc);
	AX_CHECK_INT(rc, 0);
	free(html);
	char err[400] = "";
	d.reference = "nothing";
	AX_CHECK_INT(ax_html_report_check(&d, err, sizeof(err)), AX_EINVAL);
	AX_CHECK(strstr(err, "matches no system; the systems are 1 "
			     "'box/gpu-a', 2 'box/gpu-b'") != NULL);
	d.reference = "gpu";
	AX_CHECK_INT(ax_html_report_check(&d, err, sizeof(err)), AX_EINVAL);
	AX_CHECK(strstr(err, "matches 2 systems") != NULL);
	json_decref(res);
	json_decref(runs);
}

static void label_by_and_tuning(void)
{
	json_t *res = json_array();
	/* Two labelled runs on one device, and a tuning trial. */
	json_array_append_new(
	    res, labelled(1, "A", "gpu", "bandwidth",
			  json_pack("{s:s,s:i}", "op", "copy", "size", 4096),
			  "GB/s", 10, true, "before"));
	json_array_append_new(
	    res, labelled(2, "A", "gpu", "bandwidth",
			  json_pack("{s:s,s:i}", "op", "copy", "size", 4096),
			  "GB/s", 12.5, true, "after"));
	json_t *trial = labelled(
	    2, "A", "gpu", "bandwidth",
	    json_pack("{s:s,s:i,s:i}", "op", "copy", "size", 4096, "wg", 32),
	    "GB/s", 3, true, "after");
	json_object_set_new(
	    trial, "extra",
	    json_pack("{s:i,s:s}", "tune_session", 1, "role", "trial"));
	json_array_append_new(res, trial);
	struct ax_html_data d = {.results = res};
	int rc;
	char *html = report_d(&d, &rc);
	/* By label (the default): each label a system. */
	AX_CHECK(html && strstr(html, "#1 before</span>"));
	AX_CHECK(html && strstr(html, "#2 after</span>"));
	AX_CHECK(html && strstr(html, "1.25" TIMES " faster (+25 %)"));
	/* The trial is left out of the per-case charts, and said. */
	AX_CHECK(html && strstr(html, " 1 measurement of tuning sessions is "
				      "left out"));
	AX_CHECK(html && !strstr(html, "wg=32</text>"));
	free(html);
	d.include_tune = true;
	html = report_d(&d, &rc);
	AX_CHECK(html && strstr(html, "wg=32</text>"));
	free(html);
	d.include_tune = false;
	/* By device: one system, the newest result of the case shown. */
	d.label_by = AX_HTML_BY_DEVICE;
	html = report_d(&d, &rc);
	AX_CHECK(html && strstr(html, "One system, <span class=\"sys\">"));
	AX_CHECK(html && strstr(html, ">12.5 \xc2\xb1"
				      "0.62</text>"));
	AX_CHECK(html && !strstr(html, ">10 \xc2\xb1"));
	free(html);
	/* By run: "run 1" and "run 2" with their labels; a run without
	 * results (a monitor's) is no system. */
	json_t *runs =
	    json_pack("[{s:i,s:s,s:o,s:{s:s}}]", "id", 3, "profile", "monitor",
		      "device", device("A", "gpu"), "host", "hostname", "box");
	d.runs = runs;
	d.label_by = AX_HTML_BY_RUN;
	html = report_d(&d, &rc);
	AX_CHECK(html && strstr(html, "#1 before (run 1)</span>"));
	AX_CHECK(html && strstr(html, "#2 after (run 2)</span>"));
	AX_CHECK(html && !strstr(html, "#3 "));
	AX_CHECK(html && strstr(html, "over the 1 case that every system"));
	free(html);
	json_decref(runs);
	json_decref(res);
}

static void stop_reasons_in_words(void)
{
	json_t *res = json_array();
	json_t *r =
	    result(1, "A", "gpu", "peak", json_pack("{s:s}", "op", "fma"),
		   "GFLOP/s", 10, "ok");
	json_object_set_new(r, "stop_reason", json_string("time-limit"));
	json_object_set_new(r, "rel_noise", json_real(0.2));
	json_array_append_new(res, r);
	r = result(1, "A", "gpu", "gemm", json_pack("{s:i}", "m", 64),
		   "GFLOP/s", 0, "timeout");
	json_array_append_new(res, r);
	char *html = report(res, NULL);
	/* --max-time is a normal end of sampling, not a timeout... */
	AX_CHECK(html && strstr(html, "<td>time limit reached</td>"));
	AX_CHECK(html && !strstr(html, "timed out sampling"));
	/* ...while a fence that ran out is. */
	AX_CHECK(html && strstr(html, "GPU work timed out"));
	free(html);
	json_decref(res);
}

/* A system of many runs lists its newest six in the systems table, after
 * how many earlier runs there were; the history draws every run. */
static void long_history_stays_short(void)
{
	json_t *res = json_array(), *runs = json_array();
	for (int run = 1; run <= 40; run++) {
		char at[32];
		snprintf(at, sizeof(at), "2024-01-01T00:%02d:00Z", run);
		json_t *r = result(run, "A", "gpu", "bandwidth",
				   json_pack("{s:s}", "op", "copy"), "GB/s",
				   run <= 20 ? 10 : 20, "ok");
		json_object_set_new(r, "started_at", json_string(at));
		json_array_append_new(res, r);
		json_array_insert_new(
		    runs, 0,
		    json_pack("{s:i,s:s,s:s,s:o,s:{s:s,s:s,s:i}}", "id", run,
			      "started_at", at, "status", "complete", "device",
			      device("A", "gpu"), "host", "hostname", "box",
			      "cpu_model", "Xeon", "cores", 2));
	}
	struct ax_html_data d = {.results = res, .runs = runs};
	int rc;
	char *html = report_d(&d, &rc);
	AX_CHECK_INT(rc, 0);
	AX_CHECK(html && strstr(html, "(34 earlier runs)\nrun 35 ("));
	AX_CHECK(html && strstr(html, "run 40 (2024-01-01T00:40:00Z, "
				      "complete)"));
	AX_CHECK(html && !strstr(html, "run 34 (2024"));
	/* One row of 40 points; the step at run 21 is its one change. */
	AX_CHECK(html && strstr(html, "<title>40 runs, medians from 10 to 20 "
				      "GB/s; 0 worse, 1 better</title>"));
	AX_CHECK(html && strstr(html, "\"change\":[0,0,0,0,0,0,0,0,0,0,0,0,"
				      "0,0,0,0,0,0,0,0,1,0,"));
	free(html);
	json_decref(res);
	json_decref(runs);
}

AX_TEST_MAIN(AX_TEST(escape_html), AX_TEST(escape_json),
	     AX_TEST(report_escapes_device_names),
	     AX_TEST(empty_sections_say_so), AX_TEST(sections_with_data),
	     AX_TEST(efficiency_with_a_sensor),
	     AX_TEST(efficiency_without_a_sensor), AX_TEST(telemetry_thinned),
	     AX_TEST(systems_side_by_side), AX_TEST(label_by_and_tuning),
	     AX_TEST(stop_reasons_in_words), AX_TEST(long_history_stays_short))
