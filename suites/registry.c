/* suites/registry.c - every suite, listed by hand. */
#include "suites/registry.h"

#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct ax_suite ax_suite_bandwidth;
extern const struct ax_suite ax_suite_transfer;
extern const struct ax_suite ax_suite_conv;
extern const struct ax_suite ax_suite_attention;
extern const struct ax_suite ax_suite_gemm;
extern const struct ax_suite ax_suite_peak;
extern const struct ax_suite ax_suite_latency;
extern const struct ax_suite ax_suite_reduce;
extern const struct ax_suite ax_suite_ingest;
extern const struct ax_suite ax_suite_fill;
extern const struct ax_suite ax_suite_roofline;
extern const struct ax_suite ax_suite_decoder;
extern const struct ax_suite ax_suite_encoder;
extern const struct ax_suite ax_suite_resnet;
extern const struct ax_suite ax_suite_zerocopy;
extern const struct ax_suite ax_suite_d2d;

const struct ax_suite *const ax_suites[] = {
    &ax_suite_bandwidth, &ax_suite_transfer, &ax_suite_conv,
    &ax_suite_attention, &ax_suite_gemm,     &ax_suite_peak,
    &ax_suite_latency,	 &ax_suite_reduce,   &ax_suite_ingest,
    &ax_suite_fill,	 &ax_suite_roofline, &ax_suite_decoder,
    &ax_suite_encoder,	 &ax_suite_resnet,   &ax_suite_zerocopy,
    &ax_suite_d2d,
};
const int ax_suite_count = (int)(sizeof(ax_suites) / sizeof(ax_suites[0]));

/* Run-time suites (user kernels); one process loads a handful. */
static const struct ax_suite *registered[AX_SUITE_MAX_REGISTERED];

int ax_registry_check_table(const struct ax_suite *const *suites, int n,
			    char *err, size_t errlen)
{
	for (int i = 0; i < n; i++) {
		int rc = ax_suite_validate(suites[i], err, errlen);
		for (int j = 0; !rc && j < i; j++)
			if (!strcmp(suites[i]->name, suites[j]->name))
				rc = ax_errf(err, errlen, AX_EINVAL,
					     "two suites are called %s",
					     suites[i]->name);
		if (rc)
			return rc;
	}
	return 0;
}

int ax_registry_check(char *err, size_t errlen)
{
	return ax_registry_check_table(ax_suites, ax_suite_count, err, errlen);
}

/* The built-in table is checked once, before the first look-up: a broken
 * descriptor is a bug in this build (tests/unit/test_registry.c runs the
 * same check), so it stops the program with the rule it broke rather
 * than running a case it would mismeasure. */
void ax_registry_check_once(void)
{
	static bool checked;
	char err[512];
	if (checked)
		return;
	checked = true;
	if (ax_registry_check(err, sizeof(err))) {
		fprintf(stderr, "axbench: internal error: %s\n", err);
		abort();
	}
}

const struct ax_suite *ax_suite_find(const char *name)
{
	ax_registry_check_once();
	for (int i = 0; i < ax_suite_count; i++)
		if (strcmp(ax_suites[i]->name, name) == 0)
			return ax_suites[i];
	for (int i = 0; i < AX_SUITE_MAX_REGISTERED; i++)
		if (registered[i] && strcmp(registered[i]->name, name) == 0)
			return registered[i];
	return NULL;
}

int ax_suite_register(const struct ax_suite *s, char *err, size_t errlen)
{
	int rc = ax_suite_validate(s, err, errlen);
	if (rc)
		return rc;
	if (ax_suite_find(s->name))
		return ax_errf(err, errlen, AX_EINVAL,
			       "a suite called %s is loaded already; give "
			       "the second kernel another name",
			       s->name);
	for (int i = 0; i < AX_SUITE_MAX_REGISTERED; i++)
		if (!registered[i]) {
			registered[i] = s;
			return 0;
		}
	return ax_errf(err, errlen, AX_EINVAL,
		       "at most %d kernels can be loaded at once",
		       AX_SUITE_MAX_REGISTERED);
}

void ax_suite_unregister(const struct ax_suite *s)
{
	for (int i = 0; i < AX_SUITE_MAX_REGISTERED; i++)
		if (registered[i] == s)
			registered[i] = NULL;
}

int ax_suite_all(const struct ax_suite **out, int max)
{
	int n = 0;
	ax_registry_check_once();
	for (int i = 0; i < ax_suite_count && n < max; i++)
		out[n++] = ax_suites[i];
	for (int i = 0; i < AX_SUITE_MAX_REGISTERED && n < max; i++)
		if (registered[i])
			out[n++] = registered[i];
	return n;
}
