/* app/run_plan.c - the cases `axbench run` will measure. */
#include "app/run_plan.h"
#include "core/suggest.h"

#include "app/session.h"

#include "core/error.h"
#include "core/vk.h"
#include "reports/export.h"
#include "suites/registry.h"

#include <stdlib.h>
#include <string.h>

#define AX_PLAN_MAX_TEXT "10000" /* AX_PLAN_MAX_CASES, for messages */

static int add_plan_case(struct ax_plan *plan, const struct ax_plan_case *c)
{
	if (plan->n >= AX_PLAN_MAX_CASES)
		return AX_EINVAL;
	struct ax_plan_case *grown =
	    realloc(plan->cases, sizeof(*grown) * (size_t)(plan->n + 1));
	if (!grown)
		return AX_ENOMEM;
	plan->cases = grown;
	plan->cases[plan->n++] = *c;
	return 0;
}

static int add_case(struct ax_plan *plan, const struct ax_suite *s,
		    const struct ax_params *p)
{
	return add_plan_case(plan,
			     &(struct ax_plan_case){.suite = s, .params = *p});
}

static void known_suites(char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < ax_suite_count && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? ", " : "", ax_suites[i]->name);
}

static int check_suite_names(char **suites, int n, char *err, size_t errlen)
{
	for (int i = 0; i < n; i++) {
		if (ax_suite_find(suites[i]))
			continue;
		char known[256], hint[128];
		struct ax_suggest sg;
		ax_suggest_init(&sg, suites[i]);
		for (int k = 0; k < ax_suite_count; k++)
			ax_suggest_add(&sg, ax_suites[k]->name);
		known_suites(known, sizeof(known));
		return ax_errf(err, errlen, AX_ENOTFOUND,
			       "unknown suite '%s'%s (suites: %s)", suites[i],
			       ax_suggest_text(&sg, hint, sizeof(hint)),
			       known);
	}
	return 0;
}

static bool wanted(const char *name, char **suites, int n)
{
	if (n == 0)
		return true;
	for (int i = 0; i < n; i++)
		if (strcmp(suites[i], name) == 0)
			return true;
	return false;
}

/* Loaded profiles and tuned documents point into their schema, so it
 * lives in static storage (the suites never change while we run). */
static struct ax_config_schema plan_schema[64];

int ax_plan_schema(struct ax_config_schema *out, int max)
{
	const struct ax_suite *all[64];
	int n = ax_suite_all(all, max < 64 ? max : 64);
	for (int i = 0; i < n; i++)
		out[i] = (struct ax_config_schema){all[i]->name, all[i]->params,
						   all[i]->n_params};
	return n;
}

int ax_plan_load_tuned(struct ax_plan *plan, const char *path, char *err,
		       size_t errlen)
{
	int n = ax_plan_schema(plan_schema, 64);
	plan->tuned_path = path;
	return ax_export_load_tuned(path, plan_schema, n, &plan->tuned, err,
				    errlen);
}

int ax_plan_profile_check(const char *path, char *err, size_t errlen)
{
	struct ax_config *cfg = NULL;
	int n = ax_plan_schema(plan_schema, 64);
	int rc = ax_config_load(path, plan_schema, n, &cfg, err, errlen);
	ax_config_destroy(cfg);
	return rc;
}

static int load_profile(struct ax_plan *plan, const char *path, char **suites,
			int n_suites, char *err, size_t errlen)
{
	int n = ax_plan_schema(plan_schema, 64);
	int rc =
	    ax_config_load(path, plan_schema, n, &plan->profile, err, errlen);
	if (rc)
		return rc;
	for (int i = 0; i < plan->profile->n_suites; i++) {
		const struct ax_config_suite *cs = &plan->profile->suites[i];
		const struct ax_suite *s = ax_suite_find(cs->schema->suite);
		if (!wanted(s->name, suites, n_suites))
			continue;
		for (int c = 0; c < cs->n_cases && rc == 0; c++)
			rc = add_plan_case(
			    plan, &(struct ax_plan_case){.suite = s,
							 .params = cs->cases[c],
							 .pos = cs->pos[c]});
	}
	/* A named suite the profile leaves out runs its default case. */
	for (int i = 0; i < n_suites && rc == 0; i++) {
		if (ax_config_suite(plan->profile, suites[i]))
			continue;
		const struct ax_suite *s = ax_suite_find(suites[i]);
		struct ax_params p;
		ax_params_init(&p, s->params, s->n_params);
		rc = add_case(plan, s, &p);
	}
	return rc;
}

