/*
 * cli/cmd_kernel.c - `axbench kernel check|run|tune FILE.yaml`: a user's
 * own compute shader, described by FILE.yaml (docs/KERNELS.md).
 *
 * run and tune load the kernel, register its suite "kernel:NAME" and hand
 * the rest of the command line to `run` and `tune` with that suite: the
 * same session, database, tuner, stopping rules and output, so results,
 * compare, report and export treat it as any suite.  check validates the
 * file, compiles the default configuration and runs it once with
 * verification, storing nothing.  compare hands both files to `ab`
 * (app/ab.h), which loads them itself.
 */
#include "cli/cli.h"
#include "core/error.h"
#include "core/interrupt.h"
#include "core/text.h"
#include "core/vk.h"
#include "suites/kernel.h"
#include "suites/runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct ax_cli_cmd ax_cmd_run;
extern const struct ax_cli_cmd ax_cmd_tune;
extern const struct ax_cli_cmd ax_cmd_export;
extern const struct ax_cli_cmd ax_cmd_kernel;
extern const struct ax_cli_cmd ax_cmd_ab;
extern const struct ax_cli_cmd ax_cmd_kernel_compare, ax_cmd_kernel_run,
    ax_cmd_kernel_tune, ax_cmd_kernel_export;

/* FILE must follow the subcommand's word: the options after it belong
 * to `run` / `tune`, whose parsers never see it. */
static int load_file(struct ax_app *app, const char *sub, int argc, char **argv,
		     struct ax_kernel **k)
{
	char err[4096];
	if (argc < 2 || argv[1][0] == '-')
		return ax_app_error(app, AX_EXIT_USAGE,
				    "kernel %s: give the kernel's description "
				    "file first: axbench kernel %s FILE.yaml "
				    "[options]",
				    sub, sub);
	int rc = ax_kernel_load(argv[1], k, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "axbench kernel %s: %s\n", sub, err);
		return rc == AX_ENOMEM ? AX_EXIT_FAIL : AX_EXIT_USAGE;
	}
	return 0;
}

/* Run cmd with argv = {cmd, [option,] kernel:NAME, the options after
 * FILE}: `run kernel:NAME ...`, `export --suite kernel:NAME ...`. */
static int delegate(struct ax_app *app, const struct ax_cli_cmd *self,
		    const struct ax_cli_cmd *cmd, const char *option, int argc,
		    char **argv)
{
	struct ax_kernel *k;
	const char *sub = self->name + strlen("kernel ");
	/* --help is this subcommand's page (FILE.yaml first, the page of
	 * the command it stands for named in it), not run's own. */
	if (argc >= 2 &&
	    (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		ax_cli_print_help(stdout, self);
		return 0;
	}
	int rc = load_file(app, sub, argc, argv, &k);
	if (rc)
		return rc;
	char **v = calloc((size_t)argc + 2, sizeof(*v));
	if (!v) {
		ax_kernel_free(k);
		return ax_app_error(app, AX_EXIT_FAIL, "out of memory");
	}
	int n = 0;
	v[n++] = (char *)cmd->name;
	if (option)
		v[n++] = (char *)option;
	v[n++] = (char *)ax_kernel_suite(k)->name;
	for (int i = 2; i < argc; i++)
		v[n++] = argv[i];
	/* The command it stands for opens what that command declares. */
	app->needs = cmd->needs;
	rc = cmd->fn(app, n, v);
	free(v);
	ax_kernel_free(k);
	return rc;
}

static int kernel_run_main(struct ax_app *app, int argc, char **argv)
{
	return delegate(app, &ax_cmd_kernel_run, &ax_cmd_run, NULL, argc, argv);
}

static int kernel_tune_main(struct ax_app *app, int argc, char **argv)
{
	return delegate(app, &ax_cmd_kernel_tune, &ax_cmd_tune, NULL, argc,
			argv);
}

static int kernel_export_main(struct ax_app *app, int argc, char **argv)
{
	return delegate(app, &ax_cmd_kernel_export, &ax_cmd_export, "--suite",
			argc, argv);
}

/* `kernel compare A.yaml [B.yaml] ...` is `ab --a-kernel A.yaml
 * --b-kernel B.yaml ...` (or `ab --kernel A.yaml ...`: one file at two
 * parameter sets); ab loads the files, named in its messages as this
 * command. */
static int kernel_compare_main(struct ax_app *app, int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--help")) {
		ax_cli_print_help(stdout, &ax_cmd_kernel_compare);
		return 0;
	}
	if (argc < 2 || argv[1][0] == '-')
		return ax_app_error(app, AX_EXIT_USAGE,
				    "kernel compare: give the kernel files "
				    "first: axbench kernel compare A.yaml "
				    "B.yaml, or K.yaml --a X=1 --b X=2");
	bool two = argc >= 3 && argv[2][0] != '-';
	char **v = calloc((size_t)argc + 4, sizeof(*v));
	if (!v)
		return ax_app_error(app, AX_EXIT_FAIL, "out of memory");
	int n = 0;
	v[n++] = "kernel compare";
	v[n++] = two ? "--a-kernel" : "--kernel";
	v[n++] = argv[1];
	if (two) {
		v[n++] = "--b-kernel";
		v[n++] = argv[2];
	}
	for (int i = two ? 3 : 2; i < argc; i++)
		v[n++] = argv[i];
	app->needs = ax_cmd_ab.needs;
	int rc = ax_cmd_ab.fn(app, n, v);
	free(v);
	return rc;
}

