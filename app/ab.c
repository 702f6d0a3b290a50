/*
 * app/ab.c - paired A/B comparison (ab.h): the variants built from the
 * command line's texts, measured in one process through the session, or
 * round by round in processes, and judged under compare's rules.
 */
#include "app/ab.h"
#include "app/run_plan.h"
#include "app/session.h"

#include "core/child.h"
#include "core/error.h"
#include "core/interrupt.h"
#include "core/live.h"
#include "core/text.h"
#include "core/vk.h"
#include "reports/compare_paired.h"
#include "suites/kernel.h"
#include "suites/registry.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Significance level of the paired test, as compare's. */
#define AB_ALPHA 0.05

/* One side while it is built and measured. */
struct variant {
	const char *name; /* "A", "B" */
	const char *opt;  /* "--a", "--b": names the side's inputs */
	const struct ax_ab_side *spec;
	struct ax_kernel *kernel; /* loaded for this side (owned) */
	const struct ax_suite *suite;
	struct ax_plan plan;
	const struct ax_params *p; /* the plan's one case */
	struct ax_plan_override ov[2 * AX_AB_MAX_PARAMS];
	int n_ov;
	/* process mode */
	char exe[PATH_MAX];
	char db[PATH_MAX + 16], errfile[PATH_MAX + 16];
	bool has_idle, has_cpu_baseline; /* options its `run` knows */
	struct ab *ab;
};

struct ab {
	struct ax_app *app;
	const struct ax_ab_opts *o;
	const char *cmd;
	struct variant a, b;
	struct ax_ab_result *out;
	bool tty, quiet;
	char tmpdir[PATH_MAX];
};

void ax_ab_opts_default(struct ax_ab_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->command = "ab";
	ax_runner_pair_opts_default(&o->pair);
	o->warmup = 2;
	o->threshold = 0.02;
}

/* ---- the variants ------------------------------------------------------ */

/* Length of NAME in "NAME=VALUE" (the whole text without '='). */
static size_t name_len(const char *text)
{
	const char *eq = strchr(text, '=');
	return eq ? (size_t)(eq - text) : strlen(text);
}

static bool side_names(const struct ax_ab_side *s, const char *text)
{
	size_t n = name_len(text);
	for (int i = 0; i < s->n_params; i++)
		if (name_len(s->params[i]) == n &&
		    !strncmp(s->params[i], text, n))
			return true;
	return false;
}

/* The side's overrides: the shared ones it does not name, then its own
 * (the side's value wins over the shared one). */
static void merge_params(const struct ax_ab_opts *o, struct variant *v)
{
	v->n_ov = 0;
	for (int i = 0; i < o->n_params; i++)
		if (!side_names(v->spec, o->params[i]))
			v->ov[v->n_ov++].text = o->params[i];
	for (int i = 0; i < v->spec->n_params; i++)
		v->ov[v->n_ov++].text = v->spec->params[i];
}

/* A plan's error names its -p; a side's own text is its --a / --b. */
static int plan_error(const struct ab *ab, const struct variant *v,
		      const char *err)
{
	for (int i = 0; i < v->spec->n_params; i++) {
		size_t n = strlen(v->spec->params[i]);
		if (!strncmp(err, "-p ", 3) &&
		    !strncmp(err + 3, v->spec->params[i], n) &&
		    err[3 + n] == ':')
			return ax_app_error(ab->app, AX_EXIT_USAGE, "%s: %s %s",
					    ab->cmd, v->opt, err + 3);
	}
	return ax_app_error(ab->app, AX_EXIT_USAGE, "%s: %s", ab->cmd, err);
}

static int load_kernel(struct ab *ab, struct variant *v)
{
	char err[4096];
	int rc = ax_kernel_load(v->spec->kernel, &v->kernel, err, sizeof(err));
	if (rc == 0)
		return 0;
	return ax_app_error(ab->app,
			    rc == AX_ENOMEM ? AX_EXIT_FAIL : AX_EXIT_USAGE,
			    "%s: %s: %s", ab->cmd, v->name, err);
}

/* The side's one case: its suite at the merged parameters; --X-tuned's
 * document is loaded here and applied once the device is known. */
