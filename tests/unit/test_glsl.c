/*
 * tests/unit/test_glsl.c - user kernels' GLSL compiled at run time
 * (core/glsl): valid SPIR-V; the SPIR-V cache (a repeat is a hit with the
 * same code, a define value or an included file's change is a new key, a
 * corrupt cache file is compiled again and replaced, AXBENCH_NO_SPIRV_CACHE
 * bypasses it, an unwritable cache is no cache and no message); errors at
 * FILE:LINE for syntax, names, preprocessing and includes; the entry
 * point's name.  No Vulkan device: test_glsl_gpu runs a compiled kernel.
 */
#include "ax_test.h"

#include "core/error.h"
#include "core/glsl.h"
#include "core/hash.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256];

/* tmpdir/name (four rotating buffers). */
static const char *tmp_path(const char *name)
{
	static char buf[4][512];
	static int next;
	char *p = buf[next++ % 4];
	snprintf(p, 512, "%s/%s", tmpdir, name);
	return p;
}

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");
	AX_CHECK(f != NULL);
	if (!f)
		return;
	AX_CHECK(fwrite(text, 1, len, f) == len);
	fclose(f);
}

static void write_text(const char *name, const char *text)
{
	write_file(tmp_path(name), text, strlen(text));
}

/* Compile tmpdir/name (read here, as a caller would) with defs. */
static int compile(const char *name, const char *entry,
		   const struct ax_glsl_define *defs, int n_defs,
		   struct ax_glsl_spirv *out, char *err, size_t errlen)
{
	const char *path = tmp_path(name);
	FILE *f = fopen(path, "rb");
	static char src[1 << 16];
	size_t len = f ? fread(src, 1, sizeof(src), f) : 0;
	if (f)
		fclose(f);
	err[0] = '\0';
	int rc = ax_glsl_compile(path, src, len, entry, defs, n_defs, out, err,
				 errlen);
	/* Every line of the message as a TAP comment. */
	for (const char *l = err; rc && *l;) {
		size_t n = strcspn(l, "\n");
		printf("#   %.*s\n", (int)n, l);
		l += n + (l[n] == '\n');
	}
	return rc;
}

static void cache_file(const char *key, char *buf, size_t n)
{
	snprintf(buf, n, "%s/cache/axbench/spirv/%s.spv", tmpdir, key);
}

/* SPIR-V as the driver needs it: whole words, magic, at least the
 * header; the hash is that of the code. */
static void check_spirv(const struct ax_glsl_spirv *s)
{
	AX_CHECK(s->code != NULL);
	AX_CHECK(s->size >= 20);
	AX_CHECK_INT(s->size % 4, 0);
	if (s->code)
		AX_CHECK_INT(s->code[0], 0x07230203);
	char hash[17];
	ax_hash_hex(s->code, s->size, hash);
	AX_CHECK_STR(s->hash, hash);
	AX_CHECK_INT(strlen(s->key), 16);
	AX_CHECK(s->compile_ms > 0);
}

static bool same_code(const struct ax_glsl_spirv *a,
		      const struct ax_glsl_spirv *b)
{
	return a->size == b->size && memcmp(a->code, b->code, a->size) == 0;
}

static const char scale_src[] =
    "#version 450\n"
    "layout(local_size_x = 64) in;\n"
    "layout(std430, binding = 0) buffer B { float x[]; };\n"
    "void main()\n"
    "{\n"
    "\tx[gl_GlobalInvocationID.x] *= FACTOR;\n"
    "}\n";

static void setup(void)
{
	strcpy(tmpdir, "/tmp/ax_test_glsl.XXXXXX");
	if (!mkdtemp(tmpdir))
		abort();
	/* Before the first compile: the user's own cache is never touched. */
	setenv("XDG_CACHE_HOME", tmp_path("cache"), 1);
	unsetenv("AXBENCH_NO_SPIRV_CACHE");
	write_text("scale.comp", scale_src);
}

