/*
 * tests/unit/test_config.c - run profiles and the YAML <-> JSON bridge.
 *
 * Uses a synthetic schema defined here, not the real suites, so that the
 * loader is tested on its own.  The malformed fixtures under
 * tests/fixtures/config/ carry their expected "LINE:COL message" on the
 * first line ("# expect: ..."); the test reads it from there, so fixture
 * and expectation cannot drift apart.  Run from the repository root.
 */
#include "core/config.h"
#include "core/error.h"

#include "ax_test.h"

#include <stdint.h>

#define FIX "tests/fixtures/config/"

static const char *const ops[] = {"read", "write", "copy", NULL};

static const struct ax_param_def bw_params[] = {
    {"op", AX_PT_ENUM, 0, 0, ops, 0, AX_PARAM_SHAPE, "operation"},
    {"size", AX_PT_INT, 1 << 10, 1 << 30, NULL, 1 << 20,
     AX_PARAM_SHAPE | AX_PARAM_BYTES | AX_PARAM_POW2, "bytes"},
    {"wg", AX_PT_INT, 32, 1024, NULL, 256, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "workgroup size"},
};

static const struct ax_param_def mm_params[] = {
    {"m", AX_PT_INT, 1, 65536, NULL, 128, AX_PARAM_SHAPE, "rows"},
    {"n", AX_PT_INT, 1, 65536, NULL, 128, AX_PARAM_SHAPE, "columns"},
    {"k", AX_PT_INT, 1, 65536, NULL, 128, AX_PARAM_SHAPE, "depth"},
    {"fp16", AX_PT_BOOL, 0, 1, NULL, 0, 0, "half precision"},
};

static const struct ax_config_schema schema[] = {
    {"bandwidth", bw_params, 3},
    {"gemm", mm_params, 4},
};

static int load(const char *path, struct ax_config **cfg, char *err, size_t n)
{
	return ax_config_load(path, schema, 2, cfg, err, n);
}

static int parse(const char *text, struct ax_config **cfg, char *err, size_t n)
{
	return ax_config_parse(text, strlen(text), "inline.yaml", schema, 2,
			       cfg, err, n);
}

static bool point_is(const struct ax_params *p, int64_t a, int64_t b, int64_t c,
		     int64_t d)
{
	int64_t want[4] = {a, b, c, d};
	for (int i = 0; i < p->n; i++)
		if (p->v[i] != want[i])
			return false;
	return true;
}

static void test_good_profile(void)
{
	char err[1024] = "";
	struct ax_config *cfg;
	int rc = load(FIX "good.yaml", &cfg, err, sizeof(err));
	AX_CHECK_INT(rc, 0);
	if (rc) {
		printf("#   %s\n", err);
		return;
	}
	AX_CHECK_STR(cfg->name, "unit-good");
	AX_CHECK_STR(cfg->device, "llvmpipe");
	AX_CHECK_STR(cfg->description, "every feature once");
	AX_CHECK_INT(cfg->measure.set, 0xff);
	AX_CHECK_INT(cfg->measure.min_samples, 5);
	AX_CHECK_INT(cfg->measure.max_samples, 30);
	AX_CHECK_NEAR(cfg->measure.max_noise_pct, 2.5, 0);
	AX_CHECK_NEAR(cfg->measure.min_time_s, 0.02, 0);
	AX_CHECK_INT(cfg->measure.mode, AX_CONFIG_MODE_COLD);
	AX_CHECK_INT(cfg->n_suites, 2);
	AX_CHECK_INT(cfg->n_cases, 12);

	const struct ax_config_suite *bw = ax_config_suite(cfg, "bandwidth");
	AX_CHECK(bw != NULL);
	AX_CHECK_INT(bw->n_cases, 6);
	AX_CHECK_INT(bw->line, 16);
	/* op varies slowest, size fastest, wg keeps its default */
	static const int64_t sizes[] = {4096, 8192, 16384};
	for (int i = 0; bw && i < 6; i++) {
		AX_CHECK_INT(bw->cases[i].v[0], i / 3);
		AX_CHECK_INT(bw->cases[i].v[1], sizes[i % 3]);
		AX_CHECK_INT(bw->cases[i].v[2], 256);
	}

	const struct ax_config_suite *mm = ax_config_suite(cfg, "gemm");
	AX_CHECK(mm != NULL);
	AX_CHECK_INT(mm->n_cases, 6); /* the repeated point is dropped */
	if (mm && mm->n_cases == 6) {
		AX_CHECK(point_is(&mm->cases[0], 256, 256, 64, 0));
		AX_CHECK(point_is(&mm->cases[1], 1000, 1000, 37, 0));
		AX_CHECK(point_is(&mm->cases[2], 32, 16, 64, 1));
		AX_CHECK(point_is(&mm->cases[3], 32, 16, 64, 0));
		AX_CHECK(point_is(&mm->cases[4], 64, 16, 64, 1));
		AX_CHECK(point_is(&mm->cases[5], 64, 16, 64, 0));
	}
	AX_CHECK(ax_config_suite(cfg, "conv") == NULL);
	ax_config_destroy(cfg);
}

