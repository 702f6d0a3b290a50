/*
 * suites/stall.h - test-only fault injection: a case made to stall on the
 * device, so that fence timeouts, the grace period and device replacement
 * are tested the same way on every machine under any load.  It is a real
 * submission that outlasts the fence timeout, not a faked return code.
 *
 * AXBENCH_TEST_STALL=N[,N...][:hold] names cases by their order in this
 * process: the N-th call of ax_runner_run_case (1-based).  Such a case
 * gets a vkCmdWaitEvents on an event only the host sets, in front of the
 * suite's work in its first timed submission (after warm-up and
 * verification), so that submission cannot finish before the host says:
 *   default  the runner sets the event as soon as the fence wait timed
 *            out: the work finishes within the grace period and the
 *            device stays usable ("work that merely overran");
 *   hold     the event is set only after the grace period expired: the
 *            device stays hung for the runner, and the caller goes on
 *            with a new logical device.
 *   after=K  (with or without hold) the stall goes into the case's
 *            (K+1)-th timed submission instead of its first, so that a
 *            device hangs in the middle of a job (run --split).
 * Modes combine: "3:hold:after=2".
 * The case's error text says that the stall was injected, so a database
 * never holds an injected timeout unmarked.  Host-timed suites (transfer)
 * have no timed submission of the runner's and are never stalled.
 */
#ifndef AX_STALL_H
#define AX_STALL_H

#include "core/vk.h"

#include <stdbool.h>
#include <stddef.h>

#define AX_STALL_ENV "AXBENCH_TEST_STALL"

struct ax_stall;

/*
 * Count one case.  Returns 1 when AXBENCH_TEST_STALL names it (*mode set
 * from the variable), 0 when not or unset, AX_EINVAL with a message naming
 * the variable, the rule and the fix when the variable is malformed.
 */
struct ax_stall_mode {
	bool hold;	/* past the grace period */
	unsigned after; /* timed submissions let through first */
};
int ax_stall_pick(struct ax_stall_mode *mode, char *err, size_t errlen);

/* Create the stall's event on vk.  0, or AX_EVK with vk->err set. */
int ax_stall_create(struct ax_vk_ctx *vk, const struct ax_stall_mode *mode,
		    struct ax_stall **out);

/* Record the wait for the event into cb, once: later calls record
 * nothing.  NULL s records nothing. */
void ax_stall_record(struct ax_stall *s, VkCommandBuffer cb);

/* Whether the stall was recorded (the case's timeout is the injected
 * one), and whether it holds the device past the grace period. */
bool ax_stall_recorded(const struct ax_stall *s);
bool ax_stall_holds(const struct ax_stall *s);

/* Set the event: the waiting submission goes on. */
void ax_stall_release(struct ax_stall *s);

/* Set the event and free s.  The event is destroyed unless vk is lost
 * (then it stays with the abandoned context).  NULL is a no-op. */
void ax_stall_destroy(struct ax_vk_ctx *vk, struct ax_stall *s);

#endif
