/*
 * Environment variables and the sealing of their values: validation with
 * the service's messages, the size limits at their boundaries, the value
 * never stored in clear, decryption for builds (public-only filter, order),
 * and that a tampered blob, a blob moved to another project, a wrong,
 * missing or malformed key are clear LEC_ECORRUPT errors. Also the key
 * file's creation (mode 0600) and the secret module's own round trips.
 */
#include <fcntl.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "internal.h"
#include "lectern/envvar.h"
#include "secret.h"
#include "store_internal.h"

/* A string of n copies of the UTF-8 character c (owned; free()). */
static char *repeat(const char *c, size_t n)
{
	size_t w = strlen(c), i;
	char *s = malloc(n * w + 1);

	for (i = 0; i < n; i++)
		memcpy(s + i * w, c, w);
	s[n * w] = '\0';
	return s;
}

static char *key_file(struct lec_store *st)
{
	char *path = NULL;

	if (asprintf(&path, "%s/%s", st->data_dir, LEC__SECRET_KEY_FILE) < 0)
		exit(2);
	return path;
}

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		FAIL_AT("cannot write %s", path);
	if (fd >= 0)
		close(fd);
}

static void check_field_error(int rc, int code, const char *field,
			      const char *message, int line)
{
	const char *got = lec_error_last_field();

	if (rc != code)
		FAIL_AT("line %d: returned %d (%s), expected %d", line, rc,
			lec_error_last(), code);
	if (strcmp(lec_error_last(), message) != 0)
		FAIL_AT("line %d: message \"%s\", expected \"%s\"", line,
			lec_error_last(), message);
	if ((field == NULL) != (got == NULL) ||
	    (field && strcmp(field, got) != 0))
		FAIL_AT("line %d: field %s, expected %s", line,
			got ? got : "(none)", field ? field : "(none)");
}

#define CHECK_FIELD_ERROR(expr, code, field, message)                        \
	check_field_error((expr), code, field, message, __LINE__)

TEST(create_get_list_delete)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	int64_t other = lec_test_project(st, "other");
	struct lec_envvar *v = NULL, *again = NULL;
	struct lec_envvar_list list = { 0 };
	struct lec_page page = { 2, 1 };
	int64_t first;

	CHECK_OK(lec_envvar_create(st, p, "TOKEN", "s3cret", 0, &v));
	CHECK(v && v->id > 0);
	CHECK_INT(v->project_id, p);
	CHECK_STR(v->name, "TOKEN");
	CHECK_INT(v->is_public, 0);
	CHECK(v->created > 0 && v->modified == v->created);
	first = v->id;
	CHECK_OK(lec_envvar_get(st, p, first, &again));
	CHECK_STR(again->name, "TOKEN");
	lec_envvar_free(again);
	CHECK_ERR(lec_envvar_get(st, other, first, &again), LEC_ENOTFOUND);
	CHECK_STR(lec_error_last(),
		  "No EnvironmentVariable matches the given query.");
	CHECK(again == NULL);
	lec_envvar_free(v);

	/* Duplicates are allowed; the list is in creation order. */
	CHECK_OK(lec_envvar_create(st, p, "TOKEN", "again", 1, &v));
	CHECK_INT(v->is_public, 1);
	lec_envvar_free(v);
	CHECK_OK(lec_envvar_create(st, p, "A", "1", 0, NULL));
	CHECK_OK(lec_envvar_create(st, p, "B", "2", 0, NULL));
	CHECK_OK(lec_envvar_create(st, other, "C", "3", 0, NULL));
	CHECK_OK(lec_envvar_list(st, p, NULL, &list));
	CHECK_INT(list.len, 4);
	CHECK_INT(list.total, 4);
	CHECK_STR(list.items[0].name, "TOKEN");
	CHECK_STR(list.items[1].name, "TOKEN");
	CHECK_STR(list.items[2].name, "A");
	CHECK_STR(list.items[3].name, "B");
	lec_envvar_list_dispose(&list);
	CHECK_OK(lec_envvar_list(st, p, &page, &list));
	CHECK_INT(list.len, 2);
	CHECK_INT(list.total, 4);
	CHECK_STR(list.items[0].name, "TOKEN");
	CHECK_INT(list.items[0].is_public, 1);
	CHECK_STR(list.items[1].name, "A");
	lec_envvar_list_dispose(&list);

	CHECK_ERR(lec_envvar_delete(st, other, first), LEC_ENOTFOUND);
	CHECK_OK(lec_envvar_delete(st, p, first));
	CHECK_ERR(lec_envvar_delete(st, p, first), LEC_ENOTFOUND);
	CHECK_ERR(lec_envvar_get(st, p, first, &v), LEC_ENOTFOUND);
	CHECK_OK(lec_envvar_list(st, p, NULL, &list));
	CHECK_INT(list.total, 3);
	lec_envvar_list_dispose(&list);

	CHECK_ERR(lec_envvar_create(st, 9999, "X", "y", 0, NULL),
		  LEC_ENOTFOUND);
	CHECK_OK(lec_store__exec(st, "DELETE FROM projects"));
	CHECK_OK(lec_envvar_list(st, p, NULL, &list));
	CHECK_INT(list.total, 0);
	lec_envvar_list_dispose(&list);
	lec_store_free(st);
}