/* Read "# expect: L:C message" from the fixture's first line. */
static bool read_expect(const char *path, char *want, size_t len)
{
	FILE *f = fopen(path, "r");
	char line[400];
	bool ok = f && fgets(line, sizeof(line), f) &&
		  !strncmp(line, "# expect: ", 10);
	if (f)
		fclose(f);
	if (!ok)
		return false;
	line[strcspn(line, "\n")] = '\0';
	snprintf(want, len, "%s", line + 10);
	return true;
}

static void check_fixture(const char *name)
{
	char path[256], want[400], prefix[700], err[1024] = "";
	struct ax_config *cfg = (void *)1;
	snprintf(path, sizeof(path), FIX "%s", name);
	if (!read_expect(path, want, sizeof(want))) {
		printf("#   %s: no '# expect: L:C message' first line\n", path);
		AX_CHECK(0);
		return;
	}
	int rc = load(path, &cfg, err, sizeof(err));
	AX_CHECK_INT(rc, AX_ECONFIG);
	AX_CHECK(cfg == NULL);
	/* "PATH:L:C: message" must start with PATH:L:C and hold message */
	char *space = strchr(want, ' ');
	*space = '\0';
	snprintf(prefix, sizeof(prefix), "%s:%s: ", path, want);
	if (strncmp(err, prefix, strlen(prefix)) || !strstr(err, space + 1)) {
		printf("#   %s\n#   got:  %s\n#   want: %s%s\n", name, err,
		       prefix, space + 1);
		AX_CHECK(0);
	}
	ax_config_destroy(cfg);
}

static void test_fixture_syntax(void) { check_fixture("syntax.yaml"); }
static void test_fixture_unknown_key(void)
{
	check_fixture("unknown_key.yaml");
}
static void test_fixture_wrong_type(void) { check_fixture("wrong_type.yaml"); }
static void test_fixture_out_of_range(void)
{
	check_fixture("out_of_range.yaml");
}
static void test_fixture_unknown_suite(void)
{
	check_fixture("unknown_suite.yaml");
}
static void test_fixture_unknown_param(void)
{
	check_fixture("unknown_param.yaml");
}
static void test_fixture_billion_laughs(void)
{
	check_fixture("billion_laughs.yaml");
}
static void test_fixture_more(void)
{
	check_fixture("duplicate_key.yaml");
	check_fixture("too_many_cases.yaml");
	check_fixture("missing_schema.yaml");
	check_fixture("bad_list.yaml");
}

/* The bridge expands aliases, but only up to its value budget. */
static void test_billion_laughs_bridge(void)
{
	char err[1024] = "";
	json_t *doc = (void *)1;
	int rc = ax_config_load_yaml_json(FIX "billion_laughs.yaml", &doc, err,
					  sizeof(err));
	AX_CHECK_INT(rc, AX_ECONFIG);
	AX_CHECK(doc == NULL);
	AX_CHECK(strstr(err, "expands to more than") != NULL);
	AX_CHECK(!strncmp(err, FIX "billion_laughs.yaml:", 33));
	/* a small alias is fine */
	const char *ok = "a: &x [1, 2]\nb: *x\n";
	rc = ax_config_parse_yaml_json(ok, strlen(ok), "ok", &doc, err,
				       sizeof(err));
	AX_CHECK_INT(rc, 0);
	AX_CHECK(rc == 0 && json_array_size(json_object_get(doc, "b")) == 2);
	if (!rc)
		json_decref(doc);
	/* a recursive alias ends as an error, not a crash */
	const char *loop = "a: &x [1, *x]\n";
	rc = ax_config_parse_yaml_json(loop, strlen(loop), "loop", &doc, err,
				       sizeof(err));
	if (rc == 0)
		json_decref(doc);
	AX_CHECK(rc == 0 || rc == AX_ECONFIG);
}

