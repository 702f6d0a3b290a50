/*
 * tests/unit/ax_test.h - a minimal TAP-producing unit-test harness.
 *
 * Each test binary defines test functions, lists them with AX_TEST_MAIN,
 * and prints TAP ("ok N - name" / "not ok N - name"); tests/run.sh counts
 * them.  AX_CHECK records a failure with file:line and carries on, so one
 * run shows every broken expectation of a test.
 */
#ifndef AX_TEST_H
#define AX_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ax_test_failed_checks;

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
		fflush(stdout);
		tests[i].fn();
		int ok = ax_test_failed_checks == before;
		printf("%s %d - %s\n", ok ? "ok" : "not ok", i + 1,
		       tests[i].name);
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
