/* app/run_exec.c - measure a plan's cases and store each as it finishes. */
#include "app/run_exec.h"
#include "app/run_exec_internal.h"
#include "core/interrupt.h"

#include "app/case_column.h"
#include "app/session.h"
#include "core/error.h"
#include "core/live.h"
#include "core/vk.h"
#include "reports/export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_progress(void *ctx, int n, double median)
{
	struct exec *ex = ctx;
	const struct ax_suite *s = ex->plan->cases[ex->index].suite;
	char line[1024];
	/* The case, the longest part, last: what is cut (core/live.h). */
	snprintf(line, sizeof(line), "[%d/%d] %s: %d samples, median %.4g %s | %s",
		 ex->index + 1, ex->plan->n, s->name, n, median, s->unit,
		 ex->label);
	ax_live_show(line);
}

/* The case column's width and contents; the table's header when print. */
void ax_exec_header(struct exec *ex, bool print)
{
	ex->case_width = 4;
	ax_case_column_init(&ex->cases, ex->app->verbosity > 0);
	char label[512], shown[512];
	for (int i = 0; i < ex->plan->n; i++) {
		ax_session_case_label(&ex->plan->cases[i].params, label,
				      sizeof(label));
		ax_case_column_add(&ex->cases, ex->plan->cases[i].suite->name,
				   label);
	}
	for (int i = 0; i < ex->plan->n; i++) {
		ax_session_case_label(&ex->plan->cases[i].params, label,
				      sizeof(label));
		ax_case_column_text(&ex->cases, ex->plan->cases[i].suite->name,
				    label, shown, sizeof(shown));
		int w = (int)strlen(shown);
		if (w > ex->case_width)
			ex->case_width = w > 90 ? 90 : w;
	}
	if (!print || ex->app->json || ex->app->verbosity < 0)
		return;
	if (ex->origin.group) /* several devices: which one a row is */
		printf("%-3s ", "dev");
	printf("%-10s %-*s %12s %-8s %8s %4s %-11s %7s %8s %7s %s\n", "suite",
	       ex->case_width, "case", "median", "unit", "+-ci", "n", "stop",
	       "W", "perf/W", "vs-cpu", "status");
}

/* A figure of the table, or "-" where it was not measured. */
static const char *cell(char *buf, size_t len, double v, const char *fmt)
{
	if (isnan(v))
		return "-";
	snprintf(buf, len, fmt, v);
	return buf;
}

static void print_json_row(struct exec *ex, const struct ax_plan_case *c,
			   const struct ax_session_case *sc)
{
	const struct ax_runner_result *r = &sc->r;
	json_t *o =
	    json_pack("{s:I,s:s,s:s,s:s,s:s,s:i,s:s?,s:s?}", "id",
		      (json_int_t)sc->result_id, "suite", c->suite->name,
		      "case", sc->label, "status", r->status_text, "unit",
		      c->suite->unit, "n", r->n, "stop_reason", r->stop_reason,
		      "error", r->error[0] ? r->error : NULL);
	/* Every row has every key (docs/JSON.md): a figure that is not a
	 * verified speed is null, as `results --json` reads it back. */
	bool ok = r->status == 0 && r->n > 0;
	double figures[6] = {ok ? r->summary.median : NAN,
			     ok ? r->summary.ci_lo : NAN,
			     ok ? r->summary.ci_hi : NAN,
			     sc->mean_w,
			     sc->perf_per_w,
			     sc->speedup_vs_cpu};
	const char *keys[6] = {"median", "ci_lo",      "ci_hi",
			       "mean_w", "perf_per_w", "speedup_vs_cpu"};
	for (int i = 0; i < 6; i++)
		json_object_set_new(o, keys[i],
				    isfinite(figures[i]) ? json_real(figures[i])
							 : json_null());
	if (ex->origin.group)
		json_object_set_new(o, "device",
				    json_integer(ex->session.device_index));
	json_array_append_new(ex->json_out, o);
}

