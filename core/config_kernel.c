/*
 * core/config_kernel.c - a user kernel's description file (format in
 * core/kernel_desc.h), read with the profile reader's YAML helpers so
 * that every message cites FILE:LINE:COL the same way.
 *
 * The loader checks what the file alone can tell: keys, types, names,
 * expression syntax and the variables expressions use, value lists,
 * that something verifies the outputs.  What needs a device or a
 * configuration (constraints, sizes, the shader compiling) is checked by
 * suites/kernel.c.
 */
#include "core/config.h"
#include "core/config_yaml.h"
#include "core/error.h"
#include "core/kernel_desc.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ax_kernel_device_vars[] = {"max_shared_memory",
					     "max_invocations",
					     "max_group_size_x",
					     "max_group_size_y",
					     "max_group_size_z",
					     "max_group_count_x",
					     "max_group_count_y",
					     "max_group_count_z",
					     "subgroup_size",
					     "max_buffer_range",
					     NULL};

static const char *const type_names[] = {"float", "int", "uint", NULL};
static const char *const init_names[] = {"zeros", "random", "iota", "file",
					 NULL};
static const char *const role_names[] = {"in", "out", "inout", NULL};

const char *ax_kernel_type_name(enum ax_kernel_type t) { return type_names[t]; }
const char *ax_kernel_init_name(enum ax_kernel_init i) { return init_names[i]; }
const char *ax_kernel_role_name(enum ax_kernel_role r) { return role_names[r]; }

struct kl {
	struct ax_yaml y;
	struct ax_kernel_desc *d;
	char *dir; /* the file's directory, for relative paths */
};

static yaml_node_t *get(struct kl *k, yaml_node_t *map, const char *key)
{
	return ax_yaml_get(&k->y, map, key);
}

static struct ax_kernel_pos pos_of(const yaml_node_t *n)
{
	return (struct ax_kernel_pos){(int)n->start_mark.line + 1,
				      (int)n->start_mark.column + 1};
}

static int want_map(struct kl *k, yaml_node_t *n, const char *what,
		    const char *const *keys)
{
	if (n->type != YAML_MAPPING_NODE)
		return ax_yaml_fail(&k->y, n, "%s must be a mapping, not %s",
				    what, ax_yaml_kind(n));
	return ax_yaml_check_keys(&k->y, n, what, keys);
}

static int want_seq(struct kl *k, yaml_node_t *n, const char *what, int max)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return ax_yaml_fail(&k->y, n, "%s must be a sequence, not %s",
				    what, ax_yaml_kind(n));
	long count = n->data.sequence.items.top - n->data.sequence.items.start;
	if (count > max)
		return ax_yaml_fail(&k->y, n, "%s has %ld entries; at most %d",
				    what, count, max);
	return 0;
}

/* A plain scalar (not null), or a message naming what. */
static int want_scalar(struct kl *k, yaml_node_t *n, const char *what)
{
	if (n->type != YAML_SCALAR_NODE || ax_yaml_is_null(n))
		return ax_yaml_fail(&k->y, n, "%s must be a value, not %s",
				    what, ax_yaml_kind(n));
	return 0;
}

static int get_int(struct kl *k, yaml_node_t *n, const char *what, int64_t lo,
		   int64_t hi, int64_t *out)
{
	int rc = want_scalar(k, n, what);
	if (rc)
		return rc;
	char *end;
	errno = 0;
	long long v = strtoll(ax_yaml_text(n), &end, 0);
	if (end == ax_yaml_text(n) || *end || errno || v < lo || v > hi)
		return ax_yaml_fail(&k->y, n,
				    "%s must be an integer from %" PRId64
				    " to %" PRId64 " (got %s)",
				    what, lo, hi, ax_yaml_text(n));
	*out = v;
	return 0;
}

static int get_double(struct kl *k, yaml_node_t *n, const char *what,
		      double *out)
{
	int rc = want_scalar(k, n, what);
	if (rc)
		return rc;
	char *end;
	double v = strtod(ax_yaml_text(n), &end);
	if (end == ax_yaml_text(n) || *end || !(v >= 0) || v > 1e300)
		return ax_yaml_fail(&k->y, n,
				    "%s must be a number >= 0 (got %s)", what,
				    ax_yaml_text(n));
	*out = v;
	return 0;
}

