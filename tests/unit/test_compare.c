/* tests/unit/test_compare.c - verdict rules, matching and writers of
 * reports/compare on synthetic, deterministic samples. */
#include "ax_test.h"

#include "reports/compare.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>

/* Deterministic noise in [-1, 1): a 64-bit LCG, so runs are repeatable. */
static double noise(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(*state >> 11) / (double)(1ull << 52) - 1.0;
}

static void draw(double *x, int n, double center, double rel_noise,
		 uint64_t seed)
{
	uint64_t s = seed;
	for (int i = 0; i < n; i++)
		x[i] = center * (1 + rel_noise * noise(&s));
}

static enum ax_verdict verdict(const double *a, int na, const double *b, int nb,
			       bool hib, struct ax_compare_stat *st)
{
	char err[200] = "";
	int rc = ax_compare_samples(a, na, b, nb, hib, 0.02, NULL, st, err,
				    sizeof(err));
	AX_CHECK_INT(rc, 0);
	return st->verdict;
}

static void identical_is_same(void)
{
	double a[20];
	struct ax_compare_stat st;
	draw(a, 20, 100, 0.05, 1);
	AX_CHECK_INT(verdict(a, 20, a, 20, true, &st), AX_VERDICT_SAME);
	AX_CHECK_NEAR(st.improvement, 0, 0);
	/* Two independent quiet draws of one distribution. */
	double b[30], c[30];
	draw(b, 30, 100, 0.002, 2);
	draw(c, 30, 100, 0.002, 3);
	AX_CHECK_INT(verdict(b, 30, c, 30, true, &st), AX_VERDICT_SAME);
	AX_CHECK(st.impr_lo >= -0.02 && st.impr_hi <= 0.02);
}

static void ten_percent_slower(void)
{
	double a[25], b[25];
	struct ax_compare_stat st;
	/* GB/s: higher is better, so 10 % less is slower. */
	draw(a, 25, 50, 0.01, 4);
	draw(b, 25, 45, 0.01, 5);
	AX_CHECK_INT(verdict(a, 25, b, 25, true, &st), AX_VERDICT_SLOWER);
	AX_CHECK_NEAR(st.improvement, -0.10, 0.01);
	AX_CHECK(st.p_value < 0.05);
	AX_CHECK(st.impr_hi < -0.02);
	/* Microseconds: lower is better, so 10 % more is slower. */
	draw(a, 25, 200, 0.01, 6);
	draw(b, 25, 220, 0.01, 7);
	AX_CHECK_INT(verdict(a, 25, b, 25, false, &st), AX_VERDICT_SLOWER);
	AX_CHECK_NEAR(st.rel, 0.10, 0.01);
	AX_CHECK_NEAR(st.improvement, -0.10, 0.01);
}

static void direction_awareness(void)
{
	double a[20], b[20];
	struct ax_compare_stat st;
	draw(a, 20, 10, 0.01, 8);
	draw(b, 20, 11, 0.01, 9);
	AX_CHECK_INT(verdict(a, 20, b, 20, true, &st), AX_VERDICT_FASTER);
	AX_CHECK(st.impr_lo > 0.02);
	AX_CHECK_INT(verdict(a, 20, b, 20, false, &st), AX_VERDICT_SLOWER);
	AX_CHECK(st.impr_hi < -0.02);
	AX_CHECK_INT(verdict(b, 20, a, 20, false, &st), AX_VERDICT_FASTER);
}

static void tiny_noisy_is_ambiguous(void)
{
	double a[10], b[10];
	struct ax_compare_stat st;
	/* 0.5 % apart with +/-10 % noise: the interval straddles 2 %. */
	draw(a, 10, 100, 0.10, 10);
	draw(b, 10, 100.5, 0.10, 11);
	AX_CHECK_INT(verdict(a, 10, b, 10, true, &st), AX_VERDICT_AMBIGUOUS);
	AX_CHECK(st.impr_lo < -0.02 || st.impr_hi > 0.02);
	AX_CHECK(strstr(st.reason, "interval") != NULL);
}

static void too_few_samples(void)
{
	double a[3] = {1, 2, 3}, b[3] = {10, 11, 12};
	struct ax_compare_stat st;
	AX_CHECK_INT(verdict(a, 3, b, 3, true, &st), AX_VERDICT_AMBIGUOUS);
	AX_CHECK(strstr(st.reason, "too few samples") != NULL);
	char err[100];
	AX_CHECK_INT(ax_compare_samples(NULL, 3, b, 3, true, 0.02, NULL, &st,
					err, sizeof(err)),
		     -1);
}

static void threshold_globs(void)
{
	struct ax_compare_opts o;
	struct ax_compare_rule r[] = {{"gemm*", 0.10}, {"gemm_fp16", 0.05}};
	ax_compare_opts_init(&o);
	o.rules = r;
	o.n_rules = 2;
	AX_CHECK_NEAR(ax_compare_threshold_for(&o, "bandwidth"), 0.02, 0);
	AX_CHECK_NEAR(ax_compare_threshold_for(&o, "gemm"), 0.10, 0);
	AX_CHECK_NEAR(ax_compare_threshold_for(&o, "gemm_fp16"), 0.05, 0);
	/* A 10 % shift is "same" under a 15 % threshold. */
	double a[20], b[20];
	struct ax_compare_stat st;
	draw(a, 20, 10, 0.005, 12);
	draw(b, 20, 9, 0.005, 13);
	ax_compare_samples(a, 20, b, 20, true, 0.15, &o, &st, NULL, 0);
	AX_CHECK_INT(st.verdict, AX_VERDICT_SAME);
}

