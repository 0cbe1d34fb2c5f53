/*
 * Versions: creation and slugs (unique per project with _a, _b, ...),
 * lookups, filters, ordering and paging of lists, partial updates, deletes,
 * the PEP 440 ordering behind `stable`, the machine `latest` and `stable`
 * versions and the default version.
 */
#include "harness.h"
#include "lectern/slug.h"
#include "lectern/version.h"
#include "store_internal.h"

static int64_t make_version(struct lec_store *st, int64_t project,
			    const char *name, enum lec_version_type type)
{
	struct lec_version *v = NULL;
	int64_t id = 0;

	CHECK_OK(lec_version_create(st, project, name, name, type, 0, &v));
	if (v)
		id = v->id;
	lec_version_free(v);
	return id;
}

static char *slug_of(struct lec_store *st, int64_t id)
{
	struct lec_version *v = NULL;
	char *slug = NULL;

	CHECK_OK(lec_version_get_by_id(st, id, &v));
	if (v) {
		slug = v->slug;
		v->slug = NULL;
	}
	lec_version_free(v);
	return slug;
}

static void check_slug(struct lec_store *st, int64_t id, const char *want)
{
	char *slug = slug_of(st, id);

	CHECK_STR(slug, want);
	free(slug);
}

static void set_flags(struct lec_store *st, int64_t id, unsigned int set,
		      int value)
{
	struct lec_version_patch p = { 0 };

	p.set = set;
	p.active = p.hidden = p.built = p.uploaded = value;
	CHECK_OK(lec_version_update(st, id, &p));
}

TEST(create_round_trip)
{
	struct lec_store *st = lec_test_store();
	int64_t project = lec_test_project(st, "p");
	struct lec_version *v = NULL, *again = NULL;

	CHECK_OK(lec_version_create(st, project, "Release 1.0", "a1b2c3",
				    LEC_VERSION_TAG, 0, &v));
	CHECK(v != NULL);
	if (v == NULL)
		goto done;
	CHECK(v->id > 0);
	CHECK_INT(v->project_id, project);
	CHECK_STR(v->slug, "release-1.0");
	CHECK_STR(v->verbose_name, "Release 1.0");
	CHECK_STR(v->identifier, "a1b2c3");
	CHECK_INT(v->type, LEC_VERSION_TAG);
	CHECK_INT(v->active, 0);
	CHECK_INT(v->hidden, 0);
	CHECK_INT(v->built, 0);
	CHECK_INT(v->uploaded, 0);
	CHECK_INT(v->machine, 0);
	CHECK_INT(v->has_pdf + v->has_epub + v->has_htmlzip, 0);
	CHECK_STR(v->privacy_level, "public");
	CHECK_STR(v->documentation_type, "sphinx");
	CHECK(v->created > 0 && v->modified == v->created);

	CHECK_OK(lec_version_get(st, project, "release-1.0", &again));
	CHECK(again && again->id == v->id);
	lec_version_free(again);
	again = NULL;
	CHECK_OK(lec_version_get_by_id(st, v->id, &again));
	CHECK(again && strcmp(again->verbose_name, "Release 1.0") == 0);
	lec_version_free(again);
	again = NULL;

	CHECK_ERR(lec_version_get(st, project, "nope", &again),
		  LEC_ENOTFOUND);
	CHECK_STR(lec_error_last(), "No Version matches the given query.");
	CHECK(again == NULL);
	CHECK_ERR(lec_version_get(st, project + 1, "release-1.0", &again),
		  LEC_ENOTFOUND);
	CHECK_ERR(lec_version_get_by_id(st, 9999, &again), LEC_ENOTFOUND);
	CHECK_ERR(lec_version_get(st, project, NULL, &again), LEC_EINVALID);

	/* Asked to, a version is created active; out may be NULL. */
	lec_version_free(v);
	v = NULL;
	CHECK_OK(lec_version_create(st, project, "main", NULL,
				    LEC_VERSION_BRANCH, 1, &v));
	CHECK(v && v->active == 1 && v->identifier == NULL);
	CHECK_OK(lec_version_create(st, project, "dev", "dev",
				    LEC_VERSION_BRANCH, 0, NULL));
done:
	lec_version_free(v);
	lec_store_free(st);
}

TEST(slug_unique_with_suffixes)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p"), q = lec_test_project(st, "q");
	char name[LEC_VERSION_NAME_MAX + 1], want[LEC_VERSION_SLUG_MAX + 1];

	/* The service's examples (behaviour notes §6.4). */
	check_slug(st, make_version(st, p, "1!0", LEC_VERSION_TAG), "1-0");
	check_slug(st, make_version(st, p, "1%0", LEC_VERSION_TAG), "1-0_a");
	check_slug(st, make_version(st, p, "1?0", LEC_VERSION_TAG), "1-0_b");
	check_slug(st, make_version(st, p, "-", LEC_VERSION_BRANCH),
		   "unknown");
	check_slug(st, make_version(st, p, "-./.-", LEC_VERSION_BRANCH),
		   "unknown_a");
	check_slug(st, make_version(st, p, "releases/1.0", LEC_VERSION_BRANCH),
		   "releases-1.0");
	/* Slugs are unique per project only. */
	check_slug(st, make_version(st, q, "1%0", LEC_VERSION_TAG), "1-0");

	/* A suffix on a slug at the length limit replaces its end. */
	memset(name, 'a', LEC_VERSION_NAME_MAX);
	name[LEC_VERSION_NAME_MAX] = '\0';
	check_slug(st, make_version(st, p, name, LEC_VERSION_BRANCH), name);
	memset(want, 'a', LEC_VERSION_SLUG_MAX - 2);
	memcpy(want + LEC_VERSION_SLUG_MAX - 2, "_a", 3);
	check_slug(st, make_version(st, p, name, LEC_VERSION_BRANCH), want);
	lec_store_free(st);
}

