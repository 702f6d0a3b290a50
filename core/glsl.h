/*
 * core/glsl.h - a user's GLSL compute shader compiled at run time
 * (libshaderc), with a SPIR-V cache.
 *
 * User kernels map their parameters to #defines, so each configuration may
 * need its own compile; the cache makes a repeated configuration (the next
 * run, a tuner revisiting a point) cost a preprocess instead of a compile.
 * The target is what the Makefile builds the embedded shaders with
 * (glslc --target-env=vulkan1.1 -O): Vulkan 1.1, SPIR-V 1.3, optimised for
 * performance.  The first compile in a process also builds glslang's
 * built-in tables (about 0.2 s); later ones do not.  Thread-safe.
 *
 * The cache: $XDG_CACHE_HOME/axbench/spirv/KEY.spv (else
 * ~/.cache/axbench/spirv), the directory the pipeline cache lives in.  KEY
 * hashes the preprocessed text (so included files and define values are
 * covered; it is also the text compiled, so key and code always match),
 * the entry point, the target, the optimisation level, the compilers'
 * versions and a cache-format version.  Files are written
 * atomically and validated when read (a bad one is compiled again and
 * replaced); a cache that cannot be created or written only means no
 * cache.  AXBENCH_NO_SPIRV_CACHE=1 stops reading it (every call compiles;
 * results are still written).
 *
 * Only core/glsl*.c include <shaderc/shaderc.h>.
 */
#ifndef AX_GLSL_H
#define AX_GLSL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* -DNAME=VALUE; value NULL means defined empty (-DNAME). */
struct ax_glsl_define {
	const char *name;
	const char *value;
};

struct ax_glsl_spirv {
	uint32_t *code;	   /* malloc'd SPIR-V words */
	size_t size;	   /* bytes */
	char hash[17];	   /* ax_hash_hex of the SPIR-V (the shader hash) */
	char key[17];	   /* cache key (hex) */
	double compile_ms; /* wall time of preprocess + compile (a cache
			      hit: preprocess + read) */
	bool cached;	   /* came from the cache */
};

/*
 * Compile GLSL compute `source` (len bytes) read from `path` (named in
 * messages; #include "..." resolves against the including file's
 * directory; the caller has read the file).  entry: the SPIR-V entry point
 * name GLSL's main gets (NULL: "main"; shaderc leaves it "main", so
 * another name is written into the module's OpEntryPoint).  On success
 * *out owns the code (ax_glsl_spirv_free).
 *
 * AX_ECOMPILE with err = shaderc's messages, all of them ("path:LINE:
 * error: ...", cut to errlen), for preprocess and compile errors alike;
 * AX_EINVAL for a define name that is not an identifier or an entry name
 * that is empty or over 255 bytes; AX_ENOMEM.
 */
int ax_glsl_compile(const char *path, const char *source, size_t len,
		    const char *entry, const struct ax_glsl_define *defs,
		    int n_defs, struct ax_glsl_spirv *out, char *err,
		    size_t errlen);
void ax_glsl_spirv_free(struct ax_glsl_spirv *s);

#endif
