/* tests/unit/test_app.c - the application layer without a device: exit
 * codes, the openers a command's declared needs drive (a read-only need
 * never creates a file; a command that declared nothing gets nothing),
 * and run plans (suites, -p lists and ranges, did-you-mean).  The paths
 * `axbench run` and `tune` take on a device: test_app_gpu.c. */
#include "app/app.h"
#include "app/run_plan.h"
#include "core/db.h"
#include "core/error.h"
#include "tests/unit/ax_test.h"

#include <sys/stat.h>

static char dir[] = "/tmp/axbench-test-app-XXXXXX";

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static void test_exit_codes(void)
{
	AX_CHECK_INT(ax_app_exit_code(0), AX_EXIT_OK);
	AX_CHECK_INT(ax_app_exit_code(AX_EVERIFY), AX_EXIT_FAIL);
	AX_CHECK_INT(ax_app_exit_code(AX_EREGRESSION), AX_EXIT_FAIL);
	AX_CHECK_INT(ax_app_exit_code(AX_EINVAL), AX_EXIT_USAGE);
	AX_CHECK_INT(ax_app_exit_code(AX_ECONFIG), AX_EXIT_USAGE);
	AX_CHECK_INT(ax_app_exit_code(AX_EAMBIGUOUS), AX_EXIT_AMBIGUOUS);
	AX_CHECK_INT(ax_app_exit_code(AX_ENODEV), AX_EXIT_NODEV);
	AX_CHECK_INT(ax_app_exit_code(AX_EDB), AX_EXIT_STORAGE);
	AX_CHECK_INT(ax_app_exit_code(AX_EINTR), AX_EXIT_INTERRUPTED);
	/* Opening a database: missing or unnamed is the user's (2); a
	 * file that is not a database, or newer, is storage (5). */
	AX_CHECK_INT(ax_app_db_open_exit(AX_ENOTFOUND), AX_EXIT_USAGE);
	AX_CHECK_INT(ax_app_db_open_exit(AX_EINVAL), AX_EXIT_USAGE);
	AX_CHECK_INT(ax_app_db_open_exit(AX_EDB), AX_EXIT_STORAGE);
	AX_CHECK_INT(ax_app_db_open_exit(AX_EDBVERSION), AX_EXIT_STORAGE);
}

/* Every code of core/error.h's list, each with the exit status it must
 * give: a code added to the list without a row here fails, and none may
 * reach 1 (a regression, a failed result) by falling through. */
static void test_every_error_code_has_its_exit(void)
{
	static const struct {
		int err, exit;
	} want[] = {
	    {AX_OK, AX_EXIT_OK},
	    {AX_EINVAL, AX_EXIT_USAGE},
	    {AX_ENOMEM, AX_EXIT_STORAGE},
	    {AX_EIO, AX_EXIT_STORAGE},
	    {AX_ENODEV, AX_EXIT_NODEV},
	    {AX_EVK, AX_EXIT_FAIL},
	    {AX_EDB, AX_EXIT_STORAGE},
	    {AX_EDBVERSION, AX_EXIT_STORAGE},
	    {AX_ECONFIG, AX_EXIT_USAGE},
	    {AX_EVERIFY, AX_EXIT_FAIL},
	    {AX_ETIMEOUT, AX_EXIT_FAIL},
	    {AX_EUNSUPPORTED, AX_EXIT_FAIL},
	    {AX_EINTR, AX_EXIT_INTERRUPTED},
	    {AX_ENOTFOUND, AX_EXIT_USAGE},
	    {AX_EDEVMEM, AX_EXIT_FAIL},
	    {AX_EDEVLOST, AX_EXIT_FAIL},
	    {AX_EREGRESSION, AX_EXIT_FAIL},
	    {AX_EAMBIGUOUS, AX_EXIT_AMBIGUOUS},
	    {AX_EVALIDATION, AX_EXIT_FAIL},
	    {AX_ECOMPILE, AX_EXIT_FAIL},
	    {AX_EBUSY, AX_EXIT_STORAGE},
	};
	static const int codes[] = {
#define AX_TEST_CODE(name, value, text) name,
	    AX_ERRORS(AX_TEST_CODE)
#undef AX_TEST_CODE
	};
	size_t n_want = sizeof(want) / sizeof(want[0]);
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		size_t j = 0;
		while (j < n_want && want[j].err != codes[i])
			j++;
		if (j == n_want) {
			fprintf(stderr, "# %s has no expected exit status\n",
				ax_strerror(codes[i]));
			AX_CHECK(j < n_want);
			continue;
		}
		if (ax_app_exit_code(codes[i]) != want[j].exit)
			fprintf(stderr, "# %s\n", ax_strerror(codes[i]));
		AX_CHECK_INT(ax_app_exit_code(codes[i]), want[j].exit);
	}
}

