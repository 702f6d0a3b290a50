/* cli/cmd_baseline.c - `axbench baseline save NAME [--run ID]` and
 * `axbench baseline list`: named runs for `compare baseline:NAME`. */
#include "cli/cli.h"

#include "core/db.h"
#include "core/error.h"
#include "core/text.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_RUN = 1 };

static const struct ax_cli_opt baseline_opts[] = {
    {OPT_RUN, "run", 'r', "ID|last",
     "the run to name (save only; default: last)"},
    {0},
};

extern const struct ax_cli_cmd ax_cmd_baseline;

/* Names go into "baseline:NAME" specs and file names in CI scripts, so
 * they stay to a safe alphabet. */
static bool valid_name(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-", *s))
			return false;
	return true;
}

static int save(struct ax_cli *cli, const char *name, const char *run)
{
	if (!valid_name(name))
		return ax_cli_error(cli, AX_EXIT_USAGE,
				    "baseline save: name '%s' must be 1-64 "
				    "letters, digits, '.', '_' or '-'",
				    name);
	struct ax_db *db;
	int64_t id = 0;
	/* Read-only first, so a mistyped --db path is not created. */
	int rc = ax_cli_open_db(cli, true, &db);
	if (rc)
		return rc;
	ax_db_close(db);
	if ((rc = ax_cli_open_db(cli, false, &db)))
		return rc;
	rc = ax_cli_resolve_run(cli, db, "baseline save", run ? run : "last",
				&id);
	/* The run was resolved above, so what fails here is storage (a
	 * locked or full database): exit as its cause says, not 2. */
	int err = rc == 0 ? ax_db_baseline_save(db, name, id) : 0;
	if (err)
		rc = ax_cli_error(cli, ax_cli_exit_code(err),
				  "baseline save: %s", ax_db_errmsg(db));
	if (rc == 0 && cli->verbosity >= 0)
		printf("baseline %s = run %lld\n", name, (long long)id);
	ax_db_close(db);
	return rc;
}

static int list(struct ax_cli *cli)
{
	struct ax_db *db;
	json_t *b = NULL;
	int rc = ax_cli_open_db(cli, true, &db);
	if (rc)
		return rc;
	if (ax_db_baselines(db, &b)) {
		fprintf(stderr, "axbench: baseline list: %s\n",
			ax_db_errmsg(db));
		ax_db_close(db);
		return AX_EXIT_STORAGE;
	}
	size_t i;
	json_t *o;
	if (cli->json) {
		json_dumpf(b, stdout, JSON_INDENT(2));
		putchar('\n');
	} else {
		printf("%-24s %8s  %s\n", "NAME", "RUN", "CREATED");
		json_array_foreach(b, i, o) printf(
		    "%-24s %8lld  %s\n",
		    ax_term(json_string_value(json_object_get(o, "name"))),
		    (long long)json_integer_value(json_object_get(o, "run_id")),
		    ax_term(
			json_string_value(json_object_get(o, "created_at"))));
		if (json_array_size(b) == 0)
			printf("(no baselines; save one with `axbench "
			       "baseline save NAME`)\n");
	}
	json_decref(b);
	ax_db_close(db);
	return 0;
}

/* baseline save NAME [--run ID] | baseline list */
static int dispatch(struct ax_cli *cli, char **pos, int n, const char *run)
{
	if (n == 2 && strcmp(pos[0], "save") == 0)
		return save(cli, pos[1], run);
	if (n == 1 && strcmp(pos[0], "list") == 0 && !run)
		return list(cli);
	return ax_cli_error(cli, AX_EXIT_USAGE,
			    "baseline: use 'baseline save NAME [--run ID]' or "
			    "'baseline list'");
}

static int baseline_main(struct ax_cli *cli, int argc, char **argv)
{
	struct ax_cli_iter it;
	const char *run = NULL;
	int opt;
	ax_cli_iter_init(&it, cli, &ax_cmd_baseline, argc, argv);
	while ((opt = ax_cli_next(&it)) > 0)
		if (opt == OPT_RUN)
			run = it.optarg;
	char **pos = it.positional;
	int n = it.n_positional;
	int rc = ax_cli_parse_end(&it, opt, 1, 2);
	if (rc == AX_CLI_CONTINUE)
		rc = dispatch(cli, pos, n, run);
	ax_cli_iter_release(&it);
	return rc;
}

const struct ax_cli_cmd ax_cmd_baseline = {
    .name = "baseline",
    .summary = "name a run as a baseline, or list baselines",
    .usage = "save NAME [--run ID|last] | list",
    .details = "A baseline names a run so that CI can compare against it "
	       "with `axbench\n"
	       "compare baseline:NAME last`. Saving a name again moves it "
	       "to the new run.\n"
	       "NAME is 1-64 letters, digits, '.', '_' or '-'.",
    .examples = {"axbench baseline save main --run last   # name the newest "
		 "run \"main\"",
		 "axbench baseline list                   # every baseline and "
		 "its run"},
    .opts = baseline_opts,
    .fn = baseline_main,
};
