/*
 * Organizations: creation rules and messages, slugs, owners, teams and
 * their members and projects, the one-organization-per-project rule,
 * listing for a user (owner or team member, by name, paged), and the
 * permissions organizations grant.
 */
#include <sqlite3.h>

#include "harness.h"
#include "internal.h"
#include "lectern/org.h"
#include "lectern/user.h"
#include "store_internal.h"

static int64_t make_user(struct lec_store *st, const char *name)
{
	struct lec_user *u = NULL;
	int64_t id = 0;

	CHECK_OK(lec_user_create(st, name, &u));
	if (u)
		id = u->id;
	lec_user_free(u);
	return id;
}

static int64_t make_org(struct lec_store *st, const char *name,
			int64_t owner)
{
	struct lec_org_fields in = { 0 };
	struct lec_org *o = NULL;
	int64_t id = 0;

	in.name = name;
	CHECK_OK(lec_org_create(st, &in, owner, &o));
	if (o)
		id = o->id;
	lec_org_free(o);
	return id;
}

static int64_t make_team(struct lec_store *st, int64_t org, const char *name,
			 const char *access)
{
	struct lec_team *t = NULL;
	int64_t id = 0;

	CHECK_OK(lec_team_create(st, org, name, access, &t));
	if (t)
		id = t->id;
	lec_team_free(t);
	return id;
}

static void check_error(int rc, int code, const char *field,
			const char *message, int line)
{
	const char *got = lec_error_last_field();

	if (rc != code)
		FAIL_AT("line %d: returned %d (%s), expected %d", line, rc,
			lec_error_last(), code);
	if (message && strcmp(lec_error_last(), message) != 0)
		FAIL_AT("line %d: message \"%s\", expected \"%s\"", line,
			lec_error_last(), message);
	if ((field == NULL) != (got == NULL) ||
	    (field && strcmp(field, got) != 0))
		FAIL_AT("line %d: field %s, expected %s", line,
			got ? got : "(none)", field ? field : "(none)");
}

#define CHECK_ERROR(expr, code, field, message)                              \
	check_error((expr), code, field, message, __LINE__)

/* The names must be exactly `expected` (NULL-terminated), in order. */
static void check_names(const struct lec_org_usernames *names,
			const char *const *expected, int line)
{
	size_t i;

	for (i = 0; expected[i]; i++)
		if (i >= names->len || strcmp(names->items[i], expected[i]))
			FAIL_AT("line %d: name %zu is %s, expected %s", line, i,
				i < names->len ? names->items[i] : "(none)",
				expected[i]);
	if (names->len != i)
		FAIL_AT("line %d: %zu names, expected %zu", line, names->len,
			i);
}

#define CHECK_NAMES(names, ...)                                              \
	do {                                                                 \
		const char *const names_[] = { __VA_ARGS__, NULL };          \
		check_names(names, names_, __LINE__);                        \
	} while (0)

