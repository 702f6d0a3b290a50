/* cli/cmd_ab.c - `axbench ab`: two variants of one case measured in
 * alternating rounds, B judged against A (app/ab.h).  `kernel compare`
 * is this command with kernel files (cli/cmd_kernel.c). */
#include "app/ab.h"
#include "cli/cli.h"
#include "cli/session_opts.h"

#include "core/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_SUITE = 1,
	OPT_PARAM,
	OPT_A,
	OPT_B,
	OPT_KERNEL,
	OPT_A_KERNEL,
	OPT_B_KERNEL,
	OPT_A_TUNED,
	OPT_B_TUNED,
	OPT_EXE,
	OPT_A_EXE,
	OPT_B_EXE,
	OPT_ENV,
	OPT_A_ENV,
	OPT_B_ENV,
	OPT_ROUNDS,
	OPT_MAX_ROUNDS,
	OPT_MAX_TIME,
	OPT_NOISE,
	OPT_SAMPLES,
	OPT_WARMUP,
	OPT_THRESHOLD,
	OPT_STRICT,
};

static const struct ax_cli_opt ab_opts[] = {
    {OPT_SUITE, "suite", 0, "NAME",
     "the suite both sides run (or give it first, as `run` takes it), "
     "or the side without a kernel file; required unless kernel files "
     "are given"},
    {OPT_PARAM, "param", 'p', "NAME=VALUE",
     "a parameter of both sides, one value (default: the suite's); once "
     "per NAME"},
    {OPT_A, "a", 0, "NAME=VALUE",
     "a parameter of A only, winning over -p (repeatable; several in one "
     "separated by spaces: --a 'bm=64 bn=64'; default: as -p)"},
    {OPT_B, "b", 0, "NAME=VALUE",
     "a parameter of B only, as --a (default: as -p)"},
    {OPT_KERNEL, "kernel", 0, "FILE",
     "both sides are this kernel file (docs/KERNELS.md) instead of a "
     "suite (default: none, a suite)"},
    {OPT_A_KERNEL, "a-kernel", 0, "FILE",
     "A is this kernel file; with a suite named, B runs the suite "
     "(default: --kernel)"},
    {OPT_B_KERNEL, "b-kernel", 0, "FILE",
     "B is this kernel file (default: --kernel)"},
    {OPT_A_TUNED, "a-tuned", 0, "FILE",
     "A takes the tuned parameters of an `axbench export` document for "
     "its shape (as `run --tuned`; default: none)"},
    {OPT_B_TUNED, "b-tuned", 0, "FILE", "B likewise (default: none)"},
    {OPT_EXE, "exe", 0, "PATH",
     "process mode: B is run by another axbench binary (--b-exe; "
     "default: none, one process)"},
    {OPT_A_EXE, "a-exe", 0, "PATH",
     "process mode: A is run by this axbench binary (default: this one)"},
    {OPT_B_EXE, "b-exe", 0, "PATH",
     "process mode: B's binary (default: none, one process)"},
    {OPT_ENV, "env", 0, "VAR=VAL",
     "process mode: B's processes get this environment variable, such "
     "as VK_DRIVER_FILES=... (--b-env; repeatable; default: none)"},
    {OPT_A_ENV, "a-env", 0, "VAR=VAL",
     "process mode: A's, likewise (default: none)"},
    {OPT_B_ENV, "b-env", 0, "VAR=VAL",
     "process mode: B's, likewise (default: none)"},
    {OPT_ROUNDS, "rounds", 0, "N", "at least N paired rounds (default 10)"},
    {OPT_MAX_ROUNDS, "max-rounds", 0, "N",
     "at most N rounds (default 100, or --rounds when larger)"},
    {OPT_MAX_TIME, "max-time", 0, "S",
     "stop after S seconds once --rounds are done (default 60)"},
    {OPT_NOISE, "noise", 0, "PCT",
     "stop once the speed-up's 95% interval is within +/-PCT % of it "
     "(default 1)"},
    {OPT_SAMPLES, "samples", 0, "N",
     "samples per side and round; its median is the round's value "
     "(default 3)"},
    {OPT_WARMUP, "warmup", 0, "N",
     "untimed repetitions per side first (default 2)"},
    {OPT_THRESHOLD, "threshold", 't', "PCT",
     "minimum effect size in percent, as compare's (default 2)"},
    {OPT_STRICT, "strict", 0, NULL,
     "exit 3 when the verdict is ambiguous (default: exit 0)"},
    AX_SESSION_LABEL_OPT,
    {0},
};

