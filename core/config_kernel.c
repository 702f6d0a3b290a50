/*
 * core/config_kernel.c - a user kernel's description file (format in
 * core/kernel_desc.h): its keys described as data for the walker of
 * core/config_schema.c, so that every message cites FILE:LINE:COL as the
 * other readers do.
 *
 * The loader checks what the file alone can tell: keys, types, names,
 * expression syntax and the variables expressions use, value lists,
 * that something verifies the outputs.  What needs a device or a
 * configuration (constraints, sizes, the shader compiling) is checked by
 * suites/kernel.c.
 */
#include "core/config.h"
#include "core/config_schema.h"
#include "core/error.h"
#include "core/kernel_desc.h"

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

static struct kl *kl_of(struct ax_yaml *y) { return y->ctx; }

static struct ax_kernel_pos pos_of(const yaml_node_t *n)
{
	return (struct ax_kernel_pos){(int)n->start_mark.line + 1,
				      (int)n->start_mark.column + 1};
}

/* ---- values the walker cannot check alone ----------------------------- */

/* A name a parameter, buffer or define may have: a C identifier, so that
 * it can be a #define and an expression variable. */
static int check_ident(struct ax_yaml *y, yaml_node_t *n, const char *what)
{
	const char *t = ax_yaml_text(n);
	size_t len = strlen(t);
	bool ok = len > 0 && len < 64 && !(t[0] >= '0' && t[0] <= '9');
	for (size_t i = 0; ok && i < len; i++)
		ok = (t[i] >= 'a' && t[i] <= 'z') ||
		     (t[i] >= 'A' && t[i] <= 'Z') ||
		     (t[i] >= '0' && t[i] <= '9') || t[i] == '_';
	if (!ok)
		return ax_yaml_fail(y, n,
				    "%s '%s' must be an identifier: letters, "
				    "digits and _, 1 to 63 characters, not "
				    "starting with a digit",
				    what, t);
	return 0;
}

static int ident(struct ax_yaml *y, yaml_node_t *n, void *at, const char *what)
{
	return check_ident(y, n, what);
}

/* A key that names something: a C identifier, strdup'd. */
#define IDENT(key, type, member, ...)                                          \
	{                                                                      \
		key, AX_Y_STRING, __VA_ARGS__, AX_YAT(type, member),           \
		    .want = "an identifier", .fn = ident                       \
	}

static const struct ax_ykey ident_key = {
    NULL, AX_Y_STRING, 0, .size = 8, .want = "an identifier", .fn = ident};

/* A path relative to the description file's directory. */
static int path(struct ax_yaml *y, yaml_node_t *n, void *at, const char *what)
{
	char **p = at, *full = NULL;
	if (**p == '/')
		return 0;
	if (asprintf(&full, "%s/%s", kl_of(y)->dir, *p) < 0)
		return AX_ENOMEM;
	free(*p);
	*p = full;
	return 0;
}

struct var_check {
	const struct ax_kernel_desc *d;
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
	if (is_param(vc->d, name))
		return 0;
	for (int i = 0; ax_kernel_device_vars[i]; i++)
		if (!strcmp(ax_kernel_device_vars[i], name))
			return 0;
	vc->bad = name;
	return 1;
}

/* n as an expression whose variables are parameters or device limits;
 * a plain YAML integer is an expression too. */
static int expr(struct ax_yaml *y, yaml_node_t *n, void *at, const char *what)
{
	struct ax_kernel_expr *out = at;
	const struct ax_kernel_desc *d = kl_of(y)->d;
	char msg[512];
	int rc = ax_expr_parse(ax_yaml_text(n), &out->e, msg, sizeof(msg));
	if (rc == AX_ENOMEM)
		return rc;
	if (rc)
		return ax_yaml_fail(y, n, "%s: %s", what, msg);
	out->pos = pos_of(n);
	struct var_check vc = {d, NULL};
	if (!ax_expr_each_var(out->e, check_var, &vc))
		return 0;
	char known[768] = "";
	for (int i = 0; i < d->n_params; i++)
		ax_yaml_join(known, sizeof(known), d->params[i].name);
	for (int i = 0; ax_kernel_device_vars[i]; i++)
		ax_yaml_join(known, sizeof(known), ax_kernel_device_vars[i]);
	return ax_yaml_fail(y, n,
			    "%s: expression \"%s\" uses unknown variable "
			    "'%s'; known: %s",
			    what, ax_yaml_text(n), vc.bad, known);
}

