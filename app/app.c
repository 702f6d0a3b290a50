/* app/app.c - what every command of the application layer shares: exit
 * codes and errors, opening the database and the device (once, for the
 * commands that declare them), the validation verdict, host and device
 * registration, run and device selection, labels. */
#include "app/app.h"

#include "core/interrupt.h"

#include "core/db.h"
#include "core/db_rows.h"
#include "core/error.h"
#include "core/specs.h"
#include "core/text.h"
#include "core/topo.h"
#include "core/vk.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* While a write waits for another process's lock: say so, and how to
 * stop or wait longer. */
static void say_waiting(void *ctx, const char *path, double waited,
			double limit)
{
	const struct ax_app *app = ctx;
	if (app->verbosity >= 0)
		fprintf(stderr,
			"axbench: %s is locked by another process; waited "
			"%.0f s of at most %.0f s (Ctrl-C stops; "
			"AXBENCH_LOCK_WAIT=SECONDS waits longer)\n",
			path, waited, limit);
}

/* AXBENCH_LOCK_WAIT: seconds a write may wait for another process's
 * lock, in all (core/db.h); -1 when unset, -2 when not a number. */
static double lock_wait_from_env(void)
{
	const char *v = getenv("AXBENCH_LOCK_WAIT");
	if (!v || !*v)
		return -1;
	char *end;
	errno = 0;
	double s = strtod(v, &end);
	return *end || errno || !(s >= 0 && s <= 86400) ? -2 : s;
}

/* Every AX_E* code has its case (tests/unit/test_app.c pins each): 1 is
 * a regression or a result that failed, so an environment that stopped
 * the command (a lock held, memory, storage) must never fall through to
 * it. */
int ax_app_exit_code(int err)
{
	switch (err) {
	case 0:
		return AX_EXIT_OK;
	case AX_EVERIFY:
	case AX_EREGRESSION:
	case AX_EVK:
	case AX_ETIMEOUT:
	case AX_EUNSUPPORTED:
	case AX_EDEVMEM:
	case AX_EDEVLOST:
	case AX_EVALIDATION:
	case AX_ECOMPILE:
		return AX_EXIT_FAIL; /* a result failed */
	case AX_EINVAL:
	case AX_ECONFIG:
	case AX_ENOTFOUND:
		return AX_EXIT_USAGE;
	case AX_EAMBIGUOUS:
		return AX_EXIT_AMBIGUOUS;
	case AX_ENODEV:
		return AX_EXIT_NODEV;
	case AX_EDB:
	case AX_EDBVERSION:
	case AX_EIO:
	case AX_EBUSY:
	case AX_ENOMEM:
		return AX_EXIT_STORAGE; /* the environment stopped it */
	case AX_EINTR:
		return AX_EXIT_INTERRUPTED;
	default:
		return AX_EXIT_FAIL;
	}
}

int ax_app_error(const struct ax_app *app, int code, const char *fmt, ...)
{
	/* A screenful at most: an argument of thousands of characters is
	 * cut in the middle, and the reason after it is kept. */
	char msg[AX_APP_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	ax_vfmt_fit(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "axbench: %s\n", msg);
	return code;
}

int ax_app_db_open_exit(int rc)
{
	return rc == AX_ENOTFOUND || rc == AX_EINVAL ? AX_EXIT_USAGE
						     : AX_EXIT_STORAGE;
}

int ax_app_open_db_at(const struct ax_app *app, const char *path,
		      bool readonly, const char *cmd, struct ax_db **db)
{
	char err[1024];
	double wait_s = lock_wait_from_env();
	*db = NULL;
	if (wait_s == -2)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "AXBENCH_LOCK_WAIT=%.40s: not a number of "
				    "seconds from 0 to 86400; set it to how "
				    "long a write may wait for another "
				    "process's lock, or unset it (%.0f s)",
				    getenv("AXBENCH_LOCK_WAIT"),
				    AX_DB_LOCK_WAIT_S);
	ax_db_set_lock_wait(wait_s, &ax_interrupted, say_waiting,
			    (void *)app);
	int rc = ax_db_open(path ? path : app->db_path,
			    readonly ? AX_DB_READONLY : 0, db, err,
			    sizeof(err));
	if (rc == 0) {
		if (ax_db_note(*db) && app->verbosity >= 0)
			fprintf(stderr, "axbench: note: %s\n", ax_db_note(*db));
		return 0;
	}
	fprintf(stderr, "axbench: %s%s%s\n", cmd ? cmd : "", cmd ? ": " : "",
		err);
	return ax_app_db_open_exit(rc);
}

