/*
 * cli/cmd_fleet.c - `axbench fleet slurm`: benchmark every node or GPU of
 * a Slurm cluster, one array task each into its own database, then merge
 * them and write one report; and `axbench fleet cpuset`, which a task
 * runs first to bind itself to its device's CPUs.
 *
 * Each task writes a database of its own because SQLite over a shared
 * file system is not safe for concurrent writers (NFS locks), and the
 * UUID-keyed `axbench db merge` makes one database of them afterwards.
 */
#include "app/fleet.h"
#include "app/run_plan.h"
#include "cli/cli.h"

#include "core/child.h"
#include "core/error.h"
#include "core/interrupt.h"
#include "core/outfile.h"
#include "core/text.h"
#include "core/topo.h"
#include "core/vk.h"

#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum {
	OPT_NODES = 1,
	OPT_PROFILE,
	OPT_DIR,
	OPT_PARTITION,
	OPT_TIME,
	OPT_AXBENCH,
	OPT_GPUS,
	OPT_DRY_RUN,
};

static const struct ax_cli_opt fleet_opts[] = {
    {OPT_NODES, "nodes", 'N', "N",
     "array tasks: one per node, or per GPU with --gpus (required)"},
    {OPT_PROFILE, "profile", 0, "NAME|FILE",
     "what each task runs: a shipped profile (quick, full, ci) or a YAML "
     "profile file (required)"},
    {OPT_DIR, "dir", 0, "DIR",
     "shared directory every node can write: the scripts, db/, log/, "
     "merged.db, report.html (required)"},
    {OPT_PARTITION, "partition", 'p', "NAME",
     "Slurm partition (default: the cluster's default)"},
    {OPT_TIME, "time", 't', "MIN", "time limit of each job (default 30)"},
    {OPT_AXBENCH, "axbench", 0, "PATH",
     "the axbench the tasks run, on the file system the nodes share "
     "(default: this one)"},
    {OPT_GPUS, "gpus", 0, "WHEN",
     "one GPU per task (--gpus-per-task=1 --gpu-bind=closest): yes, no, "
     "or auto: when sinfo shows GPU gres (default auto)"},
    {OPT_DRY_RUN, "dry-run", 'n', NULL,
     "print the scripts and the sbatch commands; write and submit "
     "nothing"},
    {0},
};

static const char *const *gpus_names(void)
{
	static const char *const names[] = {"auto", "yes", "no", NULL};
	return names;
}

static const struct ax_cli_choice fleet_choices[] = {
    {OPT_GPUS, gpus_names},
    {0},
};

extern const struct ax_cli_cmd ax_cmd_fleet;

struct fleet_args {
	const char *sub; /* "slurm" or "cpuset" */
	long long nodes, time_min;
	const char *profile, *dir, *partition, *axbench, *gpus;
	bool dry_run;
	int n_slurm_opts; /* options only slurm takes */
	char dir_buf[PATH_MAX], ax_buf[PATH_MAX], config_buf[PATH_MAX];
};

/* ---- running a tool ---------------------------------------------------- */

/* The file PATH names for name, into buf; false when there is none. */
static bool find_in_path(const char *name, char *buf, size_t len)
{
	const char *path = getenv("PATH");
	while (path && *path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		snprintf(buf, len, "%.*s/%s", (int)n, n ? path : ".", name);
		struct stat st;
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(buf, X_OK) == 0)
			return true;
		path = colon ? colon + 1 : NULL;
	}
	return false;
}

/* The whole of f (rewound) as a malloc'd string with its trailing
 * newlines cut; "" when empty or out of memory. */
static char *slurp(FILE *f)
{
	size_t cap = 256, n = 0;
	char *s = malloc(cap);
	rewind(f);
	int c;
	while (s && (c = fgetc(f)) != EOF) {
		if (n + 1 >= cap) {
			char *t = realloc(s, cap *= 2);
			if (!t)
				break;
			s = t;
		}
		s[n++] = (char)c;
	}
	if (!s)
		return strdup("");
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	s[n] = '\0';
	return s;
}

struct tool_result {
	int status; /* exit status; 128 + signal; -1 when not started */
	char *out, *err;
};

/* Run argv[0] (found in PATH as path) with its output captured in
 * temporary files, so that neither stream can fill a pipe and stall it.
 * No shell: the arguments are passed as they are. */
