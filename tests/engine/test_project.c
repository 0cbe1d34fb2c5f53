/*
 * Projects: import with the service's validation (exact messages and
 * fields), the machine "latest" version, reads, filtered and paged lists,
 * patches, deletes and what they cascade to, maintainers, admin and
 * visibility checks, subprojects with their candidate and alias rules, and
 * translations with their language rules.
 */
#include <sqlite3.h>
#include <unistd.h>

#include "files.h"
#include "harness.h"
#include "internal.h"
#include "lectern/org.h"
#include "lectern/project.h"
#include "lectern/user.h"
#include "store_internal.h"

#define CHECK_FIELD(expected)                                                \
	do {                                                                 \
		const char *check_field_ = (expected);                       \
		if (check_field_ == NULL)                                    \
			CHECK(lec_error_last_field() == NULL);               \
		else                                                         \
			CHECK_STR(lec_error_last_field(), check_field_);     \
	} while (0)

/* A call fails with code, message and field exactly as the API shows. */
#define CHECK_FAIL(expr, code, field, msg)                                   \
	do {                                                                 \
		CHECK_ERR(expr, code);                                       \
		CHECK_STR(lec_error_last(), msg);                            \
		CHECK_FIELD(field);                                          \
	} while (0)

static int64_t mkuser(struct lec_store *st, const char *name)
{
	struct lec_user *u = NULL;
	int64_t id;

	CHECK_OK(lec_user_create(st, name, &u));
	id = u ? u->id : 0;
	lec_user_free(u);
	return id;
}

static void make_superuser(struct lec_store *st, int64_t id)
{
	char sql[96];

	snprintf(sql, sizeof(sql),
		 "UPDATE users SET is_superuser = 1 WHERE id = %lld",
		 (long long)id);
	CHECK_OK(lec_store__exec(st, sql));
}

static void sql_exec(struct lec_store *st, const char *sql)
{
	CHECK_OK(lec_store__exec(st, sql));
}

/* The single integer an SQL query returns; the query ends with a number,
 * given as last. */
static long long sql_int(struct lec_store *st, const char *query,
			 long long last)
{
	char sql[256];
	sqlite3_stmt *stmt = NULL;
	long long value = -1;

	snprintf(sql, sizeof(sql), "%s%lld", query, last);
	if (sqlite3_prepare_v2(st->db, sql, -1, &stmt, NULL) == SQLITE_OK &&
	    sqlite3_step(stmt) == SQLITE_ROW)
		value = sqlite3_column_int64(stmt, 0);
	else
		FAIL_AT("query failed: %s", sql);
	sqlite3_finalize(stmt);
	return value;
}

static void new_project(struct lec_project_new *in, const char *name)
{
	memset(in, 0, sizeof(*in));
	in->name = name;
	in->repo_url = "https://github.com/example/repo";
}

/* Import a project with defaults; returns its id (0 on failure). */
static int64_t mkproject(struct lec_store *st, const char *name,
			 int64_t user_id)
{
	struct lec_project_new in;
	struct lec_project *p = NULL;
	int64_t id;

	new_project(&in, name);
	CHECK_OK(lec_project_create(st, &in, user_id, &p));
	id = p ? p->id : 0;
	lec_project_free(p);
	return id;
}

static void make_private(struct lec_store *st, int64_t id)
{
	struct lec_project_patch patch;

	memset(&patch, 0, sizeof(patch));
	patch.fields = LEC_PROJECT_F_PRIVACY_LEVEL;
	patch.privacy_level = "private";
	CHECK_OK(lec_project_update(st, id, &patch));
}

/* Import ------------------------------------------------------------------- */

TEST(create_with_defaults)
{
	struct lec_store *st = lec_test_store();
	int64_t alice = mkuser(st, "alice");
	const char *tags[] = { "sphinx", " docs ", "", "docs", "api" };
	struct lec_project_new in;
	struct lec_project *p = NULL, *again = NULL;

	new_project(&in, "  My Project  ");
	in.tags = tags;
	in.ntags = 5;
	CHECK_OK(lec_project_create(st, &in, alice, &p));
	CHECK(p != NULL && p->id > 0);
	CHECK_STR(p->name, "My Project");
	CHECK_STR(p->slug, "my-project");
	CHECK_STR(p->description, "");
	CHECK_STR(p->language, "en");
	CHECK_STR(p->programming_language, "words");
	CHECK_STR(p->repo_url, "https://github.com/example/repo");
	CHECK_STR(p->repo_type, "git");
	CHECK_STR(p->homepage, "");
	CHECK_STR(p->default_version, "latest");
	CHECK(p->default_branch == NULL);
	CHECK_STR(p->privacy_level, "public");
	CHECK_STR(p->external_builds_privacy_level, "public");
	CHECK_STR(p->versioning_scheme, "multiple_versions_with_translations");
	CHECK(!p->single_version && !p->external_builds_enabled);
	CHECK(!p->show_version_warning && !p->analytics_disabled);
	CHECK_STR(p->analytics_code, "");
	CHECK(p->readthedocs_yaml_path == NULL);
	CHECK_STR(p->documentation_type, "sphinx");
	CHECK_INT(p->main_language_project_id, 0);
	CHECK(p->translation_of == NULL && p->superproject_slug == NULL);
	CHECK(p->superproject_alias == NULL);
	CHECK(p->created > 0 && p->modified == p->created);
	CHECK_INT(p->ntags, 3);
	if (p->ntags == 3) {
		CHECK_STR(p->tags[0], "api");
		CHECK_STR(p->tags[1], "docs");
		CHECK_STR(p->tags[2], "sphinx");
	}
	CHECK_INT(p->nusers, 1);
	if (p->nusers == 1)
		CHECK_STR(p->users[0], "alice");

	CHECK_OK(lec_project_get(st, "my-project", &again));
	CHECK(again && again->id == p->id && again->ntags == 3);
	lec_project_free(again);
	CHECK_OK(lec_project_get_by_id(st, p->id, &again));
	CHECK_STR(again->slug, "my-project");
	lec_project_free(again);
	lec_project_free(p);
	lec_store_free(st);
}

TEST(create_makes_latest_version)
{
	struct lec_store *st = lec_test_store();
	int64_t id = mkproject(st, "Latest", 0);

	CHECK_INT(sql_int(st, "SELECT count(*) FROM versions WHERE "
			      "project_id = ", id), 1);
	CHECK_INT(sql_int(st, "SELECT count(*) FROM versions WHERE "
			      "slug = 'latest' AND verbose_name = 'latest' AND "
			      "machine = 1 AND active = 1 AND type = 'branch' "
			      "AND identifier IS NULL AND project_id = ", id),
		  1);
	/* No importing user: no maintainer. */
	CHECK_INT(sql_int(st, "SELECT count(*) FROM project_users WHERE "
			      "project_id = ", id), 0);
	lec_store_free(st);
}

TEST(create_explicit_fields)
{
	struct lec_store *st = lec_test_store();
	struct lec_project_new in;
	struct lec_project *p = NULL;

	new_project(&in, "Explicit");
	in.repo_url = "  git://example.org/repo.git ";
	in.repo_type = "git";
	in.language = "pt-br";
	in.programming_language = "py";
	in.homepage = "https://example.com/docs/";
	in.readthedocs_yaml_path = "  docs/.readthedocs.yaml ";
	in.privacy_level = "private";
	in.external_builds_privacy_level = "private";
	CHECK_OK(lec_project_create(st, &in, 0, &p));
	CHECK_STR(p->repo_url, "git://example.org/repo.git");
	CHECK_STR(p->language, "pt-br");
	CHECK_STR(p->programming_language, "py");
	CHECK_STR(p->homepage, "https://example.com/docs/");
	CHECK_STR(p->readthedocs_yaml_path, "docs/.readthedocs.yaml");
	CHECK_STR(p->privacy_level, "private");
	CHECK_STR(p->external_builds_privacy_level, "private");
	CHECK_INT(p->ntags, 0);
	CHECK(p->tags == NULL);
	lec_project_free(p);

	/* A blank programming language is the service's too; a blank YAML
	 * path means the default. */
	new_project(&in, "Blank");
	in.programming_language = "";
	in.readthedocs_yaml_path = "   ";
	CHECK_OK(lec_project_create(st, &in, 0, &p));
	CHECK_STR(p->programming_language, "");
	CHECK(p->readthedocs_yaml_path == NULL);
	lec_project_free(p);

	/* out may be NULL. */
	new_project(&in, "No Out");
	CHECK_OK(lec_project_create(st, &in, 0, NULL));
	CHECK_OK(lec_project_get(st, "no-out", &p));
	lec_project_free(p);
	lec_store_free(st);
}