int ax_app_open_db(const struct ax_app *app, bool readonly, struct ax_db **db)
{
	return ax_app_open_db_at(app, NULL, readonly, NULL, db);
}

int ax_app_db(struct ax_app *app, struct ax_db **db)
{
	bool readonly = app->needs & AX_APP_READ_ONLY_DB;
	/* A command that declared no database has a bug, not a user. */
	if (!(app->needs & (AX_APP_NEED_DB | AX_APP_READ_ONLY_DB)))
		return ax_app_error(app, AX_EXIT_FAIL,
				    "internal error: a command that did not "
				    "declare a database asked for one");
	int rc = app->db ? 0 : ax_app_open_db(app, readonly, &app->db);
	*db = app->db;
	return rc;
}

int ax_app_device(struct ax_app *app, struct ax_vk_instance **inst,
		  int *index)
{
	if (!(app->needs & AX_APP_NEED_DEVICE))
		return ax_app_error(app, AX_EXIT_FAIL,
				    "internal error: a command that did not "
				    "declare a device asked for one");
	int rc = 0;
	if (!app->vk) {
		app->device_index = -1;
		rc = ax_app_open_vk(app, &app->vk, index ? &app->device_index
							 : NULL);
	} else if (index && app->device_index < 0) {
		char err[2048];
		if (ax_vk_select(app->vk, app->device_sel, &app->device_index,
				 err, sizeof(err)))
			rc = ax_app_error(app, AX_EXIT_USAGE, "%s", err);
	}
	*inst = app->vk;
	if (index)
		*index = app->device_index;
	return rc;
}

int ax_app_release(struct ax_app *app, int code)
{
	if (app->vk)
		code = ax_app_check_validation(app, app->vk, code);
	ax_vk_instance_destroy(app->vk);
	ax_db_close(app->db);
	app->vk = NULL;
	app->db = NULL;
	return code;
}

int ax_app_open_vk(const struct ax_app *app, struct ax_vk_instance **inst,
		   int *device_index)
{
	char err[2048];
	int rc = ax_vk_instance_create(app->validate, inst, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "axbench: %s\n", err);
		return rc == AX_EUNSUPPORTED ? AX_EXIT_USAGE : AX_EXIT_NODEV;
	}
	if (!device_index)
		return 0;
	rc = ax_vk_select(*inst, app->device_sel, device_index, err,
			  sizeof(err));
	if (rc) {
		fprintf(stderr, "axbench: %s\n", err);
		ax_vk_instance_destroy(*inst);
		*inst = NULL;
		return AX_EXIT_USAGE;
	}
	return 0;
}

int ax_app_check_validation(const struct ax_app *app,
			    const struct ax_vk_instance *inst, int code)
{
	int n = inst ? ax_vk_validation_messages(inst) : 0;
	if (!app->validate || n == 0)
		return code;
	fprintf(stderr,
		"axbench: the Vulkan validation layer reported %d message%s "
		"(above); failing\n",
		n, n == 1 ? "" : "s");
	return code ? code : AX_EXIT_FAIL;
}

char *ax_app_argv_json(const struct ax_app *app)
{
	json_t *a = json_array();
	/* An argument that is not UTF-8 (a file name) is repaired, not
	 * dropped from the stored command line (core/text.h). */
	for (int i = 0; i < app->argc; i++)
		json_array_append_new(
		    a, ax_text_json_string(app->argv[i],
					   "a command-line argument"));
	char *s = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	return s;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *ax_app_config_dir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("AXBENCH_CONFIG_DIR");
	if (env && *env)
		return env;
	/* Next to the executable: the build tree and a relocated install. */
	char exe[PATH_MAX - 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(dir, sizeof(dir), "%s/configs", exe);
			if (is_dir(dir))
				return dir;
			snprintf(dir, sizeof(dir),
				 "%s/../share/axbench/configs", exe);
			if (is_dir(dir))
				return dir;
		}
	}
	return "configs";
}

int ax_app_load_specs(const struct ax_app *app, const char *cmd, bool note,
		      struct ax_specs **out)
{
	char path[PATH_MAX], err[AX_APP_MSG_MAX];
	*out = NULL;
	snprintf(path, sizeof(path), "%s/specs.yaml", ax_app_config_dir());
	/* No file is a normal answer: no device has a spec then. */
	if (access(path, F_OK) != 0 && errno == ENOENT) {
		if (note && app->verbosity >= 0)
			fprintf(stderr,
				"axbench %s: %s not found, so every device "
				"is \"spec unknown\"; set AXBENCH_CONFIG_DIR "
				"to a directory holding specs.yaml for %% of "
				"spec\n",
				cmd, ax_term(path));
		return 0;
	}
	if (ax_specs_load(path, out, err, sizeof(err)))
		return ax_app_error(app, AX_EXIT_USAGE, "%s: %s", cmd, err);
	return 0;
}