static int build_plan(struct ab *ab, struct variant *v, const char *suite)
{
	char err[2048];
	if (!suite)
		return ax_app_error(ab->app, AX_EXIT_USAGE,
				    "%s: %s has no suite: name one (axbench "
				    "ab SUITE) or a kernel file",
				    ab->cmd, v->name);
	if (v->spec->tuned &&
	    ax_plan_load_tuned(&v->plan, v->spec->tuned, err, sizeof(err)))
		return ax_app_error(ab->app, AX_EXIT_USAGE, "%s: %s-tuned: %s",
				    ab->cmd, v->opt, err);
	merge_params(ab->o, v);
	char *names[1] = {(char *)suite};
	if (ax_plan_build(&v->plan, NULL, names, 1, v->ov, v->n_ov, err,
			  sizeof(err)))
		return plan_error(ab, v, err);
	if (v->plan.n != 1)
		return ax_app_error(ab->app, AX_EXIT_USAGE,
				    "%s: %s is %d cases; a comparison takes "
				    "one value per parameter (give a list or "
				    "range to `axbench run` instead)",
				    ab->cmd, v->name, v->plan.n);
	v->suite = v->plan.cases[0].suite;
	v->p = &v->plan.cases[0].params;
	return 0;
}

static bool same_file(const char *x, const char *y)
{
	return (!x && !y) || (x && y && !strcmp(x, y));
}

/* Two sides that differ in nothing the command line said. */
static bool nothing_named(const struct ax_ab_opts *o)
{
	const struct ax_ab_side *a = &o->a, *b = &o->b;
	return !a->n_params && !b->n_params && !a->tuned && !b->tuned &&
	       !a->exe && !b->exe && !a->n_env && !b->n_env &&
	       same_file(a->kernel, b->kernel);
}

/*
 * Both variants.  A second kernel file usually names the same kernel
 * (a modified copy), and the registry holds one suite per name: A's
 * case is built while A is registered, then A leaves the registry for B.
 * Nothing after the plans looks a suite up by name.
 */
static int load_variants(struct ab *ab)
{
	const struct ax_ab_opts *o = ab->o;
	struct variant *a = &ab->a, *b = &ab->b;
	if (nothing_named(o))
		return ax_app_error(
		    ab->app, AX_EXIT_USAGE,
		    "%s: A and B are the same: name what differs (--a/--b "
		    "NAME=VALUE, --a-tuned/--b-tuned FILE, two kernel files, "
		    "--exe, --a-env/--b-env); for an A/A check of the noise "
		    "name one value on both sides (--a n=1M --b n=1M)",
		    ab->cmd);
	int rc = a->spec->kernel ? load_kernel(ab, a) : 0;
	if (rc == 0)
		rc = build_plan(ab, a,
				a->kernel ? ax_kernel_suite(a->kernel)->name
					  : o->suite);
	if (rc)
		return rc;
	bool own = b->spec->kernel && !same_file(a->spec->kernel, b->spec->kernel);
	if (own) {
		if (a->kernel)
			ax_suite_unregister(ax_kernel_suite(a->kernel));
		if ((rc = load_kernel(ab, b)))
			return rc;
	}
	const char *suite = own		   ? ax_kernel_suite(b->kernel)->name
			    : b->spec->kernel ? a->suite->name
					      : o->suite;
	if ((rc = build_plan(ab, b, suite)))
		return rc;
	if (strcmp(a->suite->unit, b->suite->unit) ||
	    a->suite->higher_is_better != b->suite->higher_is_better)
		return ax_app_error(ab->app, AX_EXIT_USAGE,
				    "%s: A (%s) reads %s and B (%s) %s: a "
				    "ratio needs one unit; compare cases of "
				    "one kind of work",
				    ab->cmd, a->suite->name, a->suite->unit,
				    b->suite->name, b->suite->unit);
	return 0;
}

static void release_variant(struct variant *v)
{
	ax_plan_release(&v->plan);
	ax_kernel_free(v->kernel);
}

/* ---- results ----------------------------------------------------------- */

static json_t *num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static double median_of(const double *x, int n)
{
	struct ax_summary s;
	if (n < 1 || ax_stats_summarize(x, n, 0.95, &s))
		return NAN;
	return s.median;
}

/* Does label hold "NAME=" as the start of one of its words? */
static bool has_word(const char *label, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = label; (p = strstr(p, word)); p += n)
		if (p == label || p[-1] == ' ')
			return true;
	return false;
}

/* The case label, with every parameter the command line named for the
 * side (a default value is left out of the case label, and the reader
 * wants to see what differs on both sides). */