static void test_compiles_and_caches(void)
{
	struct ax_glsl_define d = {"FACTOR", "3.0"};
	struct ax_glsl_spirv a, b;
	char err[2048], file[600];
	AX_CHECK_INT(compile("scale.comp", NULL, &d, 1, &a, err, sizeof(err)),
		     0);
	check_spirv(&a);
	AX_CHECK(!a.cached);
	cache_file(a.key, file, sizeof(file));
	AX_CHECK(access(file, R_OK) == 0);

	/* The same input again: from the cache, the same code. */
	AX_CHECK_INT(compile("scale.comp", NULL, &d, 1, &b, err, sizeof(err)),
		     0);
	check_spirv(&b);
	AX_CHECK(b.cached);
	AX_CHECK_STR(b.key, a.key);
	AX_CHECK_STR(b.hash, a.hash);
	AX_CHECK(same_code(&a, &b));
	printf("#   compile %.1f ms, cache hit %.2f ms\n", a.compile_ms,
	       b.compile_ms);
	ax_glsl_spirv_free(&a);
	ax_glsl_spirv_free(&b);
	AX_CHECK(a.code == NULL && a.size == 0);
}

static void test_define_value_changes_key_and_code(void)
{
	struct ax_glsl_define three = {"FACTOR", "3.0"};
	struct ax_glsl_define four = {"FACTOR", "4.0"};
	struct ax_glsl_spirv a, b;
	char err[2048];
	AX_CHECK_INT(
	    compile("scale.comp", NULL, &three, 1, &a, err, sizeof(err)), 0);
	AX_CHECK_INT(
	    compile("scale.comp", NULL, &four, 1, &b, err, sizeof(err)), 0);
	check_spirv(&b);
	AX_CHECK(strcmp(a.key, b.key) != 0);
	AX_CHECK(strcmp(a.hash, b.hash) != 0);
	AX_CHECK(!same_code(&a, &b));
	ax_glsl_spirv_free(&a);
	ax_glsl_spirv_free(&b);

	/* A define without a value is defined empty (-DNAME). */
	write_text("ifdef.comp", "#version 450\n"
				 "layout(local_size_x = 1) in;\n"
				 "#ifndef USE_IT\n"
				 "#error USE_IT is not defined\n"
				 "#endif\n"
				 "void main() {}\n");
	struct ax_glsl_define use = {"USE_IT", NULL};
	AX_CHECK_INT(compile("ifdef.comp", NULL, &use, 1, &a, err, sizeof(err)),
		     0);
	ax_glsl_spirv_free(&a);
	AX_CHECK_INT(compile("ifdef.comp", NULL, NULL, 0, &a, err, sizeof(err)),
		     AX_ECOMPILE);
	char want[600];
	snprintf(want, sizeof(want), "%s:4: error:", tmp_path("ifdef.comp"));
	AX_CHECK(strstr(err, want) != NULL);
	AX_CHECK(strstr(err, "USE_IT is not defined") != NULL);

	/* Defines are expanded once: a kernel that #undefs one and uses
	 * the name for itself compiles (the preprocessed text is compiled
	 * without the defines). */
	write_text("undef_reuse.comp", "#version 450\n"
				       "layout(local_size_x = 1) in;\n"
				       "layout(std430, binding = 0) buffer B "
				       "{ float x[]; };\n"
				       "const float SCALE = N;\n"
				       "#undef N\n"
				       "void main() { float N = 2.0; "
				       "x[0] = N * SCALE; }\n");
	struct ax_glsl_define n = {"N", "64.0"};
	AX_CHECK_INT(
	    compile("undef_reuse.comp", NULL, &n, 1, &a, err, sizeof(err)), 0);
	ax_glsl_spirv_free(&a);

	/* Not a name: refused before shaderc sees it. */
	struct ax_glsl_define bad = {"2X", "1"};
	AX_CHECK_INT(compile("scale.comp", NULL, &bad, 1, &a, err, sizeof(err)),
		     AX_EINVAL);
	AX_CHECK(strstr(err, "\"2X\" is not a name") != NULL);
}