TEST(slug_attempts_are_limited)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	char sql[256], suffix[16];
	unsigned long n;

	CHECK_OK(lec_store__exec(st, "BEGIN"));
	snprintf(sql, sizeof(sql),
		 "INSERT INTO versions (project_id, slug, verbose_name, "
		 "created, modified) VALUES (%lld, 'x', 'x', 0, 0)",
		 (long long)p);
	CHECK_OK(lec_store__exec(st, sql));
	for (n = 0; n + 1 < LEC_VERSION_SLUG_ATTEMPTS; n++) {
		lec_slug_suffix(n, suffix);
		snprintf(sql, sizeof(sql),
			 "INSERT INTO versions (project_id, slug, "
			 "verbose_name, created, modified) VALUES (%lld, "
			 "'x%s', 'x', 0, 0)",
			 (long long)p, suffix);
		CHECK_OK(lec_store__exec(st, sql));
	}
	CHECK_OK(lec_store__exec(st, "COMMIT"));
	/* The last suffix is still free. */
	lec_slug_suffix(LEC_VERSION_SLUG_ATTEMPTS - 1, suffix);
	CHECK_STR(suffix, "_zz");
	{
		int64_t id = make_version(st, p, "x", LEC_VERSION_BRANCH);

		check_slug(st, id, "x_zz");
	}
	CHECK_ERR(lec_version_create(st, p, "x", NULL, LEC_VERSION_BRANCH, 0,
				     NULL),
		  LEC_ELIMIT);
	CHECK(strstr(lec_error_last(), "'x'") != NULL);
	lec_store_free(st);
}

TEST(create_validation)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	struct lec_version *v = NULL;
	char long_text[LEC_VERSION_NAME_MAX + 2];
	struct lec_version_list list;

	CHECK_ERR(lec_version_create(st, p, "", NULL, LEC_VERSION_BRANCH, 0,
				     &v),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "verbose_name");
	CHECK_STR(lec_error_last(), "This field may not be blank.");
	CHECK(v == NULL);
	CHECK_ERR(lec_version_create(st, p, NULL, NULL, LEC_VERSION_BRANCH, 0,
				     &v),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "verbose_name");

	memset(long_text, 'b', sizeof(long_text) - 1);
	long_text[sizeof(long_text) - 1] = '\0';
	CHECK_ERR(lec_version_create(st, p, long_text, NULL,
				     LEC_VERSION_BRANCH, 0, &v),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "verbose_name");
	CHECK_STR(lec_error_last(),
		  "Ensure this field has no more than 255 characters.");
	CHECK_ERR(lec_version_create(st, p, "ok", long_text,
				     LEC_VERSION_BRANCH, 0, &v),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "identifier");
	CHECK_ERR(lec_version_create(st, p, "ok", NULL,
				     (enum lec_version_type)42, 0, &v),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "type");
	CHECK_ERR(lec_version_create(st, p + 7, "ok", NULL,
				     LEC_VERSION_BRANCH, 0, &v),
		  LEC_ENOTFOUND);
	CHECK(strstr(lec_error_last(), "no project") != NULL);

	/* Nothing was written by the failures. */
	CHECK_OK(lec_version_list(st, p, NULL, NULL, &list));
	CHECK_INT(list.total, 0);
	lec_version_list_dispose(&list);
	lec_store_free(st);
}

TEST(type_codes)
{
	enum lec_version_type t = LEC_VERSION_BRANCH;

	CHECK_STR(lec_version_type_code(LEC_VERSION_BRANCH), "branch");
	CHECK_STR(lec_version_type_code(LEC_VERSION_TAG), "tag");
	CHECK_STR(lec_version_type_code(LEC_VERSION_EXTERNAL), "external");
	CHECK_STR(lec_version_type_code(LEC_VERSION_UNKNOWN), "unknown");
	CHECK_STR(lec_version_type_code((enum lec_version_type)9), "unknown");
	CHECK_OK(lec_version_type_parse("tag", &t));
	CHECK_INT(t, LEC_VERSION_TAG);
	CHECK_OK(lec_version_type_parse("external", &t));
	CHECK_INT(t, LEC_VERSION_EXTERNAL);
	CHECK_ERR(lec_version_type_parse("Tag", &t), LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "type");
	CHECK_STR(lec_error_last(), "Select a valid choice. Tag is not one of "
				    "the available choices.");
	CHECK_ERR(lec_version_type_parse(NULL, &t), LEC_EINVALID);
}

/* Names of a list's items joined with spaces, into buf. */
static const char *names(const struct lec_version_list *list, char *buf,
			 size_t size)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < list->len; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
					 i ? " " : "",
					 list->items[i].verbose_name);
	return buf;
}