static void side_label(const struct variant *v, char *buf, size_t len)
{
	ax_session_case_label(v->p, buf, len);
	size_t used = strlen(buf);
	for (int i = 0; i < v->n_ov && used + 1 < len; i++) {
		char name[64], word[80], value[64];
		snprintf(name, sizeof(name), "%.*s",
			 (int)name_len(v->ov[i].text), v->ov[i].text);
		int k = ax_params_find(v->p, name);
		snprintf(word, sizeof(word), "%s=", name);
		if (k < 0 || has_word(buf, word))
			continue;
		ax_param_format(&v->p->defs[k], v->p->v[k], value,
				sizeof(value));
		used += (size_t)snprintf(buf + used, len - used, "%s%s%s",
					 used ? " " : "", word, value);
	}
}

static void fill_side(const struct variant *v, struct ax_ab_side_result *r,
		      const double *rounds, int n)
{
	snprintf(r->suite, sizeof(r->suite), "%s", v->suite->name);
	side_label(v, r->label, sizeof(r->label));
	json_decref(r->params);
	r->params = ax_params_json(v->p);
	r->kernel = v->spec->kernel;
	r->median = median_of(rounds, n);
	if (!r->status)
		r->status = "ok";
}

/* The verdict of the rounds measured, B against A. */
static void judge(struct ab *ab)
{
	struct ax_ab_result *out = ab->out;
	const struct ax_runner_pair_result *pr = &out->pair;
	struct ax_compare_paired_in in = {
	    .speedup = pr->speedup,
	    .lo = pr->lo,
	    .hi = pr->hi,
	    .p_value = pr->p_value,
	    .rounds = pr->rounds,
	};
	ax_compare_paired(&in, ab->o->threshold, AB_ALPHA, &out->stat,
			  &out->mde);
	snprintf(out->unit, sizeof(out->unit), "%s", ab->a.suite->unit);
	out->higher_is_better = ab->a.suite->higher_is_better;
	fill_side(&ab->a, &out->a, pr->a, pr->rounds);
	fill_side(&ab->b, &out->b, pr->b, pr->rounds);
}

/* Progress after each round: a line rewritten on a terminal, a line
 * each with -v elsewhere, nothing with -q or --json. */
static void on_round(void *ctx, const struct ax_runner_pair_result *r)
{
	struct ab *ab = ctx;
	if (ab->quiet || (!ab->tty && ab->app->verbosity < 1))
		return;
	int i = r->rounds - 1;
	char line[512];
	snprintf(line, sizeof(line),
		 "round %d (%d..%d): A %.4g B %.4g %s; B/A %.4g [%.4g, "
		 "%.4g] +/-%.2f%%",
		 r->rounds, ab->o->pair.min_rounds, ab->o->pair.max_rounds,
		 r->a[i], r->b[i], ab->a.suite->unit, r->speedup, r->lo, r->hi,
		 100 * r->half_width);
	if (ab->tty) {
		ax_live_show(line);
	} else {
		fprintf(stderr, "%s\n", line);
	}
	fflush(stderr);
}

static void end_progress(const struct ab *ab)
{
	ax_live_clear();
}

static void pair_opts(struct ab *ab, struct ax_runner_pair_opts *po)
{
	*po = ab->o->pair;
	po->higher_is_better = ab->a.suite->higher_is_better;
	po->stop = &ax_interrupted;
	po->progress = on_round;
	po->progress_ctx = ab;
}

/* ---- in one process ---------------------------------------------------- */

/* The side's point on this device: the tuned document, the per-device
 * defaults, then the rules and limits; refused with the side named. */
static int prepare(struct ab *ab, struct variant *v,
		   const struct ax_vk_device_info *info)
{
	struct ax_plan_tuned_count n = {0, 0, 0};
	if (v->plan.tuned)
		n = ax_plan_apply_tuned(&v->plan, info->fingerprint);
	if (v->plan.tuned && n.here + n.elsewhere == 0)
		return ax_app_error(ab->app, AX_EXIT_USAGE,
				    "%s: %s-tuned %s holds no point for %s at "
				    "this shape",
				    ab->cmd, v->opt, v->spec->tuned,
				    v->suite->name);
	int rc = ax_plan_apply_defaults(&v->plan, info, ab->app);
	if (rc)
		return rc;
	char why[512], label[512];
	rc = ax_params_check(v->p, why, sizeof(why));
	if (rc == 0 && v->suite->check)
		rc = v->suite->check(v->p, info, why, sizeof(why));
	if (rc == 0)
		return 0;
	ax_session_case_label(v->p, label, sizeof(label));
	return ax_app_error(ab->app, AX_EXIT_USAGE, "%s: %s (%s %s): %s%s",
			    ab->cmd, v->name, v->suite->name, label, why,
			    rc == AX_EUNSUPPORTED ? " (not on this device)"
						  : "");
}