struct ab_args {
	struct ax_ab_opts o;
	bool strict, max_set;
	char *owned[4 * AX_AB_MAX_PARAMS]; /* split --a / --b words */
	int n_owned;
};

extern const struct ax_cli_cmd ax_cmd_ab;

static int usage(const struct ax_ab_opts *o, struct ax_app *app,
		 const char *fmt, const char *what)
{
	return ax_app_error(app, AX_EXIT_USAGE, fmt, o->command, what);
}

/* --a 'bm=64 bn=64': each word a NAME=VALUE of the side. */
static int side_params(struct ax_app *app, struct ab_args *a,
		       struct ax_ab_side *s, const char *opt, const char *text)
{
	char *copy = strdup(text), *save = NULL;
	if (!copy || a->n_owned >= (int)(sizeof(a->owned) / sizeof(*a->owned)))
		return ax_app_error(app, AX_EXIT_USAGE, "%s: too many %s",
				    a->o.command, opt);
	a->owned[a->n_owned++] = copy;
	int words = 0;
	for (char *w = strtok_r(copy, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save), words++) {
		if (!strchr(w, '=') || w[0] == '=')
			return ax_app_error(app, AX_EXIT_USAGE,
					    "%s: %s %s: write NAME=VALUE (e.g. "
					    "%s n=1M)",
					    a->o.command, opt, w, opt);
		if (s->n_params == AX_AB_MAX_PARAMS)
			return ax_app_error(app, AX_EXIT_USAGE,
					    "%s: at most %d %s", a->o.command,
					    AX_AB_MAX_PARAMS, opt);
		s->params[s->n_params++] = w;
	}
	if (words == 0)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "%s: %s is empty: give NAME=VALUE",
				    a->o.command, opt);
	return 0;
}

static int side_env(struct ax_app *app, const struct ab_args *a,
		    struct ax_ab_side *s, const char *opt, const char *text)
{
	const char *eq = strchr(text, '=');
	if (!eq || eq == text)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "%s: %s %s: write VAR=VALUE (e.g. %s "
				    "VK_DRIVER_FILES=/path/icd.json)",
				    a->o.command, opt, text, opt);
	if (s->n_env == AX_AB_MAX_ENV)
		return ax_app_error(app, AX_EXIT_USAGE, "%s: at most %d %s",
				    a->o.command, AX_AB_MAX_ENV, opt);
	s->env[s->n_env++] = text;
	return 0;
}

/* The measurement's numbers: rounds, time, noise, samples, threshold. */
static int parse_number(struct ax_cli_iter *it, int opt, struct ab_args *a)
{
	struct ax_runner_pair_opts *p = &a->o.pair;
	long long n;
	double d;
	if (opt == OPT_MAX_TIME || opt == OPT_NOISE || opt == OPT_THRESHOLD) {
		if (ax_cli_parse_double(it, opt == OPT_THRESHOLD ? 0 : 0.001,
					opt == OPT_MAX_TIME ? 86400 : 100, &d))
			return AX_EXIT_USAGE;
		if (opt == OPT_MAX_TIME)
			p->max_time_s = d;
		else if (opt == OPT_NOISE)
			p->max_noise = d / 100;
		else
			a->o.threshold = d / 100;
		return 0;
	}
	if (ax_cli_parse_int(it, opt == OPT_WARMUP ? 0 : 1,
			     opt == OPT_SAMPLES ? 1000 : 100000, &n))
		return AX_EXIT_USAGE;
	if (opt == OPT_ROUNDS)
		p->min_rounds = (int)n;
	else if (opt == OPT_MAX_ROUNDS)
		p->max_rounds = (int)n, a->max_set = true;
	else if (opt == OPT_SAMPLES)
		p->samples_per_round = (int)n;
	else
		a->o.warmup = (int)n;
	return 0;
}