TEST(list_order_and_paging)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p"), q = lec_test_project(st, "q");
	struct lec_version_list list;
	struct lec_page page = { 2, 1 };
	char buf[256];

	make_version(st, p, "1.0", LEC_VERSION_TAG);
	make_version(st, p, "alpha", LEC_VERSION_BRANCH);
	make_version(st, p, "10.0", LEC_VERSION_TAG);
	make_version(st, p, "Beta", LEC_VERSION_BRANCH);
	make_version(st, p, "2.0", LEC_VERSION_TAG);
	make_version(st, q, "zzz", LEC_VERSION_TAG);

	CHECK_OK(lec_version_list(st, p, NULL, NULL, &list));
	CHECK_INT(list.total, 5);
	CHECK_STR(names(&list, buf, sizeof(buf)),
		  "alpha Beta 2.0 10.0 1.0");
	lec_version_list_dispose(&list);

	CHECK_OK(lec_version_list(st, p, NULL, &page, &list));
	CHECK_INT(list.total, 5);
	CHECK_INT(list.len, 2);
	CHECK_STR(names(&list, buf, sizeof(buf)), "Beta 2.0");
	lec_version_list_dispose(&list);

	page.offset = 4;
	CHECK_OK(lec_version_list(st, p, NULL, &page, &list));
	CHECK_STR(names(&list, buf, sizeof(buf)), "1.0");
	lec_version_list_dispose(&list);

	page.offset = 10;
	CHECK_OK(lec_version_list(st, p, NULL, &page, &list));
	CHECK_INT(list.len, 0);
	CHECK_INT(list.total, 5);
	lec_version_list_dispose(&list);

	/* A project with no versions, or none at all, lists nothing. */
	CHECK_OK(lec_version_list(st, 999, NULL, NULL, &list));
	CHECK_INT(list.total, 0);
	lec_version_list_dispose(&list);
	lec_version_list_dispose(NULL);
	lec_store_free(st);
}

/* List p with f and return the names. */
static const char *filtered(struct lec_store *st, int64_t p,
			    const struct lec_version_filter *f, char *buf,
			    size_t size)
{
	struct lec_version_list list;

	buf[0] = '\0';
	CHECK_OK(lec_version_list(st, p, f, NULL, &list));
	CHECK_INT(list.total, list.len);
	names(&list, buf, size);
	lec_version_list_dispose(&list);
	return buf;
}

TEST(list_filters)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t a = make_version(st, p, "alpha", LEC_VERSION_BRANCH);
	int64_t b = make_version(st, p, "beta", LEC_VERSION_TAG);
	int64_t c = make_version(st, p, "Gamma", LEC_VERSION_TAG);
	int64_t pr = make_version(st, p, "42", LEC_VERSION_EXTERNAL);
	struct lec_version_filter f = { 0 };
	struct lec_version_patch priv = { 0 };
	struct lec_version_list list;
	char buf[256];

	set_flags(st, a, LEC_VERSION_SET_ACTIVE | LEC_VERSION_SET_BUILT, 1);
	set_flags(st, b, LEC_VERSION_SET_UPLOADED, 1);
	priv.set = LEC_VERSION_SET_PRIVACY_LEVEL;
	priv.privacy_level = "private";
	CHECK_OK(lec_version_update(st, c, &priv));
	(void)pr;

	CHECK_STR(filtered(st, p, &f, buf, sizeof(buf)),
		  "beta alpha Gamma 42");
	f.active = LEC_FILTER_TRUE;
	CHECK_STR(filtered(st, p, &f, buf, sizeof(buf)), "alpha");
	f.active = LEC_FILTER_FALSE;
	CHECK_STR(filtered(st, p, &f, buf, sizeof(buf)), "beta Gamma 42");
	f.active = LEC_FILTER_ANY;
	f.built = LEC_FILTER_TRUE;
	CHECK_STR(filtered(st, p, &f, buf, sizeof(buf)), "alpha");
	f.built = LEC_FILTER_ANY;
	f.uploaded = LEC_FILTER_TRUE;
	CHECK_STR(filtered(st, p, &f, buf, sizeof(buf)), "beta");
	f.uploaded = LEC_FILTER_FALSE;
	CHECK_STR(filtered(st, p, &f, buf, sizeof(buf)), "alpha Gamma 42");
	f.uploaded = LEC_FILTER_ANY;

	f.privacy_level = "private";
	CHECK_STR(filtered(st, p, &f, buf, sizeof(buf)), "Gamma");
	f.privacy_level = "public";
	CHECK_STR(filtered(st, p, &f, buf, sizeof(buf)), "beta alpha 42");
	f.privacy_level = "";
	CHECK_STR(filtered(st, p, &f, buf, sizeof(buf)),
		  "beta alpha Gamma 42");
	f.privacy_level = NULL;

	f.type = "tag";
	CHECK_STR(filtered(st, p, &f, buf, sizeof(buf)), "beta Gamma");
	f.type = "external";
	CHECK_STR(filtered(st, p, &f, buf, sizeof(buf)), "42");
	f.type = NULL;

	f.external = LEC_FILTER_FALSE;
	CHECK_STR(filtered(st, p, &f, buf, sizeof(buf)), "beta alpha Gamma");
	f.external = LEC_FILTER_TRUE;
	CHECK_STR(filtered(st, p, &f, buf, sizeof(buf)), "42");
	f.external = LEC_FILTER_ANY;

	f.slug = "AMM";
	CHECK_STR(filtered(st, p, &f, buf, sizeof(buf)), "Gamma");
	f.slug = NULL;
	f.verbose_name = "gam";
	CHECK_STR(filtered(st, p, &f, buf, sizeof(buf)), "Gamma");
	f.verbose_name = "A";
	f.type = "tag";
	CHECK_STR(filtered(st, p, &f, buf, sizeof(buf)), "beta Gamma");
	f.verbose_name = "%";
	CHECK_STR(filtered(st, p, &f, buf, sizeof(buf)), "");
	f.verbose_name = NULL;

	/* Choice filters reject values the service would reject. */
	f.type = "branches";
	CHECK_ERR(lec_version_list(st, p, &f, NULL, &list), LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "type");
	CHECK_STR(lec_error_last(), "Select a valid choice. branches is not "
				    "one of the available choices.");
	CHECK(list.items == NULL && list.len == 0);
	f.type = NULL;
	f.privacy_level = "secret";
	CHECK_ERR(lec_version_list(st, p, &f, NULL, &list), LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "privacy_level");
	CHECK_STR(lec_error_last(), "Select a valid choice. secret is not "
				    "one of the available choices.");
	lec_store_free(st);
}

