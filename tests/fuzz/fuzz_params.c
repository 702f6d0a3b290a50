/*
 * tests/fuzz/fuzz_params.c - libFuzzer target for `-p name=value`
 * parsing: ax_param_parse_list (sweeps "a,b,c" and "LO..HI") on every
 * parameter of every suite, ax_params_set, and the canonical JSON round
 * trip (ax_params_to_json -> ax_params_from_json must give the point
 * back).  The first input byte picks the suite, the text up to '=' the
 * parameter name.
 */
#include "core/error.h"
#include "core/params.h"
#include "suites/registry.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void round_trip(const struct ax_params *p)
{
	struct ax_params q;
	char err[512], label[512];
	char *js = ax_params_to_json(p);
	if (!js)
		return;
	if (ax_params_from_json(&q, p->defs, p->n, js, err, sizeof(err)))
		__builtin_trap();
	if (memcmp(q.v, p->v, sizeof(p->v[0]) * (size_t)p->n) != 0)
		__builtin_trap();
	ax_params_label(p, 0, label, sizeof(label));
	free(js);
}

static void sweep(const struct ax_param_def *d, const char *value)
{
	int64_t *vals = NULL;
	int count = 0;
	char err[512], text[AX_PARAM_TEXT_MAX + 1];
	int64_t one;
	if (ax_param_parse_list(d, value, &vals, &count, err, sizeof(err)))
		return;
	if (count < 1 || count > 4096)
		__builtin_trap();
	/* Every value of a sweep formats and parses back to itself. */
	for (int i = 0; i < count; i++) {
		ax_param_format(d, vals[i], text, sizeof(text));
		if (ax_param_parse(d, text, &one, err, sizeof(err)) ||
		    one != vals[i])
			__builtin_trap();
	}
	free(vals);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 4096)
		return 0;
	const struct ax_suite *s = ax_suites[data[0] % ax_suite_count];
	char *text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	char *eq = strchr(text, '=');
	const char *name = text, *value = eq ? eq + 1 : "";
	if (eq)
		*eq = '\0';
	struct ax_params p;
	char err[512];
	ax_params_init(&p, s->params, s->n_params);
	int idx = ax_params_find(&p, name);
	if (idx >= 0)
		sweep(&s->params[idx], value);
	else
		for (int i = 0; i < s->n_params; i++)
			sweep(&s->params[i], value);
	if (ax_params_set(&p, name, value, err, sizeof(err)) == 0) {
		if (ax_params_check(&p, err, sizeof(err)))
			__builtin_trap();
		round_trip(&p);
	}
	/* Arbitrary text as a stored parameter object must be safe too. */
	struct ax_params q;
	ax_params_from_json(&q, s->params, s->n_params, value, err,
			    sizeof(err));
	free(text);
	return 0;
}