TEST(validation_messages_and_lengths)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	char *name = repeat("n", LEC_ENVVAR_NAME_MAX + 1);
	char *wide = repeat("\xc3\xa9", LEC_ENVVAR_NAME_MAX);
	char *value = repeat("v", LEC_ENVVAR_VALUE_MAX + 1);
	char *wide_value = repeat("\xe2\x82\xac", LEC_ENVVAR_VALUE_MAX);
	struct lec_envvar_list list = { 0 };

	CHECK_FIELD_ERROR(lec_envvar_create(st, p, NULL, "v", 0, NULL),
			  LEC_EINVALID, "name", "This field is required.");
	CHECK_FIELD_ERROR(lec_envvar_create(st, p, "", "v", 0, NULL),
			  LEC_EINVALID, "name",
			  "This field may not be blank.");
	CHECK_FIELD_ERROR(lec_envvar_create(st, p, name, "v", 0, NULL),
			  LEC_EINVALID, "name",
			  "Ensure this field has no more than 128 characters.");
	CHECK_FIELD_ERROR(lec_envvar_create(st, p, "N", NULL, 0, NULL),
			  LEC_EINVALID, "value", "This field is required.");
	CHECK_FIELD_ERROR(lec_envvar_create(st, p, "N", "", 0, NULL),
			  LEC_EINVALID, "value",
			  "This field may not be blank.");
	CHECK_FIELD_ERROR(lec_envvar_create(st, p, "N", value, 0, NULL),
			  LEC_EINVALID, "value",
			  "Ensure this field has no more than 48000 "
			  "characters.");
	CHECK_OK(lec_envvar_list(st, p, NULL, &list));
	CHECK_INT(list.total, 0);
	lec_envvar_list_dispose(&list);

	/* The boundaries, counted in characters, not bytes. */
	name[LEC_ENVVAR_NAME_MAX] = '\0';
	CHECK_OK(lec_envvar_create(st, p, name, "v", 0, NULL));
	CHECK_OK(lec_envvar_create(st, p, wide, "v", 0, NULL));
	value[LEC_ENVVAR_VALUE_MAX] = '\0';
	CHECK_OK(lec_envvar_create(st, p, "N", value, 0, NULL));
	CHECK_OK(lec_envvar_create(st, p, "W", wide_value, 0, NULL));
	/* Stored as given: no shell quoting, spaces and quotes kept. */
	CHECK_OK(lec_envvar_create(st, p, "Q", "a b 'c'", 0, NULL));
	free(name);
	free(wide);
	free(value);
	free(wide_value);
	lec_store_free(st);
}

static int64_t stored_size(struct lec_store *st, const char *name)
{
	sqlite3_stmt *stmt = NULL;
	int64_t n = -1;

	sqlite3_prepare_v2(st->db,
			   "SELECT value_size FROM env_vars WHERE name = ?", -1,
			   &stmt, NULL);
	sqlite3_bind_text(stmt, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) == SQLITE_ROW)
		n = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	return n;
}

