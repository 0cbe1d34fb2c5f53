/*
 * Version sync (behaviour notes §6.1-§6.2): new refs become inactive
 * versions, moved tags are re-pointed, vanished refs deleted unless their
 * version is active, uploaded, external or machine-managed; `latest`
 * follows the project's or the remote's default branch; `stable` is the
 * highest final PEP 440 release, tags before branches; a branch or tag
 * named `stable` or `latest` takes that slug over and gives it back when it
 * vanishes; a second run changes nothing. The last case syncs from a real
 * repo cache made with the git program.
 */
#include <stdarg.h>

#include "harness.h"
#include "internal.h"
#include "lectern/build.h"
#include "lectern/project.h"
#include "lectern/repo.h"
#include "lectern/version.h"
#include "lectern/vsync.h"
#include "store_internal.h"

#define C1 "1111111111111111111111111111111111111111"
#define C2 "2222222222222222222222222222222222222222"
#define C3 "3333333333333333333333333333333333333333"
#define C4 "4444444444444444444444444444444444444444"
#define C5 "5555555555555555555555555555555555555555"

#define B LEC_REPO_BRANCH
#define T LEC_REPO_TAG

struct spec {
	const char *name;
	enum lec_repo_ref_type type;
	const char *commit;
};

/* Replace refs with the specs (branches get a commit too, as
 * lec_repo_list_refs gives them one). */
static void set_refs(struct lec_repo_refs *refs, const struct spec *s,
		     size_t n, const char *default_branch)
{
	size_t i;

	lec_repo_refs_dispose(refs);
	refs->items = calloc(n ? n : 1, sizeof(*refs->items));
	for (i = 0; i < n; i++) {
		refs->items[i].name = strdup(s[i].name);
		refs->items[i].type = s[i].type;
		refs->items[i].commit = strdup(s[i].commit ? s[i].commit : C1);
	}
	refs->len = n;
	refs->default_branch = default_branch ? strdup(default_branch) : NULL;
}

#define SET_REFS(refs, specs, def)                                           \
	set_refs(refs, specs, sizeof(specs) / sizeof(specs[0]), def)

static int64_t mkproject(struct lec_store *st, const char *name)
{
	struct lec_project_new in;
	struct lec_project *p = NULL;
	int64_t id;

	memset(&in, 0, sizeof(in));
	in.name = name;
	in.repo_url = "https://example.com/repo.git";
	CHECK_OK(lec_project_create(st, &in, 0, &p));
	id = p ? p->id : 0;
	lec_project_free(p);
	return id;
}

/* The version at slug (a failed check when missing); caller frees. */
static struct lec_version *get(struct lec_store *st, int64_t project,
			       const char *slug)
{
	struct lec_version *v = NULL;

	CHECK_OK(lec_version_get(st, project, slug, &v));
	return v;
}

static int exists(struct lec_store *st, int64_t project, const char *slug)
{
	struct lec_version *v = NULL;
	int rc = lec_version_get(st, project, slug, &v);

	lec_version_free(v);
	return rc == LEC_OK;
}

static size_t count(struct lec_store *st, int64_t project)
{
	struct lec_version_list list = { 0 };
	size_t total;

	CHECK_OK(lec_version_list(st, project, NULL, NULL, &list));
	total = list.total;
	lec_version_list_dispose(&list);
	return total;
}

static void check_version(struct lec_store *st, int64_t project,
			  const char *slug, enum lec_version_type type,
			  const char *identifier, int active, int machine)
{
	struct lec_version *v = get(st, project, slug);

	if (v == NULL)
		return;
	CHECK_INT(v->type, type);
	CHECK_STR(v->identifier, identifier);
	CHECK_INT(v->active, active);
	CHECK_INT(v->machine, machine);
	lec_version_free(v);
}

static int64_t id_of(struct lec_store *st, int64_t project, const char *slug)
{
	struct lec_version *v = get(st, project, slug);
	int64_t id = v ? v->id : -1;

	lec_version_free(v);
	return id;
}

static void check_result(const struct lec_vsync_result *r, size_t added,
			 size_t updated, size_t removed, int64_t promoted)
{
	CHECK_INT(r->added, added);
	CHECK_INT(r->updated, updated);
	CHECK_INT(r->removed, removed);
	CHECK_INT(r->promoted_stable_id, promoted);
}