TEST(create_and_get)
{
	struct lec_store *st = lec_test_store();
	int64_t alice = make_user(st, "alice");
	struct lec_org_fields in = { 0 };
	struct lec_org *o = NULL, *again = NULL;
	struct lec_org_usernames owners = { 0 };

	in.name = "Acme Docs!";
	in.email = "docs@acme.test";
	in.description = "All of Acme's manuals";
	in.url = "https://acme.test/";
	CHECK_OK(lec_org_create(st, &in, alice, &o));
	CHECK(o && o->id > 0);
	CHECK_STR(o->slug, "acme-docs");
	CHECK_STR(o->name, "Acme Docs!");
	CHECK_STR(o->email, "docs@acme.test");
	CHECK_STR(o->description, "All of Acme's manuals");
	CHECK_STR(o->url, "https://acme.test/");
	CHECK_INT(o->disabled, 0);
	CHECK(o->created > 0 && o->modified == o->created);
	CHECK_OK(lec_org_get(st, "acme-docs", &again));
	CHECK_INT(again->id, o->id);
	lec_org_free(again);
	CHECK_OK(lec_org_owner_list(st, o->id, &owners));
	CHECK_NAMES(&owners, "alice");
	lec_org_usernames_dispose(&owners);

	CHECK_OK(lec_org_set_disabled(st, o->id, 1));
	CHECK_OK(lec_org_get(st, "acme-docs", &again));
	CHECK_INT(again->disabled, 1);
	CHECK(again->modified >= o->modified);
	lec_org_free(again);
	CHECK_ERR(lec_org_set_disabled(st, o->id + 50, 1), LEC_ENOTFOUND);

	CHECK_ERR(lec_org_get(st, "nope", &again), LEC_ENOTFOUND);
	CHECK_STR(lec_error_last(), "No Organization matches the given query.");
	CHECK(again == NULL);
	CHECK_ERR(lec_org_get(st, NULL, &again), LEC_EINVALID);

	/* Defaults for the optional fields; an explicit valid slug. */
	memset(&in, 0, sizeof(in));
	in.name = "Second";
	in.slug = "second-org";
	CHECK_OK(lec_org_create(st, &in, alice, NULL));
	CHECK_OK(lec_org_get(st, "second-org", &again));
	CHECK_STR(again->email, "");
	CHECK_STR(again->description, "");
	CHECK_STR(again->url, "");
	lec_org_free(again);
	lec_org_free(o);
	lec_store_free(st);
}

TEST(create_validation)
{
	struct lec_store *st = lec_test_store();
	int64_t alice = make_user(st, "alice");
	struct lec_org_fields in = { 0 };
	struct lec_org_list list = { 0 };
	struct lec_org *o = NULL;

	CHECK_ERROR(lec_org_create(st, NULL, alice, &o), LEC_EINVALID, "name",
		    "This field is required.");
	CHECK(o == NULL);
	CHECK_ERROR(lec_org_create(st, &in, alice, NULL), LEC_EINVALID,
		    "name", "This field is required.");
	in.name = "";
	CHECK_ERROR(lec_org_create(st, &in, alice, NULL), LEC_EINVALID,
		    "name", "This field may not be blank.");
	in.name = "123456789012345678901234567890123";
	CHECK_ERROR(lec_org_create(st, &in, alice, NULL), LEC_EINVALID,
		    "name",
		    "Ensure this field has no more than 32 characters.");
	in.name = "!!!";
	CHECK_ERROR(lec_org_create(st, &in, alice, NULL), LEC_EINVALID,
		    "name",
		    "Invalid organization name \"!!!\": no slug generated.");
	in.name = "Fine";
	in.slug = "Not A Slug";
	CHECK_ERROR(lec_org_create(st, &in, alice, NULL), LEC_EINVALID,
		    "slug",
		    "\"Not A Slug\" is not a valid slug: use lowercase "
		    "letters, digits and hyphens.");
	in.slug = "";
	CHECK_ERROR(lec_org_create(st, &in, alice, NULL), LEC_EINVALID,
		    "slug", NULL);
	in.slug = NULL;
	CHECK_ERROR(lec_org_create(st, &in, alice + 10, NULL), LEC_ENOTFOUND,
		    NULL, NULL);
	CHECK_ERR(lec_org_get(st, "fine", &o), LEC_ENOTFOUND);

	/* 32 characters, counted as characters. */
	in.name = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		  "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		  "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		  "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		  "\xc3\xa9\xc3\xa9\xc3\xa9x";
	CHECK_OK(lec_org_create(st, &in, alice, NULL));

	in.name = "Fine";
	CHECK_OK(lec_org_create(st, &in, alice, NULL));
	in.name = "FINE";
	CHECK_ERROR(lec_org_create(st, &in, alice, NULL), LEC_EEXISTS, "name",
		    "Organization with slug \"fine\" already exists.");
	in.name = "Other";
	in.slug = "fine";
	CHECK_ERROR(lec_org_create(st, &in, alice, NULL), LEC_EEXISTS, "slug",
		    "Organization with slug \"fine\" already exists.");
	CHECK_OK(lec_org_list_for_user(st, alice, NULL, &list));
	CHECK_INT(list.total, 2);
	lec_org_list_dispose(&list);
	lec_store_free(st);
}