TEST(project_total_limit)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	int64_t other = lec_test_project(st, "other");
	char *big = repeat("x", LEC_ENVVAR_VALUE_MAX);
	char *rest = repeat("\xc3\xa9", LEC_ENVVAR_PROJECT_TOTAL_MAX -
						 5 * LEC_ENVVAR_VALUE_MAX);
	struct lec_envvar_list list = { 0 };
	int i;

	for (i = 0; i < 5; i++)
		CHECK_OK(lec_envvar_create(st, p, "BIG", big, 0, NULL));
	CHECK_INT(stored_size(st, "BIG"), LEC_ENVVAR_VALUE_MAX);
	/* 240000 + 16000 two-byte characters = exactly 256000. */
	CHECK_OK(lec_envvar_create(st, p, "REST", rest, 0, NULL));
	CHECK_INT(stored_size(st, "REST"),
		  LEC_ENVVAR_PROJECT_TOTAL_MAX - 5 * LEC_ENVVAR_VALUE_MAX);
	CHECK_FIELD_ERROR(lec_envvar_create(st, p, "ONE", "1", 0, NULL),
			  LEC_ELIMIT, NULL,
			  "The total size of all environment variables in the "
			  "project cannot exceed 256 KB.");
	CHECK_OK(lec_envvar_list(st, p, NULL, &list));
	CHECK_INT(list.total, 6);
	lec_envvar_list_dispose(&list);
	/* Other projects have their own budget; deleting frees room. */
	CHECK_OK(lec_envvar_create(st, other, "ONE", "1", 0, NULL));
	CHECK_OK(lec_envvar_list(st, p, NULL, &list));
	CHECK_OK(lec_envvar_delete(st, p, list.items[0].id));
	lec_envvar_list_dispose(&list);
	CHECK_OK(lec_envvar_create(st, p, "ONE", "1", 0, NULL));
	free(big);
	free(rest);
	lec_store_free(st);
}

/* The sealed column of the variable named name (owned; free()). */
static unsigned char *stored_blob(struct lec_store *st, const char *name,
				  size_t *len)
{
	sqlite3_stmt *stmt = NULL;
	unsigned char *blob = NULL;

	*len = 0;
	sqlite3_prepare_v2(st->db, "SELECT value FROM env_vars WHERE name = ?",
			   -1, &stmt, NULL);
	sqlite3_bind_text(stmt, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		*len = (size_t)sqlite3_column_bytes(stmt, 0);
		blob = malloc(*len ? *len : 1);
		memcpy(blob, sqlite3_column_blob(stmt, 0), *len);
	}
	sqlite3_finalize(stmt);
	return blob;
}

static void set_blob(struct lec_store *st, const char *name,
		     const unsigned char *blob, size_t len)
{
	sqlite3_stmt *stmt = NULL;

	sqlite3_prepare_v2(st->db,
			   "UPDATE env_vars SET value = ? WHERE name = ?", -1,
			   &stmt, NULL);
	sqlite3_bind_blob(stmt, 1, blob, (int)len, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, name, -1, SQLITE_STATIC);
	CHECK(sqlite3_step(stmt) == SQLITE_DONE);
	sqlite3_finalize(stmt);
}

