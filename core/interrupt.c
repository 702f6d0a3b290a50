/* core/interrupt.c - the Ctrl-C flag and its signal handlers. */
#include "core/interrupt.h"

#include <signal.h>

volatile int ax_interrupted;

static void on_signal(int sig)
{
	/* A second signal while stopping ends the process the usual way. */
	if (ax_interrupted)
		signal(sig, SIG_DFL), raise(sig);
	ax_interrupted = sig;
}

void ax_interrupt_install(void)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}
