/*
 * suites/kernel.h - a user's own compute shader as a suite.
 *
 * ax_kernel_load reads a description file (core/kernel_desc.h), reads
 * the GLSL source and builds a `struct ax_suite` named "kernel:NAME"
 * whose parameter table comes from the file.  Registered (suites/
 * registry.h), it goes through the same runner, session, database, tuner
 * and reports as the built-in suites.  Per case the shader is compiled
 * with libshaderc (core/glsl.h: parameters become -D defines or
 * specialization constants; the SPIR-V is cached), its buffers are
 * created and filled as the file says, and verify() runs one dispatch
 * on fresh inputs and compares every output with the reference
 * configuration's output (or the buffer's expect file) within
 * atol + rtol * |expected|.
 *
 * The suite's hooks take only a point (struct ax_params), so they find
 * their kernel from the point's parameter table, which is a member of
 * struct ax_kernel (container_of): no global state, and two kernels can
 * be loaded at once.
 */
#ifndef AX_SUITES_KERNEL_H
#define AX_SUITES_KERNEL_H

#include "suites/suite.h"

#include <stddef.h>

#define AX_KERNEL_SUITE_PREFIX "kernel:"

struct ax_kernel;

/* Load the description at path and its shader source; AX_ECONFIG /
 * AX_EIO with FILE:LINE:COL or FILE: reason in err. */
int ax_kernel_load(const char *path, struct ax_kernel **out, char *err,
		   size_t errlen);
/* Unregisters the suite if it was registered. */
void ax_kernel_free(struct ax_kernel *k);

const struct ax_suite *ax_kernel_suite(const struct ax_kernel *k);

/* The point verify.reference names for the case p (its shape, the
 * reference's knobs). */
void ax_kernel_reference_point(const struct ax_kernel *k,
			       const struct ax_params *p,
			       struct ax_params *ref);

/* The description file's path and the shader's. */
const char *ax_kernel_path(const struct ax_kernel *k);
const char *ax_kernel_shader_path(const struct ax_kernel *k);

#endif
