/* tests/unit/test_html.c - escaping and the HTML report built from
 * rows made by hand (core/db_rows.h). */
#include "ax_test.h"

#include "core/db_rows.h"
#include "core/error.h"
#include "core/roles.h"
#include "reports/html.h"
#include "reports/html_escape.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- rows built by hand (core/db_rows.h: mem NULL, texts anywhere) --- */

/* What a test builds, freed by arena_free at its end. */
static void *arena[8192];
static int n_arena;

static void *grab(void *p)
{
	if (p && n_arena < (int)(sizeof(arena) / sizeof(arena[0])))
		arena[n_arena++] = p;
	return p;
}

static char *text_of(const char *s) { return grab(strdup(s)); }

static void arena_free(void)
{
	while (n_arena > 0)
		free(arena[--n_arena]);
}

static struct ax_db_device_row device(const char *fp, const char *name)
{
	return (struct ax_db_device_row){.id = 1,
					 .fingerprint = fp,
					 .name = name,
					 .vendor = "Mesa",
					 .type = "cpu",
					 .driver_name = "llvmpipe",
					 .driver_info = "Mesa 22.3.6",
					 .api_version = "1.3.230",
					 .vendor_id = AX_DB_NONE,
					 .device_id = AX_DB_NONE,
					 .api_version_packed = AX_DB_NONE,
					 .driver_version_packed = AX_DB_NONE};
}

static const struct ax_db_host_row box = {1, "box", "Xeon", 2};

/* "op=copy size=65536": integers as integers, the rest as text, in the
 * order given. */
static struct ax_db_params params(const char *spec)
{
	struct ax_db_params p = {grab(calloc(16, sizeof(*p.v))), 0};
	char *copy = text_of(spec), *save = NULL;
	for (char *t = strtok_r(copy, " ", &save); t && p.n < 16;
	     t = strtok_r(NULL, " ", &save)) {
		struct ax_db_param *v = &p.v[p.n++];
		char *eq = strchr(t, '='), *end;
		*eq = 0;
		v->name = t;
		v->text = eq + 1;
		v->i = strtoll(eq + 1, &end, 10);
		v->num = (double)v->i;
		v->type =
		    *end || end == eq + 1 ? AX_DB_VALUE_TEXT : AX_DB_VALUE_INT;
	}
	return p;
}

/* A power row not measured (a result without one has present false). */
static struct ax_db_power_row power_none(const char *reason)
{
	return (struct ax_db_power_row){.present = true,
					.reason = reason,
					.readings = 0,
					.seconds = NAN,
					.mean_w = NAN,
					.max_w = NAN,
					.idle_w = NAN,
					.energy_rep_j = NAN,
					.energy_rep_net_j = NAN,
					.temp_mean_c = NAN,
					.temp_max_c = NAN,
					.sm_mhz = NAN,
					.mem_mhz = NAN,
					.mem_peak_b = NAN,
					.mem_budget_b = NAN,
					.perf_per_w = NAN,
					.throttled = AX_DB_NONE};
}

static struct ax_db_result_row *result(int run, const char *fp,
				       const char *name, const char *suite,
				       const char *spec, const char *unit,
				       double median, const char *status)
{
	struct ax_db_result_row *r = calloc(1, sizeof(*r));
	double *s = grab(calloc(8, sizeof(double)));
	for (int i = 0; i < 8; i++)
		s[i] = median * (1 + 0.001 * i);
	*r = (struct ax_db_result_row){
	    .id = run * 100,
	    .run_id = run,
	    .started_at = "2024-01-01T00:00:00Z",
	    .suite = suite,
	    .case_label = "",
	    /* The parameters' text stands in for the hash: equal params
	     * match. */
	    .params_hash = spec,
	    .unit = unit,
	    .stop_reason = "noise",
	    .status = status,
	    .ok = !strcmp(status, "ok"),
	    .higher_is_better = true,
	    .work = 2e9,
	    .n = 8,
	    .median = median,
	    .min = NAN,
	    .max = NAN,
	    .mean = NAN,
	    .stddev = NAN,
	    .q1 = median * 0.99,
	    .q3 = median * 1.01,
	    .mad = NAN,
	    .ci_lo = median * 0.995,
	    .ci_hi = median * 1.005,
	    .rel_noise = 0.01,
	    .noise_target = NAN,
	    .speedup_vs_cpu = NAN,
	    .params = params(spec),
	    .bytes = NAN,
	    .input_bytes = NAN,
	    .device = device(fp, name),
	    .host = box,
	    .power = {.throttled = AX_DB_NONE},
	    .cpu = {.threads = AX_DB_NONE, .n = AX_DB_NONE},
	    .samples = s,
	    .seconds = s,
	    .n_samples = 8};
	return r;
}