static int register_host(struct ax_db *db, int64_t *host_id)
{
	struct ax_topo *topo = NULL;
	struct ax_topo_host h;
	char err[512];
	memset(&h, 0, sizeof(h));
	json_t *tj = NULL;
	if (ax_topo_create(&topo, err, sizeof(err)) == 0) {
		ax_topo_host(topo, &h);
		tj = ax_topo_host_json(topo);
	} else {
		gethostname(h.hostname, sizeof(h.hostname) - 1);
	}
	char *topo_json = tj ? json_dumps(tj, JSON_COMPACT) : NULL;
	struct ax_db_host row = {
	    .hostname = h.hostname,
	    .os = h.os,
	    .cpu_model = h.cpu_model,
	    .cores = h.cores,
	    .numa_nodes = h.numa_nodes,
	    .memory_bytes = h.memory_bytes,
	    .topology_json = topo_json,
	};
	int rc = ax_db_host_upsert(db, &row, host_id);
	free(topo_json);
	json_decref(tj);
	ax_topo_destroy(topo);
	return rc;
}

int ax_app_register(const struct ax_app *app, struct ax_db *db,
		    const struct ax_vk_device_info *info, int64_t *host_id,
		    int64_t *device_id)
{
	int rc = register_host(db, host_id);
	if (rc) {
		fprintf(stderr, "axbench: %s\n", ax_db_errmsg(db));
		return AX_EXIT_STORAGE;
	}
	json_t *dj = ax_vk_device_json(info);
	char *props = json_dumps(dj, JSON_COMPACT);
	struct ax_db_device row = {
	    .fingerprint = info->fingerprint,
	    .name = info->name,
	    .vendor = info->vendor,
	    .type = ax_vk_device_type_name(info->type),
	    .driver_name = info->driver_name,
	    .driver_info = info->driver_info,
	    .vendor_id = info->vendor_id,
	    .device_id = info->device_id,
	    .driver_id = (uint32_t)info->driver_id,
	    .api_version = info->api_version,
	    .driver_version = info->driver_version,
	    .device_uuid = info->device_uuid,
	    .driver_uuid = info->driver_uuid,
	    .pci_bus_id = info->pci_bus_id[0] ? info->pci_bus_id : NULL,
	    .properties_json = props,
	};
	rc = ax_db_device_upsert(db, &row, device_id);
	free(props);
	json_decref(dj);
	if (rc) {
		fprintf(stderr, "axbench: %s\n", ax_db_errmsg(db));
		return AX_EXIT_STORAGE;
	}
	return 0;
}

int ax_app_check_device(const struct ax_app *app, const char *sel)
{
	if (!sel || strspn(sel, "0123456789") != strlen(sel))
		return 0;
	return ax_app_error(app, AX_EXIT_USAGE,
			    "--device %s: stored results are keyed "
			    "by device, never by Vulkan index (it "
			    "changes with drivers and layers); give "
			    "a name, UUID, PCI bus id or fingerprint",
			    sel);
}

bool ax_app_row_on_device(const struct ax_db_device_row *dev, const char *sel)
{
	if (!sel || !strcmp(sel, "all"))
		return true;
	const char *exact[] = {dev->fingerprint, dev->device_uuid,
			       dev->pci_bus_id};
	for (int i = 0; i < 3; i++)
		if (exact[i] && *exact[i] && !strcasecmp(exact[i], sel))
			return true;
	return dev->name && strcasestr(dev->name, sel);
}

int ax_app_no_device_match(const struct ax_app *app, const char *sel)
{
	return ax_app_error(app, AX_EXIT_USAGE,
			    "--device %s: no stored results on a "
			    "device matching it; see `axbench "
			    "results`",
			    sel);
}

int ax_app_filter_device(const struct ax_app *app, struct ax_db_results *l,
			 const char *sel)
{
	int rc;
	if (!sel || !strcmp(sel, "all"))
		return 0;
	if ((rc = ax_app_check_device(app, sel)))
		return rc;
	size_t kept = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (ax_app_row_on_device(&l->v[i]->device, sel))
			l->v[kept++] = l->v[i];
		else
			ax_db_result_row_free(l->v[i]);
	}
	l->n = kept;
	return kept ? 0 : ax_app_no_device_match(app, sel);
}