static const struct spec first_refs[] = {
	{ "main", B, C5 },    { "feature", B, C1 }, { "v1.0", T, C1 },
	{ "v2.0", T, C2 },    { "v3.0rc1", T, C3 },
};

/* A project synced once with first_refs. */
static int64_t synced_project(struct lec_store *st,
			      struct lec_repo_refs *refs)
{
	struct lec_vsync_result r;
	int64_t p = mkproject(st, "p");

	SET_REFS(refs, first_refs, "main");
	CHECK_OK(lec_vsync_apply(st, p, refs, &r));
	return p;
}

TEST(first_sync_creates_inactive_versions)
{
	struct lec_store *st = lec_test_store();
	struct lec_repo_refs refs = { 0 };
	struct lec_vsync_result r;
	struct lec_version *v;
	int64_t p = mkproject(st, "p");

	SET_REFS(&refs, first_refs, "main");
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	check_result(&r, 5, 0, 0, id_of(st, p, "v2.0"));
	CHECK(r.promoted_stable_id > 0);
	/* A branch is identified by its name, a tag by its commit. */
	check_version(st, p, "main", LEC_VERSION_BRANCH, "main", 0, 0);
	check_version(st, p, "feature", LEC_VERSION_BRANCH, "feature", 0, 0);
	check_version(st, p, "v1.0", LEC_VERSION_TAG, C1, 0, 0);
	check_version(st, p, "v2.0", LEC_VERSION_TAG, C2, 0, 0);
	check_version(st, p, "v3.0rc1", LEC_VERSION_TAG, C3, 0, 0);
	v = get(st, p, "v2.0");
	CHECK_STR(v ? v->verbose_name : NULL, "v2.0");
	lec_version_free(v);
	/* latest follows the remote's default branch; stable is the highest
	 * final release (not the pre-release). */
	check_version(st, p, "latest", LEC_VERSION_BRANCH, "main", 1, 1);
	check_version(st, p, "stable", LEC_VERSION_TAG, C2, 1, 1);
	CHECK_INT(count(st, p), 7);
	lec_repo_refs_dispose(&refs);
	lec_store_free(st);
}

TEST(second_sync_changes_nothing)
{
	struct lec_store *st = lec_test_store();
	struct lec_repo_refs refs = { 0 };
	struct lec_vsync_result r;
	int64_t p = synced_project(st, &refs), main_id = id_of(st, p, "main");

	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	check_result(&r, 0, 0, 0, 0);
	CHECK_INT(count(st, p), 7);
	CHECK_INT(id_of(st, p, "main"), main_id);
	check_version(st, p, "stable", LEC_VERSION_TAG, C2, 1, 1);
	CHECK(!exists(st, p, "main_a"));
	lec_repo_refs_dispose(&refs);
	lec_store_free(st);
}

TEST(moved_new_and_vanished_refs)
{
	struct lec_store *st = lec_test_store();
	struct lec_repo_refs refs = { 0 };
	struct lec_vsync_result r;
	int64_t p = synced_project(st, &refs), v20 = id_of(st, p, "v2.0");
	/* v2.0 moved, v2.1 new, feature and v1.0 gone; main has a new
	 * commit, which does not change a branch's identifier. */
	const struct spec next[] = {
		{ "main", B, C4 }, { "v2.0", T, C4 },
		{ "v2.1", T, C5 }, { "v3.0rc1", T, C3 },
	};

	SET_REFS(&refs, next, "main");
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	check_result(&r, 1, 1, 2, id_of(st, p, "v2.1"));
	check_version(st, p, "v2.0", LEC_VERSION_TAG, C4, 0, 0);
	CHECK_INT(id_of(st, p, "v2.0"), v20);
	check_version(st, p, "v2.1", LEC_VERSION_TAG, C5, 0, 0);
	check_version(st, p, "main", LEC_VERSION_BRANCH, "main", 0, 0);
	CHECK(!exists(st, p, "feature"));
	CHECK(!exists(st, p, "v1.0"));
	check_version(st, p, "stable", LEC_VERSION_TAG, C5, 1, 1);
	CHECK_INT(count(st, p), 6);
	lec_repo_refs_dispose(&refs);
	lec_store_free(st);
}

