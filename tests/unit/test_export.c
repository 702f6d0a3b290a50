/*
 * tests/unit/test_export.c - the tuned-config document: best point per
 * device, suite and shape, speed-up over the defaults, skipped results,
 * and the YAML round trip back into parameter points.  Results are
 * written by hand in the JSON shape core/db.h documents.
 */
#include "core/config.h"
#include "core/error.h"
#include "reports/export.h"

#include "ax_test.h"

static const struct ax_param_def mm_params[] = {
    {"m", AX_PT_INT, 1, 65536, NULL, 128, AX_PARAM_SHAPE, "rows"},
    {"n", AX_PT_INT, 1, 65536, NULL, 128, AX_PARAM_SHAPE, "columns"},
    {"tile", AX_PT_INT, 4, 256, NULL, 16, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "tile"},
    {"fp16", AX_PT_BOOL, 0, 1, NULL, 0, AX_PARAM_TUNABLE, "half"},
};

static const struct ax_config_schema schema[] = {{"gemm", mm_params, 4}};

/* One result row as ax_db_results returns it: ten samples spread evenly
 * around median (+-0.5 %), measured in run `run` with extra.role `role`
 * (NULL: a plain `axbench run`). */
static json_t *result_in(int id, const char *fp, int m, int tile, int run,
			 const char *role, double median, const char *status)
{
	json_t *samples = json_array();
	for (int i = 0; i < 10; i++)
		json_array_append_new(
		    samples, json_real(median * (1 + (i - 4.5) * 0.001)));
	return json_pack(
	    "{s:i, s:s, s:i, s:s, s:s, s:s, s:{s:i, s:i, s:i, s:s}, s:s, s:b, "
	    "s:s, s:f, s:o, s:o, s:{s:i, s:s, s:s, s:n, s:s}}",
	    "id", id, "uuid", "u", "run_id", run, "run_uuid", "ru",
	    "started_at", "2024-05-01T10:00:00Z", "suite", "gemm", "params",
	    "m", m, "n", 64, "tile", tile, "fp16", "false", "unit", "GFLOP/s",
	    "higher_is_better", 1, "status", status, "median", median,
	    "samples", samples, "extra",
	    role ? json_pack("{s:s, s:i}", "role", role, "tune_session", 9)
		 : json_null(),
	    "device", "id", 1, "fingerprint", fp, "name", "llvmpipe",
	    "pci_bus_id", "device_uuid", "abc");
}

static json_t *result(int id, const char *fp, int m, int tile, double median,
		      const char *status)
{
	return result_in(id, fp, m, tile, 1, NULL, median, status);
}

static json_t *sample_results(void)
{
	json_t *a = json_array();
	json_array_append_new(a, result(1, "dev1", 256, 16, 10.0, "ok"));
	json_array_append_new(a, result(2, "dev1", 256, 32, 15.0, "ok"));
	json_array_append_new(
	    a, result(3, "dev1", 256, 64, 99.0, "failed-verification"));
	json_array_append_new(a, result(4, "dev1", 512, 64, 20.0, "ok"));
	json_array_append_new(a, result(5, "dev2", 256, 8, 5.0, "ok"));
	json_array_append_new(a, result(8, "dev2", 256, 16, 4.0, "ok"));
	json_t *odd = result(6, "dev1", 256, 16, 1.0, "ok");
	json_object_set_new(odd, "suite", json_string("warp"));
	json_array_append_new(a, odd);
	json_t *stale = result(7, "dev1", 256, 16, 1.0, "ok");
	json_object_set_new(json_object_get(stale, "params"), "tile",
			    json_integer(3));
	json_array_append_new(a, stale);
	return a;
}

static json_t *build(json_t *res, const struct ax_export_opts *o)
{
	json_t *doc = NULL;
	char err[512] = "";
	int rc = ax_export_build(res, NULL, schema, 1, o, "t", &doc, err,
				 sizeof(err));
	AX_CHECK_INT(rc, 0);
	if (rc)
		printf("#   %s\n", err);
	json_decref(res);
	return doc;
}

/* The entries of device 0, suite gemm. */
static json_t *entries(json_t *doc, int dev)
{
	return json_object_get(
	    json_object_get(
		json_array_get(json_object_get(doc, "devices"), dev), "suites"),
	    "gemm");
}

