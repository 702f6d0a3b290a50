/*
 * shaders/spec_ids.h - the specialization-constant ids of every shader,
 * written once: the GLSL shaders use them in layout(constant_id = ...)
 * and the suites in struct ax_vk_spec, both by including this file.
 * Only #define lines and comments, which both languages read the same.
 */
#ifndef AX_SPEC_IDS_H
#define AX_SPEC_IDS_H

/* reduce.comp (suites/reduce.c) */
#define REDUCE_SPEC_WG 0  /* local_size_x */
#define REDUCE_SPEC_EPI 1 /* uvec4 loads per invocation */

#endif
