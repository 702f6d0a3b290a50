/*
 * cli/cmd_monitor.c - `axbench monitor`: live power, energy, temperature,
 * clocks and memory of one or every device, like `nvidia-smi dmon`; or,
 * after `--`, the energy a command drew while it ran.
 *
 * A device without a sensor is not an error: monitor says which and why,
 * and measures the others (or nothing, and exits 0).
 */
#include "cli/cli.h"
#include "core/child.h"
#include "core/interrupt.h"

#include "core/db.h"
#include "core/telemetry.h"
#include "core/vk.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { OPT_INTERVAL = 1, OPT_DURATION, OPT_IDLE, OPT_CSV };

#define MAX_DEVICES 16

/* One monitored device: its identity, its source (NULL and a reason when
 * it has none) and its sampler. */
struct mon_dev {
	int index;
	struct ax_tel_device id;
	struct ax_tel_source *src;
	char reason[1024];
	struct ax_tel_sampler *sampler;
	size_t printed; /* readings already printed live */
	double idle_w;	/* mean power of the idle baseline, NAN when none */
	double idle_s;
};

struct mon {
	struct ax_app *app;
	struct ax_vk_instance *inst;
	double interval, duration, idle;
	bool csv;
	char **cmd; /* after "--", NULL when none */
	int n_cmd;
	struct mon_dev dev[MAX_DEVICES];
	int n;
	double t0;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sleep s seconds, or less when Ctrl-C comes. */
static void nap(double s)
{
	double end = now() + s;
	while (!ax_interrupted) {
		double left = end - now();
		if (left <= 0)
			return;
		if (left > 0.05)
			left = 0.05;
		struct timespec ts = {0, (long)(left * 1e9)};
		nanosleep(&ts, NULL);
	}
}

/* A number for the table, or "-" for what was not measured. */
static const char *fmt(char *buf, size_t len, double v, int prec)
{
	if (isnan(v))
		return "-";
	snprintf(buf, len, "%.*f", prec, v);
	return buf;
}

/* CSV leaves a value that was not measured empty, never 0. */
static const char *csv_num(char *buf, size_t len, double v)
{
	if (isnan(v))
		return "";
	snprintf(buf, len, "%.6g", v);
	return buf;
}

static json_t *num_json(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static void print_header(const struct mon *m)
{
	if (m->csv) {
		printf("device,time_s,power_w,energy_j,temp_c,sm_mhz,mem_mhz,"
		       "mem_used_bytes,throttle\n");
		return;
	}
	for (int i = 0; i < m->n; i++)
		if (m->dev[i].src)
			printf("# %d: %s (%s)\n", m->dev[i].index,
			       m->dev[i].id.name,
			       ax_tel_source_name(m->dev[i].src));
	printf("# dev  time_s  power_W  energy_J  temp_C  sm_MHz  mem_MHz  "
	       "mem_MiB  throttle\n");
}

static void print_row(const struct mon *m, const struct mon_dev *d,
		      const struct ax_tel_reading *r)
{
	char a[32], b[32], c[32], e[32], f[32], g[32], h[32];
	if (m->csv) {
		printf("%d,%.3f,%s,%s,%s,%s,%s,%s,", d->index, r->t - m->t0,
		       csv_num(a, 32, r->power_w), csv_num(b, 32, r->energy_j),
		       csv_num(c, 32, r->temp_c), csv_num(e, 32, r->sm_mhz),
		       csv_num(f, 32, r->mem_mhz),
		       csv_num(g, 32, r->mem_used_b));
		if (r->has_throttle)
			printf("0x%llx", (unsigned long long)r->throttle);
		putchar('\n');
		return;
	}
	snprintf(h, sizeof(h), "0x%llx", (unsigned long long)r->throttle);
	printf("  %3d %7.3f %8s %9s %7s %7s %8s %8s  %s\n", d->index,
	       r->t - m->t0, fmt(a, 32, r->power_w, 2),
	       fmt(b, 32, r->energy_j, 3), fmt(c, 32, r->temp_c, 0),
	       fmt(e, 32, r->sm_mhz, 0), fmt(f, 32, r->mem_mhz, 0),
	       fmt(g, 32, r->mem_used_b / (1024.0 * 1024.0), 0),
	       r->has_throttle ? h : "-");
}

/* Print the readings that came in since the last call. */
static void print_new(struct mon *m)
{
	struct ax_tel_reading buf[64];
	for (int i = 0; i < m->n; i++) {
		struct mon_dev *d = &m->dev[i];
		if (!d->sampler)
			continue;
		size_t k;
		while ((k = ax_tel_sampler_copy(d->sampler, d->printed, buf,
						64)) > 0) {
			for (size_t j = 0; j < k; j++)
				print_row(m, d, &buf[j]);
			d->printed += k;
		}
	}
	fflush(stdout);
}

/* The idle baseline: each source's mean power over m->idle seconds
 * before anything runs. */
static void measure_idle(struct mon *m)
{
	struct ax_tel_sampler *s[MAX_DEVICES] = {0};
	int any = 0;
	for (int i = 0; i < m->n; i++)
		any |= m->dev[i].src != NULL;
	if (!any)
		return; /* no idle to wait for */
	for (int i = 0; i < m->n; i++)
		if (m->dev[i].src)
			ax_tel_sampler_start(m->dev[i].src, m->interval, &s[i]);
	nap(m->idle);
	for (int i = 0; i < m->n; i++) {
		if (!s[i])
			continue;
		ax_tel_sampler_stop(s[i]);
		size_t n;
		const struct ax_tel_reading *r =
		    ax_tel_sampler_series(s[i], &n);
		m->dev[i].idle_w = ax_tel_mean_power(r, n);
		m->dev[i].idle_s = n ? r[n - 1].t - r[0].t : 0;
		ax_tel_sampler_destroy(s[i]);
	}
}

/* The terminal, when monitor holds its foreground: handed to the
 * command's process group, so that what the command reads and Ctrl-C
 * reach it as in a shell, and taken back afterwards.  -1 when none. */
static int foreground_tty(void)
{
	if (!isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) != getpgrp())
		return -1;
	return STDIN_FILENO;
}

/* Give the terminal to process group pgrp.  SIGTTOU is ignored around
 * it: a process outside the foreground group that sets it is stopped
 * otherwise. */
static void give_tty(int tty, pid_t pgrp)
{
	if (tty < 0)
		return;
	void (*old)(int) = signal(SIGTTOU, SIG_IGN);
	(void)tcsetpgrp(tty, pgrp);
	signal(SIGTTOU, old);
}

/* In the child: its own process group (and the terminal, if monitor had
 * it), default signals, then the command. */
static void exec_command(struct mon *m, int tty)
{
	ax_child_own_group(0);
	give_tty(tty, getpid());
	/* axbench ignores SIGPIPE (a reader that left is no error); an
	 * ignored signal survives exec, and the command must see its pipes
	 * as it would anywhere else. */
	signal(SIGPIPE, SIG_DFL);
	/* With --json stdout holds the document and nothing else
	 * (docs/JSON.md): the command's own output goes to stderr, where a
	 * terminal still shows it. */
	if (m->app->json && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		_exit(127);
	execvp(m->cmd[0], m->cmd);
	fprintf(stderr, "axbench monitor: %s: %s\n", m->cmd[0],
		strerror(errno));
	_exit(127);
}

/*
 * Fork and exec the command in a process group of its own; its exit
 * status the shell way (128 + signal for a killed one, 127 when it could
 * not be run).  SIGINT or SIGTERM to monitor is forwarded to that group
 * and the command waited for, SIGKILL after a grace period
 * (core/child.h): monitor never exits leaving it running.
 */
static int run_command(struct mon *m)
{
	int tty = foreground_tty();
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "axbench monitor: fork: %s\n", strerror(errno));
		return 127;
	}
	if (pid == 0)
		exec_command(m, tty);
	ax_child_own_group(pid);
	give_tty(tty, pid);
	struct ax_child c;
	ax_child_init(&c, pid, true, &ax_interrupted);
	int st, rc = ax_child_wait(&c, &st);
	give_tty(tty, getpgrp());
	if (rc < 0)
		return 127;
	return ax_child_exit_code(st);
}

