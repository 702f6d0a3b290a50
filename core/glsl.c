/* core/glsl.c - GLSL compute shaders compiled at run time (see glsl.h). */
#include "core/glsl.h"

#include "core/error.h"
#include "core/hash.h"
#include "core/infile.h"
#include "core/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <shaderc/shaderc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Bump when what a cache file holds, or what its key covers, changes:
 * older files then simply stop matching. */
#define CACHE_FORMAT "axbench-spirv-cache-1"

/* The compilers' versions go into the cache key: the Makefile passes
 * shaderc's and SPIRV-Tools', glslang's comes from its build_info.h, and
 * the SPIR-V version shaderc reports at run time is added to them. */
#ifndef AX_SHADERC_VERSION
#define AX_SHADERC_VERSION "unknown"
#endif
#if defined(__has_include)
#if __has_include(<glslang/build_info.h>)
#include <glslang/build_info.h>
#endif
#endif
#ifdef GLSLANG_VERSION_MAJOR
#define AX_STR_(x) #x
#define AX_STR(x) AX_STR_(x)
#define AX_GLSLANG_VERSION                                                     \
	AX_STR(GLSLANG_VERSION_MAJOR)                                          \
	"." AX_STR(GLSLANG_VERSION_MINOR) "." AX_STR(GLSLANG_VERSION_PATCH)
#else
#define AX_GLSLANG_VERSION "unknown"
#endif

/* Includes: deep enough for any real tree, shallow enough that a file
 * including itself fails fast with a message instead of exhausting the
 * stack; sizes bound what a mistaken #include (a data file, a device)
 * can make us read. */
#define MAX_INCLUDE_DEPTH 32
#define MAX_FILE_BYTES (16u << 20)
#define MAX_INCLUDE_TOTAL (64u << 20)
/* Far above any compute kernel; a bigger cache file is not ours. */
#define MAX_SPIRV_BYTES (64u << 20)
#define SPIRV_MAGIC 0x07230203u
#define MAX_ENTRY_BYTES 255

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- includes ----------------------------------------------------------- */

struct includer {
	size_t total; /* bytes of included files read so far */
	/* glslang asks for a "file" it could not get once more as <file>:
	 * the first answer's reason is kept to be given again then. */
	char *failed_name, *failed;
};

/* One include result and the strings it points to, freed together. */
struct inc_result {
	shaderc_include_result r;
	char *name;
	char *content;
};

/* Read a whole regular file of at most max bytes (core/infile.h: a FIFO
 * or a device is refused, never waited on).  NULL with the reason in msg
 * and *rc its code; errno as the failed call left it. */
static char *read_file(const char *path, const char *what, size_t max,
		       size_t *len, char *msg, size_t msglen, int *rc)
{
	char *buf = NULL;
	*rc = ax_infile_read(path, what, max, &buf, len, msg, msglen);
	return buf;
}

/* shaderc's way to fail an include: an empty name, the reason as the
 * content.  glslang prints it as "FILE:LINE: error: '#include' : REASON
 * for header name: NAME", so each reason ends in ';'. */