static const char *choice_of(json_t *e)
{
	return json_string_value(json_object_get(e, "choice"));
}

static void test_build(void)
{
	json_t *res = sample_results(), *doc;
	json_t *sessions = json_pack(
	    "[{s:i, s:s, s:{s:s}, s:[{s:{s:i, s:i, s:i, s:s}, s:s}]}]", "id", 9,
	    "suite", "gemm", "device", "fingerprint", "dev1", "trials",
	    "params", "m", 256, "n", 64, "tile", 32, "fp16", "false", "status",
	    "ok");
	char err[512] = "";
	int rc = ax_export_build(res, sessions, schema, 1, NULL, "axbench test",
				 &doc, err, sizeof(err));
	AX_CHECK_INT(rc, 0);
	if (rc) {
		printf("#   %s\n", err);
		return;
	}
	AX_CHECK_STR(json_string_value(json_object_get(doc, "schema")),
		     "axbench.tuned/v1");
	json_t *devs = json_object_get(doc, "devices");
	AX_CHECK_INT(json_array_size(devs), 2);
	json_t *d1 = json_array_get(devs, 0);
	AX_CHECK_STR(json_string_value(json_object_get(d1, "fingerprint")),
		     "dev1");
	AX_CHECK(json_is_null(json_object_get(d1, "pci_bus_id")));
	json_t *g = entries(doc, 0);
	AX_CHECK_INT(json_array_size(g), 2);
	json_t *e = json_array_get(g, 0);
	/* the failed 99.0 never counts; 15 beats 10 in the same run, every
	 * sample apart: compare says faster */
	AX_CHECK_STR(choice_of(e), "tuned");
	AX_CHECK_NEAR(json_real_value(json_object_get(e, "value")), 15.0, 0);
	AX_CHECK_NEAR(json_real_value(json_object_get(e, "default_value")),
		      10.0, 0);
	AX_CHECK_NEAR(json_real_value(json_object_get(e, "speedup")), 1.5,
		      1e-12);
	json_t *ev = json_object_get(e, "evidence");
	AX_CHECK_STR(json_string_value(json_object_get(ev, "verdict")),
		     "faster");
	AX_CHECK_INT(
	    json_integer_value(json_object_get(ev, "default_result_id")), 1);
	AX_CHECK(json_real_value(json_object_get(ev, "p_value")) < 0.05);
	AX_CHECK_INT(json_integer_value(json_object_get(e, "result_id")), 2);
	AX_CHECK_INT(json_integer_value(json_object_get(e, "session_id")), 9);
	AX_CHECK_INT(json_integer_value(
			 json_object_get(json_object_get(e, "tuned"), "tile")),
		     32);
	/* booleans are booleans, not "false" strings */
	AX_CHECK(json_is_false(
	    json_object_get(json_object_get(e, "tuned"), "fp16")));
	AX_CHECK(json_object_get(json_object_get(e, "shape"), "tile") == NULL);
	/* 512: only a non-default point measured: the defaults, no speed-up */
	json_t *e2 = json_array_get(g, 1);
	AX_CHECK_STR(choice_of(e2), "defaults");
	AX_CHECK_INT(json_integer_value(
			 json_object_get(json_object_get(e2, "tuned"), "tile")),
		     16);
	AX_CHECK(json_is_null(json_object_get(e2, "value")));
	AX_CHECK(json_is_null(json_object_get(e2, "speedup")));
	AX_CHECK(strstr(json_string_value(json_object_get(e2, "reason")),
			"never measured") != NULL);
	AX_CHECK(json_is_null(json_object_get(e2, "session_id")));
	/* dev2: tile 8 (5.0) beat the defaults (4.0) in the same run */
	json_t *e3 = json_array_get(entries(doc, 1), 0);
	AX_CHECK_STR(choice_of(e3), "tuned");
	/* the unknown suite and the stale point are skipped, with reasons */
	json_t *sk = json_object_get(doc, "skipped");
	AX_CHECK_INT(json_array_size(sk), 2);
	AX_CHECK(strstr(json_string_value(
			    json_object_get(json_array_get(sk, 1), "reason")),
			"tile must be a power of two") != NULL);
	json_decref(doc);
	json_decref(res);
	json_decref(sessions);
}

/* A point is exported only when measured beside the defaults, fully
 * sampled, and faster beyond noise; else the defaults, with the reason. */
