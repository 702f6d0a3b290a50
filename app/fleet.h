/*
 * app/fleet.h - `axbench fleet`: the batch scripts that run one benchmark
 * per node or GPU of a cluster, each into its own SQLite database, and the
 * job that merges those databases and writes the report.
 *
 * app/fleet_script.c writes the scripts' text from a struct ax_fleet (no
 * I/O beyond the stream it is given); cli/cmd_fleet.c checks the options,
 * writes the files and submits them with sbatch.
 */
#ifndef AX_FLEET_H
#define AX_FLEET_H

#include <stdbool.h>
#include <stdio.h>

/* What the scripts need; every path absolute. */
struct ax_fleet {
	int tasks;	       /* array tasks: 0 .. tasks - 1 */
	const char *dir;       /* shared directory: db/, log/, merged.db */
	const char *axbench;   /* the binary the tasks run */
	const char *profile;   /* a shipped profile's name, or NULL */
	const char *config;    /* a profile file, or NULL */
	const char *partition; /* NULL: the cluster's default */
	long time_min;	       /* each job's time limit in minutes */
	bool gpus;	       /* one GPU per task (else a node per task) */
};

/* The file names inside dir. */
#define AX_FLEET_ARRAY "axbench-array.sbatch"
#define AX_FLEET_MERGE "axbench-merge.sbatch"
#define AX_FLEET_MERGED "merged.db"
#define AX_FLEET_REPORT "report.html"

/* The array job's script (one benchmark per task) to out. */
void ax_fleet_array_script(FILE *out, const struct ax_fleet *f);

/* The merge job's script (db merge, then report) to out. */
void ax_fleet_merge_script(FILE *out, const struct ax_fleet *f);

/* s as one shell word: in single quotes, each ' written '\''.  Text
 * with a control character (a newline would end a line of the script
 * and a comment) must be refused before: see ax_fleet_plain. */
void ax_fleet_quote(FILE *out, const char *s);

/* Whether s holds no control character, so that it may stand in a
 * script (quoted) and in a message. */
bool ax_fleet_plain(const char *s);

#endif
