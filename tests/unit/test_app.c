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
	     AX_TEST(test_read_only_need_creates_nothing),
	     AX_TEST(test_need_db_opens_once_and_release_closes),
	     AX_TEST(test_undeclared_need_is_refused),
	     AX_TEST(test_plan_lists_multiply_cases),
	     AX_TEST(test_plan_unknown_suite_suggests),
	     AX_TEST(test_plan_bad_override_names_it), AX_TEST(test_cleanup))
