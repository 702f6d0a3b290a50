/* reports/suite_doc.c - reading the suite document (see suite_doc.h). */
#include "reports/suite_doc.h"

#include <string.h>

const struct ax_suite_info *ax_suite_info_find(const struct ax_suite_doc *doc,
					       const char *suite)
{
	for (int i = 0; doc && suite && i < doc->n; i++)
		if (strcmp(doc->v[i].name, suite) == 0)
			return &doc->v[i];
	return NULL;
}

bool ax_suite_info_has_role(const struct ax_suite_doc *doc, const char *suite,
			    enum ax_role role)
{
	const struct ax_suite_info *s = ax_suite_info_find(doc, suite);
	return s && (s->roles & (unsigned)role);
}

bool ax_suite_info_row_has_role(const struct ax_suite_doc *doc,
				const struct ax_db_result_row *r,
				enum ax_role role)
{
	return ax_suite_info_has_role(doc, r->suite, role);
}
