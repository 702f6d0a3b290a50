/*
 * app/run_defaults.c - per-device defaults (configs/defaults.yaml, read
 * by core/defaults.c) for the cases of a run and the base point of a
 * tuning session.
 *
 * Order of precedence, highest first: what the user gave (-p, a
 * profile's values), --tuned FILE, this file's entry for the device,
 * the suite's own defaults.  A device-class point the device cannot run
 * (its limits, its features) falls back to the suite's own defaults,
 * with a warning, rather than failing a run the user never tuned.
 */
#include "app/app.h"
#include "app/run_plan.h"

#include "core/defaults.h"
#include "core/error.h"
#include "suites/registry.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The entries borrow their suite's schema: it lives as long as the
 * process, like the registry it copies. */
static struct ax_config_schema defaults_schema[64];

int ax_app_load_defaults(const struct ax_app *app, struct ax_defaults **out)
{
	char path[4096], err[2048];
	struct stat st;
	*out = NULL;
	snprintf(path, sizeof(path), "%s/defaults.yaml", ax_app_config_dir());
	if (stat(path, &st) != 0 && errno == ENOENT) {
		if (app->verbosity > 0)
			fprintf(stderr,
				"axbench: no %s: every suite keeps its own "
				"defaults\n",
				path);
		return AX_EXIT_OK;
	}
	int n = ax_plan_schema(defaults_schema, 64);
	if (ax_defaults_load(path, defaults_schema, n, out, err, sizeof(err)))
		return ax_app_error(app, AX_EXIT_USAGE,
				    "%s\n(the per-device defaults file: fix "
				    "it, or point AXBENCH_CONFIG_DIR at a "
				    "folder with a good one)",
				    err);
	return AX_EXIT_OK;
}

static int check_point(const struct ax_suite *s, const struct ax_params *p,
		       const struct ax_vk_device_info *info, char *why,
		       size_t len)
{
	int rc = ax_params_check(p, why, len);
	if (rc == 0 && s->check)
		rc = s->check(p, info, why, len);
	return rc;
}

int ax_defaults_apply_checked(const struct ax_defaults *d,
			      const struct ax_suite *s, struct ax_params *p,
			      const struct ax_vk_device_info *info,
			      const struct ax_defaults_entry **used, char *why,
			      size_t len)
{
	const struct ax_defaults_entry *e = ax_defaults_find(d, s->name, info);
	*used = NULL;
	why[0] = '\0';
	if (!e)
		return 0;
	struct ax_params own = *p;
	if (!ax_defaults_apply(e, p))
		return (*used = e), 0;
	char own_why[8];
	*used = e;
	if (check_point(s, p, info, why, len) &&
	    !check_point(s, &own, info, own_why, sizeof(own_why))) {
		*p = own; /* the suite's own defaults run here; the entry's
			     do not */
		return -1;
	}
	why[0] = '\0';
	return 1;
}

/* Say once per suite which entry the run takes (-v), or why it could
 * not take it (always: the user should know the defaults moved). */
static void report(const struct ax_app *app, const struct ax_suite *s,
		   const struct ax_defaults *d,
		   const struct ax_defaults_entry *e, const char *why)
{
	char match[256];
	if (why[0]) {
		if (app->verbosity >= 0)
			fprintf(stderr,
				"axbench: %s: the per-device defaults do not "
				"fit this device (%s); keeping the suite's "
				"own defaults\n",
				s->name, why);
		return;
	}
	if (!e || app->verbosity <= 0)
		return;
	ax_defaults_match_text(e, match, sizeof(match));
	fprintf(stderr, "axbench: %s defaults from %s:%d (%s)\n", s->name,
		d->path, e->line, match);
}

int ax_plan_apply_defaults(struct ax_plan *plan,
			   const struct ax_vk_device_info *info,
			   const struct ax_app *app)
{
	struct ax_defaults *d;
	int rc = ax_app_load_defaults(app, &d);
	if (rc)
		return rc;
	bool told[64] = {false};
	for (int i = 0; d && i < plan->n; i++) {
		struct ax_plan_case *c = &plan->cases[i];
		const struct ax_defaults_entry *e;
		char why[512];
		if (c->tuned || c->tuned_defaults)
			continue; /* --tuned's file decided */
		int applied = ax_defaults_apply_checked(
		    d, c->suite, &c->params, info, &e, why, sizeof(why));
		int slot = 0; /* a user kernel's suite is in no slot: 63 */
		while (slot < ax_suite_count && ax_suites[slot] != c->suite)
			slot++;
		slot = slot < 63 ? slot : 63;
		if (!told[slot] && (e || applied < 0)) {
			told[slot] = true;
			report(app, c->suite, d, e, why);
		}
	}
	ax_defaults_free(d);
	return AX_EXIT_OK;
}