static void push(struct ax_db_results *l, struct ax_db_result_row *r)
{
	AX_CHECK_INT(ax_db_results_push(l, r), 0);
}

/* The suite document of the suites these tests use, as app/suite_doc.c
 * builds it: the report finds ceilings and curves by role. */
static const char *const bw_group[] = {"op", NULL};
static const struct ax_suite_curve bw_curve = {
    "size", bw_group, "Bandwidth against working-set size",
    "working set (bytes)"};
static const struct ax_suite_info suite_infos[] = {
    {"bandwidth", "GB/s", true, AX_ROLE_BANDWIDTH_PEAK | AX_ROLE_WORKLOAD, NULL,
     &bw_curve, NULL},
    {"peak", "GFLOP/s", true, AX_ROLE_COMPUTE_PEAK, NULL, NULL, NULL},
    {"gemm", "GFLOP/s", true, AX_ROLE_WORKLOAD, NULL, NULL, NULL},
};
static const struct ax_suite_doc suites = {suite_infos, 3};

/* The report of d, as a string (its rc in *rc). */
static char *report_d(struct ax_html_data *d, int *rc)
{
	char *buf = NULL, err[400] = "";
	size_t len = 0;
	d->suites = &suites;
	d->generated_at = "2024-01-01T00:00:00Z";
	FILE *f = open_memstream(&buf, &len);
	*rc = ax_html_report_write(f, d, err, sizeof(err));
	fclose(f);
	if (*rc)
		printf("# %s\n", err);
	return buf;
}

/* The report of a small but complete data set, as a string. */
static char *report(const struct ax_db_results *results,
		    const struct ax_db_sessions *sessions,
		    const struct ax_html_telemetry *telemetry)
{
	struct ax_html_data d = {
	    .results = results, .sessions = sessions, .telemetry = telemetry};
	int rc;
	char *html = report_d(&d, &rc);
	AX_CHECK_INT(rc, 0);
	return html;
}

static void report_escapes_device_names(void)
{
	struct ax_db_results res = {0};
	push(&res, result(1, "A", EVIL, "bandwidth", "op=copy size=65536",
			  "GB/s", 10, "ok"));
	push(&res, result(1, "B", "llvmpipe", "bandwidth", "op=copy size=65536",
			  "GB/s", 12, "failed-verification"));
	char *html = report(&res, NULL, NULL);
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
	ax_db_results_free(&res);
	arena_free();
}

static void empty_sections_say_so(void)
{
	struct ax_db_results res = {0};
	char *html = report(&res, NULL, NULL);
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
	struct ax_html_data bare = {.results = &res,
				    .generated_at = "2024-01-01T00:00:00Z"};
	size_t len = 0;
	FILE *f = open_memstream(&html, &len);
	AX_CHECK_INT(ax_html_report_write(f, &bare, NULL, 0), 0);
	fclose(f);
	AX_CHECK(html && strstr(html, "No suite declares a curve."));
	free(html);
	struct ax_html_data d = {0};
	AX_CHECK_INT(ax_html_report_write(stdout, &d, NULL, 0), -1);
}

/* A tuning trial of session 1 (suite gemm): tile and its value. */
static struct ax_db_trial_row trial(int index, const char *spec, double value)
{
	return (struct ax_db_trial_row){.id = index + 1,
					.index = index,
					.status = "ok",
					.value = value,
					.seconds = NAN,
					.compile_ms = NAN,
					.objective_value = NAN,
					.params = params(spec)};
}

