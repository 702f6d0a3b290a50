/*
 * app/fleet_script.c - the text of the Slurm scripts `axbench fleet slurm`
 * writes (configs/slurm/ holds an example of each).
 *
 * Paths appear only in the shell body, each as one single-quoted word, and
 * never in an #SBATCH line: Slurm reads those lines with rules of its own,
 * so the directory is given to sbatch as --chdir (an argument, not script
 * text) and the logs are named relative to it.
 */
#include "app/fleet.h"

#include <ctype.h>

bool ax_fleet_plain(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (iscntrl(*p))
			return false;
	return true;
}

void ax_fleet_quote(FILE *out, const char *s)
{
	fputc('\'', out);
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", out);
		else
			fputc(*p, out);
	}
	fputc('\'', out);
}

/* NAME='value' on a line of its own. */
static void assign(FILE *out, const char *name, const char *value)
{
	fprintf(out, "%s=", name);
	ax_fleet_quote(out, value);
	fputc('\n', out);
}

/* The #SBATCH lines both jobs share. */
static void common_directives(FILE *out, const struct ax_fleet *f)
{
	fprintf(out, "#SBATCH --ntasks=1\n#SBATCH --time=%ld\n", f->time_min);
	if (f->partition)
		fprintf(out, "#SBATCH --partition=%s\n", f->partition);
}

/* What the task's node or GPU is, and why. */
static void placement_directives(FILE *out, const struct ax_fleet *f)
{
	if (f->gpus) {
		fputs("# One GPU per task, and the task's CPUs on the GPU's "
		      "side of the machine.\n"
		      "#SBATCH --gpus-per-task=1\n"
		      "#SBATCH --gpu-bind=closest\n",
		      out);
		return;
	}
	fputs("# No GPU is scheduled here (a GPU-less partition refuses GPU "
	      "requests): the\n# device is the node itself (lavapipe, or a "
	      "GPU Slurm does not manage), so\n# each task has its node to "
	      "itself and tasks on one node run one at a time.\n"
	      "#SBATCH --exclusive\n",
	      out);
}

static void array_header(FILE *out, const struct ax_fleet *f)
{
	fputs("#!/bin/bash\n"
	      "# axbench fleet: one benchmark per array task, each into its "
	      "own SQLite\n# database under $DIR/db; axbench-merge.sbatch "
	      "merges them once every task\n# succeeded.  Written by "
	      "`axbench fleet slurm`, which submits it as\n"
	      "#   sbatch --parsable --chdir=DIR DIR/" AX_FLEET_ARRAY "\n"
	      "# (DIR on a file system every node shares; DIR/log must "
	      "exist).\n#SBATCH --job-name=axbench\n",
	      out);
	fprintf(out, "#SBATCH --array=0-%d\n", f->tasks - 1);
	common_directives(out, f);
	fputs("#SBATCH --output=log/axbench-%A_%a.out\n", out);
	placement_directives(out, f);
	fputs("set -eu\n", out);
	assign(out, "AX", f->axbench);
	assign(out, "DIR", f->dir);
	fputs("PROFILE=(", out);
	fputs(f->config ? "--config " : "--profile ", out);
	ax_fleet_quote(out, f->config ? f->config : f->profile);
	fputs(")\n", out);
}

void ax_fleet_array_script(FILE *out, const struct ax_fleet *f)
{
	array_header(out, f);
	fputs("\ndb=\"$DIR/db/${HOSTNAME}-${SLURM_ARRAY_TASK_ID}.db\"\n"
	      "mkdir -p \"$DIR/db\"\n\n"
	      "# Placement as `axbench recommend` makes it: the CPUs hwloc "
	      "finds local to\n# the device, among those Slurm gave this "
	      "task.  Where the device's locality\n# is unknown (no PCI bus "
	      "id, as on lavapipe; a VM that states none) it\n# prints "
	      "nothing and says why in the log, and the task runs on the "
	      "CPUs\n# Slurm gave it, unbound.\n"
	      "cpus=$(\"$AX\" fleet cpuset) || cpus=\n"
	      "bind=()\n"
	      "if [ -n \"$cpus\" ]; then\n"
	      "\tbind=(taskset -c \"$cpus\")\n"
	      "fi\n\n"
	      "status=0\n"
	      "\"${bind[@]}\" \"$AX\" --db \"$db\" run \"${PROFILE[@]}\" || "
	      "status=$?\n"
	      "# Exit 1 is a result that failed verification: it is stored "
	      "and the report\n# shows it, so the merge still runs.  Any "
	      "other failure fails the task, and\n# with it the merge's "
	      "afterok dependency.\n"
	      "if [ \"$status\" -eq 1 ]; then\n"
	      "\techo \"axbench fleet: a result failed verification in $db; "
	      "it is stored\" >&2\n"
	      "\tstatus=0\n"
	      "fi\n"
	      "exit \"$status\"\n",
	      out);
}

void ax_fleet_merge_script(FILE *out, const struct ax_fleet *f)
{
	fputs("#!/bin/bash\n"
	      "# axbench fleet: merges every task's database into one and "
	      "writes the report.\n# Submitted after the array job as\n"
	      "#   sbatch --parsable --chdir=DIR --dependency=afterok:ARRAY_JOB"
	      "\n#          --kill-on-invalid-dep=yes DIR/" AX_FLEET_MERGE "\n"
	      "# so it runs once every task succeeded, and is cancelled "
	      "(not left pending)\n# when one failed.\n"
	      "#SBATCH --job-name=axbench-merge\n",
	      out);
	common_directives(out, f);
	fputs("#SBATCH --output=log/axbench-merge-%j.out\n"
	      "set -eu\n",
	      out);
	assign(out, "AX", f->axbench);
	assign(out, "DIR", f->dir);
	fputs(
	    "\nshopt -s nullglob\n"
	    "dbs=(\"$DIR\"/db/*.db)\n"
	    "if [ \"${#dbs[@]}\" -eq 0 ]; then\n"
	    "\techo \"axbench fleet: no task database in $DIR/db; see the "
	    "tasks' logs in $DIR/log\" >&2\n"
	    "\texit 2\n"
	    "fi\n"
	    "# The merge copies runs by UUID, so merging again (a resubmitted "
	    "job) adds\n# nothing twice.\n"
	    "\"$AX\" db merge \"$DIR/" AX_FLEET_MERGED "\" \"${dbs[@]}\"\n"
	    "\"$AX\" --db \"$DIR/" AX_FLEET_MERGED
	    "\" report -o \"$DIR/" AX_FLEET_REPORT "\"\n",
	    out);
}
