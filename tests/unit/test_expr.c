/* tests/unit/test_expr.c - the expression language of user kernel files:
 * C's precedence and associativity, every operator and function, numbers
 * with K/M/G, lazy && || ?:, the messages (division by zero naming the
 * divisor, unknown variables, overflow, syntax errors at their column),
 * the nesting limit, the variables an expression uses and its text. */
#include "ax_test.h"

#include "core/error.h"
#include "core/expr.h"

#include <stdbool.h>
#include <stdint.h>

/* The variables every test sees; anything else is unknown. */
static const struct {
	const char *name;
	int64_t v;
} env[] = {
    {"n", 10},
    {"tile", 0},
    {"a", 7},
    {"b", 0},
    {"rows", 4},
    {"big", INT64_MAX},
    {"min64", INT64_MIN},
    {"n31", INT64_C(1) << 31},
    {"s", 70},
};
static int lookups;

static int lookup(void *ctx, const char *name, int64_t *v)
{
	lookups++;
	for (size_t i = 0; i < sizeof(env) / sizeof(env[0]); i++)
		if (strcmp(env[i].name, name) == 0) {
			*v = env[i].v;
			return 0;
		}
	return -1;
}

/* Parse and evaluate text: 0 and *v, or the code and err. */
static int run(const char *text, int64_t *v, char *err, size_t len)
{
	struct ax_expr *e;
	err[0] = '\0';
	int rc = ax_expr_parse(text, &e, err, len);
	if (rc)
		return rc;
	rc = ax_expr_eval(e, lookup, NULL, v, err, len);
	ax_expr_free(e);
	return rc;
}

/* Each text must evaluate to its value. */
struct want {
	const char *text;
	int64_t v;
};

static void check_values(const struct want *w, size_t n)
{
	char err[512];
	for (size_t i = 0; i < n; i++) {
		int64_t v = INT64_C(-12345);
		int rc = run(w[i].text, &v, err, sizeof(err));
		if (rc || v != w[i].v)
			printf("#   \"%s\": rc %d, %lld, expected %lld (%s)\n",
			       w[i].text, rc, (long long)v, (long long)w[i].v,
			       err);
		AX_CHECK(rc == 0 && v == w[i].v);
	}
}

/* Each text must fail with AX_EINVAL and a message holding a part. */
struct refusal {
	const char *text;
	const char *part;
};

static void check_refusals(const struct refusal *r, size_t n)
{
	char err[512];
	for (size_t i = 0; i < n; i++) {
		int64_t v;
		int rc = run(r[i].text, &v, err, sizeof(err));
		if (rc != AX_EINVAL || !strstr(err, r[i].part))
			printf("#   \"%s\": rc %d, \"%s\", expected \"%s\"\n",
			       r[i].text, rc, err, r[i].part);
		AX_CHECK(rc == AX_EINVAL && strstr(err, r[i].part));
	}
}

#define N(x) (sizeof(x) / sizeof((x)[0]))

static void test_precedence(void)
{
	static const struct want w[] = {
	    {"1 + 2 * 3", 7},
	    {"(1 + 2) * 3", 9},
	    {"10 - 4 - 3", 3},
	    {"100 / 10 / 5", 2},
	    {"2 * 3 % 4", 2},
	    {"2 - 3 + 4", 3},
	    {"1 << 2 + 1", 8},
	    {"8 - 2 << 1", 12},
	    {"1 << 3 >> 1", 4},
	    {"1 + 2 < 4", 1},
	    {"3 > 2 > 1", 0},
	    {"1 < 2 == 1", 1},
	    {"2 & 2 == 2", 0},
	    {"6 ^ 3 & 5", 7},
	    {"1 | 2 ^ 3", 1},
	    {"1 || 0 && 0", 1},
	    {"0 && 1 | 1", 0},
	    {"-2 * 3", -6},
	    {"-(2 + 3)", -5},
	    {"!0 + 1", 2},
	    {"- -3", 3},
	    {"-~0", 1},
	    {"1 ? 2 : 3 ? 4 : 5", 2},
	    {"0 ? 2 : 0 ? 4 : 5", 5},
	    {"0 ? 1 : 1 ? 4 : 5", 4},
	    {"1 ? 0 ? 6 : 7 : 8", 7},
	    {"1 + 1 ? 10 : 20", 10},
	    {"0 || 0 ? 1 : 2", 2},
	    {"n / rows * rows", 8},
	    {"(n + rows - 1) / rows", 3},
	};
	check_values(w, N(w));
}

