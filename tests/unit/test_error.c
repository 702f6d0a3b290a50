/* tests/unit/test_error.c - the message-buffer helpers of core/error.c:
 * a message too long for its buffer loses the middle of its input, never
 * the reason at its end. */
#include "ax_test.h"

#include "core/error.h"

static void short_message_is_whole(void)
{
	char buf[64];
	AX_CHECK_INT(ax_errf(buf, sizeof(buf), AX_EINVAL, "%s: %s", "x.db",
			     "no such file"),
		     AX_EINVAL);
	AX_CHECK_STR(buf, "x.db: no such file");
}

static void long_input_is_cut_reason_kept(void)
{
	char path[3001], buf[256];
	memset(path, 'a', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	ax_errf(buf, sizeof(buf), AX_EIO, "%s: cannot open; check the path",
		path);
	AX_CHECK_INT(strlen(buf), sizeof(buf) - 1);
	AX_CHECK(strncmp(buf, "aaaa", 4) == 0);
	AX_CHECK(strstr(buf, " [...] ") != NULL);
	const char *tail = ": cannot open; check the path";
	AX_CHECK_STR(buf + strlen(buf) - strlen(tail), tail);
}

static void exact_fit_is_not_cut(void)
{
	char buf[16];
	ax_errf(buf, sizeof(buf), 0, "%s", "123456789012345");
	AX_CHECK_STR(buf, "123456789012345");
}

static void tiny_buffer_and_null_are_safe(void)
{
	char buf[8];
	ax_errf(buf, sizeof(buf), 0, "%s", "a long message for a tiny buffer");
	AX_CHECK_STR(buf, "a long ");
	AX_CHECK_INT(ax_errf(NULL, 0, AX_EIO, "%s", "ignored"), AX_EIO);
}

AX_TEST_MAIN(AX_TEST(short_message_is_whole),
	     AX_TEST(long_input_is_cut_reason_kept),
	     AX_TEST(exact_fit_is_not_cut),
	     AX_TEST(tiny_buffer_and_null_are_safe))
