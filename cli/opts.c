/* cli/opts.c - option iteration, generated help, errors and exit codes. */
#include "cli/cli.h"
#include "core/suggest.h"

#include "core/error.h"
#include "core/text.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Global options, accepted before or after the command name. */
enum {
	OPT_DB = 1000,
	OPT_DEVICE,
	OPT_QUIET,
	OPT_VERBOSE,
	OPT_JSON,
	OPT_VALIDATE,
	OPT_WORKDIR,
	OPT_HELP,
};
static const struct ax_cli_opt global_opts[] = {
    {OPT_DB, "db", 0, "PATH",
     "database file (env AXBENCH_DB; default ./axbench.db)"},
    {OPT_DEVICE, "device", 'd', "SEL",
     "device: index, UUID, PCI bus id or name part (default: first "
     "discrete GPU, else the first device)"},
    {OPT_QUIET, "quiet", 'q', NULL, "print only results and errors"},
    {OPT_VERBOSE, "verbose", 'v', NULL, "say more (repeat for more)"},
    {OPT_JSON, "json", 0, NULL, "print data as JSON"},
    {OPT_VALIDATE, "validate", 0, NULL,
     "enable the Vulkan validation layer; any message fails the command "
     "(env AXBENCH_VALIDATE=1)"},
    {OPT_WORKDIR, "workdir", 0, "DIR",
     "where suites write scratch files, such as ingest's generated data "
     "file (env AXBENCH_WORKDIR; default the database's directory)"},
    {OPT_HELP, "help", 'h', NULL, "show this help"},
    {0},
};

void ax_cli_iter_init(struct ax_cli_iter *it, struct ax_app *app,
		      const struct ax_cli_cmd *cmd, int argc, char **argv)
{
	memset(it, 0, sizeof(*it));
	it->app = app;
	it->cmd = cmd;
	it->argc = argc;
	it->argv = argv;
	it->i = 1;
	it->positional = calloc((size_t)argc + 1, sizeof(char *));
}

void ax_cli_iter_release(struct ax_cli_iter *it)
{
	free(it->positional);
	it->positional = NULL;
}

static const struct ax_cli_opt *find_opt(const struct ax_cli_opt *opts,
					 const char *name, char short_name)
{
	for (; opts && opts->id; opts++)
		if (name ? strcmp(opts->name, name) == 0
			 : opts->short_name == short_name)
			return opts;
	return NULL;
}

static int apply_global(struct ax_cli_iter *it, const struct ax_cli_opt *o)
{
	struct ax_app *app = it->app;
	switch (o->id) {
	case OPT_DB:
		app->db_path = it->optarg;
		app->db_chosen = true;
		break;
	case OPT_DEVICE:
		app->device_sel = it->optarg;
		break;
	case OPT_WORKDIR:
		app->workdir = it->optarg;
		break;
	case OPT_QUIET:
		app->verbosity = -1;
		break;
	case OPT_VERBOSE:
		app->verbosity++;
		break;
	case OPT_JSON:
		app->json = true;
		break;
	case OPT_VALIDATE:
		app->validate = true;
		break;
	case OPT_HELP:
		ax_cli_print_help(stdout, it->cmd);
		return -2;
	}
	return 0;
}

/* "; did you mean '--dry-run'?" for a mistyped long option. */
static const char *suggest_option(const struct ax_cli_cmd *cmd,
				  const char *name, char *buf, size_t len)
{
	struct ax_suggest sg;
	char with_dashes[72];
	if (!name)
		return "";
	ax_suggest_init(&sg, name);
	for (const struct ax_cli_opt *o = cmd ? cmd->opts : NULL; o && o->id;
	     o++)
		ax_suggest_add(&sg, o->name);
	for (const struct ax_cli_opt *o = global_opts; o->id; o++)
		ax_suggest_add(&sg, o->name);
	if (!sg.best)
		return "";
	snprintf(with_dashes, sizeof(with_dashes), "--%s", sg.best);
	snprintf(buf, len, "; did you mean '%s'?", with_dashes);
	return buf;
}

/* The option arg names, in the command's table or the global one: name
 * gets a long option's name, *inline_val what follows its '=' (or a
 * short option's letter).  NULL when there is none. */