TEST(update_patch)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t id = make_version(st, p, "main", LEC_VERSION_BRANCH);
	struct lec_version_patch patch = { 0 };
	struct lec_version *v = NULL;

	patch.set = LEC_VERSION_SET_ACTIVE | LEC_VERSION_SET_HIDDEN |
		    LEC_VERSION_SET_BUILT | LEC_VERSION_SET_UPLOADED |
		    LEC_VERSION_SET_IDENTIFIER | LEC_VERSION_SET_TYPE |
		    LEC_VERSION_SET_VERBOSE_NAME |
		    LEC_VERSION_SET_PRIVACY_LEVEL | LEC_VERSION_SET_HAS_PDF |
		    LEC_VERSION_SET_HAS_EPUB | LEC_VERSION_SET_HAS_HTMLZIP |
		    LEC_VERSION_SET_DOCUMENTATION_TYPE |
		    LEC_VERSION_SET_MACHINE;
	patch.active = patch.hidden = patch.built = patch.uploaded = 1;
	patch.identifier = "deadbeef";
	patch.type = LEC_VERSION_TAG;
	patch.verbose_name = "Main line";
	patch.privacy_level = "private";
	patch.has_pdf = patch.has_epub = patch.has_htmlzip = 7;
	patch.documentation_type = "mkdocs";
	patch.machine = 1;
	CHECK_OK(lec_version_update(st, id, &patch));
	CHECK_OK(lec_version_get_by_id(st, id, &v));
	if (v) {
		CHECK_INT(v->active + v->hidden + v->built + v->uploaded, 4);
		CHECK_STR(v->identifier, "deadbeef");
		CHECK_INT(v->type, LEC_VERSION_TAG);
		CHECK_STR(v->verbose_name, "Main line");
		CHECK_STR(v->slug, "main"); /* never renamed */
		CHECK_STR(v->privacy_level, "private");
		CHECK_INT(v->has_pdf, 1);
		CHECK_INT(v->has_epub, 1);
		CHECK_INT(v->has_htmlzip, 1);
		CHECK_STR(v->documentation_type, "mkdocs");
		CHECK_INT(v->machine, 1);
		CHECK(v->modified >= v->created);
	}
	lec_version_free(v);
	v = NULL;

	/* Only the named fields change; NULL clears the identifier. */
	memset(&patch, 0, sizeof(patch));
	patch.set = LEC_VERSION_SET_IDENTIFIER;
	CHECK_OK(lec_version_update(st, id, &patch));
	CHECK_OK(lec_version_get_by_id(st, id, &v));
	CHECK(v && v->identifier == NULL && v->active && v->built);
	lec_version_free(v);
	v = NULL;

	/* Deactivating clears built, unless the patch sets built itself. */
	patch.set = LEC_VERSION_SET_ACTIVE;
	patch.active = 0;
	CHECK_OK(lec_version_update(st, id, &patch));
	CHECK_OK(lec_version_get_by_id(st, id, &v));
	CHECK(v && !v->active && !v->built && v->hidden);
	lec_version_free(v);
	v = NULL;
	patch.set = LEC_VERSION_SET_ACTIVE | LEC_VERSION_SET_BUILT;
	patch.active = 1;
	patch.built = 1;
	CHECK_OK(lec_version_update(st, id, &patch));
	patch.active = 0;
	CHECK_OK(lec_version_update(st, id, &patch));
	CHECK_OK(lec_version_get_by_id(st, id, &v));
	CHECK(v && !v->active && v->built);
	lec_version_free(v);
	v = NULL;
	/* An empty patch only touches modified. */
	patch.set = 0;
	CHECK_OK(lec_version_update(st, id, &patch));

	/* Bad values are refused per field and change nothing. */
	patch.set = LEC_VERSION_SET_PRIVACY_LEVEL | LEC_VERSION_SET_HIDDEN;
	patch.privacy_level = "secret";
	patch.hidden = 0;
	CHECK_ERR(lec_version_update(st, id, &patch), LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "privacy_level");
	CHECK_STR(lec_error_last(), "\"secret\" is not a valid choice.");
	patch.set = LEC_VERSION_SET_DOCUMENTATION_TYPE;
	patch.documentation_type = "latex";
	CHECK_ERR(lec_version_update(st, id, &patch), LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "documentation_type");
	patch.set = LEC_VERSION_SET_VERBOSE_NAME;
	patch.verbose_name = "";
	CHECK_ERR(lec_version_update(st, id, &patch), LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "verbose_name");
	patch.set = LEC_VERSION_SET_TYPE;
	patch.type = (enum lec_version_type)-1;
	CHECK_ERR(lec_version_update(st, id, &patch), LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "type");
	CHECK_OK(lec_version_get_by_id(st, id, &v));
	CHECK(v && v->hidden == 1 && strcmp(v->privacy_level, "private") == 0);
	lec_version_free(v);

	patch.set = LEC_VERSION_SET_HIDDEN;
	CHECK_ERR(lec_version_update(st, 4242, &patch), LEC_ENOTFOUND);
	lec_store_free(st);
}

