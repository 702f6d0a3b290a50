/*
 * suites/registry.h - the list of suites, written out by hand in
 * registry.c (no constructor tricks), in the order `axbench suites` shows.
 */
#ifndef AX_REGISTRY_H
#define AX_REGISTRY_H

#include "suites/suite.h"

extern const struct ax_suite *const ax_suites[];
extern const int ax_suite_count;

/*
 * Validate every descriptor of suites[0..n) (ax_suite_validate) and that
 * no two share a name; AX_EINVAL with the first broken rule.
 * ax_registry_check runs it over the built-in table, which ax_suite_find
 * and ax_suite_all also do once (aborting: a broken built-in descriptor is
 * a bug of the build); ax_suite_register validates what it is given.
 */
int ax_registry_check_table(const struct ax_suite *const *suites, int n,
			    char *err, size_t errlen);
int ax_registry_check(char *err, size_t errlen);

/* ax_registry_check of the built-in table, the first time only; a broken
 * descriptor aborts with the rule it broke.  ax_suite_find and
 * ax_suite_all call it; cli/main.c calls it before any command, since
 * some read ax_suites[] directly. */
void ax_registry_check_once(void);

/* The suite called name (built in, or registered), or NULL. */
const struct ax_suite *ax_suite_find(const char *name);

/* Suites made at run time (a user kernel, suites/kernel.h) are found by
 * ax_suite_find once registered; `axbench suites` lists only the built-in
 * ones.  At most AX_SUITE_MAX_REGISTERED at once; AX_EINVAL when the name
 * is taken.  s must stay valid until it is unregistered. */
#define AX_SUITE_MAX_REGISTERED 8
int ax_suite_register(const struct ax_suite *s, char *err, size_t errlen);
void ax_suite_unregister(const struct ax_suite *s);

/* The built-in suites, then the registered ones: at most max into out;
 * returns how many. */
int ax_suite_all(const struct ax_suite **out, int max);

#endif