static const struct ax_ykey expr_key = {NULL, AX_Y_VALUE, 0,
					.want = "an expression", .fn = expr};

#define EXPR(key, type, member, ...)                                           \
	{                                                                      \
		key, AX_Y_VALUE, __VA_ARGS__, AX_YAT(type, member),            \
		    .want = "an expression", .fn = expr                        \
	}

/* ---- params ----------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* "params.NAME.KEY", the name of one of a parameter's values. */
static const char *param_what(const struct ax_kernel_param *p, const char *key,
			      char *buf, size_t len)
{
	snprintf(buf, len, "params.%s.%s", p->name, key);
	return buf;
}

static void *value_slot(struct ax_yaml *y, void *obj, int i, int count)
{
	struct ax_kernel_param *p = obj;
	if (i >= 0)
		return &p->values[p->n_values++];
	return p->values = calloc((size_t)count, sizeof(int64_t));
}

#define INT32_VALUE AX_YK_HEX, .lo = INT32_MIN, .hi = INT32_MAX

static const struct ax_ykey int_key = {NULL, AX_Y_INT, INT32_VALUE,
				       .size = sizeof(int64_t)};

static int one_value(struct ax_yaml *y, yaml_node_t *n, void *at,
		     const char *what)
{
	return ax_ywalk_value(y, n, &int_key, what, at);
}

static const struct ax_ykey values_key = {"values",
					  AX_Y_SEQ,
					  AX_YK_NONEMPTY,
					  .max = AX_SWEEP_MAX,
					  .empty = "list at least one value",
					  .slot = value_slot,
					  .fn = one_value};

/* values: [a, b, ...]: sorted; a repeated value is refused. */
static int load_values(struct ax_yaml *y, yaml_node_t *n, void *at,
		       const char *name)
{
	struct ax_kernel_param *p = at;
	char what[128];
	int rc = ax_ywalk_value(y, n, &values_key,
				param_what(p, "values", what, sizeof(what)), p);
	if (rc)
		return rc;
	qsort(p->values, (size_t)p->n_values, sizeof(int64_t), cmp_i64);
	for (int i = 1; i < p->n_values; i++)
		if (p->values[i] == p->values[i - 1])
			return ax_yaml_fail(y, n,
					    "%s lists %" PRId64 " twice; "
					    "list each value once",
					    what, p->values[i]);
	p->def = p->values[0];
	return 0;
}

/* range: LO..HI (doubling), LO..HI:xF or LO..HI:STEP, as `-p` takes. */
static int load_range(struct ax_yaml *y, yaml_node_t *n, void *at,
		      const char *name)
{
	static const struct ax_ykey value_key = {NULL, AX_Y_VALUE};
	struct ax_kernel_param *p = at;
	char what[128], msg[512];
	param_what(p, "range", what, sizeof(what));
	int rc = ax_ywalk_value(y, n, &value_key, what, p);
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
		return ax_yaml_fail(y, n,
				    "%s must be LO..HI, LO..HI:xF or "
				    "LO..HI:STEP (%s)",
				    what, rc ? msg : "no '..'");
	p->def = p->values[0];
	return 0;
}

static int load_default(struct ax_yaml *y, yaml_node_t *n, void *at,
			const char *name)
{
	struct ax_kernel_param *p = at;
	char what[128];
	int rc = ax_ywalk_value(y, n, &int_key,
				param_what(p, "default", what, sizeof(what)),
				&p->def);
	for (int i = 0; !rc && i < p->n_values; i++)
		if (p->values[i] == p->def)
			return 0;
	return rc ? rc
		  : ax_yaml_fail(y, n,
				 "%s %" PRId64 " is not among the "
				 "parameter's values; add it or pick one",
				 what, p->def);
}

