/*
 * suites/data.h - host-side data helpers the suites share: IEEE binary16
 * conversion (for the fp16 storage variants and their CPU references) and
 * uploading float arrays to new device buffers as fp32 or fp16.
 */
#ifndef AX_SUITE_DATA_H
#define AX_SUITE_DATA_H

#include "core/vk.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* IEEE binary16 from float: round to nearest even, overflow to infinity,
 * subnormals kept, NaN stays NaN. */
uint16_t ax_half_from_float(float f);
/* And back (exact). */
float ax_half_to_float(uint16_t h);

/*
 * Create a device-local storage buffer of n elements (4 bytes each, or 2
 * when f16) in *b and, when src is not NULL, upload src[0..n) into it,
 * converted to binary16 when f16.  AX_E* codes of ax_vk_buffer_create /
 * ax_vk_upload, or AX_ENOMEM.
 */
int ax_suite_upload_floats(struct ax_vk_ctx *vk, struct ax_vk_buffer *b,
			   const float *src, size_t n, bool f16);

#endif