static int run_tool(const char *path, char *const argv[], struct tool_result *r)
{
	FILE *out = tmpfile(), *err = tmpfile();
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int rc = -1;
	r->status = -1;
	r->out = r->err = NULL;
	if (!out || !err || posix_spawn_file_actions_init(&fa) != 0)
		goto done;
	posix_spawn_file_actions_adddup2(&fa, fileno(out), STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, fileno(err), STDERR_FILENO);
	rc = posix_spawn(&pid, path, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		errno = rc;
		rc = -1;
		goto done;
	}
	/* A short tool (sbatch, sinfo) in our process group: a signal to
	 * fleet alone is forwarded to it, and it is never left running. */
	struct ax_child c;
	ax_child_init(&c, pid, false, &ax_interrupted);
	int ws;
	if (ax_child_wait(&c, &ws) < 0) {
		rc = -1;
		goto done;
	}
	r->status = ax_child_exit_code(ws);
	r->out = slurp(out);
	r->err = slurp(err);
	rc = 0;
done:
	if (out)
		fclose(out);
	if (err)
		fclose(err);
	return rc;
}

static void tool_release(struct tool_result *r)
{
	free(r->out);
	free(r->err);
}

/* ---- checking the options ---------------------------------------------- */

/* A path as the scripts will hold it: a control character (a newline
 * would end a line of the script) is refused. */
static int check_plain(const struct ax_app *app, const char *opt,
		       const char *value)
{
	if (ax_fleet_plain(value))
		return 0;
	return ax_app_error(app, AX_EXIT_USAGE,
			    "fleet slurm: %s '%s' holds a control character "
			    "(a newline, a tab...), which cannot stand in a "
			    "batch script; choose a path without one",
			    opt, ax_term(value));
}

/* p made absolute against the working directory, into buf. */
static int absolute(const struct ax_app *app, const char *opt, const char *p,
		    char *buf, size_t len)
{
	char cwd[PATH_MAX];
	if (p[0] == '/') {
		snprintf(buf, len, "%s", p);
		return 0;
	}
	if (!getcwd(cwd, sizeof(cwd)))
		return ax_app_error(app, AX_EXIT_STORAGE,
				    "fleet slurm: %s %s: cannot read the "
				    "working directory (%s); give an absolute "
				    "path",
				    opt, ax_term(p), strerror(errno));
	if ((size_t)snprintf(buf, len, "%s/%s", cwd, p) >= len)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "fleet slurm: %s %s: the path is too long",
				    opt, ax_term(p));
	return 0;
}

/* Parse and check the profile at path as `run` will, so that a file that
 * is no profile (/etc/passwd) or breaks a rule is refused here, with its
 * FILE:LINE:COL, before a script is written or a job submitted: every
 * task of the array would fail on it. */
static int check_profile(const struct ax_app *app, const char *path)
{
	char err[1024];
	if (ax_plan_profile_check(path, err, sizeof(err)))
		return ax_app_error(app, AX_EXIT_USAGE,
				    "fleet slurm: --profile: %s; nothing was "
				    "written or submitted",
				    err);
	return 0;
}

/* The profile as `run` takes it: a shipped profile's name, or a file
 * (anything with a '/' or a .yaml/.yml ending), made absolute so that
 * the tasks find it from any directory. */
static int resolve_profile(const struct ax_app *app, struct fleet_args *a,
			   struct ax_fleet *f)
{
	const char *p = a->profile;
	size_t n = strlen(p);
	bool file = strchr(p, '/') ||
		    (n > 5 && strcmp(p + n - 5, ".yaml") == 0) ||
		    (n > 4 && strcmp(p + n - 4, ".yml") == 0);
	if (file) {
		if (!realpath(p, a->config_buf) ||
		    access(a->config_buf, R_OK) != 0)
			return ax_app_error(
			    app, AX_EXIT_USAGE,
			    "fleet slurm: --profile %s: cannot read the "
			    "profile file (%s); give a YAML profile (as `run "
			    "--config` takes) or a shipped profile's name",
			    ax_term(p), strerror(errno));
		f->config = a->config_buf;
		int rc = check_plain(app, "--profile", f->config);
		return rc ? rc : check_profile(app, f->config);
	}
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s.yaml", ax_app_config_dir(), p);
	if (strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789_-") != n ||
	    access(path, R_OK) != 0)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "fleet slurm: no profile '%s' (%s not "
				    "readable); shipped profiles: quick, "
				    "full, ci; or give a YAML profile file",
				    ax_term(p), ax_term(path));
	f->profile = p;
	return check_profile(app, path);
}