static void test_operators(void)
{
	static const struct want w[] = {
	    {"7 / 2", 3},
	    {"-7 / 2", -3},
	    {"7 / -2", -3},
	    {"7 % 3", 1},
	    {"-7 % 3", -1},
	    {"7 % -3", 1},
	    {"6 * 7", 42},
	    {"2 + 3", 5},
	    {"2 - 3", -1},
	    {"1 << 62", INT64_C(1) << 62},
	    {"-3 << 2", -12},
	    {"-16 >> 2", -4},
	    {"-1 >> 62", -1},
	    {"1024 >> 3", 128},
	    {"1 < 2", 1},
	    {"2 < 2", 0},
	    {"2 <= 2", 1},
	    {"3 > 2", 1},
	    {"2 >= 3", 0},
	    {"2 == 2", 1},
	    {"2 != 2", 0},
	    {"5 & 3", 1},
	    {"5 | 3", 7},
	    {"5 ^ 3", 6},
	    {"5 && 3", 1},
	    {"0 || 7", 1},
	    {"0 && 0", 0},
	    {"0 || 0", 0},
	    {"!5", 0},
	    {"!0", 1},
	    {"~5", -6},
	    {"+4", 4},
	    {"-n", -10},
	    {"min64 % -1", 0},
	    {"big / -1", -INT64_MAX},
	    {"big % 10", 7},
	    {"tile % rows == 0", 1},
	    {" \t1\n+\r\n2 ", 3},
	    {"rows * (rows + 1) * 4 <= 64K && n % 2 == 0", 1},
	};
	check_values(w, N(w));
}

static void test_functions(void)
{
	static const struct want w[] = {
	    {"min(3, -4)", -4},
	    {"max(3, -4)", 3},
	    {"min(big, min64)", INT64_MIN},
	    {"ceil_div(7, 2)", 4},
	    {"ceil_div(-7, 2)", -3},
	    {"ceil_div(7, -2)", -3},
	    {"ceil_div(-7, -2)", 4},
	    {"ceil_div(6, 3)", 2},
	    {"ceil_div(0, 5)", 0},
	    {"ceil_div(big, 1)", INT64_MAX},
	    {"ceil_div(7, -1)", -7},
	    {"ceil_div(n, rows * 2)", 2},
	    {"round_up(10, 4)", 12},
	    {"round_up(12, 4)", 12},
	    {"round_up(-5, 4)", -4},
	    {"round_up(0, 8)", 0},
	    {"abs(-5)", 5},
	    {"abs(5)", 5},
	    {"abs(-big)", INT64_MAX},
	    {"log2(1)", 0},
	    {"log2(1024)", 10},
	    {"log2(1023)", 9},
	    {"log2(big)", 62},
	    {"is_pow2(64)", 1},
	    {"is_pow2(1)", 1},
	    {"is_pow2(0)", 0},
	    {"is_pow2(-8)", 0},
	    {"is_pow2(12)", 0},
	    {"is_pow2(min64)", 0},
	    {"max(1, min(2, 3)) + abs(-1)", 3},
	    {"min ( 1 , 2 )", 1},
	};
	check_values(w, N(w));
	static const struct refusal r[] = {
	    {"round_up(n, tile)", "round_up needs a positive multiple "
				  "(tile is 0)"},
	    {"round_up(n, -4)", "(\"-4\" is -4)"},
	    {"round_up(big, 2)", "integer overflow in \"round_up(big, 2)\""},
	    {"log2(0)", "log2 needs a positive argument (it is 0)"},
	    {"log2(b - 4)", "(\"b - 4\" is -4)"},
	    {"abs(min64)", "integer overflow in \"abs(min64)\""},
	    {"ceil_div(n, tile)", "division by zero (tile is 0)"},
	    {"ceil_div(min64, -1)", "integer overflow"},
	};
	check_refusals(r, N(r));
}

static void test_literals(void)
{
	static const struct want w[] = {
	    {"0", 0},
	    {"0x10", 16},
	    {"0XfF", 255},
	    {"64K", 65536},
	    {"64k", 65536},
	    {"2M", 2 << 20},
	    {"1G", 1 << 30},
	    {"0x10K", 16 << 10},
	    {"8191G", INT64_C(8191) << 30},
	    {"8589934591G", INT64_C(8589934591) << 30},
	    {"9223372036854775807", INT64_MAX},
	    {"0x7fffffffffffffff", INT64_MAX},
	    {"-9223372036854775807 - 1", INT64_MIN},
	    {"0x0", 0},
	};
	check_values(w, N(w));
	static const struct refusal r[] = {
	    {"9223372036854775808", "column 1: number too large"},
	    {"0x8000000000000000", "column 1: number too large"},
	    {"8589934592G", "column 1: number too large"},
	    {"99999999999999999999999999", "column 1: number too large"},
	    {"010", "column 1: a number starts with 0"},
	    {"0x", "column 3: 0x without hexadecimal digits"},
	    {"0xg", "column 3: 0x without"},
	    {"12abc", "column 3: 'a' right after a number"},
	    {"64KB", "column 4: 'B' right after a number"},
	};
	check_refusals(r, N(r));
}