static shaderc_include_result *inc_fail(struct inc_result *ir, char *msg)
{
	free(ir->name);
	free(ir->content);
	ir->name = NULL;
	ir->content = msg;
	ir->r.source_name = "";
	ir->r.source_name_length = 0;
	ir->r.content = msg ? msg : "out of memory;";
	ir->r.content_length = strlen(ir->r.content);
	return &ir->r;
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* A relative include's failure, remembered for the <file> retry. */
static shaderc_include_result *local_fail(struct includer *inc,
					  struct inc_result *ir,
					  const char *requested, char *msg)
{
	free(inc->failed);
	free(inc->failed_name);
	inc->failed = msg ? strdup(msg) : NULL;
	inc->failed_name = strdup(requested);
	return inc_fail(ir, msg);
}

/* #include "file": relative to the directory of the file that includes
 * it (as a C compiler does), so a kernel and its headers move together.
 * The resolved path is the name messages give for the included file. */
static shaderc_include_result *resolve(void *user, const char *requested,
				       int type, const char *requesting,
				       size_t depth)
{
	struct includer *inc = user;
	struct inc_result *ir = calloc(1, sizeof(*ir));
	if (!ir)
		return NULL; /* glslang: "Could not process include" */
	ir->r.user_data = ir;
	if (type != shaderc_include_type_relative) {
		if (inc->failed_name &&
		    strcmp(inc->failed_name, requested) == 0) {
			char *msg = inc->failed;
			inc->failed = NULL;
			free(inc->failed_name);
			inc->failed_name = NULL;
			return inc_fail(ir, msg);
		}
		return inc_fail(ir, fmt("<...> includes are not searched: "
					"write #include \"%s\", a path "
					"relative to the including file;",
					requested));
	}
	if (depth > MAX_INCLUDE_DEPTH)
		return local_fail(inc, ir, requested,
				  fmt("includes nested more than %d deep "
				      "(does a file include itself?);",
				      MAX_INCLUDE_DEPTH));
	const char *slash = strrchr(requesting, '/');
	if (requested[0] == '/' || !slash)
		ir->name = strdup(requested);
	else
		ir->name = fmt("%.*s/%s", (int)(slash - requesting), requesting,
			       requested);
	if (!ir->name)
		return local_fail(inc, ir, requested, NULL);
	size_t len = 0;
	char msg[1024];
	int rc;
	ir->content = read_file(ir->name, "#include file", MAX_FILE_BYTES, &len,
				msg, sizeof(msg), &rc);
	if (!ir->content && rc == AX_EIO && errno == ENOENT)
		return local_fail(inc, ir, requested,
				  fmt("cannot read %s (%s; an #include "
				      "\"...\" is looked for beside the file "
				      "that includes it);",
				      ir->name, strerror(ENOENT)));
	if (!ir->content)
		return local_fail(inc, ir, requested,
				  rc == AX_ENOMEM ? NULL : fmt("%s;", msg));
	inc->total += len;
	if (inc->total > MAX_INCLUDE_TOTAL)
		return local_fail(inc, ir, requested,
				  fmt("included files add up to more than "
				      "64 MiB at %s;",
				      ir->name));
	ir->r.source_name = ir->name;
	ir->r.source_name_length = strlen(ir->name);
	ir->r.content = ir->content;
	ir->r.content_length = len;
	return &ir->r;
}

static void release(void *user, shaderc_include_result *r)
{
	if (!r)
		return;
	struct inc_result *ir = r->user_data;
	free(ir->name);
	free(ir->content);
	free(ir);
}

static void includer_reset(struct includer *inc)
{
	free(inc->failed);
	free(inc->failed_name);
	memset(inc, 0, sizeof(*inc));
}

/* ---- the cache ---------------------------------------------------------- */

/* $XDG_CACHE_HOME/axbench/spirv, else ~/.cache/axbench/spirv: beside the
 * pipeline cache (core/vk_device.c).  false when neither is set. */
static bool cache_dir(char *dir, size_t n)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int w;
	if (xdg && *xdg)
		w = snprintf(dir, n, "%s/axbench/spirv", xdg);
	else if (home && *home)
		w = snprintf(dir, n, "%s/.cache/axbench/spirv", home);
	else
		return false;
	return w > 0 && (size_t)w < n;
}

/* Create dir and its missing parents; errors show when the file is
 * written, and a cache that cannot be written is only no cache. */
static void make_dirs(char *dir)
{
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(dir, 0755);
		*p = '/';
	}
	mkdir(dir, 0755);
}

/* A cache file fit to hand to the driver: a whole number of words, at
 * least the 5-word header, SPIR-V's magic.  Anything else (torn by a
 * crash of an older writer, edited, not ours) is NULL and compiled again. */
static uint32_t *cache_read(const char *file, size_t *size)
{
	size_t len = 0;
	char msg[1024];
	int rc;
	char *buf = read_file(file, "cache file", MAX_SPIRV_BYTES, &len, msg,
			      sizeof(msg), &rc);
	if (!buf)
		return NULL;
	uint32_t *code = (uint32_t *)(void *)buf;
	if (len < 20 || len % 4 != 0 || code[0] != SPIRV_MAGIC) {
		free(buf);
		return NULL;
	}
	*size = len;
	return code;
}

/* All or nothing (core/outfile), so a reader never sees half a file and
 * two processes compiling the same key just replace each other's copy. */
static void cache_write(const char *dir, const char *file, const uint32_t *code,
			size_t size)
{
	char d[512];
	snprintf(d, sizeof(d), "%s", dir);
	make_dirs(d);
	struct ax_outfile o;
	if (ax_outfile_open(&o, file, NULL, 0) != 0)
		return;
	if (fwrite(code, 1, size, o.f) == size)
		ax_outfile_commit(&o, NULL, 0);
	else
		ax_outfile_abort(&o);
}

/* The key covers everything the SPIR-V depends on: the preprocessed text
 * (the source with includes and defines resolved, and the #line names of
 * the files), the entry point, the target, the optimisation level and
 * the compiler.  Length-prefixed fields, so no two inputs run together. */