static json_t *side_config(const struct variant *v)
{
	json_t *given = json_array();
	for (int i = 0; i < v->n_ov; i++)
		json_array_append_new(given, json_string(v->ov[i].text));
	return json_pack("{s:s, s:s?, s:s?, s:o}", "suite", v->suite->name,
			 "kernel", v->spec->kernel, "tuned", v->spec->tuned,
			 "params", given);
}

/* The run row's settings; "command": "ab" makes the run's kind. */
static char *config_json(const struct ab *ab)
{
	const struct ax_ab_opts *o = ab->o;
	json_t *cfg = json_pack(
	    "{s:s, s:i, s:i, s:i, s:f, s:f, s:i, s:f, s:o, s:o}", "command",
	    "ab", "min_rounds", o->pair.min_rounds, "max_rounds",
	    o->pair.max_rounds, "samples_per_round", o->pair.samples_per_round,
	    "max_noise", o->pair.max_noise, "max_time_s", o->pair.max_time_s,
	    "warmup", o->warmup, "threshold", o->threshold, "a",
	    side_config(&ab->a), "b", side_config(&ab->b));
	char *text = json_dumps(cfg, JSON_COMPACT);
	json_decref(cfg);
	return text;
}

/* What a stored side was given beyond its parameters. */
static json_t *side_extra(const struct variant *v)
{
	if (!v->spec->kernel && !v->spec->tuned)
		return NULL;
	return json_pack("{s:{s:s?, s:s?}}", "variant", "kernel",
			 v->spec->kernel, "tuned", v->spec->tuned);
}

/* A side that could not run: its status and reason, named. */
static int side_failed(struct ab *ab, const struct variant *v,
		       struct ax_session_pair_side *s,
		       struct ax_ab_side_result *r)
{
	const struct ax_runner_result *rr = &s->c.r;
	if (rr->outcome == AX_CASE_OK)
		return 0;
	/* Closed unsampled because its partner could not run: not its
	 * failure, and not stored. */
	if (rr->outcome == AX_CASE_INTERRUPTED && !ax_interrupted) {
		r->status = "not-measured";
		return 0;
	}
	r->status = rr->status_text;
	if (!ab->out->error[0])
		snprintf(ab->out->error, sizeof(ab->out->error),
			 "%s (%s %.200s): %s: %.600s", v->name, v->suite->name,
			 s->c.label, rr->status_text, rr->error);
	return rr->outcome == AX_CASE_INTERRUPTED ? AX_EXIT_INTERRUPTED
						  : AX_EXIT_FAIL;
}

static void say_start(const struct ab *ab, const struct ax_session *s)
{
	if (ab->quiet)
		return;
	char la[512], lb[512];
	side_label(&ab->a, la, sizeof(la));
	side_label(&ab->b, lb, sizeof(lb));
	fprintf(stderr,
		"axbench %s: A %s %s against B %s %s on %s, in alternating "
		"rounds (run %lld, database %s)\n",
		ab->cmd, ab->a.suite->name, la, ab->b.suite->name, lb,
		s->info->name, (long long)s->run_id, ab->app->db_path);
}

static int measure_pair(struct ab *ab, struct ax_session *s)
{
	struct ax_runner_opts ro;
	struct ax_runner_pair_opts po;
	ax_runner_opts_default(&ro);
	ro.warmup = ab->o->warmup;
	ro.stop = &ax_interrupted;
	pair_opts(ab, &po);
	json_t *ea = side_extra(&ab->a), *eb = side_extra(&ab->b);
	struct ax_session_pair_side sa = {ab->a.suite, ab->a.p, ea};
	struct ax_session_pair_side sb = {ab->b.suite, ab->b.p, eb};
	int rc = ax_session_measure_pair(s, &ro, &po, &sa, &sb,
					 &ab->out->pair);
	end_progress(ab);
	json_decref(ea);
	json_decref(eb);
	ab->out->a.result_id = sa.c.result_id;
	ab->out->b.result_id = sb.c.result_id;
	int fa = side_failed(ab, &ab->a, &sa, &ab->out->a);
	int fb = side_failed(ab, &ab->b, &sb, &ab->out->b);
	ax_session_case_release(&sa.c);
	ax_session_case_release(&sb.c);
	return rc ? rc : fa ? fa : fb;
}