TEST(values_sealed_at_rest_and_opened_for_builds)
{
	static const char secret[] = "correct horse battery staple";
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	struct lec_envvar_values vals = { 0 };
	unsigned char *blob;
	char *path = key_file(st);
	struct stat sb;
	size_t len;

	/* No variables, no key file: nothing to open, no error. */
	CHECK_OK(lec_envvar_values(st, p, 0, &vals));
	CHECK_INT(vals.len, 0);
	lec_envvar_values_dispose(&vals);
	CHECK(stat(path, &sb) < 0);

	CHECK_OK(lec_envvar_create(st, p, "SECRET", secret, 0, NULL));
	CHECK_OK(lec_envvar_create(st, p, "PUBLIC", "shown to PRs", 1, NULL));
	CHECK_OK(lec_envvar_create(st, p, "SECRET", "later", 0, NULL));
	CHECK(stat(path, &sb) == 0);
	CHECK_INT(sb.st_mode & 0777, 0600);
	CHECK_INT(sb.st_size, LEC__SECRET_KEY_LEN);

	blob = stored_blob(st, "PUBLIC", &len);
	CHECK_INT(len, strlen("shown to PRs") + LEC__SECRET_OVERHEAD);
	CHECK(memmem(blob, len, "shown", 5) == NULL);
	free(blob);
	{
		sqlite3_stmt *stmt = NULL;
		int found = 0;

		sqlite3_prepare_v2(st->db,
				   "SELECT value FROM env_vars ORDER BY id", -1,
				   &stmt, NULL);
		while (sqlite3_step(stmt) == SQLITE_ROW)
			found |= memmem(sqlite3_column_blob(stmt, 0),
					(size_t)sqlite3_column_bytes(stmt, 0),
					"horse", 5) != NULL;
		sqlite3_finalize(stmt);
		CHECK(!found);
	}

	CHECK_OK(lec_envvar_values(st, p, 0, &vals));
	CHECK_INT(vals.len, 3);
	if (vals.len == 3) {
		CHECK_STR(vals.items[0].name, "SECRET");
		CHECK_STR(vals.items[0].value, secret);
		CHECK_INT(vals.items[0].value_len, strlen(secret));
		CHECK_INT(vals.items[0].is_public, 0);
		CHECK_STR(vals.items[1].name, "PUBLIC");
		CHECK_STR(vals.items[1].value, "shown to PRs");
		CHECK_INT(vals.items[1].is_public, 1);
		CHECK_STR(vals.items[2].value, "later");
	}
	lec_envvar_values_dispose(&vals);
	CHECK(vals.items == NULL && vals.len == 0);
	CHECK_OK(lec_envvar_values(st, p, 1, &vals));
	CHECK_INT(vals.len, 1);
	if (vals.len == 1)
		CHECK_STR(vals.items[0].name, "PUBLIC");
	lec_envvar_values_dispose(&vals);
	lec_envvar_values_dispose(NULL);
	free(path);
	lec_store_free(st);
}

TEST(tampered_or_moved_blob_is_corrupt)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	int64_t other = lec_test_project(st, "other");
	struct lec_envvar_values vals = { 0 };
	unsigned char *blob;
	size_t len, i;

	CHECK_OK(lec_envvar_create(st, p, "K", "value", 0, NULL));
	CHECK_OK(lec_envvar_create(st, other, "M", "other value", 0, NULL));
	blob = stored_blob(st, "K", &len);
	/* Every byte matters: nonce, ciphertext and tag. */
	for (i = 0; i < len; i++) {
		blob[i] ^= 0x01;
		set_blob(st, "K", blob, len);
		CHECK_FIELD_ERROR(lec_envvar_values(st, p, 0, &vals),
				  LEC_ECORRUPT, NULL,
				  "a sealed secret value cannot be opened: it "
				  "was altered or sealed with another key "
				  "(secret.key)");
		CHECK(vals.items == NULL && vals.len == 0);
		blob[i] ^= 0x01;
	}
	set_blob(st, "K", blob, len - 1);
	CHECK_ERR(lec_envvar_values(st, p, 0, &vals), LEC_ECORRUPT);
	set_blob(st, "K", blob, 3);
	CHECK_ERR(lec_envvar_values(st, p, 0, &vals), LEC_ECORRUPT);
	CHECK_STR(lec_error_last(), "a sealed secret value is truncated");
	set_blob(st, "K", blob, len);
	CHECK_OK(lec_envvar_values(st, p, 0, &vals));
	lec_envvar_values_dispose(&vals);

	/* Another project's sealed value does not open here. */
	free(blob);
	blob = stored_blob(st, "M", &len);
	set_blob(st, "K", blob, len);
	CHECK_ERR(lec_envvar_values(st, p, 0, &vals), LEC_ECORRUPT);
	CHECK_OK(lec_envvar_values(st, other, 0, &vals));
	CHECK_STR(vals.items[0].value, "other value");
	lec_envvar_values_dispose(&vals);
	free(blob);
	lec_store_free(st);
}