TEST(owners)
{
	struct lec_store *st = lec_test_store();
	int64_t carol = make_user(st, "carol");
	int64_t alice = make_user(st, "alice");
	int64_t bob = make_user(st, "bob");
	int64_t org = make_org(st, "Acme", carol);
	struct lec_org_usernames names = { 0 };
	int yes = -1;

	CHECK_OK(lec_org_owner_add(st, org, alice));
	CHECK_OK(lec_org_owner_add(st, org, bob));
	CHECK_ERR(lec_org_owner_add(st, org, bob), LEC_EEXISTS);
	CHECK_ERR(lec_org_owner_add(st, org, bob + 10), LEC_ENOTFOUND);
	CHECK_ERR(lec_org_owner_add(st, org + 10, bob), LEC_ENOTFOUND);
	CHECK_OK(lec_org_owner_list(st, org, &names));
	CHECK_NAMES(&names, "alice", "bob", "carol");
	lec_org_usernames_dispose(&names);

	CHECK_OK(lec_org_is_owner(st, org, bob, &yes));
	CHECK_INT(yes, 1);
	CHECK_OK(lec_org_owner_remove(st, org, bob));
	CHECK_OK(lec_org_is_owner(st, org, bob, &yes));
	CHECK_INT(yes, 0);
	CHECK_ERR(lec_org_owner_remove(st, org, bob), LEC_ENOTFOUND);
	CHECK_OK(lec_org_owner_remove(st, org, carol));
	CHECK_ERROR(lec_org_owner_remove(st, org, alice), LEC_EINVALID, NULL,
		    "An organization must keep at least one owner.");
	CHECK_OK(lec_org_owner_list(st, org, &names));
	CHECK_NAMES(&names, "alice");
	lec_org_usernames_dispose(&names);

	/* Deleting a user removes the ownership. */
	CHECK_OK(lec_org_owner_add(st, org, bob));
	CHECK_OK(lec_user_delete(st, alice));
	CHECK_OK(lec_org_owner_list(st, org, &names));
	CHECK_NAMES(&names, "bob");
	lec_org_usernames_dispose(&names);
	lec_org_usernames_dispose(NULL);
	lec_store_free(st);
}

