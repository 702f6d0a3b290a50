/*
 * tests/fuzz/fuzz_expr.c - libFuzzer target for the expression language
 * of user kernel files (core/expr.h): arbitrary bytes are parsed (a
 * NUL-terminated copy), and what parses is evaluated with variables whose
 * values come from the input (0, -1, INT64_MIN, INT64_MAX among them);
 * names starting with 'z' are unknown.  Errors are normal answers; only
 * the sanitizers and these rules trap: the text kept is the text given,
 * a refusal says which expression, and evaluating twice gives the same.
 */
#include "core/error.h"
#include "core/expr.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const int64_t values[17] = {0,
				   1,
				   -1,
				   2,
				   3,
				   7,
				   64,
				   4096,
				   65536,
				   -64,
				   2147483648,
				   INT32_MAX,
				   INT64_MIN,
				   INT64_MAX,
				   INT64_MIN + 1,
				   INT64_MAX - 1,
				   INT64_MAX / 3};

struct env {
	uint64_t seed;
};

static int lookup(void *ctx, const char *name, int64_t *v)
{
	const struct env *env = ctx;
	uint64_t h = env->seed;
	if (name[0] == 'z')
		return -1;
	for (const char *c = name; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
	*v = values[h % 17];
	return 0;
}

static int count_var(void *ctx, const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > AX_EXPR_MAX_NAME)
		__builtin_trap();
	++*(int *)ctx;
	return 0;
}

static void evaluate(const struct ax_expr *e, uint64_t seed)
{
	struct env env = {seed};
	char err[512], err2[512];
	int64_t v = 0, w = 0;
	int rc = ax_expr_eval(e, lookup, &env, &v, err, sizeof(err));
	int rc2 = ax_expr_eval(e, lookup, &env, &w, err2, sizeof(err2));
	if (rc != rc2 || (rc == 0 && v != w))
		__builtin_trap();
	if (rc && (rc != AX_EINVAL || strncmp(err, "expression \"", 12)))
		__builtin_trap();
	int vars = 0;
	ax_expr_each_var(e, count_var, &vars);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 2 * AX_EXPR_MAX_TEXT)
		return 0;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	struct ax_expr *e = NULL;
	char err[512];
	int rc = ax_expr_parse(text, &e, err, sizeof(err));
	if (rc == 0) {
		if (strcmp(ax_expr_text(e), text) != 0)
			__builtin_trap();
		evaluate(e, size);
		evaluate(e, size * 31 + 7);
	} else if (e ||
		   (rc == AX_EINVAL && strncmp(err, "expression", 10) != 0)) {
		__builtin_trap();
	}
	ax_expr_free(e);
	free(text);
	return 0;
}