TEST(wrong_missing_or_malformed_key)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	struct lec_envvar_values vals = { 0 };
	unsigned char other_key[LEC__SECRET_KEY_LEN];
	char *path = key_file(st);
	struct stat sb;

	CHECK_OK(lec_envvar_create(st, p, "K", "value", 0, NULL));
	memset(other_key, 0x5a, sizeof(other_key));
	write_file(path, other_key, sizeof(other_key));
	CHECK_ERR(lec_envvar_values(st, p, 0, &vals), LEC_ECORRUPT);
	CHECK(strstr(lec_error_last(), "sealed with another key") != NULL);

	unlink(path);
	CHECK_ERR(lec_envvar_values(st, p, 0, &vals), LEC_ECORRUPT);
	CHECK(strstr(lec_error_last(), "the key file is missing") != NULL);
	/* Values exist, so no new key is made behind their back. */
	CHECK_ERR(lec_envvar_create(st, p, "N", "v", 0, NULL), LEC_ECORRUPT);
	CHECK(strstr(lec_error_last(), "the key file is missing") != NULL);
	CHECK(stat(path, &sb) < 0);

	/* A key file of the wrong size is refused and never replaced. */
	write_file(path, "short", 5);
	CHECK_ERR(lec_envvar_create(st, p, "N", "v", 0, NULL), LEC_ECORRUPT);
	CHECK(strstr(lec_error_last(), "refusing to use or replace it") !=
	      NULL);
	CHECK(stat(path, &sb) == 0 && sb.st_size == 5);
	CHECK_ERR(lec_envvar_values(st, p, 0, &vals), LEC_ECORRUPT);
	unlink(path);
	CHECK(mkdir(path, 0700) == 0);
	CHECK_ERR(lec_envvar_create(st, p, "N", "v", 0, NULL), LEC_ECORRUPT);
	rmdir(path);
	free(path);
	lec_store_free(st);
}

TEST(secret_round_trip)
{
	struct lec_store *st = lec_test_store();
	struct lec__secret_key key, again;
	unsigned char *blob = NULL, *blob2 = NULL;
	char *plain = NULL;
	size_t len = 0, len2 = 0, plain_len = 0;
	static const char text[] = "hunter2";

	CHECK_ERR(lec__secret_key_load(st, 0, &key), LEC_ECORRUPT);
	CHECK_OK(lec__secret_key_load(st, 1, &key));
	CHECK_OK(lec__secret_key_load(st, 0, &again));
	CHECK(memcmp(key.bytes, again.bytes, sizeof(key.bytes)) == 0);

	CHECK_OK(lec__secret_seal(&key, text, strlen(text), "ctx", 3, &blob,
				  &len));
	CHECK_INT(len, strlen(text) + LEC__SECRET_OVERHEAD);
	CHECK_OK(lec__secret_seal(&key, text, strlen(text), "ctx", 3, &blob2,
				  &len2));
	/* A fresh nonce each time: equal values do not look equal. */
	CHECK(len == len2 && memcmp(blob, blob2, len) != 0);
	CHECK_OK(lec__secret_open(&again, blob, len, "ctx", 3, &plain,
				  &plain_len));
	CHECK_STR(plain, text);
	CHECK_INT(plain_len, strlen(text));
	lec__secret_free(plain, plain_len + 1);
	CHECK_ERR(lec__secret_open(&key, blob, len, "ctX", 3, &plain,
				   &plain_len),
		  LEC_ECORRUPT);
	CHECK(plain == NULL && plain_len == 0);
	CHECK_ERR(lec__secret_open(&key, blob, len, NULL, 0, &plain,
				   &plain_len),
		  LEC_ECORRUPT);
	lec__free(blob);
	lec__free(blob2);

	/* The empty value seals and opens too. */
	CHECK_OK(lec__secret_seal(&key, "", 0, NULL, 0, &blob, &len));
	CHECK_INT(len, LEC__SECRET_OVERHEAD);
	CHECK_OK(lec__secret_open(&key, blob, len, NULL, 0, &plain,
				  &plain_len));
	CHECK_STR(plain, "");
	lec__secret_free(plain, plain_len + 1);
	lec__free(blob);
	lec__secret_key_wipe(&key);
	lec__secret_key_wipe(&again);
	lec__secret_free(NULL, 10);
	lec_store_free(st);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(create_get_list_delete),
	TEST_ENTRY(validation_messages_and_lengths),
	TEST_ENTRY(project_total_limit),
	TEST_ENTRY(values_sealed_at_rest_and_opened_for_builds),
	TEST_ENTRY(tampered_or_moved_blob_is_corrupt),
	TEST_ENTRY(wrong_missing_or_malformed_key),
	TEST_ENTRY(secret_round_trip),
};

LEC_TEST_MAIN(tests)