static int get_bool(struct kl *k, yaml_node_t *n, const char *what, bool *out)
{
	int rc = want_scalar(k, n, what);
	if (rc)
		return rc;
	const char *t = ax_yaml_text(n);
	if (!strcmp(t, "true") || !strcmp(t, "false")) {
		*out = t[0] == 't';
		return 0;
	}
	return ax_yaml_fail(&k->y, n, "%s must be true or false (got %s)", what,
			    t);
}

static int get_choice(struct kl *k, yaml_node_t *n, const char *what,
		      const char *const *names, int *out)
{
	int rc = want_scalar(k, n, what);
	if (rc)
		return rc;
	char list[128] = "";
	for (int i = 0; names[i]; i++) {
		if (!strcmp(names[i], ax_yaml_text(n))) {
			*out = i;
			return 0;
		}
		ax_yaml_join(list, sizeof(list), names[i]);
	}
	return ax_yaml_fail(&k->y, n, "%s must be one of %s (got %s)", what,
			    list, ax_yaml_text(n));
}

/* A name a parameter, buffer or define may have: a C identifier, so that
 * it can be a #define and an expression variable. */
static int get_ident(struct kl *k, yaml_node_t *n, const char *what, char **out)
{
	int rc = want_scalar(k, n, what);
	if (rc)
		return rc;
	const char *t = ax_yaml_text(n);
	size_t len = strlen(t);
	bool ok = len > 0 && len < 64 && !(t[0] >= '0' && t[0] <= '9');
	for (size_t i = 0; ok && i < len; i++)
		ok = (t[i] >= 'a' && t[i] <= 'z') ||
		     (t[i] >= 'A' && t[i] <= 'Z') ||
		     (t[i] >= '0' && t[i] <= '9') || t[i] == '_';
	if (!ok)
		return ax_yaml_fail(&k->y, n,
				    "%s '%s' must be an identifier: letters, "
				    "digits and _, 1 to 63 characters, not "
				    "starting with a digit",
				    what, t);
	*out = strdup(t);
	return *out ? 0 : AX_ENOMEM;
}

/* A path relative to the description file's directory. */
static int get_path(struct kl *k, yaml_node_t *n, const char *what, char **out)
{
	int rc = want_scalar(k, n, what);
	if (rc)
		return rc;
	const char *t = ax_yaml_text(n);
	if (t[0] == '/')
		*out = strdup(t);
	else if (asprintf(out, "%s/%s", k->dir, t) < 0)
		*out = NULL;
	return *out ? 0 : AX_ENOMEM;
}

/* ---- expressions ------------------------------------------------------ */

struct var_check {
	struct kl *k;
	const char *bad;
};

static bool is_param(const struct ax_kernel_desc *d, const char *name)
{
	for (int i = 0; i < d->n_params; i++)
		if (!strcmp(d->params[i].name, name))
			return true;
	return false;
}

static int check_var(void *ctx, const char *name)
{
	struct var_check *vc = ctx;
	if (is_param(vc->k->d, name))
		return 0;
	for (int i = 0; ax_kernel_device_vars[i]; i++)
		if (!strcmp(ax_kernel_device_vars[i], name))
			return 0;
	vc->bad = name;
	return 1;
}

/* Parse n as an expression whose variables are parameters or device
 * limits; a plain YAML integer is an expression too. */
static int get_expr(struct kl *k, yaml_node_t *n, const char *what,
		    struct ax_kernel_expr *out)
{
	char msg[512];
	int rc = want_scalar(k, n, what);
	if (rc)
		return rc;
	rc = ax_expr_parse(ax_yaml_text(n), &out->e, msg, sizeof(msg));
	if (rc == AX_ENOMEM)
		return rc;
	if (rc)
		return ax_yaml_fail(&k->y, n, "%s: %s", what, msg);
	out->pos = pos_of(n);
	struct var_check vc = {k, NULL};
	if (!ax_expr_each_var(out->e, check_var, &vc))
		return 0;
	char known[768] = "";
	for (int i = 0; i < k->d->n_params; i++)
		ax_yaml_join(known, sizeof(known), k->d->params[i].name);
	for (int i = 0; ax_kernel_device_vars[i]; i++)
		ax_yaml_join(known, sizeof(known), ax_kernel_device_vars[i]);
	return ax_yaml_fail(&k->y, n,
			    "%s: expression \"%s\" uses unknown variable "
			    "'%s'; known: %s",
			    what, ax_yaml_text(n), vc.bad, known);
}

