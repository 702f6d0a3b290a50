/*
 * core/interrupt.h - the Ctrl-C flag.
 *
 * SIGINT and SIGTERM set ax_interrupted (to the signal's number); long
 * loops (the runner, the tuner's session, merges) and blocking waits
 * (lock waits, fence waits, child processes) check it and stop where what
 * they have measured is kept; the process then exits 128 + the signal's
 * number (130, 143), as a shell reports a process the signal killed.  The
 * handlers are installed without SA_RESTART, so a system call blocked
 * when the signal comes returns EINTR.  A second signal while stopping
 * ends the process the usual way.  Below the CLI so that the
 * application layer and the suites read one flag.
 */
#ifndef AX_INTERRUPT_H
#define AX_INTERRUPT_H

/* 0, or the number of the signal that asked the process to stop. */
extern volatile int ax_interrupted;

/* Install the SIGINT and SIGTERM handlers that set ax_interrupted. */
void ax_interrupt_install(void);

#endif
