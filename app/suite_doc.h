/*
 * app/suite_doc.h - the suite document: what the report and recommend
 * know about suites, built here from the suite table (reports never see
 * suites/, whose descriptors carry Vulkan hooks).
 *
 *   { "gemm": { "unit": "GFLOP/s", "higher_is_better": true,
 *               "roles": ["workload"], "batch_param": null,
 *               "curve": null,
 *               "recommend_needs": [{"param": null, "distinct": 1}] },
 *     ... }
 *
 * in the order `axbench suites` lists them (reports/suite_doc.h reads
 * it).  Adding a suite with roles, a curve or recommend needs therefore
 * needs no edit in reports/.
 */
#ifndef AX_CLI_SUITE_DOC_H
#define AX_CLI_SUITE_DOC_H

#include "core/db_rows.h"
#include "core/roles.h"

#include <jansson.h>

struct ax_suite;

/* The suite table as the typed document (static: built once, never
 * freed), in the order `axbench suites` lists them. */
const struct ax_suite_doc *ax_app_suites(void);

/* Results stored before suites declared their byte counts lack bytes /
 * input_bytes: fill them in from the suite's hooks and the stored
 * parameters, where the suite is known and the parameters parse (the
 * documents made of r then show them in "extra", as before). */
void ax_app_fill_row_bytes(struct ax_db_result_row *r);

/* A boolean parameter, stored canonically as "true" / "false" (the text
 * params_hash hashes), becomes AX_DB_VALUE_BOOL, by the suite's table, so
 * readers and the documents made of r see a boolean. */
void ax_app_type_row_params(struct ax_db_result_row *r);

/* A new reference, or NULL when out of memory. */
json_t *ax_app_suite_doc(void);

/* One suite's entry of the document (a new reference). */
json_t *ax_app_suite_entry(const struct ax_suite *s);

/*
 * Results stored before suites declared their byte counts lack
 * extra.bytes / extra.input_bytes: add them from the suite's hooks and
 * the stored parameters, where the suite is known and the parameters
 * parse.  results is an ax_db_results() array, changed in place.
 */
void ax_app_fill_bytes(json_t *results);

/*
 * The "params" of each result as documents show them (docs/JSON.md):
 * a boolean parameter, stored canonically as "true" / "false" (the text
 * params_hash hashes), becomes a JSON boolean, by the suite's table;
 * results of a suite this axbench does not know keep what was stored.
 * results is an ax_db_results() array, changed in place: call it after
 * anything that parses the stored text back (ax_app_fill_bytes takes
 * either form).
 */
void ax_app_type_params(json_t *results);

/* ax_app_type_params for one result r (an element of that array), for a
 * reader that streams results one at a time. */
void ax_app_type_result_params(json_t *r);

#endif
