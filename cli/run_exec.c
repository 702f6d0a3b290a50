/* cli/run_exec.c - measure a plan's cases and store each as it finishes. */
#include "cli/run_exec.h"

#include "core/db.h"
#include "core/error.h"
#include "core/vk.h"
#include "reports/export.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ax_run_case_label(const struct ax_params *p, char *buf, size_t len)
{
	ax_params_label(p, true, buf, len);
	for (int i = 0; i < p->n; i++) {
		const struct ax_param_def *d = &p->defs[i];
		if ((d->flags & AX_PARAM_SHAPE) || p->v[i] == d->def)
			continue;
		char v[64];
		size_t used = strlen(buf);
		ax_param_format(d, p->v[i], v, sizeof(v));
		snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "",
			 d->name, v);
	}
}

/*
 * Every point must be possible on the device before anything is stored:
 * an impossible point is a usage error and leaves the database alone.
 * With --skip-invalid (sweeps over tile sizes), such points are named on
 * stderr and left out instead; a plan left empty is still an error.
 */
static int precheck(struct ax_plan *plan, const struct ax_vk_device_info *info,
		    bool skip_invalid)
{
	int kept = 0;
	for (int i = 0; i < plan->n; i++) {
		const struct ax_plan_case *c = &plan->cases[i];
		char why[1024];
		int rc = ax_params_check(&c->params, why, sizeof(why));
		if (rc == 0 && c->suite->check)
			rc = c->suite->check(&c->params, info, why, sizeof(why));
		if (rc == AX_EINVAL) {
			/* Name the suite once, whether or not the message does. */
			size_t len = strlen(c->suite->name);
			bool named = strncmp(why, c->suite->name, len) == 0 &&
				     why[len] == ':';
			fprintf(stderr, "axbench run: %s%s%s%s\n",
				skip_invalid ? "skipping " : "",
				named ? "" : c->suite->name, named ? "" : ": ",
				why);
			if (!skip_invalid)
				return AX_EXIT_USAGE;
			continue;
		}
		plan->cases[kept++] = *c;
	}
	plan->n = kept;
	if (kept == 0) {
		fprintf(stderr, "axbench run: no case is possible on %s\n",
			info->name);
		return AX_EXIT_USAGE;
	}
	return 0;
}

struct exec {
	struct ax_cli *cli;
	struct ax_plan *plan;
	struct ax_runner_opts opts;
	bool skip_invalid;
	struct ax_vk_instance *inst;
	struct ax_vk_ctx *vk;
	struct ax_db *db;
	int64_t run_id;
	int index;          /* case being measured, 0-based */
	const char *label;  /* of that case, for the progress line */
	bool tty;
	int case_width;     /* of the table's case column */
	int device_index;
	int reopens;        /* devices opened anew after a loss */
	bool was_lost;      /* some case lost its device */
	json_t *json_out;   /* --json: results as they are stored */
	int n_failed, n_ok, n_skipped;
};

static void on_progress(void *ctx, int n, double median)
{
	struct exec *ex = ctx;
	const struct ax_suite *s = ex->plan->cases[ex->index].suite;
	fprintf(stderr, "\r\033[K[%d/%d] %s %s: %d samples, median %.4g %s",
		ex->index + 1, ex->plan->n, s->name, ex->label, n, median,
		s->unit);
	fflush(stderr);
}