static void test_lazy(void)
{
	static const struct want w[] = {
	    {"b != 0 && a / b > 1", 0}, {"b == 0 || a / b > 1", 1},
	    {"b ? a / b : -1", -1},	{"b == 0 ? 0 : a % b", 0},
	    {"0 && nosuch", 0},		{"1 || nosuch", 1},
	    {"1 ? 2 : nosuch", 2},	{"0 ? nosuch : 3", 3},
	    {"a != 0 && n / a > 1", 0},
	};
	check_values(w, N(w));
	/* The branch not taken is not even looked up. */
	int64_t v;
	char err[256];
	lookups = 0;
	AX_CHECK_INT(run("b ? n + rows : a", &v, err, sizeof(err)), 0);
	AX_CHECK_INT(v, 7);
	AX_CHECK_INT(lookups, 2);
	/* ... but a side that is taken is evaluated, and its error kept. */
	static const struct refusal r[] = {
	    {"1 && 1 << 70 > 1 || 1", "shift count out of range"},
	    {"b == 0 && a / b > 1", "division by zero (b is 0)"},
	};
	check_refusals(r, N(r));
}

static void test_division_by_zero(void)
{
	int64_t v;
	char err[256];
	AX_CHECK_INT(run("n / tile", &v, err, sizeof(err)), AX_EINVAL);
	AX_CHECK_STR(err,
		     "expression \"n / tile\": division by zero (tile is 0)");
	AX_CHECK_INT(run("n % tile", &v, err, sizeof(err)), AX_EINVAL);
	AX_CHECK_STR(err,
		     "expression \"n % tile\": division by zero (tile is 0)");
	AX_CHECK_INT(run("a / (b - b)", &v, err, sizeof(err)), AX_EINVAL);
	AX_CHECK_STR(err, "expression \"a / (b - b)\": division by zero "
			  "(\"b - b\" is 0)");
	AX_CHECK_INT(run("n / 0", &v, err, sizeof(err)), AX_EINVAL);
	AX_CHECK_STR(err, "expression \"n / 0\": division by zero (the "
			  "divisor is 0)");
	AX_CHECK_INT(run("1 + n % ((tile))", &v, err, sizeof(err)), AX_EINVAL);
	AX_CHECK(strstr(err, "(tile is 0)"));
}

static void test_unknown_variable(void)
{
	int64_t v;
	char err[256];
	AX_CHECK_INT(run("n / tilee", &v, err, sizeof(err)), AX_EINVAL);
	AX_CHECK_STR(err, "expression \"n / tilee\": unknown variable "
			  "\"tilee\"");
	/* No lookup at all: every variable is unknown. */
	struct ax_expr *e;
	AX_CHECK_INT(ax_expr_parse("x + 1", &e, err, sizeof(err)), 0);
	AX_CHECK_INT(ax_expr_eval(e, NULL, NULL, &v, err, sizeof(err)),
		     AX_EINVAL);
	AX_CHECK(strstr(err, "unknown variable \"x\""));
	ax_expr_free(e);
}

static void test_overflow(void)
{
	static const struct refusal r[] = {
	    {"big * 2", "integer overflow in \"big * 2\""},
	    {"big + 1", "integer overflow in \"big + 1\""},
	    {"-big - 2", "integer overflow in \"-big - 2\""},
	    {"min64 - 1", "integer overflow"},
	    {"-min64", "integer overflow in \"-min64\""},
	    {"min64 / -1", "integer overflow in \"min64 / -1\""},
	    {"min64 * -1", "integer overflow"},
	    {"3 << 62", "integer overflow in \"3 << 62\""},
	    {"-3 << 62", "integer overflow"},
	    {"2 * n31 * n31 * 4", "integer overflow in \"2 * n31 * n31\""},
	    {"(big + 1) * 0", "integer overflow in \"big + 1\""},
	    {"1 << 63", "shift count out of range (the count is 63; it "
			"must be 0 to 62)"},
	    {"1 >> -1", "shift count out of range (\"-1\" is -1"},
	    {"1 << s", "(s is 70;"},
	};
	check_refusals(r, N(r));
	int64_t v;
	char err[256];
	AX_CHECK_INT(run("big * 2", &v, err, sizeof(err)), AX_EINVAL);
	AX_CHECK(strncmp(err, "expression \"big * 2\": integer overflow", 38) ==
		 0);
}