TEST(create_name_rules)
{
	struct lec_store *st = lec_test_store();
	struct lec_project_new in;
	struct lec_project *p = NULL;
	char name[4 * LEC_PROJECT_NAME_MAX + 8];
	size_t i;

	CHECK_ERR(lec_project_create(st, NULL, 0, NULL), LEC_EINVALID);
	new_project(&in, NULL);
	CHECK_FAIL(lec_project_create(st, &in, 0, &p), LEC_EINVALID, "name",
		   "This field is required.");
	CHECK(p == NULL);
	new_project(&in, "");
	CHECK_FAIL(lec_project_create(st, &in, 0, NULL), LEC_EINVALID, "name",
		   "This field may not be blank.");
	new_project(&in, " \t ");
	CHECK_FAIL(lec_project_create(st, &in, 0, NULL), LEC_EINVALID, "name",
		   "This field may not be blank.");
	new_project(&in, "***");
	CHECK_FAIL(lec_project_create(st, &in, 0, NULL), LEC_EINVALID, "name",
		   "Invalid project name \"***\": no slug generated.");

	/* 64 characters are one too many; 63 are fine. */
	memset(name, 'a', LEC_PROJECT_NAME_MAX + 1);
	name[LEC_PROJECT_NAME_MAX + 1] = '\0';
	new_project(&in, name);
	CHECK_FAIL(lec_project_create(st, &in, 0, NULL), LEC_EINVALID, "name",
		   "Ensure this field has no more than 63 characters.");
	name[LEC_PROJECT_NAME_MAX] = '\0';
	CHECK_OK(lec_project_create(st, &in, 0, &p));
	CHECK_INT(strlen(p->slug), 63);
	lec_project_free(p);

	/* Characters, not bytes: 63 two-byte letters fit. */
	for (i = 0; i < LEC_PROJECT_NAME_MAX; i++)
		memcpy(name + 2 * i, "\xc3\xa9", 2);
	name[2 * LEC_PROJECT_NAME_MAX] = '\0';
	new_project(&in, name);
	CHECK_OK(lec_project_create(st, &in, 0, NULL));
	memcpy(name + 2 * LEC_PROJECT_NAME_MAX, "\xc3\xa9", 3);
	CHECK_FAIL(lec_project_create(st, &in, 0, NULL), LEC_EINVALID, "name",
		   "Ensure this field has no more than 63 characters.");

	/* The user must exist. */
	new_project(&in, "Orphan");
	CHECK_ERR(lec_project_create(st, &in, 999, NULL), LEC_ENOTFOUND);
	CHECK_ERR(lec_project_get(st, "orphan", &p), LEC_ENOTFOUND);
	lec_store_free(st);
}

TEST(create_slug_taken)
{
	struct lec_store *st = lec_test_store();
	struct lec_project_new in;

	mkproject(st, "Test Project", 0);
	new_project(&in, "test  PROJECT");
	CHECK_FAIL(lec_project_create(st, &in, 0, NULL), LEC_EEXISTS, "name",
		   "Project with slug \"test-project\" already exists.");
	/* The name is checked before the other fields, as the service
	 * reports it first. */
	in.repo_url = "not-a-url";
	CHECK_FAIL(lec_project_create(st, &in, 0, NULL), LEC_EEXISTS, "name",
		   "Project with slug \"test-project\" already exists.");
	CHECK_INT(sql_int(st, "SELECT count(*) FROM projects WHERE ",
			  1), 1);
	CHECK_INT(sql_int(st, "SELECT count(*) FROM versions WHERE ", 1),
		  1);
	lec_store_free(st);
}

static void check_repo_url(struct lec_store *st, const char *url,
			   const char *error, int line)
{
	struct lec_project_new in;
	int rc;

	new_project(&in, "Repo");
	in.repo_url = url;
	rc = lec_project_create(st, &in, 0, NULL);
	if (error == NULL) {
		struct lec_project *p = NULL;

		if (rc != LEC_OK)
			FAIL_AT("line %d: \"%s\" refused: %s", line, url,
				lec_error_last());
		else if (lec_project_get(st, "repo", &p) == LEC_OK)
			lec_project_delete(st, p->id);
		lec_project_free(p);
		return;
	}
	if (rc != LEC_EINVALID || strcmp(lec_error_last(), error) != 0 ||
	    lec_error_last_field() == NULL ||
	    strcmp(lec_error_last_field(), "repository.url") != 0)
		FAIL_AT("line %d: \"%s\" gave %d \"%s\" (%s), expected \"%s\"",
			line, url ? url : "(null)", rc, lec_error_last(),
			lec_error_last_field() ? lec_error_last_field() : "-",
			error);
}

#define SSH "Manual cloning via SSH is not supported"
#define SCHEME "Invalid scheme for URL"
#define CHARS "Invalid character in the URL"

TEST(create_repository_url_rules)
{
	struct lec_store *st = lec_test_store();
	char url[LEC_PROJECT_REPO_URL_MAX + 2];
	struct lec_project_new in;

	check_repo_url(st, "https://github.com/a/b", NULL, __LINE__);
	check_repo_url(st, "http://example.com/r.git", NULL, __LINE__);
	check_repo_url(st, "git://example.com/r.git", NULL, __LINE__);
	check_repo_url(st, "HTTPS://GITHUB.COM/A/B", NULL, __LINE__);
	check_repo_url(st, "file:///srv/git/repo",
		       "This server does not build local repositories: "
		       "'file:///srv/git/repo'",
		       __LINE__);
	check_repo_url(st, "lp:launchpad-project", NULL, __LINE__);
	check_repo_url(st, "git@github.com:a/b.git", SSH, __LINE__);
	check_repo_url(st, "ssh://git@example.com/r.git", SSH, __LINE__);
	check_repo_url(st, "ssh+git://example.com/r.git", SSH, __LINE__);
	check_repo_url(st, "SSH://example.com/r.git", SSH, __LINE__);
	check_repo_url(st, "https://x.org/a&&b", CHARS, __LINE__);
	check_repo_url(st, "https://x.org/a|b", CHARS, __LINE__);
	check_repo_url(st, "git@github.com:a|b", CHARS, __LINE__);
	check_repo_url(st, "not-a-url", SCHEME, __LINE__);
	check_repo_url(st, "javascript:alert(1)", SCHEME, __LINE__);
	check_repo_url(st, "ftp://example.com/r", SCHEME, __LINE__);
	check_repo_url(st, "//example.com/x", SCHEME, __LINE__);
	check_repo_url(st, "user.name@host:x", SCHEME, __LINE__);
	check_repo_url(st, "/srv/git/repo", SCHEME, __LINE__);
	check_repo_url(st, "", "This field may not be blank.", __LINE__);
	check_repo_url(st, "   ", "This field may not be blank.", __LINE__);
	check_repo_url(st, NULL, "This field is required.", __LINE__);

	memcpy(url, "https://e.com/", 14);
	memset(url + 14, 'r', sizeof(url) - 15);
	url[sizeof(url) - 1] = '\0';
	check_repo_url(st, url,
		       "Ensure this field has no more than 255 characters.",
		       __LINE__);
	url[LEC_PROJECT_REPO_URL_MAX] = '\0';
	check_repo_url(st, url, NULL, __LINE__);

	new_project(&in, "Svn");
	in.repo_type = "svn";
	CHECK_FAIL(lec_project_create(st, &in, 0, NULL), LEC_EINVALID,
		   "repository.type", "\"svn\" is not a valid choice.");
	lec_store_free(st);
}

TEST(create_language_rules)
{
	struct lec_store *st = lec_test_store();
	struct lec_project_new in;

	new_project(&in, "Lang");
	in.language = "xx";
	CHECK_FAIL(lec_project_create(st, &in, 0, NULL), LEC_EINVALID,
		   "language", "\"xx\" is not a valid choice.");
	in.language = "zh";
	CHECK_FAIL(lec_project_create(st, &in, 0, NULL), LEC_EINVALID,
		   "language", "\"zh\" is not a valid choice.");
	in.language = "";
	CHECK_FAIL(lec_project_create(st, &in, 0, NULL), LEC_EINVALID,
		   "language", "\"\" is not a valid choice.");
	in.language = "es";
	in.programming_language = "cobol";
	CHECK_FAIL(lec_project_create(st, &in, 0, NULL), LEC_EINVALID,
		   "programming_language", "\"cobol\" is not a valid choice.");
	in.programming_language = "Python";
	CHECK_FAIL(lec_project_create(st, &in, 0, NULL), LEC_EINVALID,
		   "programming_language", "\"Python\" is not a valid choice.");
	in.programming_language = "cpp";
	CHECK_OK(lec_project_create(st, &in, 0, NULL));
	in.name = "Private";
	in.privacy_level = "secret";
	CHECK_FAIL(lec_project_create(st, &in, 0, NULL), LEC_EINVALID,
		   "privacy_level", "\"secret\" is not a valid choice.");
	in.privacy_level = NULL;
	in.external_builds_privacy_level = "hidden";
	CHECK_FAIL(lec_project_create(st, &in, 0, NULL), LEC_EINVALID,
		   "external_builds_privacy_level",
		   "\"hidden\" is not a valid choice.");
	lec_store_free(st);
}

static void check_homepage(struct lec_store *st, const char *url, int valid,
			   int line)
{
	struct lec_project_new in;
	int rc;

	new_project(&in, "Home");
	in.homepage = url;
	rc = lec_project_create(st, &in, 0, NULL);
	if (valid) {
		struct lec_project *p = NULL;

		if (rc != LEC_OK)
			FAIL_AT("line %d: \"%s\" refused: %s", line, url,
				lec_error_last());
		else if (lec_project_get(st, "home", &p) == LEC_OK)
			lec_project_delete(st, p->id);
		lec_project_free(p);
	} else if (rc != LEC_EINVALID ||
		   strcmp(lec_error_last(), "Enter a valid URL.") != 0 ||
		   lec_error_last_field() == NULL ||
		   strcmp(lec_error_last_field(), "homepage") != 0) {
		FAIL_AT("line %d: \"%s\" gave %d \"%s\"", line, url, rc,
			lec_error_last());
	}
}

