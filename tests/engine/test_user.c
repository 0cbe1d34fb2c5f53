/*
 * Users and tokens: creation rules, lookups, paging, and that tokens are
 * stored only as hashes, authenticate their user, fail for inactive users,
 * and can be revoked (all of a user's, or one by the id a listing shows,
 * which holds nothing of the secret), and that a handle's remembered
 * tokens (kept as hashes) follow revocations and deactivations made by
 * other connections at once.
 */
#include <fcntl.h>
#include <string.h>
#include <sqlite3.h>
#include <unistd.h>

#include "harness.h"
#include "internal.h"
#include "lectern/user.h"
#include "store_internal.h"

TEST(create_get_and_duplicates)
{
	struct lec_store *st = lec_test_store();
	struct lec_user *u = NULL, *again = NULL;

	CHECK_OK(lec_user_create(st, "alice", &u));
	CHECK(u && u->id > 0 && u->is_active && !u->is_superuser);
	CHECK_STR(u->username, "alice");
	CHECK(u->created > 0);
	CHECK_ERR(lec_user_create(st, "alice", NULL), LEC_EEXISTS);
	CHECK_STR(lec_error_last(), "user 'alice' already exists");
	CHECK_OK(lec_user_get_by_id(st, u->id, &again));
	CHECK_STR(again->username, "alice");
	lec_user_free(again);
	CHECK_ERR(lec_user_get(st, "bob", &again), LEC_ENOTFOUND);
	CHECK(again == NULL);
	CHECK_OK(lec_user_ensure(st, "alice", &again));
	CHECK_INT(again->id, u->id);
	lec_user_free(again);
	lec_user_free(u);
	lec_store_free(st);
}

TEST(usernames_are_validated)
{
	struct lec_store *st = lec_test_store();
	char long_name[LEC_USERNAME_MAX + 2];

	CHECK_ERR(lec_user_create(st, "", NULL), LEC_EINVALID);
	CHECK_ERR(lec_user_create(st, NULL, NULL), LEC_EINVALID);
	CHECK_ERR(lec_user_create(st, "has space", NULL), LEC_EINVALID);
	CHECK_ERR(lec_user_create(st, "semi;colon", NULL), LEC_EINVALID);
	CHECK_ERR(lec_user_create(st, "caf\xc3\xa9", NULL), LEC_EINVALID);
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	CHECK_ERR(lec_user_create(st, long_name, NULL), LEC_EINVALID);
	long_name[LEC_USERNAME_MAX] = '\0';
	CHECK_OK(lec_user_create(st, long_name, NULL));
	CHECK_OK(lec_user_create(st, "a.b+c-d_e@f", NULL));
	lec_store_free(st);
}

TEST(list_is_sorted_and_paged)
{
	struct lec_store *st = lec_test_store();
	static const char *names[] = { "carol", "alice", "eve", "bob", "dan" };
	struct lec_user_list list = { 0 };
	struct lec_page page = { 2, 1 };
	size_t i;

	for (i = 0; i < 5; i++)
		CHECK_OK(lec_user_create(st, names[i], NULL));
	CHECK_OK(lec_user_list(st, NULL, &list));
	CHECK_INT(list.len, 5);
	CHECK_INT(list.total, 5);
	CHECK_STR(list.items[0].username, "alice");
	CHECK_STR(list.items[4].username, "eve");
	lec_user_list_dispose(&list);
	CHECK_OK(lec_user_list(st, &page, &list));
	CHECK_INT(list.len, 2);
	CHECK_INT(list.total, 5);
	CHECK_STR(list.items[0].username, "bob");
	CHECK_STR(list.items[1].username, "carol");
	lec_user_list_dispose(&list);
	page.offset = 10;
	CHECK_OK(lec_user_list(st, &page, &list));
	CHECK_INT(list.len, 0);
	CHECK_INT(list.total, 5);
	lec_user_list_dispose(&list);
	lec_user_list_dispose(NULL);
	lec_store_free(st);
}

/* The plain token must not appear anywhere in the database files. */
static int file_contains(const char *path, const char *needle)
{
	static char buf[1 << 20];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	return memmem(buf, (size_t)n, needle, strlen(needle)) != NULL;
}

