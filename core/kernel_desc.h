/*
 * core/kernel_desc.h - a user kernel's description file, read from YAML
 * (schema axbench.kernel/v1; docs/KERNELS.md is the user's guide).
 *
 *   schema: axbench.kernel/v1
 *   name: transpose                # [a-z0-9_-], 1-32; suite kernel:NAME
 *   description: "..."             # optional
 *   shader:
 *     file: transpose.comp         # GLSL, relative to this file
 *     entry: main                  # optional SPIR-V entry point
 *     defines: {PAD: 1}            # optional fixed defines
 *   params:                        # at most AX_MAX_PARAMS
 *     n:    {values: [256, 1024], shape: true}
 *     tile: {values: [8, 16, 32], default: 16, tunable: true,
 *            define: TILE}         # -DTILE=16 per configuration
 *     rows: {range: 1..8, tunable: true, spec_id: 1}
 *   constraints:                   # expressions that must be non-zero
 *     - tile % rows == 0
 *     - (tile + 1) * tile * 4 <= max_shared_memory
 *   buffers:                       # binding = position in this list
 *     - {name: src, type: float, elements: n * n, init: random,
 *        seed: 1, role: in}
 *     - {name: dst, type: float, elements: n * n, role: out,
 *        atol: 0, rtol: 0}
 *   push_constants:                # 4 bytes each, in this order
 *     - {name: n, type: uint, value: n}
 *   dispatch: [n / tile, n / tile, 1]
 *   work: {bytes: 2 * n * n * 4}   # and/or flops; neither: timed in us
 *   verify:
 *     reference: {tile: 8, rows: 1}
 *
 * Expressions (core/expr.h) name parameters and the device limits in
 * ax_kernel_device_vars.  Every error is "FILE:LINE:COL: message" at the
 * offending key or value, AX_ECONFIG (AX_EIO for an unreadable file).
 */
#ifndef AX_KERNEL_DESC_H
#define AX_KERNEL_DESC_H

#include "core/expr.h"
#include "core/params.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AX_KERNEL_SCHEMA "axbench.kernel/v1"
#define AX_KERNEL_NAME_MAX 32
#define AX_KERNEL_MAX_BUFFERS 16 /* storage-buffer bindings */
#define AX_KERNEL_MAX_PUSH                                                     \
	32 /* 4-byte push constants: 128 bytes, the                            \
	      least every device must offer */
#define AX_KERNEL_MAX_DEFINES 64
#define AX_KERNEL_MAX_CONSTRAINTS 64
/* The tuner keeps at most 64 levels of one parameter (tuner/space.c). */
#define AX_KERNEL_MAX_TUNABLE_VALUES 64

/* The device limits expressions may name, NULL-terminated:
 * max_shared_memory, max_invocations, max_group_size_x/y/z,
 * max_group_count_x/y/z, subgroup_size, max_buffer_range. */
extern const char *const ax_kernel_device_vars[];

enum ax_kernel_type { AX_KTYPE_FLOAT, AX_KTYPE_INT, AX_KTYPE_UINT };
enum ax_kernel_init {
	AX_KINIT_ZEROS,
	AX_KINIT_RANDOM, /* float: uniform [-1, 1); int/uint: [0, 1000) */
	AX_KINIT_IOTA,	 /* 0, 1, 2 ... */
	AX_KINIT_FILE,	 /* raw little-endian words */
};
enum ax_kernel_role { AX_KROLE_IN, AX_KROLE_OUT, AX_KROLE_INOUT };

/* "float", "int", "uint" / "zeros" ... / "in", "out", "inout". */
const char *ax_kernel_type_name(enum ax_kernel_type t);
const char *ax_kernel_init_name(enum ax_kernel_init i);
const char *ax_kernel_role_name(enum ax_kernel_role r);

/* A 1-based place in the description file, for messages at run time. */
struct ax_kernel_pos {
	int line, col;
};

struct ax_kernel_param {
	char *name;
	int64_t *values; /* ascending, distinct */
	int n_values;
	int64_t def;
	bool tunable, shape;
	char *define; /* NULL: none */
	int spec_id;  /* -1: none */
	char *help;   /* NULL: none */
};

struct ax_kernel_define {
	char *name, *value;
};

struct ax_kernel_expr {
	struct ax_expr *e;
	struct ax_kernel_pos pos;
};

struct ax_kernel_buffer {
	char *name;
	struct ax_kernel_pos pos; /* of its entry */
	enum ax_kernel_type type;
	struct ax_kernel_expr elements;
	enum ax_kernel_init init;
	uint64_t seed;
	char *file; /* AX_KINIT_FILE: resolved path */
	enum ax_kernel_role role;
	double atol, rtol; /* out / inout */
	char *expect;	   /* out / inout: a file of the expected words
			      (resolved path), or NULL */
};

struct ax_kernel_push {
	char *name;
	enum ax_kernel_type type;
	struct ax_kernel_expr value;
};

struct ax_kernel_desc {
	char *path, *name, *description;
	char *shader_path; /* resolved against the file's directory */
	char *entry;	   /* "main" unless given */
	struct ax_kernel_define defines[AX_KERNEL_MAX_DEFINES];
	int n_defines;
	struct ax_kernel_param params[AX_MAX_PARAMS];
	int n_params;
	struct ax_kernel_expr constraints[AX_KERNEL_MAX_CONSTRAINTS];
	int n_constraints;
	struct ax_kernel_buffer buffers[AX_KERNEL_MAX_BUFFERS];
	int n_buffers;
	struct ax_kernel_push push[AX_KERNEL_MAX_PUSH];
	int n_push;
	struct ax_kernel_expr dispatch[3];  /* missing ones are NULL (1) */
	struct ax_kernel_expr flops, bytes; /* NULL when not given */
	/* verify.reference: the parameters it sets (others follow the
	 * case); has_reference false when only expect files verify. */
	bool has_reference;
	bool ref_set[AX_MAX_PARAMS];
	int64_t ref_value[AX_MAX_PARAMS];
};

/* Read and validate the file at path.  *out is the caller's to
 * ax_kernel_desc_free. */
int ax_kernel_desc_load(const char *path, struct ax_kernel_desc **out,
			char *err, size_t errlen);
/* As ax_kernel_desc_load, from text[0..len); name stands for the path
 * (relative files resolve against its directory). */
int ax_kernel_desc_parse(const char *text, size_t len, const char *name,
			 struct ax_kernel_desc **out, char *err, size_t errlen);
void ax_kernel_desc_free(struct ax_kernel_desc *d);

#endif