TEST(create_homepage_rules)
{
	struct lec_store *st = lec_test_store();
	struct lec_project_new in;
	char url[LEC_PROJECT_HOMEPAGE_MAX + 2];

	check_homepage(st, "https://example.com", 1, __LINE__);
	check_homepage(st, "http://localhost:8000/docs", 1, __LINE__);
	check_homepage(st, "http://127.0.0.1/", 1, __LINE__);
	check_homepage(st, "https://u:pw@docs.example.co.uk/a?b=c#d", 1,
		       __LINE__);
	check_homepage(st, "http://[::1]:8080/", 1, __LINE__);
	check_homepage(st, "ftp://files.example.org/", 1, __LINE__);
	check_homepage(st, "https://xn--caf-dma.example/", 1, __LINE__);
	check_homepage(st, "https://example.com.", 1, __LINE__);
	check_homepage(st, "", 1, __LINE__);
	check_homepage(st, "example.com", 0, __LINE__);
	check_homepage(st, "https://", 0, __LINE__);
	check_homepage(st, "http://exa mple.com", 0, __LINE__);
	check_homepage(st, "http://example.com/a b", 0, __LINE__);
	check_homepage(st, "https://ex_ample.com", 0, __LINE__);
	check_homepage(st, "http://1.2.3", 0, __LINE__);
	check_homepage(st, "http://256.1.1.1", 0, __LINE__);
	check_homepage(st, "http://01.1.1.1", 0, __LINE__);
	check_homepage(st, "mailto:a@b.cd", 0, __LINE__);
	check_homepage(st, "javascript://example.com", 0, __LINE__);
	check_homepage(st, "http://example.c0m", 0, __LINE__);
	check_homepage(st, "http://-a.com", 0, __LINE__);
	check_homepage(st, "http://a-.com", 0, __LINE__);
	check_homepage(st, "http://example.com:123456", 0, __LINE__);
	check_homepage(st, "http://example.com:", 0, __LINE__);
	check_homepage(st, "http://a@b@example.com", 0, __LINE__);
	check_homepage(st, "http://com", 0, __LINE__);

	new_project(&in, "Home");
	memcpy(url, "https://e.com/", 14);
	memset(url + 14, 'p', sizeof(url) - 15);
	url[sizeof(url) - 1] = '\0';
	in.homepage = url;
	CHECK_FAIL(lec_project_create(st, &in, 0, NULL), LEC_EINVALID,
		   "homepage",
		   "Ensure this field has no more than 200 characters.");
	lec_store_free(st);
}

TEST(create_tag_rules)
{
	struct lec_store *st = lec_test_store();
	char long_tag[LEC_PROJECT_TAG_MAX + 2];
	const char *tags[2] = { "ok", NULL };
	struct lec_project_new in;

	new_project(&in, "Tags");
	in.tags = tags;
	in.ntags = 2;
	CHECK_FAIL(lec_project_create(st, &in, 0, NULL), LEC_EINVALID, "tags",
		   "This field may not be null.");
	memset(long_tag, 't', sizeof(long_tag) - 1);
	long_tag[sizeof(long_tag) - 1] = '\0';
	tags[1] = long_tag;
	CHECK_FAIL(lec_project_create(st, &in, 0, NULL), LEC_EINVALID, "tags",
		   "Ensure this field has no more than 100 characters.");
	in.tags = NULL;
	CHECK_FAIL(lec_project_create(st, &in, 0, NULL), LEC_EINVALID, "tags",
		   "This field may not be null.");
	long_tag[LEC_PROJECT_TAG_MAX] = '\0';
	in.tags = tags;
	CHECK_OK(lec_project_create(st, &in, 0, NULL));
	CHECK_INT(sql_int(st, "SELECT count(*) FROM project_tags WHERE ",
			  1), 2);
	lec_store_free(st);
}

static void check_yaml(struct lec_store *st, const char *path,
		       const char *error, int line)
{
	struct lec_project_new in;
	int rc;

	new_project(&in, "Yaml");
	in.readthedocs_yaml_path = path;
	rc = lec_project_create(st, &in, 0, NULL);
	if (error == NULL) {
		struct lec_project *p = NULL;

		if (rc != LEC_OK)
			FAIL_AT("line %d: \"%s\" refused: %s", line, path,
				lec_error_last());
		else if (lec_project_get(st, "yaml", &p) == LEC_OK)
			lec_project_delete(st, p->id);
		lec_project_free(p);
	} else if (rc != LEC_EINVALID ||
		   strcmp(lec_error_last(), error) != 0 ||
		   lec_error_last_field() == NULL ||
		   strcmp(lec_error_last_field(), "readthedocs_yaml_path")) {
		FAIL_AT("line %d: \"%s\" gave %d \"%s\"", line, path, rc,
			lec_error_last());
	}
}

TEST(create_yaml_path_rules)
{
	struct lec_store *st = lec_test_store();
	static const char only[] =
		"The only allowed filename is <code>.readthedocs.yaml</code>.";
	static const char chars[] =
		"Found invalid character. Avoid these characters: "
		"<code>[]{}()`&#x27;&quot;\\%&amp;&lt;&gt;|,</code>";

	check_yaml(st, ".readthedocs.yaml", NULL, __LINE__);
	check_yaml(st, "sub/dir/.readthedocs.yaml", NULL, __LINE__);
	check_yaml(st, "/.readthedocs.yaml",
		   "Use a relative path. It should not begin with '/'. The "
		   "path is relative to the root of your repository.",
		   __LINE__);
	check_yaml(st, "docs/",
		   "The path cannot end with '/', as it cannot be a "
		   "directory.",
		   __LINE__);
	check_yaml(st, "../.readthedocs.yaml",
		   "Found invalid sequence in path: '..'", __LINE__);
	check_yaml(st, "a'b/.readthedocs.yaml", chars, __LINE__);
	check_yaml(st, "a,b/.readthedocs.yaml", chars, __LINE__);
	check_yaml(st, "readthedocs.yaml", only, __LINE__);
	check_yaml(st, "docs/x.readthedocs.yaml", only, __LINE__);
	check_yaml(st, "docs/.readthedocs.yml", only, __LINE__);
	lec_store_free(st);
}

/* Lists -------------------------------------------------------------------- */

/* alice maintains alpha, beta and gamma-docs; bob maintains delta; nobody
 * maintains epsilon. */
struct fixture {
	struct lec_store *st;
	int64_t alice, bob, root;
	int64_t alpha, beta, gamma, delta, epsilon;
};

static void fixture_open(struct fixture *f)
{
	struct lec_project_new in;
	struct lec_project *p = NULL;

	f->st = lec_test_store();
	f->alice = mkuser(f->st, "alice");
	f->bob = mkuser(f->st, "bob");
	f->root = mkuser(f->st, "root");
	make_superuser(f->st, f->root);
	f->beta = mkproject(f->st, "Beta", f->alice);
	f->alpha = mkproject(f->st, "Alpha Project", f->alice);
	new_project(&in, "Gamma Docs");
	in.language = "es";
	in.programming_language = "py";
	CHECK_OK(lec_project_create(f->st, &in, f->alice, &p));
	f->gamma = p ? p->id : 0;
	lec_project_free(p);
	f->delta = mkproject(f->st, "Delta", f->bob);
	f->epsilon = mkproject(f->st, "Epsilon Project", 0);
}

static void check_slugs(const struct lec_project_list *list,
			const char *const *slugs, size_t n, int line)
{
	size_t i;

	if (list->len != n) {
		FAIL_AT("line %d: %zu projects, expected %zu", line, list->len,
			n);
		return;
	}
	for (i = 0; i < n; i++)
		if (strcmp(list->items[i].slug, slugs[i]) != 0)
			FAIL_AT("line %d: item %zu is %s, expected %s", line,
				i, list->items[i].slug, slugs[i]);
}

TEST(list_for_admin_user)
{
	struct fixture f;
	struct lec_project_filter filter;
	struct lec_project_list list;
	static const char *const mine[] = { "alpha-project", "beta",
					    "gamma-docs" };
	static const char *const all[] = { "alpha-project", "beta",
					   "delta", "epsilon-project",
					   "gamma-docs" };

	fixture_open(&f);
	memset(&filter, 0, sizeof(filter));
	filter.admin_user_id = f.alice;
	CHECK_OK(lec_project_list(f.st, &filter, NULL, &list));
	check_slugs(&list, mine, 3, __LINE__);
	CHECK_INT(list.total, 3);
	/* Members are loaded with each item. */
	CHECK_INT(list.items[0].nusers, 1);
	CHECK_STR(list.items[0].users[0], "alice");
	lec_project_list_dispose(&list);
	CHECK(list.items == NULL && list.len == 0);

	filter.admin_user_id = f.bob;
	CHECK_OK(lec_project_list(f.st, &filter, NULL, &list));
	check_slugs(&list, all + 2, 1, __LINE__);
	lec_project_list_dispose(&list);

	filter.admin_user_id = f.root; /* superuser: everything */
	CHECK_OK(lec_project_list(f.st, &filter, NULL, &list));
	check_slugs(&list, all, 5, __LINE__);
	lec_project_list_dispose(&list);

	filter.admin_user_id = 4242; /* no such user: nothing */
	CHECK_OK(lec_project_list(f.st, &filter, NULL, &list));
	CHECK_INT(list.len, 0);
	CHECK_INT(list.total, 0);
	lec_project_list_dispose(&list);

	CHECK_OK(lec_project_list(f.st, NULL, NULL, &list));
	check_slugs(&list, all, 5, __LINE__);
	lec_project_list_dispose(&list);
	lec_store_free(f.st);
}

/* ?repository=: the projects of one local repository, however its URL
 * or the filter's is written (issue 38). */
TEST(list_by_local_repository)
{
	struct lec_store *st = lec_test_store();
	const char *tmp = lec_test_tmpdir();
	struct lec_project_filter filter = { 0 };
	struct lec_project_list list = { 0 };
	char dotgit[1024], sql[4096], want[1024];
	static const char *const both[] = { "dotgit", "plain" };

	snprintf(dotgit, sizeof(dotgit), "%s/r/.git", tmp);
	CHECK_OK(lec__mkdirs(dotgit));
	snprintf(dotgit, sizeof(dotgit), "%s/other", tmp);
	CHECK_OK(lec__mkdirs(dotgit));
	lec_test_project(st, "plain");
	lec_test_project(st, "dotgit");
	lec_test_project(st, "other");
	lec_test_project(st, "forge");
	snprintf(sql, sizeof(sql),
		 "UPDATE projects SET repo_url = CASE slug"
		 " WHEN 'plain' THEN 'file://%s/r'"
		 " WHEN 'dotgit' THEN 'file://localhost%s/r/.git/'"
		 " WHEN 'other' THEN 'file://%s/other' ELSE repo_url END",
		 tmp, tmp, tmp);
	CHECK_OK(lec_store__exec(st, sql));
	snprintf(want, sizeof(want), "%s/./r/", tmp);
	filter.repository = want;
	CHECK_OK(lec_project_list(st, &filter, NULL, &list));
	check_slugs(&list, both, 2, __LINE__);
	CHECK_INT(list.total, 2);
	lec_project_list_dispose(&list);
	/* A forge's URL names no local repository. */
	filter.repository = "https://example.org/r.git";
	CHECK_OK(lec_project_list(st, &filter, NULL, &list));
	CHECK_INT(list.total, 0);
	lec_project_list_dispose(&list);
	lec_store_free(st);
}