TEST(tokens_are_hashed_and_authenticate)
{
	struct lec_store *st = lec_test_store();
	struct lec_user *u = NULL, *who = NULL;
	char *t1 = NULL, *t2 = NULL;
	char wal[600];
	size_t i;

	CHECK_OK(lec_user_create(st, "alice", &u));
	CHECK_OK(lec_token_create(st, u->id, &t1));
	CHECK_OK(lec_token_create(st, u->id, &t2));
	CHECK_INT(strlen(t1), LEC_TOKEN_LEN);
	for (i = 0; i < LEC_TOKEN_LEN; i++)
		CHECK(strchr("0123456789abcdef", t1[i]) != NULL);
	CHECK(strcmp(t1, t2) != 0);
	CHECK_OK(lec_token_authenticate(st, t1, &who));
	CHECK_INT(who->id, u->id);
	lec_user_free(who);
	CHECK_OK(lec_token_authenticate(st, t2, &who));
	lec_user_free(who);

	snprintf(wal, sizeof(wal), "%s-wal", lec_store_path(st));
	CHECK(!file_contains(lec_store_path(st), t1));
	CHECK(!file_contains(wal, t1));

	lec__free(t2);
	lec__free(t1);
	lec_user_free(u);
	lec_store_free(st);
}

TEST(bad_tokens_are_rejected)
{
	struct lec_store *st = lec_test_store();
	struct lec_user *u = NULL, *who = NULL;
	char *t = NULL;
	char upper[LEC_TOKEN_LEN + 1];
	size_t i;

	CHECK_OK(lec_user_create(st, "alice", &u));
	CHECK_OK(lec_token_create(st, u->id, &t));
	CHECK_ERR(lec_token_authenticate(st, NULL, &who), LEC_ENOTFOUND);
	CHECK_ERR(lec_token_authenticate(st, "", &who), LEC_ENOTFOUND);
	CHECK_ERR(lec_token_authenticate(st, "abc", &who), LEC_ENOTFOUND);
	CHECK_ERR(lec_token_authenticate(
			  st, "0000000000000000000000000000000000000000", &who),
		  LEC_ENOTFOUND);
	for (i = 0; i <= LEC_TOKEN_LEN; i++)
		upper[i] = (char)(t[i] >= 'a' && t[i] <= 'f' ? t[i] - 32 : t[i]);
	CHECK_ERR(lec_token_authenticate(st, upper, &who), LEC_ENOTFOUND);
	CHECK(who == NULL);
	lec__free(t);
	t = NULL;
	CHECK_ERR(lec_token_create(st, 9999, &t),
		  LEC_ENOTFOUND);
	lec__free(t);
	lec_user_free(u);
	lec_store_free(st);
}

TEST(inactive_users_and_revocation)
{
	struct lec_store *st = lec_test_store();
	struct lec_user *u = NULL, *who = NULL;
	char *t = NULL;
	size_t revoked = 0;

	CHECK_OK(lec_user_create(st, "alice", &u));
	CHECK_OK(lec_token_create(st, u->id, &t));
	CHECK_OK(lec_user_set_active(st, u->id, 0));
	CHECK_ERR(lec_token_authenticate(st, t, &who), LEC_EAUTH);
	CHECK_STR(lec_error_last(), "user inactive or deleted");
	CHECK_OK(lec_user_set_active(st, u->id, 1));
	CHECK_OK(lec_token_authenticate(st, t, &who));
	lec_user_free(who);
	CHECK_OK(lec_token_revoke_all(st, u->id, &revoked));
	CHECK_INT(revoked, 1);
	CHECK_ERR(lec_token_authenticate(st, t, &who), LEC_ENOTFOUND);
	CHECK_ERR(lec_user_set_active(st, 424242, 0), LEC_ENOTFOUND);
	lec__free(t);
	t = NULL;

	/* Deleting a user takes its tokens with it. */
	CHECK_OK(lec_token_create(st, u->id, &t));
	CHECK_OK(lec_user_delete(st, u->id));
	CHECK_ERR(lec_token_authenticate(st, t, &who), LEC_ENOTFOUND);
	CHECK_ERR(lec_user_delete(st, u->id), LEC_ENOTFOUND);
	lec__free(t);
	lec_user_free(u);
	lec_store_free(st);
}

/* Whether any of the handle's remembered tokens holds the token itself
 * (it must hold only its hash). */
static int memo_holds(const struct lec_store *st, const char *token)
{
	const char *p = (const char *)st->tokens;
	size_t n = sizeof(st->tokens), len = strlen(token), i;

	for (i = 0; i + len <= n; i++)
		if (memcmp(p + i, token, len) == 0)
			return 1;
	return 0;
}

/* Authenticate inside a read snapshot, as the server does. */
static int auth_read(struct lec_store *st, const char *token,
		     struct lec_user **who)
{
	int rc;

	CHECK_OK(lec_store_read_begin(st));
	rc = lec_token_authenticate(st, token, who);
	lec_store_read_end(st);
	return rc;
}

