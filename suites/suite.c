/*
 * suites/suite.c - what every suite shares: the specialization constants
 * packed from its parameter table (one loop, as user kernels' spec_id:
 * are in suites/kernel_run.c), and the rules a descriptor must keep,
 * which the registry checks before any suite is used.
 */
#include "suites/suite.h"

#include "core/error.h"

#include <string.h>

int ax_suite_spec(const struct ax_params *p, struct ax_vk_spec *out)
{
	int n = 0;
	for (int i = 0; i < p->n; i++)
		if (p->defs[i].spec.set)
			out[n++] = (struct ax_vk_spec){p->defs[i].spec.id,
						       (uint32_t)p->v[i]};
	return n;
}

const int64_t ax_suite_sg_sizes[AX_SUITE_SG_SIZES] = {0,  1,  2,  4,  8,
						      16, 32, 64, 128};

int ax_suite_check_subgroup_size(const char *suite, uint32_t size,
				 uint64_t invocations,
				 const struct ax_vk_device_info *dev, char *why,
				 size_t whylen)
{
	uint64_t most = (uint64_t)size * dev->max_workgroup_subgroups;
	if (size && ax_vk_subgroup_size_ok(dev, size) &&
	    dev->max_workgroup_subgroups && invocations > most)
		return ax_errf(why, whylen, AX_EINVAL,
			       "%s: sg_size=%u: a workgroup of %llu "
			       "invocations exceeds sg_size x "
			       "maxComputeWorkgroupSubgroups = %llu on %s; "
			       "use a smaller workgroup or sg_size=0",
			       suite, size, (unsigned long long)invocations,
			       (unsigned long long)most, dev->name);
	if (size == 0 || ax_vk_subgroup_size_ok(dev, size))
		return 0;
	if (!dev->subgroup_size_control)
		return ax_errf(why, whylen, AX_EINVAL,
			       "%s: sg_size=%u: %s has no "
			       "VK_EXT_subgroup_size_control, so its "
			       "subgroup size (%u) is the driver's; use "
			       "sg_size=0",
			       suite, size, dev->name, dev->subgroup_size);
	return ax_errf(why, whylen, AX_EINVAL,
		       "%s: sg_size=%u is not a subgroup size %s can "
		       "require (%u..%u, powers of two); use 0 (the driver's "
		       "choice) or one of those",
		       suite, size, dev->name, dev->subgroup_size_min,
		       dev->subgroup_size_max);
}

/* The hooks that only work together. */
static const char *hooks_rule(const struct ax_suite *s)
{
	if (!s->setup || !s->teardown)
		return "setup and teardown come together";
	if (!s->verify)
		return "verify is required: a result is checked before its "
		       "time counts";
	if (!s->work)
		return "work is required: it is the result's numerator";
	if (s->host_timed && !(s->record && s->host_op))
		return "host_timed chooses between record and host_op: both "
		       "are set with it";
	if (!s->host_timed && !s->record == !s->host_op)
		return "exactly one of record (GPU-timed) and host_op "
		       "(host-timed) is set, or both with host_timed";
	if (s->host_prepare && !s->host_op)
		return "host_prepare is for host-timed suites (host_op)";
	if (s->spirv_hash && s->shader)
		return "spirv_hash (built at set-up) and shader (embedded) "
		       "exclude each other";
	if (!(s->scale > 0))
		return "scale must be positive";
	return NULL;
}

/* The parameter called name in s's table with an integer type, or NULL. */
static const struct ax_param_def *int_param(const struct ax_suite *s,
					    const char *name)
{
	for (int i = 0; i < s->n_params; i++)
		if (!strcmp(s->params[i].name, name))
			return s->params[i].type == AX_PT_INT ? &s->params[i]
							      : NULL;
	return NULL;
}

static bool has_param(const struct ax_suite *s, const char *name)
{
	for (int i = 0; i < s->n_params; i++)
		if (!strcmp(s->params[i].name, name))
			return true;
	return false;
}

/* batch_param, the curve's axis and groups, recommend_needs: the names
 * the report and recommend look up must be in the table. */
static const char *named_params(const struct ax_suite *s, const char **which)
{
	if (s->batch_param && !int_param(s, *which = s->batch_param))
		return "batch_param must name an integer parameter";
	if (s->curve && !int_param(s, *which = s->curve->x))
		return "the curve's x must name an integer parameter";
	for (int i = 0; s->curve && s->curve->group && s->curve->group[i]; i++)
		if (!has_param(s, *which = s->curve->group[i]))
			return "the curve's group must name parameters";
	for (int i = 0; s->recommend_needs && s->recommend_needs[i].distinct;
	     i++) {
		const char *p = s->recommend_needs[i].param;
		if (p && !has_param(s, *which = p))
			return "recommend_needs must name parameters";
	}
	return NULL;
}

int ax_suite_validate(const struct ax_suite *s, char *err, size_t errlen)
{
	const char *name = s->name ? s->name : "(unnamed)";
	if (!s->name || !*s->name || !s->summary || !s->unit || !*s->unit)
		return ax_errf(err, errlen, AX_EINVAL,
			       "suite %s: name, summary and unit are required",
			       name);
	const char *rule = hooks_rule(s), *which = NULL;
	if (rule)
		return ax_errf(err, errlen, AX_EINVAL, "suite %s: %s", name,
			       rule);
	char why[512];
	if (ax_param_table_check(s->params, s->n_params, s->config_size, why,
				 sizeof(why)))
		return ax_errf(err, errlen, AX_EINVAL, "suite %s: %s", name,
			       why);
	if ((rule = named_params(s, &which)))
		return ax_errf(err, errlen, AX_EINVAL,
			       "suite %s: %s (%s is not one)", name, rule,
			       which);
	for (unsigned bit = 1; bit && bit <= s->roles; bit <<= 1)
		if ((s->roles & bit) &&
		    ax_role_check(bit, s->params, s->n_params, why,
				  sizeof(why)))
			return ax_errf(err, errlen, AX_EINVAL, "suite %s: %s",
				       name, why);
	return 0;
}