static const struct ax_cli_opt *lookup_option(const struct ax_cli_iter *it,
					      const char *arg, char *name,
					      size_t name_len,
					      const char **inline_val)
{
	const struct ax_cli_opt *o;
	if (arg[1] == '-') {
		const char *eq = strchr(arg + 2, '=');
		size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
		if (len >= name_len)
			len = name_len - 1;
		memcpy(name, arg + 2, len);
		name[len] = '\0';
		*inline_val = eq ? eq + 1 : NULL;
		o = find_opt(it->cmd ? it->cmd->opts : NULL, name, 0);
		if (!o)
			o = find_opt(global_opts, name, 0);
	} else {
		o = find_opt(it->cmd ? it->cmd->opts : NULL, NULL, arg[1]);
		if (!o)
			o = find_opt(global_opts, NULL, arg[1]);
		*inline_val = arg[2] ? arg + 2 : NULL;
	}
	return o;
}

/* "[FILE]": the value is optional; only --name=VALUE gives one here,
 * and the command decides whether a separate argument is it
 * (ax_cli_take_optional). */
static int take_optional_value(struct ax_cli_iter *it,
			       const struct ax_cli_opt *o,
			       const char *inline_val, const char *who)
{
	it->optarg = NULL;
	snprintf(it->optname, sizeof(it->optname), "--%s", o->name);
	if (inline_val && !*inline_val) {
		fprintf(stderr,
			"%s: option --%s=%s is empty; give a value "
			"(is a shell variable unset?)\n",
			who, o->name, o->arg);
		return -1;
	}
	it->optarg = inline_val;
	return 0;
}

/* The value of option o (none, inline or the next argument). */
static int take_value(struct ax_cli_iter *it, const struct ax_cli_opt *o,
		      const char *arg, const char *inline_val, const char *who)
{
	bool is_long = arg[1] == '-';
	if (!o->arg && inline_val && is_long) {
		fprintf(stderr, "%s: option --%s takes no value\n", who,
			o->name);
		return -1;
	}
	if (!o->arg && inline_val && !is_long) {
		fprintf(stderr, "%s: unknown option '%s'\n", who, arg);
		return -1;
	}
	it->optarg = NULL;
	snprintf(it->optname, sizeof(it->optname), "--%s", o->name);
	if (!o->arg)
		return 0;
	if (!inline_val && it->i >= it->argc) {
		fprintf(stderr, "%s: option --%s needs a value (%s)\n", who,
			o->name, o->arg);
		return -1;
	}
	it->optarg = inline_val ? inline_val : it->argv[it->i++];
	/* An empty value is never meant: --db '' or -o '' from an unset
	 * shell variable would otherwise fall back to a default or fail
	 * later with a puzzling message. */
	if (!*it->optarg) {
		fprintf(stderr,
			"%s: option --%s needs a value (%s), got an empty "
			"string; give one (is a shell variable unset?)\n",
			who, o->name, o->arg);
		return -1;
	}
	return 0;
}

/* Split "--name=value" / "--name value" / "-x value" / "-xvalue". */
static int take_option(struct ax_cli_iter *it, const char *arg,
		       const struct ax_cli_opt **found)
{
	/* "axbench run: ..." inside a command, "axbench: ..." before one. */
	const char *cmdname = it->cmd ? it->cmd->name : "axbench";
	char who[80];
	snprintf(who, sizeof(who), "axbench%s%s", it->cmd ? " " : "",
		 it->cmd ? it->cmd->name : "");
	char name[64];
	const char *inline_val = NULL;
	bool is_long = arg[1] == '-';
	const struct ax_cli_opt *o =
	    lookup_option(it, arg, name, sizeof(name), &inline_val);
	if (!o) {
		char hint[128];
		const char *dym = suggest_option(it->cmd, is_long ? name : NULL,
						 hint, sizeof(hint));
		fprintf(stderr,
			"%s: unknown option '%s'%s%s 'axbench help%s%s'\n", who,
			arg, dym, *dym ? " See" : "; see", it->cmd ? " " : "",
			it->cmd ? cmdname : "");
		return -1;
	}
	bool optional = o->arg && o->arg[0] == '[';
	int rc = optional ? take_optional_value(it, o, inline_val, who)
			  : take_value(it, o, arg, inline_val, who);
	if (rc)
		return rc;
	*found = o;
	return 0;
}

