/* core/error.c - ax_strerror and the message-buffer helper. */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void ax_vfmt_fit(char *buf, size_t n, const char *fmt, va_list ap)
{
	static const char cut[] = " [...] ";
	va_list again;
	if (!buf || !n)
		return;
	va_copy(again, ap);
	int need = vsnprintf(buf, n, fmt, ap);
	/* Too small to hold a start, the mark and an end: plain cut. */
	if (need < 0 || (size_t)need < n || n < 3 * sizeof(cut)) {
		va_end(again);
		return;
	}
	char *full = malloc((size_t)need + 1);
	if (full)
		vsnprintf(full, (size_t)need + 1, fmt, again);
	va_end(again);
	if (!full)
		return;
	/* Messages name the input first and give the reason and the fix
	 * after it, so a third of the room for the start and the rest for
	 * the end cuts a very long input, not the reason. */
	size_t room = n - 1 - (sizeof(cut) - 1);
	size_t head = room / 3, tail = room - head;
	memcpy(buf, full, head);
	memcpy(buf + head, cut, sizeof(cut) - 1);
	memcpy(buf + head + sizeof(cut) - 1, full + need - tail, tail);
	buf[n - 1] = '\0';
	free(full);
}

int ax_errf(char *buf, size_t n, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ax_vfmt_fit(buf, n, fmt, ap);
	va_end(ap);
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