static int cache_key(const char *pre, size_t pre_len, const char *entry,
		     char key[17])
{
	unsigned spv_version = 0, spv_revision = 0;
	shaderc_get_spv_version(&spv_version, &spv_revision);
	char *head = NULL;
	int n =
	    asprintf(&head,
		     "%s\n%s glslang %s spv %u.%u\nentry %zu:%s\n"
		     "env vulkan1.1 spirv1.3\nopt performance\n"
		     "text %zu\n",
		     CACHE_FORMAT, AX_SHADERC_VERSION, AX_GLSLANG_VERSION,
		     spv_version, spv_revision, strlen(entry), entry, pre_len);
	if (n < 0)
		return AX_ENOMEM;
	char *buf = malloc((size_t)n + pre_len);
	if (!buf) {
		free(head);
		return AX_ENOMEM;
	}
	memcpy(buf, head, (size_t)n);
	memcpy(buf + n, pre, pre_len);
	ax_hash_hex(buf, (size_t)n + pre_len, key);
	free(buf);
	free(head);
	return 0;
}

/* ---- the entry point's name ------------------------------------------- */

/* shaderc names GLSL's entry point "main" whatever it is asked (glslang
 * renames only HLSL's), so another name is written into the module's
 * OpEntryPoint here: a literal string, packed 4 bytes a word, lowest byte
 * first, NUL-terminated.  0, AX_ENOMEM, or AX_ECOMPILE for a module whose
 * instruction lengths do not add up (never from shaderc). */
#define OP_ENTRY_POINT 15u

static int rename_entry(uint32_t **code, size_t *size, const char *entry)
{
	uint32_t *w = *code;
	size_t n = *size / 4, name_len = strlen(entry);
	size_t new_words = name_len / 4 + 1;
	for (size_t i = 5; i < n;) {
		size_t wc = w[i] >> 16, op = w[i] & 0xffffu;
		if (wc == 0 || wc > n - i)
			return AX_ECOMPILE;
		if (op != OP_ENTRY_POINT) {
			i += wc;
			continue;
		}
		/* Words i+3.. hold the old name up to a word with a NUL. */
		size_t old_words = 0;
		for (size_t k = i + 3; k < i + wc; k++) {
			old_words++;
			uint32_t v = w[k];
			if (!(v & 0xffu) || !(v & 0xff00u) ||
			    !(v & 0xff0000u) || !(v & 0xff000000u))
				break;
		}
		size_t rest = wc - 3 - old_words; /* interface ids */
		size_t nwc = 3 + new_words + rest;
		if (nwc > 0xffffu)
			return AX_ECOMPILE;
		size_t nn = n - wc + nwc;
		uint32_t *out = calloc(nn, 4);
		if (!out)
			return AX_ENOMEM;
		memcpy(out, w, i * 4);
		out[i] = (uint32_t)(nwc << 16 | OP_ENTRY_POINT);
		out[i + 1] = w[i + 1]; /* execution model */
		out[i + 2] = w[i + 2]; /* the function's id */
		for (size_t b = 0; b < name_len; b++)
			out[i + 3 + b / 4] |= (uint32_t)(unsigned char)entry[b]
					      << (8 * (b % 4));
		memcpy(out + i + 3 + new_words, w + i + 3 + old_words,
		       rest * 4);
		memcpy(out + i + nwc, w + i + wc, (n - i - wc) * 4);
		free(w);
		*code = w = out;
		*size = nn * 4;
		n = nn;
		i += nwc;
	}
	return 0;
}

/* ---- compiling ---------------------------------------------------------- */

/* One compiler for the process, never released: glslang builds its
 * built-in symbol tables once per process while a compiler is alive
 * (about 0.2 s on a fast core), and releasing the last compiler throws
 * them away.  shaderc's compile calls may run on several threads at once. */
static shaderc_compiler_t compiler_once;
static pthread_once_t compiler_init = PTHREAD_ONCE_INIT;

static void init_compiler(void)
{
	compiler_once = shaderc_compiler_initialize();
}

static shaderc_compiler_t the_compiler(void)
{
	pthread_once(&compiler_init, init_compiler);
	return compiler_once;
}

