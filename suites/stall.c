/* suites/stall.c - test-only stall injection (see stall.h). */
#include "suites/stall.h"

#include "core/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ax_stall {
	VkDevice dev;
	VkEvent event; /* set by the host: the wait ends */
	bool hold, recorded, released;
	unsigned skip; /* timed submissions still to let through */
};

/* Cases counted so far in this process (calls of the runner). */
static unsigned long cases_seen;

/* Does the comma-separated list of positive case numbers name n? */
static int list_names(const char *list, size_t len, unsigned long n, char *err,
		      size_t errlen)
{
	int found = 0;
	const char *p = list, *end = list + len;
	while (p < end) {
		char *stop;
		errno = 0;
		unsigned long v = strtoul(p, &stop, 10);
		if (stop == p || errno || v == 0 || *p == '-' ||
		    (stop < end && *stop != ','))
			return ax_errf(
			    err, errlen, AX_EINVAL,
			    "%s=%s: expected case numbers N[,N...] "
			    "counted from 1, optionally followed by "
			    ":hold and :after=K (test-only fault injection; "
			    "unset it to measure normally)",
			    AX_STALL_ENV, list);
		found |= v == n;
		p = stop + (stop < end);
	}
	return found;
}

/* The modes after the case numbers: ":hold", ":after=K", both. */
static int parse_modes(const char *v, const char *modes,
		       struct ax_stall_mode *m, char *err, size_t errlen)
{
	for (const char *p = modes; p && *p == ':';) {
		const char *end = strchr(p + 1, ':');
		size_t len = end ? (size_t)(end - p - 1) : strlen(p + 1);
		char *stop;
		if (len == 4 && !strncmp(p + 1, "hold", 4)) {
			m->hold = true;
		} else if (len > 6 && !strncmp(p + 1, "after=", 6) &&
			   p[7] >= '0' && p[7] <= '9') {
			unsigned long k = strtoul(p + 7, &stop, 10);
			if (stop != p + 1 + len || k > 1000000)
				goto bad;
			m->after = (unsigned)k;
		} else {
			goto bad;
		}
		p = end;
	}
	return 0;
bad:
	return ax_errf(err, errlen, AX_EINVAL,
		       "%s=%s: the modes after ':' are 'hold' and 'after=K' "
		       "(test-only fault injection; unset it to measure "
		       "normally)",
		       AX_STALL_ENV, v);
}

int ax_stall_pick(struct ax_stall_mode *mode, char *err, size_t errlen)
{
	const char *v = getenv(AX_STALL_ENV);
	/* Atomic: run --concurrent counts cases from one thread per
	 * device. */
	unsigned long n = __atomic_add_fetch(&cases_seen, 1, __ATOMIC_SEQ_CST);
	memset(mode, 0, sizeof(*mode));
	if (!v || !*v)
		return 0;
	const char *colon = strchr(v, ':');
	size_t len = colon ? (size_t)(colon - v) : strlen(v);
	int rc = parse_modes(v, colon, mode, err, errlen);
	if (rc == 0)
		rc = list_names(v, len, n, err, errlen);
	return rc;
}

int ax_stall_create(struct ax_vk_ctx *vk, const struct ax_stall_mode *mode,
		    struct ax_stall **out)
{
	struct ax_stall *s = calloc(1, sizeof(*s));
	if (!s)
		return AX_ENOMEM;
	VkEventCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
	VkResult r = vkCreateEvent(vk->dev, &ci, NULL, &s->event);
	if (r != VK_SUCCESS) {
		free(s);
		snprintf(vk->err, sizeof(vk->err), "vkCreateEvent: %s",
			 ax_vk_result_name(r));
		return AX_EVK;
	}
	s->dev = vk->dev;
	s->hold = mode->hold;
	s->skip = mode->after;
	*out = s;
	return 0;
}

void ax_stall_record(struct ax_stall *s, VkCommandBuffer cb)
{
	if (!s || s->recorded)
		return;
	if (s->skip) { /* after=K: this submission goes through */
		s->skip--;
		return;
	}
	/* Everything after this waits for the host to set the event. */
	vkCmdWaitEvents(cb, 1, &s->event, VK_PIPELINE_STAGE_HOST_BIT,
			VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, NULL, 0, NULL, 0,
			NULL);
	s->recorded = true;
}

bool ax_stall_recorded(const struct ax_stall *s) { return s && s->recorded; }

bool ax_stall_holds(const struct ax_stall *s) { return s && s->hold; }

void ax_stall_release(struct ax_stall *s)
{
	if (s && !s->released)
		s->released = vkSetEvent(s->dev, s->event) == VK_SUCCESS;
}

void ax_stall_destroy(struct ax_vk_ctx *vk, struct ax_stall *s)
{
	if (!s)
		return;
	ax_stall_release(s);
	/* A lost context keeps its objects (see ax_vk_close). */
	if (!vk->lost)
		vkDestroyEvent(s->dev, s->event, NULL);
	free(s);
}