TEST(teams_and_members)
{
	struct lec_store *st = lec_test_store();
	int64_t alice = make_user(st, "alice");
	int64_t bob = make_user(st, "bob");
	int64_t dan = make_user(st, "dan");
	int64_t org = make_org(st, "Acme", alice);
	int64_t org2 = make_org(st, "Beta", alice);
	struct lec_team *t = NULL;
	struct lec_team_list list = { 0 };
	struct lec_org_usernames names = { 0 };
	struct lec_page page = { 1, 1 };
	int64_t writers, readers;

	CHECK_OK(lec_team_create(st, org, "Writers Team", NULL, &t));
	CHECK_STR(t->slug, "writers-team");
	CHECK_STR(t->name, "Writers Team");
	CHECK_STR(t->access, "readonly");
	CHECK_INT(t->organization_id, org);
	writers = t->id;
	lec_team_free(t);
	readers = make_team(st, org, "Admins", LEC_TEAM_ACCESS_ADMIN);
	make_team(st, org, "Copy Editors", "readonly");
	CHECK_ERROR(lec_team_create(st, org, "writers team", NULL, NULL),
		    LEC_EEXISTS, "name",
		    "Team with slug \"writers-team\" already exists in this "
		    "organization.");
	make_team(st, org2, "Writers Team", NULL);
	CHECK_ERROR(lec_team_create(st, org, "X", "owner", NULL), LEC_EINVALID,
		    "access", "\"owner\" is not a valid choice.");
	CHECK_ERROR(lec_team_create(st, org, NULL, NULL, NULL), LEC_EINVALID,
		    "name", "This field is required.");
	CHECK_ERROR(lec_team_create(st, org, "???", NULL, NULL), LEC_EINVALID,
		    "name", "Invalid team name \"???\": no slug generated.");
	CHECK_ERR(lec_team_create(st, org + 10, "Y", NULL, NULL),
		  LEC_ENOTFOUND);

	CHECK_OK(lec_team_get(st, org, "admins", &t));
	CHECK_STR(t->access, "admin");
	lec_team_free(t);
	CHECK_ERR(lec_team_get(st, org2, "admins", &t), LEC_ENOTFOUND);
	CHECK(t == NULL);
	CHECK_OK(lec_team_list(st, org, NULL, &list));
	CHECK_INT(list.total, 3);
	CHECK_STR(list.items[0].name, "Admins");
	CHECK_STR(list.items[1].name, "Copy Editors");
	CHECK_STR(list.items[2].name, "Writers Team");
	lec_team_list_dispose(&list);
	CHECK_OK(lec_team_list(st, org, &page, &list));
	CHECK_INT(list.len, 1);
	CHECK_INT(list.total, 3);
	CHECK_STR(list.items[0].slug, "copy-editors");
	lec_team_list_dispose(&list);

	CHECK_OK(lec_team_member_add(st, writers, dan));
	CHECK_OK(lec_team_member_add(st, writers, bob));
	CHECK_ERR(lec_team_member_add(st, writers, bob), LEC_EEXISTS);
	CHECK_ERR(lec_team_member_add(st, writers, bob + 10), LEC_ENOTFOUND);
	CHECK_ERR(lec_team_member_add(st, writers + 10, bob), LEC_ENOTFOUND);
	CHECK_OK(lec_team_member_list(st, writers, &names));
	CHECK_NAMES(&names, "bob", "dan");
	lec_org_usernames_dispose(&names);
	CHECK_OK(lec_team_member_remove(st, writers, dan));
	CHECK_ERR(lec_team_member_remove(st, writers, dan), LEC_ENOTFOUND);
	CHECK_OK(lec_team_member_list(st, writers, &names));
	CHECK_NAMES(&names, "bob");
	lec_org_usernames_dispose(&names);
	CHECK_OK(lec_team_member_list(st, readers, &names));
	CHECK_INT(names.len, 0);
	lec_org_usernames_dispose(&names);
	lec_store_free(st);
}

TEST(list_for_user)
{
	struct lec_store *st = lec_test_store();
	int64_t alice = make_user(st, "alice");
	int64_t bob = make_user(st, "bob");
	int64_t eve = make_user(st, "eve");
	int64_t zeta = make_org(st, "Zeta", alice);
	int64_t alpha = make_org(st, "Alpha", bob);
	int64_t mid = make_org(st, "Mid", bob);
	int64_t t1 = make_team(st, zeta, "One", NULL);
	int64_t t2 = make_team(st, zeta, "Two", "admin");
	int64_t t3 = make_team(st, alpha, "Three", NULL);
	struct lec_org_list list = { 0 };
	struct lec_page page = { 1, 1 };

	(void)mid;
	/* bob: owner of Alpha and Mid, member of two Zeta teams. */
	CHECK_OK(lec_team_member_add(st, t1, bob));
	CHECK_OK(lec_team_member_add(st, t2, bob));
	/* alice: owner of Zeta and member of a team of Alpha. */
	CHECK_OK(lec_team_member_add(st, t3, alice));
	CHECK_OK(lec_org_list_for_user(st, bob, NULL, &list));
	CHECK_INT(list.len, 3);
	CHECK_INT(list.total, 3);
	CHECK_STR(list.items[0].name, "Alpha");
	CHECK_STR(list.items[1].name, "Mid");
	CHECK_STR(list.items[2].name, "Zeta");
	lec_org_list_dispose(&list);
	CHECK_OK(lec_org_list_for_user(st, bob, &page, &list));
	CHECK_INT(list.len, 1);
	CHECK_INT(list.total, 3);
	CHECK_STR(list.items[0].slug, "mid");
	lec_org_list_dispose(&list);
	CHECK_OK(lec_org_list_for_user(st, alice, NULL, &list));
	CHECK_INT(list.total, 2);
	CHECK_STR(list.items[0].name, "Alpha");
	CHECK_STR(list.items[1].name, "Zeta");
	lec_org_list_dispose(&list);
	CHECK_OK(lec_org_list_for_user(st, eve, NULL, &list));
	CHECK_INT(list.len, 0);
	CHECK_INT(list.total, 0);
	lec_org_list_dispose(&list);
	/* Leaving the last team of an organization hides it. */
	CHECK_OK(lec_team_member_remove(st, t3, alice));
	CHECK_OK(lec_org_list_for_user(st, alice, NULL, &list));
	CHECK_INT(list.total, 1);
	CHECK_STR(list.items[0].name, "Zeta");
	lec_org_list_dispose(&list);
	lec_org_list_dispose(NULL);
	lec_store_free(st);
}

