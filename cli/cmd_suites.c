/* cli/cmd_suites.c - `axbench suites [NAME]`: what can be run, and how. */
#include "app/run_plan.h"
#include "app/suite_doc.h"
#include "cli/cli.h"
#include "core/suggest.h"

#include "core/defaults.h"
#include "core/vk.h"
#include "suites/registry.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void param_range(const struct ax_param_def *d, char *buf, size_t len)
{
	char lo[32], hi[32];
	if (d->type == AX_PT_ENUM) {
		size_t used = 0;
		buf[0] = '\0';
		for (int i = 0; d->choices[i] && used < len; i++)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 i ? "|" : "", d->choices[i]);
		return;
	}
	if (d->type == AX_PT_BOOL) {
		snprintf(buf, len, "true|false");
		return;
	}
	if (d->type == AX_PT_TEXT) {
		snprintf(buf, len, "text");
		return;
	}
	if (d->values) {
		size_t used = 0;
		for (int i = 0; i < d->n_values && used < len; i++)
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%" PRId64, i ? "," : "",
						 d->values[i]);
		return;
	}
	ax_param_format(d, d->min, lo, sizeof(lo));
	ax_param_format(d, d->max, hi, sizeof(hi));
	snprintf(buf, len, "%s..%s%s", lo, hi,
		 (d->flags & AX_PARAM_POW2) ? " (pow2)" : "");
}

static const char *param_kind(const struct ax_param_def *d)
{
	if (d->flags & AX_PARAM_TUNABLE)
		return "tunable";
	if (d->flags & AX_PARAM_SHAPE)
		return "shape";
	return "setting";
}

static const char *type_name(const struct ax_param_def *d)
{
	switch (d->type) {
	case AX_PT_ENUM:
		return "enum";
	case AX_PT_BOOL:
		return "bool";
	case AX_PT_TEXT:
		return "text";
	default:
		return (d->flags & AX_PARAM_BYTES) ? "bytes" : "int";
	}
}

static json_t *suite_json(const struct ax_suite *s)
{
	json_t *params = json_array();
	for (int i = 0; i < s->n_params; i++) {
		const struct ax_param_def *d = &s->params[i];
		char range[256], def[64];
		param_range(d, range, sizeof(range));
		ax_param_format(d, d->def, def, sizeof(def));
		/* "default" is a value as results' params hold it (a
		 * boolean a JSON boolean, a byte count an integer);
		 * "default_text" is how -p and the table write it. */
		json_array_append_new(
		    params,
		    json_pack("{s:s,s:s,s:s,s:o,s:s,s:s,s:s}", "name", d->name,
			      "type", type_name(d), "range", range, "default",
			      ax_param_json(d, d->def), "default_text", def,
			      "kind", param_kind(d), "help", d->help));
		/* A knob of one kernel: tuned only where this holds. */
		json_object_set_new(json_array_get(params, i), "when",
				    d->when ? json_string(d->when)
					    : json_null());
	}
	json_t *o =
	    json_pack("{s:s,s:s,s:s,s:o,s:s?}", "name", s->name, "summary",
		      s->summary, "work_model", s->work_model, "params", params,
		      "constraints", s->constraints);
	/* unit, direction, roles, curve, batch parameter, recommend's
	 * needs: the suite document's entry, as reports see it. */
	json_object_update_new(o, ax_app_suite_entry(s));
	return o;
}

/* "compute-peak, workload", or "none": the suite's roles, in the order
 * of their bits, as the suite document lists them (app/suite_doc.c). */
static void roles_text(const struct ax_suite *s, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (unsigned bit = 1; bit && bit <= s->roles && used < len; bit <<= 1)
		if ((s->roles & bit) && ax_role_name((enum ax_role)bit))
			used += (size_t)snprintf(
			    buf + used, len - used, "%s%s", used ? ", " : "",
			    ax_role_name((enum ax_role)bit));
	if (!buf[0])
		snprintf(buf, len, "none");
}

/* Each line of text, after prefix. */
static void print_lines(const char *prefix, const char *text)
{
	while (*text) {
		size_t len = strcspn(text, "\n");
		printf("%s%.*s\n", prefix, (int)len, text);
		text += len + (text[len] == '\n');
	}
}

/*
 * Which per-device defaults (configs/defaults.yaml) the selected device
 * takes for one suite.  The device is opened only to read what it is;
 * with none (or no Vulkan), "device" says why and the rest is absent.
 */
struct device_defaults {
	char device[256]; /* the device's name, or why there is none */
	bool have_device;
	struct ax_defaults *file; /* NULL: no defaults file */
	const struct ax_defaults_entry *entry;
	struct ax_params point; /* the suite's defaults with the entry's */
	char why[512];		/* the entry does not fit the device */
};

