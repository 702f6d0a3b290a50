/* core/error.c - ax_strerror and the message-buffer helper. */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>

const char *ax_strerror(int err)
{
	switch (err) {
#define AX_ERROR_CASE(name, value, text)                                       \
	case value:                                                            \
		return text;
		AX_ERRORS(AX_ERROR_CASE)
#undef AX_ERROR_CASE
	}
	return "unknown error";
}

int ax_errf(char *buf, size_t n, int err, const char *fmt, ...)
{
	if (buf && n) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(buf, n, fmt, ap);
		va_end(ap);
	}
	return err;
}

void ax_join_names(const char *const *names, char *buf, size_t n)
{
	size_t used = 0;
	if (!n)
		return;
	buf[0] = '\0';
	for (int i = 0; names && names[i] && used < n; i++) {
		const char *sep = i == 0 ? "" : names[i + 1] ? ", " : " or ";
		used += (size_t)snprintf(buf + used, n - used, "%s%s", sep,
					 names[i]);
	}
}
