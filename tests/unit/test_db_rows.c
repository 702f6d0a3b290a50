/*
 * tests/unit/test_db_rows.c - the typed read side (core/db_rows.h) on a
 * real SQLite file written with core's write API: what each row holds,
 * the rule that a failed result has no figure, rows kept past their
 * callback, and the documents core/db_json.c makes of them.
 */
#include "core/db.h"
#include "core/error.h"
#include "tests/unit/ax_test.h"

#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static struct ax_db *fresh_db(void)
{
	char path[128], err[512];
	struct ax_db *db = NULL;
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/ax_test_rows.%ld",
			 (long)getpid());
		AX_CHECK_INT(mkdir(dir, 0700), 0);
	}
	snprintf(path, sizeof(path), "%s/rows.db", dir);
	unlink(path);
	AX_CHECK_INT(ax_db_open(path, 0, &db, err, sizeof(err)), 0);
	return db;
}

static int64_t add_run(struct ax_db *db, int64_t *device_id)
{
	struct ax_db_host h = {.hostname = "rowhost",
			       .os = "Linux",
			       .cpu_model = "Test CPU",
			       .cores = 2,
			       .numa_nodes = 1};
	struct ax_db_device d = {
	    .fingerprint = "fp-rows",
	    .name = "llvmpipe",
	    .vendor = "Mesa",
	    .type = "cpu",
	    .driver_name = "llvmpipe",
	    .driver_info = "Mesa 22.3.6",
	    .vendor_id = 0x10005,
	    .api_version = (1u << 22) | (3u << 12) | 230,
	    .properties_json = "{\"driver_version\":\"22.3.6\"}",
	};
	struct ax_db_run r = {.argv_json = "[\"axbench\",\"run\"]",
			      .config_json = "{\"max_noise\":0.05}",
			      .profile = "quick",
			      .label = "rows/one"};
	int64_t id = 0;
	AX_CHECK_INT(ax_db_host_upsert(db, &h, &r.host_id), 0);
	AX_CHECK_INT(ax_db_device_upsert(db, &d, &r.device_id), 0);
	AX_CHECK_INT(ax_db_run_begin(db, &r, &id), 0);
	*device_id = r.device_id;
	return id;
}

/* An ok result with three samples and a power row, and a failed one
 * whose summary was stored anyway (as older rows did). */
static void add_results(struct ax_db *db, int64_t run)
{
	double secs[3] = {1e-3, 2e-3, 3e-3}, vals[3] = {10, 20, 30};
	struct ax_db_power pw = {.source = "RAPL",
				 .readings = 4,
				 .seconds = 1,
				 .mean_w = 50,
				 .max_w = 60,
				 .idle_w = NAN,
				 .energy_rep_j = 0.5,
				 .energy_rep_net_j = NAN,
				 .temp_mean_c = NAN,
				 .temp_max_c = NAN,
				 .sm_mhz = NAN,
				 .mem_mhz = NAN,
				 .mem_peak_b = NAN,
				 .mem_budget_b = NAN,
				 .perf_per_w = 0.4,
				 .perf_per_w_unit = "GB/s/W",
				 .throttled = 0};
	struct ax_db_result ok = {
	    .run_id = run,
	    .suite = "bandwidth",
	    .case_label = "copy",
	    .params_json = "{\"op\":\"copy\",\"size\":1024,\"scale\":0.5}",
	    .unit = "GB/s",
	    .higher_is_better = true,
	    .work = 2048,
	    .status = "ok",
	    .n = 3,
	    .median = 20,
	    .ci_lo = 15,
	    .ci_hi = 25,
	    .extra_json = "{\"bytes\":2048,\"sustained\":true,"
			  "\"tune_session\":7,\"role\":\"trial\","
			  "\"stages\":{\"read\":0.25}}",
	    .speedup_vs_cpu = NAN,
	    .power = &pw};
	struct ax_db_result bad = ok;
	bad.status = "failed-verification";
	bad.error_text = "3 of 1024 values differ";
	bad.extra_json = NULL;
	bad.power = NULL;
	AX_CHECK_INT(ax_db_result_add(db, &ok, secs, vals, 3, NULL), 0);
	AX_CHECK_INT(ax_db_result_add(db, &bad, secs, vals, 3, NULL), 0);
}

