/* tests/unit/test_registry.c - every built-in suite descriptor passes the
 * registry's start-up validation, each knob's spec id is one its shaders
 * declare (read from the embedded SPIR-V, so the table row and the GLSL
 * constant_id cannot drift apart), and the validation refuses broken
 * descriptors with the rule they break. */
#include "ax_test.h"

#include "core/error.h"
#include "core/params.h"
#include "core/roles.h"
#include "shaders/table.h"
#include "suites/registry.h"

#include <stdio.h>
#include <string.h>

static void test_builtin_table_valid(void)
{
	char err[512] = "";
	int rc = ax_registry_check(err, sizeof(err));
	if (rc)
		fprintf(stderr, "  %s\n", err);
	AX_CHECK_INT(rc, 0);
	for (int i = 0; i < ax_suite_count; i++) {
		rc = ax_suite_validate(ax_suites[i], err, sizeof(err));
		if (rc)
			fprintf(stderr, "  %s\n", err);
		AX_CHECK_INT(rc, 0);
	}
}

/* ---- spec ids against the SPIR-V -------------------------------------- */

#define SPV_OP_DECORATE 71
#define SPV_DECORATION_SPEC_ID 1

static const struct ax_shader *shader_named(const char *name)
{
	for (size_t i = 0; i < ax_shader_count; i++)
		if (!strcmp(ax_shaders[i].name, name))
			return &ax_shaders[i];
	return NULL;
}

/* Does the module declare a specialization constant with this id? */
static bool spirv_has_spec(const struct ax_shader *sh, uint32_t id)
{
	const uint32_t *w = sh->code;
	size_t n = sh->size / 4;
	for (size_t i = 5; i < n;) {
		uint32_t len = w[i] >> 16, op = w[i] & 0xffff;
		if (!len)
			break;
		if (op == SPV_OP_DECORATE && len >= 4 &&
		    w[i + 2] == SPV_DECORATION_SPEC_ID && w[i + 3] == id)
			return true;
		i += len;
	}
	return false;
}

#define MAX_SHADERS 16

static void add_shader(const char **names, int *n, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(names[i], name))
			return;
	if (*n < MAX_SHADERS)
		names[(*n)++] = name;
}

/* Number of values of a choice parameter (enum or bool), else 0. */
static int choices_of(const struct ax_param_def *d)
{
	int n = 0;
	if (d->type == AX_PT_BOOL)
		return 2;
	while (d->type == AX_PT_ENUM && d->choices[n])
		n++;
	return n;
}

/* The embedded shaders a suite's points use: every pair of values of
 * its choice parameters (gemm's kernel=coopmat with acc=f16 needs two). */
static int suite_shaders(const struct ax_suite *s, const char **names)
{
	int n = 0;
	struct ax_params p;
	for (int i = 0; s->shader && i < s->n_params; i++)
		for (int j = i; j < s->n_params; j++)
			for (int a = 0; a < choices_of(&s->params[i]); a++)
				for (int b = 0; b < choices_of(&s->params[j]);
				     b++) {
					ax_params_init(&p, s->params,
						       s->n_params);
					p.v[i] = a;
					p.v[j] = i == j ? a : b;
					const char *sh = s->shader(&p);
					if (sh)
						add_shader(names, &n, sh);
				}
	if (s->shader && !n) {
		ax_params_init(&p, s->params, s->n_params);
		const char *sh = s->shader(&p);
		if (sh)
			add_shader(names, &n, sh);
	}
	return n;
}

static void test_spec_ids_in_shaders(void)
{
	for (int i = 0; i < ax_suite_count; i++) {
		const struct ax_suite *s = ax_suites[i];
		const char *names[MAX_SHADERS];
		int n = suite_shaders(s, names);
		for (int k = 0; k < s->n_params; k++) {
			const struct ax_param_def *d = &s->params[k];
			/* The required subgroup size is the pipeline's,
			 * not a constant of the shader (core/vk.h). */
			if (!d->spec.set ||
			    d->spec.id == AX_VK_SPEC_SUBGROUP_SIZE)
				continue;
			bool found = false;
			for (int j = 0; j < n; j++) {
				const struct ax_shader *sh =
				    shader_named(names[j]);
				AX_CHECK(sh != NULL);
				found |= sh && spirv_has_spec(sh, d->spec.id);
			}
			if (!found)
				fprintf(stderr,
					"  %s.%s: constant_id %u is in none "
					"of its %d shaders\n",
					s->name, d->name, d->spec.id, n);
			AX_CHECK(found);
		}
	}
}