TEST(list_filters)
{
	struct fixture f;
	struct lec_project_filter filter;
	struct lec_project_list list;
	static const char *const projects[] = { "alpha-project",
						"epsilon-project" };
	static const char *const gamma[] = { "gamma-docs" };

	fixture_open(&f);
	memset(&filter, 0, sizeof(filter));
	filter.name = "PROJ";
	CHECK_OK(lec_project_list(f.st, &filter, NULL, &list));
	check_slugs(&list, projects, 2, __LINE__);
	lec_project_list_dispose(&list);

	filter.admin_user_id = f.alice;
	CHECK_OK(lec_project_list(f.st, &filter, NULL, &list));
	check_slugs(&list, projects, 1, __LINE__);
	lec_project_list_dispose(&list);

	memset(&filter, 0, sizeof(filter));
	filter.slug = "A-D";
	CHECK_OK(lec_project_list(f.st, &filter, NULL, &list));
	check_slugs(&list, gamma, 1, __LINE__);
	lec_project_list_dispose(&list);

	/* LIKE wildcards are plain characters. */
	filter.slug = "%";
	CHECK_OK(lec_project_list(f.st, &filter, NULL, &list));
	CHECK_INT(list.len, 0);
	lec_project_list_dispose(&list);

	memset(&filter, 0, sizeof(filter));
	filter.language = "es";
	CHECK_OK(lec_project_list(f.st, &filter, NULL, &list));
	check_slugs(&list, gamma, 1, __LINE__);
	lec_project_list_dispose(&list);
	filter.language = "e"; /* exact, not a substring */
	CHECK_OK(lec_project_list(f.st, &filter, NULL, &list));
	CHECK_INT(list.len, 0);
	lec_project_list_dispose(&list);

	memset(&filter, 0, sizeof(filter));
	filter.programming_language = "py";
	filter.name = "docs";
	CHECK_OK(lec_project_list(f.st, &filter, NULL, &list));
	check_slugs(&list, gamma, 1, __LINE__);
	lec_project_list_dispose(&list);
	filter.programming_language = "words";
	CHECK_OK(lec_project_list(f.st, &filter, NULL, &list));
	CHECK_INT(list.len, 0);
	lec_project_list_dispose(&list);

	/* Empty strings do not filter. */
	memset(&filter, 0, sizeof(filter));
	filter.name = filter.slug = filter.language = "";
	filter.programming_language = "";
	CHECK_OK(lec_project_list(f.st, &filter, NULL, &list));
	CHECK_INT(list.len, 5);
	lec_project_list_dispose(&list);
	lec_store_free(f.st);
}

TEST(list_paging)
{
	struct fixture f;
	struct lec_page page = { 2, 1 };
	struct lec_project_list list;
	static const char *const middle[] = { "beta", "delta" };

	fixture_open(&f);
	CHECK_OK(lec_project_list(f.st, NULL, &page, &list));
	check_slugs(&list, middle, 2, __LINE__);
	CHECK_INT(list.total, 5);
	lec_project_list_dispose(&list);

	page.limit = 10;
	page.offset = 4;
	CHECK_OK(lec_project_list(f.st, NULL, &page, &list));
	CHECK_INT(list.len, 1);
	CHECK_INT(list.total, 5);
	lec_project_list_dispose(&list);

	page.offset = 9;
	CHECK_OK(lec_project_list(f.st, NULL, &page, &list));
	CHECK_INT(list.len, 0);
	CHECK_INT(list.total, 5);
	lec_project_list_dispose(&list);

	page.limit = 0; /* no limit */
	page.offset = 3;
	CHECK_OK(lec_project_list(f.st, NULL, &page, &list));
	CHECK_INT(list.len, 2);
	lec_project_list_dispose(&list);
	lec_store_free(f.st);
}

TEST(get_missing)
{
	struct lec_store *st = lec_test_store();
	struct lec_project *p = NULL;

	CHECK_FAIL(lec_project_get(st, "nope", &p), LEC_ENOTFOUND, NULL,
		   "no project 'nope'");
	CHECK(p == NULL);
	CHECK_ERR(lec_project_get(st, NULL, &p), LEC_EINVALID);
	CHECK_FAIL(lec_project_get_by_id(st, 77, &p), LEC_ENOTFOUND, NULL,
		   "no project with id 77");
	lec_store_free(st);
}

/* Updates ------------------------------------------------------------------ */

TEST(update_fields)
{
	struct lec_store *st = lec_test_store();
	int64_t id = mkproject(st, "Original", 0);
	const char *tags[] = { "zeta", "eta" };
	struct lec_project_patch patch;
	struct lec_project *before = NULL, *p = NULL;

	CHECK_OK(lec_project_get_by_id(st, id, &before));
	usleep(2000);
	memset(&patch, 0, sizeof(patch));
	patch.fields = ~0u & ~(unsigned)LEC_PROJECT_F_SINGLE_VERSION;
	patch.name = " Renamed ";
	patch.repo_url = "https://gitlab.com/x/y.git";
	patch.repo_type = "git";
	patch.language = "fr";
	patch.programming_language = "go";
	patch.homepage = "https://example.org";
	patch.tags = tags;
	patch.ntags = 2;
	patch.default_version = "stable";
	patch.default_branch = " main ";
	patch.analytics_code = "UA-1234-5";
	patch.analytics_disabled = 7;
	patch.show_version_warning = 1;
	patch.versioning_scheme = "multiple_versions_without_translations";
	patch.external_builds_enabled = 1;
	patch.readthedocs_yaml_path = "docs/.readthedocs.yaml";
	patch.privacy_level = "private";
	patch.external_builds_privacy_level = "private";
	patch.description = "  A description.  ";
	patch.documentation_type = "mkdocs";
	CHECK_OK(lec_project_update(st, id, &patch));
	CHECK_OK(lec_project_get_by_id(st, id, &p));
	CHECK_STR(p->name, "Renamed");
	CHECK_STR(p->slug, "original"); /* never changes */
	CHECK_STR(p->repo_url, "https://gitlab.com/x/y.git");
	CHECK_STR(p->language, "fr");
	CHECK_STR(p->programming_language, "go");
	CHECK_STR(p->homepage, "https://example.org");
	CHECK_INT(p->ntags, 2);
	CHECK_STR(p->tags[0], "eta");
	CHECK_STR(p->tags[1], "zeta");
	CHECK_STR(p->default_version, "stable");
	CHECK_STR(p->default_branch, "main");
	CHECK_STR(p->analytics_code, "UA-1234-5");
	CHECK_INT(p->analytics_disabled, 1);
	CHECK_INT(p->show_version_warning, 1);
	CHECK_STR(p->versioning_scheme,
		  "multiple_versions_without_translations");
	CHECK_INT(p->single_version, 0);
	CHECK_INT(p->external_builds_enabled, 1);
	CHECK_STR(p->readthedocs_yaml_path, "docs/.readthedocs.yaml");
	CHECK_STR(p->privacy_level, "private");
	CHECK_STR(p->external_builds_privacy_level, "private");
	CHECK_STR(p->description, "  A description.  ");
	CHECK_STR(p->documentation_type, "mkdocs");
	CHECK(p->modified > before->modified);
	CHECK_INT(p->created, before->created);
	lec_project_free(p);

	/* Clearing: NULL or blank resets the optional fields; an empty tag
	 * list removes every tag. */
	memset(&patch, 0, sizeof(patch));
	patch.fields = LEC_PROJECT_F_DEFAULT_BRANCH | LEC_PROJECT_F_HOMEPAGE |
		       LEC_PROJECT_F_ANALYTICS_CODE | LEC_PROJECT_F_TAGS |
		       LEC_PROJECT_F_READTHEDOCS_YAML_PATH;
	patch.default_branch = "  ";
	CHECK_OK(lec_project_update(st, id, &patch));
	CHECK_OK(lec_project_get_by_id(st, id, &p));
	CHECK(p->default_branch == NULL && p->readthedocs_yaml_path == NULL);
	CHECK_STR(p->homepage, "");
	CHECK_STR(p->analytics_code, "");
	CHECK_INT(p->ntags, 0);
	/* Untouched fields keep their values. */
	CHECK_STR(p->name, "Renamed");
	CHECK_STR(p->language, "fr");
	lec_project_free(p);
	lec_project_free(before);

	/* An empty patch is fine (and touches modified only). */
	memset(&patch, 0, sizeof(patch));
	CHECK_OK(lec_project_update(st, id, &patch));
	CHECK_ERR(lec_project_update(st, id, NULL), LEC_EINVALID);
	CHECK_ERR(lec_project_update(st, 999, &patch), LEC_ENOTFOUND);
	lec_store_free(st);
}