static void test_syntax_columns(void)
{
	static const struct refusal r[] = {
	    {"n +", "expression \"n +\": column 4: unexpected end (expected a "
		    "number, a name, '(' or a unary operator)"},
	    {"(n", "expression \"(n\": column 3: unexpected end (expected ')' "
		   "closing the '(' at column 1)"},
	    {"n ) ", "expression \"n ) \": column 3: unexpected ')' "
		     "(expected an operator or the end)"},
	    {"3 $ 4", "expression \"3 $ 4\": column 3: unexpected character "
		      "'$'"},
	    {"foo(1)", "expression \"foo(1)\": column 1: unknown function "
		       "\"foo\" (known: min, max, ceil_div, round_up, abs, "
		       "log2 or is_pow2)"},
	    {"min(1)", "expression \"min(1)\": column 6: min takes 2 "
		       "arguments, not 1 (expected min(a, b))"},
	    {"abs(1, 2)", "column 8: abs takes 1 argument, not 2"},
	    {"abs()", "column 5: abs takes 1 argument, not 0"},
	    {"max(1, 2,)", "column 10: unexpected ')'"},
	    {"max(1 2)", "column 7: unexpected '2' (expected ',' or ')' of "
			 "the call at column 1)"},
	    {"", "expression \"\": column 1: unexpected end"},
	    {"   ", "column 4: unexpected end"},
	    {"a = b", "column 3: '=' is not an operator (== compares)"},
	    {"min + 1", "column 1: min is a function, not a variable "
			"(expected min(a, b))"},
	    {"1 ? 2", "column 6: unexpected end (expected ':' of the '?' at "
		      "column 3)"},
	    {"1 2", "column 3: unexpected '2'"},
	    {"n * * 2", "column 5: unexpected '*'"},
	    {"()", "column 2: unexpected ')'"},
	    {"n\x01", "expression \"n\\x01\": column 2: unexpected byte 0x01"},
	};
	check_refusals(r, N(r));
	/* 63 characters is a name, 64 too many. */
	struct ax_expr *e;
	char name[80], err[256];
	memset(name, 'x', 64);
	name[64] = '\0';
	AX_CHECK_INT(ax_expr_parse(name, &e, err, sizeof(err)), AX_EINVAL);
	AX_CHECK(strstr(err, "column 1: a name of 64 characters (at most "
			     "63)"));
	name[63] = '\0';
	AX_CHECK_INT(ax_expr_parse(name, &e, err, sizeof(err)), 0);
	ax_expr_free(e);
}

/* "(((...1...)))" or "- - ...1" with depth levels. */
static void nested(char *buf, int depth, bool parens)
{
	char *p = buf;
	for (int i = 0; i < depth; i++)
		p += sprintf(p, parens ? "(" : "- ");
	p += sprintf(p, "1");
	for (int i = 0; parens && i < depth; i++)
		*p++ = ')';
	*p = '\0';
}

static void test_limits(void)
{
	char text[AX_EXPR_MAX_TEXT + 2], err[512];
	int64_t v;
	nested(text, AX_EXPR_MAX_DEPTH, true);
	AX_CHECK_INT(run(text, &v, err, sizeof(err)), 0);
	nested(text, AX_EXPR_MAX_DEPTH + 1, true);
	AX_CHECK_INT(run(text, &v, err, sizeof(err)), AX_EINVAL);
	AX_CHECK(strstr(err, "column 65: nested more than 64 levels deep"));
	nested(text, AX_EXPR_MAX_DEPTH, false);
	AX_CHECK_INT(run(text, &v, err, sizeof(err)), 0);
	AX_CHECK_INT(v, 1);
	nested(text, AX_EXPR_MAX_DEPTH + 1, false);
	AX_CHECK_INT(run(text, &v, err, sizeof(err)), AX_EINVAL);
	AX_CHECK(strstr(err, "nested more than 64 levels deep"));
	/* A flat chain is not nesting: 2048 terms in 4095 bytes. */
	for (int i = 0; i < 2047; i++)
		memcpy(text + 2 * i, "1+", 2);
	strcpy(text + 2 * 2047, "1");
	AX_CHECK_INT(run(text, &v, err, sizeof(err)), 0);
	AX_CHECK_INT(v, 2048);
	/* The message cuts a long text but keeps the column and reason. */
	strcpy(text + 2 * 2047, "+");
	AX_CHECK_INT(run(text, &v, err, sizeof(err)), AX_EINVAL);
	AX_CHECK(strstr(err, " [...] "));
	AX_CHECK(strstr(err, "\": column 4096: unexpected end"));
	memset(text, '1', AX_EXPR_MAX_TEXT + 1);
	text[AX_EXPR_MAX_TEXT + 1] = '\0';
	AX_CHECK_INT(run(text, &v, err, sizeof(err)), AX_EINVAL);
	AX_CHECK(strstr(err, "longer than 4096 bytes"));
	struct ax_expr *e = (struct ax_expr *)&v;
	AX_CHECK_INT(ax_expr_parse(NULL, &e, err, sizeof(err)), AX_EINVAL);
	AX_CHECK(e == NULL);
}

