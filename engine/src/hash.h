/*
 * Hashing and randomness for secrets: SHA-256 of tokens (only the digest is
 * stored) and random bytes from the kernel.
 */
#ifndef LECTERN_HASH_H
#define LECTERN_HASH_H

#include <stddef.h>
#include <stdint.h>

#define LEC__SHA256_HEX_LEN 64

/* Hex SHA-256 of data into out (LEC__SHA256_HEX_LEN + 1 bytes). */
int lec__sha256_hex(const void *data, size_t len,
		    char out[LEC__SHA256_HEX_LEN + 1]);

/* Fill buf with cryptographically secure random bytes. */
int lec__random_bytes(void *buf, size_t len);

/* Hex-encode len bytes into out (2 * len + 1 bytes). */
void lec__hex(const unsigned char *bytes, size_t len, char *out);
/* The value of a hexadecimal digit (either case), -1 for another byte. */
int lec__hex_value(char c);

/* FNV-1a of len bytes: for hash tables and caches, where a collision
 * costs a comparison and no adversary gains from one; never for secrets. */
uint64_t lec__fnv1a(const void *data, size_t len);

#endif