TEST(update_single_version)
{
	struct lec_store *st = lec_test_store();
	int64_t id = mkproject(st, "Single", 0);
	struct lec_project_patch patch;
	struct lec_project *p = NULL;

	memset(&patch, 0, sizeof(patch));
	patch.fields = LEC_PROJECT_F_SINGLE_VERSION;
	patch.single_version = 1;
	CHECK_OK(lec_project_update(st, id, &patch));
	CHECK_OK(lec_project_get_by_id(st, id, &p));
	CHECK_STR(p->versioning_scheme, "single_version_without_translations");
	CHECK_INT(p->single_version, 1);
	lec_project_free(p);

	patch.single_version = 0;
	CHECK_OK(lec_project_update(st, id, &patch));
	CHECK_OK(lec_project_get_by_id(st, id, &p));
	CHECK_STR(p->versioning_scheme, "multiple_versions_with_translations");
	CHECK_INT(p->single_version, 0);
	lec_project_free(p);

	/* false leaves another multiple-version scheme alone */
	patch.fields = LEC_PROJECT_F_VERSIONING_SCHEME;
	patch.versioning_scheme = "multiple_versions_without_translations";
	CHECK_OK(lec_project_update(st, id, &patch));
	patch.fields = LEC_PROJECT_F_SINGLE_VERSION;
	CHECK_OK(lec_project_update(st, id, &patch));
	CHECK_OK(lec_project_get_by_id(st, id, &p));
	CHECK_STR(p->versioning_scheme,
		  "multiple_versions_without_translations");
	lec_project_free(p);

	/* An explicit scheme wins over the flag. */
	patch.fields = LEC_PROJECT_F_SINGLE_VERSION |
		       LEC_PROJECT_F_VERSIONING_SCHEME;
	patch.single_version = 1;
	patch.versioning_scheme = "multiple_versions_with_translations";
	CHECK_OK(lec_project_update(st, id, &patch));
	CHECK_OK(lec_project_get_by_id(st, id, &p));
	CHECK_STR(p->versioning_scheme, "multiple_versions_with_translations");
	lec_project_free(p);
	lec_store_free(st);
}

TEST(update_validation)
{
	struct lec_store *st = lec_test_store();
	int64_t id = mkproject(st, "Valid", 0);
	struct lec_project_patch patch;
	struct lec_project *p = NULL;
	char code[LEC_PROJECT_ANALYTICS_CODE_MAX + 2];

	memset(&patch, 0, sizeof(patch));
	patch.fields = LEC_PROJECT_F_NAME;
	CHECK_FAIL(lec_project_update(st, id, &patch), LEC_EINVALID, "name",
		   "This field may not be null.");
	/* A name without a slug is fine once the slug exists. */
	patch.name = "***";
	CHECK_OK(lec_project_update(st, id, &patch));

	/* A failing field leaves every other field unchanged. */
	patch.fields = LEC_PROJECT_F_NAME | LEC_PROJECT_F_LANGUAGE;
	patch.name = "Changed";
	patch.language = "klingon";
	CHECK_FAIL(lec_project_update(st, id, &patch), LEC_EINVALID,
		   "language", "\"klingon\" is not a valid choice.");
	CHECK_OK(lec_project_get_by_id(st, id, &p));
	CHECK_STR(p->name, "***");
	lec_project_free(p);

	memset(&patch, 0, sizeof(patch));
	patch.fields = LEC_PROJECT_F_REPO_URL;
	patch.repo_url = "git@github.com:a/b.git";
	CHECK_FAIL(lec_project_update(st, id, &patch), LEC_EINVALID,
		   "repository.url", SSH);
	patch.repo_url = NULL;
	CHECK_FAIL(lec_project_update(st, id, &patch), LEC_EINVALID,
		   "repository.url", "This field may not be null.");
	patch.fields = LEC_PROJECT_F_REPO_TYPE;
	CHECK_FAIL(lec_project_update(st, id, &patch), LEC_EINVALID,
		   "repository.type", "This field may not be null.");
	patch.fields = LEC_PROJECT_F_DEFAULT_VERSION;
	patch.default_version = "";
	CHECK_FAIL(lec_project_update(st, id, &patch), LEC_EINVALID,
		   "default_version", "This field may not be blank.");
	patch.fields = LEC_PROJECT_F_ANALYTICS_CODE;
	memset(code, 'x', sizeof(code) - 1);
	code[sizeof(code) - 1] = '\0';
	patch.analytics_code = code;
	CHECK_FAIL(lec_project_update(st, id, &patch), LEC_EINVALID,
		   "analytics_code",
		   "Ensure this field has no more than 50 characters.");
	patch.fields = LEC_PROJECT_F_VERSIONING_SCHEME;
	patch.versioning_scheme = "bogus";
	CHECK_FAIL(lec_project_update(st, id, &patch), LEC_EINVALID,
		   "versioning_scheme", "\"bogus\" is not a valid choice.");
	patch.fields = LEC_PROJECT_F_DOCUMENTATION_TYPE;
	patch.documentation_type = "latex";
	CHECK_FAIL(lec_project_update(st, id, &patch), LEC_EINVALID,
		   "documentation_type", "\"latex\" is not a valid choice.");
	patch.fields = LEC_PROJECT_F_DESCRIPTION;
	CHECK_FAIL(lec_project_update(st, id, &patch), LEC_EINVALID,
		   "description", "This field may not be null.");
	patch.fields = LEC_PROJECT_F_HOMEPAGE;
	patch.homepage = "nope";
	CHECK_FAIL(lec_project_update(st, id, &patch), LEC_EINVALID,
		   "homepage", "Enter a valid URL.");
	patch.fields = LEC_PROJECT_F_READTHEDOCS_YAML_PATH;
	patch.readthedocs_yaml_path = "x.yaml";
	CHECK_FAIL(lec_project_update(st, id, &patch), LEC_EINVALID,
		   "readthedocs_yaml_path",
		   "The only allowed filename is "
		   "<code>.readthedocs.yaml</code>.");
	patch.fields = LEC_PROJECT_F_PRIVACY_LEVEL;
	patch.privacy_level = NULL;
	CHECK_FAIL(lec_project_update(st, id, &patch), LEC_EINVALID,
		   "privacy_level", "This field may not be null.");
	lec_store_free(st);
}

/* Deleting ----------------------------------------------------------------- */

TEST(delete_cascades)
{
	struct fixture f;
	const char *tags[] = { "one", "two" };
	struct lec_project_patch patch;
	struct lec_project *p = NULL;
	char msg[64];

	fixture_open(&f);
	memset(&patch, 0, sizeof(patch));
	patch.fields = LEC_PROJECT_F_TAGS;
	patch.tags = tags;
	patch.ntags = 2;
	CHECK_OK(lec_project_update(f.st, f.alpha, &patch));
	CHECK_OK(lec_project_maintainer_add(f.st, f.alpha, f.bob));
	/* alpha is beta's parent and gamma's main language project. */
	CHECK_OK(lec_subproject_create(f.st, f.alpha, "beta", NULL, f.alice,
				       NULL));
	CHECK_OK(lec_project_set_translation_of(f.st, f.gamma, f.alpha));

	CHECK_OK(lec_project_delete(f.st, f.alpha));
	CHECK_ERR(lec_project_get_by_id(f.st, f.alpha, &p), LEC_ENOTFOUND);
	CHECK_INT(sql_int(f.st, "SELECT count(*) FROM project_tags WHERE "
				"project_id = ", f.alpha), 0);
	CHECK_INT(sql_int(f.st, "SELECT count(*) FROM project_users WHERE "
				"project_id = ", f.alpha), 0);
	CHECK_INT(sql_int(f.st, "SELECT count(*) FROM versions WHERE "
				"project_id = ", f.alpha), 0);
	CHECK_INT(sql_int(f.st, "SELECT count(*) FROM subprojects WHERE "
				"parent_id = ", f.alpha), 0);
	/* The other projects and the users stay. */
	CHECK_OK(lec_project_get_by_id(f.st, f.beta, &p));
	CHECK(p->superproject_slug == NULL);
	lec_project_free(p);
	CHECK_OK(lec_project_get_by_id(f.st, f.gamma, &p));
	CHECK_INT(p->main_language_project_id, 0);
	CHECK(p->translation_of == NULL);
	lec_project_free(p);
	CHECK_INT(sql_int(f.st, "SELECT count(*) FROM users WHERE ", 1),
		  3);
	snprintf(msg, sizeof(msg), "no project with id %lld",
		 (long long)f.alpha);
	CHECK_FAIL(lec_project_delete(f.st, f.alpha), LEC_ENOTFOUND, NULL,
		   msg);

	/* Deleting a child removes its link too. */
	CHECK_OK(lec_subproject_create(f.st, f.beta, "gamma-docs", "g",
				       f.alice, NULL));
	CHECK_OK(lec_project_delete(f.st, f.gamma));
	CHECK_INT(sql_int(f.st, "SELECT count(*) FROM subprojects WHERE ",
			  1), 0);
	lec_store_free(f.st);
}

/* Maintainers and access ---------------------------------------------------- */

TEST(maintainers)
{
	struct fixture f;
	struct lec_user_list users;
	struct lec_page page = { 1, 1 };
	struct lec_project *p = NULL;

	fixture_open(&f);
	CHECK_OK(lec_project_maintainer_add(f.st, f.alpha, f.root));
	CHECK_OK(lec_project_maintainer_add(f.st, f.alpha, f.bob));
	CHECK_FAIL(lec_project_maintainer_add(f.st, f.alpha, f.bob),
		   LEC_EEXISTS, NULL, "user 2 already maintains project 2");
	CHECK_ERR(lec_project_maintainer_add(f.st, 999, f.bob), LEC_ENOTFOUND);
	CHECK_ERR(lec_project_maintainer_add(f.st, f.alpha, 999),
		  LEC_ENOTFOUND);

	CHECK_OK(lec_project_maintainers(f.st, f.alpha, NULL, &users));
	CHECK_INT(users.len, 3);
	CHECK_INT(users.total, 3);
	CHECK_STR(users.items[0].username, "alice");
	CHECK_STR(users.items[1].username, "bob");
	CHECK_STR(users.items[2].username, "root");
	CHECK_INT(users.items[2].is_superuser, 1);
	lec_user_list_dispose(&users);
	CHECK_OK(lec_project_maintainers(f.st, f.alpha, &page, &users));
	CHECK_INT(users.len, 1);
	CHECK_INT(users.total, 3);
	CHECK_STR(users.items[0].username, "bob");
	lec_user_list_dispose(&users);

	CHECK_OK(lec_project_get_by_id(f.st, f.alpha, &p));
	CHECK_INT(p->nusers, 3);
	lec_project_free(p);

	CHECK_OK(lec_project_maintainer_remove(f.st, f.alpha, f.bob));
	CHECK_ERR(lec_project_maintainer_remove(f.st, f.alpha, f.bob),
		  LEC_ENOTFOUND);
	CHECK_OK(lec_project_maintainers(f.st, f.alpha, NULL, &users));
	CHECK_INT(users.len, 2);
	lec_user_list_dispose(&users);
	/* Deleting a user removes their memberships. */
	CHECK_OK(lec_user_delete(f.st, f.root));
	CHECK_OK(lec_project_maintainers(f.st, f.alpha, NULL, &users));
	CHECK_INT(users.len, 1);
	lec_user_list_dispose(&users);
	CHECK_OK(lec_project_maintainers(f.st, 999, NULL, &users));
	CHECK_INT(users.len, 0);
	lec_user_list_dispose(&users);
	lec_store_free(f.st);
}