void ax_exec_row(struct exec *ex, const struct ax_plan_case *c,
		      const struct ax_session_case *sc)
{
	const struct ax_runner_result *r = &sc->r;
	if (ex->app->json)
		return print_json_row(ex, c, sc);
	char label[512];
	ax_case_column_text(&ex->cases, c->suite->name, sc->label, label,
			    sizeof(label));
	if (ex->origin.group)
		printf("%-3d ", ex->session.device_index);
	if (r->status != 0) {
		printf(
		    "%-10s %-*s %12s %-8s %8s %4d %-11s %7s %8s %7s %s: %s\n",
		    c->suite->name, ex->case_width, label, "-",
		    c->suite->unit, "-", r->n,
		    r->stop_reason ? r->stop_reason : "-", "-", "-", "-",
		    r->status_text, r->error);
	} else {
		char w[32], pw[32], x[32];
		double half = (r->summary.ci_hi - r->summary.ci_lo) / 2;
		printf("%-10s %-*s %12.4g %-8s %7.2f%% %4d %-11s %7s %8s %7s "
		       "%s\n",
		       c->suite->name, ex->case_width, label,
		       r->summary.median, c->suite->unit,
		       r->summary.median ? 100 * half / r->summary.median : 0,
		       r->n, r->stop_reason,
		       cell(w, sizeof(w), sc->mean_w, "%.1f"),
		       cell(pw, sizeof(pw), sc->perf_per_w, "%.3g"),
		       cell(x, sizeof(x), sc->speedup_vs_cpu, "%.2fx"),
		       "verified");
	}
	fflush(stdout);
}

/* A verified result that stopped on its sample or time limit with a
 * median less tight than asked: noted for warn_noise. */
void ax_exec_note_noise(struct exec *ex, const struct ax_plan_case *pc,
		       const struct ax_runner_result *r)
{
	double target = ex->opts.max_noise;
	if (r->status != 0 || !(target > 0) || !(r->summary.rel_noise > target))
		return;
	if (ex->n_noisy++ < 3) {
		size_t used = strlen(ex->noisy_names);
		snprintf(ex->noisy_names + used, sizeof(ex->noisy_names) - used,
			 "%s%s %s +/-%.3g%% (%s)", used ? ", " : "",
			 pc->suite->name, ex->case_label,
			 100 * r->summary.rel_noise,
			 r->stop_reason ? r->stop_reason : "?");
	}
}

/* Results that missed the noise target are said, with what would help:
 * compare calls a change between them "noisy", not a regression. */
static void warn_noise(const struct exec *ex)
{
	const struct ax_session *s = &ex->session;
	if (!ex->n_noisy || ex->app->verbosity < 0 || ex->app->json)
		return; /* --json: the rows carry stop_reason and n */
	fprintf(stderr,
		"axbench: warning: %d of %d verified result%s ended above the "
		"noise target of +/-%.3g%%: %s%s; compare calls a change "
		"between such results \"noisy\", not a regression. What "
		"helps: more samples (--max-samples, --max-time), a quieter "
		"machine (nothing else running, a fixed clock)%s, or a target "
		"this machine can meet (--max-noise).\n",
		ex->n_noisy, s->n_ok, s->n_ok == 1 ? "" : "s",
		100 * ex->opts.max_noise, ex->noisy_names,
		ex->n_noisy > 3 ? ", ..." : "",
		ex->opts.mode == AX_MODE_COLD
		    ? ", --mode batch (back-to-back repetitions)"
		    : "");
}

/* Measure one case, store it, print it.  Returns an exit code when the run
 * must stop (storage error), else 0. */
static int run_one(struct exec *ex, int i, int round)
{
	const struct ax_plan_case *pc = &ex->plan->cases[i];
	struct ax_session_case c;
	ex->index = i;
	ax_session_case_label(&pc->params, ex->case_label,
			      sizeof(ex->case_label));
	ex->label = ex->case_label;
	/* Each round's result says which it is, for compare and reports. */
	json_t *extra = ex->plan->rounds > 1
			    ? json_pack("{s:i,s:i}", "round", round, "rounds",
					ex->plan->rounds)
			    : NULL;
	int rc = ax_session_measure(&ex->session, pc->suite, &pc->params,
				    &ex->opts, extra, &c);
	json_decref(extra);
	ax_live_clear();
	if (rc == 0)
		ax_exec_row(ex, pc, &c);
	if (rc == 0)
		ax_exec_note_noise(ex, pc, &c.r);
	ax_session_case_release(&c);
	return rc;
}

/* Pass r of rounds over every case; from the second on, on a freshly
 * opened logical device. */
static int run_round(struct exec *ex, int r, int rounds)
{
	int rc = 0;
	if (r > 1)
		rc = ax_session_reopen_device(&ex->session);
	if (rc == 0 && rounds > 1 && ex->app->verbosity >= 0 && !ex->app->json)
		fprintf(stderr, "axbench: round %d of %d\n", r, rounds);
	for (int i = 0; rc == 0 && i < ex->plan->n; i++) {
		if (ax_interrupted)
			break;
		rc = run_one(ex, i, r);
	}
	return rc;
}