/* ---- params ----------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* values: [a, b, ...]: sorted; a repeated value is refused. */
static int load_values(struct kl *k, yaml_node_t *n, struct ax_kernel_param *p)
{
	char what[128];
	snprintf(what, sizeof(what), "params.%s.values", p->name);
	int rc = want_seq(k, n, what, AX_SWEEP_MAX);
	if (rc)
		return rc;
	int count =
	    (int)(n->data.sequence.items.top - n->data.sequence.items.start);
	if (!count)
		return ax_yaml_fail(&k->y, n,
				    "%s is empty; list at least one "
				    "value",
				    what);
	if (!(p->values = calloc((size_t)count, sizeof(int64_t))))
		return AX_ENOMEM;
	AX_YAML_ITEMS_FOREACH(it, n)
	{
		rc = get_int(k, ax_yaml_node(&k->y, *it), what, INT32_MIN,
			     INT32_MAX, &p->values[p->n_values]);
		if (rc)
			return rc;
		p->n_values++;
	}
	qsort(p->values, (size_t)count, sizeof(int64_t), cmp_i64);
	for (int i = 1; i < count; i++)
		if (p->values[i] == p->values[i - 1])
			return ax_yaml_fail(&k->y, n,
					    "%s lists %" PRId64 " twice; "
					    "list each value once",
					    what, p->values[i]);
	return 0;
}

/* range: LO..HI (doubling), LO..HI:xF or LO..HI:STEP, as `-p` takes. */
static int load_range(struct kl *k, yaml_node_t *n, struct ax_kernel_param *p)
{
	char what[128], msg[512];
	snprintf(what, sizeof(what), "params.%s.range", p->name);
	int rc = want_scalar(k, n, what);
	if (rc)
		return rc;
	struct ax_param_def any = {.name = p->name,
				   .type = AX_PT_INT,
				   .min = INT32_MIN,
				   .max = INT32_MAX};
	rc = ax_param_parse_list(&any, ax_yaml_text(n), &p->values,
				 &p->n_values, msg, sizeof(msg));
	if (rc == AX_ENOMEM)
		return rc;
	if (rc || !strstr(ax_yaml_text(n), ".."))
		return ax_yaml_fail(&k->y, n,
				    "%s must be LO..HI, LO..HI:xF or "
				    "LO..HI:STEP (%s)",
				    what, rc ? msg : "no '..'");
	return 0;
}

static int load_param_default(struct kl *k, yaml_node_t *n,
			      struct ax_kernel_param *p)
{
	char what[128];
	snprintf(what, sizeof(what), "params.%s.default", p->name);
	p->def = p->values[0];
	if (!n)
		return 0;
	int rc = get_int(k, n, what, INT32_MIN, INT32_MAX, &p->def);
	for (int i = 0; !rc && i < p->n_values; i++)
		if (p->values[i] == p->def)
			return 0;
	return rc ? rc
		  : ax_yaml_fail(&k->y, n,
				 "%s %" PRId64 " is not among the "
				 "parameter's values; add it or pick one",
				 what, p->def);
}

static int load_param_role(struct kl *k, yaml_node_t *map,
			   struct ax_kernel_param *p)
{
	yaml_node_t *v;
	int rc = 0;
	char what[128];
	snprintf(what, sizeof(what), "params.%s", p->name);
	if ((v = get(k, map, "tunable")))
		rc = get_bool(k, v, "tunable", &p->tunable);
	if (!rc && (v = get(k, map, "shape")))
		rc = get_bool(k, v, "shape", &p->shape);
	if (!rc && p->tunable && p->shape)
		return ax_yaml_fail(&k->y, map,
				    "%s is both tunable and a shape; a "
				    "parameter is a knob or a problem size",
				    what);
	if (!rc && p->tunable && p->n_values > AX_KERNEL_MAX_TUNABLE_VALUES)
		return ax_yaml_fail(&k->y, map,
				    "%s is tunable with %d values; the tuner "
				    "takes at most %d: narrow the range or "
				    "use a step",
				    what, p->n_values,
				    AX_KERNEL_MAX_TUNABLE_VALUES);
	return rc;
}

static int load_param_binding(struct kl *k, yaml_node_t *map,
			      struct ax_kernel_param *p)
{
	yaml_node_t *v;
	int rc = 0;
	int64_t id;
	p->spec_id = -1;
	if ((v = get(k, map, "define")))
		rc = get_ident(k, v, "define", &p->define);
	if (!rc && (v = get(k, map, "spec_id"))) {
		rc = get_int(k, v, "spec_id", 0, 65535, &id);
		p->spec_id = (int)id;
	}
	if (!rc && (v = get(k, map, "help")))
		rc = ax_yaml_get_string(&k->y, v, "help", true, &p->help);
	return rc;
}