TEST(admin_and_visibility)
{
	struct fixture f;

	fixture_open(&f);
	CHECK_INT(lec_project_is_admin(f.st, f.alpha, f.alice), 1);
	CHECK_INT(lec_project_is_admin(f.st, f.alpha, f.bob), 0);
	CHECK_INT(lec_project_is_admin(f.st, f.alpha, f.root), 1);
	CHECK_INT(lec_project_is_admin(f.st, f.alpha, LEC_VIEWER_ANONYMOUS),
		  0);
	CHECK_INT(lec_project_is_admin(f.st, f.epsilon, f.alice), 0);
	CHECK_ERR(lec_project_is_admin(f.st, 999, f.alice), LEC_ENOTFOUND);

	CHECK_INT(lec_project_can_view(f.st, f.alpha, LEC_VIEWER_ANONYMOUS), 1);
	CHECK_INT(lec_project_can_view(f.st, f.alpha, f.bob), 1);
	make_private(f.st, f.alpha);
	CHECK_INT(lec_project_can_view(f.st, f.alpha, LEC_VIEWER_ANONYMOUS), 0);
	CHECK_INT(lec_project_can_view(f.st, f.alpha, f.bob), 0);
	CHECK_INT(lec_project_can_view(f.st, f.alpha, f.alice), 1);
	CHECK_INT(lec_project_can_view(f.st, f.alpha, f.root), 1);
	CHECK_INT(lec_project_can_view(f.st, f.alpha, LEC_VIEWER_ALL), 1);
	CHECK_ERR(lec_project_can_view(f.st, 999, f.alice), LEC_ENOTFOUND);
	lec_store_free(f.st);
}

/* Subprojects --------------------------------------------------------------- */

TEST(subproject_create_and_get)
{
	struct fixture f;
	struct lec_subproject *s = NULL, *again = NULL;
	struct lec_project *child = NULL;

	fixture_open(&f);
	CHECK_OK(lec_subproject_create(f.st, f.alpha, "beta", NULL, f.alice,
				       &s));
	CHECK(s != NULL && s->id > 0);
	CHECK_STR(s->alias, "beta"); /* defaults to the child's slug */
	CHECK_INT(s->parent_id, f.alpha);
	CHECK_STR(s->parent_slug, "alpha-project");
	CHECK_INT(s->child.id, f.beta);
	CHECK_STR(s->child.slug, "beta");
	CHECK_STR(s->child.superproject_slug, "alpha-project");
	CHECK_STR(s->child.superproject_alias, "beta");
	CHECK_INT(s->child.nusers, 1);
	CHECK(s->created > 0);
	lec_subproject_free(s);

	CHECK_OK(lec_subproject_create(f.st, f.alpha, "gamma-docs",
				       "api-v2_docs", f.alice, &s));
	CHECK_FAIL(lec_subproject_create(f.st, f.alpha, "gamma-docs", "", 0,
					 NULL),
		   LEC_EINVALID, "child",
		   "Project with slug=gamma-docs is not valid as subproject");
	lec_subproject_free(s);
	/* An explicit alias given as "" falls back to the slug (epsilon is
	 * nobody's, but a superuser may link it). */
	CHECK_OK(lec_subproject_create(f.st, f.alpha, "epsilon-project", "",
				       f.root, &s));
	CHECK_STR(s->alias, "epsilon-project");
	lec_subproject_free(s);

	CHECK_OK(lec_subproject_get(f.st, f.alpha, "beta", &again));
	CHECK_INT(again->child.id, f.beta);
	lec_subproject_free(again);
	CHECK_FAIL(lec_subproject_get(f.st, f.alpha, "nope", &again),
		   LEC_ENOTFOUND, NULL, "project 2 has no subproject 'nope'");
	CHECK(again == NULL);
	CHECK_ERR(lec_subproject_get(f.st, f.alpha, NULL, &again),
		  LEC_EINVALID);

	CHECK_OK(lec_project_get_by_id(f.st, f.beta, &child));
	CHECK_STR(child->superproject_slug, "alpha-project");
	lec_project_free(child);
	lec_store_free(f.st);
}

static void not_valid(char *msg, size_t size, const char *slug)
{
	snprintf(msg, size, "Project with slug=%s is not valid as subproject",
		 slug);
}

TEST(subproject_candidate_rules)
{
	struct fixture f;
	int64_t zeta, eta;
	char msg[128];

	fixture_open(&f);
	zeta = mkproject(f.st, "Zeta", f.alice);
	eta = mkproject(f.st, "Eta", f.alice);
	CHECK_FAIL(lec_subproject_create(f.st, f.alpha, NULL, NULL, f.alice,
					 NULL),
		   LEC_EINVALID, "child", "This field is required.");
	/* bob's project, not alice's */
	not_valid(msg, sizeof(msg), "delta");
	CHECK_FAIL(lec_subproject_create(f.st, f.alpha, "delta", NULL,
					 f.alice, NULL),
		   LEC_EINVALID, "child", msg);
	/* the parent itself */
	not_valid(msg, sizeof(msg), "alpha-project");
	CHECK_FAIL(lec_subproject_create(f.st, f.alpha, "alpha-project", NULL,
					 f.alice, NULL),
		   LEC_EINVALID, "child", msg);
	/* no such project */
	not_valid(msg, sizeof(msg), "ghost");
	CHECK_FAIL(lec_subproject_create(f.st, f.alpha, "ghost", NULL,
					 f.alice, NULL),
		   LEC_EINVALID, "child", msg);
	/* already a subproject elsewhere */
	CHECK_OK(lec_subproject_create(f.st, zeta, "beta", NULL, f.alice,
				       NULL));
	not_valid(msg, sizeof(msg), "beta");
	CHECK_FAIL(lec_subproject_create(f.st, f.alpha, "beta", NULL, f.alice,
					 NULL),
		   LEC_EINVALID, "child", msg);
	/* a superproject */
	not_valid(msg, sizeof(msg), "zeta");
	CHECK_FAIL(lec_subproject_create(f.st, f.alpha, "zeta", NULL, f.alice,
					 NULL),
		   LEC_EINVALID, "child", msg);
	/* the parent is a subproject: nesting */
	CHECK_FAIL(lec_subproject_create(f.st, f.beta, "eta", NULL, f.alice,
					 NULL),
		   LEC_EINVALID, "non_field_errors",
		   "Subproject nesting is not supported");
	/* different organizations */
	sql_exec(f.st, "INSERT INTO organizations (slug, name, created, "
		       "modified) VALUES ('org', 'Org', 0, 0)");
	sql_exec(f.st, "INSERT INTO organization_projects VALUES (1, 2)");
	not_valid(msg, sizeof(msg), "eta");
	CHECK_FAIL(lec_subproject_create(f.st, f.alpha, "eta", NULL, f.alice,
					 NULL),
		   LEC_EINVALID, "child", msg);
	{
		char sql[96];

		snprintf(sql, sizeof(sql),
			 "INSERT INTO organization_projects VALUES (1, %lld)",
			 (long long)eta);
		sql_exec(f.st, sql);
	}
	CHECK_OK(lec_subproject_create(f.st, f.alpha, "eta", NULL, f.alice,
				       NULL));
	CHECK_ERR(lec_subproject_create(f.st, 999, "gamma-docs", NULL,
					f.alice, NULL),
		  LEC_ENOTFOUND);
	CHECK_INT(sql_int(f.st, "SELECT count(*) FROM subprojects WHERE ",
			  1), 2);
	lec_store_free(f.st);
}