/* The measurement settings and the profile, as the run row keeps them,
 * with the command that asked (readers tell a recommend run by it:
 * AX_RUN_KIND_SQL in core/db_internal.h). */
static char *run_config_json(const struct exec *ex)
{
	const struct ax_runner_opts *o = &ex->opts;
	json_t *cfg = json_pack(
	    "{s:s,s:i,s:i,s:i,s:f,s:f,s:f,s:f,s:s,s:i,s:o?}", "command",
	    ex->origin.command, "warmup", o->warmup, "min_samples",
	    o->min_samples, "max_samples", o->max_samples, "max_noise",
	    o->max_noise, "min_time_s", o->min_time_s, "max_time_s",
	    o->max_time_s, "timeout_s", o->timeout_s, "mode",
	    o->mode == AX_MODE_COLD ? "cold" : "batch", "rounds",
	    ex->plan->rounds > 1 ? ex->plan->rounds : 1, "profile",
	    ex->plan->profile ? ax_config_to_json(ex->plan->profile) : NULL);
	const struct ax_run_group *g = ex->origin.group;
	if (g)
		json_object_set_new(
		    cfg, "devices",
		    json_pack("{s:s,s:i,s:i,s:s,s:s?}", "group", g->id, "nth",
			      g->nth, "of", g->n, "mode",
			      g->split	      ? "split"
			      : g->concurrent ? "concurrent"
					      : "sequential",
			      "env", g->env[g->nth]));
	char *text = json_dumps(cfg, JSON_COMPACT);
	json_decref(cfg);
	return text;
}

/* --tuned: the cases take the tuned parameters (app/run_plan.c). */
static void apply_tuned(struct exec *ex, const struct ax_vk_device_info *info)
{
	if (!ex->plan->tuned)
		return;
	struct ax_plan_tuned_count n =
	    ax_plan_apply_tuned(ex->plan, info->fingerprint);
	if (ex->app->verbosity < 0)
		return;
	fprintf(stderr,
		"axbench: --tuned gave %d of %d cases their parameters (%d "
		"from this device, %d from another)",
		n.here + n.elsewhere, ex->plan->n, n.here, n.elsewhere);
	if (n.defaults)
		fprintf(stderr,
			": %d tuned, %d the defaults (no tuned point beat "
			"them)",
			n.here + n.elsewhere - n.defaults, n.defaults);
	fputc('\n', stderr);
}

/* Sweep points beyond the device's limits are left out, named here;
 * anything else impossible stops the run before it is stored. */
static int precheck(struct exec *ex, const struct ax_vk_device_info *info)
{
	int rc = ax_plan_check(ex->plan, info, ex->skip_beyond_limits,
			       ex->origin.command);
	for (int i = 0; i < ex->plan->n_skipped; i++) {
		const struct ax_plan_skip *k = &ex->plan->skipped[i];
		char label[512];
		ax_session_case_label(&k->c.params, label, sizeof(label));
		if (ex->app->verbosity >= 0)
			fprintf(stderr, "axbench %s: skipping %s %s: %s\n",
				ex->origin.command, k->c.suite->name, label, k->why);
	}
	return rc;
}

/*
 * The group's device, its --device-env variable set while its instance
 * is created (a driver reads it then) and put back after: the process
 * opens devices one at a time, from one thread.
 */
static int choose_group_device(struct ax_session *s,
			       const struct ax_run_group *g)
{
	const char *env = g->env[g->nth];
	const char *eq = env ? strchr(env, '=') : NULL;
	char name[128] = "";
	char *saved = NULL;
	if (eq && (size_t)(eq - env) < sizeof(name)) {
		memcpy(name, env, (size_t)(eq - env));
		name[eq - env] = '\0';
		const char *old = getenv(name);
		saved = old ? strdup(old) : NULL;
		setenv(name, eq + 1, 1);
	}
	int rc = ax_session_choose_device_at(s, g->index[g->nth]);
	if (name[0]) {
		if (saved)
			setenv(name, saved, 1);
		else
			unsetenv(name);
	}
	free(saved);
	return rc;
}

