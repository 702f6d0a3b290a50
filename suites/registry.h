/*
 * suites/registry.h - the list of suites, written out by hand in
 * registry.c (no constructor tricks), in the order `axbench suites` shows.
 */
#ifndef AX_REGISTRY_H
#define AX_REGISTRY_H

#include "suites/suite.h"

extern const struct ax_suite *const ax_suites[];
extern const int ax_suite_count;

/* The suite called name, or NULL. */
const struct ax_suite *ax_suite_find(const char *name);

#endif
