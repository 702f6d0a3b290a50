/*
 * tests/unit/test_kernel_desc.c - user kernel description files
 * (core/kernel_desc.h): every field read back, and each malformed file
 * refused with the FILE:LINE:COL of the offending key or value.
 */
#include "core/error.h"
#include "core/kernel_desc.h"

#include "ax_test.h"

#include <stdint.h>

#define NAME "dir/k.yaml"

static const char full[] =
    "schema: axbench.kernel/v1\n"
    "name: tr-1\n"
    "description: a test kernel\n"
    "shader:\n"
    "  file: t.comp\n"
    "  entry: main\n"
    "  defines: {PAD: 1, EMPTY: null}\n"
    "params:\n"
    "  n: {values: [1024, 256], default: 256, shape: true, help: side}\n"
    "  tile: {range: 4..32, tunable: true, define: TILE}\n"
    "  rows: {range: 1..8:1, tunable: true, spec_id: 3}\n"
    "  fixed: {values: [7]}\n"
    "constraints:\n"
    "  - rows <= tile\n"
    "  - tile * tile * 4 <= max_shared_memory\n"
    "buffers:\n"
    "  - {name: a, type: float, elements: n * n, init: random, seed: 9, "
    "role: in}\n"
    "  - {name: b, type: uint, elements: n, init: file, file: b.bin, role: "
    "in}\n"
    "  - {name: c, type: int, elements: 2 * n, role: out, atol: 0.5, rtol: "
    "0.25, expect: /abs/c.bin}\n"
    "  - {name: d, elements: 4, init: iota}\n"
    "push_constants:\n"
    "  - {name: n, type: uint, value: n}\n"
    "  - {name: f, type: float, value: 3}\n"
    "  - {name: k, value: \"min(n, 64)\"}\n"
    "dispatch: [\"ceil_div(n, tile)\", n / tile]\n"
    "work: {flops: 2 * n, bytes: 8 * n * n}\n"
    "verify:\n"
    "  reference: {tile: 8, rows: 2}\n";

static struct ax_kernel_desc *parse_ok(const char *text)
{
	struct ax_kernel_desc *d = NULL;
	char err[1024] = "";
	int rc = ax_kernel_desc_parse(text, strlen(text), NAME, &d, err,
				      sizeof(err));
	if (rc)
		printf("#   unexpected error: %s\n", err);
	AX_CHECK_INT(rc, 0);
	return d;
}

static void test_every_field(void)
{
	struct ax_kernel_desc *d = parse_ok(full);
	if (!d)
		return;
	AX_CHECK_STR(d->name, "tr-1");
	AX_CHECK_STR(d->description, "a test kernel");
	AX_CHECK_STR(d->shader_path, "dir/t.comp");
	AX_CHECK_STR(d->entry, "main");
	AX_CHECK_INT(d->n_defines, 2);
	AX_CHECK_STR(d->defines[0].name, "PAD");
	AX_CHECK_STR(d->defines[0].value, "1");
	AX_CHECK(d->defines[1].value == NULL);
	AX_CHECK_INT(d->n_params, 4);
	/* values are sorted; the default is one of them */
	AX_CHECK_INT(d->params[0].n_values, 2);
	AX_CHECK_INT(d->params[0].values[0], 256);
	AX_CHECK_INT(d->params[0].def, 256);
	AX_CHECK(d->params[0].shape && !d->params[0].tunable);
	AX_CHECK_STR(d->params[0].help, "side");
	/* 4..32 doubles: 4 8 16 32; default the smallest */
	AX_CHECK_INT(d->params[1].n_values, 4);
	AX_CHECK_INT(d->params[1].values[3], 32);
	AX_CHECK_INT(d->params[1].def, 4);
	AX_CHECK_STR(d->params[1].define, "TILE");
	AX_CHECK_INT(d->params[1].spec_id, -1);
	AX_CHECK_INT(d->params[2].n_values, 8);
	AX_CHECK_INT(d->params[2].spec_id, 3);
	AX_CHECK(!d->params[3].tunable && !d->params[3].shape);
	AX_CHECK_INT(d->n_constraints, 2);
	AX_CHECK_STR(ax_expr_text(d->constraints[1].e),
		     "tile * tile * 4 <= max_shared_memory");
	AX_CHECK_INT(d->constraints[1].pos.line, 15);
	AX_CHECK_INT(d->n_buffers, 4);
	AX_CHECK_INT(d->buffers[0].type, AX_KTYPE_FLOAT);
	AX_CHECK_INT(d->buffers[0].init, AX_KINIT_RANDOM);
	AX_CHECK_INT((int64_t)d->buffers[0].seed, 9);
	AX_CHECK_INT(d->buffers[0].role, AX_KROLE_IN);
	AX_CHECK_STR(d->buffers[1].file, "dir/b.bin");
	AX_CHECK_INT(d->buffers[1].type, AX_KTYPE_UINT);
	AX_CHECK_INT(d->buffers[2].role, AX_KROLE_OUT);
	AX_CHECK_NEAR(d->buffers[2].atol, 0.5, 0);
	AX_CHECK_NEAR(d->buffers[2].rtol, 0.25, 0);
	AX_CHECK_STR(d->buffers[2].expect, "/abs/c.bin");
	/* defaults: float, zeros/iota, inout, float tolerances */
	AX_CHECK_INT(d->buffers[3].type, AX_KTYPE_FLOAT);
	AX_CHECK_INT(d->buffers[3].init, AX_KINIT_IOTA);
	AX_CHECK_INT(d->buffers[3].role, AX_KROLE_INOUT);
	AX_CHECK_NEAR(d->buffers[3].rtol, 1e-5, 0);
	AX_CHECK_INT(d->n_push, 3);
	AX_CHECK_INT(d->push[1].type, AX_KTYPE_FLOAT);
	AX_CHECK_INT(d->push[2].type, AX_KTYPE_UINT);
	AX_CHECK(d->dispatch[0].e && d->dispatch[1].e && !d->dispatch[2].e);
	AX_CHECK_STR(ax_expr_text(d->dispatch[0].e), "ceil_div(n, tile)");
	AX_CHECK(d->flops.e && d->bytes.e);
	AX_CHECK(d->has_reference);
	AX_CHECK(d->ref_set[1] && d->ref_set[2] && !d->ref_set[0]);
	AX_CHECK_INT(d->ref_value[1], 8);
	ax_kernel_desc_free(d);
}

