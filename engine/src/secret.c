/*
 * Sealing secret values with AES-256-GCM (OpenSSL's libcrypto) under a key
 * file in the data directory.
 *
 * The key file is created atomically: the key is written to a private
 * temporary file which is then hard-linked to secret.key. link() fails when
 * the name exists, so two processes racing to create the key agree on one,
 * and nobody ever reads a half-written key file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "hash.h"
#include "secret.h"

void lec__secret_free(void *p, size_t size)
{
	if (p == NULL)
		return;
	OPENSSL_cleanse(p, size);
	lec__free(p);
}

void lec__secret_key_wipe(struct lec__secret_key *key)
{
	OPENSSL_cleanse(key->bytes, sizeof(key->bytes));
}

static char *key_path(const struct lec_store *st, const char *suffix)
{
	struct lec__buf b = LEC__BUF_INIT;

	lec__buf_printf(&b, "%s/%s%s", st->data_dir, LEC__SECRET_KEY_FILE,
			suffix);
	return lec__buf_take(&b);
}

/* Read exactly the key from an existing file; anything else is refused. */
static int key_read(const char *path, struct lec__secret_key *key)
{
	struct stat sb;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	int error = LEC_OK;

	if (fd < 0)
		return errno == ENOENT ? LEC_ENOTFOUND
				       : lec__error(LEC_EIO, "%s: cannot read: %s",
						    path, strerror(errno));
	if (fstat(fd, &sb) < 0) {
		error = lec__error(LEC_EIO, "%s: %s", path, strerror(errno));
	} else if (!S_ISREG(sb.st_mode) ||
		   sb.st_size != LEC__SECRET_KEY_LEN) {
		error = lec__error(LEC_ECORRUPT,
				   "%s: not a %d-byte key file; refusing to "
				   "use or replace it (sealed values need the "
				   "original key)",
				   path, LEC__SECRET_KEY_LEN);
	} else {
		n = read(fd, key->bytes, sizeof(key->bytes));
		if (n != (ssize_t)sizeof(key->bytes))
			error = lec__error(LEC_EIO, "%s: short read", path);
	}
	close(fd);
	if (error < 0)
		lec__secret_key_wipe(key);
	return error;
}

/* Make the directory entry of a new key durable: losing the key after a
 * crash would lose every secret sealed with it. */
static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* Write a fresh key to a temporary file and link it in place. EEXIST from
 * link means another process made the key first: the caller re-reads. */
static int key_create(struct lec_store *st, const char *path)
{
	struct lec__secret_key fresh;
	char *tmp = key_path(st, ".XXXXXX");
	int fd = -1, error;

	LEC__CHECK_ALLOC(tmp);
	if ((error = lec__random_bytes(fresh.bytes, sizeof(fresh.bytes))) < 0)
		goto done;
	fd = mkstemp(tmp);
	if (fd < 0) {
		error = lec__error(errno == EACCES || errno == EROFS
					   ? LEC_EREADONLY
					   : LEC_EIO,
				   "%s: cannot create the key file: %s", path,
				   strerror(errno));
		goto done;
	}
	if (fchmod(fd, 0600) < 0 ||
	    lec__write_all(fd, fresh.bytes, sizeof(fresh.bytes)) < 0 ||
	    fsync(fd) < 0) {
		error = lec__error(LEC_EIO, "%s: cannot write the key: %s",
				   tmp, strerror(errno));
		goto done;
	}
	if (link(tmp, path) < 0 && errno != EEXIST) {
		error = lec__error(LEC_EIO, "%s: cannot install the key: %s",
				   path, strerror(errno));
		goto done;
	}
	sync_dir(st->data_dir);

done:
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	lec__secret_key_wipe(&fresh);
	lec__free(tmp);
	return error;
}

int lec__secret_key_load(struct lec_store *st, int create,
			 struct lec__secret_key *key)
{
	char *path = key_path(st, "");
	int error;

	LEC__CHECK_ALLOC(path);
	error = key_read(path, key);
	if (error == LEC_ENOTFOUND && create) {
		error = key_create(st, path);
		if (error == LEC_OK)
			error = key_read(path, key);
	}
	if (error == LEC_ENOTFOUND)
		error = lec__error(LEC_ECORRUPT,
				   "%s: the key file is missing; sealed values "
				   "cannot be opened",
				   path);
	lec__free(path);
	return error;
}