int ax_app_check_label(const struct ax_app *app, const char *cmd,
		       const char *label)
{
	char why[128];
	if (ax_text_check_plain(label, AX_APP_LABEL_MAX, why, sizeof(why)) == 0)
		return 0;
	return ax_app_error(app, AX_EXIT_USAGE,
			    "%s --label '%s': a run's label is 1 to %d "
			    "characters of UTF-8 without control characters, "
			    "and this one %s; give a label that keeps to "
			    "that (--label \"nightly main\"), or leave "
			    "--label out for the default, HOST/DEVICE",
			    cmd, ax_term(label), AX_APP_LABEL_MAX, why);
}

void ax_app_default_label(const char *device_name, char *buf, size_t len)
{
	char host[256] = "";
	if (gethostname(host, sizeof(host) - 1) != 0 || !host[0])
		snprintf(host, sizeof(host), "localhost");
	snprintf(buf, len, "%s/%s", host, device_name ? device_name : "?");
}

bool ax_app_parse_id(const char *text, int64_t *id)
{
	/* Digits only: strtoll alone would take "+1", " 1" and "-0", and
	 * clamps an overflowing number to LLONG_MAX instead of failing. */
	if (!*text || strspn(text, "0123456789") != strlen(text))
		return false;
	errno = 0;
	char *end;
	long long v = strtoll(text, &end, 10);
	if (errno == ERANGE || *end || v <= 0)
		return false;
	*id = v;
	return true;
}

bool ax_app_parse_last(const char *text, int *back)
{
	if (strncmp(text, "last", 4))
		return false;
	if (!text[4]) {
		*back = 0;
		return true;
	}
	int64_t n;
	if (text[4] != '~' || !ax_app_parse_id(text + 5, &n) || n > 1000000)
		return false;
	*back = (int)n;
	return true;
}

int ax_app_nth_last_run(struct ax_db *db, bool (*keep)(const char *kind),
			int back, int64_t *id, size_t *n_kept)
{
	struct ax_db_runs runs; /* newest first */
	int rc = ax_db_run_rows(db, NULL, &runs);
	*n_kept = 0;
	if (rc)
		return rc;
	rc = AX_ENOTFOUND;
	for (size_t i = 0; i < runs.n; i++)
		if (keep(runs.v[i]->kind ? runs.v[i]->kind : "") &&
		    (*n_kept)++ == (size_t)back) {
			*id = runs.v[i]->id;
			rc = 0;
		}
	ax_db_runs_free(&runs);
	return rc;
}

/* "last" of --run: any run but a monitor's, which holds no results. */
static bool not_monitor(const char *kind) { return strcmp(kind, "monitor"); }

int ax_app_last_run(struct ax_db *db, int back, int64_t *id, size_t *n_kept)
{
	/* "last" alone is one indexed query, not every run's row: a
	 * history of 10 000 runs is read for last~N only. */
	if (back == 0 && ax_db_last_run(db, id) == 0)
		return *n_kept = 1, 0;
	return ax_app_nth_last_run(db, not_monitor, back, id, n_kept);
}

int ax_app_resolve_run(const struct ax_app *app, struct ax_db *db,
		       const char *cmd, const char *text, int64_t *id)
{
	int back;
	if (ax_app_parse_last(text, &back)) {
		size_t n;
		int rc = ax_app_last_run(db, back, id, &n);
		if (rc == 0)
			return 0;
		if (rc != AX_ENOTFOUND)
			return ax_app_error(app, ax_app_exit_code(rc),
					    "%s: --run %s: %s", cmd, text,
					    ax_db_errmsg(db));
		if (n == 0)
			return ax_app_error(app, AX_EXIT_USAGE,
					    "%s: --run %s: the database %s "
					    "holds no runs yet; run `axbench "
					    "run` first",
					    cmd, text, app->db_path);
		return ax_app_error(app, AX_EXIT_USAGE,
				    "%s: --run %s: the database %s holds %zu "
				    "run%s, so the newest is last and the "
				    "oldest last~%zu",
				    cmd, text, app->db_path, n,
				    n == 1 ? "" : "s", n - 1);
	}
	if (!ax_app_parse_id(text, id))
		return ax_app_error(app, AX_EXIT_USAGE,
				    "%s: --run must be a run id, a whole "
				    "number from 1 to %lld, 'last' or "
				    "'last~N', the N-th run before it "
				    "(got '%s'); list the runs with "
				    "`axbench runs`",
				    cmd, (long long)INT64_MAX, text);
	int rc = ax_db_run_exists(db, *id);
	if (rc == 0)
		return 0;
	return ax_app_error(app, ax_app_exit_code(rc), "%s: --run %s: %s", cmd,
			    text, ax_db_errmsg(db));
}
