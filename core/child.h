/*
 * core/child.h - waiting for a process this one started, so that a
 * SIGINT or SIGTERM that stops axbench never leaves it running.
 *
 * The child is best started in a process group of its own (ax_child_own_
 * group in the child after fork, and in the parent too, which closes the
 * race): terminal signals then reach it only through axbench, once.  While
 * it is watched, the first stop request (the signal number in *stop) is
 * forwarded to its group (or to it alone); when it has not gone after
 * AX_CHILD_GRACE_S, the group is killed with SIGKILL.  Members of the
 * group that outlive the child itself (a shell's own children) are
 * waited for and killed the same way, so nothing of it is left.
 */
#ifndef AX_CHILD_H
#define AX_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

/* Seconds a child has, after the forwarded signal, before SIGKILL. */
#define AX_CHILD_GRACE_S 5.0

struct ax_child {
	pid_t pid;
	bool group;		  /* pid leads a process group of its own */
	const volatile int *stop; /* the signal to forward, 0 for none yet */
	int forwarded;		  /* the signal forwarded, 0 before */
	double forwarded_at;	  /* monotonic seconds */
	bool killed;		  /* SIGKILL sent */
};

/* Put the calling process in a process group of its own (call in the
 * child before exec, and in the parent with the child's pid). */
void ax_child_own_group(pid_t pid);

/* Watch pid (a group leader when group is true) for the stop flag stop
 * (may be NULL: never forwarded). */
void ax_child_init(struct ax_child *c, pid_t pid, bool group,
		   const volatile int *stop);

/* Forward the stop signal once it is set, SIGKILL after the grace
 * period: for callers that wait on something else (the child's output)
 * and call this between waits of at most a fraction of a second. */
void ax_child_tick(struct ax_child *c);

/*
 * Wait for the child to end, forwarding and killing as above, then, when
 * it was stopped, for the rest of its group.  Returns 0 with waitpid's
 * status in *status, or -1 with errno (ECHILD: not a child).
 */
int ax_child_wait(struct ax_child *c, int *status);

/* The exit status the shell way: the code, 128 + the signal for a killed
 * child, 127 when neither. */
int ax_child_exit_code(int status);

#endif