static void sections_with_data(void)
{
	struct ax_db_results res = {0};
	char specs[8][64];
	int k = 0;
	for (int run = 1; run <= 2; run++)
		for (int sz = 4096; sz <= 1 << 20; sz *= 4, k++) {
			snprintf(specs[k % 8], sizeof(specs[0]),
				 "op=copy size=%d", sz);
			push(&res, result(run, "A", "gpu", "bandwidth",
					  text_of(specs[k % 8]), "GB/s",
					  run == 1 ? 10 : 5, "ok"));
		}
	push(&res,
	     result(1, "A", "gpu", "peak", "op=fma", "GFLOP/s", 400, "ok"));
	struct ax_db_result_row *gemm = result(
	    1, "A", "gpu", "gemm", "m=512 n=512 k=512", "GFLOP/s", 100, "ok");
	/* The bytes the suite declares: a point on the roofline. */
	gemm->bytes = 3.0 * 512 * 512 * 4;
	push(&res, gemm);
	struct ax_db_trial_row trials[] = {trial(0, "tile=8", 50),
					   trial(1, "tile=16", 90)};
	struct ax_db_session_row ses = {.id = 1,
					.suite = "gemm",
					.strategy = "bo",
					.seed = 7,
					.has_seed = true,
					.objective = "GFLOP/s",
					.budget = AX_DB_NONE,
					.device = device("A", "gpu"),
					.trials = trials,
					.n_trials = 2};
	struct ax_db_session_row *sv[] = {&ses};
	struct ax_db_sessions sessions = {sv, 1};
	char *html = report(&res, &sessions, NULL);
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
	/* The best point and which parameter mattered. */
	AX_CHECK(html && strstr(html, "<td class=\"num\">90 </td>"
				      "<td>tile=16</td>"));
	AX_CHECK(html && strstr(html, "<td>tile</td><td class=\"num\">2</td>"
				      "<td class=\"num\">44.4 %</td>"));
	/* Run 2 halved every bandwidth case: marked worse in the history,
	 * from the stored medians and intervals. */
	AX_CHECK(html && strstr(html, "(-50.0 %, worse)"));
	AX_CHECK(html && strstr(html, "5 changes for the worse marked."));
	AX_CHECK(html && strstr(html, "(higher is better)"));
	AX_CHECK(html && strstr(html, "<title>"));
	free(html);
	ax_db_results_free(&res);
	arena_free();
}

/* ---- efficiency ------------------------------------------------------- */

#define DASH "\xe2\x80\x94"
#define TIMES "\xc3\x97"
#define NO_RAPL                                                                \
	"no sensor for llvmpipe (LLVM 15.0.6, 256 bits): RAPL: "               \
	"/sys/class/powercap: No such file or directory"

/* gemm at 100 GFLOP/s (2 GFLOP a repetition) drawing 50 W on RAPL: no
 * temperature, a clock, 1.5 GiB of 8 GiB, throttled, sustained. */
static struct ax_db_power_row power_rapl(void)
{
	struct ax_db_power_row p = power_none(NULL);
	p.source = "RAPL";
	p.readings = 40;
	p.seconds = 4.0;
	p.mean_w = 50;
	p.max_w = 61;
	p.idle_w = 10;
	p.energy_rep_j = 1.0;
	p.energy_rep_net_j = 0.8;
	p.sm_mhz = 1410;
	p.mem_peak_b = 1.5 * (1 << 30);
	p.mem_budget_b = 8.0 * (1 << 30);
	p.perf_per_w = 2;
	p.perf_per_w_unit = "GFLOP/s/W";
	p.throttled = 1;
	p.throttle_evidence = "median of the last 20 % of 40 "
			      "samples 12 % slower <b>";
	p.series_id = 7;
	return p;
}

/* n readings every 0.1 s: power 40..60 W, no temperature, a clock. */
static struct ax_db_series_row *series(int n)
{
	struct ax_db_series_row *s = grab(calloc(1, sizeof(*s)));
	double **cols[] = {&s->t,      &s->power_w, &s->energy_j,  &s->temp_c,
			   &s->sm_mhz, &s->mem_mhz, &s->mem_used_b};
	for (size_t k = 0; k < sizeof(cols) / sizeof(cols[0]); k++) {
		*cols[k] = grab(calloc((size_t)n + 1, sizeof(double)));
		for (int i = 0; i < n; i++)
			(*cols[k])[i] = NAN;
	}
	for (int i = 0; i < n; i++) {
		s->t[i] = 0.1 * i;
		s->power_w[i] = 40 + 20 * (i % 2);
		s->sm_mhz[i] = 1410;
	}
	s->id = 7;
	s->kind = "case";
	s->source = "RAPL";
	s->interval_s = 0.1;
	s->timed_from_s = 0.5;
	s->n = (size_t)n;
	return s;
}

static struct ax_db_result_row *gemm_result(int run, double median,
					    double speedup)
{
	struct ax_db_result_row *r =
	    result(run, "A", "llvmpipe", "gemm", "m=1024 n=1024 k=1024",
		   "GFLOP/s", median, "ok");
	r->speedup_vs_cpu = speedup;
	r->cpu = (struct ax_db_cpu_row){.id = 1,
					.library = "OpenBLAS",
					.version = "0.3.21",
					.corename = "Haswell",
					.threads = 2,
					.note = "same inputs",
					.median = median / speedup,
					.unit = "GFLOP/s",
					.n = AX_DB_NONE,
					.ci_lo = NAN,
					.ci_hi = NAN};
	return r;
}