TEST(vanished_versions_kept_when_in_use)
{
	struct lec_store *st = lec_test_store();
	struct lec_repo_refs refs = { 0 };
	struct lec_vsync_result r;
	struct lec_version_patch patch = { 0 };
	int64_t p = synced_project(st, &refs);
	const struct spec only_main[] = { { "main", B, C5 } };

	/* feature is active, v1.0 uploaded, v2.0 hidden (not protected); a
	 * pull request version has no ref at all. */
	patch.set = LEC_VERSION_SET_ACTIVE;
	patch.active = 1;
	CHECK_OK(lec_version_update(st, id_of(st, p, "feature"), &patch));
	patch.set = LEC_VERSION_SET_UPLOADED;
	patch.uploaded = 1;
	CHECK_OK(lec_version_update(st, id_of(st, p, "v1.0"), &patch));
	patch.set = LEC_VERSION_SET_HIDDEN;
	patch.hidden = 1;
	CHECK_OK(lec_version_update(st, id_of(st, p, "v2.0"), &patch));
	CHECK_OK(lec_version_create(st, p, "42", "42", LEC_VERSION_EXTERNAL, 0,
				    NULL));

	SET_REFS(&refs, only_main, "main");
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	check_result(&r, 0, 0, 2, id_of(st, p, "v1.0"));
	CHECK(exists(st, p, "feature"));
	CHECK(exists(st, p, "v1.0"));
	CHECK(exists(st, p, "42"));
	CHECK(!exists(st, p, "v2.0"));
	CHECK(!exists(st, p, "v3.0rc1"));
	/* stable moves from the deleted v2.0 to the kept v1.0. */
	check_version(st, p, "latest", LEC_VERSION_BRANCH, "main", 1, 1);
	check_version(st, p, "stable", LEC_VERSION_TAG, C1, 1, 1);
	lec_repo_refs_dispose(&refs);
	lec_store_free(st);
}

TEST(latest_follows_default_branch)
{
	struct lec_store *st = lec_test_store();
	struct lec_repo_refs refs = { 0 };
	struct lec_vsync_result r;
	struct lec_project_patch patch = { 0 };
	int64_t p = mkproject(st, "p");
	const struct spec branches[] = { { "main", B, C1 }, { "dev", B, C2 },
					 { "v1.0", T, C1 } };

	SET_REFS(&refs, branches, "dev");
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	check_version(st, p, "latest", LEC_VERSION_BRANCH, "dev", 1, 1);

	/* The project's own default branch wins over the remote's. */
	patch.fields = LEC_PROJECT_F_DEFAULT_BRANCH;
	patch.default_branch = "main";
	CHECK_OK(lec_project_update(st, p, &patch));
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	check_version(st, p, "latest", LEC_VERSION_BRANCH, "main", 1, 1);

	/* Neither known: latest keeps the branch it has. */
	patch.default_branch = NULL;
	CHECK_OK(lec_project_update(st, p, &patch));
	SET_REFS(&refs, branches, NULL);
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	check_result(&r, 0, 0, 0, 0);
	check_version(st, p, "latest", LEC_VERSION_BRANCH, "main", 1, 1);

	/* A default that names a tag makes latest a tag. */
	patch.default_branch = "v1.0";
	CHECK_OK(lec_project_update(st, p, &patch));
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	check_version(st, p, "latest", LEC_VERSION_TAG, "v1.0", 1, 1);
	lec_repo_refs_dispose(&refs);
	lec_store_free(st);
}

TEST(stable_prefers_tags_then_branches)
{
	struct lec_store *st = lec_test_store();
	struct lec_repo_refs refs = { 0 };
	struct lec_vsync_result r;
	int64_t p = mkproject(st, "tags"), q = mkproject(st, "branches");
	int64_t none = mkproject(st, "none");
	/* A higher branch loses to the highest final tag. */
	const struct spec with_tag[] = { { "main", B, C1 }, { "3.0", B, C1 },
					 { "2.0", T, C2 }, { "1.0", T, C1 },
					 { "2.5rc1", T, C3 } };
	/* No final tag: the highest branch. */
	const struct spec no_tag[] = { { "main", B, C1 }, { "1.0", B, C1 },
				       { "2.0", B, C2 }, { "3.0b1", T, C3 },
				       { "nightly", T, C4 } };
	const struct spec nothing[] = { { "main", B, C1 } };

	SET_REFS(&refs, with_tag, "main");
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	CHECK_INT(r.promoted_stable_id, id_of(st, p, "2.0"));
	check_version(st, p, "stable", LEC_VERSION_TAG, C2, 1, 1);

	SET_REFS(&refs, no_tag, "main");
	CHECK_OK(lec_vsync_apply(st, q, &refs, &r));
	CHECK_INT(r.promoted_stable_id, id_of(st, q, "2.0"));
	check_version(st, q, "stable", LEC_VERSION_BRANCH, "2.0", 1, 1);

	SET_REFS(&refs, nothing, "main");
	CHECK_OK(lec_vsync_apply(st, none, &refs, &r));
	check_result(&r, 1, 0, 0, 0);
	CHECK(!exists(st, none, "stable"));
	lec_repo_refs_dispose(&refs);
	lec_store_free(st);
}