static void test_defaults(void)
{
	/* The least a file needs; the name comes from the file name. */
	struct ax_kernel_desc *d =
	    parse_ok("schema: axbench.kernel/v1\n"
		     "shader: {file: s.comp}\n"
		     "buffers:\n"
		     "  - {name: o, elements: 64, role: out, expect: o.bin}\n"
		     "dispatch: [1]\n");
	if (!d)
		return;
	AX_CHECK_STR(d->name, "k");
	AX_CHECK_STR(d->entry, "main");
	AX_CHECK(!d->has_reference && !d->flops.e && !d->bytes.e);
	AX_CHECK_INT(d->n_params, 0);
	ax_kernel_desc_free(d);
}

/* A valid file with one line replaced. */
struct bad {
	const char *text;
	const char *want; /* a substring of the message, with LINE:COL */
};

#define HEAD "schema: axbench.kernel/v1\nshader: {file: s.comp}\n"
#define OUTB "buffers:\n  - {name: o, elements: n, role: out}\n"
#define PARN "params:\n  n: {values: [64, 128], shape: true}\n"
#define REF "verify: {reference: {n: 64}}\n"
#define DISP "dispatch: [n]\n"

static const struct bad bads[] = {
    {"schema: axbench.kernel/v2\n", NAME ":1:9: schema must be"},
    {"shader: {file: s.comp}\n", NAME ":1:1: the kernel file has no 'schema'"},
    {HEAD "colour: red\n", NAME ":3:1: unknown key 'colour'"},
    {HEAD "name: Big Name\n", NAME ":3:7: name 'Big Name' must be"},
    {"schema: axbench.kernel/v1\n" OUTB DISP, NAME ":1:1: the kernel file "
						   "needs shader"},
    {HEAD PARN "  m: {values: [1, 1]}\n" OUTB DISP REF,
     NAME ":5:15: params.m.values lists 1 twice"},
    {HEAD PARN "  m: {range: 1..x}\n" OUTB DISP REF,
     NAME ":5:14: params.m.range must be LO..HI"},
    {HEAD PARN "  m: {values: [1], range: 1..4}\n" OUTB DISP REF,
     NAME ":5:6: params.m needs exactly one of values"},
    {HEAD PARN "  m: {values: [1, 2], default: 3}\n" OUTB DISP REF,
     NAME ":5:32: params.m.default 3 is not among"},
    {HEAD PARN "  m: {values: [1], tunable: yes}\n" OUTB DISP REF,
     NAME ":5:29: tunable must be true or false"},
    {HEAD PARN "  m: {values: [1], tunable: true, shape: true}\n" OUTB DISP REF,
     NAME ":5:6: params.m is both tunable and a shape"},
    {HEAD PARN "  2x: {values: [1]}\n" OUTB DISP REF,
     NAME ":5:3: a parameter name '2x' must be an identifier"},
    {HEAD PARN "  max_invocations: {values: [1]}\n" OUTB DISP REF,
     NAME ":5:3: parameter 'max_invocations' has the name of a device"},
    {HEAD PARN "constraints: [\"n % \"]\n" OUTB DISP REF,
     NAME ":5:15: a constraint: expression \"n % \": column"},
    {HEAD PARN "constraints: [n < nn]\n" OUTB DISP REF,
     NAME ":5:15: a constraint: expression \"n < nn\" uses unknown "
	  "variable 'nn'; known: n, max_shared_memory"},
    {HEAD PARN
     "buffers:\n  - {name: o, elements: n, role: sideways}\n" DISP REF,
     NAME ":6:34: role must be one of in, out, inout (got sideways)"},
    {HEAD PARN "buffers:\n  - {name: o, role: out}\n" DISP REF,
     NAME ":6:5: buffer o needs elements"},
    {HEAD PARN "buffers:\n  - {name: o, elements: n, type: double}\n" DISP REF,
     NAME ":6:34: type must be one of float, int, uint (got double)"},
    {HEAD PARN "buffers:\n  - {name: o, elements: n, role: in, atol: 1}\n"
	       "  - {name: p, elements: n}\n" DISP REF,
     NAME ":6:44: buffer o: atol applies to outputs"},
    {HEAD PARN "buffers:\n  - {name: o, elements: n, init: file}\n" DISP REF,
     NAME ":6:5: buffer o: init: file needs file: PATH"},
    {HEAD PARN "buffers:\n  - {name: o, elements: n}\n  - {name: o, "
	       "elements: n}\n" DISP REF,
     NAME ":7:5: two buffers are called o"},
    {HEAD PARN "buffers: []\n" DISP REF, NAME ":5:10: buffers is empty"},
    {HEAD PARN OUTB "dispatch: []\n" REF, NAME ":7:11: dispatch is empty"},
    {HEAD PARN OUTB "dispatch: [1, 2, 3, 4]\n" REF,
     NAME ":7:11: dispatch has 4 entries; at most 3"},
    {HEAD PARN OUTB DISP "push_constants:\n  - {name: p}\n" REF,
     NAME ":9:5: push constant p needs value"},
    {HEAD PARN OUTB DISP "work: {flops: n / 0 +}\n" REF,
     NAME ":8:15: work.flops: expression \"n / 0 +\": column"},
    {HEAD PARN OUTB DISP "work: {ops: 1}\n" REF,
     NAME ":8:8: unknown key 'ops' in work"},
    {HEAD PARN OUTB DISP, NAME ":6:5: output buffer o is checked against "
			       "nothing"},
    {HEAD PARN OUTB DISP "verify: {reference: {m: 1}}\n",
     NAME ":8:22: verify.reference sets 'm', which is not a parameter"},
    {HEAD PARN "buffers:\n  - {name: o, elements: n, role: in}\n" DISP,
     NAME ":1:1: no buffer has role out or inout"},
    {HEAD "x: &a 1\ny: *a\n", NAME ":4:4: YAML alias *a is not allowed in "
				   "a kernel file"},
    {HEAD "params: [1, 2\n", NAME ":4:"},
};

