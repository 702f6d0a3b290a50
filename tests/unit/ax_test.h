/*
 * tests/unit/ax_test.h - a minimal TAP-producing unit-test harness.
 *
 * Each test binary defines test functions, lists them with AX_TEST_MAIN,
 * and prints TAP ("ok N - name" / "not ok N - name"); tests/run.sh counts
 * them.  AX_CHECK records a failure with file:line and carries on, so one
 * run shows every broken expectation of a test.
 *
 * AX_SKIP("why %s", ...) ends a test that cannot run here: it prints
 * "ok N - name # skip why" (tests/run.sh counts those lines as skipped),
 * unless a check of that test had failed already ("not ok" then).
 * ax_test_unprivileged runs a part of a test as a user that file modes
 * stop, even when the tests run as root.
 */
#ifndef AX_TEST_H
#define AX_TEST_H

#include <errno.h>
#include <grp.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int ax_test_failed_checks;
static char ax_test_skip_reason[512]; /* set by AX_SKIP, "" if none */

/* The reason of AX_SKIP, on one line (TAP's directive ends the line). */
__attribute__((format(printf, 1, 2))) static inline void
ax_test_skip(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ax_test_skip_reason, sizeof(ax_test_skip_reason), fmt, ap);
	va_end(ap);
	for (char *c = ax_test_skip_reason; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	if (!ax_test_skip_reason[0])
		strcpy(ax_test_skip_reason, "skipped");
}

#define AX_SKIP(...)                                                           \
	do {                                                                   \
		ax_test_skip(__VA_ARGS__);                                     \
		return;                                                        \
	} while (0)

#define AX_CHECK(cond)                                                         \
	do {                                                                   \
		if (!(cond)) {                                                 \
			printf("#   %s:%d: check failed: %s\n", __FILE__,      \
			       __LINE__, #cond);                               \
			ax_test_failed_checks++;                               \
		}                                                              \
	} while (0)

#define AX_CHECK_NEAR(a, b, tol)                                               \
	do {                                                                   \
		double ax_a_ = (a), ax_b_ = (b);                               \
		if (!(fabs(ax_a_ - ax_b_) <= (tol))) {                         \
			printf("#   %s:%d: %s = %.10g, expected %.10g "        \
			       "(tol %g)\n",                                   \
			       __FILE__, __LINE__, #a, ax_a_, ax_b_,           \
			       (double)(tol));                                 \
			ax_test_failed_checks++;                               \
		}                                                              \
	} while (0)

#define AX_CHECK_INT(a, b)                                                     \
	do {                                                                   \
		long long ax_a_ = (long long)(a), ax_b_ = (long long)(b);      \
		if (ax_a_ != ax_b_) {                                          \
			printf("#   %s:%d: %s = %lld, expected %lld\n",        \
			       __FILE__, __LINE__, #a, ax_a_, ax_b_);          \
			ax_test_failed_checks++;                               \
		}                                                              \
	} while (0)

#define AX_CHECK_STR(a, b)                                                     \
	do {                                                                   \
		const char *ax_a_ = (a), *ax_b_ = (b);                         \
		if (!ax_a_ || !ax_b_ || strcmp(ax_a_, ax_b_) != 0) {           \
			printf("#   %s:%d: %s = \"%s\", expected \"%s\"\n",    \
			       __FILE__, __LINE__, #a,                         \
			       ax_a_ ? ax_a_ : "(null)",                       \
			       ax_b_ ? ax_b_ : "(null)");                      \
			ax_test_failed_checks++;                               \
		}                                                              \
	} while (0)

/*
 * fn(arg) as a user whom file modes stop: as root (who reads and writes
 * any file), in a child process that has become "nobody" (uid 65534
 * where there is no such user); otherwise here.  The checks that fail
 * in the child count as this test's.  The files fn uses must be where
 * that user can reach them: in a directory the test made under /tmp
 * (mkdtemp) and chmod'ed to let it in (0755, or 01777 where it writes),
 * never under the checkout, whose parents may be 0700.  0 when fn ran
 * (or the fork failed: a failed check); -1 with the reason in why when
 * root could not be given up (the caller skips then).
 */
static inline int ax_test_unprivileged(void (*fn)(void *), void *arg, char *why,
				       size_t len)
{
	if (geteuid() != 0) {
		fn(arg);
		return 0;
	}
	struct passwd *pw = getpwnam("nobody");
	uid_t uid = pw ? pw->pw_uid : 65534;
	gid_t gid = pw ? pw->pw_gid : 65534;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		printf("#   fork: %s\n", strerror(errno));
		ax_test_failed_checks++;
		return 0;
	}
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(gid) || setuid(uid) ||
		    geteuid() == 0) {
			printf("# cannot become uid %u: %s\n", (unsigned)uid,
			       strerror(errno));
			fflush(stdout);
			_exit(77);
		}
		ax_test_failed_checks = 0;
		fn(arg);
		fflush(stdout);
		_exit(ax_test_failed_checks ? 1 : 0);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			printf("#   waitpid: %s\n", strerror(errno));
			ax_test_failed_checks++;
			return 0;
		}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
		snprintf(why, len, "running as root, and uid %u is refused",
			 (unsigned)uid);
		return -1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		printf("#   the unprivileged child failed (status 0x%x)\n", st);
		ax_test_failed_checks++;
	}
	return 0;
}

struct ax_test_case {
	const char *name;
	void (*fn)(void);
};

static inline int ax_test_run(const struct ax_test_case *tests, int n)
{
	int failed = 0;
	printf("1..%d\n", n);
	for (int i = 0; i < n; i++) {
		int before = ax_test_failed_checks;
		ax_test_skip_reason[0] = '\0';
		fflush(stdout);
		tests[i].fn();
		int ok = ax_test_failed_checks == before;
		printf("%s %d - %s%s%s\n", ok ? "ok" : "not ok", i + 1,
		       tests[i].name,
		       ok && ax_test_skip_reason[0] ? " # skip " : "",
		       ok ? ax_test_skip_reason : "");
		failed += !ok;
	}
	return failed ? 1 : 0;
}

#define AX_TEST(fn)                                                            \
	{                                                                      \
#fn, fn                                                        \
	}
#define AX_TEST_MAIN(...)                                                      \
	int main(void)                                                         \
	{                                                                      \
		static const struct ax_test_case ax_tests_[] = {__VA_ARGS__};  \
		return ax_test_run(ax_tests_, (int)(sizeof(ax_tests_) /        \
						    sizeof(ax_tests_[0])));    \
	}

#endif
