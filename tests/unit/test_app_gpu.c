/* tests/unit/test_app_gpu.c - what `axbench run` and `axbench tune` do,
 * called as the CLI calls them (app/run_exec.h, app/tune.h) on the
 * machine's Vulkan device, into a real database: a plan executed stores
 * each case with the run's label and final status; a live session of
 * three random trials stores its session, trials and verdict.  Skips
 * without a device (ax_gpu_test.h). */
#include "app/run_exec.h"
#include "app/run_plan.h"
#include "app/session.h"
#include "app/tune.h"
#include "core/db.h"
#include "suites/registry.h"
#include "tests/unit/ax_gpu_test.h"
#include "tuner/strategy.h"

#include <fcntl.h>

static char dir[] = "/tmp/axbench-test-app-gpu-XXXXXX";
static char db_path[600];

static struct ax_app app_here(void)
{
	const char *val = getenv("AXBENCH_VALIDATE");
	return (struct ax_app){.db_path = db_path,
			       .verbosity = -1,
			       .validate = val && strcmp(val, "1") == 0,
			       .argc = 0,
			       .argv = NULL};
}

/* Few, short samples: these tests check what is stored, not speed. */
static void quick_opts(struct ax_runner_opts *o)
{
	ax_runner_opts_default(o);
	o->warmup = 1;
	o->min_samples = 3;
	o->max_samples = 3;
	o->min_time_s = 0;
}

static void quiet_efficiency(struct ax_session_efficiency *e)
{
	ax_session_efficiency_default(e);
	e->idle_s = 0;
	e->cpu = AX_CPU_BASELINE_OFF;
}

/* Standard output into path while fn runs (the report a command prints
 * is not TAP). */
static int with_stdout_to(const char *path, int (*fn)(void *), void *arg)
{
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, STDOUT_FILENO);
	close(fd);
	int rc = fn(arg);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	return rc;
}

static json_t *stored(int (*read)(struct ax_db *, const struct ax_db_filter *,
				  json_t **))
{
	struct ax_db *db = NULL;
	json_t *out = NULL;
	char err[512];
	struct ax_db_filter f = {.with_samples = true};
	AX_CHECK_INT(ax_db_open(db_path, AX_DB_READONLY, &db, err, sizeof(err)),
		     0);
	if (db)
		AX_CHECK_INT(read(db, &f, &out), 0);
	ax_db_close(db);
	return out;
}

struct run_call {
	struct ax_app app;
	struct ax_plan plan;
	struct ax_runner_opts opts;
	struct ax_session_efficiency eff;
};

static int call_run(void *arg)
{
	struct run_call *c = arg;
	struct ax_run_origin origin = {.command = "run", .label = "unit"};
	return ax_run_execute(&c->app, &c->plan, &c->opts, &c->eff, false,
			      &origin);
}

static void test_run_executes_and_stores_each_case(void)
{
	AX_NEED_DEVICE();
	struct run_call c = {.app = app_here()};
	char *suites[] = {"bandwidth"};
	struct ax_plan_override ov[] = {{"op=copy,read"}, {"size=64K"}};
	char err[512] = "", out[700];
	AX_CHECK_INT(
	    ax_plan_build(&c.plan, NULL, suites, 1, ov, 2, err, sizeof(err)),
	    0);
	quick_opts(&c.opts);
	quiet_efficiency(&c.eff);
	snprintf(out, sizeof(out), "%s/run.out", dir);
	AX_CHECK_INT(with_stdout_to(out, call_run, &c), AX_EXIT_OK);
	ax_plan_release(&c.plan);
	json_t *results = stored(ax_db_results);
	AX_CHECK_INT(json_array_size(results), 2);
	size_t i;
	json_t *r;
	json_array_foreach(results, i, r)
	{
		AX_CHECK_STR(json_string_value(json_object_get(r, "suite")),
			     "bandwidth");
		AX_CHECK_STR(json_string_value(json_object_get(r, "status")),
			     "ok");
		AX_CHECK_STR(
		    json_string_value(json_object_get(r, "run_status")),
		    "complete");
		AX_CHECK_STR(json_string_value(json_object_get(r, "run_label")),
			     "unit");
		AX_CHECK_INT(json_array_size(json_object_get(r, "samples")), 3);
	}
	json_decref(results);
}

struct tune_call {
	struct ax_app app;
	struct ax_tune_args a;
};

static int call_tune(void *arg)
{
	struct tune_call *c = arg;
	return ax_tune_live(&c->app, &c->a);
}