TEST(subproject_alias_rules)
{
	struct fixture f;
	char alias[LEC_SUBPROJECT_ALIAS_MAX + 2];
	struct lec_subproject *s = NULL;

	fixture_open(&f);
	mkproject(f.st, "Zeta", f.alice);
	CHECK_FAIL(lec_subproject_create(f.st, f.alpha, "beta", "bad alias!",
					 f.alice, NULL),
		   LEC_EINVALID, "alias",
		   "Aliases can contain letters, numbers, underscores, and "
		   "hyphens.");
	CHECK_FAIL(lec_subproject_create(f.st, f.alpha, "beta", "/a", f.alice,
					 NULL),
		   LEC_EINVALID, "alias",
		   "Aliases can contain letters, numbers, underscores, and "
		   "hyphens.");
	CHECK_FAIL(lec_subproject_create(f.st, f.alpha, "beta", "a//b",
					 f.alice, NULL),
		   LEC_EINVALID, "alias",
		   "Aliases can contain letters, numbers, underscores, and "
		   "hyphens.");
	CHECK_FAIL(lec_subproject_create(f.st, f.alpha, "beta", "a/b/",
					 f.alice, NULL),
		   LEC_EINVALID, "alias",
		   "Aliases can contain letters, numbers, underscores, and "
		   "hyphens.");
	memset(alias, 'a', sizeof(alias) - 1);
	alias[sizeof(alias) - 1] = '\0';
	CHECK_FAIL(lec_subproject_create(f.st, f.alpha, "beta", alias,
					 f.alice, NULL),
		   LEC_EINVALID, "alias",
		   "Ensure this field has no more than 255 characters.");
	alias[LEC_SUBPROJECT_ALIAS_MAX] = '\0';
	CHECK_OK(lec_subproject_create(f.st, f.alpha, "beta", alias, f.alice,
				       &s));
	CHECK_INT(strlen(s->alias), 255);
	lec_subproject_free(s);
	/* Unicode word characters are allowed, as in the service. */
	CHECK_OK(lec_subproject_create(f.st, f.alpha, "zeta", "caf\xc3\xa9",
				       f.alice, NULL));
	CHECK_FAIL(lec_subproject_create(f.st, f.alpha, "gamma-docs", alias,
					 f.alice, NULL),
		   LEC_EEXISTS, "alias",
		   "A subproject with this alias already exists");
	/* The default alias is checked too. */
	CHECK_OK(lec_subproject_delete(f.st, f.alpha, "caf\xc3\xa9"));
	CHECK_OK(lec_subproject_create(f.st, f.alpha, "zeta", "gamma-docs",
				       f.alice, NULL));
	CHECK_FAIL(lec_subproject_create(f.st, f.alpha, "gamma-docs", NULL,
					 f.alice, NULL),
		   LEC_EEXISTS, "alias",
		   "A subproject with this alias already exists");
	lec_store_free(f.st);
}

TEST(subproject_list_and_visibility)
{
	struct fixture f;
	struct lec_subproject_list list;
	struct lec_page page = { 1, 1 };
	int64_t zeta;

	fixture_open(&f);
	zeta = mkproject(f.st, "Zeta", f.alice);
	/* creation order, not slug order */
	CHECK_OK(lec_subproject_create(f.st, f.alpha, "zeta", "z", f.alice,
				       NULL));
	CHECK_OK(lec_subproject_create(f.st, f.alpha, "beta", "b", f.alice,
				       NULL));
	CHECK_OK(lec_subproject_create(f.st, f.alpha, "gamma-docs", "g",
				       f.alice, NULL));
	make_private(f.st, f.beta);

	CHECK_OK(lec_subproject_list(f.st, f.alpha, LEC_VIEWER_ALL, NULL,
				     &list));
	CHECK_INT(list.len, 3);
	CHECK_INT(list.total, 3);
	CHECK_STR(list.items[0].alias, "z");
	CHECK_INT(list.items[0].child.id, zeta);
	CHECK_STR(list.items[1].alias, "b");
	CHECK_STR(list.items[2].alias, "g");
	CHECK_STR(list.items[2].child.language, "es");
	lec_subproject_list_dispose(&list);
	CHECK(list.items == NULL);

	CHECK_OK(lec_subproject_list(f.st, f.alpha, LEC_VIEWER_ANONYMOUS,
				     NULL, &list));
	CHECK_INT(list.total, 2);
	CHECK_STR(list.items[1].alias, "g");
	lec_subproject_list_dispose(&list);
	CHECK_OK(lec_subproject_list(f.st, f.alpha, f.bob, NULL, &list));
	CHECK_INT(list.total, 2);
	lec_subproject_list_dispose(&list);
	CHECK_OK(lec_subproject_list(f.st, f.alpha, f.alice, NULL, &list));
	CHECK_INT(list.total, 3);
	lec_subproject_list_dispose(&list);
	CHECK_OK(lec_subproject_list(f.st, f.alpha, f.root, &page, &list));
	CHECK_INT(list.total, 3);
	CHECK_INT(list.len, 1);
	CHECK_STR(list.items[0].alias, "b");
	lec_subproject_list_dispose(&list);
	CHECK_OK(lec_subproject_list(f.st, 999, LEC_VIEWER_ALL, NULL, &list));
	CHECK_INT(list.total, 0);
	lec_subproject_list_dispose(&list);
	lec_store_free(f.st);
}

TEST(subproject_delete_and_superproject)
{
	struct fixture f;
	struct lec_project *parent = NULL, *p = NULL;
	char *alias = NULL;

	fixture_open(&f);
	CHECK_OK(lec_subproject_create(f.st, f.alpha, "beta", "docs", f.alice,
				       NULL));
	CHECK_OK(lec_project_superproject(f.st, f.beta, &parent, &alias));
	CHECK_INT(parent->id, f.alpha);
	CHECK_STR(parent->slug, "alpha-project");
	CHECK_INT(parent->nusers, 1);
	CHECK_STR(alias, "docs");
	lec__free(alias);
	lec_project_free(parent);
	CHECK_OK(lec_project_superproject(f.st, f.beta, &parent, NULL));
	lec_project_free(parent);

	CHECK_FAIL(lec_project_superproject(f.st, f.alpha, &parent, &alias),
		   LEC_ENOTFOUND, NULL, "project 'alpha-project' is no "
					"subproject");
	CHECK(parent == NULL && alias == NULL);
	CHECK_ERR(lec_project_superproject(f.st, 999, &parent, NULL),
		  LEC_ENOTFOUND);

	CHECK_FAIL(lec_subproject_delete(f.st, f.alpha, "beta"), LEC_ENOTFOUND,
		   NULL, "project 2 has no subproject 'beta'");
	CHECK_ERR(lec_subproject_delete(f.st, f.alpha, NULL), LEC_EINVALID);
	CHECK_OK(lec_subproject_delete(f.st, f.alpha, "docs"));
	CHECK_ERR(lec_subproject_delete(f.st, f.alpha, "docs"), LEC_ENOTFOUND);
	CHECK_ERR(lec_project_superproject(f.st, f.beta, &parent, NULL),
		  LEC_ENOTFOUND);
	/* Both projects survive. */
	CHECK_OK(lec_project_get_by_id(f.st, f.alpha, &p));
	lec_project_free(p);
	CHECK_OK(lec_project_get_by_id(f.st, f.beta, &p));
	CHECK(p->superproject_slug == NULL);
	lec_project_free(p);
	lec_store_free(f.st);
}

/* Translations --------------------------------------------------------------- */

static int64_t mkproject_lang(struct lec_store *st, const char *name,
			      const char *language, int64_t user)
{
	struct lec_project_new in;
	struct lec_project *p = NULL;
	int64_t id;

	new_project(&in, name);
	in.language = language;
	CHECK_OK(lec_project_create(st, &in, user, &p));
	id = p ? p->id : 0;
	lec_project_free(p);
	return id;
}

TEST(translations)
{
	struct lec_store *st = lec_test_store();
	int64_t alice = mkuser(st, "alice");
	int64_t main_id = mkproject_lang(st, "Docs", "en", alice);
	int64_t es = mkproject_lang(st, "Docs Es", "es", alice);
	int64_t de = mkproject_lang(st, "Docs De", "de", alice);
	int64_t es2 = mkproject_lang(st, "Docs Es2", "es", alice);
	int64_t en2 = mkproject_lang(st, "Docs En2", "en", alice);
	struct lec_project *p = NULL;
	struct lec_project_list list;
	struct lec_page page = { 1, 1 };

	CHECK_OK(lec_project_set_translation_of(st, es, main_id));
	CHECK_OK(lec_project_set_translation_of(st, de, main_id));
	CHECK_OK(lec_project_get_by_id(st, es, &p));
	CHECK_INT(p->main_language_project_id, main_id);
	CHECK_STR(p->translation_of, "docs");
	lec_project_free(p);
	CHECK_OK(lec_project_translation_of(st, es, &p));
	CHECK_INT(p->id, main_id);
	lec_project_free(p);
	CHECK_FAIL(lec_project_translation_of(st, main_id, &p), LEC_ENOTFOUND,
		   NULL, "project 'docs' is no translation");
	CHECK(p == NULL);
	CHECK_ERR(lec_project_translation_of(st, 999, &p), LEC_ENOTFOUND);

	CHECK_OK(lec_project_translations(st, main_id, LEC_VIEWER_ALL, NULL,
					  &list));
	CHECK_INT(list.len, 2);
	CHECK_STR(list.items[0].slug, "docs-de");
	CHECK_STR(list.items[1].slug, "docs-es");
	lec_project_list_dispose(&list);
	make_private(st, de);
	CHECK_OK(lec_project_translations(st, main_id, LEC_VIEWER_ANONYMOUS,
					  NULL, &list));
	CHECK_INT(list.total, 1);
	CHECK_STR(list.items[0].slug, "docs-es");
	lec_project_list_dispose(&list);
	CHECK_OK(lec_project_translations(st, main_id, alice, &page, &list));
	CHECK_INT(list.total, 2);
	CHECK_INT(list.len, 1);
	CHECK_STR(list.items[0].slug, "docs-es");
	lec_project_list_dispose(&list);

	CHECK_FAIL(lec_project_set_translation_of(st, en2, main_id),
		   LEC_EINVALID, "project",
		   "Both projects can not have the same language (English).");
	CHECK_FAIL(lec_project_set_translation_of(st, es2, main_id),
		   LEC_EINVALID, "project",
		   "This project already has a translation for Spanish.");
	CHECK_FAIL(lec_project_set_translation_of(st, en2, es), LEC_EINVALID,
		   "project", "Project \"docs-es\" is already a translation");
	CHECK_FAIL(lec_project_set_translation_of(st, main_id, es2),
		   LEC_EINVALID, "project",
		   "A project with existing translations can not be added as "
		   "a project translation.");
	CHECK_FAIL(lec_project_set_translation_of(st, es, es), LEC_EINVALID,
		   "project",
		   "Project \"docs-es\" can not be a translation of itself.");
	/* Setting the same link again is fine (siblings exclude itself). */
	CHECK_OK(lec_project_set_translation_of(st, es, main_id));
	CHECK_ERR(lec_project_set_translation_of(st, 999, main_id),
		  LEC_ENOTFOUND);
	CHECK_ERR(lec_project_set_translation_of(st, es2, 999), LEC_ENOTFOUND);

	/* A single-version main project has no translations. */
	{
		struct lec_project_patch patch;

		memset(&patch, 0, sizeof(patch));
		patch.fields = LEC_PROJECT_F_SINGLE_VERSION;
		patch.single_version = 1;
		CHECK_OK(lec_project_update(st, en2, &patch));
	}
	CHECK_FAIL(lec_project_set_translation_of(st, es2, en2), LEC_EINVALID,
		   "non_field_errors",
		   "This project is configured with a versioning scheme that "
		   "doesn't support translations.");

	/* Unlinking. */
	CHECK_OK(lec_project_set_translation_of(st, es, 0));
	CHECK_OK(lec_project_get_by_id(st, es, &p));
	CHECK_INT(p->main_language_project_id, 0);
	CHECK(p->translation_of == NULL);
	lec_project_free(p);
	CHECK_OK(lec_project_set_translation_of(st, es2, main_id));
	lec_store_free(st);
}