static json_t *reading_json(const struct mon *m, const struct ax_tel_reading *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "t", json_real(r->t - m->t0));
	json_object_set_new(o, "power_w", num_json(r->power_w));
	json_object_set_new(o, "energy_j", num_json(r->energy_j));
	json_object_set_new(o, "temp_c", num_json(r->temp_c));
	json_object_set_new(o, "sm_mhz", num_json(r->sm_mhz));
	json_object_set_new(o, "mem_mhz", num_json(r->mem_mhz));
	json_object_set_new(o, "mem_used_bytes", num_json(r->mem_used_b));
	json_object_set_new(o, "throttle",
			    r->has_throttle
				? json_integer((json_int_t)r->throttle)
				: json_null());
	return o;
}

/* Energy and power of one device's series, in words or in the document. */
static void summarise(const struct mon *m, const struct mon_dev *d, FILE *out,
		      json_t *doc)
{
	size_t n;
	const struct ax_tel_reading *r = ax_tel_sampler_series(d->sampler, &n);
	double secs = n ? r[n - 1].t - r[0].t : 0;
	double e = ax_tel_energy(r, n), mean = ax_tel_mean_power(r, n);
	double max = ax_tel_max_power(r, n);
	double net = ax_tel_net_energy(e, d->idle_w, secs);
	char ev[256];
	bool thr = ax_tel_throttled(r, n, ev, sizeof(ev));
	/* The clock rule holds under load only: watching an idle device,
	 * low clocks are power saving, so only a vendor reason counts. */
	uint64_t reasons = 0;
	for (size_t k = 0; k < n; k++)
		reasons |= r[k].throttle;
	if (!m->cmd && !reasons && thr) {
		thr = false;
		snprintf(ev, sizeof(ev),
			 "no vendor reason; the clock rule is "
			 "judged only under a command's load");
	}
	if (doc) {
		json_t *s = json_pack(
		    "{s:f,s:o,s:o,s:o,s:o,s:o,s:b,s:s,s:I}", "seconds", secs,
		    "energy_j", num_json(e), "mean_power_w", num_json(mean),
		    "max_power_w", num_json(max), "idle_power_w",
		    num_json(d->idle_w), "net_energy_j", num_json(net),
		    "throttled", thr, "throttle_evidence", ev, "n_samples",
		    (json_int_t)n);
		json_object_set_new(doc, "summary", s);
		return;
	}
	char a[32], b[32], c[32];
	fprintf(out,
		"%d: %s (%s): energy %s J over %.2f s, mean %s W, max %s W, "
		"%zu samples\n",
		d->index, d->id.name, ax_tel_source_name(d->src),
		fmt(a, 32, e, 3), secs, fmt(b, 32, mean, 2), fmt(c, 32, max, 2),
		n);
	if (!isnan(d->idle_w))
		fprintf(out, "   net of idle (%.2f W over %.2f s): %s J\n",
			d->idle_w, d->idle_s, fmt(a, 32, net, 3));
	fprintf(out, "   %s: %s\n", thr ? "throttled" : "not throttled", ev);
}