static int resolve_axbench(const struct ax_app *app, struct fleet_args *a,
			   struct ax_fleet *f)
{
	int rc;
	if (!a->axbench) {
		ssize_t n = readlink("/proc/self/exe", a->ax_buf,
				     sizeof(a->ax_buf) - 1);
		if (n <= 0)
			return ax_app_error(
			    app, AX_EXIT_USAGE,
			    "fleet slurm: cannot find this program's path "
			    "(/proc/self/exe: %s); give --axbench PATH",
			    strerror(errno));
		a->ax_buf[n] = '\0';
	} else if ((rc = absolute(app, "--axbench", a->axbench, a->ax_buf,
				  sizeof(a->ax_buf)))) {
		return rc;
	}
	if (access(a->ax_buf, X_OK) != 0)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "fleet slurm: --axbench %s: not an "
				    "executable file (%s); give the path of "
				    "axbench on the file system the nodes "
				    "share",
				    ax_term(a->ax_buf), strerror(errno));
	f->axbench = a->ax_buf;
	return check_plain(app, "--axbench", f->axbench);
}

/* mkdir that accepts a directory already there. */
static int make_dir(const struct ax_app *app, const char *path)
{
	if (mkdir(path, 0777) == 0 || errno == EEXIST)
		return 0;
	return ax_app_error(app, AX_EXIT_STORAGE,
			    "fleet slurm: cannot create the directory %s: %s; "
			    "give a --dir on a shared file system you may "
			    "write",
			    ax_term(path), strerror(errno));
}

/* --dir made absolute; created with db/ and log/ unless dry_run (the
 * logs' directory must exist before Slurm opens them). */
static int resolve_dir(const struct ax_app *app, struct fleet_args *a,
		       struct ax_fleet *f)
{
	char sub[PATH_MAX + 8], real[PATH_MAX];
	int rc = check_plain(app, "--dir", a->dir);
	if (!rc)
		rc = absolute(app, "--dir", a->dir, a->dir_buf,
			      sizeof(a->dir_buf));
	if (!rc && !a->dry_run) {
		rc = make_dir(app, a->dir_buf);
		/* Symbolic links resolved: the path every node opens. */
		if (!rc && !realpath(a->dir_buf, real))
			rc = ax_app_error(app, AX_EXIT_STORAGE,
					  "fleet slurm: --dir %s: %s",
					  ax_term(a->dir), strerror(errno));
		if (!rc)
			memcpy(a->dir_buf, real, sizeof(real));
		snprintf(sub, sizeof(sub), "%s/db", a->dir_buf);
		if (!rc)
			rc = make_dir(app, sub);
		snprintf(sub, sizeof(sub), "%s/log", a->dir_buf);
		if (!rc)
			rc = make_dir(app, sub);
	}
	f->dir = a->dir_buf;
	return rc;
}

/* --gpus auto: whether sinfo lists GPU gres (in the partition). */
static bool detect_gpus(const char *partition)
{
	char path[PATH_MAX], part[256];
	if (!find_in_path("sinfo", path, sizeof(path))) {
		fprintf(stderr, "axbench fleet slurm: sinfo is not in PATH, so "
				"no GPU is requested; --gpus yes requests "
				"them\n");
		return false;
	}
	snprintf(part, sizeof(part), "--partition=%s",
		 partition ? partition : "");
	char *argv[] = {"sinfo", "--noheader", "--format=%G",
			partition ? part : NULL, NULL};
	struct tool_result r;
	bool gpus = run_tool(path, argv, &r) == 0 && r.status == 0 &&
		    strstr(r.out, "gpu") != NULL;
	tool_release(&r);
	return gpus;
}

/* ---- writing and submitting -------------------------------------------- */

typedef void (*script_fn)(FILE *, const struct ax_fleet *);

