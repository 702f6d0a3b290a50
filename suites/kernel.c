/*
 * suites/kernel.c - the suite a user kernel's description file makes:
 * its parameter table, its rules (the file's constraints and the
 * device's limits) and its work model.  Set-up, dispatch and
 * verification are in suites/kernel_run.c.
 */
#include "suites/kernel.h"

#include "core/config.h"
#include "core/error.h"
#include "core/infile.h"
#include "suites/kernel_internal.h"
#include "suites/registry.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A shader is source text: the limit the YAML it came with has, far above
 * any compute kernel (#include files have core/glsl.c's own). */
#define MAX_SHADER_BYTES ((size_t)AX_CONFIG_MAX_BYTES)

struct ax_kernel *ax_kernel_of(const struct ax_params *p)
{
	return (struct ax_kernel *)((char *)p->defs -
				    offsetof(struct ax_kernel, defs));
}

/* ---- expressions at a point ------------------------------------------- */

struct scope {
	const struct ax_kernel_desc *d;
	const struct ax_params *p;
	const struct ax_vk_device_info *dev;
};

static int device_var(const struct ax_vk_device_info *dev, const char *name,
		      int64_t *v)
{
	const VkPhysicalDeviceLimits *l = &dev->limits;
	const struct {
		const char *name;
		int64_t value;
	} vars[] = {
	    {"max_shared_memory", l->maxComputeSharedMemorySize},
	    {"max_invocations", l->maxComputeWorkGroupInvocations},
	    {"max_group_size_x", l->maxComputeWorkGroupSize[0]},
	    {"max_group_size_y", l->maxComputeWorkGroupSize[1]},
	    {"max_group_size_z", l->maxComputeWorkGroupSize[2]},
	    {"max_group_count_x", l->maxComputeWorkGroupCount[0]},
	    {"max_group_count_y", l->maxComputeWorkGroupCount[1]},
	    {"max_group_count_z", l->maxComputeWorkGroupCount[2]},
	    {"subgroup_size", dev->subgroup_size},
	    {"max_buffer_range", l->maxStorageBufferRange},
	};
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (!strcmp(vars[i].name, name)) {
			*v = vars[i].value;
			return 0;
		}
	return 1;
}

static int lookup(void *ctx, const char *name, int64_t *v)
{
	const struct scope *s = ctx;
	for (int i = 0; i < s->d->n_params; i++)
		if (!strcmp(s->d->params[i].name, name)) {
			*v = s->p->v[i];
			return 0;
		}
	return s->dev ? device_var(s->dev, name, v) : 1;
}

int ax_kernel_eval(const struct ax_kernel *k, const struct ax_kernel_expr *e,
		   const char *what, const struct ax_params *p,
		   const struct ax_vk_device_info *dev, int64_t *out, char *err,
		   size_t errlen)
{
	char msg[512];
	struct scope s = {k->desc, p, dev};
	int rc = ax_expr_eval(e->e, lookup, &s, out, msg, sizeof(msg));
	if (rc)
		return ax_errf(err, errlen, AX_EINVAL, "%s:%d:%d: %s: %s%s",
			       k->desc->path, e->pos.line, e->pos.col, what,
			       msg,
			       dev ? ""
				   : " (device limits are known only to "
				     "constraints)");
	return 0;
}

/* ---- the rules ------------------------------------------------------- */

static int check_constraints(const struct ax_kernel *k,
			     const struct ax_params *p,
			     const struct ax_vk_device_info *dev, char *why,
			     size_t whylen)
{
	char label[512];
	for (int i = 0; i < k->desc->n_constraints; i++) {
		const struct ax_kernel_expr *c = &k->desc->constraints[i];
		int64_t v;
		int rc =
		    ax_kernel_eval(k, c, "constraint", p, dev, &v, why, whylen);
		if (rc)
			return rc;
		if (v)
			continue;
		ax_params_label(p, 0, label, sizeof(label));
		return ax_errf(why, whylen, AX_EINVAL,
			       "%s: constraint \"%s\" (line %d) does not "
			       "hold at %s",
			       k->suite_name, ax_expr_text(c->e), c->pos.line,
			       label);
	}
	return 0;
}

static int check_buffers(const struct ax_kernel *k, const struct ax_params *p,
			 const struct ax_vk_device_info *dev, char *why,
			 size_t whylen)
{
	uint64_t limit = dev->limits.maxStorageBufferRange;
	if (dev->max_memory_allocation_size &&
	    dev->max_memory_allocation_size < limit)
		limit = dev->max_memory_allocation_size;
	for (int i = 0; i < k->desc->n_buffers; i++) {
		const struct ax_kernel_buffer *b = &k->desc->buffers[i];
		int64_t n;
		int rc = ax_kernel_eval(k, &b->elements, "elements", p, dev, &n,
					why, whylen);
		if (rc)
			return rc;
		if (n < 1 || (uint64_t)n > limit / 4)
			return ax_errf(why, whylen, AX_EINVAL,
				       "%s: buffer %s has %" PRId64
				       " elements; it needs 1 to %" PRIu64
				       " (the device's buffer limit, 4 bytes "
				       "an element)",
				       k->suite_name, b->name, n, limit / 4);
	}
	return 0;
}

static int check_dispatch(const struct ax_kernel *k, const struct ax_params *p,
			  const struct ax_vk_device_info *dev, char *why,
			  size_t whylen)
{
	for (int a = 0; a < 3; a++) {
		int64_t n;
		if (!k->desc->dispatch[a].e)
			continue;
		int rc = ax_kernel_eval(k, &k->desc->dispatch[a], "dispatch", p,
					dev, &n, why, whylen);
		if (rc)
			return rc;
		uint32_t max = dev->limits.maxComputeWorkGroupCount[a];
		if (n < 1 || n > max)
			return ax_errf(why, whylen, AX_EINVAL,
				       "%s: dispatch %c is %" PRId64
				       " workgroups; the device takes 1 to %u",
				       k->suite_name, "xyz"[a], n, max);
	}
	return 0;
}

static int check_rest(const struct ax_kernel *k, const struct ax_params *p,
		      const struct ax_vk_device_info *dev, char *why,
		      size_t whylen)
{
	int64_t v;
	int rc = 0;
	for (int i = 0; !rc && i < k->desc->n_push; i++)
		rc = ax_kernel_eval(k, &k->desc->push[i].value, "push constant",
				    p, dev, &v, why, whylen);
	if (!rc && k->desc->flops.e)
		rc = ax_kernel_eval(k, &k->desc->flops, "work.flops", p, NULL,
				    &v, why, whylen);
	if (!rc && k->desc->bytes.e)
		rc = ax_kernel_eval(k, &k->desc->bytes, "work.bytes", p, NULL,
				    &v, why, whylen);
	return rc;
}

static int kernel_check(const struct ax_params *p,
			const struct ax_vk_device_info *dev, char *why,
			size_t whylen)
{
	const struct ax_kernel *k = ax_kernel_of(p);
	int rc = check_constraints(k, p, dev, why, whylen);
	if (!rc)
		rc = check_buffers(k, p, dev, why, whylen);
	if (!rc)
		rc = check_dispatch(k, p, dev, why, whylen);
	return rc ? rc : check_rest(k, p, dev, why, whylen);
}

/* ---- work model ------------------------------------------------------ */

static double eval_or_nan(const struct ax_kernel_expr *e,
			  const struct ax_params *p)
{
	int64_t v;
	char err[256];
	const struct ax_kernel *k = ax_kernel_of(p);
	if (!e->e ||
	    ax_kernel_eval(k, e, "work", p, NULL, &v, err, sizeof(err)))
		return NAN;
	return (double)v;
}

static double kernel_work(const struct ax_params *p)
{
	const struct ax_kernel *k = ax_kernel_of(p);
	if (k->desc->flops.e)
		return eval_or_nan(&k->desc->flops, p);
	if (k->desc->bytes.e)
		return eval_or_nan(&k->desc->bytes, p);
	return 1; /* timed: one repetition is one unit */
}

static double kernel_bytes(const struct ax_params *p)
{
	return eval_or_nan(&ax_kernel_of(p)->desc->bytes, p);
}

/* ---- building the suite ---------------------------------------------- */

static void build_defs(struct ax_kernel *k)
{
	const struct ax_kernel_desc *d = k->desc;
	for (int i = 0; i < d->n_params; i++) {
		const struct ax_kernel_param *kp = &d->params[i];
		k->defs[i] = (struct ax_param_def){
		    .name = kp->name,
		    .type = AX_PT_INT,
		    .min = kp->values[0],
		    .max = kp->values[kp->n_values - 1],
		    .def = kp->def,
		    .flags = (kp->tunable ? AX_PARAM_TUNABLE : 0) |
			     (kp->shape ? AX_PARAM_SHAPE : 0),
		    .help = kp->help ? kp->help
				     : (kp->define ? kp->define : kp->name),
		    .values = kp->values,
		    .n_values = kp->n_values,
		    /* spec_id: packed by ax_suite_spec, as built-in
		     * suites' knobs are */
		    .spec = {kp->spec_id >= 0, (uint32_t)kp->spec_id},
		};
	}
}

static void build_texts(struct ax_kernel *k)
{
	const struct ax_kernel_desc *d = k->desc;
	snprintf(k->suite_name, sizeof(k->suite_name), "%s%s",
		 AX_KERNEL_SUITE_PREFIX, d->name);
	snprintf(k->summary, sizeof(k->summary), "%s (user kernel, %s)",
		 d->description ? d->description : d->name, d->path);
	if (d->flops.e)
		snprintf(k->work_model, sizeof(k->work_model),
			 "GFLOP/s = (%s) / time / 1e9",
			 ax_expr_text(d->flops.e));
	else if (d->bytes.e)
		snprintf(k->work_model, sizeof(k->work_model),
			 "GB/s = (%s) / time / 1e9", ax_expr_text(d->bytes.e));
	else
		snprintf(k->work_model, sizeof(k->work_model),
			 "us per dispatch (the file gives no work model)");
	size_t used = 0;
	k->constraints[0] = '\0';
	for (int i = 0; i < d->n_constraints && used < sizeof(k->constraints);
	     i++)
		used += (size_t)snprintf(
		    k->constraints + used, sizeof(k->constraints) - used,
		    "%s%s", i ? "\n" : "", ax_expr_text(d->constraints[i].e));
}

static void build_suite(struct ax_kernel *k)
{
	const struct ax_kernel_desc *d = k->desc;
	build_defs(k);
	build_texts(k);
	bool rate = d->flops.e || d->bytes.e;
	k->suite = (struct ax_suite){
	    .name = k->suite_name,
	    .summary = k->summary,
	    .work_model = k->work_model,
	    .constraints = d->n_constraints ? k->constraints : NULL,
	    .unit = d->flops.e ? "GFLOP/s" : (d->bytes.e ? "GB/s" : "us"),
	    .metric = rate ? AX_METRIC_RATE : AX_METRIC_TIME,
	    .scale = rate ? 1e9 : 1e6,
	    .higher_is_better = rate,
	    .params = k->defs,
	    .n_params = d->n_params,
	    .check = kernel_check,
	    .setup = ax_kernel_setup,
	    .record = ax_kernel_record,
	    .verify = ax_kernel_verify,
	    .work = kernel_work,
	    .bytes = d->bytes.e ? kernel_bytes : NULL,
	    .describe = ax_kernel_describe,
	    .spirv_hash = ax_kernel_spirv_hash,
	    .teardown = ax_kernel_teardown,
	};
}

int ax_kernel_load(const char *path, struct ax_kernel **out, char *err,
		   size_t errlen)
{
	*out = NULL;
	struct ax_kernel *k = calloc(1, sizeof(*k));
	if (!k)
		return AX_ENOMEM;
	int rc = ax_kernel_desc_load(path, &k->desc, err, errlen);
	if (!rc)
		rc = ax_infile_read(k->desc->shader_path, "shader file",
				    MAX_SHADER_BYTES, &k->source,
				    &k->source_len, err, errlen);
	if (rc) {
		ax_kernel_free(k);
		return rc;
	}
	build_suite(k);
	rc = ax_suite_register(&k->suite, err, errlen);
	if (rc) {
		ax_kernel_free(k);
		return rc;
	}
	k->registered = true;
	*out = k;
	return 0;
}

void ax_kernel_free(struct ax_kernel *k)
{
	if (!k)
		return;
	if (k->registered)
		ax_suite_unregister(&k->suite);
	ax_kernel_ref_clear(&k->ref);
	ax_kernel_desc_free(k->desc);
	free(k->source);
	free(k);
}

const struct ax_suite *ax_kernel_suite(const struct ax_kernel *k)
{
	return &k->suite;
}

void ax_kernel_reference_point(const struct ax_kernel *k,
			       const struct ax_params *p, struct ax_params *ref)
{
	*ref = *p;
	for (int i = 0; i < k->desc->n_params; i++)
		if (k->desc->ref_set[i])
			ref->v[i] = k->desc->ref_value[i];
}

const char *ax_kernel_path(const struct ax_kernel *k) { return k->desc->path; }

const char *ax_kernel_shader_path(const struct ax_kernel *k)
{
	return k->desc->shader_path;
}