/* "; did you mean 'size'?" among the parameters of the plan's suites. */
static const char *suggest_param(const struct ax_plan *plan, const char *name,
				 char *buf, size_t len)
{
	struct ax_suggest sg;
	ax_suggest_init(&sg, name);
	for (int i = 0; i < plan->n; i++)
		for (int k = 0; (i == 0 || plan->cases[i].suite !=
					       plan->cases[i - 1].suite) &&
				k < plan->cases[i].params.n;
		     k++)
			ax_suggest_add(&sg,
					   plan->cases[i].params.defs[k].name);
	return ax_suggest_text(&sg, buf, len);
}

/* Apply one NAME=V1,V2 override: each case of a suite having NAME becomes
 * one case per value. */
static int apply_override(struct ax_plan *plan, const char *text, char *err,
			  size_t errlen)
{
	const char *eq = strchr(text, '=');
	char name[64], why[512] = "";
	if (!eq || eq == text || (size_t)(eq - text) >= sizeof(name))
		return ax_errf(err, errlen, AX_EINVAL,
			       "-p %s: expected NAME=VALUE (e.g. -p size=64M "
			       "or -p op=read,copy)",
			       text);
	memcpy(name, text, (size_t)(eq - text));
	name[eq - text] = '\0';
	struct ax_plan out = {.profile = plan->profile};
	bool used = false;
	int rc = 0;
	for (int i = 0; i < plan->n && rc == 0; i++) {
		struct ax_plan_case *c = &plan->cases[i];
		int idx = ax_params_find(&c->params, name);
		if (idx < 0) {
			rc = add_plan_case(&out, c);
			continue;
		}
		used = true;
		int64_t *vals;
		int n_vals;
		rc = ax_param_parse_list(&c->params.defs[idx], eq + 1, &vals,
					 &n_vals, why, sizeof(why));
		for (int v = 0; v < n_vals && rc == 0; v++) {
			struct ax_plan_case one = *c;
			one.params.v[idx] = vals[v];
			one.params.given |= 1u << idx;
			rc = add_plan_case(&out, &one);
		}
		free(vals);
	}
	if (rc == 0 && !used && plan->n > 0) {
		/* ax_params_set names the parameters the suite does know */
		struct ax_params p = plan->cases[0].params;
		char hint[128];
		ax_params_set(&p, name, "", why, sizeof(why));
		rc =
		    ax_errf(err, errlen, AX_ENOTFOUND, "-p %s: %s%s%s", text,
			    plan->n > 1 ? "no selected suite has it; " : "",
			    why, suggest_param(plan, name, hint, sizeof(hint)));
	} else if (rc) {
		ax_errf(err, errlen, rc, "-p %s: %s", text,
			why[0]		  ? why
			: rc == AX_ENOMEM ? "out of memory"
					  : "the plan grows past "
					    "the cap of " AX_PLAN_MAX_TEXT
					    " cases in one run; narrow the "
					    "sweep (fewer values, a larger "
					    "step) or split it into runs");
	}
	free(plan->cases);
	plan->cases = out.cases;
	plan->n = out.n;
	return rc;
}

/* Two -p for one name: refused (core/params.h). */
static int check_duplicates(const struct ax_plan_override *ov, int n_ov,
			    char *err, size_t errlen)
{
	const char **texts = calloc((size_t)n_ov + 1, sizeof(*texts));
	if (!texts)
		return ax_errf(err, errlen, AX_ENOMEM, "out of memory");
	for (int i = 0; i < n_ov; i++)
		texts[i] = ov[i].text;
	int rc = ax_params_check_unique(texts, n_ov, err, errlen);
	free(texts);
	return rc;
}