struct seen {
	char names[8][64];
	int n, stop_at;
};

static int collect(void *ctx, const char *name)
{
	struct seen *s = ctx;
	snprintf(s->names[s->n], sizeof(s->names[0]), "%s", name);
	return ++s->n == s->stop_at ? 7 : 0;
}

static void test_each_var(void)
{
	struct ax_expr *e;
	char err[256];
	AX_CHECK_INT(ax_expr_parse("b + a * b + min(a, c) - d ? a : ceil_div"
				   "(e, b)",
				   &e, err, sizeof(err)),
		     0);
	struct seen s = {.stop_at = -1};
	AX_CHECK_INT(ax_expr_each_var(e, collect, &s), 0);
	AX_CHECK_INT(s.n, 5);
	AX_CHECK_STR(s.names[0], "b");
	AX_CHECK_STR(s.names[1], "a");
	AX_CHECK_STR(s.names[2], "c");
	AX_CHECK_STR(s.names[3], "d");
	AX_CHECK_STR(s.names[4], "e");
	struct seen t = {.stop_at = 3};
	AX_CHECK_INT(ax_expr_each_var(e, collect, &t), 7);
	AX_CHECK_INT(t.n, 3);
	ax_expr_free(e);
	AX_CHECK_INT(ax_expr_parse("max(1, 2) * 64K", &e, err, sizeof(err)), 0);
	struct seen u = {.stop_at = -1};
	AX_CHECK_INT(ax_expr_each_var(e, collect, &u), 0);
	AX_CHECK_INT(u.n, 0);
	ax_expr_free(e);
}

static void test_text(void)
{
	static const char *const texts[] = {
	    "n / tile", "  ceil_div(n,\n\ttile * rows)  ", "64K", "(a)"};
	char err[256];
	for (size_t i = 0; i < N(texts); i++) {
		struct ax_expr *e;
		AX_CHECK_INT(ax_expr_parse(texts[i], &e, err, sizeof(err)), 0);
		AX_CHECK_STR(ax_expr_text(e), texts[i]);
		AX_CHECK(ax_expr_text(e) != texts[i]); /* a copy */
		ax_expr_free(e);
	}
	ax_expr_free(NULL);
	/* An expression is evaluated as often as asked, the same way. */
	struct ax_expr *e;
	int64_t v1 = 0, v2 = 0;
	AX_CHECK_INT(ax_expr_parse("n * rows + 1", &e, err, sizeof(err)), 0);
	AX_CHECK_INT(ax_expr_eval(e, lookup, NULL, &v1, err, sizeof(err)), 0);
	AX_CHECK_INT(ax_expr_eval(e, lookup, NULL, &v2, err, sizeof(err)), 0);
	AX_CHECK_INT(v1, 41);
	AX_CHECK_INT(v2, 41);
	ax_expr_free(e);
	/* A failed evaluation leaves *out alone. */
	AX_CHECK_INT(run("n / tile", &v1, err, sizeof(err)), AX_EINVAL);
	AX_CHECK_INT(v1, 41);
	/* A small buffer gets a cut message, a NULL one none. */
	char small[16];
	AX_CHECK_INT(run("n / tile", &v1, small, sizeof(small)), AX_EINVAL);
	AX_CHECK_INT(strlen(small), 15);
	AX_CHECK_INT(ax_expr_parse("n +", &e, NULL, 0), AX_EINVAL);
}

AX_TEST_MAIN(AX_TEST(test_precedence), AX_TEST(test_operators),
	     AX_TEST(test_functions), AX_TEST(test_literals),
	     AX_TEST(test_lazy), AX_TEST(test_division_by_zero),
	     AX_TEST(test_unknown_variable), AX_TEST(test_overflow),
	     AX_TEST(test_syntax_columns), AX_TEST(test_limits),
	     AX_TEST(test_each_var), AX_TEST(test_text))
