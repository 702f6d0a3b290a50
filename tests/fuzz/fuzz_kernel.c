/*
 * tests/fuzz/fuzz_kernel.c - libFuzzer target for user kernel description
 * files (ax_kernel_desc_parse): any input gives a description or an error
 * message that starts with the file name, never a crash, a leak or
 * undefined behaviour.  A description that loads has its expressions
 * evaluated at the parameters' defaults, as a case would (device limits
 * unknown, so those are errors, which is fine).
 */
#include "core/error.h"
#include "core/kernel_desc.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static int lookup(void *ctx, const char *name, int64_t *v)
{
	const struct ax_kernel_desc *d = ctx;
	for (int i = 0; i < d->n_params; i++)
		if (!strcmp(d->params[i].name, name)) {
			*v = d->params[i].def;
			return 0;
		}
	return 1;
}

static void eval_all(const struct ax_kernel_desc *d)
{
	char err[512];
	int64_t v;
	for (int i = 0; i < d->n_buffers; i++)
		ax_expr_eval(d->buffers[i].elements.e, lookup, (void *)d, &v,
			     err, sizeof(err));
	for (int i = 0; i < d->n_constraints; i++)
		ax_expr_eval(d->constraints[i].e, lookup, (void *)d, &v, err,
			     sizeof(err));
	for (int i = 0; i < 3; i++)
		if (d->dispatch[i].e)
			ax_expr_eval(d->dispatch[i].e, lookup, (void *)d, &v,
				     err, sizeof(err));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ax_kernel_desc *d = NULL;
	char err[1024] = "";
	int rc = ax_kernel_desc_parse((const char *)data, size, "fuzz.yaml", &d,
				      err, sizeof(err));
	if (rc == 0) {
		if (!d || !d->name || !d->shader_path || d->n_buffers < 1)
			__builtin_trap();
		for (int i = 0; i < d->n_params; i++)
			if (d->params[i].n_values < 1)
				__builtin_trap();
		eval_all(d);
		ax_kernel_desc_free(d);
	} else if (d || (rc != AX_ENOMEM && strncmp(err, "fuzz.yaml", 9))) {
		__builtin_trap();
	}
	return 0;
}