static int run_in_process(struct ab *ab)
{
	struct ax_session s;
	ax_session_init(&s, ab->app, "ab");
	/* No power is stored for a pair (one sensor cannot tell two
	 * interleaved sides apart): no sensor, so no idle baseline and no
	 * "power: ..." line; and the speed-up over the CPU is no part of an
	 * A/B verdict. */
	s.eff.no_power = true;
	s.eff.cpu = AX_CPU_BASELINE_OFF;
	int rc = ax_session_choose_device(&s);
	if (rc == 0)
		rc = prepare(ab, &ab->a, s.info);
	if (rc == 0)
		rc = prepare(ab, &ab->b, s.info);
	if (rc == 0) {
		char *cfg = config_json(ab);
		struct ax_session_run run = {.config_json = cfg,
					     .label = ab->o->label};
		rc = ax_session_begin_run(&s, &run);
		free(cfg);
	}
	if (rc == 0) {
		snprintf(ab->out->device, sizeof(ab->out->device), "%s",
			 s.info->name);
		ab->out->run_id = s.run_id;
		say_start(ab, &s);
		rc = measure_pair(ab, &s);
	}
	return ax_session_finish(&s, rc);
}

/* ---- in processes ------------------------------------------------------ */

/* Wait (at most 50 ms) for fd to be readable, minding the child: the
 * stop signal forwarded to it, SIGKILL after the grace period, so that
 * its output ends (EOF) however it takes the signal. */
static bool wait_readable(int fd, struct ax_child *c)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	int ready = poll(&pfd, 1, 50);
	ax_child_tick(c);
	return ready > 0;
}

/* Read fd to its end into a malloc'd string. */
static char *read_all(int fd, struct ax_child *c)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;
	for (;;) {
		if (!buf)
			return NULL;
		if (!wait_readable(fd, c))
			continue;
		n = read(fd, buf + len, cap - len - 1);
		if (n == 0 || (n < 0 && errno != EINTR))
			break;
		if (n < 0)
			continue;
		len += (size_t)n;
		if (cap - len < 2) {
			char *grown = realloc(buf, cap *= 2);
			if (!grown)
				free(buf);
			buf = grown;
		}
	}
	buf[len] = '\0';
	return buf;
}

/* In the child: its own process group (Ctrl-C reaches it through ab, once),
 * stdout into the pipe, stderr into the side's errfile, then argv. */
static void exec_side(const struct variant *v, char **argv, int fds[2])
{
	ax_child_own_group(0);
	int err = open(v->errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fds[1], STDOUT_FILENO);
	if (err >= 0)
		dup2(err, STDERR_FILENO);
	close(fds[0]);
	for (int i = 0; i < v->spec->n_env; i++)
		putenv((char *)v->spec->env[i]);
	execvp(argv[0], argv);
	fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Run argv with the side's environment, stdout into *out (malloc'd),
 * stderr into the side's errfile.  Returns the exit status, or -1 when
 * it could not be started or was killed.  SIGINT or SIGTERM to ab is
 * forwarded to the process, which is waited for (core/child.h). */