TEST(delete_version)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t id = make_version(st, p, "main", LEC_VERSION_BRANCH);
	struct lec_version *v = NULL;

	CHECK_OK(lec_version_delete(st, id));
	CHECK_ERR(lec_version_get_by_id(st, id, &v), LEC_ENOTFOUND);
	CHECK_ERR(lec_version_delete(st, id), LEC_ENOTFOUND);
	/* The slug is free again. */
	check_slug(st, make_version(st, p, "main", LEC_VERSION_BRANCH),
		   "main");
	lec_store_free(st);
}

TEST(project_delete_cascades)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t id = make_version(st, p, "main", LEC_VERSION_BRANCH);
	struct lec_version *v = NULL;

	CHECK_OK(lec_store__exec(st, "DELETE FROM projects"));
	CHECK_ERR(lec_version_get_by_id(st, id, &v), LEC_ENOTFOUND);
	lec_store_free(st);
}

/* The sign of lec_version_pep440_compare(a, b), or 9 on error. */
static int pep(const char *a, const char *b)
{
	int cmp = 0;

	if (lec_version_pep440_compare(a, b, &cmp) != LEC_OK)
		return 9;
	return (cmp > 0) - (cmp < 0);
}

TEST(pep440_ordering)
{
	static const struct {
		const char *a, *b;
		int want;
	} cases[] = {
		{ "1.10", "1.9", 1 },
		{ "1.0.post1", "1.0", 1 },
		{ "v2.0", "2.0", 0 },
		{ "V2.0", "2.0", 0 },
		{ "1.0", "1.0.0", 0 },
		{ "1.01", "1.1", 0 },
		{ " 1.0\n", "1.0", 0 },
		{ "1.0a1", "1.0", -1 },
		{ "1.0.dev1", "1.0a1", -1 },
		{ "1.0b2", "1.0rc1", -1 },
		{ "1.0c1", "1.0rc1", 0 },
		{ "1.0.preview2", "1.0rc2", 0 },
		{ "1.0pre2", "1.0-rc.2", 0 },
		{ "1.0alpha1", "1.0a1", 0 },
		{ "1.0beta", "1.0b0", 0 },
		{ "1.0a", "1.0a0", 0 },
		{ "1.0-1", "1.0.post1", 0 },
		{ "1.0rev1", "1.0.post1", 0 },
		{ "1.0r", "1.0post0", 0 },
		{ "1.0.post1.dev1", "1.0.post1", -1 },
		{ "1.0.post1.dev1", "1.0", 1 },
		{ "1.0a1.post1", "1.0a2", -1 },
		{ "1.0a1.post1", "1.0a1", 1 },
		{ "1.0.dev1", "1.0.dev2", -1 },
		{ "1!0.1", "2.0", 1 },
		{ "0!2.0", "2.0", 0 },
		{ "1.0+local", "1.0", 1 },
		{ "1.0+abc.5", "1.0+abc.10", -1 },
		{ "1.0+5", "1.0+abc", 1 },
		{ "1.0+abc", "1.0+abd", -1 },
		{ "1.0+abc", "1.0+abc.1", -1 },
		{ "1.0+ABC-1", "1.0+abc.1", 0 },
		{ "1.x", "1.5", 1 },
		{ "1.x", "1.999999", 0 },
		{ "2024.01", "2023.12", 1 },
		{ "1.123456789012345678901234567890",
		  "1.123456789012345678901234567889", 1 },
		/* Fullwidth digits become ASCII under NFKD. */
		{ "\xef\xbc\x91.\xef\xbc\x90", "1.0", 0 },
		/* Not versions. */
		{ "latest", "1.0", 9 },
		{ "1.0", "stable", 9 },
		{ "1.0.", "1.0", 9 },
		{ "1..0", "1.0", 9 },
		{ "1.0+", "1.0", 9 },
		{ "1.0+a..b", "1.0", 9 },
		{ "1.X", "1.0", 9 },
		{ "", "1.0", 9 },
		{ "\xff", "1.0", 9 },
		{ "release-1.0", "1.0", 9 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int got = pep(cases[i].a, cases[i].b);

		if (got != cases[i].want)
			FAIL_AT("compare(\"%s\", \"%s\") = %d, expected %d",
				cases[i].a, cases[i].b, got, cases[i].want);
		if (cases[i].want != 9 &&
		    pep(cases[i].b, cases[i].a) != -cases[i].want)
			FAIL_AT("compare(\"%s\", \"%s\") is not antisymmetric",
				cases[i].b, cases[i].a);
	}
	CHECK_ERR(lec_version_pep440_compare("nope", "1.0", &(int){ 0 }),
		  LEC_EINVALID);
	CHECK(strstr(lec_error_last(), "'nope'") != NULL);
	CHECK_ERR(lec_version_pep440_compare(NULL, "1.0", &(int){ 0 }),
		  LEC_EINVALID);

	CHECK_INT(lec_version_pep440_final("1.0"), 1);
	CHECK_INT(lec_version_pep440_final("v2.0.post3"), 1);
	CHECK_INT(lec_version_pep440_final("1.0+local"), 1);
	CHECK_INT(lec_version_pep440_final("1.0rc1"), 0);
	CHECK_INT(lec_version_pep440_final("1.0.dev0"), 0);
	CHECK_INT(lec_version_pep440_final("1.0.post1.dev0"), 0);
	CHECK_INT(lec_version_pep440_final("1.0alpha"), 0);
	CHECK_INT(lec_version_pep440_final("latest"), 0);
	CHECK_INT(lec_version_pep440_final(NULL), 0);
}

/* The slug of the stable pick, or "" when none. */
static void check_stable(struct lec_store *st, int64_t p, const char *want)
{
	struct lec_version *v = NULL;
	int rc = lec_version_determine_stable(st, p, &v);

	if (want == NULL) {
		CHECK_INT(rc, LEC_ENOTFOUND);
		CHECK(v == NULL);
		return;
	}
	CHECK_OK(rc);
	CHECK_STR(v ? v->verbose_name : NULL, want);
	lec_version_free(v);
}

TEST(stable_determination)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");

	check_stable(st, p, NULL);
	make_version(st, p, "main", LEC_VERSION_BRANCH);
	make_version(st, p, "2.0rc1", LEC_VERSION_TAG);
	make_version(st, p, "3.0.dev1", LEC_VERSION_TAG);
	make_version(st, p, "4.0alpha", LEC_VERSION_BRANCH);
	check_stable(st, p, NULL); /* unparsable and pre-releases only */

	/* With no tag qualifying, the highest branch wins. */
	make_version(st, p, "1.9", LEC_VERSION_BRANCH);
	make_version(st, p, "1.10", LEC_VERSION_BRANCH);
	check_stable(st, p, "1.10");
	/* Any qualifying tag beats every branch. */
	make_version(st, p, "v1.0", LEC_VERSION_TAG);
	check_stable(st, p, "v1.0");
	make_version(st, p, "1.0.post1", LEC_VERSION_TAG);
	check_stable(st, p, "1.0.post1");
	/* External versions never count. */
	make_version(st, p, "9.0", LEC_VERSION_EXTERNAL);
	check_stable(st, p, "1.0.post1");
	/* Equal versions: the first in list order (name descending). */
	make_version(st, p, "1.1", LEC_VERSION_TAG);
	make_version(st, p, "v1.1", LEC_VERSION_TAG);
	check_stable(st, p, "v1.1");
	make_version(st, p, "1.x", LEC_VERSION_TAG);
	check_stable(st, p, "1.x");
	lec_store_free(st);
}

