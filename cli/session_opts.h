/*
 * cli/session_opts.h - the options of a measurement session that `run`,
 * `tune` and `recommend --measure` share (efficiency, --sustain,
 * --label): their table rows, written once, and their parsing into the
 * app's struct ax_session_efficiency.
 */
#ifndef AX_CLI_SESSION_OPTS_H
#define AX_CLI_SESSION_OPTS_H

#include "app/session.h"
#include "cli/cli.h"

enum {
	AX_OPT_SUSTAIN = 900, /* below the global options' ids */
	AX_OPT_IDLE,
	AX_OPT_TEL_INTERVAL,
	AX_OPT_CPU_BASELINE,
};
#define AX_SESSION_SUSTAIN_OPT                                                 \
	{                                                                      \
		AX_OPT_SUSTAIN, "sustain", 0, "S",                             \
		    "sample every case for S seconds, no noise stop, and "     \
		    "flag a result "                                           \
		    "whose last 20 % of samples is over 5 % slower than its "  \
		    "first 20 % "                                              \
		    "(default: off)"                                           \
	}
#define AX_SESSION_EFF_OPTS                                                    \
	{AX_OPT_IDLE, "idle", 0, "S",                                          \
	 "measure the device's idle power for S seconds first, to store "      \
	 "energy net of it (default 1; 0: no idle baseline)"},                 \
	    {AX_OPT_TEL_INTERVAL, "tel-interval", 0, "S",                      \
	     "read the power sensor every S seconds (default 0.1: 10 Hz)"},    \
	{                                                                      \
		AX_OPT_CPU_BASELINE, "cpu-baseline", 0, "MODE",                \
		    "time gemm, conv and attention shapes on the host CPU "    \
		    "too "                                                     \
		    "(OpenBLAS) for the speed-up; auto measures once per "     \
		    "shape and "                                               \
		    "host and then reads the database, always every run "      \
		    "(default "                                                \
		    "auto)"                                                    \
	}
/* --label NAME of run, tune and recommend --measure: the run's name in
 * `axbench runs` (checked with ax_app_check_label). */
enum { AX_OPT_LABEL = 910 };
#define AX_SESSION_LABEL_OPT                                                   \
	{                                                                      \
		AX_OPT_LABEL, "label", 0, "NAME",                              \
		    "name the run, as `axbench runs` and `results --json` "    \
		    "show it: 1 to 100 characters of UTF-8 without control "   \
		    "characters (default: HOST/DEVICE)"                        \
	}
#define AX_SESSION_EFF_CHOICES                                                 \
	{                                                                      \
		AX_OPT_CPU_BASELINE, ax_cpu_baseline_modes                     \
	}

/* Parse one of AX_SESSION_EFF_OPTS (or the sustain option) into e (*sustain_s:
 * --sustain's S). 1 when opt was one of them, 0 when not, -1 after a usage
 * error. */
int ax_cli_eff_opt(const struct ax_cli_iter *it, int opt,
		   struct ax_session_efficiency *e, double *sustain_s);

#endif