static int spawn(const struct variant *v, char **argv, char **out)
{
	int fds[2];
	*out = NULL;
	if (pipe(fds))
		return -1;
	pid_t pid = fork();
	if (pid == 0)
		exec_side(v, argv, fds);
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return -1;
	}
	ax_child_own_group(pid);
	struct ax_child c;
	ax_child_init(&c, pid, true, &ax_interrupted);
	*out = read_all(fds[0], &c);
	close(fds[0]);
	int st;
	if (ax_child_wait(&c, &st) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The first lines of what the side's last process said on stderr. */
static void child_stderr(const struct variant *v, char *buf, size_t len)
{
	FILE *f = fopen(v->errfile, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	if (f)
		fclose(f);
}

/* The head of the side's command line: EXE run SUITE, or EXE kernel run
 * FILE. */
static int argv_head(const struct variant *v, char **argv)
{
	int n = 0;
	argv[n++] = (char *)v->exe;
	if (v->spec->kernel) {
		argv[n++] = "kernel";
		argv[n++] = "run";
		argv[n++] = (char *)v->spec->kernel;
	} else {
		argv[n++] = "run";
		argv[n++] = (char *)v->suite->name;
	}
	return n;
}

/* Which of the options newer builds have does this side's `run` know?
 * (--idle 0 saves a second a process, --cpu-baseline off a CPU gemm.) */
static int probe(struct ab *ab, struct variant *v)
{
	char *argv[8], *out, err[1024];
	int n = argv_head(v, argv); /* the suite or file is the last word */
	argv[n - 1] = "--help";
	argv[n] = NULL;
	int st = spawn(v, argv, &out);
	if (st != 0) {
		child_stderr(v, err, sizeof(err));
		free(out);
		return ax_app_error(ab->app, AX_EXIT_USAGE,
				    "%s: %s: `%s %s --help` failed (%s): give "
				    "an axbench binary",
				    ab->cmd, v->name, v->exe,
				    v->spec->kernel ? "kernel run" : "run",
				    err[0] ? ax_term(err) : "no output");
	}
	v->has_idle = out && strstr(out, "--idle");
	v->has_cpu_baseline = out && strstr(out, "--cpu-baseline");
	free(out);
	return 0;
}

static void put_int(char *buf, size_t len, long v)
{
	snprintf(buf, len, "%ld", v);
}

/* The rest of a round's command line: the case, a temporary database,
 * exactly `samples` samples, --json; options every `run` has. */
static int argv_tail(const struct ab *ab, const struct variant *v, char **argv,
		     int n, int samples, char nums[3][24])
{
	for (int i = 0; i < v->n_ov; i++) {
		argv[n++] = "-p";
		argv[n++] = (char *)v->ov[i].text;
	}
	if (v->spec->tuned) {
		argv[n++] = "--tuned";
		argv[n++] = (char *)v->spec->tuned;
	}
	put_int(nums[0], sizeof(nums[0]), ab->o->warmup);
	put_int(nums[1], sizeof(nums[1]), samples);
	char *fixed[] = {"--db",	  (char *)v->db, "--json", "-q",
			 "--warmup",	  nums[0],	 "--min-samples",
			 nums[1],	  "--max-samples",
			 nums[1],	  "--min-time",	 "0",
			 "--max-time",	  "60"};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(*fixed); i++)
		argv[n++] = fixed[i];
	if (v->has_idle)
		argv[n++] = "--idle", argv[n++] = "0";
	if (v->has_cpu_baseline)
		argv[n++] = "--cpu-baseline", argv[n++] = "off";
	if (ab->app->device_sel)
		argv[n++] = "--device", argv[n++] = (char *)ab->app->device_sel;
	argv[n] = NULL;
	return n;
}

/* The round's value from the child's `run --json` document. */
static int read_value(struct ab *ab, struct variant *v, const json_t *doc,
		      double *value)
{
	json_t *row = json_array_get(json_object_get(doc, "results"), 0);
	const char *status = json_string_value(json_object_get(row, "status"));
	json_t *median = json_object_get(row, "median");
	if (status && !strcmp(status, "ok") && json_is_number(median)) {
		*value = json_number_value(median);
		return 0;
	}
	const char *why = json_string_value(json_object_get(row, "error"));
	snprintf(ab->out->error, sizeof(ab->out->error), "%s: %s: %.900s",
		 v->name, status ? status : "no result",
		 why ? why : "its `run --json` gave no median");
	return AX_EINVAL;
}

/* ax_runner_pair_side.round of a side in processes: one `run` of the
 * case, its median the round's value. */
static int process_round(void *ctx, int samples, double *value)
{
	struct variant *v = ctx;
	struct ab *ab = v->ab;
	char *argv[2 * AX_AB_MAX_PARAMS * 2 + 40], *out, nums[3][24];
	int n = argv_head(v, argv);
	argv_tail(ab, v, argv, n, samples, nums);
	int st = spawn(v, argv, &out);
	if (ax_interrupted) {
		free(out);
		return AX_EINTR;
	}
	/* A failed case (exit 1) still prints its document, whose row
	 * says why; with none, what the process said on stderr does. */
	json_t *doc = out ? json_loads(out, 0, NULL) : NULL;
	int rc = doc ? read_value(ab, v, doc, value) : AX_EINVAL;
	json_decref(doc);
	if (rc)
		(v == &ab->a ? &ab->out->a : &ab->out->b)->status = "failed";
	if (!doc || (rc == 0 && st != 0)) {
		char err[900];
		child_stderr(v, err, sizeof(err));
		snprintf(ab->out->error, sizeof(ab->out->error),
			 "%s: `%.200s` exited with %d: %.700s", v->name, v->exe,
			 st, err[0] ? ax_term(err) : "no message");
		rc = AX_EINVAL;
	}
	free(out);
	return rc;
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	return remove(path);
}

static int setup_process_side(struct ab *ab, struct variant *v)
{
	v->ab = ab;
	if (v->spec->exe) {
		snprintf(v->exe, sizeof(v->exe), "%s", v->spec->exe);
	} else {
		ssize_t n = readlink("/proc/self/exe", v->exe, sizeof(v->exe) - 1);
		if (n <= 0)
			return ax_app_error(ab->app, AX_EXIT_FAIL,
					    "%s: cannot find this axbench's "
					    "own binary for %s: give --%c-exe",
					    ab->cmd, v->name, v->name[0] + 32);
		v->exe[n] = '\0';
	}
	snprintf(v->db, sizeof(v->db), "%s/%s.db", ab->tmpdir, v->name);
	snprintf(v->errfile, sizeof(v->errfile), "%s/%s.err", ab->tmpdir,
		 v->name);
	return probe(ab, v);
}

static json_t *process_json(const struct variant *v)
{
	json_t *env = json_array();
	for (int i = 0; i < v->spec->n_env; i++)
		json_array_append_new(env, json_string(v->spec->env[i]));
	return json_pack("{s:s, s:o}", "exe", v->exe, "env", env);
}

static int run_processes(struct ab *ab)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(ab->tmpdir, sizeof(ab->tmpdir), "%s/axbench-ab.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(ab->tmpdir))
		return ax_app_error(ab->app, AX_EXIT_STORAGE,
				    "%s: cannot make a temporary folder %s: %s",
				    ab->cmd, ab->tmpdir, strerror(errno));
	int rc = setup_process_side(ab, &ab->a);
	if (rc == 0)
		rc = setup_process_side(ab, &ab->b);
	if (rc == 0 && !ab->quiet)
		fprintf(stderr,
			"axbench %s: A (%s) against B (%s) in alternating "
			"processes, one `run` of the case per side and round "
			"(each starts, compiles and verifies anew); nothing "
			"is stored\n",
			ab->cmd, ab->a.exe, ab->b.exe);
	if (rc == 0) {
		struct ax_runner_pair_opts po;
		pair_opts(ab, &po);
		struct ax_runner_pair_side sa = {process_round, &ab->a};
		struct ax_runner_pair_side sb = {process_round, &ab->b};
		int pr = ax_runner_pair(&sa, &sb, &po, &ab->out->pair);
		end_progress(ab);
		if (ax_interrupted)
			rc = AX_EXIT_INTERRUPTED;
		else if (pr)
			rc = AX_EXIT_FAIL;
		ab->out->a.process = process_json(&ab->a);
		ab->out->b.process = process_json(&ab->b);
	}
	nftw(ab->tmpdir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
	return rc;
}

/* ---- the comparison ---------------------------------------------------- */

static bool process_mode(const struct ax_ab_opts *o)
{
	return o->a.exe || o->b.exe || o->a.n_env || o->b.n_env;
}

int ax_ab_run(struct ax_app *app, const struct ax_ab_opts *o,
	      struct ax_ab_result *out)
{
	struct ab ab = {.app = app, .o = o, .out = out};
	memset(out, 0, sizeof(*out));
	out->pair.speedup = out->pair.lo = out->pair.hi = NAN;
	out->pair.stop_reason = "error";
	out->process = process_mode(o);
	ab.cmd = o->command ? o->command : "ab";
	ab.quiet = app->verbosity < 0 || app->json;
	ab.tty = isatty(STDERR_FILENO);
	ab.a = (struct variant){.name = "A", .opt = "--a", .spec = &o->a};
	ab.b = (struct variant){.name = "B", .opt = "--b", .spec = &o->b};
	int rc = load_variants(&ab);
	if (rc == 0)
		rc = out->process ? run_processes(&ab) : run_in_process(&ab);
	if (ab.a.suite && ab.b.suite && rc != AX_EXIT_USAGE)
		judge(&ab);
	out->interrupted = ax_interrupted != 0;
	if (out->interrupted)
		out->pair.stop_reason = "interrupted";
	release_variant(&ab.b);
	release_variant(&ab.a);
	return rc;
}

void ax_ab_result_release(struct ax_ab_result *r)
{
	json_decref(r->a.params);
	json_decref(r->b.params);
	json_decref(r->a.process);
	json_decref(r->b.process);
	ax_runner_pair_result_release(&r->pair);
	memset(r, 0, sizeof(*r));
}

int ax_ab_exit(const struct ax_ab_result *r, bool strict)
{
	if (r->stat.verdict == AX_VERDICT_SLOWER)
		return AX_EXIT_FAIL;
	if (strict && r->stat.verdict == AX_VERDICT_AMBIGUOUS)
		return AX_EXIT_AMBIGUOUS;
	return AX_EXIT_OK;
}

/* Beyond this ratio a change reads as "3.01x slower" (compare's rule). */
#define AB_RATIO_FROM 1.5

const char *ax_ab_change_text(const struct ax_ab_result *r, char *buf,
			      size_t len)
{
	double x = r->pair.speedup, lo = r->pair.lo, hi = r->pair.hi;
	bool slower = x < 1;
	if (!isfinite(x))
		snprintf(buf, len, "B against A: not measured");
	else if (x >= AB_RATIO_FROM || x <= 1 / AB_RATIO_FROM)
		snprintf(buf, len, "B is %.3gx %s than A [%.3gx, %.3gx]",
			 slower ? 1 / x : x, slower ? "slower" : "faster",
			 slower ? 1 / hi : lo, slower ? 1 / lo : hi);
	else if (slower)
		snprintf(buf, len, "B is %.2f %% slower than A [%.2f %%, %.2f %%]",
			 100 * (1 - x), 100 * (1 - hi), 100 * (1 - lo));
	else
		snprintf(buf, len, "B is %.2f %% faster than A [%.2f %%, %.2f %%]",
			 100 * (x - 1), 100 * (lo - 1), 100 * (hi - 1));
	return buf;
}

static json_t *values_json(const double *v, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, num(v[i]));
	return a;
}

static json_t *side_json(const struct ax_ab_side_result *s)
{
	json_t *o = json_pack("{s:s, s:s, s:s?, s:O?, s:o, s:o, s:s?}",
			      "suite", s->suite, "case", s->label, "kernel",
			      s->kernel, "params", s->params, "result_id",
			      s->result_id ? json_integer(s->result_id)
					   : json_null(),
			      "median", num(s->median), "status", s->status);
	json_object_set(o, "process", s->process ? s->process : json_null());
	return o;
}

json_t *ax_ab_json(const struct ax_ab_result *r)
{
	const struct ax_runner_pair_result *p = &r->pair;
	const struct ax_compare_stat *st = &r->stat;
	char change[256];
	json_t *doc = json_pack(
	    "{s:s, s:o, s:o, s:s, s:b, s:o, s:o, s:i, s:i, s:f, s:s, s:{s:o, s:o}}",
	    "mode", r->process ? "process" : "in-process", "run_id",
	    r->run_id ? json_integer(r->run_id) : json_null(), "device",
	    r->device[0] ? json_string(r->device) : json_null(), "unit",
	    r->unit, "higher_is_better", r->higher_is_better, "a",
	    side_json(&r->a), "b", side_json(&r->b), "rounds", p->rounds, "blocks",
	    p->blocks.blocks, "rebuild_s", p->rebuild_s,
	    "stop_reason", p->stop_reason ? p->stop_reason : "error",
	    "round_values", "a", values_json(p->a, p->rounds), "b",
	    values_json(p->b, p->rounds));
	const char *keys[] = {"speedup", "speedup_lo", "speedup_hi",
			      "level", "p_value", "improvement_pct",
			      "threshold_pct", "min_detectable_effect_pct"};
	double vals[] = {p->speedup,
			 p->lo,
			 p->hi,
			 p->rounds ? p->test.ci_level : NAN,
			 st->p_value,
			 100 * st->improvement,
			 100 * st->threshold,
			 100 * r->mde};
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
		json_object_set_new(doc, keys[i], num(vals[i]));
	json_object_set_new(doc, "improvement_ci_pct",
			    json_pack("[o, o]", num(100 * st->impr_lo),
				      num(100 * st->impr_hi)));
	json_object_set_new(doc, "change_text",
			    json_string(ax_ab_change_text(r, change,
							  sizeof(change))));
	json_object_set_new(doc, "verdict",
			    json_string(ax_compare_verdict_name(st->verdict)));
	json_object_set_new(doc, "reason", json_string(st->reason));
	json_object_set_new(doc, "interrupted", json_boolean(r->interrupted));
	json_object_set_new(doc, "error", r->error[0] ? json_string(r->error)
						      : json_null());
	return doc;
}
