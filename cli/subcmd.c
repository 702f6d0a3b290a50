/*
 * cli/subcmd.c - commands made of subcommands (`db prune`, `kernel run`):
 * find the subcommand's word, hand it the command line, and say what
 * the subcommands are when the word is missing or unknown.
 */
#include "cli/cli.h"
#include "core/suggest.h"
#include "core/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "prune" of "db prune". */
static const char *sub_word(const struct ax_cli_cmd *sub)
{
	const char *sp = strchr(sub->name, ' ');
	return sp ? sp + 1 : sub->name;
}

/* Index in argv of the subcommand's word: the first argument that is
 * neither a global option nor its value; 0 when there is none (or an
 * option of another kind comes first, which the parent's own parse
 * refuses). */
static int find_word(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		int arity = ax_cli_global_arity(argv[i]);
		if (arity < 0)
			return argv[i][0] == '-' && argv[i][1] ? 0 : i;
		i += arity;
	}
	return 0;
}

static int no_sub(struct ax_app *app, const struct ax_cli_cmd *parent,
		  const char *word)
{
	struct ax_suggest sg;
	char hint[128], names[256] = "";
	ax_suggest_init(&sg, word);
	for (int i = 0; parent->subs[i]; i++) {
		const char *w = sub_word(parent->subs[i]);
		ax_suggest_add(&sg, w);
		snprintf(names + strlen(names), sizeof(names) - strlen(names),
			 "%s%s", i ? ", " : "", w);
	}
	const char *dym = ax_suggest_text(&sg, hint, sizeof(hint));
	return ax_app_error(app, AX_EXIT_USAGE,
			    "%s: no subcommand '%s'%s%s subcommands are: %s "
			    "(`axbench help %s`)",
			    parent->name, word, dym, *dym ? " The" : "; the",
			    names, parent->name);
}

/* Run sub with its word moved to argv[0], every other argument (global
 * options before the word too) in order after it. */
static int run_sub(struct ax_app *app, const struct ax_cli_cmd *sub, int argc,
		   char **argv, int at)
{
	char **v = calloc((size_t)argc + 1, sizeof(*v));
	if (!v)
		return ax_app_error(app, AX_EXIT_FAIL, "%s: out of memory",
				    sub->name);
	int n = 0;
	v[n++] = argv[at];
	for (int i = 1; i < argc; i++)
		if (i != at)
			v[n++] = argv[i];
	/* The subcommand's needs are its own (`db prune` writes, `db
	 * info` only reads); the dispatcher releases them. */
	app->needs = sub->needs;
	int rc = sub->fn(app, n, v);
	free(v);
	return rc;
}

int ax_cli_run_subs(struct ax_app *app, const struct ax_cli_cmd *parent,
		    int argc, char **argv)
{
	int at = find_word(argc, argv);
	for (int i = 0; at && parent->subs[i]; i++)
		if (strcmp(sub_word(parent->subs[i]), argv[at]) == 0)
			return run_sub(app, parent->subs[i], argc, argv, at);
	if (at)
		return no_sub(app, parent, argv[at]);
	/* No word: --help, a global option alone, or a bad option. */
	struct ax_cli_iter it;
	ax_cli_iter_init(&it, app, parent, argc, argv);
	int opt;
	while ((opt = ax_cli_next(&it)) > 0)
		;
	int rc = ax_cli_parse_end(&it, opt, 0, 0);
	ax_cli_iter_release(&it);
	if (rc == AX_CLI_CONTINUE)
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "%s: give a subcommand, such as `axbench "
				  "%s`; `axbench help %s` lists them",
				  parent->name, parent->subs[0]->name,
				  parent->name);
	return rc;
}

int ax_cli_help_sub(const struct ax_cli_cmd *parent, const char *word)
{
	struct ax_suggest sg;
	char hint[128], names[256] = "";
	ax_suggest_init(&sg, word);
	for (int i = 0; parent->subs[i]; i++) {
		const char *w = sub_word(parent->subs[i]);
		if (strcmp(w, word) == 0) {
			ax_cli_print_help(stdout, parent->subs[i]);
			return AX_EXIT_OK;
		}
		ax_suggest_add(&sg, w);
		snprintf(names + strlen(names), sizeof(names) - strlen(names),
			 "%s%s", i ? ", " : "", w);
	}
	fprintf(stderr,
		"axbench: help: %s has no subcommand '%s'%s; its subcommands "
		"are: %s\n",
		parent->name, ax_term(word),
		ax_suggest_text(&sg, hint, sizeof(hint)), names);
	return AX_EXIT_USAGE;
}