static bool is_identifier(const char *s)
{
	if (!s || !(*s == '_' || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= 'a' && *s <= 'z')))
		return false;
	for (s++; *s; s++)
		if (!(*s == '_' || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/* shaderc's messages as they are ("path:LINE: error: ..."), every one of
 * them, without the trailing newline; cut by ax_errf if too long. */
static int result_error(shaderc_compilation_result_t res, const char *path,
			const char *what, char *err, size_t errlen)
{
	if (!res)
		return ax_errf(err, errlen, AX_ENOMEM,
			       "%s: shaderc could not allocate a %s", path,
			       what);
	const char *msg = shaderc_result_get_error_message(res);
	size_t n = msg ? strlen(msg) : 0;
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		n--;
	if (n)
		return ax_errf(err, errlen, AX_ECOMPILE, "%.*s", (int)n, msg);
	return ax_errf(err, errlen, AX_ECOMPILE,
		       "%s: shaderc's %s failed (status %d) without a message",
		       path, what,
		       (int)shaderc_result_get_compilation_status(res));
}

static bool failed(shaderc_compilation_result_t res)
{
	return !res || shaderc_result_get_compilation_status(res) !=
			   shaderc_compilation_status_success;
}

/* A bound entry point name and defines that are names. */
static int check_args(const char *path, const char *entry,
		      const struct ax_glsl_define *defs, int n_defs, char *err,
		      size_t errlen)
{
	/* Vulkan takes any string; a bound keeps it out of the way of the
	 * module's 16-bit instruction lengths and of messages. */
	if (!*entry || strlen(entry) > MAX_ENTRY_BYTES)
		return ax_errf(err, errlen, AX_EINVAL,
			       "%s: entry point name \"%.64s\" must be 1 to %d "
			       "bytes",
			       path, entry, MAX_ENTRY_BYTES);
	for (int i = 0; i < n_defs; i++)
		if (!is_identifier(defs[i].name))
			return ax_errf(err, errlen, AX_EINVAL,
				       "%s: define \"%s\" is not a name "
				       "(letters, digits and _, not starting "
				       "with a digit)",
				       path, defs[i].name ? defs[i].name : "");
	return 0;
}

/* One compilation's inputs and the shaderc objects it holds. */
struct job {
	const char *path, *source, *entry;
	size_t len;
	shaderc_compiler_t compiler;
	/* opt: the target; opt_pp: the target and the defines. */
	shaderc_compile_options_t opt, opt_pp;
	struct includer inc;
	char *err;
	size_t errlen;
};

/* The compiler and both option sets, those glslc --target-env=vulkan1.1
 * would use. */
static int job_start(struct job *j, const struct ax_glsl_define *defs,
		     int n_defs)
{
	j->compiler = the_compiler();
	j->opt = shaderc_compile_options_initialize();
	if (!j->compiler || !j->opt)
		return ax_errf(j->err, j->errlen, AX_ENOMEM,
			       "%s: shaderc could not start (out of memory)",
			       j->path);
	shaderc_compile_options_t opt = j->opt;
	shaderc_compile_options_set_source_language(
	    opt, shaderc_source_language_glsl);
	shaderc_compile_options_set_target_env(opt, shaderc_target_env_vulkan,
					       shaderc_env_version_vulkan_1_1);
	/* What glslc --target-env=vulkan1.1 picks, said outright. */
	shaderc_compile_options_set_target_spirv(opt,
						 shaderc_spirv_version_1_3);
	shaderc_compile_options_set_optimization_level(
	    opt, shaderc_optimization_level_performance);
	shaderc_compile_options_set_include_callbacks(opt, resolve, release,
						      &j->inc);
	j->opt_pp = shaderc_compile_options_clone(opt);
	if (!j->opt_pp)
		return ax_errf(j->err, j->errlen, AX_ENOMEM,
			       "%s: out of memory", j->path);
	for (int i = 0; i < n_defs; i++)
		shaderc_compile_options_add_macro_definition(
		    j->opt_pp, defs[i].name, strlen(defs[i].name),
		    defs[i].value, defs[i].value ? strlen(defs[i].value) : 0);
	return 0;
}

static void job_end(struct job *j)
{
	includer_reset(&j->inc);
	if (j->opt_pp)
		shaderc_compile_options_release(j->opt_pp);
	if (j->opt)
		shaderc_compile_options_release(j->opt);
}

/* A failed compilation's messages from the source as the user wrote it,
 * so that they name the files and lines they see (#line directives in
 * the text do the same in every case seen; this does not depend on
 * it). */
static int compile_error(struct job *j, shaderc_compilation_result_t res)
{
	includer_reset(&j->inc);
	shaderc_compilation_result_t orig = shaderc_compile_into_spv(
	    j->compiler, j->source, j->len, shaderc_compute_shader, j->path,
	    j->entry, j->opt_pp);
	int rc = result_error(orig && failed(orig) ? orig : res, j->path,
			      "compilation", j->err, j->errlen);
	if (orig)
		shaderc_result_release(orig);
	return rc;
}

/* The SPIR-V of the preprocessed text, its entry point renamed, in a
 * malloc'd *code of out->size bytes. */
static int compile_spirv(struct job *j, shaderc_compilation_result_t pre,
			 struct ax_glsl_spirv *out, uint32_t **code)
{
	/* The preprocessed text itself, the very text the key hashes: an
	 * included file edited meanwhile cannot end up cached under the old
	 * text's key.  Without the defines (opt, not opt_pp): they are
	 * expanded already, and expanding again would change a name the
	 * kernel #undef'd and reused. */
	shaderc_compilation_result_t res = shaderc_compile_into_spv(
	    j->compiler, shaderc_result_get_bytes(pre),
	    shaderc_result_get_length(pre), shaderc_compute_shader, j->path,
	    j->entry, j->opt);
	int rc = 0;
	if (failed(res)) {
		rc = compile_error(j, res);
	} else {
		out->size = shaderc_result_get_length(res);
		*code = malloc(out->size ? out->size : 1);
		if (*code)
			memcpy(*code, shaderc_result_get_bytes(res), out->size);
		else
			rc = ax_errf(j->err, j->errlen, AX_ENOMEM,
				     "%s: out of memory for %zu bytes of "
				     "SPIR-V",
				     j->path, out->size);
	}
	if (res)
		shaderc_result_release(res);
	if (!rc && strcmp(j->entry, "main") != 0 &&
	    (rc = rename_entry(code, &out->size, j->entry)))
		ax_errf(j->err, j->errlen, rc,
			"%s: %s naming the entry point \"%s\"", j->path,
			rc == AX_ENOMEM ? "out of memory"
					: "malformed SPIR-V from shaderc",
			j->entry);
	return rc;
}

/* The preprocessed text (with the defines) and the cache key of it. */
static int preprocess(struct job *j, shaderc_compilation_result_t *pre,
		      struct ax_glsl_spirv *out)
{
	*pre = shaderc_compile_into_preprocessed_text(
	    j->compiler, j->source, j->len, shaderc_compute_shader, j->path,
	    j->entry, j->opt_pp);
	if (failed(*pre))
		return result_error(*pre, j->path, "preprocessing", j->err,
				    j->errlen);
	int rc = cache_key(shaderc_result_get_bytes(*pre),
			   shaderc_result_get_length(*pre), j->entry, out->key);
	if (rc)
		ax_errf(j->err, j->errlen, rc, "%s: out of memory", j->path);
	return rc;
}

/* out's SPIR-V from the cache under out->key, or compiled and cached. */
static int cached_or_compiled(struct job *j, shaderc_compilation_result_t pre,
			      struct ax_glsl_spirv *out)
{
	char dir[480], file[512];
	uint32_t *code = NULL;
	int rc = 0;
	bool have_dir = cache_dir(dir, sizeof(dir));
	if (have_dir)
		snprintf(file, sizeof(file), "%s/%s.spv", dir, out->key);
	const char *no_cache = getenv("AXBENCH_NO_SPIRV_CACHE");
	bool read_cache = !(no_cache && strcmp(no_cache, "1") == 0);
	if (have_dir && read_cache &&
	    (code = cache_read(file, &out->size)) != NULL)
		out->cached = true;
	else if (!(rc = compile_spirv(j, pre, out, &code)) && have_dir)
		cache_write(dir, file, code, out->size);
	if (rc) {
		free(code);
		return rc;
	}
	out->code = code;
	ax_hash_hex(out->code, out->size, out->hash);
	return 0;
}

int ax_glsl_compile(const char *path, const char *source, size_t len,
		    const char *entry, const struct ax_glsl_define *defs,
		    int n_defs, struct ax_glsl_spirv *out, char *err,
		    size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (!path)
		path = "(GLSL source)";
	if (!entry)
		entry = "main";
	int rc = check_args(path, entry, defs, n_defs, err, errlen);
	if (rc)
		return rc;
	double t0 = now_ms();
	struct job j = {.path = path,
			.source = source,
			.entry = entry,
			.len = len,
			.err = err,
			.errlen = errlen};
	shaderc_compilation_result_t pre = NULL;
	if (!(rc = job_start(&j, defs, n_defs)) &&
	    !(rc = preprocess(&j, &pre, out)))
		rc = cached_or_compiled(&j, pre, out);
	if (pre)
		shaderc_result_release(pre);
	job_end(&j);
	out->compile_ms = now_ms() - t0;
	if (rc) {
		out->size = 0;
		out->key[0] = '\0';
	}
	return rc;
}

void ax_glsl_spirv_free(struct ax_glsl_spirv *s)
{
	if (!s)
		return;
	free(s->code);
	memset(s, 0, sizeof(*s));
}