/* ---- check ------------------------------------------------------------ */

enum { OPT_PARAM = 1 };

static const struct ax_cli_opt check_opts[] = {
    {OPT_PARAM, "param", 'p', "NAME=VALUE",
     "run this configuration instead of the defaults (repeatable; each "
     "NAME once)"},
    {0},
};

static void print_summary(const struct ax_suite *s)
{
	printf("%s: %d parameter%s, unit %s\n", s->name, s->n_params,
	       s->n_params == 1 ? "" : "s", s->unit);
	printf("  work model: %s\n", s->work_model);
	for (int i = 0; i < s->n_params; i++) {
		char def[32];
		ax_param_format(&s->params[i], s->params[i].def, def,
				sizeof(def));
		printf("  %-16s %-8s %d value%s, default %s\n",
		       s->params[i].name,
		       (s->params[i].flags & AX_PARAM_TUNABLE) ? "tunable"
		       : (s->params[i].flags & AX_PARAM_SHAPE) ? "shape"
							       : "setting",
		       s->params[i].n_values,
		       s->params[i].n_values == 1 ? "" : "s", def);
	}
}

static int check_params(struct ax_app *app, const struct ax_suite *s,
			char **sets, int n, struct ax_params *p)
{
	char err[1024];
	ax_params_init(p, s->params, s->n_params);
	if (ax_params_check_unique((const char *const *)sets, n, err,
				   sizeof(err)))
		return ax_app_error(app, AX_EXIT_USAGE, "kernel check: %s",
				    err);
	for (int i = 0; i < n; i++) {
		char *eq = strchr(sets[i], '=');
		if (!eq)
			return ax_app_error(app, AX_EXIT_USAGE,
					    "kernel check: -p %s: write "
					    "NAME=VALUE",
					    sets[i]);
		*eq = '\0';
		int rc = ax_params_set(p, sets[i], eq + 1, err, sizeof(err));
		*eq = '=';
		if (rc)
			return ax_app_error(app, AX_EXIT_USAGE,
					    "kernel check: -p %s: %s", sets[i],
					    err);
	}
	return 0;
}

/* The case's error on stderr, a line at a time: a compiler writes one
 * line per message, and each is escaped on its own (ax_term would show
 * the newlines as \x0a). */