/* ---- broken descriptors are refused ----------------------------------- */

struct cfg {
	uint32_t a, b;
	bool on;
};

static const char *const modes[] = {"x", "y", NULL};

static const struct ax_param_def good_params[] = {
    {"a", AX_PT_INT, 1, 64, NULL, 8, AX_PARAM_TUNABLE, "knob a",
     AX_KNOB(struct cfg, a, 0)},
    {"b", AX_PT_INT, 1, 64, NULL, 8, AX_PARAM_TUNABLE, "knob b",
     AX_KNOB(struct cfg, b, 1)},
    {"on", AX_PT_BOOL, 0, 1, NULL, 1, 0, "switch", AX_FIELD(struct cfg, on)},
    {"mode", AX_PT_ENUM, 0, 0, modes, 1, AX_PARAM_SHAPE, "mode"},
};

static int fake_setup(struct ax_vk_ctx *vk, const struct ax_params *p,
		      void **state, char *err, size_t errlen)
{
	return 0;
}
static void fake_record(void *state, VkCommandBuffer cb, uint32_t reps) {}
static int fake_host_op(void *state, char *err, size_t errlen) { return 0; }
static int fake_verify(void *state, char *why, size_t whylen) { return 0; }
static double fake_work(const struct ax_params *p) { return 1; }
static void fake_teardown(struct ax_vk_ctx *vk, void *state) {}

static struct ax_suite good(void)
{
	return (struct ax_suite){
	    .name = "fake",
	    .summary = "a descriptor for the validation's tests",
	    .unit = "GB/s",
	    .scale = 1e9,
	    .params = good_params,
	    .n_params = 4,
	    .config_size = sizeof(struct cfg),
	    .setup = fake_setup,
	    .record = fake_record,
	    .verify = fake_verify,
	    .work = fake_work,
	    .teardown = fake_teardown,
	};
}

/* s is refused, and the message holds want. */
static void refused(const struct ax_suite *s, const char *want)
{
	char err[512] = "";
	AX_CHECK_INT(ax_suite_validate(s, err, sizeof(err)), AX_EINVAL);
	if (!strstr(err, want))
		fprintf(stderr, "  want \"%s\" in \"%s\"\n", want, err);
	AX_CHECK(strstr(err, want) != NULL);
}

static void test_broken_hooks(void)
{
	struct ax_suite s = good();
	char err[256];
	AX_CHECK_INT(ax_suite_validate(&s, err, sizeof(err)), 0);
	s.teardown = NULL;
	refused(&s, "setup and teardown come together");
	s = good();
	s.host_op = fake_host_op;
	refused(&s, "exactly one of record");
	s = good();
	s.verify = NULL;
	refused(&s, "verify is required");
	s = good();
	s.scale = 0;
	refused(&s, "scale must be positive");
}

static void test_broken_table(void)
{
	struct ax_param_def defs[4];
	struct ax_suite s = good();
	s.params = defs;
	memcpy(defs, good_params, sizeof(defs));
	defs[1].spec.id = 0; /* b takes a's constant */
	refused(&s, "a and b: both set specialization constant 0");
	memcpy(defs, good_params, sizeof(defs));
	defs[0].def = 100; /* outside 1..64 */
	refused(&s, "a: the default is not a valid value");
	memcpy(defs, good_params, sizeof(defs));
	defs[3].def = 5; /* no such choice */
	refused(&s, "mode: the default is not a valid value");
	memcpy(defs, good_params, sizeof(defs));
	defs[1].name = "a";
	refused(&s, "a: two parameters have this name");
	memcpy(defs, good_params, sizeof(defs));
	s.config_size = 4; /* b and on lie beyond it */
	refused(&s, "b: field at offset 4 (4 bytes) is outside the 4-byte");
	s.config_size = sizeof(struct cfg);
	defs[1].field = defs[0].field;
	refused(&s, "a and b: bound to overlapping fields");
	memcpy(defs, good_params, sizeof(defs));
	defs[0].field.size = 2;
	refused(&s, "a: bound to a 2-byte field");
	/* A knob's condition names a fixed enum or bool row and a value. */
	memcpy(defs, good_params, sizeof(defs));
	defs[2].when = "mode=fast"; /* on is not tunable */
	refused(&s, "on: when=\"mode=fast\" on a row that is not tunable");
	memcpy(defs, good_params, sizeof(defs));
	defs[0].when = "b=8"; /* b is an int, and tunable */
	refused(&s, "a: when=\"b=8\" must name an enum or bool parameter");
	memcpy(defs, good_params, sizeof(defs));
	defs[0].when = "mode=sideways";
	refused(&s, "a: when=\"mode=sideways\": mode has no value 'sideways'");
	memcpy(defs, good_params, sizeof(defs));
	defs[0].when = "nothing=1";
	refused(&s, "must name an enum or bool parameter of the table");
	memcpy(defs, good_params, sizeof(defs));
	defs[0].when = "on=true";
	struct ax_suite ok = s;
	char err[256];
	AX_CHECK_INT(ax_suite_validate(&ok, err, sizeof(err)), 0);
	/* Active only where its condition holds. */
	struct ax_params p;
	ax_params_init(&p, defs, 4);
	AX_CHECK(ax_param_active(&p, 0));  /* on defaults to true */
	AX_CHECK(ax_param_active(&p, 1));  /* b: no condition */
	AX_CHECK(!ax_param_active(&p, 2)); /* on: not tunable */
	p.v[2] = 0;
	AX_CHECK(!ax_param_active(&p, 0));
}