static void efficiency_with_a_sensor(void)
{
	struct ax_db_results res = {0};
	struct ax_db_result_row *r = gemm_result(1, 100, 0.42);
	r->power = power_rapl();
	r->sustained = true;
	push(&res, r);
	/* 0.996 must not read as "1.00x". */
	push(&res, gemm_result(2, 99.6, 0.996));
	struct ax_html_telemetry tel[2] = {{series(30), 30, 1}, {NULL, 0, 0}};
	char *html = report(&res, NULL, tel);
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
	AX_CHECK(html &&
		 strstr(html, "0.42" TIMES "</b> slower than the host CPU"));
	AX_CHECK(html && strstr(html, "0.996" TIMES "</b> slower"));
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
	/* The embedded data has the series as the result's "telemetry". */
	AX_CHECK(html && strstr(html, "\"telemetry\":{\"energy_j\":["));
	free(html);
	ax_db_results_free(&res);
	arena_free();
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
	struct ax_db_results res = {0};
	for (int i = 0; i < 2; i++) {
		struct ax_db_result_row *r = gemm_result(1, 30 + i, 0.4);
		r->power = power_none(NO_RAPL);
		push(&res, r);
	}
	char *html = report(&res, NULL, NULL);
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
	AX_CHECK(html &&
		 strstr(html, "0.40" TIMES "</b> slower than the host CPU"));
	free(html);
	/* Stored text of the section is escaped like every other. */
	struct ax_db_result_row *r = gemm_result(1, 30, 0.4);
	r->power = power_none(EVIL);
	r->cpu.library = EVIL;
	push(&res, r);
	html = report(&res, NULL, NULL);
	AX_CHECK(html && !strstr(html, "<script>"));
	AX_CHECK_INT(count(html, "No power sensor (1 result): &lt;script&gt;"),
		     1);
	AX_CHECK(html && strstr(html, "<td>&lt;script&gt;alert(1)"));
	free(html);
	ax_db_results_free(&res);
	arena_free();
}

static void telemetry_thinned(void)
{
	struct ax_db_series_row *s = series(5000);
	struct ax_html_telemetry t;
	ax_html_telemetry_thin(s, 2000, &t);
	AX_CHECK(t.series == s);
	AX_CHECK_INT(s->n, 1667);
	AX_CHECK_INT(t.n_readings, 5000);
	AX_CHECK_INT(t.thinned_every, 3);
	AX_CHECK_NEAR(s->t[1], 0.3, 1e-12);
	AX_CHECK_NEAR(s->power_w[1], 60, 1e-12);
	AX_CHECK(isnan(s->temp_c[1]));
	/* Short series stay as they are. */
	struct ax_db_series_row *short_one = series(10);
	struct ax_html_telemetry st;
	ax_html_telemetry_thin(short_one, 2000, &st);
	AX_CHECK_INT(short_one->n, 10);
	AX_CHECK_INT(st.thinned_every, 1);
	/* The caption says how many readings there were and how many are
	 * drawn; the embedded series says it was thinned. */
	struct ax_db_results res = {0};
	struct ax_db_result_row *r = gemm_result(1, 100, 2.5);
	r->power = power_rapl();
	push(&res, r);
	char *html = report(&res, NULL, &t);
	AX_CHECK(html && strstr(html, "5000 readings, 1 in 3 drawn"));
	AX_CHECK(html &&
		 strstr(html, "2.50" TIMES "</b> faster than the host CPU"));
	AX_CHECK(html && strstr(html, "\"n_readings\":5000,") &&
		 strstr(html, "\"thinned_every\":3,"));
	free(html);
	ax_db_results_free(&res);
	arena_free();
}

/* ---- systems side by side ------------------------------------------ */

/* A result with its 95 % interval (+-5 %) and a run label. */
static struct ax_db_result_row *labelled(int run, const char *fp,
					 const char *name, const char *suite,
					 const char *spec, const char *unit,
					 double median, bool hib,
					 const char *label)
{
	struct ax_db_result_row *r =
	    result(run, fp, name, suite, spec, unit, median, "ok");
	r->ci_lo = median * 0.95;
	r->ci_hi = median * 1.05;
	r->higher_is_better = hib;
	r->run_label = label;
	return r;
}

/* Two systems, B at 0.8 of A on two bandwidth cases and 1.25x on a
 * latency case (lower is better, 8 us against 10 us), one failed case. */