static void test_choice_needs_evidence(void)
{
	static const struct {
		int tile_run;	    /* run of the tile-32 result */
		const char *role;   /* its extra.role */
		double tile_median; /* defaults: 10.0 in run 1 */
		const char *choice, *reason;
	} cases[] = {
	    {1, NULL, 15.0, "tuned", "beyond noise"},
	    {1, "retime", 15.0, "tuned", "beyond noise"},
	    {1, NULL, 5.0, "defaults", "was slower"},
	    {1, NULL, 10.01, "defaults", "no tuned point beat"},
	    {1, "trial", 15.0, "defaults", "same run as the defaults"},
	    {2, NULL, 15.0, "defaults", "same run as the defaults"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *res = json_array();
		json_array_append_new(
		    res, result_in(1, "d", 256, 16, 1, NULL, 10.0, "ok"));
		json_array_append_new(
		    res, result_in(2, "d", 256, 32, cases[i].tile_run,
				   cases[i].role, cases[i].tile_median, "ok"));
		json_t *doc = build(res, NULL);
		json_t *e = json_array_get(entries(doc, 0), 0);
		const char *reason =
		    json_string_value(json_object_get(e, "reason"));
		if (!choice_of(e) || strcmp(choice_of(e), cases[i].choice) ||
		    !reason || !strstr(reason, cases[i].reason)) {
			printf("#   case %zu: %s: %s\n", i, choice_of(e),
			       reason);
			AX_CHECK(0);
		}
		json_decref(doc);
	}
}

/* Two measurements of the default point are never a speed-up, however
 * far apart their figures. */
static void test_identical_is_no_speedup(void)
{
	json_t *res = json_array();
	json_array_append_new(
	    res, result_in(1, "d", 256, 16, 1, "default", 10.0, "ok"));
	json_array_append_new(
	    res, result_in(2, "d", 256, 16, 1, "retime", 12.0, "ok"));
	json_t *doc = build(res, NULL);
	json_t *e = json_array_get(entries(doc, 0), 0);
	AX_CHECK_STR(choice_of(e), "defaults");
	AX_CHECK(json_is_null(json_object_get(e, "speedup")));
	AX_CHECK(json_object_get(e, "evidence") == NULL);
	json_decref(doc);
}

/* --shapes: only the shapes named are exported; bad filters say why. */
static void test_shapes_filter(void)
{
	struct ax_export_shape f[2];
	char err[512];
	AX_CHECK_INT(ax_export_shape_parse("gemm:m=512", schema, 1, &f[0], err,
					   sizeof(err)),
		     0);
	struct ax_export_opts o = {.shapes = f, .n_shapes = 1};
	json_t *doc = build(sample_results(), &o);
	json_t *g = entries(doc, 0);
	AX_CHECK_INT(json_array_size(g), 1);
	AX_CHECK_INT(json_integer_value(json_object_get(
			 json_object_get(json_array_get(g, 0), "shape"), "m")),
		     512);
	AX_CHECK_INT(json_array_size(json_object_get(doc, "devices")), 1);
	json_decref(doc);
	static const char *const bad_filters[][2] = {
	    {"warp:m=1", "unknown suite 'warp'"},
	    {"gemm:tile=32", "tile is a tunable parameter"},
	    {"gemm:m", "'m' is not NAME=VALUE"},
	    {"gemm:q=1", "q"},
	    {"gemm:m=x", "--shapes gemm:m=x"},
	};
	for (size_t i = 0; i < 5; i++) {
		err[0] = '\0';
		int rc = ax_export_shape_parse(bad_filters[i][0], schema, 1,
					       &f[1], err, sizeof(err));
		if (rc != AX_EINVAL || !strstr(err, bad_filters[i][1])) {
			printf("#   %s: rc %d: %s\n", bad_filters[i][0], rc,
			       err);
			AX_CHECK(0);
		}
	}
}

static void test_round_trip(void)
{
	json_t *res = sample_results(), *doc, *back;
	char err[512] = "", *yaml = NULL;
	struct ax_tuned *t = NULL;
	AX_CHECK_INT(ax_export_build(res, NULL, schema, 1, NULL, "t", &doc, err,
				     sizeof(err)),
		     0);
	AX_CHECK_INT(ax_config_emit_yaml_string(doc, &yaml), 0);
	int rc = ax_config_parse_yaml_json(yaml, strlen(yaml), "x.yaml", &back,
					   err, sizeof(err));
	AX_CHECK_INT(rc, 0);
	AX_CHECK(rc == 0 && json_equal(doc, back));
	/* YAML booleans, not quoted strings or 0/1 */
	AX_CHECK(strstr(yaml, "fp16: false\n") != NULL);
	AX_CHECK(strstr(yaml, "\"false\"") == NULL);
	if (rc)
		goto out;
	rc = ax_export_tuned_from_json(back, "x.yaml", schema, 1, &t, err,
				       sizeof(err));
	AX_CHECK_INT(rc, 0);
	AX_CHECK(rc == 0 && t->n == 3);
	struct ax_params p;
	ax_params_init(&p, mm_params, 4);
	p.v[0] = 256, p.v[1] = 64;
	const struct ax_tuned_entry *hit =
	    ax_export_tuned_apply(t, "dev1", "gemm", &p);
	AX_CHECK(hit != NULL);
	AX_CHECK_INT(p.v[2], 32);
	AX_CHECK(hit && hit->value == 15.0);
	AX_CHECK(ax_export_tuned_apply(t, "dev2", "gemm", &p) != NULL);
	AX_CHECK_INT(p.v[2], 8);
	p.v[1] = 65; /* a shape nobody tuned: left alone */
	AX_CHECK(ax_export_tuned_apply(t, NULL, "gemm", &p) == NULL);
	AX_CHECK_INT(p.v[2], 8);
	ax_export_tuned_destroy(t);
	json_decref(back);
out:
	free(yaml);
	json_decref(doc);
	json_decref(res);
}

static void test_bad_documents(void)
{
	static const char *const docs[][2] = {
	    {"{\"schema\": \"axbench.tuned/v9\", \"devices\": []}",
	     "schema must be axbench.tuned/v1"},
	    {"{\"schema\": \"axbench.tuned/v1\", \"devices\": [{\"suites\""
	     ": {}}]}",
	     "devices[0] needs a fingerprint"},
	    {"{\"schema\": \"axbench.tuned/v1\", \"devices\": [{"
	     "\"fingerprint\": \"f\", \"suites\": {\"warp\": []}}]}",
	     "devices[0].suites: unknown suite 'warp'"},
	    {"{\"schema\": \"axbench.tuned/v1\", \"devices\": [{"
	     "\"fingerprint\": \"f\", \"suites\": {\"gemm\": [{\"params\""
	     ": {\"tile\": 5}}]}}]}",
	     "devices[0].suites.gemm[0].params: tile must be a power"},
	    {"{\"schema\": \"axbench.tuned/v1\", \"devices\": [{"
	     "\"fingerprint\": \"f\", \"suites\": {\"gemm\": [{\"params\""
	     ": {\"tile\": 32}}]}}]}",
	     "devices[0].suites.gemm[0] has no choice (tuned or defaults)"},
	    {"{\"schema\": \"axbench.tuned/v1\", \"devices\": [{"
	     "\"fingerprint\": \"f\", \"suites\": {\"gemm\": [{\"params\""
	     ": {\"tile\": 32}, \"choice\": \"defaults\"}]}}]}",
	     "choice is defaults, but its params are not"},
	    {"{\"schema\": \"axbench.tuned/v1\", \"devices\": [{"
	     "\"fingerprint\": \"f\", \"suites\": {\"gemm\": [{\"params\""
	     ": {\"tile\": 32}, \"choice\": \"best\"}]}}]}",
	     "choice must be tuned or defaults (got 'best')"},
	};
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		json_t *doc = json_loads(docs[i][0], 0, NULL);
		struct ax_tuned *t = (void *)1;
		char err[512] = "";
		int rc = ax_export_tuned_from_json(doc, "f.yaml", schema, 1, &t,
						   err, sizeof(err));
		if (rc != AX_ECONFIG || t || !strstr(err, docs[i][1])) {
			printf("#   case %zu: rc %d: %s\n", i, rc, err);
			AX_CHECK(0);
		}
		json_decref(doc);
	}
}

AX_TEST_MAIN(AX_TEST(test_build), AX_TEST(test_choice_needs_evidence),
	     AX_TEST(test_identical_is_no_speedup), AX_TEST(test_shapes_filter),
	     AX_TEST(test_round_trip), AX_TEST(test_bad_documents))
