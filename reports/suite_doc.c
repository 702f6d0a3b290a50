/* reports/suite_doc.c - reading the suite document (see suite_doc.h). */
#include "reports/suite_doc.h"

#include <string.h>

const json_t *ax_suite_doc_get(const json_t *doc, const char *suite,
			       const char *key)
{
	if (!suite)
		return NULL;
	return json_object_get(json_object_get(doc, suite), key);
}

bool ax_suite_doc_has_role(const json_t *doc, const char *suite,
			   enum ax_role role)
{
	const char *name = ax_role_name(role);
	const json_t *roles = ax_suite_doc_get(doc, suite, "roles");
	size_t i;
	const json_t *v;
	json_array_foreach(roles, i, v) if (name && json_is_string(v) &&
					    strcmp(json_string_value(v),
						   name) == 0) return true;
	return false;
}

bool ax_suite_doc_result_has_role(const json_t *doc, const json_t *r,
				  enum ax_role role)
{
	return ax_suite_doc_has_role(
	    doc, json_string_value(json_object_get(r, "suite")), role);
}

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
