/* suites/scratch.c - the scratch directory (see scratch.h). */
#include "suites/scratch.h"

#include "core/error.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static char scratch_dir[PATH_MAX] = ".";

int ax_scratch_set_dir(const char *dir)
{
	if (!dir || !*dir)
		dir = ".";
	if (strlen(dir) >= sizeof(scratch_dir))
		return AX_EINVAL;
	snprintf(scratch_dir, sizeof(scratch_dir), "%s", dir);
	return 0;
}

const char *ax_scratch_dir(void) { return scratch_dir; }

void ax_scratch_dir_of(const char *path, char *buf, size_t len)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	if (!slash)
		snprintf(buf, len, ".");
	else if (slash == path)
		snprintf(buf, len, "/");
	else
		snprintf(buf, len, "%.*s", (int)(slash - path), path);
}