static int parse_opt(struct ax_cli_iter *it, int opt, struct ab_args *a)
{
	struct ax_app *app = it->app;
	struct ax_ab_opts *o = &a->o;
	const char *v = it->optarg;
	switch (opt) {
	case OPT_SUITE:
		o->suite = v;
		return 0;
	case OPT_PARAM:
		if (o->n_params == AX_AB_MAX_PARAMS || !strchr(v, '='))
			return usage(o, app, "%s: -p %s: write NAME=VALUE", v);
		o->params[o->n_params++] = v;
		return 0;
	case OPT_A:
	case OPT_B:
		return side_params(app, a, opt == OPT_A ? &o->a : &o->b,
				   opt == OPT_A ? "--a" : "--b", v);
	case OPT_KERNEL:
		o->a.kernel = o->b.kernel = v;
		return 0;
	case OPT_A_KERNEL:
	case OPT_B_KERNEL:
		(opt == OPT_A_KERNEL ? &o->a : &o->b)->kernel = v;
		return 0;
	case OPT_A_TUNED:
	case OPT_B_TUNED:
		(opt == OPT_A_TUNED ? &o->a : &o->b)->tuned = v;
		return 0;
	case OPT_EXE:
	case OPT_A_EXE:
	case OPT_B_EXE:
		(opt == OPT_A_EXE ? &o->a : &o->b)->exe = v;
		return 0;
	case OPT_ENV:
	case OPT_A_ENV:
	case OPT_B_ENV:
		return side_env(app, a, opt == OPT_A_ENV ? &o->a : &o->b,
				it->optname, v);
	case OPT_STRICT:
		a->strict = true;
		return 0;
	case AX_OPT_LABEL:
		if (ax_app_check_label(app, o->command, v))
			return AX_EXIT_USAGE;
		o->label = v;
		return 0;
	}
	return parse_number(it, opt, a);
}

/* What the options say together: one suite or kernels, rounds in
 * order. */
static int check_args(struct ax_app *app, struct ab_args *a,
		      const struct ax_cli_iter *it)
{
	struct ax_ab_opts *o = &a->o;
	if (it->n_positional == 1) {
		if (o->suite && strcmp(o->suite, it->positional[0]))
			return usage(o, app,
				     "%s: two suites, '%s' and --suite's: "
				     "give one",
				     it->positional[0]);
		o->suite = it->positional[0];
	}
	/* A suite and one kernel file: that side is the kernel, the other
	 * the suite (a public shader against axbench's own, say). */
	if (o->suite && o->a.kernel && o->b.kernel)
		return usage(o, app,
			     "%s: a suite (%s) and two kernel files: give "
			     "the suite and one kernel file (--a-kernel or "
			     "--b-kernel), or the kernels alone",
			     o->suite);
	if (!o->suite && !o->a.kernel && !o->b.kernel)
		return usage(o, app,
			     "%s: name the suite (axbench ab SUITE --a ... "
			     "--b ...) or kernel files%s",
			     " (axbench kernel compare A.yaml B.yaml)");
	if (!a->max_set && o->pair.max_rounds < o->pair.min_rounds)
		o->pair.max_rounds = o->pair.min_rounds;
	if (o->pair.max_rounds < o->pair.min_rounds)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "%s: --max-rounds (%d) is below --rounds "
				    "(%d)",
				    o->command, o->pair.max_rounds,
				    o->pair.min_rounds);
	return 0;
}

static int parse_args(struct ax_app *app, int argc, char **argv,
		      struct ax_cli_iter *it, struct ab_args *a)
{
	ax_ab_opts_default(&a->o);
	a->o.command = argv[0];
	ax_cli_iter_init(it, app, &ax_cmd_ab, argc, argv);
	int opt, rc = 0;
	while (rc == 0 && (opt = ax_cli_next(it)) > 0)
		rc = parse_opt(it, opt, a);
	if (rc)
		return rc;
	int end = ax_cli_parse_end(it, opt, 0, 1);
	if (end != AX_CLI_CONTINUE)
		return end == AX_EXIT_OK ? -2 : end;
	return check_args(app, a, it);
}

/* "2.61 GFLOP/s" or "-" */
static void print_side(const char *name, const struct ax_ab_side_result *s,
		       const char *unit)
{
	printf("%s  %s %s", name, s->suite, s->label);
	if (isfinite(s->median))
		printf("  median %.4g %s", s->median, unit);
	if (s->result_id)
		printf("  (result %lld)", (long long)s->result_id);
	printf("\n");
}