static void print_error(const struct ax_runner_result *r)
{
	const char *p = r->error;
	fprintf(stderr, "axbench kernel check: %s:", r->status_text);
	do {
		char line[1024];
		size_t n = strcspn(p, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		fprintf(stderr, "%s%s\n", p == r->error ? " " : "  ",
			ax_term(line));
		p += n;
	} while (*p && *++p);
}

/* What the case was verified against, as the kernel suite's describe()
 * says it (the runner keeps that only as the stored document); NULL when
 * the case never got that far. */
static const char *verified_against(const struct ax_runner_result *r)
{
	return json_string_value(json_object_get(r->extra, "verified_against"));
}

static void print_text(const struct ax_suite *s, const struct ax_params *p,
		       const char *device, const struct ax_runner_result *r)
{
	char label[512];
	ax_params_label(p, 0, label, sizeof(label));
	printf("  device: %s\n  case: %s\n", device, label);
	const char *against = verified_against(r);
	bool itself =
	    json_is_true(json_object_get(r->extra, "reference_itself"));
	if (r->outcome == AX_CASE_OK)
		printf("  ok: %s%s; median %.4g %s over %d samples; compile "
		       "%.1f ms; SPIR-V %s\n",
		       itself ? "" : "verified against ",
		       itself	 ? "ran, checked against nothing independent "
				   "(the reference configuration itself)"
		       : against ? against
				 : "the suite's reference",
		       r->summary.median, s->unit, r->n, r->compile_ms,
		       r->shader_hash);
	fflush(stdout);
	if (r->outcome != AX_CASE_OK)
		print_error(r);
	else if (itself)
		fprintf(stderr,
			"axbench kernel check: note: nothing independent "
			"checked this output: this is verify.reference's "
			"configuration, the one every other configuration is "
			"compared with, so a wrong result here passes. To "
			"check it too, give an output buffer `expect: FILE` "
			"(its expected words; docs/KERNELS.md).\n");
}

/* A string, or null where there is none: every key of the document is
 * always there, in its place. */
static json_t *text_or_null(const char *text)
{
	return text ? json_string(text) : json_null();
}

/* docs/JSON.md#kernel-check */
static void print_json(const struct ax_suite *s, const struct ax_params *p,
		       const char *device, const struct ax_runner_result *r)
{
	bool ok = r->outcome == AX_CASE_OK;
	json_t *doc = json_pack(
	    "{s:s, s:s, s:s, s:o, s:s, s:o, s:o, s:o, s:i, s:f, s:o}", "suite",
	    s->name, "unit", s->unit, "device", device, "params",
	    ax_params_json(p), "status", r->status_text, "error",
	    text_or_null(ok ? NULL : r->error), "verified_against",
	    text_or_null(verified_against(r)), "median",
	    ok ? json_real(r->summary.median) : json_null(), "samples", r->n,
	    "compile_ms", r->compile_ms, "spirv_hash",
	    text_or_null(r->shader_hash[0] ? r->shader_hash : NULL));
	json_dumpf(doc, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(doc);
	if (!ok)
		print_error(r);
}

/* One case, checked, compiled, verified and timed briefly. */
static int check_case(struct ax_app *app, const struct ax_suite *s,
		      const struct ax_params *p)
{
	struct ax_vk_instance *inst;
	struct ax_vk_ctx *vk = NULL;
	struct ax_runner_opts o;
	struct ax_runner_result r;
	char err[1024];
	int idx, rc = ax_app_device(app, &inst, &idx);
	if (rc)
		return rc;
	if (ax_vk_open(inst, idx, &vk, err, sizeof(err))) {
		fprintf(stderr, "axbench kernel check: %s\n", err);
		return AX_EXIT_NODEV;
	}
	ax_runner_opts_default(&o);
	o.warmup = 1;
	o.min_samples = 3;
	o.max_samples = 3;
	o.min_time_s = 0;
	o.stop = &ax_interrupted;
	ax_runner_run_case(vk, s, p, &o, &r);
	if (app->json)
		print_json(s, p, vk->info->name, &r);
	else
		print_text(s, p, vk->info->name, &r);
	rc = r.outcome == AX_CASE_OK ? 0
	     : r.outcome == AX_CASE_FAILED_VERIFICATION ||
		     r.outcome == AX_CASE_TIMEOUT
		 ? AX_EXIT_FAIL
	     : r.outcome == AX_CASE_INTERRUPTED ? AX_EXIT_INTERRUPTED
						: AX_EXIT_USAGE;
	ax_runner_result_release(&r);
	ax_vk_close(vk);
	return rc;
}

static int kernel_check_main(struct ax_app *app, int argc, char **argv)
{
	extern const struct ax_cli_cmd ax_cmd_kernel_check;
	struct ax_cli_iter it;
	char *sets[64];
	int n_sets = 0, opt;
	ax_cli_iter_init(&it, app, &ax_cmd_kernel_check, argc, argv);
	while ((opt = ax_cli_next(&it)) > 0) {
		if (opt == OPT_PARAM && n_sets < 64)
			sets[n_sets++] = (char *)it.optarg;
	}
	int rc = ax_cli_parse_end(&it, opt, 1, 1);
	struct ax_kernel *k = NULL;
	if (rc == AX_CLI_CONTINUE) {
		char *file[2] = {argv[0], it.positional[0]};
		rc = load_file(app, "check", 2, file, &k);
	}
	ax_cli_iter_release(&it);
	if (!k) /* --help (0), a usage error or a bad file */
		return rc;
	const struct ax_suite *s = ax_kernel_suite(k);
	struct ax_params p;
	if (!app->json)
		print_summary(s);
	fflush(stdout); /* the summary before any message on stderr */
	rc = check_params(app, s, sets, n_sets, &p);
	if (!rc)
		rc = check_case(app, s, &p);
	ax_kernel_free(k);
	return rc;
}

const struct ax_cli_cmd ax_cmd_kernel_check = {
    .name = "kernel check",
    .summary = "validate FILE.yaml, compile and verify one configuration",
    .usage = "FILE.yaml [-p NAME=VALUE...]",
    .details = "Reads the description file (errors as FILE:LINE:COL), "
	       "compiles the shader with\nthe default parameters (or -p's), "
	       "runs it with verification against the\nreference "
	       "configuration or the expect files, and times three samples. "
	       " Nothing\nis stored.  Exit 0 when verified, 1 when the output "
	       "is wrong, 2 for a bad\nfile, a shader that does not compile "
	       "or a configuration that breaks a rule.",
    .examples = {"axbench kernel check examples/kernels/transpose.yaml",
		 "axbench kernel check saxpy.yaml -p wg=64   # another "
		 "configuration"},
    .opts = check_opts,
    .needs = AX_APP_NEED_DEVICE,
    .fn = kernel_check_main,
};

static const struct ax_cli_opt no_opts[] = {{0}};

const struct ax_cli_cmd ax_cmd_kernel_run = {
    .name = "kernel run",
    .summary = "measure the kernel as `axbench run` measures a suite",
    .usage = "FILE.yaml [any option of `axbench run`]",
    .details = "The same as `axbench run kernel:NAME [options]` with the "
	       "kernel loaded:\n-p sweeps, measurement options, labels, "
	       "efficiency; every result is verified\nand stored as suite "
	       "kernel:NAME.  `axbench help run` lists the options.",
    .examples = {"axbench kernel run examples/kernels/saxpy.yaml -p "
		 "n=1M   # one shape",
		 "axbench kernel run transpose.yaml -p tile=8,16,32   # a "
		 "sweep of a knob"},
    .opts = no_opts,
    .fn = kernel_run_main,
};

const struct ax_cli_cmd ax_cmd_kernel_tune = {
    .name = "kernel tune",
    .summary = "tune the kernel's knobs as `axbench tune` tunes a suite",
    .usage = "FILE.yaml [any option of `axbench tune`]",
    .details = "The same as `axbench tune kernel:NAME [options]` with the "
	       "kernel loaded: the\ntunable parameters are the search "
	       "space, the constraints and the device's\nlimits prune it, "
	       "shape parameters come from -p.  Strategies, budgets, "
	       "priors\nand stopping are tune's; `axbench help tune` lists "
	       "the options.",
    .examples = {"axbench kernel tune examples/kernels/transpose.yaml "
		 "--budget 30",
		 "axbench kernel tune transpose.yaml --strategy grid   # "
		 "every configuration"},
    .opts = no_opts,
    .fn = kernel_tune_main,
};

const struct ax_cli_cmd ax_cmd_kernel_export = {
    .name = "kernel export",
    .summary = "the kernel's tuned configurations, as `axbench export`",
    .usage = "FILE.yaml [any option of `axbench export` but --suite]",
    .details = "The same as `axbench export --suite kernel:NAME [options]` "
	       "with the kernel\nloaded: the best verified configuration per "
	       "shape, as YAML or JSON, which\n`axbench kernel run FILE.yaml "
	       "--tuned OUT.yaml` runs again.",
    .examples = {"axbench kernel export transpose.yaml -o tuned.yaml",
		 "axbench kernel run transpose.yaml --tuned tuned.yaml   # "
		 "re-measure the winners"},
    .opts = no_opts,
    .fn = kernel_export_main,
};

const struct ax_cli_cmd ax_cmd_kernel_compare = {
    .name = "kernel compare",
    .summary = "paired A/B of two kernel files, or one at two parameter "
	       "sets",
    .usage = "A.yaml [B.yaml] [--a NAME=VALUE...] [--b NAME=VALUE...] "
	     "[any option of `axbench ab`]",
    .details = "The same as `axbench ab --a-kernel A.yaml --b-kernel "
	       "B.yaml [options]` (one file:\n`--kernel K.yaml`): both "
	       "kernels are compiled, verified and kept open on\none device "
	       "and measured in alternating rounds; B is judged against A "
	       "on the\nper-round ratios, under compare's rules (exit 1 when "
	       "B is slower beyond the\nthreshold).  The two files may name "
	       "the same kernel (a modified copy); the\nfiles come first.  "
	       "`axbench help ab` lists the options.",
    .examples = {"axbench kernel compare saxpy.yaml saxpy-new.yaml   # two "
		 "versions of one kernel",
		 "axbench kernel compare transpose.yaml --a tile=16 --b "
		 "tile=32 -p n=1024"},
    .opts = no_opts,
    .fn = kernel_compare_main,
};

static const struct ax_cli_cmd *const kernel_subs[] = {
    &ax_cmd_kernel_check,  &ax_cmd_kernel_run,	   &ax_cmd_kernel_tune,
    &ax_cmd_kernel_export, &ax_cmd_kernel_compare, NULL};

static int kernel_main(struct ax_app *app, int argc, char **argv)
{
	return ax_cli_run_subs(app, &ax_cmd_kernel, argc, argv);
}

const struct ax_cli_cmd ax_cmd_kernel = {
    .name = "kernel",
    .summary = "benchmark and tune your own compute shader (FILE.yaml)",
    .usage = "SUB FILE.yaml [options]",
    .details = "A kernel description file (schema axbench.kernel/v1, "
	       "docs/KERNELS.md) names a\nGLSL compute shader, its "
	       "parameters (defines or specialization constants),\n"
	       "constraints, buffers, dispatch grid, work model and how to "
	       "verify it.  Its\nresults are the suite kernel:NAME to every "
	       "other command.",
    .examples = {"axbench kernel check examples/kernels/transpose.yaml   # "
		 "validate, compile, verify",
		 "axbench kernel tune examples/kernels/transpose.yaml "
		 "--budget 30",
		 "axbench results --suite kernel:transpose   # like any "
		 "suite"},
    .opts = no_opts,
    .subs = kernel_subs,
    .fn = kernel_main,
};