static void test_include_relative_to_including_file(void)
{
	struct ax_glsl_spirv a, b;
	char err[2048];
	AX_CHECK(mkdir(tmp_path("k"), 0755) == 0);
	AX_CHECK(mkdir(tmp_path("k/sub"), 0755) == 0);
	write_text("k/main.comp", "#version 450\n"
				  "#include \"inc.glsl\"\n"
				  "layout(local_size_x = 64) in;\n"
				  "layout(std430, binding = 0) buffer B "
				  "{ float x[]; };\n"
				  "void main()\n"
				  "{\n"
				  "\tx[gl_GlobalInvocationID.x] *= K * TWO;\n"
				  "}\n");
	/* inc.glsl's own include is looked for beside inc.glsl. */
	write_text("k/inc.glsl", "#include \"sub/two.glsl\"\n"
				 "#define K 5.0\n");
	write_text("k/sub/two.glsl", "#define TWO 2.0\n");
	/* The test runs elsewhere: nothing is found through the cwd. */
	AX_CHECK(strcmp(tmpdir, getcwd(err, sizeof(err))) != 0);
	AX_CHECK_INT(
	    compile("k/main.comp", NULL, NULL, 0, &a, err, sizeof(err)), 0);
	check_spirv(&a);

	/* An included file's change is a new key (and new code). */
	write_text("k/sub/two.glsl", "#define TWO 3.0\n");
	AX_CHECK_INT(
	    compile("k/main.comp", NULL, NULL, 0, &b, err, sizeof(err)), 0);
	AX_CHECK(!b.cached);
	AX_CHECK(strcmp(a.key, b.key) != 0);
	AX_CHECK(!same_code(&a, &b));
	ax_glsl_spirv_free(&a);
	ax_glsl_spirv_free(&b);
}

static void test_include_errors(void)
{
	struct ax_glsl_spirv a;
	char err[2048], want[600];
	write_text("sys.comp", "#version 450\n"
			       "layout(local_size_x = 1) in;\n"
			       "#include <sys.glsl>\n"
			       "void main() {}\n");
	AX_CHECK_INT(compile("sys.comp", NULL, NULL, 0, &a, err, sizeof(err)),
		     AX_ECOMPILE);
	snprintf(want, sizeof(want), "%s:3: error:", tmp_path("sys.comp"));
	AX_CHECK(strstr(err, want) != NULL);
	AX_CHECK(strstr(err, "<...> includes are not searched") != NULL);
	AX_CHECK(strstr(err, "#include \"sys.glsl\"") != NULL);

	write_text("missing.comp", "#version 450\n"
				   "#include \"nowhere.glsl\"\n"
				   "void main() {}\n");
	AX_CHECK_INT(
	    compile("missing.comp", NULL, NULL, 0, &a, err, sizeof(err)),
	    AX_ECOMPILE);
	snprintf(want, sizeof(want), "%s:2: error:", tmp_path("missing.comp"));
	AX_CHECK(strstr(err, want) != NULL);
	snprintf(want, sizeof(want), "cannot read %s (No such file",
		 tmp_path("nowhere.glsl"));
	AX_CHECK(strstr(err, want) != NULL);

	/* An error inside an included file names that file and line. */
	write_text("bad.glsl", "float f()\n"
			       "{\n"
			       "\treturn not_declared;\n"
			       "}\n");
	write_text("incbad.comp", "#version 450\n"
				  "#include \"bad.glsl\"\n"
				  "layout(local_size_x = 1) in;\n"
				  "void main() {}\n");
	AX_CHECK_INT(
	    compile("incbad.comp", NULL, NULL, 0, &a, err, sizeof(err)),
	    AX_ECOMPILE);
	snprintf(want, sizeof(want), "%s:3: error: 'not_declared'",
		 tmp_path("bad.glsl"));
	AX_CHECK(strstr(err, want) != NULL);

	/* A file that includes itself stops at the depth limit. */
	write_text("self.glsl", "#include \"self.glsl\"\n");
	write_text("self.comp", "#version 450\n"
				"#include \"self.glsl\"\n"
				"void main() {}\n");
	AX_CHECK_INT(compile("self.comp", NULL, NULL, 0, &a, err, sizeof(err)),
		     AX_ECOMPILE);
	AX_CHECK(strstr(err, "nested more than 32 deep") != NULL);
}