static void test_broken_names(void)
{
	struct ax_suite s = good();
	s.batch_param = "mode";
	refused(&s, "batch_param must name an integer parameter (mode is "
		    "not one)");
	s = good();
	const struct ax_suite_need needs[] = {{"nope", 2}, {NULL, 0}};
	s.recommend_needs = needs;
	refused(&s, "recommend_needs must name parameters (nope");
	/* a role's contract: transfer needs direction, path, ... */
	s = good();
	s.roles = AX_ROLE_TRANSFER;
	refused(&s, "role transfer requires an enum parameter direction");
	s = good();
	const struct ax_suite *two[2] = {&s, &s};
	char err[256];
	AX_CHECK_INT(ax_registry_check_table(two, 2, err, sizeof(err)),
		     AX_EINVAL);
	AX_CHECK_STR(err, "two suites are called fake");
}

/* ---- what the bindings do --------------------------------------------- */

static void test_store_and_spec(void)
{
	struct ax_params p;
	struct cfg c = {0, 0, false};
	struct ax_vk_spec spec[AX_MAX_PARAMS];
	char err[256];
	ax_params_init(&p, good_params, 4);
	AX_CHECK_INT(ax_params_set(&p, "b", "32", err, sizeof(err)), 0);
	ax_params_store(&p, &c);
	AX_CHECK_INT(c.a, 8);
	AX_CHECK_INT(c.b, 32);
	AX_CHECK(c.on);
	AX_CHECK_INT(ax_suite_spec(&p, spec), 2);
	AX_CHECK_INT(spec[0].id, 0);
	AX_CHECK_INT(spec[0].value, 8);
	AX_CHECK_INT(spec[1].id, 1);
	AX_CHECK_INT(spec[1].value, 32);
}

static void test_role_point(void)
{
	json_t *params =
	    json_pack("{s:s, s:s, s:i, s:i}", "direction", "h2d", "path",
		      "staged", "chunk", 4096, "total", 1 << 20);
	struct ax_transfer_point x;
	ax_role_point(AX_ROLE_TRANSFER, params, &x);
	AX_CHECK_STR(x.direction, "h2d");
	AX_CHECK_STR(x.path, "staged");
	AX_CHECK(x.source == NULL); /* missing: NULL, as before */
	AX_CHECK_INT(x.chunk, 4096);
	AX_CHECK_INT(x.inflight, 0);
	AX_CHECK_INT(x.total, 1 << 20);
	json_decref(params);
	int n;
	AX_CHECK(ax_role_params(AX_ROLE_INGEST, &n) != NULL);
	AX_CHECK_INT(n, 5);
	AX_CHECK(ax_role_params(AX_ROLE_WORKLOAD, &n) == NULL);
	AX_CHECK_INT(n, 0);
}

AX_TEST_MAIN(AX_TEST(test_builtin_table_valid),
	     AX_TEST(test_spec_ids_in_shaders), AX_TEST(test_broken_hooks),
	     AX_TEST(test_broken_table), AX_TEST(test_broken_names),
	     AX_TEST(test_store_and_spec), AX_TEST(test_role_point))
