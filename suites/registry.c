/* suites/registry.c - every suite, listed by hand. */
#include "suites/registry.h"

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

const struct ax_suite *const ax_suites[] = {
    &ax_suite_bandwidth, &ax_suite_transfer, &ax_suite_conv,
    &ax_suite_attention, &ax_suite_gemm,     &ax_suite_peak,
    &ax_suite_latency,	 &ax_suite_reduce,   &ax_suite_ingest,
};
const int ax_suite_count = (int)(sizeof(ax_suites) / sizeof(ax_suites[0]));

const struct ax_suite *ax_suite_find(const char *name)
{
	for (int i = 0; i < ax_suite_count; i++)
		if (strcmp(ax_suites[i]->name, name) == 0)
			return ax_suites[i];
	return NULL;
}
