/* suites/data.c - fp16 conversion and float uploads shared by suites. */
#include "suites/data.h"

#include "core/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint16_t ax_half_from_float(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	uint32_t sign = (u >> 16) & 0x8000u;
	uint32_t absu = u & 0x7fffffffu;
	if (absu >= 0x7f800000u) /* infinity or NaN */
		return (uint16_t)(sign | 0x7c00u |
				  (absu > 0x7f800000u ? 0x200u : 0));
	if (absu >= 0x477ff000u) /* rounds to >= 65520: overflow */
		return (uint16_t)(sign | 0x7c00u);
	if (absu < 0x38800000u) { /* subnormal half (or zero) */
		/* Scale by 2^24 in float, which rounds to nearest even. */
		float a;
		memcpy(&a, &absu, sizeof(a));
		return (uint16_t)(sign | (uint32_t)lrintf(a * 16777216.0f));
	}
	uint32_t mant = absu & 0x7fffffu;
	uint32_t exp = (absu >> 23) - 127 + 15;
	uint32_t h = (exp << 10) | (mant >> 13);
	uint32_t rem = mant & 0x1fffu;
	/* Round to nearest, ties to even; a carry into the exponent is the
	 * correct result. */
	if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
		h++;
	return (uint16_t)(sign | h);
}

float ax_half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
	float f;
	if (exp == 0) {
		f = ldexpf((float)mant, -24);
		return sign ? -f : f;
	}
	uint32_t u = exp == 31 ? sign | 0x7f800000u | (mant << 13)
			       : sign | ((exp - 15 + 127) << 23) | (mant << 13);
	memcpy(&f, &u, sizeof(f));
	return f;
}

int ax_suite_upload_floats(struct ax_vk_ctx *vk, struct ax_vk_buffer *b,
			   const float *src, size_t n, bool f16)
{
	size_t esz = f16 ? 2 : 4;
	/* Also a uniform texel buffer: conv share=subgroup reads through
	 * texel views. */
	int rc =
	    ax_vk_buffer_create(vk, n * esz,
				VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
				    VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT,
				AX_MEM_DEVICE, b);
	if (rc || !src)
		return rc;
	if (!f16)
		return ax_vk_upload(vk, b, 0, src, n * esz);
	uint16_t *h = malloc(n * esz);
	if (!h)
		return AX_ENOMEM;
	for (size_t i = 0; i < n; i++)
		h[i] = ax_half_from_float(src[i]);
	rc = ax_vk_upload(vk, b, 0, h, n * esz);
	free(h);
	return rc;
}