static void test_syntax_error_names_file_and_line(void)
{
	struct ax_glsl_spirv a;
	char err[2048], want[600];
	write_text("syntax.comp", "#version 450\n"
				  "layout(local_size_x = 1) in;\n"
				  "layout(std430, binding = 0) buffer B "
				  "{ float x[]; };\n"
				  "void main()\n"
				  "{\n"
				  "\tx[0] = 1.0;\n"
				  "\tx[1] = 2.0 +;\n"
				  "}\n");
	AX_CHECK_INT(
	    compile("syntax.comp", NULL, NULL, 0, &a, err, sizeof(err)),
	    AX_ECOMPILE);
	snprintf(want, sizeof(want), "%s:7: error:", tmp_path("syntax.comp"));
	AX_CHECK(strstr(err, want) == err);
	AX_CHECK(strstr(err, "syntax error") != NULL);
	AX_CHECK(a.code == NULL && a.size == 0);
	AX_CHECK(err[strlen(err) - 1] != '\n');

	/* A short buffer keeps the message's start (FILE:LINE) and end. */
	char small[96];
	AX_CHECK_INT(
	    compile("syntax.comp", NULL, NULL, 0, &a, small, sizeof(small)),
	    AX_ECOMPILE);
	AX_CHECK(strncmp(small, tmp_path("syntax.comp"), 30) == 0);
	AX_CHECK(strstr(small, "unexpected SEMICOLON") != NULL);
}

static void test_undefined_identifier_all_errors_kept(void)
{
	struct ax_glsl_spirv a;
	char err[2048], want[600];
	write_text("undef.comp", "#version 450\n"
				 "layout(local_size_x = 1) in;\n"
				 "layout(std430, binding = 0) buffer B "
				 "{ float x[]; };\n"
				 "void main()\n"
				 "{\n"
				 "\tx[0] = 1.0;\n"
				 "\tx[1] = undefined_factor * 2.0;\n"
				 "\tx[2] = 3.0;\n"
				 "\tx[3] = also_undefined;\n"
				 "}\n");
	AX_CHECK_INT(compile("undef.comp", NULL, NULL, 0, &a, err, sizeof(err)),
		     AX_ECOMPILE);
	snprintf(want, sizeof(want),
		 "%s:7: error: 'undefined_factor' : undeclared identifier",
		 tmp_path("undef.comp"));
	AX_CHECK(strstr(err, want) != NULL);
	snprintf(want, sizeof(want),
		 "%s:9: error: 'also_undefined' : undeclared identifier",
		 tmp_path("undef.comp"));
	AX_CHECK(strstr(err, want) != NULL);

	/* Preprocessing errors read the same. */
	write_text("pp.comp", "#version 450\n"
			      "layout(local_size_x = 1) in;\n"
			      "#endif\n"
			      "void main() {}\n");
	AX_CHECK_INT(compile("pp.comp", NULL, NULL, 0, &a, err, sizeof(err)),
		     AX_ECOMPILE);
	snprintf(want, sizeof(want), "%s:3: error: '#endif'",
		 tmp_path("pp.comp"));
	AX_CHECK(strstr(err, want) != NULL);
}

/* Garbage, a torn file and an empty file under the key: each is compiled
 * again (not cached), with the same code, and replaced by a good file. */
static void test_corrupt_cache_file_recompiled(void)
{
	struct ax_glsl_define d = {"FACTOR", "7.0"};
	struct ax_glsl_spirv good, again;
	char err[2048], file[600];
	AX_CHECK_INT(
	    compile("scale.comp", NULL, &d, 1, &good, err, sizeof(err)), 0);
	cache_file(good.key, file, sizeof(file));
	static const char garbage[] = "this is not SPIR-V at all, no no.";
	const struct {
		const char *data;
		size_t len;
	} bad[] = {
	    {garbage, 32},		   /* whole words, no magic */
	    {(const char *)good.code, 22}, /* magic, torn mid-word */
	    {"", 0},			   /* empty */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(file, bad[i].data, bad[i].len);
		AX_CHECK_INT(compile("scale.comp", NULL, &d, 1, &again, err,
				     sizeof(err)),
			     0);
		AX_CHECK(!again.cached);
		AX_CHECK(same_code(&good, &again));
		ax_glsl_spirv_free(&again);
		/* Rewritten: the next one is a hit. */
		AX_CHECK_INT(compile("scale.comp", NULL, &d, 1, &again, err,
				     sizeof(err)),
			     0);
		AX_CHECK(again.cached);
		AX_CHECK(same_code(&good, &again));
		ax_glsl_spirv_free(&again);
	}
	ax_glsl_spirv_free(&good);
}