static int one_of(struct ax_yaml *y, yaml_node_t *map, void *obj,
		  const char *where)
{
	if (!ax_yaml_get(y, map, "values") == !ax_yaml_get(y, map, "range"))
		return ax_yaml_fail(y, map,
				    "params.%s needs exactly one of values: "
				    "[a, b, ...] or range: LO..HI",
				    ((struct ax_kernel_param *)obj)->name);
	return 0;
}

static int check_role(struct ax_yaml *y, yaml_node_t *map, void *obj,
		      const char *where)
{
	const struct ax_kernel_param *p = obj;
	if (p->tunable && p->shape)
		return ax_yaml_fail(y, map,
				    "params.%s is both tunable and a shape; a "
				    "parameter is a knob or a problem size",
				    p->name);
	if (p->tunable && p->n_values > AX_KERNEL_MAX_TUNABLE_VALUES)
		return ax_yaml_fail(y, map,
				    "params.%s is tunable with %d values; the "
				    "tuner takes at most %d: narrow the range "
				    "or use a step",
				    p->name, p->n_values,
				    AX_KERNEL_MAX_TUNABLE_VALUES);
	return 0;
}

#define PAT(f) AX_YAT(struct ax_kernel_param, f)
static const struct ax_ykey param_keys[] = {
    {NULL, AX_Y_CHECK, .fn = one_of},
    {"values", AX_Y_ANY, .fn = load_values},
    {"range", AX_Y_ANY, .fn = load_range},
    {"default", AX_Y_ANY, .fn = load_default},
    {"tunable", AX_Y_BOOL, 0, PAT(tunable)},
    {"shape", AX_Y_BOOL, 0, PAT(shape)},
    {NULL, AX_Y_CHECK, .fn = check_role},
    IDENT("define", struct ax_kernel_param, define, 0),
    {"spec_id", AX_Y_INT, AX_YK_HEX, PAT(spec_id), .lo = 0, .hi = 65535},
    {"help", AX_Y_STRING, AX_YK_NULLABLE, PAT(help)},
};
static const struct ax_ymap param_map = {
    .where = "a parameter", AX_YKEYS(param_keys), AX_YNONE};

static int param_pair(struct ax_yaml *y, yaml_node_t *key, yaml_node_t *map,
		      void *obj)
{
	struct ax_kernel_desc *d = obj;
	struct ax_kernel_param *p = &d->params[d->n_params];
	for (int i = 0; ax_kernel_device_vars[i]; i++)
		if (!strcmp(ax_yaml_text(key), ax_kernel_device_vars[i]))
			return ax_yaml_fail(y, key,
					    "parameter '%s' has the name of a "
					    "device limit; rename it",
					    ax_yaml_text(key));
	d->n_params++; /* so that its name is freed, whatever happens */
	p->spec_id = -1;
	int rc =
	    ax_ywalk_value(y, key, &ident_key, "a parameter name", &p->name);
	if (rc)
		return rc;
	return ax_ywalk_map(y, map, &param_map, p, NULL);
}

static const struct ax_ymap params_map = {AX_YNONE, .max = AX_MAX_PARAMS,
					  .pair = param_pair};

/* ---- shader ----------------------------------------------------------- */

static int define_pair(struct ax_yaml *y, yaml_node_t *key, yaml_node_t *v,
		       void *obj)
{
	static const struct ax_ykey value_key = {NULL, AX_Y_STRING,
						 AX_YK_NULLABLE, .size = 8};
	struct ax_kernel_desc *d = obj;
	struct ax_kernel_define *def = &d->defines[d->n_defines++];
	int rc = ax_ywalk_value(y, key, &ident_key, "a define", &def->name);
	return rc ? rc
		  : ax_ywalk_value(y, v, &value_key, "a define's value",
				   &def->value);
}