static void test_tune_stores_session_and_trials(void)
{
	AX_NEED_DEVICE();
	struct tune_call c = {.app = app_here()};
	const struct ax_suite *s = ax_suite_find("bandwidth");
	char err[256], out[700];
	AX_CHECK(s != NULL);
	if (!s)
		return;
	ax_params_init(&c.a.base, s->params, s->n_params);
	AX_CHECK_INT(ax_params_set(&c.a.base, "op", "copy", err, sizeof(err)),
		     0);
	AX_CHECK_INT(ax_params_set(&c.a.base, "size", "4K", err, sizeof(err)),
		     0);
	c.a.suite = s;
	c.a.strategy = "random";
	c.a.seed = 1;
	c.a.budget = 3;
	c.a.retime_top = 1;
	c.a.stop_rule = AX_STOP_NONE;
	c.a.no_early_stop = true;
	c.a.prior_mode = AX_PRIOR_NONE;
	c.a.objective = AX_OBJ_TIME;
	c.a.label = "unit-tune";
	quick_opts(&c.a.trial_opts);
	quick_opts(&c.a.final_opts);
	quiet_efficiency(&c.a.eff);
	snprintf(out, sizeof(out), "%s/tune.out", dir);
	AX_CHECK_INT(with_stdout_to(out, call_tune, &c), AX_EXIT_OK);
	json_t *sessions = stored(ax_db_sessions);
	AX_CHECK_INT(json_array_size(sessions), 1);
	json_t *sess = json_array_get(sessions, 0);
	AX_CHECK_STR(json_string_value(json_object_get(sess, "strategy")),
		     "random");
	AX_CHECK_STR(json_string_value(json_object_get(sess, "suite")),
		     "bandwidth");
	AX_CHECK_INT(json_array_size(json_object_get(sess, "trials")), 3);
	AX_CHECK(json_string_value(json_object_get(sess, "stop_reason")));
	json_decref(sessions);
	/* The report the command prints names the session's search. */
	char text[4096] = "";
	FILE *f = fopen(out, "r");
	AX_CHECK(f != NULL);
	if (f) {
		text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
		fclose(f);
	}
	AX_CHECK(strstr(text, "random on bandwidth, 3 trials") != NULL);
}

/* A paired measurement through the session: two bandwidth cases in
 * alternating rounds, both stored with every round's samples and the
 * pairing's facts, B naming A. */
static void test_session_pairs_and_stores_both(void)
{
	AX_NEED_DEVICE();
	struct ax_app app = app_here();
	struct ax_session s;
	ax_session_init(&s, &app, "ab");
	quiet_efficiency(&s.eff);
	const struct ax_suite *bw = ax_suite_find("bandwidth");
	struct ax_params pa, pb;
	ax_params_init(&pa, bw->params, bw->n_params);
	ax_params_init(&pb, bw->params, bw->n_params);
	char err[256];
	AX_CHECK_INT(ax_params_set(&pa, "size", "64K", err, sizeof(err)), 0);
	AX_CHECK_INT(ax_params_set(&pb, "size", "128K", err, sizeof(err)), 0);
	struct ax_session_run run = {.config_json = "{\"command\": \"ab\"}"};
	AX_CHECK_INT(ax_session_choose_device(&s), 0);
	AX_CHECK_INT(ax_session_begin_run(&s, &run), 0);
	struct ax_runner_opts o;
	quick_opts(&o);
	struct ax_runner_pair_opts po;
	ax_runner_pair_opts_default(&po);
	po.min_rounds = po.max_rounds = 6;
	struct ax_session_pair_side a = {bw, &pa, NULL}, b = {bw, &pb, NULL};
	struct ax_runner_pair_result pr;
	AX_CHECK_INT(ax_session_measure_pair(&s, &o, &po, &a, &b, &pr), 0);
	AX_CHECK_INT(pr.rounds, 6);
	AX_CHECK_STR(pr.stop_reason, "max-rounds");
	AX_CHECK(pr.lo <= pr.speedup && pr.speedup <= pr.hi);
	AX_CHECK(a.c.result_id > 0 && b.c.result_id > a.c.result_id);
	AX_CHECK_INT(a.c.r.n, 6 * po.samples_per_round);
	int64_t a_id = a.c.result_id, run_id = s.run_id;
	ax_session_case_release(&a.c);
	ax_session_case_release(&b.c);
	ax_runner_pair_result_release(&pr);
	AX_CHECK_INT(ax_session_finish(&s, 0), 0);
	json_t *results = stored(ax_db_results);
	size_t i;
	json_t *r;
	int seen = 0;
	json_array_foreach(results, i, r)
	{
		json_t *pair =
		    json_object_get(json_object_get(r, "extra"), "pair");
		/* The tune test before stored its own pair in this
		 * database: only this run's results count. */
		if (!pair ||
		    json_integer_value(json_object_get(r, "run_id")) != run_id)
			continue;
		seen++;
		const char *side =
		    json_string_value(json_object_get(pair, "side"));
		AX_CHECK_INT(json_array_size(json_object_get(r, "samples")),
			     18);
		if (side && !strcmp(side, "B"))
			AX_CHECK_INT(json_integer_value(json_object_get(
					 pair, "other_result_id")),
				     a_id);
	}
	AX_CHECK_INT(seen, 2);
	json_decref(results);
	json_t *runs = stored(ax_db_runs);
	int ab_runs = 0;
	json_array_foreach(runs, i, r)
	{
		const char *kind =
		    json_string_value(json_object_get(r, "kind"));
		ab_runs += kind && !strcmp(kind, "ab");
	}
	AX_CHECK_INT(ab_runs, 1);
	json_decref(runs);
}

static void test_setup(void)
{
	AX_CHECK(mkdtemp(dir) != NULL);
	snprintf(db_path, sizeof(db_path), "%s/app.db", dir);
}

static void test_cleanup(void)
{
	const char *names[] = {"app.db",  "app.db-wal", "app.db-shm",
			       "run.out", "tune.out",	NULL};
	char path[700];
	for (int i = 0; names[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	AX_CHECK_INT(rmdir(dir), 0);
}

AX_TEST_MAIN(AX_TEST(test_setup), AX_TEST(test_open),
	     AX_TEST(test_run_executes_and_stores_each_case),
	     AX_TEST(test_tune_stores_session_and_trials),
	     AX_TEST(test_session_pairs_and_stores_both),
	     AX_TEST(test_no_validation_messages), AX_TEST(test_close),
	     AX_TEST(test_cleanup))