static void test_no_spirv_cache_env(void)
{
	struct ax_glsl_define d = {"FACTOR", "3.0"};
	struct ax_glsl_spirv a, b;
	char err[2048];
	AX_CHECK_INT(compile("scale.comp", NULL, &d, 1, &a, err, sizeof(err)),
		     0);
	AX_CHECK(a.cached); /* written by the first test */
	setenv("AXBENCH_NO_SPIRV_CACHE", "1", 1);
	AX_CHECK_INT(compile("scale.comp", NULL, &d, 1, &b, err, sizeof(err)),
		     0);
	unsetenv("AXBENCH_NO_SPIRV_CACHE");
	AX_CHECK(!b.cached);
	AX_CHECK_STR(b.key, a.key);
	AX_CHECK(same_code(&a, &b));
	ax_glsl_spirv_free(&a);
	ax_glsl_spirv_free(&b);
}

/* A cache directory that cannot be made (XDG_CACHE_HOME is a file) is no
 * cache: every compile works, nothing is said on stderr. */
static void test_unwritable_cache_is_no_cache(void)
{
	struct ax_glsl_define d = {"FACTOR", "9.0"};
	struct ax_glsl_spirv a;
	char err[2048];
	write_text("not-a-dir", "x");
	setenv("XDG_CACHE_HOME", tmp_path("not-a-dir"), 1);
	fflush(stderr);
	int saved = dup(2);
	int fd =
	    open(tmp_path("stderr.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 2);
	close(fd);
	for (int i = 0; i < 2; i++) {
		AX_CHECK_INT(
		    compile("scale.comp", NULL, &d, 1, &a, err, sizeof(err)),
		    0);
		check_spirv(&a);
		AX_CHECK(!a.cached);
		ax_glsl_spirv_free(&a);
	}
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	struct stat st;
	AX_CHECK(stat(tmp_path("stderr.txt"), &st) == 0 && st.st_size == 0);
	setenv("XDG_CACHE_HOME", tmp_path("cache"), 1);
}

/* The SPIR-V entry point's name, read from its OpEntryPoint. */
static void entry_name(const struct ax_glsl_spirv *s, char *name, size_t n)
{
	name[0] = '\0';
	size_t words = s->size / 4;
	for (size_t i = 5; i < words;) {
		uint32_t wc = s->code[i] >> 16, op = s->code[i] & 0xffff;
		if (wc == 0)
			break;
		if (op == 15) {
			snprintf(name, n, "%s", (const char *)&s->code[i + 3]);
			return;
		}
		i += wc;
	}
}

static void test_entry_point_name(void)
{
	struct ax_glsl_define d = {"FACTOR", "3.0"};
	struct ax_glsl_spirv a, b;
	char err[2048], name[64];
	AX_CHECK_INT(compile("scale.comp", NULL, &d, 1, &a, err, sizeof(err)),
		     0);
	entry_name(&a, name, sizeof(name));
	AX_CHECK_STR(name, "main");
	AX_CHECK_INT(compile("scale.comp", "scale_by_factor", &d, 1, &b, err,
			     sizeof(err)),
		     0);
	check_spirv(&b);
	entry_name(&b, name, sizeof(name));
	AX_CHECK_STR(name, "scale_by_factor");
	AX_CHECK(strcmp(a.key, b.key) != 0);
	ax_glsl_spirv_free(&b);
	/* And from the cache, renamed as it was stored. */
	AX_CHECK_INT(compile("scale.comp", "scale_by_factor", &d, 1, &b, err,
			     sizeof(err)),
		     0);
	AX_CHECK(b.cached);
	entry_name(&b, name, sizeof(name));
	AX_CHECK_STR(name, "scale_by_factor");
	ax_glsl_spirv_free(&a);
	ax_glsl_spirv_free(&b);
	AX_CHECK_INT(compile("scale.comp", "", &d, 1, &a, err, sizeof(err)),
		     AX_EINVAL);
}

static void cleanup(void)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	AX_CHECK(system(cmd) == 0);
}

AX_TEST_MAIN(AX_TEST(setup), AX_TEST(test_compiles_and_caches),
	     AX_TEST(test_define_value_changes_key_and_code),
	     AX_TEST(test_include_relative_to_including_file),
	     AX_TEST(test_include_errors),
	     AX_TEST(test_syntax_error_names_file_and_line),
	     AX_TEST(test_undefined_identifier_all_errors_kept),
	     AX_TEST(test_corrupt_cache_file_recompiled),
	     AX_TEST(test_no_spirv_cache_env),
	     AX_TEST(test_unwritable_cache_is_no_cache),
	     AX_TEST(test_entry_point_name), AX_TEST(cleanup))