static const struct ax_ymap defines_map = {
    AX_YNONE, .max = AX_KERNEL_MAX_DEFINES, .pair = define_pair};

static int default_entry(struct ax_yaml *y, yaml_node_t *map, void *obj)
{
	struct ax_kernel_desc *d = obj;
	if (!d->entry && !(d->entry = strdup("main")))
		return AX_ENOMEM;
	return 0;
}

#define DAT(f) AX_YAT(struct ax_kernel_desc, f)
static const struct ax_ykey shader_keys[] = {
    {"file", AX_Y_STRING, AX_YK_REQUIRED, DAT(shader_path), .want = "a path",
     .missing = "shader needs file: the GLSL compute shader's path",
     .fn = path},
    IDENT("entry", struct ax_kernel_desc, entry, 0),
    {"defines", AX_Y_MAP, 0, .map = &defines_map},
};
static const struct ax_ymap shader_map = {.where = "shader",
					  AX_YKEYS(shader_keys),
					  .flags = AX_YM_PATH,
					  AX_YNONE,
					  .done = default_entry};

/* ---- buffers ---------------------------------------------------------- */

static int buffer_start(struct ax_yaml *y, yaml_node_t *map, void *obj,
			const char *where)
{
	((struct ax_kernel_buffer *)obj)->pos = pos_of(map);
	return 0;
}

static int file_init(struct ax_yaml *y, yaml_node_t *n, void *at,
		     const char *what)
{
	const struct ax_kernel_buffer *b =
	    (void *)((char *)at - offsetof(struct ax_kernel_buffer, file));
	if (b->init != AX_KINIT_FILE)
		return ax_yaml_fail(y, n,
				    "buffer %s: file is read only with init: "
				    "file",
				    b->name);
	return path(y, n, at, what);
}

static int need_file(struct ax_yaml *y, yaml_node_t *map, void *obj,
		     const char *where)
{
	const struct ax_kernel_buffer *b = obj;
	if (b->init == AX_KINIT_FILE && !b->file)
		return ax_yaml_fail(y, map,
				    "buffer %s: init: file needs file: PATH "
				    "(raw little-endian words)",
				    b->name);
	return 0;
}

/* Tolerances and expect files are for outputs; floats get a default. */
static int check_outputs(struct ax_yaml *y, yaml_node_t *map, void *obj,
			 const char *where)
{
	static const char *const only_out[] = {"atol", "rtol", "expect", NULL};
	struct ax_kernel_buffer *b = obj;
	yaml_node_t *v;
	for (int i = 0; b->role == AX_KROLE_IN && only_out[i]; i++)
		if ((v = ax_yaml_get(y, map, only_out[i])))
			return ax_yaml_fail(y, v,
					    "buffer %s: %s applies to outputs "
					    "(role: out or inout)",
					    b->name, only_out[i]);
	b->atol = b->type == AX_KTYPE_FLOAT ? 1e-6 : 0;
	b->rtol = b->type == AX_KTYPE_FLOAT ? 1e-5 : 0;
	return 0;
}