TEST(stable_branch_takes_over_and_gives_back)
{
	struct lec_store *st = lec_test_store();
	struct lec_repo_refs refs = { 0 };
	struct lec_vsync_result r;
	int64_t p = mkproject(st, "p"), stable;
	const struct spec first[] = { { "main", B, C1 }, { "v1.0", T, C1 } };
	const struct spec with_branch[] = { { "main", B, C1 },
					    { "stable", B, C1 },
					    { "v1.0", T, C1 } };
	const struct spec newer_tag[] = { { "main", B, C1 },
					  { "stable", B, C1 },
					  { "v1.0", T, C1 },
					  { "v2.0", T, C2 } };
	const struct spec branch_gone[] = { { "main", B, C1 },
					    { "v1.0", T, C1 },
					    { "v2.0", T, C2 } };

	SET_REFS(&refs, first, "main");
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	check_version(st, p, "stable", LEC_VERSION_TAG, C1, 1, 1);
	stable = id_of(st, p, "stable");

	/* The branch takes the slug over: same version, no longer machine. */
	SET_REFS(&refs, with_branch, "main");
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	check_result(&r, 0, 1, 0, 0);
	check_version(st, p, "stable", LEC_VERSION_BRANCH, "stable", 1, 0);
	CHECK_INT(id_of(st, p, "stable"), stable);
	CHECK(!exists(st, p, "stable_a"));
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	check_result(&r, 0, 0, 0, 0);

	/* While the branch owns it, a newer release does not move it. */
	SET_REFS(&refs, newer_tag, "main");
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	check_result(&r, 1, 0, 0, 0);
	check_version(st, p, "stable", LEC_VERSION_BRANCH, "stable", 1, 0);

	/* The branch goes: the engine takes stable back and points it at the
	 * highest release; the version is not deleted. */
	SET_REFS(&refs, branch_gone, "main");
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	check_result(&r, 0, 1, 0, id_of(st, p, "v2.0"));
	check_version(st, p, "stable", LEC_VERSION_TAG, C2, 1, 1);
	CHECK_INT(id_of(st, p, "stable"), stable);
	lec_repo_refs_dispose(&refs);
	lec_store_free(st);
}

TEST(stable_branch_on_first_sync)
{
	struct lec_store *st = lec_test_store();
	struct lec_repo_refs refs = { 0 };
	struct lec_vsync_result r;
	int64_t p = mkproject(st, "p");
	const struct spec specs[] = { { "main", B, C1 }, { "stable", B, C1 },
				      { "v1.0", T, C1 } };

	SET_REFS(&refs, specs, "main");
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	check_result(&r, 3, 0, 0, 0);
	check_version(st, p, "stable", LEC_VERSION_BRANCH, "stable", 0, 0);
	CHECK(!exists(st, p, "stable_a"));
	CHECK_INT(count(st, p), 4);
	lec_repo_refs_dispose(&refs);
	lec_store_free(st);
}

TEST(latest_tag_takes_over_and_gives_back)
{
	struct lec_store *st = lec_test_store();
	struct lec_repo_refs refs = { 0 };
	struct lec_vsync_result r;
	int64_t p = mkproject(st, "p"), latest = id_of(st, p, "latest");
	const struct spec with_tag[] = { { "main", B, C1 },
					 { "latest", T, C3 } };
	const struct spec without[] = { { "main", B, C1 } };

	SET_REFS(&refs, with_tag, "main");
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	check_result(&r, 1, 1, 0, 0);
	/* update_latest leaves a user-owned latest alone. */
	check_version(st, p, "latest", LEC_VERSION_TAG, C3, 1, 0);
	CHECK_INT(id_of(st, p, "latest"), latest);

	SET_REFS(&refs, without, "main");
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	check_result(&r, 0, 1, 0, 0);
	check_version(st, p, "latest", LEC_VERSION_BRANCH, "main", 1, 1);
	lec_repo_refs_dispose(&refs);
	lec_store_free(st);
}