static json_t *document(const struct mon *m, int code)
{
	json_t *doc = json_object(), *devs = json_array();
	json_object_set_new(doc, "interval_s", json_real(m->interval));
	for (int i = 0; i < m->n; i++) {
		const struct mon_dev *d = &m->dev[i];
		json_t *o = json_pack(
		    "{s:i,s:s,s:s?,s:s?,s:s?,s:s?}", "index", d->index, "name",
		    d->id.name, "pci_bus_id",
		    d->id.pci_bus_id[0] ? d->id.pci_bus_id : NULL, "uuid",
		    d->id.uuid[0] ? d->id.uuid : NULL, "source",
		    d->src ? ax_tel_source_name(d->src) : NULL, "reason",
		    d->src ? NULL : d->reason);
		json_t *samples = json_array();
		if (d->sampler) {
			size_t n;
			const struct ax_tel_reading *r =
			    ax_tel_sampler_series(d->sampler, &n);
			for (size_t k = 0; k < n; k++)
				json_array_append_new(samples,
						      reading_json(m, &r[k]));
			summarise(m, d, NULL, o);
		}
		json_object_set_new(o, "samples", samples);
		json_array_append_new(devs, o);
	}
	json_object_set_new(doc, "devices", devs);
	if (m->cmd) {
		json_t *argv = json_array();
		for (int i = 0; i < m->n_cmd; i++)
			json_array_append_new(argv, json_string(m->cmd[i]));
		json_object_set_new(
		    doc, "command",
		    json_pack("{s:o,s:i}", "argv", argv, "exit_code", code));
	}
	return doc;
}