static void two_systems(struct ax_db_results *res)
{
	push(res, labelled(1, "A", "gpu-a", "bandwidth", "op=copy size=4096",
			   "GB/s", 10, true, NULL));
	push(res, labelled(2, "B", "gpu-b", "bandwidth", "op=copy size=4096",
			   "GB/s", 8, true, NULL));
	push(res, labelled(1, "A", "gpu-a", "bandwidth", "op=copy size=8192",
			   "GB/s", 10, true, NULL));
	push(res, labelled(2, "B", "gpu-b", "bandwidth", "op=copy size=8192",
			   "GB/s", 8, true, NULL));
	push(res, labelled(1, "A", "gpu-a", "latency", "op=submit", "us", 10,
			   false, NULL));
	push(res, labelled(2, "B", "gpu-b", "latency", "op=submit", "us", 8,
			   false, NULL));
	push(res, result(1, "A", "gpu-a", "gemm", "m=64", "GFLOP/s", 30, "ok"));
	push(res, result(2, "B", "gpu-b", "gemm", "m=64", "GFLOP/s", 0,
			 "failed-verification"));
}

/* A run row (texts borrowed). */
static struct ax_db_run_row run_row(int id, const char *started, const char *fp,
				    const char *name)
{
	return (struct ax_db_run_row){.id = id,
				      .started_at = started,
				      .status = "complete",
				      .n_results = AX_DB_NONE,
				      .device = device(fp, name),
				      .host = box};
}

/* The runs of two_systems: B's newer, each with its own profile and
 * command line, one commit and version. */
static struct ax_db_runs two_runs(void)
{
	static const char *const argv2[] = {"axbench", "run",
					    "--profile=quick"};
	static const char *const argv1[] = {"axbench", "it's <b>"};
	static struct ax_db_run_row r1, r2;
	static struct ax_db_run_row *rv[] = {&r2, &r1};
	r2 = run_row(2, "2024-01-02", "B", "gpu-b");
	r1 = run_row(1, "2024-01-01", "A", "gpu-a");
	r2.status = r1.status = NULL;
	r2.profile = "quick";
	r1.profile = "full";
	r2.git_sha = r1.git_sha = "abc1234";
	r2.axbench_version = r1.axbench_version = "0.1.0";
	r2.argv = argv2;
	r2.argc = 3;
	r1.argv = argv1;
	r1.argc = 2;
	return (struct ax_db_runs){rv, 2};
}

static void systems_side_by_side(void)
{
	struct ax_db_results res = {0};
	two_systems(&res);
	struct ax_db_runs runs = two_runs();
	struct ax_html_data d = {.results = &res, .runs = &runs};
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
	ax_db_results_free(&res);
	arena_free();
}

static void label_by_and_tuning(void)
{
	struct ax_db_results res = {0};
	/* Two labelled runs on one device, and a tuning trial. */
	push(&res, labelled(1, "A", "gpu", "bandwidth", "op=copy size=4096",
			    "GB/s", 10, true, "before"));
	push(&res, labelled(2, "A", "gpu", "bandwidth", "op=copy size=4096",
			    "GB/s", 12.5, true, "after"));
	struct ax_db_result_row *tr =
	    labelled(2, "A", "gpu", "bandwidth", "op=copy size=4096 wg=32",
		     "GB/s", 3, true, "after");
	tr->tune_session = 1;
	tr->tune_role = "trial";
	push(&res, tr);
	struct ax_html_data d = {.results = &res};
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
	struct ax_db_run_row monitor = run_row(3, NULL, "A", "gpu");
	monitor.profile = "monitor";
	monitor.host = (struct ax_db_host_row){1, "box", NULL, AX_DB_NONE};
	struct ax_db_run_row *mv[] = {&monitor};
	struct ax_db_runs runs = {mv, 1};
	d.runs = &runs;
	d.label_by = AX_HTML_BY_RUN;
	html = report_d(&d, &rc);
	AX_CHECK(html && strstr(html, "#1 before (run 1)</span>"));
	AX_CHECK(html && strstr(html, "#2 after (run 2)</span>"));
	AX_CHECK(html && !strstr(html, "#3 "));
	AX_CHECK(html && strstr(html, "over the 1 case that every system"));
	free(html);
	ax_db_results_free(&res);
	arena_free();
}

/* Runs of other kinds beside two plain runs: a recommend run and a
 * tune run, each labelled, make no system (so the overview keeps its
 * shared case), unless named (all_kinds) or, for the tune run,
 * include_tune. */