struct inline_case {
	const char *text, *want;
};

/* Inline profiles that must fail, each with a piece of its message. */
static void test_inline_errors(void)
{
	static const struct inline_case cases[] = {
	    {"schema: axbench.profile/v2\nsuites: {gemm: }\n",
	     "inline.yaml:1:9: schema must be axbench.profile/v1"},
	    {"schema: axbench.profile/v1\nsuites: {}\n",
	     "inline.yaml:2:9: suites must be a mapping with at least one "
	     "of: bandwidth, gemm"},
	    {"schema: axbench.profile/v1\n",
	     "inline.yaml:1:1: the profile has no 'suites' key"},
	    {"- a\n- b\n", "inline.yaml:1:1: a profile is a mapping"},
	    {"", "inline.yaml: the profile is empty"},
	    {"schema: axbench.profile/v1\nmeasure: {min_samples: 9, "
	     "max_samples: 3}\nsuites: {gemm: }\n",
	     "inline.yaml:2:40: measure.max_samples (3) must be at least "
	     "min_samples (9)"},
	    {"schema: axbench.profile/v1\nmeasure: {mode: hot}\n"
	     "suites: {gemm: }\n",
	     "inline.yaml:2:17: measure.mode must be batch or cold (got "
	     "hot)"},
	    {"schema: axbench.profile/v1\nmeasure: {max_noise_pct: 0}\n"
	     "suites: {gemm: }\n",
	     "measure.max_noise_pct must be a number above 0 and at most "
	     "100 (got 0)"},
	    {"schema: axbench.profile/v1\nsuites:\n  gemm: {params: "
	     "{m: []}}\n",
	     "inline.yaml:3:22: suite gemm: m is an empty list"},
	    {"schema: axbench.profile/v1\nsuites:\n  gemm: {cases: []}\n",
	     "inline.yaml:3:17: suite gemm: cases is empty"},
	    {"schema: axbench.profile/v1\nsuites:\n  gemm: {cases: "
	     "{m: 1}}\n",
	     "inline.yaml:3:17: suite gemm: cases must be a sequence"},
	    {"schema: axbench.profile/v1\nsuites:\n  gemm: {tune: 1}\n",
	     "inline.yaml:3:10: unknown key 'tune' in suite gemm; "
	     "allowed keys: params, cases"},
	    {"schema: axbench.profile/v1\nsuites:\n  gemm: [m, n]\n",
	     "inline.yaml:3:9: suite gemm must be null or a mapping"},
	    {"schema: axbench.profile/v1\nsuites:\n  gemm: {params: "
	     "{m: {x: 1}}}\n",
	     "suite gemm: m must be a value or a list of values, not a "
	     "mapping"},
	    {"schema: axbench.profile/v1\nsuites:\n  gemm: {params: "
	     "{m: }}\n",
	     "inline.yaml:3:22: suite gemm: m has no value"},
	    {"schema: axbench.profile/v1\nsuites:\n  gemm: {params: "
	     "{fp16: maybe}}\n",
	     "fp16 must be true or false (got maybe)"},
	    {"schema: axbench.profile/v1\nname: [a]\nsuites: {gemm: }\n",
	     "inline.yaml:2:7: name must be a string, not a sequence"},
	    {"schema: axbench.profile/v1\nsuites: {gemm: }\n---\n"
	     "schema: x\n",
	     "inline.yaml:3:1: a profile is one YAML document"},
	    {"schema: axbench.profile/v1\nsuites:\n  gemm: {params: "
	     "{m: &x 4, n: *x}}\n",
	     "inline.yaml:3:31: YAML alias *x is not allowed"},
	    {"schema: axbench.profile/v1\nsuites:\n  gemm:\n"
	     "\tparams: {}\n",
	     "inline.yaml:4:1: YAML syntax error"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[1024] = "";
		struct ax_config *cfg = (void *)1;
		int rc = parse(cases[i].text, &cfg, err, sizeof(err));
		if (rc != AX_ECONFIG || cfg || !strstr(err, cases[i].want)) {
			printf("#   case %zu: rc %d\n#   got:  %s\n#   "
			       "want: %s\n",
			       i, rc, err, cases[i].want);
			AX_CHECK(0);
		}
	}
}

static void test_defaults_and_json(void)
{
	char err[1024] = "";
	struct ax_config *cfg;
	const char *text = "schema: axbench.profile/v1\n"
			   "measure: {warmup: 0, mode: batch}\n"
			   "suites:\n  gemm:\n  bandwidth: {params: "
			   "{size: \"4K,64K\", op: copy}}\n";
	int rc = ax_config_parse(text, strlen(text), "dir/my.profile.yaml",
				 schema, 2, &cfg, err, sizeof(err));
	AX_CHECK_INT(rc, 0);
	if (rc) {
		printf("#   %s\n", err);
		return;
	}
	AX_CHECK_STR(cfg->name, "my");
	AX_CHECK(cfg->device == NULL && cfg->description == NULL);
	AX_CHECK_INT(cfg->measure.set, AX_MEASURE_WARMUP | AX_MEASURE_MODE);
	AX_CHECK_INT(cfg->n_cases, 3);
	AX_CHECK_STR(cfg->suites[0].schema->suite, "gemm");
	AX_CHECK(point_is(&cfg->suites[0].cases[0], 128, 128, 128, 0));
	AX_CHECK_INT(cfg->suites[1].cases[1].v[1], 65536);
	AX_CHECK_INT(cfg->suites[1].cases[1].v[0], 2);

	json_t *j = ax_config_to_json(cfg);
	AX_CHECK(j != NULL);
	char *s = json_dumps(j, JSON_COMPACT);
	AX_CHECK_STR(s,
		     "{\"schema\":\"axbench.profile/v1\",\"name\":\"my\","
		     "\"path\":\"dir/my.profile.yaml\",\"device\":null,"
		     "\"measure\":"
		     "{\"warmup\":0,\"mode\":\"batch\"},\"suites\":{\"gemm\":"
		     "{\"cases\":1},\"bandwidth\":{\"cases\":2}}}");
	free(s);
	json_decref(j);
	ax_config_destroy(cfg);
}

static void test_unreadable(void)
{
	char err[1024] = "";
	struct ax_config *cfg;
	json_t *doc;
	AX_CHECK_INT(load(FIX "no-such-file.yaml", &cfg, err, sizeof(err)),
		     AX_EIO);
	AX_CHECK(strstr(err, "no-such-file.yaml: cannot open") != NULL);
	/* A directory is not a file to read: the caller's mistake, said as
	 * such (core/infile.h), never read or waited on. */
	AX_CHECK_INT(ax_config_load_yaml_json(FIX, &doc, err, sizeof(err)),
		     AX_ECONFIG);
	AX_CHECK(strstr(err, "is a directory, not a regular file") != NULL);
}

/* Emit a document full of traps, read it back, compare. */
static void test_emit_round_trip(void)
{
	json_error_t jerr;
	const char *src =
	    "{\"zeta\": 1, \"alpha\": null, \"s\": [\"yes\", \"No\", "
	    "\"on\", \"null\", \"~\", \"\", \"1.0\", \"0x10\", "
	    "\"2024-01-31\", \"1:20\", \"-5\", \".5\", \"a: b\", "
	    "\"#hash\", \"- dash\", \"trailing \", \"two\\nlines\", "
	    "\"caf\\u00e9\", \"GB/s\", \"plain text\", \"[x]\", \"*x\", "
	    "\"&y\", \"!t\", \"%p\", \"@a\", \"`b\", \"|\", \">\"], "
	    "\"n\": [0, -7, 9007199254740993], "
	    "\"r\": [0.1, 100.0, 1e20, -0.5, 3.14159, 1e-7, 0.0], "
	    "\"b\": [true, false], \"e\": {}, \"a\": [], "
	    "\"deep\": {\"x\": [{\"y\": {\"z\": [1, [2, [3]]]}}]}}";
	json_t *doc = json_loads(src, 0, &jerr);
	AX_CHECK(doc != NULL);
	char *yaml = NULL;
	AX_CHECK_INT(ax_config_emit_yaml_string(doc, &yaml), 0);
	AX_CHECK(yaml != NULL);
	if (!yaml)
		return;
	/* keys in the document's order, block style, null as null */
	AX_CHECK(!strncmp(yaml, "zeta: 1\nalpha: null\n", 20));
	AX_CHECK(strstr(yaml, "- \"yes\"\n") != NULL);
	AX_CHECK(strstr(yaml, "- \"2024-01-31\"\n") != NULL);
	AX_CHECK(strstr(yaml, "- GB/s\n") != NULL);
	AX_CHECK(strstr(yaml, "- 100.0\n") != NULL);
	AX_CHECK(strstr(yaml, "- 1.0e+20\n") != NULL);
	AX_CHECK(strstr(yaml, "e: {}\n") != NULL);
	json_t *back;
	char err[1024] = "";
	int rc = ax_config_parse_yaml_json(yaml, strlen(yaml), "emitted", &back,
					   err, sizeof(err));
	AX_CHECK_INT(rc, 0);
	if (rc)
		printf("#   %s\n%s", err, yaml);
	if (!rc && !json_equal(doc, back)) {
		char *a = json_dumps(back, JSON_COMPACT);
		printf("#   round trip differs:\n#   %s\n", a);
		free(a);
		AX_CHECK(0);
	}
	if (!rc)
		json_decref(back);
	free(yaml);
	json_decref(doc);
}

static void test_yaml_to_json(void)
{
	const char *text = "i: 42\nh: 0x1F\no: 0o17\nneg: -3\nf: 1.5\n"
			   "e: 2e3\nt: true\nnil: ~\nempty:\nq: '42'\n"
			   "y: yes\nstr: hello world\nlist: [1, two]\n"
			   "block: |\n  line1\n  line2\n";
	json_t *doc;
	char err[512] = "";
	int rc = ax_config_parse_yaml_json(text, strlen(text), "t", &doc, err,
					   sizeof(err));
	AX_CHECK_INT(rc, 0);
	if (rc) {
		printf("#   %s\n", err);
		return;
	}
	AX_CHECK_INT(json_integer_value(json_object_get(doc, "i")), 42);
	AX_CHECK_INT(json_integer_value(json_object_get(doc, "h")), 31);
	AX_CHECK_INT(json_integer_value(json_object_get(doc, "o")), 15);
	AX_CHECK_INT(json_integer_value(json_object_get(doc, "neg")), -3);
	AX_CHECK_NEAR(json_real_value(json_object_get(doc, "f")), 1.5, 0);
	AX_CHECK_NEAR(json_real_value(json_object_get(doc, "e")), 2000, 0);
	AX_CHECK(json_is_true(json_object_get(doc, "t")));
	AX_CHECK(json_is_null(json_object_get(doc, "nil")));
	AX_CHECK(json_is_null(json_object_get(doc, "empty")));
	AX_CHECK_STR(json_string_value(json_object_get(doc, "q")), "42");
	AX_CHECK_STR(json_string_value(json_object_get(doc, "y")), "yes");
	AX_CHECK_STR(json_string_value(json_object_get(doc, "block")),
		     "line1\nline2\n");
	AX_CHECK_INT(json_array_size(json_object_get(doc, "list")), 2);
	json_decref(doc);
}

static void test_yaml_to_json_errors(void)
{
	static const struct inline_case cases[] = {
	    {"a: 1\na: 2\n", "t:2:1: duplicate key 'a'"},
	    {"a: [1, 2\nb: 3\n", "t:2:2: YAML syntax error"},
	    {"x: .inf\n", "t:1:4: .inf cannot be held in JSON"},
	    {"x: 99999999999999999999\n",
	     "t:1:4: integer 99999999999999999999 does not fit"},
	    {"? [a, b]\n: 1\n", "t:1:3: mapping keys must be scalars"},
	    {"a: 1\n---\nb: 2\n", "t:3:1: more than one YAML document"},
	    {"", "t: empty document"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[512] = "";
		json_t *doc = (void *)1;
		int rc = ax_config_parse_yaml_json(cases[i].text,
						   strlen(cases[i].text), "t",
						   &doc, err, sizeof(err));
		if (rc != AX_ECONFIG || doc || !strstr(err, cases[i].want)) {
			printf("#   case %zu: rc %d\n#   got:  %s\n#   "
			       "want: %s\n",
			       i, rc, err, cases[i].want);
			AX_CHECK(0);
		}
	}
}

AX_TEST_MAIN(AX_TEST(test_good_profile), AX_TEST(test_fixture_syntax),
	     AX_TEST(test_fixture_unknown_key),
	     AX_TEST(test_fixture_wrong_type),
	     AX_TEST(test_fixture_out_of_range),
	     AX_TEST(test_fixture_unknown_suite),
	     AX_TEST(test_fixture_unknown_param),
	     AX_TEST(test_fixture_billion_laughs), AX_TEST(test_fixture_more),
	     AX_TEST(test_billion_laughs_bridge), AX_TEST(test_inline_errors),
	     AX_TEST(test_defaults_and_json), AX_TEST(test_unreadable),
	     AX_TEST(test_emit_round_trip), AX_TEST(test_yaml_to_json),
	     AX_TEST(test_yaml_to_json_errors))
