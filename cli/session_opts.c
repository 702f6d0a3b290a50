/* cli/session_opts.c - parsing the session options run and tune share. */
#include "cli/session_opts.h"

#include <string.h>

int ax_cli_eff_opt(const struct ax_cli_iter *it, int opt,
		   struct ax_session_efficiency *e, double *sustain_s)
{
	switch (opt) {
	case AX_OPT_SUSTAIN:
		if (!sustain_s) /* a command without --sustain */
			return 0;
		return ax_cli_parse_double(it, 0.1, 86400, sustain_s) ? -1 : 1;
	case AX_OPT_IDLE:
		return ax_cli_parse_double(it, 0, 600, &e->idle_s) ? -1 : 1;
	case AX_OPT_TEL_INTERVAL:
		return ax_cli_parse_double(it, 0.01, 10, &e->interval_s) ? -1
									 : 1;
	case AX_OPT_CPU_BASELINE: {
		const char *const *names = ax_cpu_baseline_modes();
		for (int i = 0; names[i]; i++)
			if (strcmp(it->optarg, names[i]) == 0) {
				e->cpu = (enum ax_cpu_baseline_mode)i;
				return 1;
			}
		return -1; /* ax_cli_next has refused it already */
	}
	}
	return 0;
}