static int write_script(const struct ax_app *app, const struct ax_fleet *f,
			const char *name, script_fn fn)
{
	char path[PATH_MAX + 64], err[512];
	struct ax_outfile o;
	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	if (ax_outfile_open(&o, path, err, sizeof(err)))
		return ax_app_error(app, AX_EXIT_STORAGE, "fleet slurm: %s",
				    err);
	fn(o.f, f);
	if (ax_outfile_commit(&o, err, sizeof(err)))
		return ax_app_error(app, AX_EXIT_STORAGE, "fleet slurm: %s",
				    err);
	return 0;
}

/* s with its line breaks as "; ", so that a tool's multi-line message
 * reads as one line of an error (new string; NULL without memory). */
static char *lines_joined(const char *s)
{
	char *out = malloc(2 * strlen(s) + 1), *o = out;
	for (; out && *s; s++)
		if (*s == '\n') {
			*o++ = ';';
			*o++ = ' ';
		} else if (*s != '\r') {
			*o++ = *s;
		}
	if (out)
		*o = '\0';
	return out;
}

/* sbatch ARGS; its job id (the text before a ';' cluster name) into id. */
static int sbatch(const struct ax_app *app, const char *sbatch_path,
		  char *const argv[], const char *script, char *id, size_t len)
{
	struct tool_result r;
	if (run_tool(sbatch_path, argv, &r) != 0)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "fleet slurm: cannot run %s: %s",
				    ax_term(sbatch_path), strerror(errno));
	size_t n = strcspn(r.out, ";\n");
	int rc = 0;
	if (r.status != 0 || n == 0 || strspn(r.out, "0123456789") != n) {
		char *msg = lines_joined(*r.err ? r.err : r.out);
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "fleet slurm: sbatch refused %s (exit %d): "
				  "%s; the scripts are in place to fix and "
				  "submit by hand",
				  ax_term(script), r.status,
				  msg ? ax_term(msg)
				      : "(no memory for its "
					"message)");
		free(msg);
	} else
		snprintf(id, len, "%.*s", (int)n, r.out);
	tool_release(&r);
	return rc;
}

/* The sbatch command lines, as the dry run prints them and as they are
 * run: --chdir makes the scripts' relative log names land in DIR/log. */
struct submission {
	char array[PATH_MAX + 64], merge[PATH_MAX + 64];
	char chdir[PATH_MAX + 16], dep[64];
	char array_id[64], merge_id[64];
};

static void submission_init(struct submission *s, const struct ax_fleet *f)
{
	snprintf(s->array, sizeof(s->array), "%s/" AX_FLEET_ARRAY, f->dir);
	snprintf(s->merge, sizeof(s->merge), "%s/" AX_FLEET_MERGE, f->dir);
	snprintf(s->chdir, sizeof(s->chdir), "--chdir=%s", f->dir);
	snprintf(s->dep, sizeof(s->dep), "--dependency=afterok:ARRAY_JOB");
	s->array_id[0] = s->merge_id[0] = '\0';
}

static int submit(const struct ax_app *app, const struct ax_fleet *f,
		  struct submission *s)
{
	char path[PATH_MAX];
	if (!find_in_path("sbatch", path, sizeof(path)))
		return ax_app_error(
		    app, AX_EXIT_USAGE,
		    "fleet slurm: sbatch is not in PATH (%s); run this on a "
		    "Slurm login node, or install Slurm's client (Debian: "
		    "slurm-client); the scripts are in %s, and --dry-run "
		    "prints them without submitting",
		    ax_term(getenv("PATH")), ax_term(f->dir));
	char *array[] = {"sbatch", "--parsable", s->chdir, s->array, NULL};
	int rc = sbatch(app, path, array, s->array, s->array_id,
			sizeof(s->array_id));
	if (rc)
		return rc;
	snprintf(s->dep, sizeof(s->dep), "--dependency=afterok:%s",
		 s->array_id);
	char *merge[] = {"sbatch",
			 "--parsable",
			 s->chdir,
			 s->dep,
			 "--kill-on-invalid-dep=yes",
			 s->merge,
			 NULL};
	rc = sbatch(app, path, merge, s->merge, s->merge_id,
		    sizeof(s->merge_id));
	if (rc)
		fprintf(stderr,
			"axbench fleet slurm: the array job %s is submitted "
			"without its merge; `scancel %s` cancels it, or submit "
			"the merge by hand as above\n",
			s->array_id, s->array_id);
	return rc;
}

/* ---- output ------------------------------------------------------------ */