static void test_read_only_need_creates_nothing(void)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/absent.db", dir);
	struct ax_app app = {
	    .db_path = path, .needs = AX_APP_READ_ONLY_DB, .verbosity = -1};
	struct ax_db *db = (struct ax_db *)&app; /* must be reset */
	AX_CHECK_INT(ax_app_db(&app, &db), AX_EXIT_USAGE);
	AX_CHECK(db == NULL);
	AX_CHECK(!exists(path));
	AX_CHECK_INT(ax_app_release(&app, AX_EXIT_USAGE), AX_EXIT_USAGE);
}

static void test_need_db_opens_once_and_release_closes(void)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/made.db", dir);
	struct ax_app app = {
	    .db_path = path, .needs = AX_APP_NEED_DB, .verbosity = -1};
	struct ax_db *a = NULL, *b = NULL;
	AX_CHECK_INT(ax_app_db(&app, &a), 0);
	AX_CHECK(a != NULL);
	AX_CHECK(exists(path));
	/* A second ask is the same connection, not another. */
	AX_CHECK_INT(ax_app_db(&app, &b), 0);
	AX_CHECK(a == b);
	AX_CHECK(app.db == a);
	AX_CHECK_INT(ax_app_release(&app, 0), 0);
	AX_CHECK(app.db == NULL);
	/* The file it made is a database a reader now opens. */
	app.needs = AX_APP_READ_ONLY_DB;
	AX_CHECK_INT(ax_app_db(&app, &a), 0);
	AX_CHECK(a != NULL);
	AX_CHECK_INT(ax_app_release(&app, 0), 0);
}

static void test_undeclared_need_is_refused(void)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/undeclared.db", dir);
	struct ax_app app = {.db_path = path, .verbosity = -1};
	struct ax_db *db = NULL;
	struct ax_vk_instance *inst = NULL;
	AX_CHECK_INT(ax_app_db(&app, &db), AX_EXIT_FAIL);
	AX_CHECK(db == NULL);
	AX_CHECK(!exists(path));
	AX_CHECK_INT(ax_app_device(&app, &inst, NULL), AX_EXIT_FAIL);
	AX_CHECK(inst == NULL);
	AX_CHECK_INT(ax_app_release(&app, 0), 0);
}

static void test_plan_lists_multiply_cases(void)
{
	struct ax_plan plan = {0};
	char *suites[] = {"bandwidth"};
	struct ax_plan_override ov[] = {{"op=copy,read"}, {"size=1M,2M,4M"}};
	char err[512] = "";
	int rc = ax_plan_build(&plan, NULL, suites, 1, ov, 2, err, sizeof(err));
	if (rc)
		printf("#   %s\n", err);
	AX_CHECK_INT(rc, 0);
	AX_CHECK_INT(plan.n, 6);
	for (int i = 0; i < plan.n; i++)
		AX_CHECK_STR(plan.cases[i].suite->name, "bandwidth");
	ax_plan_release(&plan);
}

static void test_plan_unknown_suite_suggests(void)
{
	struct ax_plan plan = {0};
	char *suites[] = {"bandwdith"};
	char err[512] = "";
	int rc =
	    ax_plan_build(&plan, NULL, suites, 1, NULL, 0, err, sizeof(err));
	AX_CHECK_INT(rc, AX_ENOTFOUND);
	AX_CHECK(strstr(err, "unknown suite 'bandwdith'") != NULL);
	AX_CHECK(strstr(err, "did you mean 'bandwidth'") != NULL);
	ax_plan_release(&plan);
}

static void test_plan_bad_override_names_it(void)
{
	struct ax_plan plan = {0};
	char *suites[] = {"bandwidth"};
	struct ax_plan_override ov[] = {{"size=lots"}};
	char err[512] = "";
	int rc = ax_plan_build(&plan, NULL, suites, 1, ov, 1, err, sizeof(err));
	AX_CHECK(rc != 0);
	AX_CHECK(strstr(err, "size") != NULL);
	ax_plan_release(&plan);
}

static void test_setup(void) { AX_CHECK(mkdtemp(dir) != NULL); }

static void test_cleanup(void)
{
	const char *names[] = {"made.db", "made.db-wal", "made.db-shm", NULL};
	char path[600];
	for (int i = 0; names[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	AX_CHECK_INT(rmdir(dir), 0);
}

AX_TEST_MAIN(AX_TEST(test_setup), AX_TEST(test_exit_codes),
	     AX_TEST(test_every_error_code_has_its_exit),
	     AX_TEST(test_read_only_need_creates_nothing),
	     AX_TEST(test_need_db_opens_once_and_release_closes),
	     AX_TEST(test_undeclared_need_is_refused),
	     AX_TEST(test_plan_lists_multiply_cases),
	     AX_TEST(test_plan_unknown_suite_suggests),
	     AX_TEST(test_plan_bad_override_names_it), AX_TEST(test_cleanup))