static void result_rows_are_typed(void)
{
	struct ax_db *db = fresh_db();
	int64_t dev, run = add_run(db, &dev);
	add_results(db, run);
	struct ax_db_filter f = {.with_samples = true};
	struct ax_db_results l;
	AX_CHECK_INT(ax_db_result_rows(db, &f, &l), 0);
	AX_CHECK_INT(l.n, 2);
	const struct ax_db_result_row *r = l.v[0], *x = l.v[1];
	AX_CHECK(r->ok && !x->ok);
	AX_CHECK_STR(r->suite, "bandwidth");
	AX_CHECK_NEAR(r->median, 20, 0);
	AX_CHECK_NEAR(r->noise_target, 0.05, 1e-12);
	AX_CHECK(isnan(r->speedup_vs_cpu));
	AX_CHECK_STR(ax_db_param_text(&r->params, "op"), "copy");
	AX_CHECK_NEAR(ax_db_param_num(&r->params, "size"), 1024, 0);
	AX_CHECK_INT(ax_db_param_find(&r->params, "size")->type,
		     AX_DB_VALUE_INT);
	AX_CHECK_INT(ax_db_param_find(&r->params, "scale")->type,
		     AX_DB_VALUE_REAL);
	AX_CHECK(ax_db_param_find(&r->params, "nosuch") == NULL);
	AX_CHECK_NEAR(r->bytes, 2048, 0);
	AX_CHECK(isnan(r->input_bytes));
	AX_CHECK(r->sustained);
	AX_CHECK_INT(r->tune_session, 7);
	AX_CHECK_STR(r->tune_role, "trial");
	AX_CHECK_NEAR(ax_db_extra_num(r, "stages.read"), 0.25, 0);
	AX_CHECK(isnan(ax_db_extra_num(r, "stages.nosuch")));
	AX_CHECK_INT(r->n_samples, 3);
	AX_CHECK_NEAR(r->samples[2], 30, 0);
	AX_CHECK_NEAR(r->seconds[0], 1e-3, 0);
	AX_CHECK_STR(r->device.api_version, "1.3.230");
	AX_CHECK_STR(r->device.driver_version, "22.3.6");
	AX_CHECK_INT(r->device.vendor_id, 0x10005);
	AX_CHECK_INT(r->device.device_id, 0); /* stored as given */
	AX_CHECK_STR(r->host.hostname, "rowhost");
	AX_CHECK(r->power.present);
	AX_CHECK_NEAR(r->power.mean_w, 50, 0);
	AX_CHECK(isnan(r->power.idle_w)); /* not 0 */
	AX_CHECK_INT(r->power.throttled, 0);
	AX_CHECK_INT(r->cpu.id, 0);
	AX_CHECK_STR(r->run_label, "rows/one");
	/* A failed result has no figure, whatever the row stored. */
	AX_CHECK(isnan(x->median) && isnan(x->ci_lo) && isnan(x->rel_noise));
	AX_CHECK_STR(x->error, "3 of 1024 values differ");
	AX_CHECK(!x->power.present);
	AX_CHECK(!x->sustained && x->tune_session == 0);
	AX_CHECK(isnan(x->bytes));
	ax_db_results_free(&l);
	ax_db_close(db);
}

static void documents_match_the_rows(void)
{
	struct ax_db *db = fresh_db();
	int64_t dev, run = add_run(db, &dev);
	add_results(db, run);
	struct ax_db_filter f = {0};
	struct ax_db_results l;
	AX_CHECK_INT(ax_db_result_rows(db, &f, &l), 0);
	json_t *doc = ax_db_results_json(&l);
	json_t *ok = json_array_get(doc, 0), *bad = json_array_get(doc, 1);
	AX_CHECK(json_is_true(json_object_get(ok, "higher_is_better")));
	AX_CHECK(json_is_integer(
	    json_object_get(json_object_get(ok, "params"), "size")));
	AX_CHECK(json_is_null(json_object_get(bad, "median")));
	AX_CHECK(json_is_null(json_object_get(bad, "power")));
	AX_CHECK(json_is_null(json_object_get(ok, "cpu")));
	AX_CHECK(json_is_null(
	    json_object_get(json_object_get(ok, "power"), "idle_w")));
	AX_CHECK(json_is_false(
	    json_object_get(json_object_get(ok, "power"), "throttled")));
	AX_CHECK(json_object_get(ok, "samples") == NULL); /* not asked */
	/* The listing's document is the rows' document. */
	json_t *listed = NULL;
	AX_CHECK_INT(ax_db_results(db, &f, &listed), 0);
	AX_CHECK(json_equal(listed, doc));
	/* A byte count a reader fills in shows in extra; a stored one is
	 * kept as stored. */
	l.v[1]->bytes = 4096;
	json_t *filled = ax_db_result_json(l.v[1]);
	AX_CHECK_NEAR(json_number_value(json_object_get(
			  json_object_get(filled, "extra"), "bytes")),
		      4096, 0);
	json_decref(filled);
	json_decref(listed);
	json_decref(doc);
	ax_db_results_free(&l);
	ax_db_close(db);
}

/* A callback that keeps every other row past its call. */
static int keep_odd(void *ctx, struct ax_db_result_row **row)
{
	struct ax_db_results *kept = ctx;
	if ((*row)->ok)
		return 0;
	if (ax_db_results_push(kept, *row))
		return AX_ENOMEM;
	*row = NULL;
	return 0;
}

