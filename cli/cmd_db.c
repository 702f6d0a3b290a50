/*
 * cli/cmd_db.c - `axbench db SUB ...`: keeping the database itself (info,
 * check, merge, prune).  Each subcommand is a command of its
 * own (struct ax_cli_cmd named "db SUB", with its options, help and
 * examples) in cli/cmd_db_SUB.c; adding one is its file and a line in
 * db_subs[] below.  This file only finds the subcommand's word and hands
 * it the command line (cli/subcmd.c).
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

static int db_main(struct ax_app *app, int argc, char **argv)
{
	return ax_cli_run_subs(app, &ax_cmd_db, argc, argv);
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