TEST(remembered_tokens_follow_the_database)
{
	struct lec_store *st = lec_test_store(), *other = NULL;
	struct lec_user *u = NULL, *who = NULL;
	char *t = NULL;
	size_t i, kept = 0;

	CHECK_OK(lec_user_create(st, "alice", &u));
	CHECK_OK(lec_token_create(st, u->id, &t));
	/* A second connection, as the CLI's engine-direct commands are. */
	CHECK_OK(lec_store_open(&other, lec_store_path(st), NULL));

	CHECK_OK(auth_read(st, t, &who));
	CHECK_STR(who->username, "alice");
	lec_user_free(who);
	for (i = 0; i < LEC_STORE_TOKEN_MEMO; i++)
		kept += st->tokens[i].hash[0] != '\0';
	CHECK_INT(kept, 1);
	CHECK(!memo_holds(st, t));
	CHECK_OK(auth_read(st, t, &who));
	CHECK_INT(who->id, u->id);
	CHECK_STR(who->username, "alice");
	lec_user_free(who);

	/* Deactivated elsewhere: refused at once, remembered or not. */
	CHECK_OK(lec_user_set_active(other, u->id, 0));
	CHECK_ERR(auth_read(st, t, &who), LEC_EAUTH);
	CHECK(who == NULL);
	CHECK_OK(lec_user_set_active(other, u->id, 1));
	CHECK_OK(auth_read(st, t, &who));
	lec_user_free(who);

	/* Revoked elsewhere: refused at once, in a snapshot and outside. */
	CHECK_OK(lec_token_revoke_all(other, u->id, NULL));
	CHECK_ERR(auth_read(st, t, &who), LEC_ENOTFOUND);
	lec__free(t);
	CHECK_OK(lec_token_create(st, u->id, &t));
	CHECK_OK(auth_read(st, t, &who));
	lec_user_free(who);
	CHECK_OK(lec_token_revoke_all(other, u->id, NULL));
	CHECK_ERR(lec_token_authenticate(st, t, &who), LEC_ENOTFOUND);

	lec__free(t);
	lec_user_free(u);
	lec_store_free(other);
	lec_store_free(st);
}

/* A listing names tokens by id, with their user, and holds nothing of the
 * secret; revoking one by id leaves the others working, on another
 * connection at once. */
TEST(tokens_are_listed_and_revoked_one_by_one)
{
	struct lec_store *st = lec_test_store(), *other = NULL;
	struct lec_user *alice = NULL, *bob = NULL, *who = NULL;
	struct lec_token_list list = { 0 };
	char *t1 = NULL, *t2 = NULL, *t3 = NULL;

	CHECK_OK(lec_user_create(st, "alice", &alice));
	CHECK_OK(lec_user_create(st, "bob", &bob));
	CHECK_OK(lec_token_create(st, alice->id, &t1));
	CHECK_OK(lec_token_create(st, bob->id, &t2));
	CHECK_OK(lec_token_create(st, alice->id, &t3));
	CHECK_OK(lec_store_open(&other, lec_store_path(st), NULL));

	CHECK_OK(lec_token_list(st, 0, NULL, &list));
	CHECK_INT(list.len, 3);
	CHECK_INT(list.total, 3);
	CHECK(list.items[0].id < list.items[1].id &&
	      list.items[1].id < list.items[2].id);
	CHECK_STR(list.items[1].username, "bob");
	CHECK_INT(list.items[0].sessions, 0);
	CHECK(list.items[0].created > 0);
	lec_token_list_dispose(&list);
	CHECK_OK(lec_token_list(st, alice->id, NULL, &list));
	CHECK_INT(list.len, 2);
	CHECK_STR(list.items[1].username, "alice");

	CHECK_OK(auth_read(st, t3, &who));
	lec_user_free(who);
	CHECK_OK(lec_token_revoke(other, list.items[1].id));
	CHECK_ERR(auth_read(st, t3, &who), LEC_ENOTFOUND);
	CHECK_OK(auth_read(st, t1, &who));
	lec_user_free(who);
	CHECK_ERR(lec_token_revoke(st, list.items[1].id), LEC_ENOTFOUND);
	CHECK_STR(lec_error_last(), "no token with id 3");
	lec_token_list_dispose(&list);

	lec__free(t1);
	lec__free(t2);
	lec__free(t3);
	lec_user_free(alice);
	lec_user_free(bob);
	lec_store_free(other);
	lec_store_free(st);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(create_get_and_duplicates),
	TEST_ENTRY(usernames_are_validated),
	TEST_ENTRY(list_is_sorted_and_paged),
	TEST_ENTRY(tokens_are_hashed_and_authenticate),
	TEST_ENTRY(bad_tokens_are_rejected),
	TEST_ENTRY(inactive_users_and_revocation),
	TEST_ENTRY(remembered_tokens_follow_the_database),
	TEST_ENTRY(tokens_are_listed_and_revoked_one_by_one),
};

LEC_TEST_MAIN(tests)