/* A result row built by hand, as ax_db_result_rows gives one with its
 * samples: texts point at literals, the samples into the block (mem
 * NULL), so ax_db_results_free frees it whole. */
struct row_block {
	struct ax_db_result_row r; /* first: the block is the row */
	double samples[30];
};

static struct ax_db_result_row *result(int id, const char *fp, const char *name,
				       const char *suite, const char *hash,
				       const char *unit, const char *status,
				       double center, double scale,
				       uint64_t seed)
{
	struct row_block *b = calloc(1, sizeof(*b));
	if (!b)
		abort();
	uint64_t st = seed;
	for (int i = 0; i < 12; i++)
		b->samples[i] = center * scale * (1 + 0.002 * noise(&st));
	bool ok = strcmp(status, "ok") == 0;
	b->r = (struct ax_db_result_row){
	    .id = id,
	    .run_id = 1,
	    .suite = suite,
	    .case_label = "c",
	    .params_hash = hash,
	    .unit = unit,
	    .status = status,
	    .ok = ok,
	    .higher_is_better = true,
	    .n = 12,
	    .median = ok ? center * scale : NAN,
	    .noise_target = NAN,
	    .speedup_vs_cpu = NAN,
	    .device = {.id = 1, .fingerprint = fp, .name = name},
	    .samples = b->samples,
	    .n_samples = 12,
	};
	return &b->r;
}

static void push(struct ax_db_results *l, struct ax_db_result_row *r)
{
	AX_CHECK_INT(ax_db_results_push(l, r), 0);
}

/* Two sides and their comparison, which borrows their rows. */
struct sides {
	struct ax_db_results base, cand;
	struct ax_compare *c;
};

static void compare_sides(struct sides *s, const struct ax_compare_opts *o,
			  const char *base_label, const char *cand_label)
{
	char err[200];
	s->c = NULL;
	AX_CHECK_INT(ax_compare_run(&s->base, &s->cand, base_label, cand_label,
				    o, &s->c, err, sizeof(err)),
		     0);
}

static void sides_release(struct sides *s)
{
	ax_compare_destroy(s->c);
	ax_db_results_free(&s->base);
	ax_db_results_free(&s->cand);
}

static void fixture(struct sides *s)
{
	const char *dev = "<b>dev|1</b>";
	struct ax_db_results *b = &s->base, *c = &s->cand;
	memset(s, 0, sizeof(*s));
	/* a: 10 % slower; b: same; c: only in BASE; d: only in CAND;
	 * e: failed in CAND; f: unit differs; g: a second b in BASE, a
	 * replicate pooled with it. */
	push(b, result(1, "F", dev, "bw", "a", "GB/s", "ok", 10, 1, 1));
	push(b, result(2, "F", dev, "bw", "b", "GB/s", "ok", 10, 1, 2));
	push(b, result(3, "F", dev, "bw", "c", "GB/s", "ok", 10, 1, 3));
	push(b, result(4, "F", dev, "bw", "e", "GB/s", "ok", 10, 1, 4));
	push(b, result(5, "F", dev, "bw", "f", "GB/s", "ok", 10, 1, 5));
	push(b, result(6, "F", dev, "bw", "b", "GB/s", "ok", 10, 1, 6));
	push(c, result(7, "F", dev, "bw", "a", "GB/s", "ok", 10, 0.9, 7));
	push(c, result(8, "F", dev, "bw", "b", "GB/s", "ok", 10, 1, 8));
	push(c, result(9, "F", dev, "bw", "d", "GB/s", "ok", 10, 1, 9));
	push(c, result(10, "F", dev, "bw", "e", "GB/s", "failed-verification",
		       10, 1, 10));
	push(c, result(11, "F", dev, "bw", "f", "us", "ok", 10, 1, 11));
	compare_sides(s, NULL, "run 1", "run 2");
}

static void matching(void)
{
	struct sides s;
	fixture(&s);
	struct ax_compare *c = s.c;
	if (!c)
		return;
	AX_CHECK_INT(c->n_pairs, 6);
	AX_CHECK_INT(c->count[AX_VERDICT_SLOWER], 1);
	AX_CHECK_INT(c->count[AX_VERDICT_SAME], 1);
	AX_CHECK_INT(c->count[AX_VERDICT_INCOMPARABLE], 2);
	/* c only in BASE, d only in CAND; b's two BASE results are one. */
	AX_CHECK_INT(c->count[AX_VERDICT_UNMATCHED], 2);
	AX_CHECK_INT(c->pairs[1].reps.base, 2);
	AX_CHECK_INT(c->pairs[1].reps.cand, 1);
	AX_CHECK_INT(c->regressions, 2); /* a slower, e failed */
	AX_CHECK_INT(ax_compare_n_compared(c), 2);
	AX_CHECK_INT(c->pairs[0].stat.verdict, AX_VERDICT_SLOWER);
	AX_CHECK(strstr(c->pairs[4].stat.reason, "units differ") != NULL);
	/* The rows shown are the inputs' own. */
	AX_CHECK(c->pairs[0].base == s.base.v[0]);
	AX_CHECK(c->pairs[3].cand == s.cand.v[3]);
	sides_release(&s);
}