static int load_param(struct kl *k, yaml_node_pair_t *pair)
{
	static const char *const keys[] = {"values",  "range", "default",
					   "tunable", "shape", "define",
					   "spec_id", "help",  NULL};
	struct ax_kernel_desc *d = k->d;
	struct ax_kernel_param *p = &d->params[d->n_params];
	yaml_node_t *key = ax_yaml_node(&k->y, pair->key);
	yaml_node_t *map = ax_yaml_node(&k->y, pair->value);
	int rc = get_ident(k, key, "a parameter name", &p->name);
	if (rc)
		return rc;
	d->n_params++;
	if ((rc = want_map(k, map, "a parameter", keys)))
		return rc;
	yaml_node_t *vals = get(k, map, "values"),
		    *range = get(k, map, "range");
	if (!vals == !range)
		return ax_yaml_fail(&k->y, map,
				    "params.%s needs exactly one of values: "
				    "[a, b, ...] or range: LO..HI",
				    p->name);
	rc = vals ? load_values(k, vals, p) : load_range(k, range, p);
	if (!rc)
		rc = load_param_default(k, get(k, map, "default"), p);
	if (!rc)
		rc = load_param_role(k, map, p);
	if (!rc)
		rc = load_param_binding(k, map, p);
	return rc;
}

static int load_params(struct kl *k, yaml_node_t *n)
{
	int rc = want_map(k, n, "params", NULL);
	if (rc)
		return rc;
	long count = n->data.mapping.pairs.top - n->data.mapping.pairs.start;
	if (count > AX_MAX_PARAMS)
		return ax_yaml_fail(&k->y, n,
				    "params has %ld entries; at most %d", count,
				    AX_MAX_PARAMS);
	AX_YAML_PAIRS_FOREACH(p, n)
	{
		yaml_node_t *key = ax_yaml_node(&k->y, p->key);
		for (int i = 0; ax_kernel_device_vars[i]; i++)
			if (!strcmp(ax_yaml_text(key),
				    ax_kernel_device_vars[i]))
				return ax_yaml_fail(&k->y, key,
						    "parameter '%s' has the "
						    "name of a device limit; "
						    "rename it",
						    ax_yaml_text(key));
		if ((rc = load_param(k, p)))
			return rc;
	}
	return 0;
}

/* ---- shader ----------------------------------------------------------- */

static int load_defines(struct kl *k, yaml_node_t *n)
{
	struct ax_kernel_desc *d = k->d;
	int rc = want_map(k, n, "shader.defines", NULL);
	long count = n->data.mapping.pairs.top - n->data.mapping.pairs.start;
	if (!rc && count > AX_KERNEL_MAX_DEFINES)
		return ax_yaml_fail(&k->y, n,
				    "shader.defines has %ld entries; "
				    "at most %d",
				    count, AX_KERNEL_MAX_DEFINES);
	AX_YAML_PAIRS_FOREACH(p, n)
	{
		if (rc)
			break;
		struct ax_kernel_define *def = &d->defines[d->n_defines++];
		rc = get_ident(k, ax_yaml_node(&k->y, p->key), "a define",
			       &def->name);
		if (!rc)
			rc = ax_yaml_get_string(
			    &k->y, ax_yaml_node(&k->y, p->value),
			    "a define's value", true, &def->value);
	}
	return rc;
}

static int load_shader(struct kl *k, yaml_node_t *n)
{
	static const char *const keys[] = {"file", "entry", "defines", NULL};
	int rc = want_map(k, n, "shader", keys);
	yaml_node_t *v;
	if (rc)
		return rc;
	if (!(v = get(k, n, "file")))
		return ax_yaml_fail(&k->y, n,
				    "shader needs file: the GLSL "
				    "compute shader's path");
	rc = get_path(k, v, "shader.file", &k->d->shader_path);
	if (!rc && (v = get(k, n, "entry")))
		rc = get_ident(k, v, "shader.entry", &k->d->entry);
	if (!rc && !k->d->entry && !(k->d->entry = strdup("main")))
		rc = AX_ENOMEM;
	if (!rc && (v = get(k, n, "defines")))
		rc = load_defines(k, v);
	return rc;
}

/* ---- buffers ---------------------------------------------------------- */