#define BAT(f) AX_YAT(struct ax_kernel_buffer, f)
#define TOLERANCE .dlo = 0, .dhi = 1e300, .want = "a number >= 0"
static const struct ax_ykey buffer_keys[] = {
    {NULL, AX_Y_CHECK, .fn = buffer_start},
    {"name", AX_Y_STRING, AX_YK_REQUIRED, BAT(name), .what = "buffer name",
     .want = "an identifier", .missing = "a buffer needs name:", .fn = ident},
    {"type", AX_Y_CHOICE, 0, BAT(type), .choices = type_names},
    EXPR("elements", struct ax_kernel_buffer, elements, AX_YK_REQUIRED,
	 .missing = "buffer %s needs elements: its length in elements, an "
		    "expression"),
    {"init", AX_Y_CHOICE, 0, BAT(init), .choices = init_names},
    {"seed", AX_Y_INT, AX_YK_HEX, BAT(seed), .lo = 0, .hi = INT64_MAX},
    {"file", AX_Y_STRING, 0, BAT(file), .want = "a path", .fn = file_init},
    {NULL, AX_Y_CHECK, .fn = need_file},
    {"role", AX_Y_CHOICE, 0, BAT(role), .choices = role_names},
    {NULL, AX_Y_CHECK, .fn = check_outputs},
    {"atol", AX_Y_NUMBER, 0, BAT(atol), TOLERANCE},
    {"rtol", AX_Y_NUMBER, 0, BAT(rtol), TOLERANCE},
    {"expect", AX_Y_STRING, 0, BAT(expect), .want = "a path", .fn = path},
};
static const struct ax_ymap buffer_map = {
    .where = "a buffer",
    AX_YKEYS(buffer_keys),
    .label_off = offsetof(struct ax_kernel_buffer, name),
    .set_off = -1,
};

static void *buffer_slot(struct ax_yaml *y, void *obj, int i, int count)
{
	struct ax_kernel_desc *d = obj;
	if (i < 0)
		return d;
	d->buffers[d->n_buffers].seed = 1;
	d->buffers[d->n_buffers].role = AX_KROLE_INOUT;
	return &d->buffers[d->n_buffers++];
}

static int unique_buffer(struct ax_yaml *y, yaml_node_t *map, void *at,
			 const char *what)
{
	const struct ax_kernel_desc *d = kl_of(y)->d;
	const struct ax_kernel_buffer *b = at;
	for (const struct ax_kernel_buffer *o = d->buffers; o < b; o++)
		if (!strcmp(o->name, b->name))
			return ax_yaml_fail(y, map,
					    "two buffers are called %s; names "
					    "must differ",
					    o->name);
	return 0;
}

/* ---- the rest --------------------------------------------------------- */

#define UAT(f) AX_YAT(struct ax_kernel_push, f)
static const struct ax_ykey push_keys[] = {
    {"name", AX_Y_STRING, AX_YK_REQUIRED, UAT(name),
     .what = "push constant name", .want = "an identifier",
     .missing = "a push constant needs name:", .fn = ident},
    {"type", AX_Y_CHOICE, 0, UAT(type), .choices = type_names},
    EXPR("value", struct ax_kernel_push, value, AX_YK_REQUIRED,
	 .missing = "push constant %s needs value: an expression"),
};
static const struct ax_ymap push_map = {
    .where = "a push constant",
    AX_YKEYS(push_keys),
    .label_off = offsetof(struct ax_kernel_push, name),
    .set_off = -1,
};

static void *push_slot(struct ax_yaml *y, void *obj, int i, int count)
{
	struct ax_kernel_desc *d = obj;
	if (i < 0)
		return d;
	d->push[d->n_push].type = AX_KTYPE_UINT;
	return &d->push[d->n_push++];
}

static void *constraint_slot(struct ax_yaml *y, void *obj, int i, int count)
{
	struct ax_kernel_desc *d = obj;
	return i < 0 ? (void *)d : &d->constraints[d->n_constraints++];
}

static int constraint(struct ax_yaml *y, yaml_node_t *n, void *at,
		      const char *what)
{
	return ax_ywalk_value(y, n, &expr_key, "a constraint", at);
}

static void *dispatch_slot(struct ax_yaml *y, void *obj, int i, int count)
{
	struct ax_kernel_desc *d = obj;
	return i < 0 ? (void *)d : &d->dispatch[i];
}

static int dispatch(struct ax_yaml *y, yaml_node_t *n, void *at,
		    const char *what)
{
	static const char *const axis[] = {"dispatch x", "dispatch y",
					   "dispatch z"};
	const struct ax_kernel_expr *e = at;
	return ax_ywalk_value(y, n, &expr_key, axis[e - kl_of(y)->d->dispatch],
			      at);
}