static void run_kinds_make_systems(void)
{
	struct ax_db_results res = {0};
	const char *const labels[] = {"A", "B", "R", "T"};
	const double medians[] = {10, 8, 20, 30};
	struct ax_db_run_row rows[4], *rv[4];
	for (int run = 1; run <= 4; run++) {
		struct ax_db_result_row *r =
		    labelled(run, "A", "gpu", "bandwidth", "op=copy size=4096",
			     "GB/s", medians[run - 1], true, labels[run - 1]);
		if (run == 4) {
			r->tune_session = 1;
			r->tune_role = "trial";
		}
		push(&res, r);
		rows[4 - run] = run_row(run, "2024-01-01", "A", "gpu");
		rows[4 - run].label = labels[run - 1];
		rv[4 - run] = &rows[4 - run];
	}
	rows[1].kind = "recommend"; /* run 3 */
	rows[0].kind = "tune";	    /* run 4 */
	rows[2].kind = rows[3].kind = "run";
	struct ax_db_runs runs = {rv, 4};
	struct ax_html_data d = {.results = &res, .runs = &runs};
	int rc;
	char *html = report_d(&d, &rc);
	AX_CHECK_INT(rc, 0);
	AX_CHECK(html && strstr(html, "in 4 runs on 2 systems"));
	AX_CHECK(html && strstr(html, "; 1 tune run and 1 recommend run make "
				      "no system"));
	AX_CHECK(html && !strstr(html, "#3 "));
	AX_CHECK(html && strstr(html, "over the 1 case that every system"));
	AX_CHECK(html && strstr(html, "0.80" TIMES " (-20 %, slower); 0 "
				      "wins, 1 loss, 0 ties"));
	/* The recommend run's figure is in no history either: one series
	 * of the two plain runs. */
	AX_CHECK(html && strstr(html, "<title>2 runs, medians from 8 to 10 "));
	free(html);
	/* Named runs (report --runs): the recommend run is a system. */
	d.all_kinds = true;
	html = report_d(&d, &rc);
	AX_CHECK(html && strstr(html, "in 4 runs on 3 systems"));
	AX_CHECK(html && strstr(html, "#3 R</span>"));
	AX_CHECK(html && !strstr(html, "#4 "));
	free(html);
	/* --include-tune: the tune run is a system, the recommend run
	 * not. */
	d.all_kinds = false;
	d.include_tune = true;
	html = report_d(&d, &rc);
	AX_CHECK(html && strstr(html, "in 4 runs on 3 systems"));
	AX_CHECK(html && strstr(html, "#3 T</span>"));
	AX_CHECK(html && strstr(html, "; 1 recommend run makes no system"));
	free(html);
	ax_db_results_free(&res);
	arena_free();
}

/* No case shared by all three systems: each against the reference over
 * the cases the two share, with their count. */
static void pairwise_overview(void)
{
	struct ax_db_results res = {0};
	push(&res, labelled(1, "A", "gpu", "bandwidth", "op=copy size=4096",
			    "GB/s", 10, true, "A"));
	push(&res, labelled(1, "A", "gpu", "bandwidth", "op=copy size=8192",
			    "GB/s", 10, true, "A"));
	push(&res, labelled(1, "A", "gpu", "latency", "op=submit", "us", 10,
			    false, "A"));
	push(&res, labelled(2, "A", "gpu", "bandwidth", "op=copy size=4096",
			    "GB/s", 8, true, "B"));
	push(&res, labelled(3, "A", "gpu", "bandwidth", "op=copy size=8192",
			    "GB/s", 12.5, true, "C"));
	push(&res, labelled(3, "A", "gpu", "latency", "op=submit", "us", 8,
			    false, "C"));
	struct ax_html_data d = {.results = &res};
	int rc;
	char *html = report_d(&d, &rc);
	AX_CHECK_INT(rc, 0);
	AX_CHECK(html && strstr(html, "over the cases that system and the "
				      "reference both measured"));
	AX_CHECK(html && !strstr(html, "there is no overall figure"));
	AX_CHECK(html && strstr(html, "0.80" TIMES " (-20 %, slower); 0 wins, "
				      "1 loss, 0 ties over 1 shared case"));
	AX_CHECK(html && strstr(html, "1.25" TIMES " faster (+25 %); 2 wins, "
				      "0 losses, 0 ties over 2 shared cases"));
	AX_CHECK(html && strstr(html, "over the cases each system shares "
				      "with it"));
	free(html);
	/* B as the reference: C shares no case with it. */
	d.reference = "B";
	html = report_d(&d, &rc);
	AX_CHECK(html && strstr(html, "no case shared with the reference"));
	AX_CHECK(html && strstr(html, "1.25" TIMES " faster (+25 %); 1 win, "
				      "0 losses, 0 ties over 1 shared case"));
	free(html);
	ax_db_results_free(&res);
	/* Two systems with no case in common: nothing to figure. */
	push(&res, labelled(1, "A", "gpu", "bandwidth", "op=copy size=4096",
			    "GB/s", 10, true, "A"));
	push(&res, labelled(2, "A", "gpu", "bandwidth", "op=copy size=8192",
			    "GB/s", 8, true, "B"));
	d.reference = NULL;
	html = report_d(&d, &rc);
	AX_CHECK(html && strstr(html, "no system shares a case with the "
				      "reference, so there is no overall "
				      "figure"));
	free(html);
	ax_db_results_free(&res);
	arena_free();
}