/* The text table with no width limit (a pipe, a CI log). */
static int text_whole(const struct ax_compare *c, FILE *f)
{
	return ax_compare_write_text(c, f, 0);
}

static int text_narrow(const struct ax_compare *c, FILE *f)
{
	return ax_compare_write_text(c, f, 60);
}

static char *render(const struct ax_compare *c,
		    int (*w)(const struct ax_compare *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	AX_CHECK_INT(w(c, f), 0);
	fclose(f);
	return buf;
}

static void writers(void)
{
	struct sides s;
	fixture(&s);
	struct ax_compare *c = s.c;
	if (!c)
		return;
	char *xml = render(c, ax_compare_write_junit);
	AX_CHECK(strstr(xml, "tests=\"6\" failures=\"2\" skipped=\"3\""));
	AX_CHECK(strstr(xml, "&lt;b&gt;dev|1&lt;/b&gt;") != NULL);
	AX_CHECK(strstr(xml, "<b>") == NULL);
	char *md = render(c, ax_compare_write_markdown);
	AX_CHECK(strstr(md, "dev&#124;1") != NULL);
	AX_CHECK(strstr(md, "**slower (regression)**") != NULL);
	char *js = render(c, ax_compare_write_json);
	json_t *doc = json_loads(js, 0, NULL);
	AX_CHECK(doc != NULL);
	json_t *sum = json_object_get(doc, "summary");
	AX_CHECK_INT(json_integer_value(json_object_get(sum, "slower")), 1);
	AX_CHECK_INT(json_integer_value(json_object_get(sum, "regressions")),
		     2);
	AX_CHECK_INT(json_array_size(json_object_get(doc, "rows")), 6);
	char *txt = render(c, text_whole);
	AX_CHECK(strstr(txt, "1 slower") != NULL);
	json_decref(doc);
	free(xml);
	free(md);
	free(js);
	free(txt);
	sides_release(&s);
}

/* Energy: one figure per result, the margin rule; no figure, no
 * verdict; never a regression. */
static void energy_verdicts(void)
{
	struct ax_compare_energy e;
	ax_compare_energy_figures(1.0, 0.9, &e);
	AX_CHECK_INT(e.verdict, AX_ENERGY_LESS);
	AX_CHECK_NEAR(e.change, -0.1, 1e-12);
	ax_compare_energy_figures(1.0, 1.04, &e); /* within 5 % */
	AX_CHECK_INT(e.verdict, AX_ENERGY_SAME);
	ax_compare_energy_figures(1.0, 1.2, &e);
	AX_CHECK_INT(e.verdict, AX_ENERGY_MORE);
	ax_compare_energy_figures(NAN, 1.2, &e);
	AX_CHECK_INT(e.verdict, AX_ENERGY_NONE);
	ax_compare_energy_figures(0, 1.2, &e); /* a 0 is not a figure */
	AX_CHECK_INT(e.verdict, AX_ENERGY_NONE);

	struct sides s = {0};
	struct ax_db_result_row *b =
	    result(1, "F", "d", "gemm", "a", "GFLOP/s", "ok", 10, 1, 1);
	struct ax_db_result_row *c =
	    result(2, "F", "d", "gemm", "a", "GFLOP/s", "ok", 10, 1, 2);
	b->power =
	    (struct ax_db_power_row){.present = true, .energy_rep_j = 2.0};
	c->power =
	    (struct ax_db_power_row){.present = true, .energy_rep_j = 2.5};
	push(&s.base, b);
	push(&s.cand, c);
	push(&s.base,
	     result(3, "F", "d", "gemm", "z", "GFLOP/s", "ok", 10, 1, 3));
	push(&s.cand,
	     result(4, "F", "d", "gemm", "z", "GFLOP/s", "ok", 10, 1, 4));
	compare_sides(&s, NULL, "a", "b");
	struct ax_compare *cmp = s.c;
	if (!cmp) {
		sides_release(&s);
		return;
	}
	AX_CHECK_INT(cmp->pairs[0].energy.verdict, AX_ENERGY_MORE);
	AX_CHECK_INT(cmp->pairs[1].energy.verdict, AX_ENERGY_NONE);
	AX_CHECK_INT(cmp->energy_count[AX_ENERGY_MORE], 1);
	AX_CHECK_INT(cmp->regressions, 0); /* energy never fails the check */
	char *txt = render(cmp, text_whole);
	AX_CHECK(strstr(txt, "energy more (+25.0%: 2 -> 2.5 J)") != NULL);
	AX_CHECK(strstr(txt, "energy: 0 less, 1 more, 0 same") != NULL);
	char *js = render(cmp, ax_compare_write_json);
	json_t *doc = json_loads(js, 0, NULL);
	json_t *rows = json_object_get(doc, "rows");
	json_t *e0 = json_object_get(json_array_get(rows, 0), "energy");
	AX_CHECK_STR(json_string_value(json_object_get(e0, "verdict")), "more");
	AX_CHECK(
	    json_is_null(json_object_get(json_array_get(rows, 1), "energy")));
	json_decref(doc);
	free(js);
	free(txt);
	sides_release(&s);
}

/* Bimodal samples (a preempted machine) on which the Hodges-Lehmann
 * shift says "faster" while the candidate's median is lower: a verdict,
 * but no win a tuned point may claim (seen under stress-ng: tune printed
 * a speed-up of 0.996). */
static void shift_and_medians_disagree(void)
{
	enum { N = 60 };
	double a[N], b[N];
	struct ax_compare_stat st;
	char err[128];
	for (int i = 0; i < N; i++) {
		a[i] = i < N * 2 / 5 ? 1.0 : 2.0; /* median 2.0 */
		b[i] = i < N * 3 / 5 ? 1.9 : 4.0; /* median 1.9 */
	}
	AX_CHECK_INT(ax_compare_samples(a, N, b, N, true, 0.02, NULL, &st, err,
					sizeof(err)),
		     0);
	AX_CHECK_INT(st.verdict, AX_VERDICT_FASTER);
	AX_CHECK(st.cand_median < st.base_median);
	AX_CHECK(!ax_compare_wins(&st, true));
	/* a clear win is still one */
	for (int i = 0; i < N; i++)
		b[i] = a[i] * 1.5;
	AX_CHECK_INT(ax_compare_samples(a, N, b, N, true, 0.02, NULL, &st, err,
					sizeof(err)),
		     0);
	AX_CHECK(ax_compare_wins(&st, true));
	AX_CHECK(!ax_compare_wins(&st, false));
}

/* 30 samples around center with a deterministic +/-spread; target is
 * the run's max_noise (NAN: none stored). */
static struct ax_db_result_row *spread_result(int id, const char *hash,
					      const char *label, double center,
					      double spread, uint64_t seed,
					      double target)
{
	struct ax_db_result_row *r =
	    result(id, "F", "dev", "bw", hash, "GB/s", "ok", center, 1, seed);
	double *x = ((struct row_block *)r)->samples;
	uint64_t st = seed;
	for (int i = 0; i < 30; i++)
		x[i] = center * (1 + spread * noise(&st));
	r->n = 30;
	r->n_samples = 30;
	r->case_label = label;
	r->noise_target = target;
	return r;
}

/* One result a side; s->c is the comparison. */
static void compare_two(struct sides *s, struct ax_db_result_row *b,
			struct ax_db_result_row *c,
			const struct ax_compare_opts *o)
{
	memset(s, 0, sizeof(*s));
	push(&s->base, b);
	push(&s->cand, c);
	compare_sides(s, o, "a", "b");
}

/* A 12 % drop seen through +/-40 % samples whose runs asked for +/-2 %:
 * noisy, counted, never a regression; --strict keeps the statistical
 * verdict; a run that stored no target gets no noisy verdict. */
static void missed_noise_target_is_noisy(void)
{
	struct ax_compare_opts o;
	struct sides s;
	ax_compare_opts_init(&o);
	compare_two(&s, spread_result(1, "h", "x", 100, 0.4, 21, 0.02),
		    spread_result(2, "h", "x", 88, 0.4, 22, 0.02), &o);
	struct ax_compare *c = s.c;
	if (!c) {
		sides_release(&s);
		return;
	}
	AX_CHECK_INT(c->pairs[0].stat.verdict, AX_VERDICT_NOISY);
	AX_CHECK_INT(c->count[AX_VERDICT_NOISY], 1);
	AX_CHECK_INT(c->regressions, 0);
	AX_CHECK_INT(ax_compare_n_compared(c), 1);
	AX_CHECK(c->pairs[0].noise.base > 0.02);
	AX_CHECK(strstr(c->pairs[0].stat.reason, "noise target of +/-2%"));
	char *txt = render(c, text_whole);
	AX_CHECK(strstr(txt, "1 noisy") != NULL);
	char *js = render(c, ax_compare_write_json);
	json_t *doc = json_loads(js, 0, NULL);
	json_t *row = json_array_get(json_object_get(doc, "rows"), 0);
	AX_CHECK_STR(json_string_value(json_object_get(row, "verdict")),
		     "noisy");
	AX_CHECK_NEAR(json_real_value(json_object_get(
			  json_object_get(row, "noise"), "base_target_pct")),
		      2, 1e-9);
	json_decref(doc);
	free(js);
	free(txt);
	sides_release(&s);

	o.strict = true;
	compare_two(&s, spread_result(1, "h", "x", 100, 0.4, 21, 0.02),
		    spread_result(2, "h", "x", 88, 0.4, 22, 0.02), &o);
	AX_CHECK(s.c && s.c->pairs[0].stat.verdict != AX_VERDICT_NOISY);
	sides_release(&s);

	o.strict = false;
	compare_two(&s, spread_result(1, "h", "x", 100, 0.4, 21, NAN),
		    spread_result(2, "h", "x", 88, 0.4, 22, NAN), &o);
	AX_CHECK(s.c && s.c->pairs[0].stat.verdict != AX_VERDICT_NOISY);
	sides_release(&s);

	/* Tight samples meet the target: a real 10 % drop stays slower. */
	compare_two(&s, spread_result(1, "h", "x", 100, 0.01, 23, 0.02),
		    spread_result(2, "h", "x", 90, 0.01, 24, 0.02), &o);
	AX_CHECK(s.c && s.c->pairs[0].stat.verdict == AX_VERDICT_SLOWER);
	AX_CHECK(s.c && s.c->regressions == 1);
	sides_release(&s);
}

/* Large changes read as ratios of medians, small ones as percentages;
 * a time 18.6 times longer is "18.6x slower", never "-1760%". */
static void change_as_people_read_it(void)
{
	double a[20], b[20];
	struct ax_compare_stat st;
	char buf[64];
	draw(a, 20, 10, 0.01, 31);
	draw(b, 20, 186, 0.01, 32);
	verdict(a, 20, b, 20, false, &st); /* microseconds */
	AX_CHECK_NEAR(st.speedup, 10.0 / 186, 0.002);
	AX_CHECK(strstr(ax_compare_change_text(&st, buf, sizeof(buf)),
			"\xc3\x97 slower") &&
		 strncmp(buf, "18.", 3) == 0);
	verdict(a, 20, b, 20, true, &st); /* GB/s */
	AX_CHECK(strstr(ax_compare_change_text(&st, buf, sizeof(buf)),
			"\xc3\x97 faster") &&
		 strncmp(buf, "18.", 3) == 0);
	draw(b, 20, 9.5, 0.01, 33);
	verdict(a, 20, b, 20, true, &st);
	ax_compare_change_text(&st, buf, sizeof(buf));
	AX_CHECK(buf[0] == '-' && strchr(buf, '%') && strchr(buf, '['));
}

/* Two cases whose labels differ only past 28 characters stay apart, a
 * failed side reads as its status, a narrow terminal moves the case to a
 * line of its own, and every Markdown detail names its case. */
static void whole_names_and_failures(void)
{
	const char *l1 = "m=64 n=64 k=64 batch=1 dtype=f32 kernel=tiled";
	const char *l2 = "m=64 n=64 k=64 batch=1 dtype=f32 kernel=coopmat";
	struct sides s = {0};
	push(&s.base, spread_result(1, "h1", l1, 10, 0.01, 41, NAN));
	push(&s.base, spread_result(2, "h2", l2, 10, 0.01, 42, NAN));
	push(&s.cand, spread_result(3, "h1", l1, 10, 0.01, 43, NAN));
	struct ax_db_result_row *bad =
	    spread_result(4, "h2", l2, 10, 0.01, 44, NAN);
	bad->status = "failed-verification";
	bad->ok = false;
	bad->median = NAN; /* a failed result has no figure */
	push(&s.cand, bad);
	compare_sides(&s, NULL, "a", "b");
	struct ax_compare *c = s.c;
	if (!c) {
		sides_release(&s);
		return;
	}
	char *txt = render(c, text_whole);
	AX_CHECK(strstr(txt, l1) != NULL);
	AX_CHECK(strstr(txt, l2) != NULL);
	AX_CHECK(strstr(txt, "failed-verification") != NULL);
	AX_CHECK(strstr(txt, "device: dev\n") != NULL);
	AX_CHECK(strstr(txt, " 0  GB/s") == NULL); /* no failed side as 0 */
	char *narrow = render(c, text_narrow);
	AX_CHECK(strstr(narrow, "    case: m=64") != NULL);
	char *md = render(c, ax_compare_write_markdown);
	AX_CHECK(strstr(md, "bw m=64 n=64 k=64 batch=1 dtype=f32 "
			    "kernel=coopmat on dev") != NULL);
	char *js = render(c, ax_compare_write_json);
	json_t *doc = json_loads(js, 0, NULL);
	json_t *row = json_array_get(json_object_get(doc, "rows"), 1);
	AX_CHECK(json_is_null(
	    json_object_get(json_object_get(row, "candidate"), "median")));
	json_decref(doc);
	free(js);
	free(md);
	free(narrow);
	free(txt);
	sides_release(&s);
}

/* Replicates: three BASE runs whose medians spread by ~5 % (the noise
 * between processes) against one CAND run 8 % lower.  Judged from one
 * BASE run, tight samples call it slower; judged from all three, the
 * spread between runs sets a minimum effect above 8 %, so it is not a
 * regression.  A 40 % drop still is. */
static void replicates_widen_the_minimum_effect(void)
{
	struct ax_compare_opts o;
	ax_compare_opts_init(&o);
	double medians[3] = {100, 106, 95};
	struct sides s = {0};
	for (int i = 0; i < 3; i++)
		push(&s.base, spread_result(i + 1, "h", "x", medians[i], 0.005,
					    51 + i, NAN));
	push(&s.cand, spread_result(9, "h", "x", 92, 0.005, 59, NAN));
	compare_sides(&s, &o, "a", "b");
	struct ax_compare *c = s.c;
	char err[200];
	if (c) {
		AX_CHECK_INT(c->n_pairs, 1);
		AX_CHECK_INT(c->pairs[0].reps.base, 3);
		AX_CHECK_INT(c->pairs[0].reps.cand, 1);
		AX_CHECK_INT(c->pairs[0].reps.df, 2);
		AX_CHECK(c->pairs[0].reps.spread > 0.04 &&
			 c->pairs[0].reps.spread < 0.08);
		AX_CHECK(c->pairs[0].reps.min_effect > 0.08);
		AX_CHECK(c->pairs[0].stat.threshold ==
			 c->pairs[0].reps.min_effect);
		AX_CHECK(c->pairs[0].stat.verdict != AX_VERDICT_SLOWER);
		AX_CHECK_INT(c->regressions, 0);
	}
	ax_compare_destroy(c);

	/* The newest BASE run alone: slower.  The list borrows the row. */
	struct ax_db_results one = {0};
	push(&one, s.base.v[2]);
	c = NULL;
	AX_CHECK_INT(
	    ax_compare_run(&one, &s.cand, "a", "b", &o, &c, err, sizeof(err)),
	    0);
	AX_CHECK(c && c->pairs[0].stat.verdict == AX_VERDICT_SLOWER);
	AX_CHECK(c && isnan(c->pairs[0].reps.min_effect));
	ax_compare_destroy(c);
	free(one.v);

	struct ax_db_results far = {0};
	push(&far, spread_result(9, "h", "x", 60, 0.005, 60, NAN));
	c = NULL;
	AX_CHECK_INT(
	    ax_compare_run(&s.base, &far, "a", "b", &o, &c, err, sizeof(err)),
	    0);
	AX_CHECK(c && c->pairs[0].stat.verdict == AX_VERDICT_SLOWER);
	ax_compare_destroy(c);
	ax_db_results_free(&far);
	s.c = NULL;
	sides_release(&s);
}

/* ---- minimum detectable effect (issue 33) ----------------------------- */

/* The verdict and the MDE agree: a row is called faster or slower only
 * when its interval clears mde.threshold, and never for a change smaller
 * than the MDE less the interval's asymmetry (exactly so for a symmetric
 * interval).  Over many draws of noise and shift, with and without a
 * missed noise target. */
static void mde_agrees_with_the_verdict(void)
{
	struct ax_compare_opts o;
	ax_compare_opts_init(&o);
	int called = 0, not_called = 0;
	for (int k = 0; k < 60; k++) {
		double shift = 1 - 0.01 * (k % 20);	 /* 0 .. -19 % */
		double spread = k < 30 ? 0.01 : 0.25;	 /* quiet, noisy */
		double target = k % 3 == 0 ? NAN : 0.02; /* stored or not */
		struct sides s;
		compare_two(
		    &s,
		    spread_result(1, "h", "x", 100, spread, 100 + k, target),
		    spread_result(2, "h", "x", 100 * shift, spread, 200 + k,
				  target),
		    &o);
		const struct ax_compare_pair *p = s.c ? &s.c->pairs[0] : NULL;
		AX_CHECK(p && isfinite(p->mde.effect));
		if (!p || !isfinite(p->mde.effect)) {
			sides_release(&s);
			continue;
		}
		const struct ax_compare_stat *st = &p->stat;
		AX_CHECK_NEAR(p->mde.effect,
			      p->mde.threshold + p->mde.half_width, 1e-12);
		AX_CHECK(p->mde.threshold >= st->threshold - 1e-12);
		double up = st->impr_hi - st->improvement;
		double down = st->improvement - st->impr_lo;
		double asym = fabs(up - down) / 2;
		bool is_called = st->verdict == AX_VERDICT_SLOWER ||
				 st->verdict == AX_VERDICT_FASTER;
		if (is_called) {
			called++;
			AX_CHECK(fabs(st->improvement) >=
				 p->mde.effect - asym - 1e-12);
			AX_CHECK(st->impr_hi < -p->mde.threshold ||
				 st->impr_lo > p->mde.threshold);
		} else {
			not_called++;
		}
		if (fabs(st->improvement) < p->mde.effect - asym)
			AX_CHECK(!is_called);
		sides_release(&s);
	}
	/* Both kinds occur, or the loop checked nothing. */
	AX_CHECK(called > 5);
	AX_CHECK(not_called > 5);
}

/* A 12 % drop through +/-40 % samples whose runs asked for +/-2 %: the
 * MDE is far above 12 %, and the row is not called slower; the JSON, the
 * Markdown and the text all say it. */
static void big_mde_is_said_everywhere(void)
{
	struct ax_compare_opts o;
	struct sides s;
	ax_compare_opts_init(&o);
	compare_two(&s, spread_result(1, "h", "x", 100, 0.4, 21, 0.02),
		    spread_result(2, "h", "x", 88, 0.4, 22, 0.02), &o);
	struct ax_compare *c = s.c;
	if (!c) {
		sides_release(&s);
		return;
	}
	const struct ax_compare_pair *p = &c->pairs[0];
	AX_CHECK(p->mde.effect > 0.3);
	AX_CHECK(p->stat.verdict != AX_VERDICT_SLOWER);
	/* The missed targets' allowance is in what the interval must clear. */
	AX_CHECK_NEAR(p->mde.threshold, 0.02 + p->noise.base + p->noise.cand,
		      1e-12);
	AX_CHECK_INT(c->mde.n, 1);
	AX_CHECK_NEAR(c->mde.median, p->mde.effect, 0);
	/* One run a side: the counts assume no spread between runs. */
	AX_CHECK(p->mde.runs_both > 1);
	AX_CHECK_INT(p->mde.runs_base, -1);
	AX_CHECK(strstr(c->mde.advice, "`axbench ab`") != NULL);
	AX_CHECK(strstr(c->mde.advice, "--rounds") != NULL);
	AX_CHECK(strstr(c->mde.advice, "lower bound") != NULL);
	char want[64];
	snprintf(want, sizeof(want), "can detect changes above %.3g%%",
		 100 * p->mde.effect);
	char *txt = render(c, text_whole);
	AX_CHECK(strstr(txt, want) != NULL);
	AX_CHECK(strstr(txt, " MDE ") != NULL);
	AX_CHECK(strstr(txt, "`axbench ab`") != NULL);
	char *md = render(c, ax_compare_write_markdown);
	AX_CHECK(strstr(md, want) != NULL);
	AX_CHECK(strstr(md, "| MDE |") != NULL);
	AX_CHECK(strstr(md, "`axbench ab`") != NULL);
	char *js = render(c, ax_compare_write_json);
	json_t *doc = json_loads(js, 0, NULL);
	json_t *row = json_array_get(json_object_get(doc, "rows"), 0);
	json_t *m = json_object_get(row, "mde");
	AX_CHECK_NEAR(json_real_value(json_object_get(m, "effect_pct")),
		      100 * p->mde.effect, 1e-9);
	AX_CHECK(json_is_null(json_object_get(m, "baseline_runs")));
	json_t *sm = json_object_get(json_object_get(doc, "summary"), "mde");
	AX_CHECK_INT(json_integer_value(json_object_get(sm, "cases")), 1);
	AX_CHECK(strstr(json_string_value(json_object_get(sm, "text")), want) !=
		 NULL);
	AX_CHECK(strstr(json_string_value(json_object_get(sm, "advice")),
			"axbench ab") != NULL);
	json_decref(doc);
	free(js);
	free(md);
	free(txt);
	sides_release(&s);
}

/* The replicates' minimum effect is the threshold the MDE starts from,
 * and the run counts follow the square-root law: K runs a side bring the
 * noise to the threshold, K - 1 do not. */
static void mde_runs_needed(void)
{
	struct ax_compare_opts o;
	ax_compare_opts_init(&o);
	double medians[3] = {100, 106, 95};
	struct sides s = {0};
	for (int i = 0; i < 3; i++)
		push(&s.base, spread_result(i + 1, "h", "x", medians[i], 0.005,
					    51 + i, NAN));
	push(&s.cand, spread_result(9, "h", "x", 92, 0.005, 59, NAN));
	compare_sides(&s, &o, "a", "b");
	const struct ax_compare_pair *p = s.c ? &s.c->pairs[0] : NULL;
	AX_CHECK(p != NULL);
	if (p) {
		const struct ax_compare_mde *m = &p->mde;
		AX_CHECK_NEAR(m->threshold, p->reps.min_effect, 1e-12);
		AX_CHECK(m->effect > m->threshold);
		double noise = m->effect - m->rule;
		double now = 1.0 / 3 + 1.0;
		int k = m->runs_both;
		AX_CHECK(k > 3);
		AX_CHECK(noise * sqrt((2.0 / k) / now) <= m->rule + 1e-12);
		AX_CHECK(noise * sqrt((2.0 / (k - 1)) / now) > m->rule);
		/* The candidate's one run keeps noise * sqrt(1 / now)
		 * above the rule: baseline runs alone cannot. */
		AX_CHECK_INT(m->runs_base, -1);
		AX_CHECK(strstr(s.c->mde.advice, "--last") != NULL);
		AX_CHECK(strstr(s.c->mde.advice, "lower bound") == NULL);
	}
	sides_release(&s);

	/* Identical samples and no target: MDE is the threshold itself. */
	struct sides t;
	struct ax_db_result_row *a =
	    spread_result(1, "h", "x", 100, 0.01, 70, NAN);
	struct ax_db_result_row *b =
	    spread_result(2, "h", "x", 100, 0.01, 70, NAN);
	compare_two(&t, a, b, &o);
	AX_CHECK(t.c && t.c->pairs[0].stat.verdict == AX_VERDICT_SAME);
	AX_CHECK(t.c && t.c->pairs[0].mde.effect == 0.02);
	AX_CHECK(t.c && t.c->pairs[0].mde.runs_both == 0);
	AX_CHECK(t.c &&
		 strstr(t.c->mde.advice, "no larger than the threshold"));
	sides_release(&t);
}

/* Rows without a test have no MDE, and the summary counts only those
 * with one; a comparison with none says it can detect nothing. */
static void mde_only_where_tested(void)
{
	struct sides s;
	fixture(&s);
	struct ax_compare *c = s.c;
	if (!c)
		return;
	int tested = 0;
	for (int i = 0; i < c->n_pairs; i++) {
		const struct ax_compare_pair *p = &c->pairs[i];
		bool has = isfinite(p->mde.effect);
		AX_CHECK(has == (p->stat.verdict <= AX_VERDICT_NOISY));
		tested += has;
	}
	AX_CHECK_INT(c->mde.n, tested);
	AX_CHECK(c->mde.min <= c->mde.median && c->mde.median <= c->mde.max);
	char buf[160];
	AX_CHECK(strstr(ax_compare_mde_text(c, buf, sizeof(buf)),
			"over 2 cases") != NULL);
	sides_release(&s);

	struct sides u = {0};
	push(&u.base, result(1, "F", "d", "bw", "a", "GB/s", "ok", 10, 1, 1));
	push(&u.cand, result(2, "F", "d", "bw", "z", "GB/s", "ok", 10, 1, 2));
	compare_sides(&u, NULL, "a", "b");
	AX_CHECK(u.c && u.c->mde.n == 0);
	AX_CHECK(u.c && strstr(ax_compare_mde_text(u.c, buf, sizeof(buf)),
			       "can detect nothing"));
	char *md = u.c ? render(u.c, ax_compare_write_markdown) : NULL;
	AX_CHECK(md && strstr(md, "can detect nothing"));
	free(md);
	sides_release(&u);
}

/* ---- a tuned result against a default one of the same case ------------ */

static bool wg_is_tunable(const char *suite, const char *param)
{
	return strcmp(suite, "bw") == 0 && strcmp(param, "wg") == 0;
}

static struct ax_db_param tuned_params[] = {
    {"size", AX_DB_VALUE_INT, 64, 64, NULL},
    {"wg", AX_DB_VALUE_INT, 64, 64, NULL}};
static struct ax_db_param default_params[] = {
    {"size", AX_DB_VALUE_INT, 64, 64, NULL},
    {"wg", AX_DB_VALUE_INT, 256, 256, NULL}};
static struct ax_db_param other_shape[] = {
    {"size", AX_DB_VALUE_INT, 128, 128, NULL},
    {"wg", AX_DB_VALUE_INT, 64, 64, NULL}};

static struct ax_db_result_row *with_params(struct ax_db_result_row *r,
					    struct ax_db_param *v, int n)
{
	r->params = (struct ax_db_params){v, n};
	return r;
}

static void tuned_matches_default(void)
{
	struct ax_compare_opts o;
	ax_compare_opts_init(&o);
	o.is_tunable = wg_is_tunable;
	struct sides s = {0};
	push(&s.base, with_params(result(1, "F", "d", "bw", "h256", "GB/s",
					 "ok", 10, 1, 1),
				  default_params, 2));
	push(&s.cand, with_params(result(2, "F", "d", "bw", "h64", "GB/s", "ok",
					 10, 2, 2),
				  tuned_params, 2));
	push(&s.cand, with_params(result(3, "F", "d", "bw", "o64", "GB/s", "ok",
					 10, 1, 3),
				  other_shape, 2));
	compare_sides(&s, &o, "default", "tuned");
	struct ax_compare *c = s.c;
	AX_CHECK(c != NULL);
	if (c) {
		/* One case compared (twice as fast), the other shape alone. */
		AX_CHECK_INT(c->n_pairs, 2);
		AX_CHECK_INT(c->pairs[0].stat.verdict, AX_VERDICT_FASTER);
		AX_CHECK(c->pairs[0].cand == s.cand.v[0]);
		AX_CHECK_INT(c->pairs[0].n_tunables, 1);
		AX_CHECK_STR(c->pairs[0].tunables[0].name, "wg");
		AX_CHECK_INT(c->pairs[0].tunables[0].base->i, 256);
		AX_CHECK_INT(c->pairs[0].tunables[0].cand->i, 64);
		AX_CHECK_INT(c->pairs[1].stat.verdict, AX_VERDICT_UNMATCHED);
		char *txt = render(c, text_whole);
		AX_CHECK(strstr(txt, "tunables differ (BASE -> CAND): wg 256 "
				     "-> 64"));
		char *md = render(c, ax_compare_write_markdown);
		AX_CHECK(strstr(md, "(tunables differ: wg 256 \xe2\x86\x92 "
				    "64)"));
		char *js = render(c, ax_compare_write_json);
		json_t *doc = json_loads(js, 0, NULL);
		json_t *rows = json_object_get(doc, "rows");
		json_t *t = json_array_get(
		    json_object_get(json_array_get(rows, 0), "tunables"), 0);
		AX_CHECK_STR(json_string_value(json_object_get(t, "name")),
			     "wg");
		AX_CHECK_INT(json_integer_value(json_object_get(t, "base")),
			     256);
		AX_CHECK_INT(
		    json_integer_value(json_object_get(t, "candidate")), 64);
		AX_CHECK_INT(json_array_size(json_object_get(
				 json_array_get(rows, 1), "tunables")),
			     0);
		json_decref(doc);
		free(js);
		free(md);
		free(txt);
	}
	ax_compare_destroy(c);

	/* An exact match wins over the case: the default pairs with the
	 * default, and the tuned one is left over. */
	push(&s.cand, with_params(result(4, "F", "d", "bw", "h256", "GB/s",
					 "ok", 10, 1, 4),
				  default_params, 2));
	compare_sides(&s, &o, "default", "both");
	c = s.c;
	AX_CHECK(c && c->pairs[0].cand == s.cand.v[2]);
	AX_CHECK(c && c->pairs[0].n_tunables == 0);
	AX_CHECK(c && c->count[AX_VERDICT_UNMATCHED] == 2);
	ax_compare_destroy(c);

	/* Without the suite's tunables known, only exact parameters pair. */
	o.is_tunable = NULL;
	struct ax_db_results one = {0};
	push(&one, s.cand.v[0]);
	c = NULL;
	char err[200];
	AX_CHECK_INT(
	    ax_compare_run(&s.base, &one, "a", "b", &o, &c, err, sizeof(err)),
	    0);
	AX_CHECK(c && c->count[AX_VERDICT_UNMATCHED] == 2);
	ax_compare_destroy(c);
	free(one.v);
	s.c = NULL;
	sides_release(&s);
}

AX_TEST_MAIN(AX_TEST(identical_is_same), AX_TEST(ten_percent_slower),
	     AX_TEST(direction_awareness), AX_TEST(tiny_noisy_is_ambiguous),
	     AX_TEST(too_few_samples), AX_TEST(threshold_globs),
	     AX_TEST(matching), AX_TEST(writers),
	     AX_TEST(shift_and_medians_disagree), AX_TEST(energy_verdicts),
	     AX_TEST(missed_noise_target_is_noisy),
	     AX_TEST(change_as_people_read_it),
	     AX_TEST(whole_names_and_failures),
	     AX_TEST(replicates_widen_the_minimum_effect),
	     AX_TEST(mde_agrees_with_the_verdict),
	     AX_TEST(big_mde_is_said_everywhere), AX_TEST(mde_runs_needed),
	     AX_TEST(mde_only_where_tested), AX_TEST(tuned_matches_default))