/* Unfinished builds of a version. */
static size_t unfinished_builds(struct lec_store *st, int64_t project,
				int64_t version)
{
	struct lec_build_filter f = { .running = LEC_FILTER_TRUE };
	struct lec_build_list list = { 0 };
	size_t n;

	CHECK_OK(lec_build_list(st, project, version, &f, NULL, &list));
	n = list.total;
	lec_build_list_dispose(&list);
	return n;
}

/* As the service's sync_versions_task: stable, created or moved and
 * active, is built; an unchanged one is not, nor one whose build is
 * already queued (a trigger would cancel that build). */
TEST(new_stable_is_built)
{
	static const struct spec newer[] = {
		{ "main", B, C5 }, { "v1.0", T, C1 }, { "v2.0", T, C2 },
		{ "v3.0rc1", T, C3 }, { "v3.0", T, C4 },
	};
	struct lec_store *st = lec_test_store();
	struct lec_repo_refs refs = { 0 };
	struct lec_vsync_result r;
	struct lec_build *b = NULL;
	int64_t p = mkproject(st, "p"), stable;

	SET_REFS(&refs, first_refs, "main");
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	stable = id_of(st, p, "stable");
	CHECK(r.stable_build_id > 0);
	CHECK_INT((long long)unfinished_builds(st, p, stable), 1);
	CHECK_OK(lec_build_get(st, r.stable_build_id, &b));
	CHECK_INT(b ? b->version_id : 0, stable);
	lec_build_free(b);
	/* Nothing moved: no build. */
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	CHECK_INT(r.stable_build_id, 0);
	/* v3.0 arrives and stable moves to it, but its first build is still
	 * queued: that one builds v3.0 and is left alone. */
	SET_REFS(&refs, newer, "main");
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	CHECK_INT(r.promoted_stable_id, id_of(st, p, "v3.0"));
	CHECK_INT(r.stable_build_id, 0);
	CHECK_INT((long long)unfinished_builds(st, p, stable), 1);
	lec_repo_refs_dispose(&refs);
	lec_store_free(st);
}

/* An inactive stable is not built. */
TEST(inactive_stable_is_not_built)
{
	struct lec_store *st = lec_test_store();
	struct lec_repo_refs refs = { 0 };
	struct lec_vsync_result r;
	struct lec_version_patch patch = { 0 };
	static const struct spec more[] = {
		{ "main", B, C5 }, { "v1.0", T, C1 }, { "v2.0", T, C2 },
		{ "v3.0", T, C4 },
	};
	int64_t p = mkproject(st, "p");

	SET_REFS(&refs, first_refs, "main");
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	CHECK_OK(lec_build_cancel(st, r.stable_build_id));
	patch.set = LEC_VERSION_SET_ACTIVE;
	patch.active = 0;
	CHECK_OK(lec_version_update(st, id_of(st, p, "stable"), &patch));
	SET_REFS(&refs, more, "main");
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	CHECK(r.promoted_stable_id > 0);
	CHECK_INT(r.stable_build_id, 0);
	lec_repo_refs_dispose(&refs);
	lec_store_free(st);
}

TEST(bad_input)
{
	struct lec_store *st = lec_test_store();
	struct lec_repo_refs refs = { 0 };
	struct lec_vsync_result r;
	int64_t p = mkproject(st, "p");
	char long_name[LEC_VERSION_NAME_MAX + 2];
	struct spec specs[] = { { "main", B, C1 }, { long_name, B, C1 } };

	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	SET_REFS(&refs, specs, "main");
	CHECK_ERR(lec_vsync_apply(st, p + 100, &refs, &r), LEC_ENOTFOUND);
	CHECK_INT(count(st, p + 100), 0);
	CHECK_ERR(lec_vsync_apply(st, p, NULL, &r), LEC_EINVALID);
	CHECK_ERR(lec_vsync_apply(st, p, &refs, NULL), LEC_EINVALID);
	CHECK_INT(count(st, p), 1);
	/* A ref too long to be a version is left out. */
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	check_result(&r, 1, 0, 0, 0);
	CHECK_INT(count(st, p), 2);
	lec_repo_refs_dispose(&refs);
	lec_store_free(st);
}