static int load_buffer_data(struct kl *k, yaml_node_t *map,
			    struct ax_kernel_buffer *b)
{
	yaml_node_t *v;
	int rc = 0, choice = AX_KINIT_ZEROS;
	int64_t seed = 1;
	if ((v = get(k, map, "init")))
		rc = get_choice(k, v, "init", init_names, &choice);
	b->init = (enum ax_kernel_init)choice;
	if (!rc && (v = get(k, map, "seed")))
		rc = get_int(k, v, "seed", 0, INT64_MAX, &seed);
	b->seed = (uint64_t)seed;
	if (!rc && (v = get(k, map, "file"))) {
		if (b->init != AX_KINIT_FILE)
			return ax_yaml_fail(&k->y, v,
					    "buffer %s: file is read only with "
					    "init: file",
					    b->name);
		rc = get_path(k, v, "file", &b->file);
	}
	if (!rc && b->init == AX_KINIT_FILE && !b->file)
		return ax_yaml_fail(&k->y, map,
				    "buffer %s: init: file needs file: PATH "
				    "(raw little-endian words)",
				    b->name);
	return rc;
}

static int load_buffer_check(struct kl *k, yaml_node_t *map,
			     struct ax_kernel_buffer *b)
{
	yaml_node_t *v;
	int rc = 0;
	bool out = b->role != AX_KROLE_IN;
	b->atol = b->type == AX_KTYPE_FLOAT ? 1e-6 : 0;
	b->rtol = b->type == AX_KTYPE_FLOAT ? 1e-5 : 0;
	static const char *const only_out[] = {"atol", "rtol", "expect", NULL};
	for (int i = 0; !out && only_out[i]; i++)
		if ((v = get(k, map, only_out[i])))
			return ax_yaml_fail(&k->y, v,
					    "buffer %s: %s applies to outputs "
					    "(role: out or inout)",
					    b->name, only_out[i]);
	if ((v = get(k, map, "atol")))
		rc = get_double(k, v, "atol", &b->atol);
	if (!rc && (v = get(k, map, "rtol")))
		rc = get_double(k, v, "rtol", &b->rtol);
	if (!rc && (v = get(k, map, "expect")))
		rc = get_path(k, v, "expect", &b->expect);
	return rc;
}

static int load_buffer(struct kl *k, yaml_node_t *map)
{
	static const char *const keys[] = {"name", "type",   "elements", "init",
					   "seed", "file",   "role",	 "atol",
					   "rtol", "expect", NULL};
	struct ax_kernel_buffer *b = &k->d->buffers[k->d->n_buffers++];
	int rc = want_map(k, map, "a buffer", keys), choice = 0;
	yaml_node_t *v;
	if (rc)
		return rc;
	b->pos = pos_of(map);
	if (!(v = get(k, map, "name")))
		return ax_yaml_fail(&k->y, map, "a buffer needs name:");
	if ((rc = get_ident(k, v, "buffer name", &b->name)))
		return rc;
	if (!(v = get(k, map, "elements")))
		return ax_yaml_fail(&k->y, map,
				    "buffer %s needs elements: its length "
				    "in elements, an expression",
				    b->name);
	if ((rc = get_expr(k, v, "elements", &b->elements)))
		return rc;
	if ((v = get(k, map, "type")) &&
	    (rc = get_choice(k, v, "type", type_names, &choice)))
		return rc;
	b->type = (enum ax_kernel_type)choice;
	choice = AX_KROLE_INOUT;
	if ((v = get(k, map, "role")) &&
	    (rc = get_choice(k, v, "role", role_names, &choice)))
		return rc;
	b->role = (enum ax_kernel_role)choice;
	rc = load_buffer_data(k, map, b);
	return rc ? rc : load_buffer_check(k, map, b);
}

static int load_buffers(struct kl *k, yaml_node_t *n)
{
	int rc = want_seq(k, n, "buffers", AX_KERNEL_MAX_BUFFERS);
	AX_YAML_ITEMS_FOREACH(it, n)
	{
		if (rc)
			break;
		yaml_node_t *map = ax_yaml_node(&k->y, *it);
		rc = load_buffer(k, map);
		for (int i = 0; !rc && i < k->d->n_buffers - 1; i++)
			if (!strcmp(k->d->buffers[i].name,
				    k->d->buffers[k->d->n_buffers - 1].name))
				rc = ax_yaml_fail(&k->y, map,
						  "two buffers are called %s; "
						  "names must differ",
						  k->d->buffers[i].name);
	}
	if (!rc && !k->d->n_buffers)
		return ax_yaml_fail(&k->y, n,
				    "buffers is empty; a kernel "
				    "needs at least one");
	return rc;
}

