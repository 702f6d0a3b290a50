/* tests/unit/test_infile.c - core/infile.h on real files: a FIFO with no
 * writer is refused at once (the open would block without O_NONBLOCK), as
 * are a directory and a character device; a file over the limit is
 * refused by its size with the reader's noun; a regular file is read
 * whole, and a missing one keeps its errno. */
#include "ax_test.h"

#include "core/error.h"
#include "core/infile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static const char *at(const char *name)
{
	static char p[4][128];
	static int k;
	char *s = p[k++ % 4];
	snprintf(s, 128, "%s/%s", dir, name);
	return s;
}

static void make_dir(void)
{
	if (dir[0])
		return;
	strcpy(dir, "/tmp/ax_test_infile.XXXXXX");
	if (!mkdtemp(dir))
		abort();
}

static void fifo_refused_without_blocking(void)
{
	make_dir();
	const char *path = at("fifo.comp");
	AX_CHECK(mkfifo(path, 0600) == 0);
	/* A watchdog: a regression blocks in open(), and fails here. */
	alarm(20);
	char err[512] = "", *text = NULL;
	size_t len;
	AX_CHECK_INT(ax_infile_read(path, "shader file", 1 << 20, &text, &len,
				    err, sizeof(err)),
		     AX_ECONFIG);
	alarm(0);
	AX_CHECK(text == NULL);
	printf("# %s\n", err);
	AX_CHECK(strstr(err, "shader file ") == err);
	AX_CHECK(strstr(err, "is a FIFO (named pipe), not a regular file"));
	unlink(path);
}

static void directory_and_device_refused(void)
{
	make_dir();
	char err[512] = "";
	struct stat st;
	AX_CHECK_INT(ax_infile_open(dir, "YAML file", &st, err, sizeof(err)),
		     AX_ECONFIG);
	AX_CHECK(strstr(err, "is a directory, not a regular file"));
	AX_CHECK_INT(
	    ax_infile_open("/dev/zero", "init file", &st, err, sizeof(err)),
	    AX_ECONFIG);
	AX_CHECK_STR(err, "init file /dev/zero is a character device, not a "
			  "regular file; give the path of a regular file (a "
			  "FIFO or a device may never end, or block)");
}

static void too_large_refused_by_size(void)
{
	make_dir();
	const char *path = at("big.comp");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	AX_CHECK(fd >= 0 && ftruncate(fd, (20 << 20) + 1) == 0);
	close(fd);
	char err[512] = "", *text = NULL;
	size_t len;
	AX_CHECK_INT(ax_infile_read(path, "shader file", 4 << 20, &text, &len,
				    err, sizeof(err)),
		     AX_ECONFIG);
	char want[256];
	snprintf(want, sizeof(want),
		 "shader file %s is 20.0 MiB, larger than the 4 MiB a shader "
		 "file may be",
		 path);
	AX_CHECK_STR(err, want);
	unlink(path);
}

static void regular_file_read_whole(void)
{
	make_dir();
	const char *path = at("k.yaml");
	FILE *f = fopen(path, "w");
	AX_CHECK(f != NULL);
	fputs("schema: x\n", f);
	fclose(f);
	char err[512] = "", *text = NULL;
	size_t len = 0;
	AX_CHECK_INT(ax_infile_read(path, "YAML file", 4 << 20, &text, &len,
				    err, sizeof(err)),
		     0);
	AX_CHECK_INT(len, 10);
	AX_CHECK_STR(text, "schema: x\n");
	free(text);
	/* The descriptor handed on blocks as a plain open's would. */
	struct stat st;
	int fd = ax_infile_open(path, "YAML file", &st, err, sizeof(err));
	AX_CHECK(fd >= 0 && !(fcntl(fd, F_GETFL) & O_NONBLOCK));
	close(fd);
	unlink(path);
}

static void missing_file_keeps_errno(void)
{
	char err[512] = "", *text = NULL;
	size_t len;
	errno = 0;
	AX_CHECK_INT(ax_infile_read("/nonexistent/x.yaml", "YAML file", 100,
				    &text, &len, err, sizeof(err)),
		     AX_EIO);
	AX_CHECK_INT(errno, ENOENT);
	AX_CHECK_STR(err, "/nonexistent/x.yaml: cannot open: No such file or "
			  "directory");
}

static void sizes_in_words(void)
{
	char b[32];
	AX_CHECK_STR(ax_infile_size_text(512, b, sizeof(b)), "512 bytes");
	AX_CHECK_STR(ax_infile_size_text(4096, b, sizeof(b)), "4.0 KiB");
	AX_CHECK_STR(ax_infile_size_text(64ull << 20, b, sizeof(b)),
		     "64.0 MiB");
	AX_CHECK_STR(ax_infile_size_text(3ull << 29, b, sizeof(b)), "1.5 GiB");
	rmdir(dir);
}

AX_TEST_MAIN(AX_TEST(fifo_refused_without_blocking),
	     AX_TEST(directory_and_device_refused),
	     AX_TEST(too_large_refused_by_size),
	     AX_TEST(regular_file_read_whole),
	     AX_TEST(missing_file_keeps_errno), AX_TEST(sizes_in_words))