static const struct ax_cli_choice *find_choice(const struct ax_cli_cmd *cmd,
					       int id)
{
	for (const struct ax_cli_choice *c = cmd ? cmd->choices : NULL;
	     c && c->opt_id; c++)
		if (c->opt_id == id)
			return c;
	return NULL;
}

/* A value outside the option's table of names is a usage error that
 * names the allowed ones. */
static int check_choice(const struct ax_cli_iter *it,
			const struct ax_cli_opt *o)
{
	const struct ax_cli_choice *c = find_choice(it->cmd, o->id);
	if (!c)
		return 0;
	const char *const *names = c->names();
	for (int i = 0; names[i]; i++)
		if (strcmp(names[i], it->optarg) == 0)
			return 0;
	char allowed[256], hint[128];
	struct ax_suggest sg;
	ax_suggest_init(&sg, it->optarg);
	for (int i = 0; names[i]; i++)
		ax_suggest_add(&sg, names[i]);
	ax_join_names(names, allowed, sizeof(allowed));
	fprintf(stderr, "axbench %s: --%s must be %s (got '%s')%s\n",
		it->cmd->name, o->name, allowed, it->optarg,
		ax_suggest_text(&sg, hint, sizeof(hint)));
	return -1;
}

int ax_cli_global_arity(const char *arg)
{
	const struct ax_cli_opt *o;
	if (arg[0] != '-' || arg[1] == '\0')
		return -1;
	if (arg[1] == '-') {
		char name[64];
		size_t len = strcspn(arg + 2, "=");
		if (len >= sizeof(name))
			return -1;
		memcpy(name, arg + 2, len);
		name[len] = '\0';
		o = find_opt(global_opts, name, 0);
		return !o ? -1 : o->arg && !arg[2 + len];
	}
	o = find_opt(global_opts, NULL, arg[1]);
	return !o ? -1 : o->arg && !arg[2];
}

int ax_cli_parse_end(const struct ax_cli_iter *it, int last, int min_pos,
		     int max_pos)
{
	if (last == -2)
		return AX_EXIT_OK;
	if (last < 0)
		return AX_EXIT_USAGE;
	int n = it->n_positional;
	if (n >= min_pos && (max_pos < 0 || n <= max_pos))
		return AX_CLI_CONTINUE;
	char want[64];
	if (max_pos == 0)
		snprintf(want, sizeof(want), "no arguments");
	else if (min_pos == max_pos)
		snprintf(want, sizeof(want), "%d argument%s", min_pos,
			 min_pos == 1 ? "" : "s");
	else if (min_pos == 0)
		snprintf(want, sizeof(want), "at most %d argument%s", max_pos,
			 max_pos == 1 ? "" : "s");
	else if (max_pos < 0)
		snprintf(want, sizeof(want), "at least %d argument%s", min_pos,
			 min_pos == 1 ? "" : "s");
	else
		snprintf(want, sizeof(want), "%d to %d arguments", min_pos,
			 max_pos);
	fprintf(stderr, "axbench %s: takes %s (got %d); usage: axbench %s %s\n",
		it->cmd->name, want, n, it->cmd->name,
		it->cmd->usage ? it->cmd->usage : "");
	return AX_EXIT_USAGE;
}

int ax_cli_take_optional(struct ax_cli_iter *it, int max_pos)
{
	if (it->optarg || it->n_positional < max_pos || it->i >= it->argc)
		return 0;
	const char *next = it->argv[it->i];
	if (next[0] == '-' && next[1] != '\0')
		return 0; /* another option */
	if (!*next) {
		fprintf(stderr,
			"axbench %s: option %s got an empty string; give a "
			"value (is a shell variable unset?)\n",
			it->cmd->name, it->optname);
		return -1;
	}
	it->optarg = next;
	it->i++;
	return 0;
}

int ax_cli_next(struct ax_cli_iter *it)
{
	while (it->i < it->argc) {
		const char *arg = it->argv[it->i++];
		if (strcmp(arg, "--") == 0) {
			while (it->i < it->argc)
				it->positional[it->n_positional++] =
				    it->argv[it->i++];
			break;
		}
		if (arg[0] != '-' || arg[1] == '\0') {
			it->positional[it->n_positional++] = (char *)arg;
			continue;
		}
		const struct ax_cli_opt *o;
		if (take_option(it, arg, &o))
			return -1;
		if (o->id >= OPT_DB) {
			int rc = apply_global(it, o);
			if (rc)
				return rc;
			continue;
		}
		if (o->arg && it->optarg && check_choice(it, o))
			return -1;
		return o->id;
	}
	return 0;
}