/* ---- the rest --------------------------------------------------------- */

static int load_push(struct kl *k, yaml_node_t *n)
{
	static const char *const keys[] = {"name", "type", "value", NULL};
	int rc = want_seq(k, n, "push_constants", AX_KERNEL_MAX_PUSH);
	AX_YAML_ITEMS_FOREACH(it, n)
	{
		yaml_node_t *map = ax_yaml_node(&k->y, *it), *v;
		struct ax_kernel_push *p = &k->d->push[k->d->n_push++];
		int choice = AX_KTYPE_UINT;
		if (!rc)
			rc = want_map(k, map, "a push constant", keys);
		if (!rc && !(v = get(k, map, "name")))
			rc = ax_yaml_fail(&k->y, map,
					  "a push constant needs name:");
		if (!rc)
			rc = get_ident(k, v, "push constant name", &p->name);
		if (!rc && (v = get(k, map, "type")))
			rc = get_choice(k, v, "type", type_names, &choice);
		p->type = (enum ax_kernel_type)choice;
		if (!rc && !(v = get(k, map, "value")))
			rc = ax_yaml_fail(&k->y, map,
					  "push constant %s needs value: an "
					  "expression",
					  p->name);
		if (!rc)
			rc = get_expr(k, v, "value", &p->value);
		if (rc)
			return rc;
	}
	return rc;
}

static int load_dispatch(struct kl *k, yaml_node_t *n)
{
	int rc = want_seq(k, n, "dispatch", 3), i = 0;
	static const char *const axis[] = {"dispatch x", "dispatch y",
					   "dispatch z"};
	if (!rc && n->data.sequence.items.top == n->data.sequence.items.start)
		return ax_yaml_fail(&k->y, n,
				    "dispatch is empty; give [x], "
				    "[x, y] or [x, y, z]");
	AX_YAML_ITEMS_FOREACH(it, n)
	{
		if (rc)
			break;
		rc = get_expr(k, ax_yaml_node(&k->y, *it), axis[i],
			      &k->d->dispatch[i]);
		i++;
	}
	return rc;
}

static int load_constraints(struct kl *k, yaml_node_t *n)
{
	int rc = want_seq(k, n, "constraints", AX_KERNEL_MAX_CONSTRAINTS);
	AX_YAML_ITEMS_FOREACH(it, n)
	{
		if (rc)
			break;
		rc = get_expr(k, ax_yaml_node(&k->y, *it), "a constraint",
			      &k->d->constraints[k->d->n_constraints++]);
	}
	return rc;
}

static int load_work(struct kl *k, yaml_node_t *n)
{
	static const char *const keys[] = {"flops", "bytes", NULL};
	int rc = want_map(k, n, "work", keys);
	yaml_node_t *v;
	if (!rc && (v = get(k, n, "flops")))
		rc = get_expr(k, v, "work.flops", &k->d->flops);
	if (!rc && (v = get(k, n, "bytes")))
		rc = get_expr(k, v, "work.bytes", &k->d->bytes);
	return rc;
}

static int find_param(const struct ax_kernel_desc *d, const char *name)
{
	for (int i = 0; i < d->n_params; i++)
		if (!strcmp(d->params[i].name, name))
			return i;
	return -1;
}

static int load_reference(struct kl *k, yaml_node_t *n)
{
	struct ax_kernel_desc *d = k->d;
	int rc = want_map(k, n, "verify.reference", NULL);
	AX_YAML_PAIRS_FOREACH(p, n)
	{
		yaml_node_t *key = ax_yaml_node(&k->y, p->key);
		int i = rc ? 0 : find_param(d, ax_yaml_text(key));
		if (!rc && i < 0)
			rc = ax_yaml_fail(&k->y, key,
					  "verify.reference sets '%s', which "
					  "is not a parameter",
					  ax_yaml_text(key));
		if (rc)
			return rc;
		char msg[512];
		struct ax_param_def def = {.name = d->params[i].name,
					   .type = AX_PT_INT,
					   .min = INT32_MIN,
					   .max = INT32_MAX};
		yaml_node_t *v = ax_yaml_node(&k->y, p->value);
		rc = want_scalar(k, v, "a reference value");
		if (!rc && ax_param_parse(&def, ax_yaml_text(v),
					  &d->ref_value[i], msg, sizeof(msg)))
			rc =
			    ax_yaml_fail(&k->y, v, "verify.reference: %s", msg);
		d->ref_set[i] = true;
	}
	d->has_reference = true;
	return rc;
}

