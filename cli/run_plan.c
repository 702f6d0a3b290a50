/* cli/run_plan.c - the cases `axbench run` will measure. */
#include "cli/run_plan.h"

#include "core/error.h"
#include "reports/export.h"
#include "suites/registry.h"

#include <stdlib.h>
#include <string.h>

#define AX_PLAN_MAX_CASES 10000
#define AX_PLAN_MAX_TEXT "10000"

static int add_case(struct ax_plan *plan, const struct ax_suite *s,
		    const struct ax_params *p)
{
	if (plan->n >= AX_PLAN_MAX_CASES)
		return AX_EINVAL;
	struct ax_plan_case *grown =
	    realloc(plan->cases, sizeof(*grown) * (size_t)(plan->n + 1));
	if (!grown)
		return AX_ENOMEM;
	plan->cases = grown;
	plan->cases[plan->n].suite = s;
	plan->cases[plan->n].params = *p;
	plan->n++;
	return 0;
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
		char known[256];
		known_suites(known, sizeof(known));
		return ax_errf(err, errlen, AX_ENOTFOUND,
			       "unknown suite '%s' (suites: %s)", suites[i],
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
	int n = ax_suite_count < max ? ax_suite_count : max;
	for (int i = 0; i < n; i++)
		out[i] = (struct ax_config_schema){ax_suites[i]->name,
						   ax_suites[i]->params,
						   ax_suites[i]->n_params};
	return n;
}

int ax_plan_load_tuned(struct ax_plan *plan, const char *path, char *err,
		       size_t errlen)
{
	int n = ax_plan_schema(plan_schema, 64);
	return ax_export_load_tuned(path, plan_schema, n, &plan->tuned, err,
				    errlen);
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
			rc = add_case(plan, s, &cs->cases[c]);
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
			rc = add_case(&out, c->suite, &c->params);
			continue;
		}
		used = true;
		int64_t *vals;
		int n_vals;
		rc = ax_param_parse_list(&c->params.defs[idx], eq + 1, &vals,
					 &n_vals, why, sizeof(why));
		for (int v = 0; v < n_vals && rc == 0; v++) {
			struct ax_params p = c->params;
			p.v[idx] = vals[v];
			rc = add_case(&out, c->suite, &p);
		}
		free(vals);
	}
	if (rc == 0 && !used && plan->n > 0) {
		/* ax_params_set names the parameters the suite does know */
		struct ax_params p = plan->cases[0].params;
		ax_params_set(&p, name, "", why, sizeof(why));
		rc = ax_errf(err, errlen, AX_ENOTFOUND, "-p %s: %s%s", text,
			     plan->n > 1 ? "no selected suite has it; " : "",
			     why);
	} else if (rc) {
		ax_errf(err, errlen, rc, "-p %s: %s", text,
			why[0]		  ? why
			: rc == AX_ENOMEM ? "out of memory"
					  : "more than " AX_PLAN_MAX_TEXT
					    " cases in all");
	}
	free(plan->cases);
	plan->cases = out.cases;
	plan->n = out.n;
	return rc;
}

int ax_plan_build(struct ax_plan *plan, const char *profile_path, char **suites,
		  int n_suites, const struct ax_plan_override *ov, int n_ov,
		  char *err, size_t errlen)
{
	struct ax_tuned *tuned = plan->tuned;
	memset(plan, 0, sizeof(*plan));
	plan->tuned = tuned; /* loaded first by ax_plan_load_tuned */
	int rc = check_suite_names(suites, n_suites, err, errlen);
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
	if (rc == 0 && plan->n == 0)
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
	memset(plan, 0, sizeof(*plan));
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