static void print_opts(FILE *out, const struct ax_cli_cmd *cmd,
		       const struct ax_cli_opt *opts)
{
	for (; opts && opts->id; opts++) {
		const struct ax_cli_choice *c = find_choice(cmd, opts->id);
		char allowed[256] = "";
		if (c)
			ax_join_names(c->names(), allowed, sizeof(allowed));
		char left[64];
		if (opts->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s",
				 opts->short_name, opts->name,
				 opts->arg ? " " : "",
				 opts->arg ? opts->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", opts->name,
				 opts->arg ? " " : "",
				 opts->arg ? opts->arg : "");
		fprintf(out, "  %-26s %s%s%s\n", left, opts->help,
			c ? "; one of " : "", allowed);
	}
}

void ax_cli_print_help(FILE *out, const struct ax_cli_cmd *cmd)
{
	if (!cmd) {
		fprintf(out, "Global options:\n");
		print_opts(out, NULL, global_opts);
		return;
	}
	fprintf(out, "usage: axbench %s %s\n\n%s\n", cmd->name,
		cmd->usage ? cmd->usage : "", cmd->summary);
	if (cmd->details)
		fprintf(out, "\n%s\n", cmd->details);
	if (cmd->subs)
		fprintf(out,
			"\nSubcommands (axbench %s SUB --help: its "
			"options):\n",
			cmd->name);
	for (int i = 0; cmd->subs && cmd->subs[i]; i++)
		fprintf(out, "  %-26s %s\n", cmd->subs[i]->name,
			cmd->subs[i]->summary);
	if (cmd->opts && cmd->opts->id) {
		fprintf(out, "\nOptions:\n");
		print_opts(out, cmd, cmd->opts);
	}
	if (cmd->examples[0])
		fprintf(out, "\nExamples:\n");
	for (int i = 0; i < AX_CLI_MAX_EXAMPLES && cmd->examples[i]; i++)
		fprintf(out, "  %s\n", cmd->examples[i]);
	/* Said once, under `axbench help`: a page per command is its own
	 * options, not twenty lines it shares with every other. */
	char list[512] = "";
	for (const struct ax_cli_opt *o = global_opts; o->id; o++)
		if (strcmp(o->name, "help"))
			snprintf(list + strlen(list),
				 sizeof(list) - strlen(list), "%s--%s",
				 list[0] ? ", " : "", o->name);
	/* wrapped for an 80-column terminal, after a comma */
	int col = fprintf(out, "\nGlobal options and exit codes: `axbench "
			       "help` (") -
		  1;
	for (char *tok = strtok(list, " "); tok; tok = strtok(NULL, " ")) {
		int w = (int)strlen(tok) + 1;
		if (col + w > 78) {
			fputc('\n', out);
			col = 0;
		} else if (tok != list) {
			fputc(' ', out);
			col++;
		}
		col += fprintf(out, "%s", tok);
	}
	fprintf(out, ")\n");
}

int ax_cli_parse_int(const struct ax_cli_iter *it, long long min, long long max,
		     long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(it->optarg, &end, 10);
	if (errno || end == it->optarg || *end || v < min || v > max) {
		fprintf(stderr,
			"axbench %s: %s must be an integer from %lld to %lld "
			"(got '%s')\n",
			it->cmd->name, it->optname, min, max, it->optarg);
		return -1;
	}
	*out = v;
	return 0;
}

int ax_cli_parse_double(const struct ax_cli_iter *it, double min, double max,
			double *out)
{
	char *end;
	errno = 0;
	double v = strtod(it->optarg, &end);
	if (errno || end == it->optarg || *end || !isfinite(v) || v < min ||
	    v > max) {
		fprintf(stderr,
			"axbench %s: %s must be a number from %g to %g "
			"(got '%s')\n",
			it->cmd->name, it->optname, min, max, it->optarg);
		return -1;
	}
	*out = v;
	return 0;
}
int ax_cli_term_width(FILE *f) { return ax_text_columns(fileno(f)); }