int ax_plan_build(struct ax_plan *plan, const char *profile_path, char **suites,
		  int n_suites, const struct ax_plan_override *ov, int n_ov,
		  char *err, size_t errlen)
{
	struct ax_tuned *tuned = plan->tuned;
	const char *tuned_path = plan->tuned_path;
	memset(plan, 0, sizeof(*plan));
	plan->tuned = tuned; /* loaded first by ax_plan_load_tuned */
	plan->tuned_path = tuned_path;
	int rc = check_suite_names(suites, n_suites, err, errlen);
	if (rc == 0)
		rc = check_duplicates(ov, n_ov, err, errlen);
	if (rc)
		return rc;
	if (profile_path) {
		rc = load_profile(plan, profile_path, suites, n_suites, err,
				  errlen);
	} else if (plan->tuned && n_suites == 0) {
		/* `run --tuned FILE` alone re-runs exactly the exported points
		 */
		for (int i = 0; i < plan->tuned->n && rc == 0; i++) {
			const struct ax_tuned_entry *e =
			    &plan->tuned->entries[i];
			rc = add_case(plan, ax_suite_find(e->suite->suite),
				      &e->params);
		}
	} else {
		for (int i = 0; i < n_suites && rc == 0; i++) {
			const struct ax_suite *s = ax_suite_find(suites[i]);
			struct ax_params p;
			ax_params_init(&p, s->params, s->n_params);
			rc = add_case(plan, s, &p);
		}
	}
	for (int i = 0; i < n_ov && rc == 0; i++)
		rc = apply_override(plan, ov[i].text, err, errlen);
	if (rc == 0 && plan->n == 0 && plan->tuned && !profile_path &&
	    n_suites == 0)
		rc = ax_errf(err, errlen, AX_EINVAL,
			     "nothing to run: --tuned %s holds no shape "
			     "(as export --tuned-only writes it when no tuned "
			     "point beat the defaults); name the suites to "
			     "run",
			     plan->tuned_path ? plan->tuned_path : "FILE");
	else if (rc == 0 && plan->n == 0)
		rc = ax_errf(err, errlen, AX_EINVAL,
			     "nothing to run: name suites (axbench suites "
			     "lists them) or a profile with them");
	return rc;
}

void ax_plan_release(struct ax_plan *plan)
{
	ax_config_destroy(plan->profile);
	ax_export_tuned_destroy(plan->tuned);
	free(plan->cases);
	free(plan->skipped);
	memset(plan, 0, sizeof(*plan));
}

struct ax_plan_tuned_count ax_plan_apply_tuned(struct ax_plan *plan,
					       const char *fingerprint)
{
	struct ax_plan_tuned_count n = {0, 0, 0};
	for (int i = 0; plan->tuned && i < plan->n; i++) {
		struct ax_plan_case *c = &plan->cases[i];
		const struct ax_tuned_entry *e = ax_export_tuned_apply(
		    plan->tuned, fingerprint, c->suite->name, &c->params);
		if (e)
			n.here++;
		else if ((e = ax_export_tuned_apply(plan->tuned, NULL,
						    c->suite->name,
						    &c->params)))
			n.elsewhere++;
		if (!e)
			continue;
		c->tuned = !e->defaults;
		c->tuned_defaults = e->defaults;
		n.defaults += e->defaults;
	}
	return n;
}

void ax_plan_case_where(const struct ax_plan *plan,
			const struct ax_plan_case *c, char *buf, size_t len)
{
	buf[0] = '\0';
	if (plan->profile && c->pos.line)
		snprintf(buf, len, "%s:%d:%d: ", plan->profile->path,
			 c->pos.line, c->pos.col);
}

/*
 * A device with no limits but the real one's features: a point its check
 * refuses breaks a rule of the suite itself, on any device.  (Host RAM,
 * which transfer also checks, stays what it is.)
 */
static void limitless(const struct ax_vk_device_info *info,
		      struct ax_vk_device_info *out)
{
	*out = *info;
	/* Field by field: app/ names no Vulkan type (make check-deps). */
	out->limits.maxComputeSharedMemorySize = UINT32_MAX;
	out->limits.maxComputeWorkGroupInvocations = UINT32_MAX;
	out->limits.maxStorageBufferRange = UINT32_MAX;
	for (int i = 0; i < 3; i++) {
		out->limits.maxComputeWorkGroupSize[i] = UINT32_MAX;
		out->limits.maxComputeWorkGroupCount[i] = UINT32_MAX;
	}
	out->max_memory_allocation_size = UINT64_MAX;
	/* Every subgroup size Vulkan allows (sg_size). */
	out->subgroup_size_control = true;
	out->subgroup_size_min = 1;
	out->subgroup_size_max = 128;
	out->max_workgroup_subgroups = UINT32_MAX;
	for (uint32_t h = 0; h < out->memory.memoryHeapCount; h++)
		out->memory.memoryHeaps[h].size = UINT64_MAX;
}

/* The suite's check, as the runner runs it (core rules first). */
static int check_case(const struct ax_plan_case *c,
		      const struct ax_vk_device_info *info, char *why,
		      size_t len)
{
	int rc = ax_params_check(&c->params, why, len);
	if (rc == 0 && c->suite->check)
		rc = c->suite->check(&c->params, info, why, len);
	return rc;
}

/* Position of s in the registry (the suites are few). */
static int suite_slot(const struct ax_suite *s)
{
	for (int i = 0; i < ax_suite_count; i++)
		if (ax_suites[i] == s)
			return i;
	return 0;
}

