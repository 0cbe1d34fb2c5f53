/*
 * SHA-256 through OpenSSL's libcrypto (already present as libcurl's TLS
 * library) and random bytes through getrandom(2).
 */
#include <errno.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <string.h>
#include <sys/random.h>

#include "hash.h"
#include "internal.h"

uint64_t lec__fnv1a(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

void lec__hex(const unsigned char *bytes, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = digits[bytes[i] >> 4];
		out[2 * i + 1] = digits[bytes[i] & 0xf];
	}
	out[2 * len] = '\0';
}

int lec__hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Fetched once: an implicit fetch on every digest takes OpenSSL's global
 * locks, and every authenticated request hashes its token. */
static EVP_MD *sha256;

static void fetch_sha256(void)
{
	sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
}

int lec__sha256_hex(const void *data, size_t len,
		    char out[LEC__SHA256_HEX_LEN + 1])
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	pthread_once(&once, fetch_sha256);
	if (sha256 == NULL ||
	    EVP_Digest(data, len, digest, &n, sha256, NULL) != 1 ||
	    n != LEC__SHA256_HEX_LEN / 2)
		return lec__error(LEC_ERROR, "SHA-256 failed");
	lec__hex(digest, n, out);
	return LEC_OK;
}

int lec__random_bytes(void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len > 0) {
		ssize_t n = getrandom(p, len, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return lec__error(LEC_EIO, "getrandom: %s",
					  strerror(errno));
		}
		p += n;
		len -= (size_t)n;
	}
	return LEC_OK;
}