static void test_malformed(void)
{
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		struct ax_kernel_desc *d = (void *)1;
		char err[1024] = "";
		int rc =
		    ax_kernel_desc_parse(bads[i].text, strlen(bads[i].text),
					 NAME, &d, err, sizeof(err));
		AX_CHECK_INT(rc, AX_ECONFIG);
		AX_CHECK(d == NULL);
		if (!strstr(err, bads[i].want)) {
			printf("#   case %zu: got \"%s\"\n#   want \"%s\"\n", i,
			       err, bads[i].want);
			ax_test_failed_checks++;
		}
	}
}

static void test_missing_file(void)
{
	struct ax_kernel_desc *d;
	char err[512];
	AX_CHECK_INT(
	    ax_kernel_desc_load("/nonexistent/k.yaml", &d, err, sizeof(err)),
	    AX_EIO);
	AX_CHECK(strstr(err, "/nonexistent/k.yaml") != NULL);
}

/* The shipped examples load (run from the repository root). */
static void test_examples(void)
{
	static const char *const files[] = {"examples/kernels/saxpy.yaml",
					    "examples/kernels/transpose.yaml",
					    "examples/kernels/reduce.yaml"};
	for (int i = 0; i < 3; i++) {
		struct ax_kernel_desc *d;
		char err[1024] = "";
		int rc = ax_kernel_desc_load(files[i], &d, err, sizeof(err));
		if (rc)
			printf("#   %s\n", err);
		AX_CHECK_INT(rc, 0);
		if (!rc) {
			AX_CHECK(d->has_reference);
			AX_CHECK(d->bytes.e != NULL);
			ax_kernel_desc_free(d);
		}
	}
}

AX_TEST_MAIN(AX_TEST(test_every_field), AX_TEST(test_examples),
	     AX_TEST(test_defaults), AX_TEST(test_malformed),
	     AX_TEST(test_missing_file))
