/* tests/unit/test_case_column.c - the short case column of tables, from
 * the real gemm suite's parameters and defaults. */
#include "app/case_column.h"
#include "ax_test.h"
#include "core/params.h"
#include "suites/registry.h"
#include <string.h>

/* gemm's shape label with name set to value (NULL: all defaults). */
static void gemm_label(const char *name, const char *value, char *buf,
		       size_t len)
{
	const struct ax_suite *s = ax_suite_find("gemm");
	struct ax_params p;
	char err[256];
	ax_params_init(&p, s->params, s->n_params);
	if (name)
		AX_CHECK_INT(ax_params_set(&p, name, value, err, sizeof(err)),
			     0);
	ax_params_label(&p, AX_PARAM_SHAPE, buf, len);
}

/* A sweep over m: every row shows m (the default's row too, since the
 * rows differ in m) and nothing that is at its default in every row. */
static void sweep_shows_what_varies(void)
{
	char a[512], b[512], out[512];
	gemm_label("m", "128", a, sizeof(a));
	gemm_label(NULL, NULL, b, sizeof(b));
	AX_CHECK(strstr(a, "n=") != NULL); /* the stored label is whole */
	struct ax_case_column c;
	ax_case_column_init(&c, false);
	AX_CHECK_INT(ax_case_column_add(&c, "gemm", a), 0);
	AX_CHECK_INT(ax_case_column_add(&c, "gemm", b), 0);
	ax_case_column_text(&c, "gemm", a, out, sizeof(out));
	AX_CHECK_STR(out, "m=128");
	ax_case_column_text(&c, "gemm", b, out, sizeof(out));
	AX_CHECK(strncmp(out, "m=", 2) == 0 && strchr(out, ' ') == NULL);
	AX_CHECK(ax_case_column_cut(&c));
	ax_case_column_free(&c);
}

/* Only defaults: "defaults"; -v (full), an unknown suite or parameter,
 * and a token that is not NAME=VALUE: whole. */
static void defaults_full_and_unknown(void)
{
	char a[512], out[512];
	gemm_label(NULL, NULL, a, sizeof(a));
	struct ax_case_column c;
	ax_case_column_init(&c, false);
	ax_case_column_add(&c, "gemm", a);
	ax_case_column_add(&c, "kernel:mine", "x=1 y=2");
	ax_case_column_add(&c, "gemm", "m=64 odd nosuch=3");
	ax_case_column_text(&c, "gemm", a, out, sizeof(out));
	AX_CHECK(strncmp(out, "m=", 2) == 0); /* m varies: shown */
	ax_case_column_text(&c, "kernel:mine", "x=1 y=2", out, sizeof(out));
	AX_CHECK_STR(out, "x=1 y=2");
	ax_case_column_text(&c, "gemm", "m=64 odd nosuch=3", out, sizeof(out));
	AX_CHECK_STR(out, "m=64 odd nosuch=3");
	ax_case_column_free(&c);

	ax_case_column_init(&c, false);
	ax_case_column_add(&c, "gemm", a);
	ax_case_column_text(&c, "gemm", a, out, sizeof(out));
	AX_CHECK_STR(out, "defaults");
	ax_case_column_free(&c);

	ax_case_column_init(&c, true);
	ax_case_column_add(&c, "gemm", a);
	ax_case_column_text(&c, "gemm", a, out, sizeof(out));
	AX_CHECK_STR(out, a);
	AX_CHECK(!ax_case_column_cut(&c));
	ax_case_column_free(&c);
}

AX_TEST_MAIN(AX_TEST(sweep_shows_what_varies),
	     AX_TEST(defaults_full_and_unknown))