/* Sample until the duration, Ctrl-C or the command's end; return the
 * command's exit status, or AX_EXIT_INTERRUPTED / AX_EXIT_OK. */
static int sample(struct mon *m)
{
	bool live = !m->cmd && !m->app->json;
	int code = AX_EXIT_OK;
	if (m->idle > 0)
		measure_idle(m);
	m->t0 = now();
	for (int i = 0; i < m->n; i++)
		if (m->dev[i].src &&
		    ax_tel_sampler_start(m->dev[i].src, m->interval,
					 &m->dev[i].sampler))
			snprintf(m->dev[i].reason, sizeof(m->dev[i].reason),
				 "could not start the sampler");
	if (live)
		print_header(m);
	if (m->cmd) {
		code = run_command(m);
		/* Stopped by a signal, monitor says so (130, 143), whatever
		 * the command made of the signal it was forwarded. */
		if (ax_interrupted)
			code = AX_EXIT_INTERRUPTED;
	} else {
		while (!ax_interrupted &&
		       (m->duration <= 0 || now() - m->t0 < m->duration)) {
			nap(m->interval);
			if (live)
				print_new(m);
		}
		if (ax_interrupted)
			code = AX_EXIT_INTERRUPTED;
	}
	for (int i = 0; i < m->n; i++)
		ax_tel_sampler_stop(m->dev[i].sampler);
	if (live)
		print_new(m);
	return code;
}

static void report(struct mon *m, int code)
{
	if (m->app->json) {
		json_t *doc = document(m, code);
		json_dumpf(doc, stdout,
			   JSON_INDENT(2) | JSON_REAL_PRECISION(6));
		putchar('\n');
		json_decref(doc);
		return;
	}
	/* After a command its output owns stdout: the CSV rows follow it,
	 * the summary goes to stderr as time(1)'s does. */
	if (m->cmd && m->csv) {
		print_header(m);
		for (int i = 0; i < m->n; i++) {
			size_t n;
			if (!m->dev[i].sampler)
				continue;
			const struct ax_tel_reading *r =
			    ax_tel_sampler_series(m->dev[i].sampler, &n);
			for (size_t k = 0; k < n; k++)
				print_row(m, &m->dev[i], &r[k]);
		}
	}
	if (m->csv && !m->cmd)
		return;
	FILE *out = m->cmd ? stderr : stdout;
	int n = 0;
	for (int i = 0; i < m->n; i++)
		if (m->dev[i].sampler)
			summarise(m, &m->dev[i], out, NULL), n++;
	if (!n && m->cmd)
		fprintf(stderr,
			"axbench monitor: no energy measured for "
			"'%s': no device has a sensor (above)\n",
			m->cmd[0]);
}

/* The run row of a stored monitor: its settings and command. */
static char *monitor_config(const struct mon *m)
{
	json_t *cfg = json_pack("{s:f,s:f,s:f}", "interval_s", m->interval,
				"duration_s", m->duration, "idle_s", m->idle);
	if (m->cmd) {
		json_t *argv = json_array();
		for (int i = 0; i < m->n_cmd; i++)
			json_array_append_new(argv, json_string(m->cmd[i]));
		json_object_set_new(cfg, "command", argv);
	}
	char *text = json_dumps(cfg, JSON_COMPACT);
	json_decref(cfg);
	return text;
}

/* One device's series as kind "monitor" of the run (its own run when
 * one device is watched: a run row names one device). */