static void a_streamed_row_can_be_kept(void)
{
	struct ax_db *db = fresh_db();
	int64_t dev, run = add_run(db, &dev);
	add_results(db, run);
	add_results(db, run);
	struct ax_db_results kept = {0};
	AX_CHECK_INT(ax_db_result_rows_each(db, NULL, keep_odd, &kept), 0);
	AX_CHECK_INT(kept.n, 2);
	for (size_t i = 0; i < kept.n; i++)
		AX_CHECK_STR(kept.v[i]->status, "failed-verification");
	ax_db_results_free(&kept);
	ax_db_close(db);
}

static void runs_sessions_and_baselines(void)
{
	struct ax_db *db = fresh_db();
	int64_t dev, run = add_run(db, &dev), sid = 0, tid = 0;
	add_results(db, run);
	struct ax_db_session ss = {.device_id = dev,
				   .suite = "gemm",
				   .shape_json = "{\"m\":256}",
				   .strategy = "bo",
				   .objective = "time",
				   .seed = UINT64_MAX,
				   .budget = 3};
	AX_CHECK_INT(ax_db_session_begin(db, &ss, &sid), 0);
	struct ax_db_trial tr = {.session_id = sid,
				 .index = 0,
				 .params_json = "{\"tile\":32}",
				 .status = "ok",
				 .value = 5,
				 .seconds = 1e-3,
				 .compile_ms = 2,
				 .objective_value = NAN};
	AX_CHECK_INT(ax_db_trial_add(db, &tr, &tid), 0);
	struct ax_db_session_row *s = NULL;
	AX_CHECK_INT(ax_db_session_row_get(db, sid, &s), 0);
	AX_CHECK(s->has_seed && s->seed == UINT64_MAX);
	AX_CHECK_INT(s->budget, 3);
	AX_CHECK_INT(s->prior_session_id, 0);
	AX_CHECK_NEAR(ax_db_param_num(&s->shape, "m"), 256, 0);
	AX_CHECK_STR(s->device.fingerprint, "fp-rows");
	AX_CHECK_INT(s->n_trials, 1);
	AX_CHECK_NEAR(ax_db_param_num(&s->trials[0].params, "tile"), 32, 0);
	AX_CHECK(isnan(s->trials[0].objective_value));
	json_t *sj = ax_db_session_json(s);
	AX_CHECK_STR(json_string_value(json_object_get(sj, "seed")),
		     "18446744073709551615");
	json_decref(sj);
	ax_db_session_row_free(s);
	AX_CHECK_INT(ax_db_session_row_get(db, sid + 99, &s), AX_ENOTFOUND);
	AX_CHECK(s == NULL);

	struct ax_db_runs runs;
	AX_CHECK_INT(ax_db_run_rows(db, NULL, &runs), 0);
	AX_CHECK_INT(runs.n, 1);
	AX_CHECK_INT(runs.v[0]->argc, 2);
	AX_CHECK_STR(runs.v[0]->argv[1], "run");
	AX_CHECK_STR(runs.v[0]->kind, "run");
	AX_CHECK_INT(runs.v[0]->n_results, 2);
	ax_db_runs_free(&runs);

	struct ax_db_baselines bl;
	AX_CHECK_INT(ax_db_baseline_save(db, "main", &run, 1), 0);
	AX_CHECK_INT(ax_db_baseline_rows(db, &bl), 0);
	AX_CHECK_INT(bl.n, 1);
	AX_CHECK_STR(bl.v[0].name, "main");
	AX_CHECK_INT(bl.v[0].n_run_ids, 1);
	AX_CHECK_INT(bl.v[0].run_ids[0], run);
	ax_db_baselines_free(&bl);
	ax_db_close(db);
}

static void invalid_utf8_is_repaired_once(void)
{
	struct ax_db *db = fresh_db();
	int64_t dev, run = add_run(db, &dev);
	struct ax_db_result r = {.run_id = run,
				 .suite = "bandwidth",
				 .case_label = "bad \xff byte",
				 .params_json = "{}",
				 .status = "error",
				 .speedup_vs_cpu = NAN};
	AX_CHECK_INT(ax_db_result_add(db, &r, NULL, NULL, 0, NULL), 0);
	struct ax_db_results l;
	AX_CHECK_INT(ax_db_result_rows(db, NULL, &l), 0);
	AX_CHECK_INT(l.n, 1);
	AX_CHECK_STR(l.v[0]->case_label, "bad \xef\xbf\xbd byte");
	ax_db_results_free(&l);
	ax_db_close(db);
}

static void cleanup(void)
{
	char path[128];
	const char *names[] = {"rows.db", "rows.db-wal", "rows.db-shm"};
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	AX_CHECK_INT(rmdir(dir), 0);
}

AX_TEST_MAIN(AX_TEST(result_rows_are_typed), AX_TEST(documents_match_the_rows),
	     AX_TEST(a_streamed_row_can_be_kept),
	     AX_TEST(runs_sessions_and_baselines),
	     AX_TEST(invalid_utf8_is_repaired_once), AX_TEST(cleanup))