static void stop_reasons_in_words(void)
{
	struct ax_db_results res = {0};
	struct ax_db_result_row *r =
	    result(1, "A", "gpu", "peak", "op=fma", "GFLOP/s", 10, "ok");
	r->stop_reason = "time-limit";
	r->rel_noise = 0.2;
	push(&res, r);
	push(&res,
	     result(1, "A", "gpu", "gemm", "m=64", "GFLOP/s", 0, "timeout"));
	char *html = report(&res, NULL, NULL);
	/* --max-time is a normal end of sampling, not a timeout... */
	AX_CHECK(html && strstr(html, "<td>time limit reached</td>"));
	AX_CHECK(html && !strstr(html, "timed out sampling"));
	/* ...while a fence that ran out is. */
	AX_CHECK(html && strstr(html, "GPU work timed out"));
	free(html);
	ax_db_results_free(&res);
	arena_free();
}

/* A system of many runs lists its newest six in the systems table, after
 * how many earlier runs there were; the history draws every run. */
static void long_history_stays_short(void)
{
	struct ax_db_results res = {0};
	struct ax_db_run_row rows[40], *rv[40];
	for (int run = 1; run <= 40; run++) {
		char at[32];
		snprintf(at, sizeof(at), "2024-01-01T00:%02d:00Z", run);
		struct ax_db_result_row *r =
		    result(run, "A", "gpu", "bandwidth", "op=copy", "GB/s",
			   run <= 20 ? 10 : 20, "ok");
		r->started_at = text_of(at);
		push(&res, r);
		/* Runs newest first, as ax_db_run_rows gives them. */
		rows[40 - run] = run_row(run, r->started_at, "A", "gpu");
		rv[40 - run] = &rows[40 - run];
	}
	struct ax_db_runs runs = {rv, 40};
	struct ax_html_data d = {.results = &res, .runs = &runs};
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
	ax_db_results_free(&res);
	arena_free();
}

/* ---- charts that read at a glance (issue 41 item 3) ------------------ */