static char *script_text(const struct ax_fleet *f, script_fn fn)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return NULL;
	fn(m, f);
	fclose(m);
	return text;
}

/* One sbatch command line as a shell comment, every argument quoted. */
static void print_command(FILE *out, const char *const argv[])
{
	fputs("#  ", out);
	for (int i = 0; argv[i]; i++) {
		fputc(' ', out);
		if (strspn(argv[i],
			   "abcdefghijklmnopqrstuvwxyz"
			   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-=:_") ==
		    strlen(argv[i]))
			fputs(argv[i], out);
		else
			ax_fleet_quote(out, argv[i]);
	}
	fputc('\n', out);
}

static void print_dry_run(const struct ax_fleet *f, const struct submission *s)
{
	char *a = script_text(f, ax_fleet_array_script);
	char *m = script_text(f, ax_fleet_merge_script);
	printf("# ==> %s <==\n%s", s->array, a ? a : "");
	printf("# ==> %s <==\n%s", s->merge, m ? m : "");
	free(a);
	free(m);
	const char *array[] = {"sbatch", "--parsable", s->chdir, s->array,
			       NULL};
	const char *merge[] = {"sbatch",
			       "--parsable",
			       s->chdir,
			       s->dep,
			       "--kill-on-invalid-dep=yes",
			       s->merge,
			       NULL};
	printf("# ==> dry run: nothing written or submitted; it would run "
	       "<==\n");
	print_command(stdout, array);
	print_command(stdout, merge);
}

static json_t *outcome_json(const struct ax_fleet *f,
			    const struct submission *s, bool dry_run)
{
	char db[PATH_MAX + 64], merged[PATH_MAX + 16], report[PATH_MAX + 16],
	    logs[PATH_MAX + 8];
	snprintf(db, sizeof(db), "%s/db/HOST-TASK.db", f->dir);
	snprintf(merged, sizeof(merged), "%s/" AX_FLEET_MERGED, f->dir);
	snprintf(report, sizeof(report), "%s/" AX_FLEET_REPORT, f->dir);
	snprintf(logs, sizeof(logs), "%s/log", f->dir);
	json_t *scripts =
	    json_pack("{s:s, s:s}", "array", s->array, "merge", s->merge);
	if (dry_run) {
		char *a = script_text(f, ax_fleet_array_script);
		char *m = script_text(f, ax_fleet_merge_script);
		json_object_set_new(scripts, "array_text",
				    json_string(a ? a : ""));
		json_object_set_new(scripts, "merge_text",
				    json_string(m ? m : ""));
		free(a);
		free(m);
	}
	return json_pack(
	    "{s:b, s:i, s:b, s:s, s:o, s:s, s:s, s:s, s:s, s:o, s:o}",
	    "dry_run", dry_run, "tasks", f->tasks, "gpus", f->gpus, "dir",
	    f->dir, "scripts", scripts, "databases", db, "merged_db", merged,
	    "report", report, "logs", logs, "array_job",
	    s->array_id[0] ? json_string(s->array_id) : json_null(),
	    "merge_job",
	    s->merge_id[0] ? json_string(s->merge_id) : json_null());
}

static void print_outcome(const struct ax_app *app, const struct ax_fleet *f,
			  const struct submission *s, bool dry_run)
{
	if (app->json) {
		json_t *doc = outcome_json(f, s, dry_run);
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
		json_decref(doc);
	} else if (dry_run) {
		print_dry_run(f, s);
	} else {
		printf("array job %s: %d task%s, each into %s/db/HOST-TASK.db\n"
		       "merge job %s: after every task succeeded\n"
		       "merged database: %s/" AX_FLEET_MERGED "\n"
		       "report: %s/" AX_FLEET_REPORT "\nlogs: %s/log\n",
		       s->array_id, f->tasks, f->tasks == 1 ? "" : "s",
		       ax_term(f->dir), s->merge_id, ax_term(f->dir),
		       ax_term(f->dir), ax_term(f->dir));
	}
}

/* ---- the subcommands --------------------------------------------------- */

static int check_required(const struct ax_app *app, const struct fleet_args *a)
{
	const char *missing = a->nodes == 0 ? "--nodes N"
			      : !a->profile ? "--profile NAME|FILE"
			      : !a->dir	    ? "--dir DIR"
					    : NULL;
	if (!missing)
		return 0;
	return ax_app_error(app, AX_EXIT_USAGE,
			    "fleet slurm: %s is required; usage: axbench "
			    "fleet %s",
			    missing, ax_cmd_fleet.usage);
}

static int fleet_slurm(struct ax_app *app, struct fleet_args *a)
{
	struct ax_fleet f = {.tasks = (int)a->nodes,
			     .partition = a->partition,
			     .time_min = (long)a->time_min};
	struct submission s;
	int rc = check_required(app, a);
	if (!rc)
		rc = resolve_profile(app, a, &f);
	if (!rc)
		rc = resolve_axbench(app, a, &f);
	if (!rc)
		rc = resolve_dir(app, a, &f);
	if (rc)
		return rc;
	f.gpus = strcmp(a->gpus, "auto") == 0 ? detect_gpus(a->partition)
					      : strcmp(a->gpus, "yes") == 0;
	submission_init(&s, &f);
	if (!a->dry_run) {
		rc = write_script(app, &f, AX_FLEET_ARRAY,
				  ax_fleet_array_script);
		if (!rc)
			rc = write_script(app, &f, AX_FLEET_MERGE,
					  ax_fleet_merge_script);
		if (!rc)
			rc = submit(app, &f, &s);
	}
	if (!rc)
		print_outcome(app, &f, &s, a->dry_run);
	return rc;
}

/* The CPUs local to the selected device that this process may use, on
 * stdout; nothing (exit 0, the reason on stderr) where that is unknown,
 * so that a script binds only to what is known. */
static int fleet_cpuset(struct ax_app *app)
{
	struct ax_vk_instance *inst;
	struct ax_topo *topo;
	struct ax_topo_locality loc;
	char err[512] = "hwloc cannot read this machine", cpus[256] = "";
	int idx, rc = ax_app_device(app, &inst, &idx);
	if (rc)
		return rc;
	const struct ax_vk_device_info *d = ax_vk_device_info(inst, idx);
	if (ax_topo_create(&topo, err, sizeof(err)) == 0) {
		/* A device without a bus id (lavapipe) is "whole machine,
		 * low confidence", which bind_list declines with the reason. */
		ax_topo_locality(topo, d->pci_bus_id, &loc);
		if (ax_topo_bind_list(topo, &loc, cpus, sizeof(cpus), err,
				      sizeof(err)) == 0 &&
		    !app->json)
			printf("%s\n", cpus);
		ax_topo_destroy(topo);
	}
	if (app->json) {
		/* --json: the answer or why there is none, never nothing */
		json_t *doc = json_pack(
		    "{s:s, s:o, s:o}", "device", d->name, "cpuset",
		    cpus[0] ? json_string(cpus) : json_null(), "reason",
		    cpus[0] ? json_null() : json_string(err));
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(doc);
		return AX_EXIT_OK;
	}
	if (!cpus[0] && app->verbosity >= 0)
		fprintf(stderr, "axbench fleet cpuset: not bound: %s: %s\n",
			ax_term(d->name), ax_term(err));
	return AX_EXIT_OK;
}

/* One option into a; 0 or an exit code. */
static int take_option(struct ax_cli_iter *it, int opt, struct fleet_args *a)
{
	a->n_slurm_opts++;
	switch (opt) {
	case OPT_NODES:
		return ax_cli_parse_int(it, 1, 100000, &a->nodes)
			   ? AX_EXIT_USAGE
			   : 0;
	case OPT_TIME:
		return ax_cli_parse_int(it, 1, 525600, &a->time_min)
			   ? AX_EXIT_USAGE
			   : 0;
	case OPT_PROFILE:
		a->profile = it->optarg;
		return 0;
	case OPT_DIR:
		a->dir = it->optarg;
		return 0;
	case OPT_AXBENCH:
		a->axbench = it->optarg;
		return 0;
	case OPT_GPUS:
		a->gpus = it->optarg;
		return 0;
	case OPT_DRY_RUN:
		a->dry_run = true;
		return 0;
	}
	/* A partition list as Slurm names it, so that it can stand in an
	 * #SBATCH line as it is. */
	a->partition = it->optarg;
	if (*a->partition &&
	    strspn(a->partition,
		   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ"
		   "RSTUVWXYZ0123456789_.,-") == strlen(a->partition))
		return 0;
	return ax_app_error(it->app, AX_EXIT_USAGE,
			    "fleet slurm: --partition '%s' is not a Slurm "
			    "partition name (letters, digits, '_', '.', '-'; "
			    "several with ','); `sinfo -s` lists them",
			    ax_term(a->partition));
}

static int parse(struct ax_app *app, int argc, char **argv,
		 struct fleet_args *a)
{
	struct ax_cli_iter it;
	int opt, rc = 0;
	ax_cli_iter_init(&it, app, &ax_cmd_fleet, argc, argv);
	while (rc == 0 && (opt = ax_cli_next(&it)) > 0)
		rc = take_option(&it, opt, a);
	if (rc == 0) {
		int end = ax_cli_parse_end(&it, opt, 1, 1);
		rc = end == AX_CLI_CONTINUE ? 0 : end == AX_EXIT_OK ? -2 : end;
	}
	if (rc == 0)
		a->sub = it.positional[0];
	ax_cli_iter_release(&it);
	return rc;
}

static int fleet_main(struct ax_app *app, int argc, char **argv)
{
	struct fleet_args *a = calloc(1, sizeof(*a));
	if (!a)
		return ax_app_error(app, AX_EXIT_FAIL, "fleet: out of memory");
	a->time_min = 30;
	a->gpus = "auto";
	int rc = parse(app, argc, argv, a);
	if (rc == 0 && strcmp(a->sub, "slurm") == 0)
		rc = fleet_slurm(app, a);
	else if (rc == 0 && strcmp(a->sub, "cpuset") == 0 &&
		 a->n_slurm_opts == 0)
		rc = fleet_cpuset(app);
	else if (rc == 0 && strcmp(a->sub, "cpuset") == 0)
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "fleet cpuset takes only the global options "
				  "(--device SEL); the others are fleet "
				  "slurm's");
	else if (rc == 0)
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "fleet: no subcommand '%s'; it is slurm or "
				  "cpuset (see `axbench help fleet`)",
				  ax_term(a->sub));
	free(a);
	return rc == -2 ? AX_EXIT_OK : rc;
}