static int skip_case(struct ax_plan *plan, const struct ax_plan_case *c,
		     const char *why)
{
	struct ax_plan_skip *grown = realloc(
	    plan->skipped, sizeof(*grown) * (size_t)(plan->n_skipped + 1));
	if (!grown)
		return AX_ENOMEM;
	plan->skipped = grown;
	grown[plan->n_skipped].c = *c;
	snprintf(grown[plan->n_skipped].why, sizeof(grown->why), "%s", why);
	plan->n_skipped++;
	return 0;
}

/* "axbench run: FILE:L:C: gemm m=512 ... bm=64: why", naming the suite
 * once (the suites' messages start with "gemm: "). */
static void print_refused(const struct ax_plan *plan,
			  const struct ax_plan_case *c, const char *why,
			  const char *rule, const char *command)
{
	char where[1100], label[512];
	ax_plan_case_where(plan, c, where, sizeof(where));
	ax_session_case_label(&c->params, label, sizeof(label));
	size_t len = strlen(c->suite->name);
	if (strncmp(why, c->suite->name, len) == 0 && why[len] == ':')
		why += len + 1 + (why[len + 1] == ' ');
	fprintf(stderr, "axbench %s: %s%s%s%s: %s%s\n", command, where,
		c->suite->name,
		label[0] ? " " : "", label, why, rule);
}

int ax_plan_check(struct ax_plan *plan, const struct ax_vk_device_info *info,
		  bool skip_single, const char *command)
{
	if (!command)
		command = "run";
	struct ax_vk_device_info *ideal = malloc(sizeof(*ideal));
	int in_suite[64] = {0}; /* cases per suite (registry slot) */
	int kept = 0, errors = 0;
	if (!ideal) {
		fprintf(stderr, "axbench %s: out of memory\n", command);
		return AX_EXIT_FAIL;
	}
	limitless(info, ideal);
	for (int i = 0; i < plan->n; i++)
		in_suite[suite_slot(plan->cases[i].suite)]++;
	for (int i = 0; i < plan->n; i++) {
		const struct ax_plan_case *c = &plan->cases[i];
		char why[512];
		if (check_case(c, info, why, sizeof(why)) != AX_EINVAL) {
			plan->cases[kept++] = *c; /* AX_EUNSUPPORTED: stored as
						     skipped by the runner */
			continue;
		}
		bool rule = check_case(c, ideal, why, sizeof(why)) == AX_EINVAL;
		if (!rule)
			check_case(c, info, why, sizeof(why));
		bool alone = in_suite[suite_slot(c->suite)] == 1;
		if (rule || (alone && !skip_single)) {
			print_refused(plan, c, why,
				      rule ? ""
					   : "; it was asked for alone (a "
					     "sweep would skip it)",
				      command);
			errors++;
		} else if (skip_case(plan, c, why)) {
			fprintf(stderr, "axbench %s: out of memory\n", command);
			errors++;
		}
	}
	plan->n = kept;
	free(ideal);
	if (errors)
		return AX_EXIT_USAGE;
	if (kept == 0) {
		fprintf(stderr,
			"axbench %s: no case is possible on %s (all %d are "
			"beyond its limits)\n",
			command, info->name, plan->n_skipped);
		return AX_EXIT_USAGE;
	}
	return 0;
}

void ax_plan_apply_measure(const struct ax_config *profile,
			   struct ax_runner_opts *o, unsigned cli_set)
{
	const struct ax_config_measure *m = &profile->measure;
	unsigned use = m->set & ~cli_set;
	if (use & AX_MEASURE_MIN_SAMPLES)
		o->min_samples = m->min_samples;
	if (use & AX_MEASURE_MAX_SAMPLES)
		o->max_samples = m->max_samples;
	if (use & AX_MEASURE_MAX_NOISE)
		o->max_noise = m->max_noise_pct / 100;
	if (use & AX_MEASURE_MIN_TIME)
		o->min_time_s = m->min_time_s;
	if (use & AX_MEASURE_MAX_TIME)
		o->max_time_s = m->max_time_s;
	if (use & AX_MEASURE_TIMEOUT)
		o->timeout_s = m->timeout_s;
	if (use & AX_MEASURE_WARMUP)
		o->warmup = m->warmup;
	if (use & AX_MEASURE_MODE)
		o->mode = m->mode == AX_CONFIG_MODE_COLD ? AX_MODE_COLD
							 : AX_MODE_BATCH;
}