static void print_text(const struct ax_ab_result *r)
{
	const struct ax_runner_pair_result *p = &r->pair;
	char change[256];
	print_side("A", &r->a, r->unit);
	print_side("B", &r->b, r->unit);
	if (p->rounds == 0) {
		printf("no paired round was measured\n");
		return;
	}
	int blocks = p->blocks.blocks;
	printf("%s (%d paired round%s in %d block%s, p=%.3g, %.0f %% interval, "
	       "stopped: %s)\n",
	       ax_ab_change_text(r, change, sizeof(change)), p->rounds,
	       p->rounds == 1 ? "" : "s", blocks, blocks == 1 ? "" : "s",
	       p->p_value, 100 * p->test.ci_level, p->stop_reason);
	printf("minimum detectable effect: %.2f %% (the %.3g %% threshold "
	       "plus the interval's half-width)\n",
	       100 * r->mde, 100 * r->stat.threshold);
	printf("verdict: %s: %s\n", ax_compare_verdict_name(r->stat.verdict),
	       r->stat.reason);
	if (r->run_id)
		printf("stored as run %lld (kind ab)\n", (long long)r->run_id);
}

static int ab_main(struct ax_app *app, int argc, char **argv)
{
	struct ax_cli_iter it;
	struct ab_args *a = calloc(1, sizeof(*a));
	struct ax_ab_result r;
	memset(&r, 0, sizeof(r));
	int rc = a ? parse_args(app, argc, argv, &it, a) : AX_EXIT_FAIL;
	if (rc == 0) {
		rc = ax_ab_run(app, &a->o, &r);
		bool measured = r.a.suite[0] != '\0';
		if (measured && app->json) {
			json_t *doc = ax_ab_json(&r);
			json_dumpf(doc, stdout, JSON_INDENT(2));
			putchar('\n');
			json_decref(doc);
		} else if (measured) {
			print_text(&r);
		}
		fflush(stdout);
		if (r.error[0])
			fprintf(stderr, "axbench %s: %s\n", a->o.command,
				r.error);
		if (rc == 0)
			rc = ax_ab_exit(&r, a->strict);
		ax_ab_result_release(&r);
	}
	if (a) {
		ax_cli_iter_release(&it);
		for (int i = 0; i < a->n_owned; i++)
			free(a->owned[i]);
	}
	free(a);
	return rc == -2 ? AX_EXIT_OK : rc;
}

const struct ax_cli_cmd ax_cmd_ab = {
    .name = "ab",
    .summary = "paired A/B: two variants in alternating rounds; exit 1 "
	       "when B is slower",
    .usage = "SUITE [-p NAME=VALUE...] --a NAME=VALUE... --b NAME=VALUE... "
	     "[options]",
    .details =
	"Measures two variants of one case - one suite at two parameter "
	"sets, two\n--tuned files, or two kernel files - in alternating "
	"rounds (A B, B A, ...),\neach set up, warmed up and verified once "
	"and kept open on one device, and\njudges B against A on the "
	"per-round ratios: the Wilcoxon signed-rank test\nwith the "
	"Hodges-Lehmann interval.  Whatever the machine does between "
	"rounds\nslows both sides alike and cancels in the ratio.  At least "
	"--rounds rounds,\nthen more until the interval is within --noise "
	"or --max-time has passed.\nThe verdict follows compare's rules "
	"(faster / slower: significant and the\nwhole interval beyond the "
	"threshold; same: within it; else ambiguous), with\nthe minimum "
	"detectable effect.  Stored as one run of kind \"ab\" holding "
	"both\nresults (extra.pair), kept out of report's systems and "
	"compare's `last`.\n\n"
	"Process mode (--exe, --a-exe/--b-exe, --env, --a-env/--b-env): for "
	"two builds\nor drivers that cannot share a process, each round of "
	"a side is a process,\n`EXE run SUITE ...` of the case with "
	"--samples samples into a temporary\ndatabase; its median is the "
	"round's value.  A process round costs its\nstart-up, the device's "
	"set-up, the compile and a fresh verification (about\na second on "
	"lavapipe), not only its samples; nothing is stored.\n\n"
	"Exit status: 0 same, faster or ambiguous; 1 B slower beyond the "
	"threshold, or\na side failed; 2 usage error; 3 ambiguous with "
	"--strict; 130 interrupted\n(the rounds measured are judged and "
	"stored).",
    .examples = {"axbench ab gemm -p m=256 -p n=256 -p k=256 --a share=smem "
		 "--b share=subgroup",
		 "axbench ab gemm --a-exe ./axbench --b-exe /opt/old/axbench "
		 "--rounds 20   # two builds",
		 "axbench kernel compare saxpy.yaml saxpy-new.yaml   # two "
		 "kernel files",
		 "axbench ab gemm --a-kernel anchor.yaml --a tile_m=64   # a "
		 "kernel file against the suite"},
    .opts = ab_opts,
    .fn = ab_main,
};
