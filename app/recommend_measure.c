/* app/recommend_measure.c - `recommend --measure`: what the rules lack for
 * the selected device, measured (app/recommend_measure.h). */
#include "app/recommend_measure.h"

#include "app/run_exec.h"
#include "app/run_plan.h"
#include "core/db.h"
#include "core/db_rows.h"
#include "core/vk.h"
#include "suites/registry.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool ok_of(const struct ax_db_result_row *r, const char *suite)
{
	return r->ok && r->suite && !strcmp(r->suite, suite);
}

/* Number of ok results of suite. */
static int ok_results(const struct ax_db_results *results, const char *suite)
{
	int ok = 0;
	for (size_t i = 0; i < results->n; i++)
		ok += ok_of(results->v[i], suite);
	return ok;
}

/* Distinct values of parameter key among ok results of suite: values of
 * one type that are equal count once (1 and 1.0 count twice, as stored
 * JSON tells them apart). */
static int distinct_values(const struct ax_db_results *results,
			   const char *suite, const char *key)
{
	const struct ax_db_param **seen = NULL;
	int n = 0;
	for (size_t i = 0; i < results->n; i++) {
		const struct ax_db_param *v =
		    ax_db_param_find(&results->v[i]->params, key);
		if (!v || !ok_of(results->v[i], suite))
			continue;
		int j = 0;
		while (j < n && !ax_db_param_equal(seen[j], v))
			j++;
		if (j < n)
			continue;
		const struct ax_db_param **grown =
		    realloc(seen, (size_t)(n + 1) * sizeof(*seen));
		if (!grown)
			break;
		seen = grown;
		seen[n++] = v;
	}
	free(seen);
	return n;
}

/* A suite is missing when the rules that read it lack what they need:
 * the sweeps its recommend_needs declare (three chunk sizes for
 * transfer, three batch sizes for conv...), or one result. */
static bool suite_missing(const struct ax_db_results *results,
			  const struct ax_suite *s)
{
	for (const struct ax_suite_need *n = s->recommend_needs;
	     n && n->distinct > 0; n++) {
		if (n->param &&
		    distinct_values(results, s->name, n->param) < n->distinct)
			return true;
		if (!n->param && ok_results(results, s->name) < n->distinct)
			return true;
	}
	return false;
}

/* The selected device's stored results (none when there is no database
 * yet). */
static int stored_for_device(struct ax_app *app, const char *fingerprint,
			     struct ax_db_results *results)
{
	struct ax_db *db;
	struct ax_db_filter f = {.device_fingerprint = fingerprint};
	memset(results, 0, sizeof(*results));
	if (access(app->db_path, F_OK) != 0)
		return 0;
	int rc = ax_app_open_db(app, true, &db);
	if (rc)
		return rc;
	if (ax_db_result_rows(db, &f, results))
		rc = ax_app_error(app, AX_EXIT_STORAGE, "%s", ax_db_errmsg(db));
	ax_db_close(db);
	return rc;
}

int ax_recommend_measure_missing(struct ax_app *app, const char *label)
{
	struct ax_vk_instance *inst;
	int idx;
	char fp[17], path[PATH_MAX], err[1024];
	if (app->device_sel && !strcmp(app->device_sel, "all"))
		return ax_app_error(app, AX_EXIT_USAGE,
				    "--measure measures one device: give "
				    "--device SEL, not all");
	int rc = ax_app_open_vk(app, &inst, &idx);
	if (rc)
		return rc;
	snprintf(fp, sizeof(fp), "%s",
		 ax_vk_device_info(inst, idx)->fingerprint);
	ax_vk_instance_destroy(inst);
	struct ax_db_results results;
	if ((rc = stored_for_device(app, fp, &results))) {
		ax_db_results_free(&results);
		return rc;
	}
	snprintf(path, sizeof(path), "%s/recommend.yaml", ax_app_config_dir());
	char *missing[64];
	int n = 0;
	for (int i = 0; i < ax_suite_count && n < 64; i++)
		if (suite_missing(&results, ax_suites[i]))
			missing[n++] = (char *)ax_suites[i]->name;
	ax_db_results_free(&results);
	if (n == 0) {
		if (app->verbosity >= 0)
			fprintf(stderr,
				"axbench recommend: nothing missing for "
				"this device; measuring nothing\n");
		return 0;
	}
	/* Zeroed: ax_plan_build keeps a tuned document already loaded
	 * into plan (run --tuned), and there is none here. */
	struct ax_plan plan = {0};
	struct ax_runner_opts opts;
	ax_runner_opts_default(&opts);
	if (ax_plan_build(&plan, path, missing, n, NULL, 0, err, sizeof(err))) {
		ax_plan_release(&plan);
		return ax_app_error(app, AX_EXIT_USAGE, "%s", err);
	}
	ax_plan_apply_measure(plan.profile, &opts, 0);
	/* The measurements go to stderr's progress and the database; stdout
	 * carries only the recommendation. */
	fflush(stdout);
	int saved = dup(1);
	dup2(2, 1);
	bool json = app->json;
	app->json = false;
	struct ax_run_origin origin = {.command = "recommend", .label = label};
	rc = ax_run_execute(app, &plan, &opts, NULL, true, &origin);
	app->json = json;
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	ax_plan_release(&plan);
	return rc;
}
