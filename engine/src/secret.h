/*
 * Sealing of secret values at rest (environment variable values).
 *
 * A value is encrypted with AES-256-GCM under one random 32-byte key kept in
 * the data directory, in the file secret.key (mode 0600), beside the
 * database. The key file is created on the first seal; it is never
 * overwritten, so a key file of the wrong size is an error rather than a
 * reason to make a new key (which would make every sealed value unreadable).
 *
 * A sealed blob is nonce (12 random bytes) | ciphertext | tag (16 bytes).
 * Opening verifies the tag, so a blob that was changed, sealed under another
 * key, or sealed for another context (the associated data) is reported as
 * LEC_ECORRUPT and never yields garbage.
 */
#ifndef LECTERN_SECRET_H
#define LECTERN_SECRET_H

#include <stddef.h>

#include "store_internal.h"

/* File name of the key inside the data directory. */
#define LEC__SECRET_KEY_FILE "secret.key"
/* AES-256 key. */
#define LEC__SECRET_KEY_LEN 32
/* GCM's recommended nonce size: random per value, so never reused in
 * practice for the few values a project holds. */
#define LEC__SECRET_NONCE_LEN 12
/* Full-length GCM tag. */
#define LEC__SECRET_TAG_LEN 16
/* Bytes a sealed blob adds to its plaintext. */
#define LEC__SECRET_OVERHEAD (LEC__SECRET_NONCE_LEN + LEC__SECRET_TAG_LEN)

struct lec__secret_key {
	unsigned char bytes[LEC__SECRET_KEY_LEN];
};

/*
 * Load the key of the store's data directory into key.
 * create non-zero: make the key file (mode 0600) when it is missing; zero:
 * a missing key file is LEC_ECORRUPT (sealed values cannot be opened).
 * A key file of the wrong size or type is LEC_ECORRUPT and left untouched.
 * Wipe the key with lec__secret_key_wipe when done.
 */
int lec__secret_key_load(struct lec_store *st, int create,
			 struct lec__secret_key *key);

/* Overwrite the key's bytes. */
void lec__secret_key_wipe(struct lec__secret_key *key);

/*
 * Seal len bytes of plain. aad (may be NULL when aad_len is 0) is bound to
 * the blob without being stored: opening needs the same aad.
 * @param out the blob (owned by caller, lec__free), *out_len bytes
 */
int lec__secret_seal(const struct lec__secret_key *key, const void *plain,
		     size_t len, const void *aad, size_t aad_len,
		     unsigned char **out, size_t *out_len);

/*
 * Open a blob sealed by lec__secret_seal with the same aad.
 * @param out the plaintext plus a terminating NUL (owned by caller; free it
 *            with lec__secret_free(*out, *out_len + 1)), *out_len bytes
 * @return LEC_OK; LEC_ECORRUPT (tampered, truncated, another key or aad)
 */
int lec__secret_open(const struct lec__secret_key *key,
		     const unsigned char *blob, size_t len, const void *aad,
		     size_t aad_len, char **out, size_t *out_len);

/*
 * Seal a value kept in the store (a variable's value, an integration's
 * secret) with the data directory's key. The key file is created only while
 * no sealed value exists in any table: if it vanished under existing
 * values, a new key would hide that they are lost.
 */
int lec__secret_seal_stored(struct lec_store *st, const char *plain,
			    const void *aad, size_t aad_len,
			    unsigned char **out, size_t *out_len);

/* Wipe size bytes at p and free it. Accepts NULL. */
void lec__secret_free(void *p, size_t size);

/* The most characters of a secret made up for a resource. */
#define LEC__SECRET_MADE_MAX 64

/* The secret of an integration or a webhook being made: the sealed blob
 * its row stores and, when the caller asked, a copy of a made-up one to
 * show once. */
struct lec__new_secret {
	unsigned char *blob;
	size_t blob_len;
	char *made; /* NULL: a given secret, or a copy not asked for */
};

/* Seal the new secret with aad (as lec__secret_seal_stored does) into
 * *out: given, when the caller gave one (1 to max printable ASCII
 * characters, else LEC_EINVALID on field "secret"), else len (at most
 * LEC__SECRET_MADE_MAX) letters and digits made up, copied to out->made
 * when want_made. *out is always for lec__new_secret_end. */
int lec__secret_seal_new(struct lec_store *st, const char *given, size_t max,
			 size_t len, const void *aad, size_t aad_len,
			 int want_made, struct lec__new_secret *out);
/* The end of a creation whose outcome is error: on LEC_OK the made-up
 * secret goes to *secret_out (NULL: not asked for), else nowhere; what is
 * left is wiped and freed. */
void lec__new_secret_end(struct lec__new_secret *ns, int error,
			 char **secret_out);

#endif
