/* core/child.c - waiting for a child that a stop must not leave (child.h). */
#include "core/child.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How often a wait looks at the child and the flag: a signal also cuts
 * the sleep short (the handlers have no SA_RESTART). */
#define POLL_NS 20000000L

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void nap(void)
{
	struct timespec ts = {0, POLL_NS};
	nanosleep(&ts, NULL);
}

void ax_child_own_group(pid_t pid)
{
	/* In the parent this fails harmlessly (EACCES) once the child has
	 * exec'd: it did the same itself before. */
	(void)setpgid(pid, pid);
}

void ax_child_init(struct ax_child *c, pid_t pid, bool group,
		   const volatile int *stop)
{
	*c = (struct ax_child){.pid = pid, .group = group, .stop = stop};
}

static void signal_child(const struct ax_child *c, int sig)
{
	/* A group that could not be made (setpgid failed) is no group:
	 * the signal then goes to the child alone, never to our own. */
	if (c->group && getpgid(c->pid) == c->pid && kill(-c->pid, sig) == 0)
		return;
	kill(c->pid, sig);
}

void ax_child_tick(struct ax_child *c)
{
	if (!c->forwarded && c->stop && *c->stop) {
		c->forwarded = *c->stop;
		c->forwarded_at = now_s();
		signal_child(c, c->forwarded);
	} else if (c->forwarded && !c->killed &&
		   now_s() - c->forwarded_at >= AX_CHILD_GRACE_S) {
		c->killed = true;
		signal_child(c, SIGKILL);
	}
}

/* After the stopped child was reaped: the rest of its group (a shell's
 * children) gets the same grace, then SIGKILL.  The group id stays valid
 * while any member lives. */
static void wait_for_group(struct ax_child *c)
{
	if (!c->group || !c->forwarded)
		return;
	while (kill(-c->pid, 0) == 0) {
		if (c->killed ||
		    now_s() - c->forwarded_at >= AX_CHILD_GRACE_S) {
			kill(-c->pid, SIGKILL);
			c->killed = true;
			/* Killed members are reaped by their parents (or
			 * init); they may linger as zombies a moment. */
			return;
		}
		nap();
	}
}

int ax_child_wait(struct ax_child *c, int *status)
{
	for (;;) {
		pid_t r = waitpid(c->pid, status, WNOHANG);
		if (r == c->pid) {
			wait_for_group(c);
			return 0;
		}
		if (r < 0 && errno != EINTR)
			return -1;
		ax_child_tick(c);
		if (r == 0)
			nap();
	}
}

int ax_child_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 127;
}