static int store_device(struct mon *m, struct ax_db *db, struct mon_dev *d,
			int code)
{
	int64_t host_id, device_id, run_id;
	const struct ax_vk_device_info *info =
	    ax_vk_device_info(m->inst, d->index);
	int rc = ax_app_register(m->app, db, info, &host_id, &device_id);
	if (rc)
		return rc;
	char *argv_json = ax_app_argv_json(m->app), *cfg = monitor_config(m);
	char label[512];
	ax_app_default_label(info->name, label, sizeof(label));
	struct ax_db_run row = {
	    .host_id = host_id,
	    .device_id = device_id,
	    .axbench_version = AX_VERSION_STRING,
	    .git_sha = AX_GIT_SHA_STRING,
	    .argv_json = argv_json,
	    .config_json = cfg,
	    .profile = "monitor",
	    .label = label,
	};
	rc = ax_db_run_begin(db, &row, &run_id);
	free(argv_json);
	free(cfg);
	size_t n;
	const struct ax_tel_reading *r = ax_tel_sampler_series(d->sampler, &n);
	struct ax_db_series series = {
	    .run_id = run_id,
	    .device_id = device_id,
	    .kind = "monitor",
	    .source = ax_tel_source_name(d->src),
	    .interval_s = m->interval,
	    .t0 = m->t0,
	    .timed_from_s = 0,
	    .readings = r,
	    .n = n,
	};
	if (rc == 0)
		rc = ax_db_series_add(db, &series, NULL);
	if (rc == 0)
		rc = ax_db_run_finish(
		    db, run_id,
		    code == AX_EXIT_INTERRUPTED ? "interrupted" : "complete");
	if (rc)
		return ax_app_error(m->app, AX_EXIT_STORAGE, "monitor: %s",
				    ax_db_errmsg(db));
	if (m->app->verbosity >= 0)
		fprintf(stderr,
			"axbench monitor: %zu readings of device %d stored as "
			"run %lld in %s\n",
			n, d->index, (long long)run_id, m->app->db_path);
	return 0;
}

/* --db PATH (or AXBENCH_DB): every sampled device's series is stored.
 * Without one nothing is written: a monitor is often a glance. */
static int store(struct mon *m, int code)
{
	if (!m->app->db_chosen)
		return 0;
	struct ax_db *db;
	int rc = ax_app_open_db(m->app, false, &db);
	for (int i = 0; rc == 0 && i < m->n; i++)
		if (m->dev[i].sampler)
			rc = store_device(m, db, &m->dev[i], code);
	ax_db_close(db);
	return rc;
}

extern const struct ax_cli_cmd ax_cmd_monitor;

static int parse(struct mon *m, struct ax_app *app, int argc, char **argv)
{
	int dd = argc;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			dd = i;
			break;
		}
	if (dd < argc) {
		m->cmd = argv + dd + 1;
		m->n_cmd = argc - dd - 1;
		if (m->n_cmd == 0) {
			fprintf(stderr,
				"axbench monitor: '--' must be followed "
				"by a command to run\n");
			return AX_EXIT_USAGE;
		}
	}
	struct ax_cli_iter it;
	ax_cli_iter_init(&it, app, &ax_cmd_monitor, dd, argv);
	int opt, bad = 0;
	bool duration_set = false;
	while ((opt = ax_cli_next(&it)) > 0) {
		if (opt == OPT_INTERVAL)
			bad |=
			    ax_cli_parse_double(&it, 0.01, 3600, &m->interval);
		else if (opt == OPT_DURATION)
			bad |= ax_cli_parse_double(&it, 0, 86400 * 365,
						   &m->duration),
			    duration_set = true;
		else if (opt == OPT_IDLE)
			bad |= ax_cli_parse_double(&it, 0, 3600, &m->idle);
		else if (opt == OPT_CSV)
			m->csv = true;
	}
	int end = ax_cli_parse_end(&it, bad ? -1 : opt, 0, 0);
	ax_cli_iter_release(&it);
	if (end != AX_CLI_CONTINUE)
		return end;
	if (m->cmd && duration_set) {
		fprintf(stderr, "axbench monitor: --duration and a command "
				"contradict: the command's run is the "
				"duration\n");
		return AX_EXIT_USAGE;
	}
	if (m->csv && app->json) {
		fprintf(stderr, "axbench monitor: --csv and --json "
				"contradict; choose one\n");
		return AX_EXIT_USAGE;
	}
	return AX_CLI_CONTINUE;
}