static const struct ax_ykey work_keys[] = {
    EXPR("flops", struct ax_kernel_desc, flops, 0),
    EXPR("bytes", struct ax_kernel_desc, bytes, 0),
};
static const struct ax_ymap work_map = {
    .where = "work", AX_YKEYS(work_keys), .flags = AX_YM_PATH, AX_YNONE};

static int reference_pair(struct ax_yaml *y, yaml_node_t *key, yaml_node_t *v,
			  void *obj)
{
	static const struct ax_ykey value_key = {NULL, AX_Y_VALUE};
	struct ax_kernel_desc *d = obj;
	int i = 0;
	while (i < d->n_params && strcmp(d->params[i].name, ax_yaml_text(key)))
		i++;
	if (i == d->n_params)
		return ax_yaml_fail(y, key,
				    "verify.reference sets '%s', which is not "
				    "a parameter",
				    ax_yaml_text(key));
	char msg[512];
	struct ax_param_def def = {.name = d->params[i].name,
				   .type = AX_PT_INT,
				   .min = INT32_MIN,
				   .max = INT32_MAX};
	int rc = ax_ywalk_value(y, v, &value_key, "a reference value", d);
	if (!rc && ax_param_parse(&def, ax_yaml_text(v), &d->ref_value[i], msg,
				  sizeof(msg)))
		rc = ax_yaml_fail(y, v, "verify.reference: %s", msg);
	d->ref_set[i] = true;
	return rc;
}

static int has_reference(struct ax_yaml *y, yaml_node_t *map, void *obj)
{
	((struct ax_kernel_desc *)obj)->has_reference = true;
	return 0;
}

static const struct ax_ymap reference_map = {AX_YNONE, .pair = reference_pair,
					     .done = has_reference};

static const struct ax_ykey verify_keys[] = {
    {"reference", AX_Y_MAP, 0, .map = &reference_map},
};
static const struct ax_ymap verify_map = {
    .where = "verify", AX_YKEYS(verify_keys), .flags = AX_YM_PATH, AX_YNONE};

/* Every output is checked against something; there is an output. */
static int check_verified(struct ax_yaml *y, yaml_node_t *root, void *obj,
			  const char *where)
{
	const struct ax_kernel_desc *d = obj;
	bool outputs = false;
	for (int i = 0; i < d->n_buffers; i++) {
		const struct ax_kernel_buffer *b = &d->buffers[i];
		outputs |= b->role != AX_KROLE_IN;
		if (b->role != AX_KROLE_IN && !b->expect && !d->has_reference)
			return ax_errf(y->err, y->errlen, AX_ECONFIG,
				       "%s:%d:%d: output buffer %s is checked "
				       "against nothing: give "
				       "verify.reference (a trusted "
				       "configuration) or the buffer's "
				       "expect: FILE",
				       y->name, b->pos.line, b->pos.col,
				       b->name);
	}
	if (!outputs)
		return ax_yaml_fail(y, root,
				    "no buffer has role out or inout, so "
				    "nothing can be verified; mark the "
				    "buffers the kernel writes");
	return 0;
}

/* A suite name: kernel:NAME must print and pass as one word; without
 * name: the file's name. */
static int check_name(struct ax_yaml *y, yaml_node_t *root, void *obj,
		      const char *where)
{
	struct ax_kernel_desc *d = obj;
	if (!d->name) {
		const char *base = strrchr(y->name, '/');
		base = base ? base + 1 : y->name;
		if (!(d->name = strndup(base, strcspn(base, "."))))
			return AX_ENOMEM;
	}
	const char *t = d->name;
	size_t len = strlen(t);
	bool ok = len > 0 && len <= AX_KERNEL_NAME_MAX;
	for (size_t i = 0; ok && i < len; i++)
		ok = (t[i] >= 'a' && t[i] <= 'z') ||
		     (t[i] >= '0' && t[i] <= '9') || t[i] == '_' || t[i] == '-';
	yaml_node_t *n = ax_yaml_get(y, root, "name");
	if (ok)
		return 0;
	if (n)
		return ax_yaml_fail(y, n,
				    "name '%s' must be 1 to %d of a-z, 0-9, "
				    "_ and - (it becomes the suite "
				    "kernel:NAME)",
				    t, AX_KERNEL_NAME_MAX);
	return ax_errf(y->err, y->errlen, AX_ECONFIG,
		       "%s: the file name gives the kernel the name '%s', "
		       "which is not 1 to %d of a-z, 0-9, _ and -; set name:",
		       y->name, t, AX_KERNEL_NAME_MAX);
}