static int find_device_defaults(const struct ax_app *app,
				const struct ax_suite *s,
				struct device_defaults *dd)
{
	struct ax_vk_instance *inst = NULL;
	char err[2048];
	int idx, rc = ax_app_load_defaults(app, &dd->file);
	memset(dd->device, 0, sizeof(dd->device));
	dd->have_device = false;
	ax_params_init(&dd->point, s->params, s->n_params);
	if (rc)
		return rc;
	if (ax_vk_instance_create(false, &inst, err, sizeof(err)) ||
	    ax_vk_select(inst, app->device_sel, &idx, err, sizeof(err))) {
		snprintf(dd->device, sizeof(dd->device), "no device: %.200s",
			 err);
		ax_vk_instance_destroy(inst);
		/* A --device that names nothing is the user's mistake. */
		return app->device_sel
			   ? ax_app_error(app, AX_EXIT_USAGE, "%s", err)
			   : 0;
	}
	const struct ax_vk_device_info *info = ax_vk_device_info(inst, idx);
	snprintf(dd->device, sizeof(dd->device), "%s", info->name);
	dd->have_device = true;
	if (ax_defaults_apply_checked(dd->file, s, &dd->point, info, &dd->entry,
				      dd->why, sizeof(dd->why)) >= 0)
		dd->why[0] = '\0';
	ax_vk_instance_destroy(inst);
	return 0;
}

/* " bm=128 bn=64 ..." for the entry's tunables, into buf. */
static void entry_values(const struct ax_defaults_entry *e, char *buf,
			 size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < e->params.n && used < len; i++) {
		char v[64];
		if (!(e->params.given & (1u << i)))
			continue;
		ax_param_format(&e->params.defs[i], e->params.v[i], v,
				sizeof(v));
		used += (size_t)snprintf(buf + used, len - used, " %s=%s",
					 e->params.defs[i].name, v);
	}
}

/* text after first, words wrapped at 76 columns, later lines after
 * indent. */
static void print_wrapped(const char *first, const char *indent,
			  const char *text)
{
	size_t col = (size_t)printf("%s", first), start = col;
	while (*text) {
		size_t word = strcspn(text, " ");
		if (col > start && col + 1 + word > 76) {
			col = (size_t)printf("\n%s", indent) - 1;
		} else if (col > start) {
			putchar(' ');
			col++;
		}
		col += (size_t)printf("%.*s", (int)word, text);
		text += word;
		text += strspn(text, " ");
	}
	putchar('\n');
}

static void print_device_defaults(const struct ax_suite *s,
				  const struct device_defaults *dd)
{
	char match[256], vals[1024];
	if (!dd->have_device) {
		printf("\n  Defaults here: the table's (%s).\n", dd->device);
		return;
	}
	printf("\n  Defaults on %s: ", dd->device);
	if (!dd->file || !dd->entry) {
		printf("the table's (%s).\n",
		       dd->file ? "no entry of the defaults file matches"
				: "no defaults file");
		return;
	}
	ax_defaults_match_text(dd->entry, match, sizeof(match));
	entry_values(dd->entry, vals, sizeof(vals));
	printf("%s:%d, matched by %s\n", dd->file->path, dd->entry->line,
	       match);
	if (dd->why[0])
		printf("    which does not fit this device (%s), so the "
		       "table's apply\n",
		       dd->why);
	printf("    values:%s\n", vals);
	print_wrapped("    basis:  ", "            ", dd->entry->basis);
	printf("    (a tunable it does not set keeps the table's default; "
	       "-p, a profile\n    and run --tuned win over both)\n");
	for (int i = 0; i < dd->file->n; i++) {
		const struct ax_defaults_entry *e = &dd->file->entries[i];
		if (e == dd->entry || strcmp(e->schema->suite, s->name))
			continue;
		ax_defaults_match_text(e, match, sizeof(match));
		printf("    other class: %s (line %d)\n", match, e->line);
	}
}

static json_t *device_defaults_json(const struct device_defaults *dd)
{
	char match[256];
	if (!dd->have_device)
		return json_pack("{s:n,s:s}", "device", "reason", dd->device);
	if (!dd->file || !dd->entry)
		return json_pack("{s:s,s:n}", "device", dd->device, "entry");
	ax_defaults_match_text(dd->entry, match, sizeof(match));
	json_t *params = json_object();
	for (int i = 0; i < dd->entry->params.n; i++)
		if (dd->entry->params.given & (1u << i))
			json_object_set_new(
			    params, dd->entry->params.defs[i].name,
			    ax_param_json(&dd->entry->params.defs[i],
					  dd->entry->params.v[i]));
	return json_pack(
	    "{s:s,s:{s:s,s:i,s:s,s:s,s:o,s:b,s:s?}}", "device", dd->device,
	    "entry", "file", dd->file->path, "line", dd->entry->line, "match",
	    match, "basis", dd->entry->basis, "params", params, "applies",
	    dd->why[0] == '\0', "why_not", dd->why[0] ? dd->why : NULL);
}