TEST(stable_machine_version)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	struct lec_version *promoted = NULL, *stable = NULL, *orig = NULL;
	struct lec_version *v = NULL;
	int64_t one;

	/* Nothing qualifies: no stable. */
	CHECK_OK(lec_version_update_stable(st, p, &promoted));
	CHECK(promoted == NULL);
	CHECK_ERR(lec_version_get(st, p, "stable", &stable), LEC_ENOTFOUND);

	one = make_version(st, p, "1.0", LEC_VERSION_TAG);
	CHECK_OK(lec_version_update_stable(st, p, &promoted));
	CHECK(promoted && promoted->id == one);
	lec_version_free(promoted);
	promoted = NULL;
	CHECK_OK(lec_version_get(st, p, "stable", &stable));
	if (stable) {
		CHECK_STR(stable->verbose_name, "stable");
		CHECK_INT(stable->machine, 1);
		CHECK_INT(stable->active, 1);
		CHECK_INT(stable->type, LEC_VERSION_TAG);
		CHECK_STR(stable->identifier, "1.0");
		CHECK_OK(lec_version_original(st, stable, &orig));
		CHECK(orig && orig->id == one);
		lec_version_free(orig);
		orig = NULL;
	}
	lec_version_free(stable);
	stable = NULL;

	/* Unchanged: nothing promoted. */
	CHECK_OK(lec_version_update_stable(st, p, &promoted));
	CHECK(promoted == NULL);

	/* A newer tag moves it. */
	make_version(st, p, "1.1", LEC_VERSION_TAG);
	CHECK_OK(lec_version_update_stable(st, p, NULL));
	CHECK_OK(lec_version_get(st, p, "stable", &stable));
	CHECK(stable && strcmp(stable->identifier, "1.1") == 0);
	lec_version_free(stable);
	stable = NULL;

	/* A user's own `stable` turns the machine off. */
	CHECK_OK(lec_version_get(st, p, "stable", &v));
	if (v)
		CHECK_OK(lec_version_delete(st, v->id));
	lec_version_free(v);
	v = NULL;
	make_version(st, p, "stable", LEC_VERSION_BRANCH);
	make_version(st, p, "2.0", LEC_VERSION_TAG);
	CHECK_OK(lec_version_update_stable(st, p, &promoted));
	CHECK(promoted == NULL);
	CHECK_OK(lec_version_get(st, p, "stable", &stable));
	CHECK(stable && stable->machine == 0 &&
	      strcmp(stable->identifier, "stable") == 0);
	if (stable)
		CHECK_ERR(lec_version_original(st, stable, &orig),
			  LEC_ENOTFOUND);
	lec_version_free(stable);

	CHECK_ERR(lec_version_update_stable(st, p + 9, NULL), LEC_ENOTFOUND);
	lec_store_free(st);
}