const struct ax_cli_cmd ax_cmd_fleet = {
    .name = "fleet",
    .summary = "benchmark every node or GPU of a Slurm cluster, then "
	       "merge and report",
    .usage = "slurm --nodes N --profile NAME|FILE --dir DIR [--partition "
	     "NAME] [--time MIN] [--axbench PATH] [--gpus auto|yes|no] "
	     "[--dry-run] | cpuset",
    .details =
	"fleet slurm writes two batch scripts into DIR and submits them: "
	"a job array of N\ntasks, each running the profile into its own "
	"database DIR/db/HOST-TASK.db,\nand a job that depends on it "
	"(afterok) and runs `axbench db merge` into\nDIR/merged.db and "
	"`axbench report` into DIR/report.html.  DIR must be on a\nfile "
	"system every node shares, and so must the axbench the tasks run\n"
	"(--axbench; default this binary).  With GPUs each task gets one "
	"(--gpus-per-task=1\n--gpu-bind=closest); without, each task gets a "
	"node to itself (--exclusive).\nEach task first runs `axbench fleet "
	"cpuset`, which prints the CPUs local to its\ndevice that it may "
	"use (hwloc, as recommend places it) and nothing where the\n"
	"device's locality is unknown (--json: the device, its cpuset or "
	"null,\nand why); the task runs under `taskset -c` only when there is "
	"one.  Prints the job ids and where the merged "
	"database and report\nwill be (--json: one document).  Use a new "
	"DIR per fleet run: the merge takes\nevery database in DIR/db.  "
	"sbatch missing or refusing is exit 2, with its\nmessage; a DIR that "
	"cannot be written is exit 5.",
    .examples = {"axbench fleet slurm --nodes 8 --profile quick --dir "
		 "/shared/ax --dry-run   # the scripts",
		 "axbench fleet slurm -N 16 --profile full --dir /shared/ax -p "
		 "gpu   # submit both jobs",
		 "axbench fleet cpuset            # this device's local CPUs, "
		 "for taskset -c"},
    .opts = fleet_opts,
    .choices = fleet_choices,
    .needs = AX_APP_NEED_DEVICE,
    .fn = fleet_main,
};