TEST(projects_of_organizations)
{
	struct lec_store *st = lec_test_store();
	int64_t alice = make_user(st, "alice");
	int64_t org = make_org(st, "Acme", alice);
	int64_t org2 = make_org(st, "Beta", alice);
	int64_t pc = lec_test_project(st, "charlie");
	int64_t pa = lec_test_project(st, "alpha");
	int64_t pb = lec_test_project(st, "bravo");
	int64_t lone = lec_test_project(st, "lone");
	int64_t team = make_team(st, org, "Team", NULL);
	struct lec_org_project_ids ids = { 0 };
	struct lec_page page = { 2, 1 };
	struct lec_org *o = NULL;

	CHECK_OK(lec_org_project_add(st, org, pc));
	CHECK_OK(lec_org_project_add(st, org, pa));
	CHECK_OK(lec_org_project_add(st, org, pb));
	CHECK_ERR(lec_org_project_add(st, org, pa), LEC_EEXISTS);
	CHECK_ERR(lec_org_project_add(st, org2, pa), LEC_EEXISTS);
	CHECK(strstr(lec_error_last(), "already belongs to organization") !=
	      NULL);
	CHECK_ERR(lec_org_project_add(st, org2, lone + 10), LEC_ENOTFOUND);
	CHECK_ERR(lec_org_project_add(st, org2 + 10, lone), LEC_ENOTFOUND);

	CHECK_OK(lec_org_of_project(st, pb, &o));
	CHECK_STR(o->slug, "acme");
	lec_org_free(o);
	CHECK_ERR(lec_org_of_project(st, lone, &o), LEC_ENOTFOUND);
	CHECK(o == NULL);

	CHECK_OK(lec_org_project_ids(st, org, NULL, &ids));
	CHECK_INT(ids.len, 3);
	CHECK_INT(ids.total, 3);
	if (ids.len == 3) {
		CHECK_INT(ids.items[0], pa);
		CHECK_INT(ids.items[1], pb);
		CHECK_INT(ids.items[2], pc);
	}
	lec_org_project_ids_dispose(&ids);
	CHECK_OK(lec_org_project_ids(st, org, &page, &ids));
	CHECK_INT(ids.len, 2);
	CHECK_INT(ids.total, 3);
	if (ids.len == 2) {
		CHECK_INT(ids.items[0], pb);
		CHECK_INT(ids.items[1], pc);
	}
	lec_org_project_ids_dispose(&ids);
	CHECK_OK(lec_org_project_ids(st, org2, NULL, &ids));
	CHECK_INT(ids.total, 0);
	lec_org_project_ids_dispose(&ids);

	/* Teams hold only their organization's projects. */
	CHECK_OK(lec_team_project_add(st, team, pa));
	CHECK_ERR(lec_team_project_add(st, team, pa), LEC_EEXISTS);
	CHECK_ERROR(lec_team_project_add(st, team, lone), LEC_EINVALID, NULL,
		    NULL);
	CHECK_ERR(lec_team_project_add(st, team + 10, pa), LEC_ENOTFOUND);
	CHECK_ERR(lec_team_project_add(st, team, lone + 10), LEC_ENOTFOUND);
	CHECK_OK(lec_team_project_remove(st, team, pa));
	CHECK_ERR(lec_team_project_remove(st, team, pa), LEC_ENOTFOUND);

	/* Deleting a project takes it out of its organization. */
	CHECK_OK(lec_store__exec(st, "DELETE FROM projects WHERE slug = "
				     "'alpha'"));
	CHECK_OK(lec_org_project_ids(st, org, NULL, &ids));
	CHECK_INT(ids.total, 2);
	lec_org_project_ids_dispose(&ids);
	lec_org_project_ids_dispose(NULL);
	lec_store_free(st);
}

