/*
 * cli/cmd_db.c - `axbench db SUB ...`: keeping the database itself (info,
 * check, merge, prune).  Each subcommand is a command of its
 * own (struct ax_cli_cmd named "db SUB", with its options, help and
 * examples) in cli/cmd_db_SUB.c; adding one is its file and a line in
 * db_subs[] below.  This file only finds the subcommand's word and hands
 * it the command line.
 */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

extern const struct ax_cli_cmd ax_cmd_db_prune;
extern const struct ax_cli_cmd ax_cmd_db_merge;
extern const struct ax_cli_cmd ax_cmd_db_info;
extern const struct ax_cli_cmd ax_cmd_db_check;

/* The subcommands, in the order `help db` lists them. */
static const struct ax_cli_cmd *const db_subs[] = {
    &ax_cmd_db_info, &ax_cmd_db_check, &ax_cmd_db_merge, &ax_cmd_db_prune, NULL,
};

static const struct ax_cli_opt db_opts[] = {{0}};

extern const struct ax_cli_cmd ax_cmd_db;

/* "prune" of "db prune". */
static const char *sub_word(const struct ax_cli_cmd *sub)
{
	const char *sp = strchr(sub->name, ' ');
	return sp ? sp + 1 : sub->name;
}

/* Index in argv of the subcommand's word: the first argument that is
 * neither a global option nor its value; 0 when there is none (or an
 * option of another kind comes first, which db's own parse refuses). */
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

static int no_sub(struct ax_cli *cli, const char *word)
{
	struct ax_cli_suggest sg;
	char hint[128], names[256] = "";
	ax_cli_suggest_init(&sg, word);
	for (int i = 0; db_subs[i]; i++) {
		ax_cli_suggest_add(&sg, sub_word(db_subs[i]));
		snprintf(names + strlen(names), sizeof(names) - strlen(names),
			 "%s%s", i ? ", " : "", sub_word(db_subs[i]));
	}
	const char *dym = ax_cli_suggest_text(&sg, hint, sizeof(hint));
	return ax_cli_error(cli, AX_EXIT_USAGE,
			    "db: no subcommand '%s'%s%s subcommands are: %s "
			    "(`axbench help db`)",
			    word, dym, *dym ? " The" : "; the", names);
}

/* Run sub with its word moved to argv[0], every other argument (global
 * options before the word too) in order after it. */
static int run_sub(struct ax_cli *cli, const struct ax_cli_cmd *sub, int argc,
		   char **argv, int at)
{
	char **v = calloc((size_t)argc + 1, sizeof(*v));
	if (!v)
		return ax_cli_error(cli, AX_EXIT_FAIL, "db: out of memory");
	int n = 0;
	v[n++] = argv[at];
	for (int i = 1; i < argc; i++)
		if (i != at)
			v[n++] = argv[i];
	int rc = sub->fn(cli, n, v);
	free(v);
	return rc;
}

static int db_main(struct ax_cli *cli, int argc, char **argv)
{
	int at = find_word(argc, argv);
	for (int i = 0; at && db_subs[i]; i++)
		if (strcmp(sub_word(db_subs[i]), argv[at]) == 0)
			return run_sub(cli, db_subs[i], argc, argv, at);
	if (at)
		return no_sub(cli, argv[at]);
	/* No word: --help, a global option alone, or a bad option. */
	struct ax_cli_iter it;
	ax_cli_iter_init(&it, cli, &ax_cmd_db, argc, argv);
	int opt;
	while ((opt = ax_cli_next(&it)) > 0)
		;
	int rc = ax_cli_parse_end(&it, opt, 0, 0);
	ax_cli_iter_release(&it);
	if (rc == AX_CLI_CONTINUE)
		rc = ax_cli_error(cli, AX_EXIT_USAGE,
				  "db: give a subcommand, such as `axbench db "
				  "prune`; `axbench help db` lists them");
	return rc;
}

const struct ax_cli_cmd ax_cmd_db = {
    .name = "db",
    .summary = "keep the database: info, check, merge, prune",
    .usage = "SUB [options]",
    .details = "Work on the database file itself rather than on measurements. "
	       "Each subcommand\n"
	       "has its own options: `axbench db SUB --help`.",
    .examples = {"axbench db info                  # counts, size, hosts, "
		 "devices",
		 "axbench db merge fleet.db nodes/*.db   # many machines into "
		 "one",
		 "axbench db prune                 # what the retention "
		 "policy would remove",
		 "axbench db prune --yes           # remove it and shrink the "
		 "file"},
    .opts = db_opts,
    .subs = db_subs,
    .fn = db_main,
};