TEST(latest_machine_version)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	struct lec_version *latest = NULL, *orig = NULL;
	int64_t tag;

	/* Created when missing, active, with an unknown identifier. */
	CHECK_OK(lec_version_update_latest(st, p, NULL));
	CHECK_OK(lec_version_get(st, p, "latest", &latest));
	if (latest) {
		CHECK_INT(latest->machine, 1);
		CHECK_INT(latest->active, 1);
		CHECK_INT(latest->type, LEC_VERSION_BRANCH);
		CHECK(latest->identifier == NULL);
		CHECK_ERR(lec_version_original(st, latest, &orig),
			  LEC_ENOTFOUND);
	}
	lec_version_free(latest);
	latest = NULL;

	/* The default branch is a tag: latest takes its type. */
	tag = make_version(st, p, "v3", LEC_VERSION_TAG);
	CHECK_OK(lec_version_update_latest(st, p, "v3"));
	CHECK_OK(lec_version_get(st, p, "latest", &latest));
	CHECK(latest && latest->type == LEC_VERSION_TAG &&
	      strcmp(latest->identifier, "v3") == 0);
	if (latest) {
		CHECK_OK(lec_version_original(st, latest, &orig));
		CHECK(orig && orig->id == tag);
		lec_version_free(orig);
		orig = NULL;
	}
	lec_version_free(latest);
	latest = NULL;

	/* A default branch without a version of its own is a branch. */
	CHECK_OK(lec_version_update_latest(st, p, "develop"));
	CHECK_OK(lec_version_get(st, p, "latest", &latest));
	CHECK(latest && latest->type == LEC_VERSION_BRANCH &&
	      strcmp(latest->identifier, "develop") == 0);
	lec_version_free(latest);
	latest = NULL;

	CHECK_ERR(lec_version_update_latest(st, p + 3, "main"),
		  LEC_ENOTFOUND);
	lec_store_free(st);
}

TEST(latest_owned_by_user_is_left_alone)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	struct lec_version *latest = NULL;

	make_version(st, p, "latest", LEC_VERSION_BRANCH);
	CHECK_OK(lec_version_update_latest(st, p, "main"));
	CHECK_OK(lec_version_get(st, p, "latest", &latest));
	CHECK(latest && !latest->machine &&
	      strcmp(latest->identifier, "latest") == 0);
	lec_version_free(latest);
	lec_store_free(st);
}

TEST(default_version_slug)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t v1 = make_version(st, p, "v1", LEC_VERSION_TAG);
	char *slug = NULL;

	CHECK_OK(lec_version_default_slug(st, p, &slug));
	CHECK_STR(slug, "latest");
	free(slug);
	slug = NULL;

	/* An inactive or missing default resolves to latest. */
	CHECK_OK(lec_store__exec(st, "UPDATE projects SET default_version = "
				     "'v1'"));
	CHECK_OK(lec_version_default_slug(st, p, &slug));
	CHECK_STR(slug, "latest");
	free(slug);
	slug = NULL;
	set_flags(st, v1, LEC_VERSION_SET_ACTIVE, 1);
	CHECK_OK(lec_version_default_slug(st, p, &slug));
	CHECK_STR(slug, "v1");
	free(slug);
	slug = NULL;
	CHECK_OK(lec_store__exec(st, "UPDATE projects SET default_version = "
				     "'gone'"));
	CHECK_OK(lec_version_default_slug(st, p, &slug));
	CHECK_STR(slug, "latest");
	free(slug);
	slug = NULL;

	CHECK_ERR(lec_version_default_slug(st, p + 1, &slug), LEC_ENOTFOUND);
	CHECK(slug == NULL);
	lec_store_free(st);
}

/* Most allocations one call makes; the torture loop tries failing each. */
#define TORTURE_MAX 400

/* Run op with the 1st, 2nd, ... allocation failing: each run must fail
 * cleanly with LEC_ENOMEM (ASan reports any leak) until one succeeds. */
#define TORTURE(call)                                                        \
	do {                                                                 \
		long n_;                                                     \
		int rc_ = LEC_ENOMEM;                                        \
		for (n_ = 1; n_ <= TORTURE_MAX && rc_ == LEC_ENOMEM; n_++) { \
			lec__alloc_fail_after(n_);                           \
			rc_ = (call);                                        \
			lec__alloc_fail_after(0);                            \
		}                                                            \
		CHECK_OK(rc_);                                               \
	} while (0)