static void check_perms(struct lec_store *st, int64_t project, int64_t user,
			int admin, int read, int line)
{
	int a = -1, r = -1;

	if (lec_org_is_project_admin(st, project, user, &a) != LEC_OK ||
	    lec_org_can_read_project(st, project, user, &r) != LEC_OK)
		FAIL_AT("line %d: %s", line, lec_error_last());
	if (a != admin || r != read)
		FAIL_AT("line %d: admin %d read %d, expected admin %d read %d",
			line, a, r, admin, read);
}

#define CHECK_PERMS(st, project, user, admin, read)                          \
	check_perms(st, project, user, admin, read, __LINE__)

TEST(permissions)
{
	struct lec_store *st = lec_test_store();
	int64_t owner = make_user(st, "owner");
	int64_t admin = make_user(st, "admin");
	int64_t reader = make_user(st, "reader");
	int64_t outsider = make_user(st, "outsider");
	int64_t org = make_org(st, "Acme", owner);
	int64_t other_org = make_org(st, "Other", outsider);
	int64_t p = lec_test_project(st, "docs");
	int64_t q = lec_test_project(st, "more");
	int64_t free_project = lec_test_project(st, "free");
	int64_t admins = make_team(st, org, "Admins", "admin");
	int64_t readers = make_team(st, org, "Readers", "readonly");
	int yes = -1;

	CHECK_OK(lec_org_project_add(st, org, p));
	CHECK_OK(lec_org_project_add(st, org, q));
	CHECK_OK(lec_team_member_add(st, admins, admin));
	CHECK_OK(lec_team_member_add(st, readers, reader));
	CHECK_OK(lec_team_project_add(st, admins, p));
	CHECK_OK(lec_team_project_add(st, readers, p));

	CHECK_OK(lec_org_is_owner(st, org, owner, &yes));
	CHECK_INT(yes, 1);
	CHECK_OK(lec_org_is_owner(st, org, admin, &yes));
	CHECK_INT(yes, 0);
	CHECK_OK(lec_org_is_owner(st, other_org, owner, &yes));
	CHECK_INT(yes, 0);

	CHECK_PERMS(st, p, owner, 1, 1);
	CHECK_PERMS(st, q, owner, 1, 1); /* owners: every project */
	CHECK_PERMS(st, p, admin, 1, 1);
	CHECK_PERMS(st, q, admin, 0, 0); /* teams: only their projects */
	CHECK_PERMS(st, p, reader, 0, 1);
	/* Owning another organization gives nothing here. */
	CHECK_PERMS(st, p, outsider, 0, 0);
	CHECK_PERMS(st, free_project, owner, 0, 0);

	/* Membership gives rights, leaving takes them back. */
	CHECK_OK(lec_team_member_add(st, admins, outsider));
	CHECK_PERMS(st, p, outsider, 1, 1);
	CHECK_OK(lec_team_member_remove(st, admins, outsider));
	CHECK_PERMS(st, p, outsider, 0, 0);

	/* Rights follow the team's projects. */
	CHECK_OK(lec_team_project_remove(st, readers, p));
	CHECK_PERMS(st, p, reader, 0, 0);
	CHECK_OK(lec_team_project_add(st, admins, q));
	CHECK_PERMS(st, q, admin, 1, 1);
	lec_store_free(st);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(create_and_get),
	TEST_ENTRY(create_validation),
	TEST_ENTRY(owners),
	TEST_ENTRY(teams_and_members),
	TEST_ENTRY(list_for_user),
	TEST_ENTRY(projects_of_organizations),
	TEST_ENTRY(permissions),
};

LEC_TEST_MAIN(tests)