/* GCM with a 12-byte nonce needs no IV-length control: it is the default. */
static int gcm_init(EVP_CIPHER_CTX *ctx, int encrypt,
		    const struct lec__secret_key *key,
		    const unsigned char *nonce, const void *aad, size_t aad_len)
{
	int n = 0;

	if (EVP_CipherInit_ex(ctx, EVP_aes_256_gcm(), NULL, key->bytes, nonce,
			      encrypt) != 1)
		return -1;
	if (aad_len > 0 &&
	    EVP_CipherUpdate(ctx, NULL, &n, aad, (int)aad_len) != 1)
		return -1;
	return 0;
}

/* OpenSSL counts in int; sealed values are far smaller. */
static int too_long(size_t len, size_t aad_len)
{
	return len > (size_t)INT_MAX - LEC__SECRET_OVERHEAD ||
	       aad_len > (size_t)INT_MAX;
}

int lec__secret_seal(const struct lec__secret_key *key, const void *plain,
		     size_t len, const void *aad, size_t aad_len,
		     unsigned char **out, size_t *out_len)
{
	EVP_CIPHER_CTX *ctx = NULL;
	unsigned char *blob = NULL;
	int n = 0, fin = 0, error = LEC_OK;

	*out = NULL;
	*out_len = 0;
	if (too_long(len, aad_len))
		return lec__error(LEC_EINVALID, "secret value too long");
	blob = lec__malloc(len + LEC__SECRET_OVERHEAD);
	ctx = EVP_CIPHER_CTX_new();
	if (blob == NULL || ctx == NULL) {
		error = lec__error_oom();
		goto done;
	}
	if ((error = lec__random_bytes(blob, LEC__SECRET_NONCE_LEN)) < 0)
		goto done;
	if (gcm_init(ctx, 1, key, blob, aad, aad_len) < 0 ||
	    EVP_EncryptUpdate(ctx, blob + LEC__SECRET_NONCE_LEN, &n, plain,
			      (int)len) != 1 ||
	    EVP_EncryptFinal_ex(ctx, blob + LEC__SECRET_NONCE_LEN + n, &fin) !=
		    1 ||
	    (size_t)(n + fin) != len ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, LEC__SECRET_TAG_LEN,
				blob + LEC__SECRET_NONCE_LEN + len) != 1)
		error = lec__error(LEC_ERROR, "sealing a secret value failed");

done:
	EVP_CIPHER_CTX_free(ctx);
	if (error < 0) {
		lec__free(blob);
		return error;
	}
	*out = blob;
	*out_len = len + LEC__SECRET_OVERHEAD;
	return LEC_OK;
}

int lec__secret_open(const struct lec__secret_key *key,
		     const unsigned char *blob, size_t len, const void *aad,
		     size_t aad_len, char **out, size_t *out_len)
{
	EVP_CIPHER_CTX *ctx = NULL;
	unsigned char tag[LEC__SECRET_TAG_LEN];
	unsigned char *plain = NULL;
	size_t plain_len;
	int n = 0, fin = 0, error = LEC_OK;

	*out = NULL;
	*out_len = 0;
	if (len < LEC__SECRET_OVERHEAD || too_long(len, aad_len))
		return lec__error(LEC_ECORRUPT,
				  "a sealed secret value is truncated");
	plain_len = len - LEC__SECRET_OVERHEAD;
	memcpy(tag, blob + len - LEC__SECRET_TAG_LEN, sizeof(tag));
	plain = lec__malloc(plain_len + 1);
	ctx = EVP_CIPHER_CTX_new();
	if (plain == NULL || ctx == NULL) {
		error = lec__error_oom();
		goto done;
	}
	if (gcm_init(ctx, 0, key, blob, aad, aad_len) < 0 ||
	    EVP_DecryptUpdate(ctx, plain, &n, blob + LEC__SECRET_NONCE_LEN,
			      (int)plain_len) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, LEC__SECRET_TAG_LEN,
				tag) != 1 ||
	    EVP_DecryptFinal_ex(ctx, plain + n, &fin) != 1 ||
	    (size_t)(n + fin) != plain_len)
		error = lec__error(LEC_ECORRUPT,
				   "a sealed secret value cannot be opened: it "
				   "was altered or sealed with another key "
				   "(%s)",
				   LEC__SECRET_KEY_FILE);