static int monitor_main(struct ax_app *app, int argc, char **argv)
{
	struct mon *m = calloc(1, sizeof(*m));
	if (!m)
		return ax_app_error(app, AX_EXIT_FAIL, "out of memory");
	m->app = app;
	m->interval = AX_TEL_INTERVAL_DEFAULT;
	int rc = parse(m, app, argc, argv);
	if (rc != AX_CLI_CONTINUE) {
		free(m);
		return rc;
	}
	struct ax_vk_instance *inst;
	int sel = -1;
	rc = ax_app_device(app, &inst, app->device_sel ? &sel : NULL);
	if (rc) {
		free(m);
		return rc;
	}
	int n_sensors = 0;
	for (int i = 0; i < ax_vk_device_count(inst) && m->n < MAX_DEVICES;
	     i++) {
		if (sel >= 0 && i != sel)
			continue;
		struct mon_dev *d = &m->dev[m->n++];
		d->index = i;
		d->idle_w = NAN;
		ax_vk_telemetry_device(ax_vk_device_info(inst, i), &d->id);
		if (ax_tel_open(&d->id, &d->src, d->reason,
				sizeof(d->reason)) == 0)
			n_sensors++;
		else if (!app->json)
			/* Said before anything else, and where the
			 * table would be, unless stdout is CSV. */
			fprintf(m->csv || m->cmd ? stderr : stdout, "%s\n",
				d->reason);
	}
	if (n_sensors == 0 && !m->cmd) {
		if (app->json)
			report(m, AX_EXIT_OK);
		else if (m->csv)
			print_header(m); /* a CSV reader gets its columns */
		rc =
		    AX_EXIT_OK; /* nothing to read is an answer, not an error */
	} else {
		m->inst = inst;
		rc = sample(m);
		report(m, rc);
		int st = store(m, rc);
		if (st && (rc == AX_EXIT_OK || m->cmd == NULL))
			rc = st;
	}
	for (int i = 0; i < m->n; i++) {
		ax_tel_sampler_destroy(m->dev[i].sampler);
		ax_tel_close(m->dev[i].src);
	}
	free(m);
	return rc;
}

static const struct ax_cli_opt monitor_opts[] = {
    {OPT_INTERVAL, "interval", 'i', "S",
     "seconds between samples (default 0.1: 10 Hz; from 0.01)"},
    {OPT_DURATION, "duration", 't', "S",
     "stop after S seconds (default 0: until Ctrl-C; not with a command)"},
    {OPT_IDLE, "idle", 0, "S",
     "measure the idle power for S seconds first and print the energy "
     "net of it (default 0: no idle baseline)"},
    {OPT_CSV, "csv", 0, NULL,
     "print CSV rows (default: a table); empty fields were not measured"},
    {0},
};

const struct ax_cli_cmd ax_cmd_monitor = {
    .name = "monitor",
    .summary = "live power, energy, temperature and clocks of the devices, "
	       "or of a command's run",
    .usage = "[options] [-- CMD ARGS...]",
    .details =
	"Reads every device (or the one --device names) from its own "
	"sensor: NVML on\nNVIDIA, hwmon on amdgpu, i915 and xe, the host's "
	"RAPL counters for a CPU\ndevice such as lavapipe. A device with no "
	"sensor is named with the reason\nand monitor exits 0. After `--`, "
	"runs CMD, samples while it runs, prints its\nenergy (on stderr) and "
	"exits with CMD's exit status; with --json CMD's\nstandard output "
	"goes to stderr, so that stdout holds the one document.\nCMD runs "
	"in a process group of its own: SIGINT or SIGTERM to monitor is\n"
	"forwarded to it, anything of it still running 5 s later is killed, "
	"and\nmonitor exits 130 (SIGINT) or 143 (SIGTERM).\nEnergy "
	"comes from the energy counter where there is one, else from\n"
	"integrating power. A value that was not measured is shown as '-'\n"
	"(empty in CSV, null in JSON), never 0.\nWith --db PATH (or "
	"AXBENCH_DB) each device's series "
	"is "
	"stored as a run of\nits own (profile \"monitor\"); without, nothing "
	"is "
	"written.\nAXBENCH_SYSFS_ROOT and AXBENCH_NVML_LIB point the "
	"readers at test fixtures.",
    .examples =
	{"axbench monitor --duration 10           # every device, 10 s at "
	 "10 Hz",
	 "axbench monitor --csv -i 1 -t 60        # one CSV row a second "
	 "for a minute",
	 "axbench monitor --idle 2 -- ./train.sh  # the energy of a "
	 "command, net of idle",
	 NULL},
    .opts = monitor_opts,
    .needs = AX_APP_NEED_DEVICE,
    .fn = monitor_main,
};