static char *extra_json(const struct ax_runner_result *r)
{
	json_error_t jerr;
	json_t *o = r->extra_json ? json_loads(r->extra_json, 0, &jerr) : NULL;
	if (!json_is_object(o)) {
		json_decref(o);
		o = json_object();
	}
	json_object_set_new(o, "reps_per_sample",
			    json_integer(r->reps_per_sample));
	json_object_set_new(o, "setup_ms", json_real(r->setup_ms));
	json_object_set_new(o, "compile_ms", json_real(r->compile_ms));
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

static int store(struct exec *ex, const struct ax_plan_case *c,
		 const char *label, const struct ax_runner_result *r,
		 int64_t *result_id)
{
	const struct ax_summary *m = &r->summary;
	char *params = ax_params_to_json(&c->params);
	char *extra = extra_json(r);
	struct ax_db_result row = {
		.run_id = ex->run_id,
		.suite = c->suite->name,
		.case_label = label,
		.params_json = params,
		.shader_hash = r->shader_hash[0] ? r->shader_hash : NULL,
		.unit = c->suite->unit,
		.higher_is_better = c->suite->higher_is_better,
		.work = c->suite->work ? c->suite->work(&c->params) : 0,
		.timing_mode = r->timing_mode,
		.stop_reason = r->stop_reason,
		.status = r->status_text,
		.error_text = r->error[0] ? r->error : NULL,
		.n = r->n,
		.median = m->median, .min = m->min, .max = m->max,
		.mean = m->mean, .stddev = m->stddev, .q1 = m->q1, .q3 = m->q3,
		.mad = m->mad, .ci_lo = m->ci_lo, .ci_hi = m->ci_hi,
		.rel_noise = m->rel_noise,
		.extra_json = extra,
	};
	int rc = ax_db_result_add(ex->db, &row, r->seconds, r->values, r->n,
				  result_id);
	free(params);
	free(extra);
	return rc;
}

static void print_header(struct exec *ex)
{
	ex->case_width = 4;
	for (int i = 0; i < ex->plan->n; i++) {
		char label[512];
		ax_run_case_label(&ex->plan->cases[i].params, label,
				  sizeof(label));
		int w = (int)strlen(label);
		if (w > ex->case_width)
			ex->case_width = w > 90 ? 90 : w;
	}
	if (ex->cli->json || ex->cli->verbosity < 0)
		return;
	printf("%-10s %-*s %12s %-8s %8s %4s %-11s %s\n", "suite",
	       ex->case_width, "case", "median", "unit", "+-ci", "n", "stop",
	       "status");
}

static void print_row(struct exec *ex, const struct ax_plan_case *c,
		      const char *label, const struct ax_runner_result *r,
		      int64_t result_id)
{
	if (ex->cli->json) {
		json_t *o = json_pack(
			"{s:I,s:s,s:s,s:s,s:s,s:i,s:s?,s:s?}", "id",
			(json_int_t)result_id, "suite", c->suite->name, "case",
			label, "status", r->status_text, "unit",
			c->suite->unit, "n", r->n, "stop_reason",
			r->stop_reason, "error",
			r->error[0] ? r->error : NULL);
		if (r->n) {
			json_object_set_new(o, "median",
					    json_real(r->summary.median));
			json_object_set_new(o, "ci_lo",
					    json_real(r->summary.ci_lo));
			json_object_set_new(o, "ci_hi",
					    json_real(r->summary.ci_hi));
		}
		json_array_append_new(ex->json_out, o);
		return;
	}
	if (r->status != 0) {
		printf("%-10s %-*s %12s %-8s %8s %4d %-11s %s: %s\n",
		       c->suite->name, ex->case_width, label, "-",
		       c->suite->unit, "-", r->n,
		       r->stop_reason ? r->stop_reason : "-", r->status_text,
		       r->error);
	} else {
		double half = (r->summary.ci_hi - r->summary.ci_lo) / 2;
		printf("%-10s %-*s %12.4g %-8s %7.2f%% %4d %-11s %s\n",
		       c->suite->name, ex->case_width, label, r->summary.median,
		       c->suite->unit,
		       r->summary.median ? 100 * half / r->summary.median : 0,
		       r->n, r->stop_reason, "verified");
	}
	fflush(stdout);
}

#define AX_MAX_REOPENS 3

/*
 * After a fence timeout (or a device loss) the old context still holds
 * pending work and is left alone; the run goes on with a new logical
 * device.  A few times at most: a device that keeps hanging gets the rest
 * of its cases stored as skipped by the runner, with the reason.
 */
static void reopen_device(struct exec *ex)
{
	char err[1024];
	struct ax_vk_ctx *fresh;
	ex->was_lost = true;
	if (ex->reopens >= AX_MAX_REOPENS)
		return;
	if (ax_vk_open(ex->inst, ex->device_index, &fresh, err, sizeof(err))) {
		fprintf(stderr, "axbench run: cannot open the device again "
				"after a loss: %s\n", err);
		return;
	}
	ex->reopens++;
	if (ex->cli->verbosity >= 0)
		fprintf(stderr, "axbench run: the device was lost or timed "
				"out; going on with a new logical device "
				"(%d of at most %d)\n",
			ex->reopens, AX_MAX_REOPENS);
	ax_vk_close(ex->vk); /* lost: leaves it to the process exit */
	ex->vk = fresh;
}

/* Measure one case, store it, print it.  Returns an exit code when the run
 * must stop (storage error), else 0. */
static int run_one(struct exec *ex, int i)
{
	const struct ax_plan_case *c = &ex->plan->cases[i];
	char label[512];
	struct ax_runner_result r;
	int64_t result_id = 0;
	ax_run_case_label(&c->params, label, sizeof(label));
	ex->index = i;
	ex->label = label;
	ax_runner_run_case(ex->vk, c->suite, &c->params, &ex->opts, &r);
	if (ex->tty)
		fprintf(stderr, "\r\033[K");
	int rc = store(ex, c, label, &r, &result_id);
	if (rc == 0)
		print_row(ex, c, label, &r, result_id);
	if (r.status == 0)
		ex->n_ok++;
	else if (strcmp(r.status_text, "skipped") == 0)
		ex->n_skipped++;
	else if (r.status != AX_EINTR)
		ex->n_failed++;
	ax_runner_result_release(&r);
	if (rc) {
		fprintf(stderr, "axbench run: storing the result: %s\n",
			ax_db_errmsg(ex->db));
		return AX_EXIT_STORAGE;
	}
	if (ex->vk->lost && i + 1 < ex->plan->n)
		reopen_device(ex);
	return 0;
}

static int begin_run(struct exec *ex)
{
	int64_t host_id, device_id;
	int rc = ax_cli_register(ex->cli, ex->db, ex->vk->info, &host_id,
				 &device_id);
	if (rc)
		return rc;
	char *argv_json = ax_cli_argv_json(ex->cli);
	json_t *cfg = json_pack(
		"{s:i,s:i,s:i,s:f,s:f,s:f,s:f,s:s,s:o?}", "warmup",
		ex->opts.warmup, "min_samples", ex->opts.min_samples,
		"max_samples", ex->opts.max_samples, "max_noise",
		ex->opts.max_noise, "min_time_s", ex->opts.min_time_s,
		"max_time_s", ex->opts.max_time_s, "timeout_s",
		ex->opts.timeout_s, "mode",
		ex->opts.mode == AX_MODE_COLD ? "cold" : "batch", "profile",
		ex->plan->profile ? ax_config_to_json(ex->plan->profile) : NULL);
	char *cfg_text = json_dumps(cfg, JSON_COMPACT);
	struct ax_db_run run = {
		.host_id = host_id,
		.device_id = device_id,
		.axbench_version = AX_VERSION_STRING,
		.git_sha = AX_GIT_SHA_STRING,
		.argv_json = argv_json,
		.config_json = cfg_text,
		.profile = ex->plan->profile ? ex->plan->profile->name : NULL,
	};
	rc = ax_db_run_begin(ex->db, &run, &ex->run_id);
	free(argv_json);
	free(cfg_text);
	json_decref(cfg);
	if (rc) {
		fprintf(stderr, "axbench run: %s\n", ax_db_errmsg(ex->db));
		return AX_EXIT_STORAGE;
	}
	return 0;
}

/* --tuned: each case takes the tuned parameters of this device for its
 * shape, else of another device (said on stderr), else keeps its own. */
static void apply_tuned(struct exec *ex, const struct ax_vk_device_info *info)
{
	const struct ax_plan *plan = ex->plan;
	int here = 0, elsewhere = 0;
	if (!plan->tuned)
		return;
	for (int i = 0; i < plan->n; i++) {
		struct ax_plan_case *c = &plan->cases[i];
		if (ax_export_tuned_apply(plan->tuned, info->fingerprint,
					  c->suite->name, &c->params))
			here++;
		else if (ax_export_tuned_apply(plan->tuned, NULL,
					       c->suite->name, &c->params))
			elsewhere++;
	}
	if (ex->cli->verbosity >= 0)
		fprintf(stderr,
			"axbench: tuned parameters for %d of %d cases (%d "
			"tuned on this device, %d on another)\n",
			here + elsewhere, plan->n, here, elsewhere);
}

static int open_all(struct exec *ex)
{
	int idx;
	char err[1024];
	int rc = ax_cli_open_vk(ex->cli, &ex->inst, &idx);
	if (rc)
		return rc;
	apply_tuned(ex, ax_vk_device_info(ex->inst, idx));
	rc = precheck(ex->plan, ax_vk_device_info(ex->inst, idx),
		      ex->skip_invalid);
	if (rc)
		return rc;
	rc = ax_cli_open_db(ex->cli, false, &ex->db);
	if (rc)
		return rc;
	ex->device_index = idx;
	if (ax_vk_open(ex->inst, idx, &ex->vk, err, sizeof(err))) {
		fprintf(stderr, "axbench run: %s\n", err);
		return AX_EXIT_NODEV;
	}
	if (ex->cli->verbosity >= 0 && !ex->cli->json)
		fprintf(stderr, "axbench: %d case%s on %s, database %s\n",
			ex->plan->n, ex->plan->n == 1 ? "" : "s",
			ex->vk->info->name, ex->cli->db_path);
	return begin_run(ex);
}

static int finish(struct exec *ex, int rc)
{
	bool interrupted = ax_cli_interrupted != 0;
	/* "failed": the run could not measure everything it was asked to
	 * (storage error, or the device was lost and cases were skipped);
	 * failed results of a run that went through are per result. */
	bool lost = ex->was_lost || (ex->vk && ex->vk->lost);
	if (ex->run_id)
		ax_db_run_finish(ex->db, ex->run_id,
				 interrupted  ? "interrupted"
				 : rc || lost ? "failed"
					      : "complete");
	if (ex->json_out && ex->run_id) {
		json_t *doc = json_pack("{s:I,s:O}", "run_id",
					(json_int_t)ex->run_id, "results",
					ex->json_out);
		json_dumpf(doc, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(doc);
	}
	if (ex->run_id && !ex->cli->json && ex->cli->verbosity >= 0)
		fprintf(stderr,
			"axbench: run %lld: %d verified, %d failed, %d "
			"skipped%s\n",
			(long long)ex->run_id, ex->n_ok, ex->n_failed,
			ex->n_skipped, interrupted ? ", interrupted" : "");
	if (rc == 0 && interrupted)
		rc = AX_EXIT_INTERRUPTED;
	if (rc == 0 && ex->n_failed)
		rc = AX_EXIT_FAIL;
	rc = ax_cli_check_validation(ex->cli, ex->inst, rc);
	ax_vk_close(ex->vk);
	ax_db_close(ex->db);
	ax_vk_instance_destroy(ex->inst);
	json_decref(ex->json_out);
	return rc;
}

int ax_run_execute(struct ax_cli *cli, struct ax_plan *plan,
		   const struct ax_runner_opts *opts, bool skip_invalid)
{
	struct exec ex = {.cli = cli, .plan = plan, .opts = *opts,
			  .skip_invalid = skip_invalid};
	ex.tty = isatty(2) && cli->verbosity >= 0;
	ex.opts.stop = &ax_cli_interrupted;
	if (ex.tty) {
		ex.opts.progress = on_progress;
		ex.opts.progress_ctx = &ex;
	}
	if (cli->json)
		ex.json_out = json_array();
	int rc = open_all(&ex);
	if (rc == 0)
		print_header(&ex);
	for (int i = 0; rc == 0 && i < plan->n; i++) {
		if (ax_cli_interrupted)
			break;
		rc = run_one(&ex, i);
	}
	return finish(&ex, rc);
}
