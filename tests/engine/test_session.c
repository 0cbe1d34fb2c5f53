/*
 * Browser sessions: a login from a token, the sessions continued from it
 * (a docs host's), and what ends them: a logout (the whole family, not
 * another login's), the token's revocation, the user's deactivation or
 * deletion, ending a user's sessions, and expiry; ids are random.
 */
#include "harness.h"
#include "internal.h"
#include "lectern/session.h"
#include "store_internal.h"

struct two {
	struct lec_store *st;
	struct lec_user *alice, *bob;
	char *ta, *tb;
};

static void two_users(struct two *t)
{
	t->st = lec_test_store();
	CHECK_OK(lec_user_create(t->st, "alice", &t->alice));
	CHECK_OK(lec_user_create(t->st, "bob", &t->bob));
	CHECK_OK(lec_token_create(t->st, t->alice->id, &t->ta));
	CHECK_OK(lec_token_create(t->st, t->bob->id, &t->tb));
}

static void two_dispose(struct two *t)
{
	lec__free(t->ta);
	lec__free(t->tb);
	lec_user_free(t->alice);
	lec_user_free(t->bob);
	lec_store_free(t->st);
}

/* The user of session id, or 0 when it is no live session. */
static int64_t user_of(struct lec_store *st, int64_t id)
{
	struct lec_user *u = NULL;
	int64_t uid = 0;

	if (lec_session_user(st, id, &u) == LEC_OK)
		uid = u->id;
	lec_user_free(u);
	return uid;
}

TEST(login_continue_and_logout)
{
	struct two t;
	struct lec_user *u = NULL;
	int64_t login = 0, docs = 0, other = 0, bobs = 0;

	two_users(&t);
	CHECK_OK(lec_session_login(t.st, t.ta, 60, &login));
	CHECK(login > 0);
	CHECK_INT(user_of(t.st, login), t.alice->id);
	CHECK_OK(lec_session_continue(t.st, login, 60, &docs));
	CHECK(docs > 0 && docs != login);
	CHECK_INT(user_of(t.st, docs), t.alice->id);
	CHECK_OK(lec_session_login(t.st, t.ta, 60, &other));
	CHECK_OK(lec_session_login(t.st, t.tb, 60, &bobs));
	CHECK_INT(user_of(t.st, bobs), t.bob->id);

	/* A logout on the docs host ends its login too, not another. */
	CHECK_OK(lec_session_end(t.st, docs));
	CHECK_INT(user_of(t.st, docs), 0);
	CHECK_INT(user_of(t.st, login), 0);
	CHECK_ERR(lec_session_user(t.st, login, &u), LEC_ENOTFOUND);
	CHECK(u == NULL);
	CHECK_INT(user_of(t.st, other), t.alice->id);
	CHECK_INT(user_of(t.st, bobs), t.bob->id);
	CHECK_ERR(lec_session_continue(t.st, login, 60, &docs), LEC_ENOTFOUND);
	CHECK_OK(lec_session_end(t.st, login));
	CHECK_ERR(lec_session_user(t.st, 12345, &u), LEC_ENOTFOUND);
	two_dispose(&t);
}

TEST(bad_tokens_make_no_session)
{
	struct two t;
	int64_t id = 7;

	two_users(&t);
	CHECK_ERR(lec_session_login(t.st, "", 60, &id), LEC_ENOTFOUND);
	CHECK_INT(id, 0);
	CHECK_ERR(lec_session_login(t.st,
				    "0000000000000000000000000000000000000000",
				    60, &id),
		  LEC_ENOTFOUND);
	CHECK_OK(lec_user_set_active(t.st, t.alice->id, 0));
	CHECK_ERR(lec_session_login(t.st, t.ta, 60, &id), LEC_EAUTH);
	two_dispose(&t);
}

/* What ends a session besides a logout; the other user's stays. */
TEST(revocation_deactivation_and_expiry)
{
	struct two t;
	struct lec_token_list list = { 0 };
	struct lec_user *u = NULL;
	int64_t a1 = 0, a2 = 0, b1 = 0, old = 0;
	size_t n = 0;

	two_users(&t);
	CHECK_OK(lec_session_login(t.st, t.ta, 60, &a1));
	CHECK_OK(lec_session_login(t.st, t.tb, 60, &b1));
	CHECK_OK(lec_token_list(t.st, t.alice->id, NULL, &list));
	CHECK_INT(list.items[0].sessions, 1);
	CHECK_OK(lec_token_revoke(t.st, list.items[0].id));
	lec_token_list_dispose(&list);
	CHECK_INT(user_of(t.st, a1), 0);
	CHECK_INT(user_of(t.st, b1), t.bob->id);

	lec__free(t.ta);
	CHECK_OK(lec_token_create(t.st, t.alice->id, &t.ta));
	CHECK_OK(lec_session_login(t.st, t.ta, 60, &a1));
	CHECK_OK(lec_session_continue(t.st, a1, 60, &a2));
	CHECK_OK(lec_user_set_active(t.st, t.alice->id, 0));
	CHECK_ERR(lec_session_user(t.st, a1, &u), LEC_EAUTH);
	CHECK(u == NULL);
	CHECK_OK(lec_user_set_active(t.st, t.alice->id, 1));
	CHECK_INT(user_of(t.st, a2), t.alice->id);
	CHECK_OK(lec_session_end_user(t.st, t.alice->id, &n));
	CHECK_INT(n, 2);
	CHECK_INT(user_of(t.st, a2), 0);
	CHECK_INT(user_of(t.st, b1), t.bob->id);

	/* Expired: no session, and dropped when the next is made. */
	CHECK_OK(lec_session_login(t.st, t.ta, 0, &old));
	CHECK_INT(user_of(t.st, old), 0);
	CHECK_OK(lec_session_login(t.st, t.ta, 60, &a1));
	CHECK_OK(lec_store__query_int(t.st, "SELECT count(*) FROM sessions "
					    "WHERE id = ?1",
				      &old, 1, "counting", &a2, NULL));
	CHECK_INT(a2, 0);

	/* Deleting the user deletes its sessions with its tokens. */
	CHECK_OK(lec_user_delete(t.st, t.alice->id));
	CHECK_INT(user_of(t.st, a1), 0);
	CHECK_OK(lec_user_delete(t.st, t.bob->id));
	CHECK_INT(user_of(t.st, b1), 0);
	two_dispose(&t);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(login_continue_and_logout),
	TEST_ENTRY(bad_tokens_make_no_session),
	TEST_ENTRY(revocation_deactivation_and_expiry),
};

LEC_TEST_MAIN(tests)
