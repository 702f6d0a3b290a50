/* core/roles.c - role names (see roles.h). */
#include "core/roles.h"

#include <stddef.h>

const char *ax_role_name(enum ax_role role)
{
	switch (role) {
#define AX_ROLE_CASE(name, bit, text)                                          \
	case name:                                                             \
		return text;
		AX_ROLES(AX_ROLE_CASE)
#undef AX_ROLE_CASE
	}
	return NULL;
}
