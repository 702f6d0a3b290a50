/*
 * app/suite_doc.h - the suite document: what the report and recommend
 * know about suites (struct ax_suite_doc, core/roles.h: unit, direction,
 * roles as bits, batch parameter, curve, recommend's needs), built here
 * from the suite table, since reports never see suites/, whose
 * descriptors carry Vulkan hooks; reports/suite_doc.h reads it.  Adding a
 * suite with roles, a curve or recommend needs therefore needs no edit in
 * reports/.  `suites --json` writes each entry (ax_app_suite_entry):
 *
 *   { "unit": "GFLOP/s", "higher_is_better": true, "roles": ["workload"],
 *     "batch_param": null, "curve": null,
 *     "recommend_needs": [{"param": null, "distinct": 1}] }
 *
 * Also the row steps every reader of stored results shares.
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

/* One suite's entry as `suites --json` writes it (a new reference). */
json_t *ax_app_suite_entry(const struct ax_suite *s);

#endif