done:
	EVP_CIPHER_CTX_free(ctx);
	if (error < 0) {
		lec__secret_free(plain, plain_len + 1);
		return error;
	}
	plain[plain_len] = '\0';
	*out = (char *)plain;
	*out_len = plain_len;
	return LEC_OK;
}

int lec__secret_seal_stored(struct lec_store *st, const char *plain,
			    const void *aad, size_t aad_len,
			    unsigned char **out, size_t *out_len)
{
	struct lec__secret_key key;
	int64_t sealed = 0;
	int error;

	if ((error = lec_store__query_int(
		     st,
		     "SELECT (SELECT count(*) FROM env_vars) + "
		     "(SELECT count(*) FROM integrations) + "
		     "(SELECT count(*) FROM webhooks)",
		     NULL, 0, "counting sealed values", &sealed, NULL)) < 0 ||
	    (error = lec__secret_key_load(st, sealed == 0, &key)) < 0)
		return error;
	error = lec__secret_seal(&key, plain, strlen(plain), aad, aad_len, out,
				 out_len);
	lec__secret_key_wipe(&key);
	return error;
}

/* Letters and digits, like the service's get_random_string; drawn without
 * bias. */
static int generate(char *out, size_t len)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz"
				       "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char bytes[64];
	size_t i = 0, j = 0;
	int error;

	while (i < len) {
		if (j == 0 && (error = lec__random_bytes(bytes,
							 sizeof(bytes))) < 0)
			return error;
		/* 248 = 62 * 4: larger bytes would favour some letters. */
		if (bytes[j] < 248)
			out[i++] = alphabet[bytes[j] % 62];
		j = (j + 1) % sizeof(bytes);
	}
	out[i] = '\0';
	explicit_bzero(bytes, sizeof(bytes));
	return LEC_OK;
}

/* A secret a caller gives: 1 to max printable ASCII characters. */
static int check_given(const char *secret, size_t max)
{
	size_t n = strlen(secret), i;

	if (n == 0 || n > max)
		return lec__error_field(LEC_EINVALID, "secret",
					"Ensure this field has 1 to %zu "
					"characters.",
					max);
	for (i = 0; i < n; i++)
		if (secret[i] < 0x21 || secret[i] > 0x7e)
			return lec__error_field(LEC_EINVALID, "secret",
						"Use printable ASCII characters "
						"only.");
	return LEC_OK;
}

int lec__secret_seal_new(struct lec_store *st, const char *given, size_t max,
			 size_t len, const void *aad, size_t aad_len,
			 int want_made, struct lec__new_secret *out)
{
	char generated[LEC__SECRET_MADE_MAX + 1];
	int error;

	memset(out, 0, sizeof(*out));
	if (!given && len > LEC__SECRET_MADE_MAX)
		return lec__error(LEC_ERROR, "a made-up secret has at most %d "
					     "characters",
				  LEC__SECRET_MADE_MAX);
	error = given ? check_given(given, max) : generate(generated, len);
	if (error == LEC_OK)
		error = lec__secret_seal_stored(st, given ? given : generated,
						aad, aad_len, &out->blob,
						&out->blob_len);
	if (error == LEC_OK && want_made && !given &&
	    (out->made = lec__strdup(generated)) == NULL)
		error = lec__error_oom();
	explicit_bzero(generated, sizeof(generated));
	return error;
}

void lec__new_secret_end(struct lec__new_secret *ns, int error,
			 char **secret_out)
{
	if (error == LEC_OK && secret_out) {
		*secret_out = ns->made;
		ns->made = NULL;
	}
	lec__secret_free(ns->made, ns->made ? strlen(ns->made) : 0);
	lec__free(ns->blob);
	memset(ns, 0, sizeof(*ns));
}
