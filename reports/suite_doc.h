/*
 * reports/suite_doc.h - reading the suite document that cli/ builds from
 * the suite table (format in app/suite_doc.h): which suites' results are
 * ceilings, transfers or workload classes, their curves and batch
 * parameters.  The report and recommend ask here, never by suite name.
 */
#ifndef AX_REPORTS_SUITE_DOC_H
#define AX_REPORTS_SUITE_DOC_H

#include "core/db_rows.h"
#include "core/roles.h"

#include <stdbool.h>

/* ---- the typed document (struct ax_suite_doc, core/roles.h) ----------- */

/* The suite's entry, or NULL (unknown suite, NULL document). */
const struct ax_suite_info *ax_suite_info_find(const struct ax_suite_doc *doc,
					       const char *suite);
/* Does the document give suite the role? */
bool ax_suite_info_has_role(const struct ax_suite_doc *doc, const char *suite,
			    enum ax_role role);
/* Does result r come from a suite with role? */
bool ax_suite_info_row_has_role(const struct ax_suite_doc *doc,
				const struct ax_db_result_row *r,
				enum ax_role role);

#endif