int ax_exec_open(struct exec *ex)
{
	struct ax_session *s = &ex->session;
	const struct ax_run_group *g = ex->origin.group;
	int rc = g ? choose_group_device(s, g) : ax_session_choose_device(s);
	if (rc)
		return rc;
	apply_tuned(ex, s->info);
	rc = ax_plan_apply_defaults(ex->plan, s->info, ex->app);
	if (rc == 0)
		rc = precheck(ex, s->info);
	if (rc)
		return rc;
	char *cfg = run_config_json(ex);
	struct ax_session_run run = {
	    .config_json = cfg,
	    .profile = ex->plan->profile ? ex->plan->profile->name : NULL,
	    .label = ex->origin.label,
	};
	rc = ax_session_begin_run(s, &run);
	free(cfg);
	if (rc == 0 && ex->app->verbosity >= 0 && !ex->app->json)
		fprintf(stderr, "axbench: %d case%s on %s, database %s\n",
			ex->plan->n, ex->plan->n == 1 ? "" : "s", s->info->name,
			ex->app->db_path);
	return rc;
}

int ax_exec_finish(struct exec *ex, int rc)
{
	const struct ax_session *s = &ex->session;
	bool interrupted = ax_interrupted != 0;
	if (ex->json_out && s->run_id) {
		json_t *doc =
		    json_pack("{s:I,s:O}", "run_id", (json_int_t)s->run_id,
			      "results", ex->json_out);
		if (ex->origin.group) { /* one document for all devices */
			json_object_set_new(
			    doc, "device",
			    json_integer(s->device_index));
			json_array_append_new(ex->origin.group->json_runs, doc);
		} else {
			json_dumpf(doc, stdout, JSON_INDENT(2));
			putchar('\n');
			json_decref(doc);
		}
	}
	if (s->run_id && !ex->app->json && ex->app->verbosity >= 0)
		fprintf(stderr,
			"axbench: run %lld: %d verified, %d failed, %d "
			"skipped%s\n",
			(long long)s->run_id, s->n_ok, s->n_failed,
			s->n_skipped, interrupted ? ", interrupted" : "");
	if (ax_case_column_cut(&ex->cases) && !ex->app->json &&
	    ex->app->verbosity >= 0)
	{
		fflush(stdout); /* after the table, where both are one file */
		fprintf(stderr, "axbench: %s\n", AX_CASE_COLUMN_NOTE);
	}
	ax_case_column_free(&ex->cases);
	warn_noise(ex);
	int n_failed = s->n_failed;
	json_decref(ex->json_out);
	if (ex->origin.group && s->was_lost) {
		char why[700];
		snprintf(why, sizeof(why), "%s in case %s",
			 s->lost_how ? s->lost_how : "was lost",
			 s->lost_case[0] ? s->lost_case : "?");
		ax_run_group_lost(ex->origin.group, s->device_index, why);
	}
	/* A failed result fails the command, not the run row: the run went
	 * through, and each result says how it ended. */
	rc = ax_session_finish(&ex->session, rc);
	return rc == 0 && n_failed ? AX_EXIT_FAIL : rc;
}

void ax_exec_init(struct exec *ex, struct ax_app *app, struct ax_plan *plan,
		      const struct ax_runner_opts *opts,
		      const struct ax_session_efficiency *eff,
		      bool skip_beyond_limits, const struct ax_run_origin *origin)
{
	memset(ex, 0, sizeof(*ex));
	ex->app = app;
	ex->plan = plan;
	ex->opts = *opts;
	ex->skip_beyond_limits = skip_beyond_limits;
	ex->origin.command = "run";
	if (origin)
		ex->origin = *origin;
	if (!ex->origin.command)
		ex->origin.command = "run";
	ex->tty = isatty(2) && app->verbosity >= 0;
	ex->opts.stop = &ax_interrupted;
	/* One live line per process: several devices at once get none. */
	const struct ax_run_group *g = ex->origin.group;
	if (ex->tty && !(g && (g->concurrent || g->split))) {
		ex->opts.progress = on_progress;
		ex->opts.progress_ctx = ex;
	}
	if (app->json)
		ex->json_out = json_array();
	ax_session_init(&ex->session, app, "run");
	if (eff)
		ex->session.eff = *eff;
}

int ax_run_execute(struct ax_app *app, struct ax_plan *plan,
		   const struct ax_runner_opts *opts,
		   const struct ax_session_efficiency *eff,
		   bool skip_beyond_limits, const struct ax_run_origin *origin)
{
	struct exec ex;
	ax_exec_init(&ex, app, plan, opts, eff, skip_beyond_limits, origin);
	int rc = ax_exec_open(&ex);
	if (rc == 0)
		ax_exec_header(&ex, true);
	int rounds = plan->rounds > 1 ? plan->rounds : 1;
	for (int r = 1; rc == 0 && r <= rounds && !ax_interrupted; r++)
		rc = run_round(&ex, r, rounds);
	return ax_exec_finish(&ex, rc);
}