static const char *const schema_names[] = {AX_KERNEL_SCHEMA, NULL};

static const struct ax_ykey root_keys[] = {
    {"schema", AX_Y_CHOICE, AX_YK_REQUIRED, .choices = schema_names,
     .want = AX_KERNEL_SCHEMA, .hint = "this axbench reads only that version",
     .missing = "the kernel file has no 'schema' key; start it with "
		"'schema: " AX_KERNEL_SCHEMA "'"},
    {"name", AX_Y_STRING, 0, DAT(name)},
    {NULL, AX_Y_CHECK, .fn = check_name},
    {"description", AX_Y_STRING, AX_YK_NULLABLE, DAT(description)},
    {"shader", AX_Y_MAP, AX_YK_REQUIRED, .map = &shader_map,
     .missing = "the kernel file needs shader: {file: KERNEL.comp}"},
    {"params", AX_Y_MAP, 0, .map = &params_map},
    {"constraints", AX_Y_SEQ, 0, .max = AX_KERNEL_MAX_CONSTRAINTS,
     .slot = constraint_slot, .fn = constraint},
    {"buffers", AX_Y_SEQ, AX_YK_REQUIRED | AX_YK_NONEMPTY,
     .max = AX_KERNEL_MAX_BUFFERS,
     .missing = "the kernel file needs buffers: the storage buffers, in "
		"binding order",
     .empty = "a kernel needs at least one", .map = &buffer_map,
     .slot = buffer_slot, .fn = unique_buffer},
    {"push_constants", AX_Y_SEQ, 0, .max = AX_KERNEL_MAX_PUSH, .map = &push_map,
     .slot = push_slot},
    {"dispatch", AX_Y_SEQ, AX_YK_REQUIRED | AX_YK_NONEMPTY, .max = 3,
     .missing = "the kernel file needs dispatch: the workgroup counts, "
		"[x, y, z]",
     .empty = "give [x], [x, y] or [x, y, z]", .slot = dispatch_slot,
     .fn = dispatch},
    {"work", AX_Y_MAP, 0, .map = &work_map},
    {"verify", AX_Y_MAP, 0, .map = &verify_map},
    {NULL, AX_Y_CHECK, .fn = check_verified},
};
static const struct ax_ymap root_map = {
    .where = "the kernel file", AX_YKEYS(root_keys), AX_YNONE};

static int load_root(struct ax_yaml *y, yaml_node_t *root)
{
	if (!root)
		return ax_errf(y->err, y->errlen, AX_ECONFIG,
			       "%s: the kernel file is empty; start it with "
			       "'schema: %s'",
			       y->name, AX_KERNEL_SCHEMA);
	return ax_ywalk_map(y, root, &root_map, kl_of(y)->d, NULL);
}

int ax_kernel_desc_parse(const char *text, size_t len, const char *name,
			 struct ax_kernel_desc **out, char *err, size_t errlen)
{
	struct kl k = {.y = {.name = name, .err = err, .errlen = errlen}};
	k.y.ctx = &k;
	*out = NULL;
	char *copy = strdup(name);
	k.d = calloc(1, sizeof(*k.d));
	if (!copy || !k.d || !(k.dir = strdup(dirname(copy))) ||
	    !(k.d->path = strdup(name))) {
		free(copy);
		free(k.dir);
		ax_kernel_desc_free(k.d);
		return AX_ENOMEM;
	}
	free(copy);
	int rc = ax_yaml_parse(&k.y, text, len, "kernel file", 4, load_root);
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
