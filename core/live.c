/* core/live.c - the status line rewritten in place (see live.h). */
#include "core/live.h"
#include "core/text.h"

#include <stdbool.h>
#include <stdio.h>

static bool shown;

void ax_live_show(const char *line)
{
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", line);
	int cols = ax_text_columns(2);
	/* One column short of the width: a character in the last column
	 * makes some terminals wrap at once. */
	ax_text_fit(buf, (cols > 0 ? cols : 80) - 1);
	fprintf(stderr, "\r\033[K%s", buf);
	fflush(stderr);
	shown = true;
}

void ax_live_clear(void)
{
	if (!shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	shown = false;
}
