/* core/hash.c - 64-bit FNV-1a (see hash.h). */
#include "core/hash.h"

#include <inttypes.h>
#include <stdio.h>

uint64_t ax_hash64(const void *data, size_t len)
{
	const unsigned char *b = data;
	uint64_t h = UINT64_C(1469598103934665603);
	for (size_t i = 0; i < len; i++) {
		h ^= b[i];
		h *= UINT64_C(1099511628211);
	}
	return h;
}

void ax_hash_hex(const void *data, size_t len, char hex[17])
{
	snprintf(hex, 17, "%016" PRIx64, ax_hash64(data, len));
}