static void charts_read_at_a_glance(void)
{
	struct ax_db_results res = {0};
	/* copy at three sizes (a curve), dma at two (markers only), 25x
	 * apart: log value axes on the bars and the curve. */
	const char *copy[] = {"op=copy size=4096", "op=copy size=65536",
			      "op=copy size=1048576"};
	const char *dma[] = {"op=dma size=4096", "op=dma size=1048576"};
	for (int i = 0; i < 3; i++)
		push(&res, result(1, "A", "gpu", "bandwidth", copy[i], "GB/s",
				  2 + i, "ok"));
	for (int i = 0; i < 2; i++)
		push(&res, result(1, "A", "gpu", "bandwidth", dma[i], "GB/s",
				  80 + 20 * i, "ok"));
	/* A speed-up of a plain run, and one of a tuning trial. */
	struct ax_db_result_row *g =
	    result(1, "A", "gpu", "gemm", "m=64", "GFLOP/s", 10, "ok");
	g->speedup_vs_cpu = 0.5;
	push(&res, g);
	struct ax_db_result_row *t =
	    result(1, "A", "gpu", "gemm", "m=64 tile=8", "GFLOP/s", 8, "ok");
	t->speedup_vs_cpu = 0.4;
	t->tune_session = 1;
	t->tune_role = "trial";
	push(&res, t);
	/* A session that varied tile and held m. */
	struct ax_db_trial_row trials[] = {trial(0, "m=64 tile=8", 50),
					   trial(1, "m=64 tile=16", 90)};
	struct ax_db_session_row ses = {.id = 1,
					.suite = "gemm",
					.strategy = "bo",
					.objective = "GFLOP/s",
					.budget = AX_DB_NONE,
					.device = device("A", "gpu"),
					.trials = trials,
					.n_trials = 2};
	struct ax_db_session_row *sv[] = {&ses};
	struct ax_db_sessions sessions = {sv, 1};
	char *html = report(&res, &sessions, NULL);
	AX_CHECK(html && strstr(html, "GB/s, higher is better (log scale)"));
	AX_CHECK(html && strstr(html, "median GB/s (log scale)"));
	/* One line (copy's); dma is markers; each named at its end. */
	const char *curve = html ? strstr(html, "aria-label=\"Bandwidth "
						"against")
				 : NULL;
	char *curve_svg =
	    curve ? strndup(curve, (size_t)(strstr(curve, "</svg>") - curve))
		  : NULL;
	AX_CHECK_INT((long)count(curve_svg, "<polyline"), 1);
	free(curve_svg);
	AX_CHECK(html && strstr(html, ">#1 op=copy</text>"));
	AX_CHECK(html && strstr(html, ">#1 op=dma</text>"));
	/* The trial's speed-up is left out, and said to be. */
	AX_CHECK(html && strstr(html, "0.50" TIMES "</b> slower"));
	AX_CHECK(html && !strstr(html, "0.40" TIMES));
	AX_CHECK(html && strstr(html, "1 tuning trial with a speed-up is left "
				      "out"));
	/* A parameter held at one value is named once, not a row. */
	AX_CHECK(html && strstr(html, "held at one value: m</small>"));
	AX_CHECK(html && !strstr(html, "one value tried"));
	free(html);
	ax_db_results_free(&res);

	/* Two sizes only, 1.5x apart: no curve, and a linear bar axis. */
	struct ax_db_results two = {0};
	for (int i = 0; i < 2; i++)
		push(&two, result(1, "A", "gpu", "bandwidth", copy[i], "GB/s",
				  2 + i, "ok"));
	html = report(&two, NULL, NULL);
	AX_CHECK(html && strstr(html, "too few for a curve"));
	AX_CHECK(html && !strstr(html, "Bandwidth against working-set size "
				       "(higher is better)\"><title>"));
	AX_CHECK(html && !strstr(html, "(log scale)"));
	free(html);
	ax_db_results_free(&two);
	arena_free();
}

/* Two hosts with one device model (one fingerprint, as two lavapipe
 * machines have) are two histories, never one line across machines. */
static void history_is_one_machine(void)
{
	static const struct ax_db_host_row other = {2, "box2", "Xeon", 2};
	struct ax_db_results res = {0};
	push(&res, result(1, "A", "gpu", "bandwidth", "op=copy size=4096",
			  "GB/s", 10, "ok"));
	struct ax_db_result_row *r = result(
	    2, "A", "gpu", "bandwidth", "op=copy size=4096", "GB/s", 5, "ok");
	r->host = other;
	push(&res, r);
	char *html = report(&res, NULL, NULL);
	AX_CHECK(html && strstr(html, "\"device\":\"gpu on box\""));
	AX_CHECK(html && strstr(html, "\"device\":\"gpu on box2\""));
	AX_CHECK(html && strstr(html, "runs of two machines are two "
				      "histories"));
	AX_CHECK(html && !strstr(html, "<title>2 runs"));
	AX_CHECK(html && !strstr(html, "worse)"));
	free(html);
	/* The same host in a later run: one history of 2 runs. */
	r->host = res.v[0]->host;
	html = report(&res, NULL, NULL);
	AX_CHECK(html && strstr(html, "<title>2 runs, medians from 5 to 10 "));
	free(html);
	ax_db_results_free(&res);
	arena_free();
}

AX_TEST_MAIN(AX_TEST(escape_html), AX_TEST(escape_json),
	     AX_TEST(report_escapes_device_names),
	     AX_TEST(empty_sections_say_so), AX_TEST(sections_with_data),
	     AX_TEST(efficiency_with_a_sensor),
	     AX_TEST(efficiency_without_a_sensor), AX_TEST(telemetry_thinned),
	     AX_TEST(systems_side_by_side), AX_TEST(label_by_and_tuning),
	     AX_TEST(run_kinds_make_systems), AX_TEST(pairwise_overview),
	     AX_TEST(stop_reasons_in_words), AX_TEST(long_history_stays_short),
	     AX_TEST(charts_read_at_a_glance), AX_TEST(history_is_one_machine))