static int load_verify(struct kl *k, yaml_node_t *root)
{
	static const char *const keys[] = {"reference", NULL};
	yaml_node_t *n = get(k, root, "verify"), *v;
	int rc = n ? want_map(k, n, "verify", keys) : 0;
	if (!rc && n && (v = get(k, n, "reference")))
		rc = load_reference(k, v);
	bool outputs = false;
	for (int i = 0; !rc && i < k->d->n_buffers; i++) {
		const struct ax_kernel_buffer *b = &k->d->buffers[i];
		outputs |= b->role != AX_KROLE_IN;
		if (b->role != AX_KROLE_IN && !b->expect &&
		    !k->d->has_reference)
			return ax_errf(k->y.err, k->y.errlen, AX_ECONFIG,
				       "%s:%d:%d: output buffer %s is checked "
				       "against nothing: give "
				       "verify.reference (a trusted "
				       "configuration) or the buffer's "
				       "expect: FILE",
				       k->y.name, b->pos.line, b->pos.col,
				       b->name);
	}
	if (!rc && !outputs)
		return ax_yaml_fail(&k->y, root,
				    "no buffer has role out or inout, so "
				    "nothing can be verified; mark the "
				    "buffers the kernel writes");
	return rc;
}

/* A suite name: kernel:NAME must print and pass as one word. */
static int check_name(struct kl *k, yaml_node_t *n)
{
	const char *t = k->d->name;
	size_t len = strlen(t);
	bool ok = len > 0 && len <= AX_KERNEL_NAME_MAX;
	for (size_t i = 0; ok && i < len; i++)
		ok = (t[i] >= 'a' && t[i] <= 'z') ||
		     (t[i] >= '0' && t[i] <= '9') || t[i] == '_' || t[i] == '-';
	if (ok)
		return 0;
	if (n)
		return ax_yaml_fail(&k->y, n,
				    "name '%s' must be 1 to %d of a-z, 0-9, "
				    "_ and - (it becomes the suite "
				    "kernel:NAME)",
				    t, AX_KERNEL_NAME_MAX);
	return ax_errf(k->y.err, k->y.errlen, AX_ECONFIG,
		       "%s: the file name gives the kernel the name '%s', "
		       "which is not 1 to %d of a-z, 0-9, _ and -; set name:",
		       k->y.name, t, AX_KERNEL_NAME_MAX);
}

static int load_name(struct kl *k, yaml_node_t *root)
{
	yaml_node_t *v = get(k, root, "name");
	int rc = ax_yaml_get_string(&k->y, v, "name", false, &k->d->name);
	if (!rc && !k->d->name) {
		const char *base = strrchr(k->y.name, '/');
		base = base ? base + 1 : k->y.name;
		k->d->name = strndup(base, strcspn(base, "."));
		if (!k->d->name)
			return AX_ENOMEM;
	}
	if (!rc)
		rc = check_name(k, v);
	if (!rc)
		rc =
		    ax_yaml_get_string(&k->y, get(k, root, "description"),
				       "description", true, &k->d->description);
	return rc;
}

static int load_schema(struct kl *k, yaml_node_t *root)
{
	yaml_node_t *v = get(k, root, "schema");
	if (!v)
		return ax_yaml_fail(&k->y, root,
				    "the kernel file has no 'schema' key; "
				    "start it with 'schema: %s'",
				    AX_KERNEL_SCHEMA);
	if (v->type != YAML_SCALAR_NODE ||
	    strcmp(ax_yaml_text(v), AX_KERNEL_SCHEMA))
		return ax_yaml_fail(&k->y, v,
				    "schema must be %s (got %s); this "
				    "axbench reads only that version",
				    AX_KERNEL_SCHEMA,
				    v->type == YAML_SCALAR_NODE
					? ax_yaml_text(v)
					: ax_yaml_kind(v));
	return 0;
}

/* A required key: present, or a message saying what it holds. */
static yaml_node_t *need(struct kl *k, yaml_node_t *root, const char *key,
			 const char *holds, int *rc)
{
	yaml_node_t *v = *rc ? NULL : get(k, root, key);
	if (!*rc && !v)
		*rc = ax_yaml_fail(&k->y, root, "the kernel file needs %s: %s",
				   key, holds);
	return v;
}