/* From a real repository -------------------------------------------------- */

static int sh(const char *fmt, ...) LEC__PRINTF(1, 2);

static int sh(const char *fmt, ...)
{
	char cmd[4096], full[4200];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	snprintf(full, sizeof(full), "(%s) >/dev/null 2>&1", cmd);
	rc = system(full);
	if (rc != 0)
		fprintf(stderr, "  command failed (%d): %s\n", rc, cmd);
	return rc;
}

static void rev_parse(const char *repo, const char *rev, char *out,
		      size_t n)
{
	char cmd[1024];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "git -C %s rev-parse '%s'", repo, rev);
	out[0] = '\0';
	p = popen(cmd, "r");
	if (p == NULL || fgets(out, (int)n, p) == NULL)
		FAIL_AT("no output from: %s", cmd);
	if (p)
		pclose(p);
	out[strcspn(out, "\n")] = '\0';
}

TEST(sync_from_a_repo_cache)
{
	struct lec_store *st = lec_test_store();
	struct lec_repo_refs refs = { 0 };
	struct lec_vsync_result r;
	const char *tmp = lec_test_tmpdir();
	char src[512], repo_cache[512], c2[64];
	int64_t p = mkproject(st, "p");

	setenv("HOME", tmp, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	snprintf(src, sizeof(src), "%s/src", tmp);
	snprintf(repo_cache, sizeof(repo_cache), "%s/p.git", tmp);
	CHECK_INT(sh("git init -q -b trunk %s && cd %s && "
		     "git -c user.name=T -c user.email=t@e commit -q "
		     "--allow-empty -m one && git tag 1.0 && "
		     "git -c user.name=T -c user.email=t@e commit -q "
		     "--allow-empty -m two && "
		     "git -c user.name=T -c user.email=t@e "
		     "tag -a 2.0 -m two && "
		     "git tag 3.0a1 && git branch stable",
		     src, src),
		  0);
	rev_parse(src, "2.0^{commit}", c2, sizeof(c2));
	CHECK_OK(lec_repo_cache_update(src, repo_cache, NULL, NULL));
	CHECK_OK(lec_repo_list_refs(repo_cache, &refs));
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	check_result(&r, 5, 0, 0, 0);
	check_version(st, p, "2.0", LEC_VERSION_TAG, c2, 0, 0);
	check_version(st, p, "latest", LEC_VERSION_BRANCH, "trunk", 1, 1);
	/* The branch named stable owns the slug: no machine stable. */
	check_version(st, p, "stable", LEC_VERSION_BRANCH, "stable", 0, 0);
	lec_repo_refs_dispose(&refs);

	/* The branch goes: stable becomes the highest final tag. */
	CHECK_INT(sh("git -C %s branch -D stable", src), 0);
	CHECK_OK(lec_repo_cache_update(src, repo_cache, NULL, NULL));
	CHECK_OK(lec_repo_list_refs(repo_cache, &refs));
	CHECK_OK(lec_vsync_apply(st, p, &refs, &r));
	check_result(&r, 0, 1, 0, id_of(st, p, "2.0"));
	check_version(st, p, "stable", LEC_VERSION_TAG, c2, 0, 1);
	lec_repo_refs_dispose(&refs);
	lec_store_free(st);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(first_sync_creates_inactive_versions),
	TEST_ENTRY(second_sync_changes_nothing),
	TEST_ENTRY(moved_new_and_vanished_refs),
	TEST_ENTRY(vanished_versions_kept_when_in_use),
	TEST_ENTRY(latest_follows_default_branch),
	TEST_ENTRY(stable_prefers_tags_then_branches),
	TEST_ENTRY(stable_branch_takes_over_and_gives_back),
	TEST_ENTRY(stable_branch_on_first_sync),
	TEST_ENTRY(latest_tag_takes_over_and_gives_back),
	TEST_ENTRY(new_stable_is_built),
	TEST_ENTRY(inactive_stable_is_not_built),
	TEST_ENTRY(bad_input),
	TEST_ENTRY(sync_from_a_repo_cache),
};

LEC_TEST_MAIN(tests)