/* Allocation failures ------------------------------------------------------- */

/* Most engine allocations one call makes; the sweeps stop at success. */
#define OOM_SWEEP_MAX 2000

/* Every allocation of an import may fail: the call reports LEC_ENOMEM and
 * leaves either no project or a whole one (when only reading it back
 * failed), never a project without its latest version. */
TEST(create_survives_allocation_failures)
{
	struct lec_store *st = lec_test_store();
	int64_t alice = mkuser(st, "alice");
	const char *tags[] = { "a", "b" };
	struct lec_project_new in;
	struct lec_project *p = NULL;
	long n;
	int rc = LEC_ENOMEM;

	new_project(&in, "Oom");
	in.tags = tags;
	in.ntags = 2;
	for (n = 1; n < OOM_SWEEP_MAX && rc != LEC_OK; n++) {
		lec__alloc_fail_after(n);
		rc = lec_project_create(st, &in, alice, &p);
		lec__alloc_fail_after(0);
		if (rc == LEC_OK)
			break;
		CHECK_INT(rc, LEC_ENOMEM);
		CHECK(p == NULL);
		if (lec_project_get(st, "oom", &p) == LEC_OK) {
			CHECK_INT(sql_int(st, "SELECT count(*) FROM versions "
					      "WHERE project_id = ", p->id),
				  1);
			CHECK_INT(p->ntags, 2);
			CHECK_OK(lec_project_delete(st, p->id));
			lec_project_free(p);
			p = NULL;
		}
	}
	CHECK_INT(rc, LEC_OK);
	CHECK(n > 10); /* the sweep did fail allocations */
	CHECK(p != NULL && p->ntags == 2 && p->nusers == 1);
	lec_project_free(p);
	lec_store_free(st);
}

/* Reads and updates clean up after any failed allocation. */
TEST(reads_survive_allocation_failures)
{
	struct fixture f;
	struct lec_project_list list;
	struct lec_subproject_list subs;
	struct lec_project_patch patch;
	const char *tags[] = { "x" };
	long n;
	int rc;

	fixture_open(&f);
	CHECK_OK(lec_subproject_create(f.st, f.alpha, "beta", NULL, f.alice,
				       NULL));
	memset(&patch, 0, sizeof(patch));
	patch.fields = LEC_PROJECT_F_NAME | LEC_PROJECT_F_TAGS;
	patch.name = "Renamed";
	patch.tags = tags;
	patch.ntags = 1;
	/* Warm the handle's statement cache: a failure to cache a statement is
	 * not an error, so cold runs would end the sweeps early. */
	CHECK_OK(lec_project_list(f.st, NULL, NULL, &list));
	lec_project_list_dispose(&list);
	CHECK_OK(lec_subproject_list(f.st, f.alpha, LEC_VIEWER_ANONYMOUS, NULL,
				     &subs));
	lec_subproject_list_dispose(&subs);
	CHECK_OK(lec_project_update(f.st, f.beta, &patch));
	for (n = 1, rc = LEC_ENOMEM; n < OOM_SWEEP_MAX && rc != LEC_OK; n++) {
		lec__alloc_fail_after(n);
		rc = lec_project_list(f.st, NULL, NULL, &list);
		lec__alloc_fail_after(0);
		CHECK(rc == LEC_OK || (rc == LEC_ENOMEM && list.len == 0));
	}
	CHECK_INT(list.len, 5);
	CHECK(n > 3); /* the sweep saw failures first */
	lec_project_list_dispose(&list);
	for (n = 1, rc = LEC_ENOMEM; n < OOM_SWEEP_MAX && rc != LEC_OK; n++) {
		lec__alloc_fail_after(n);
		rc = lec_subproject_list(f.st, f.alpha, LEC_VIEWER_ANONYMOUS,
					 NULL, &subs);
		lec__alloc_fail_after(0);
		CHECK(rc == LEC_OK || (rc == LEC_ENOMEM && subs.len == 0));
	}
	CHECK_INT(subs.len, 1);
	CHECK(n > 3); /* the sweep saw failures first */
	lec_subproject_list_dispose(&subs);
	for (n = 1, rc = LEC_ENOMEM; n < OOM_SWEEP_MAX && rc != LEC_OK; n++) {
		lec__alloc_fail_after(n);
		rc = lec_project_update(f.st, f.beta, &patch);
		lec__alloc_fail_after(0);
		CHECK(rc == LEC_OK || rc == LEC_ENOMEM);
	}
	CHECK_INT(rc, LEC_OK);
	CHECK(n > 3); /* the sweep saw failures first */
	lec_store_free(f.st);
}

/* Organizations grant access (business edition): owners and admin teams
 * administer the organization's projects, other teams may read them. */
TEST(organization_grants_access)
{
	struct lec_store *st = lec_test_store();
	int64_t maint = mkuser(st, "maint"), owner = mkuser(st, "owner");
	int64_t admin = mkuser(st, "teamadmin"), reader = mkuser(st, "reader");
	int64_t outsider = mkuser(st, "outsider");
	int64_t pid = mkproject(st, "Org Project", maint);
	struct lec_org_fields of = { "Acme", NULL, NULL, NULL, NULL };
	struct lec_project_filter filter = { 0 };
	struct lec_project_list list = { 0 };
	struct lec_team *ta = NULL, *tr = NULL;
	struct lec_org *org = NULL;

	make_private(st, pid);
	CHECK_OK(lec_org_create(st, &of, owner, &org));
	CHECK_OK(lec_org_project_add(st, org->id, pid));
	CHECK_OK(lec_team_create(st, org->id, "Admins", "admin", &ta));
	CHECK_OK(lec_team_create(st, org->id, "Readers", "readonly", &tr));
	CHECK_OK(lec_team_member_add(st, ta->id, admin));
	CHECK_OK(lec_team_member_add(st, tr->id, reader));
	/* Team membership alone grants nothing until the team holds it. */
	CHECK_INT(lec_project_is_admin(st, pid, admin), 0);
	CHECK_INT(lec_project_can_view(st, pid, reader), 0);
	CHECK_OK(lec_team_project_add(st, ta->id, pid));
	CHECK_OK(lec_team_project_add(st, tr->id, pid));

	CHECK_INT(lec_project_is_admin(st, pid, maint), 1);
	CHECK_INT(lec_project_is_admin(st, pid, owner), 1);
	CHECK_INT(lec_project_is_admin(st, pid, admin), 1);
	CHECK_INT(lec_project_is_admin(st, pid, reader), 0);
	CHECK_INT(lec_project_is_admin(st, pid, outsider), 0);
	CHECK_INT(lec_project_can_view(st, pid, reader), 1);
	CHECK_INT(lec_project_can_view(st, pid, outsider), 0);
	CHECK_INT(lec_project_can_view(st, pid, LEC_VIEWER_ANONYMOUS), 0);

	/* "Projects I administer" follows the same rule. */
	filter.admin_user_id = owner;
	CHECK_OK(lec_project_list(st, &filter, NULL, &list));
	CHECK_INT(list.total, 1);
	lec_project_list_dispose(&list);
	filter.admin_user_id = reader;
	CHECK_OK(lec_project_list(st, &filter, NULL, &list));
	CHECK_INT(list.total, 0);
	lec_project_list_dispose(&list);

	lec_team_free(ta);
	lec_team_free(tr);
	lec_org_free(org);
	lec_store_free(st);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(organization_grants_access),
	TEST_ENTRY(create_with_defaults),
	TEST_ENTRY(create_makes_latest_version),
	TEST_ENTRY(create_explicit_fields),
	TEST_ENTRY(create_name_rules),
	TEST_ENTRY(create_slug_taken),
	TEST_ENTRY(create_repository_url_rules),
	TEST_ENTRY(create_language_rules),
	TEST_ENTRY(create_homepage_rules),
	TEST_ENTRY(create_tag_rules),
	TEST_ENTRY(create_yaml_path_rules),
	TEST_ENTRY(list_for_admin_user),
	TEST_ENTRY(list_filters),
	TEST_ENTRY(list_paging),
	TEST_ENTRY(get_missing),
	TEST_ENTRY(update_fields),
	TEST_ENTRY(update_single_version),
	TEST_ENTRY(update_validation),
	TEST_ENTRY(delete_cascades),
	TEST_ENTRY(maintainers),
	TEST_ENTRY(admin_and_visibility),
	TEST_ENTRY(subproject_create_and_get),
	TEST_ENTRY(subproject_candidate_rules),
	TEST_ENTRY(subproject_alias_rules),
	TEST_ENTRY(subproject_list_and_visibility),
	TEST_ENTRY(subproject_delete_and_superproject),
	TEST_ENTRY(translations),
	TEST_ENTRY(list_by_local_repository),
	TEST_ENTRY(create_survives_allocation_failures),
	TEST_ENTRY(reads_survive_allocation_failures),
};

LEC_TEST_MAIN(tests)