TEST(out_of_memory_is_clean)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	struct lec_version *v = NULL;
	struct lec_version_list list = { 0 };
	char *slug = NULL;
	int cmp = 0;

	make_version(st, p, "1.0", LEC_VERSION_TAG);
	make_version(st, p, "main", LEC_VERSION_BRANCH);
	/* A create that fails leaves nothing behind: the slug stays _a. */
	TORTURE((lec_version_free(v), v = NULL,
		 lec_version_create(st, p, "1.0", "x", LEC_VERSION_TAG, 1,
				    &v)));
	CHECK_STR(v ? v->slug : NULL, "1.0_a");
	TORTURE((lec_version_list_dispose(&list),
		 lec_version_list(st, p, NULL, NULL, &list)));
	CHECK(list.len >= 3);
	lec_version_list_dispose(&list);
	TORTURE((lec_version_free(v), v = NULL,
		 lec_version_determine_stable(st, p, &v)));
	CHECK(v != NULL);
	TORTURE((lec_version_free(v), v = NULL,
		 lec_version_update_stable(st, p, &v)));
	TORTURE(lec_version_update_latest(st, p, "main"));
	TORTURE((lec_version_free(v), v = NULL,
		 lec_version_get(st, p, "stable", &v)));
	TORTURE(lec_version_pep440_compare("v1.0.post1+local.7", "1.x", &cmp));
	CHECK(cmp < 0);
	TORTURE((lec__free(slug), slug = NULL,
		 lec_version_default_slug(st, p, &slug)));
	CHECK_STR(slug, "latest");
	lec__free(slug);
	lec_version_free(v);
	lec_store_free(st);
}

/* The project a take hands out, or -1 when it fails. */
static int64_t take(struct lec_store *st)
{
	int64_t id = -1;

	if (lec_version_sync_take(st, &id) != LEC_OK)
		return -1;
	return id;
}

TEST(sync_requests_queue_oldest_first)
{
	struct lec_store *st = lec_test_store();
	int64_t a = lec_test_project(st, "a");
	int64_t b = lec_test_project(st, "b");
	int64_t id = 99;

	CHECK_ERR(lec_version_sync_take(st, &id), LEC_ENOTFOUND);
	CHECK_INT(id, 0);
	CHECK_OK(lec_version_sync_request(st, b));
	CHECK_OK(lec_version_sync_request(st, a));
	/* Asking again while pending changes nothing: b stays first. */
	CHECK_OK(lec_version_sync_request(st, b));
	CHECK_INT(take(st), b);
	/* Once taken, a new request queues behind the pending ones. */
	CHECK_OK(lec_version_sync_request(st, b));
	CHECK_INT(take(st), a);
	CHECK_INT(take(st), b);
	CHECK_ERR(lec_version_sync_take(st, &id), LEC_ENOTFOUND);
	CHECK_INT(id, 0);
	lec_store_free(st);
}

TEST(sync_request_needs_a_project)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t id = 0;

	CHECK_ERR(lec_version_sync_request(st, p + 1), LEC_ENOTFOUND);
	CHECK_ERR(lec_version_sync_take(st, &id), LEC_ENOTFOUND);
	/* Deleting a project drops its pending request. */
	CHECK_OK(lec_version_sync_request(st, p));
	CHECK_OK(lec_store__exec(st, "DELETE FROM projects"));
	CHECK_ERR(lec_version_sync_take(st, &id), LEC_ENOTFOUND);
	lec_store_free(st);
}

TEST(sync_requests_are_durable_and_shared)
{
	char dir[512];
	struct lec_store *st = NULL, *other = NULL;
	int64_t a, b;

	snprintf(dir, sizeof(dir), "%s", lec_test_tmpdir());
	CHECK_OK(lec_store_open_dir(&st, dir, NULL));
	if (st == NULL)
		return;
	a = lec_test_project(st, "a");
	b = lec_test_project(st, "b");
	CHECK_OK(lec_version_sync_request(st, a));
	CHECK_OK(lec_version_sync_request(st, b));
	lec_store_free(st);
	/* After a reopen both are pending; two handles on one database
	 * each take a different one. */
	CHECK_OK(lec_store_open_dir(&st, dir, NULL));
	CHECK_OK(lec_store_open_dir(&other, dir, NULL));
	if (st && other) {
		CHECK_INT(take(other), a);
		CHECK_INT(take(st), b);
		CHECK_INT(take(other), -1);
		CHECK_INT(take(st), -1);
	}
	lec_store_free(other);
	lec_store_free(st);
}

TEST(sync_requests_out_of_memory_is_clean)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t id = 0;

	TORTURE(lec_version_sync_request(st, p));
	TORTURE(lec_version_sync_take(st, &id));
	CHECK_INT(id, p);
	lec_store_free(st);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(create_round_trip),
	TEST_ENTRY(slug_unique_with_suffixes),
	TEST_ENTRY(slug_attempts_are_limited),
	TEST_ENTRY(create_validation),
	TEST_ENTRY(type_codes),
	TEST_ENTRY(list_order_and_paging),
	TEST_ENTRY(list_filters),
	TEST_ENTRY(update_patch),
	TEST_ENTRY(delete_version),
	TEST_ENTRY(project_delete_cascades),
	TEST_ENTRY(pep440_ordering),
	TEST_ENTRY(stable_determination),
	TEST_ENTRY(stable_machine_version),
	TEST_ENTRY(latest_machine_version),
	TEST_ENTRY(latest_owned_by_user_is_left_alone),
	TEST_ENTRY(default_version_slug),
	TEST_ENTRY(out_of_memory_is_clean),
	TEST_ENTRY(sync_requests_queue_oldest_first),
	TEST_ENTRY(sync_request_needs_a_project),
	TEST_ENTRY(sync_requests_are_durable_and_shared),
	TEST_ENTRY(sync_requests_out_of_memory_is_clean),
};

LEC_TEST_MAIN(tests)
