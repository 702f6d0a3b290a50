/*
 * core/hash.h - the one hash: 64-bit FNV-1a.  A short, stable key for
 * identical texts and bytes (canonical parameter sets, shader SPIR-V,
 * device identities, case sets), never a security hash.
 */
#ifndef AX_HASH_H
#define AX_HASH_H

#include <stddef.h>
#include <stdint.h>

uint64_t ax_hash64(const void *data, size_t len);

/* ax_hash64 as 16 lowercase hex digits into hex[17]. */
void ax_hash_hex(const void *data, size_t len, char hex[17]);

#endif