static void print_suite(const struct ax_suite *s)
{
	char roles[160];
	roles_text(s, roles, sizeof(roles));
	printf("%s: %s\n\n  unit: %s (%s is better)\n  work: %s\n"
	       "  roles: %s\n\n",
	       s->name, s->summary, s->unit,
	       s->higher_is_better ? "higher" : "lower", s->work_model, roles);
	printf("  %-10s %-6s %-8s %-9s %-22s %s\n", "parameter", "type", "kind",
	       "default", "range", "help");
	for (int i = 0; i < s->n_params; i++) {
		const struct ax_param_def *d = &s->params[i];
		char range[256], def[64];
		param_range(d, range, sizeof(range));
		ax_param_format(d, d->def, def, sizeof(def));
		printf("  %-10s %-6s %-8s %-9s %-22s %s%s%s%s\n", d->name,
		       type_name(d), param_kind(d), def, range,
		       d->when ? "[tuned where " : "", d->when ? d->when : "",
		       d->when ? "] " : "", d->help);
	}
	printf("\n  Every point must fit the device's limits (shared memory, "
	       "invocations,\n  buffer sizes)%s\n",
	       s->constraints ? " and meet:" : ".");
	if (s->constraints)
		print_lines("    ", s->constraints);
	printf("  `axbench run --dry-run` checks points against both.\n"
	       "\n  Set with -p NAME=VALUE.  Sweep with a list -p NAME=A,B,C "
	       "or a range of an\n  integer parameter: LO..HI doubles from "
	       "LO (LO, 2*LO, 4*LO, ... <= HI),\n  LO..HI:xF multiplies by "
	       "F, LO..HI:STEP adds STEP (64..1024:64).\n");
}

extern const struct ax_cli_cmd ax_cmd_suites;

static int suites_main(struct ax_app *app, int argc, char **argv)
{
	struct ax_cli_iter it;
	ax_cli_iter_init(&it, app, &ax_cmd_suites, argc, argv);
	int opt = ax_cli_next(&it);
	const char *name = it.n_positional ? it.positional[0] : NULL;
	int rc = ax_cli_parse_end(&it, opt, 0, 1);
	ax_cli_iter_release(&it);
	if (rc != AX_CLI_CONTINUE)
		return rc;
	const struct ax_suite *one = name ? ax_suite_find(name) : NULL;
	if (name && !one) {
		char known[256] = "", hint[128];
		struct ax_suggest sg;
		ax_suggest_init(&sg, name);
		for (int i = 0; i < ax_suite_count; i++) {
			snprintf(known + strlen(known),
				 sizeof(known) - strlen(known), "%s%s",
				 i ? ", " : "", ax_suites[i]->name);
			ax_suggest_add(&sg, ax_suites[i]->name);
		}
		return ax_app_error(
		    app, AX_EXIT_USAGE, "no suite '%s'%s (suites: %s)", name,
		    ax_suggest_text(&sg, hint, sizeof(hint)), known);
	}
	struct device_defaults dd = {0};
	if (one && (rc = find_device_defaults(app, one, &dd)) != 0) {
		ax_defaults_free(dd.file);
		return rc;
	}
	if (app->json) {
		json_t *out = one ? suite_json(one) : json_array();
		if (one)
			json_object_set_new(out, "device_defaults",
					    device_defaults_json(&dd));
		for (int i = 0; !one && i < ax_suite_count; i++)
			json_array_append_new(out, suite_json(ax_suites[i]));
		json_dumpf(out, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(out);
	} else if (one) {
		print_suite(one);
		print_device_defaults(one, &dd);
	} else {
		for (int i = 0; i < ax_suite_count; i++)
			printf("  %-10s %-8s %s\n", ax_suites[i]->name,
			       ax_suites[i]->unit, ax_suites[i]->summary);
	}
	ax_defaults_free(dd.file);
	return AX_EXIT_OK;
}

static const struct ax_cli_opt suites_opts[] = {{0}};

const struct ax_cli_cmd ax_cmd_suites = {
    .name = "suites",
    .summary = "list the suites, or one suite's parameters",
    .usage = "[NAME] [--json]",
    .examples =
	{"axbench suites                           # every suite, one line "
	 "each",
	 "axbench suites gemm                      # its parameters and rules"},
    .opts = suites_opts,
    .fn = suites_main,
};