static int load_root(struct kl *k)
{
	static const char *const keys[] = {
	    "schema",	"name",	       "description", "shader",
	    "params",	"constraints", "buffers",     "push_constants",
	    "dispatch", "work",	       "verify",      NULL};
	yaml_node_t *root = yaml_document_get_root_node(&k->y.doc), *v;
	if (!root)
		return ax_errf(k->y.err, k->y.errlen, AX_ECONFIG,
			       "%s: the kernel file is empty; start it with "
			       "'schema: %s'",
			       k->y.name, AX_KERNEL_SCHEMA);
	int rc = want_map(k, root, "the kernel file", keys);
	if (!rc)
		rc = load_schema(k, root);
	if (!rc)
		rc = load_name(k, root);
	v = need(k, root, "shader", "{file: KERNEL.comp}", &rc);
	if (!rc)
		rc = load_shader(k, v);
	if (!rc && (v = get(k, root, "params")))
		rc = load_params(k, v);
	if (!rc && (v = get(k, root, "constraints")))
		rc = load_constraints(k, v);
	v = need(k, root, "buffers", "the storage buffers, in binding order",
		 &rc);
	if (!rc)
		rc = load_buffers(k, v);
	if (!rc && (v = get(k, root, "push_constants")))
		rc = load_push(k, v);
	v = need(k, root, "dispatch", "the workgroup counts, [x, y, z]", &rc);
	if (!rc)
		rc = load_dispatch(k, v);
	if (!rc && (v = get(k, root, "work")))
		rc = load_work(k, v);
	return rc ? rc : load_verify(k, root);
}

int ax_kernel_desc_parse(const char *text, size_t len, const char *name,
			 struct ax_kernel_desc **out, char *err, size_t errlen)
{
	struct kl k = {.y = {.name = name, .err = err, .errlen = errlen}};
	*out = NULL;
	int rc =
	    ax_yaml_prescan(name, "kernel file", 4, text, len, err, errlen);
	if (rc)
		return rc;
	char *copy = strdup(name);
	k.d = calloc(1, sizeof(*k.d));
	if (!copy || !k.d || !(k.dir = strdup(dirname(copy))) ||
	    !(k.d->path = strdup(name))) {
		free(copy);
		ax_kernel_desc_free(k.d);
		return AX_ENOMEM;
	}
	free(copy);
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p)) {
		free(k.dir);
		ax_kernel_desc_free(k.d);
		return AX_ENOMEM;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, &k.y.doc))
		rc = ax_config_syntax_error(&p, name, text, len, err, errlen);
	yaml_parser_delete(&p);
	if (!rc) {
		rc = load_root(&k);
		yaml_document_delete(&k.y.doc);
	}
	free(k.dir);
	if (rc)
		ax_kernel_desc_free(k.d);
	else
		*out = k.d;
	return rc;
}

int ax_kernel_desc_load(const char *path, struct ax_kernel_desc **out,
			char *err, size_t errlen)
{
	char *text;
	size_t len;
	*out = NULL;
	int rc = ax_config_read_file(path, &text, &len, err, errlen);
	if (rc)
		return rc;
	rc = ax_kernel_desc_parse(text, len, path, out, err, errlen);
	free(text);
	return rc;
}

void ax_kernel_desc_free(struct ax_kernel_desc *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->n_params; i++) {
		free(d->params[i].name);
		free(d->params[i].values);
		free(d->params[i].define);
		free(d->params[i].help);
	}
	for (int i = 0; i < d->n_defines; i++) {
		free(d->defines[i].name);
		free(d->defines[i].value);
	}
	for (int i = 0; i < d->n_constraints; i++)
		ax_expr_free(d->constraints[i].e);
	for (int i = 0; i < d->n_buffers; i++) {
		free(d->buffers[i].name);
		ax_expr_free(d->buffers[i].elements.e);
		free(d->buffers[i].file);
		free(d->buffers[i].expect);
	}
	for (int i = 0; i < d->n_push; i++) {
		free(d->push[i].name);
		ax_expr_free(d->push[i].value.e);
	}
	for (int i = 0; i < 3; i++)
		ax_expr_free(d->dispatch[i].e);
	ax_expr_free(d->flops.e);
	ax_expr_free(d->bytes.e);
	free(d->path);
	free(d->name);
	free(d->description);
	free(d->shader_path);
	free(d->entry);
	free(d);
}
