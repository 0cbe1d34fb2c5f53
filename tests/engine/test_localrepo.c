/*
 * Local repositories are read only from the allowed directories: file://
 * URLs and absolute paths at or below a root pass and give their canonical
 * path; "..", symlinks and percent-escapes cannot lead out of a root;
 * /etc, other hosts and relative paths are refused with the URL's field;
 * remote URLs are not this module's business; and project creation and
 * updates apply the same rule through their local_roots. Every spelling
 * of one repository (URL forms, slashes, symlinks, its .git directory, a
 * linked worktree) has one identity, and a local repository another
 * project builds from is imported again, or fetched as a submodule, only
 * by who can read all of it.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "internal.h"
#include "lectern/localrepo.h"
#include "lectern/project.h"
#include "lectern/user.h"
#include "store_internal.h"

/* A root (allowed/, holding repo/ and a symlink out) and a sibling outside
 * it, in one temporary directory; the paths stay valid for the test. */
struct layout {
	char root[512];    /* <tmp>/allowed */
	char repo[512];    /* <tmp>/allowed/repo */
	char outside[512]; /* <tmp>/outside */
	char link[512];    /* <tmp>/allowed/out -> ../outside */
	const char *roots[2];
};

/* What `git init` leaves that tells a git directory (dir + sub): HEAD and
 * objects/ (import refuses a directory that is no repository). */
static void make_gitdir(const char *dir, const char *sub)
{
	char path[1200];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", dir, sub);
	CHECK(mkdir(path, 0700) == 0);
	snprintf(path, sizeof(path), "%s%s/objects", dir, sub);
	CHECK(mkdir(path, 0700) == 0);
	snprintf(path, sizeof(path), "%s%s/HEAD", dir, sub);
	CHECK((f = fopen(path, "w")) != NULL);
	if (f) {
		fputs("ref: refs/heads/main\n", f);
		fclose(f);
	}
}

static void make_layout(struct layout *l)
{
	char tmp[PATH_MAX];

	/* Canonical, so that the paths expected are realpath's. */
	CHECK(realpath(lec_test_tmpdir(), tmp) != NULL);
	CHECK(snprintf(l->root, sizeof(l->root), "%s/allowed", tmp) <
	      (int)sizeof(l->root));
	CHECK(snprintf(l->repo, sizeof(l->repo), "%s/repo", l->root) <
	      (int)sizeof(l->repo));
	CHECK(snprintf(l->outside, sizeof(l->outside), "%s/outside", tmp) <
	      (int)sizeof(l->outside));
	CHECK(snprintf(l->link, sizeof(l->link), "%s/out", l->root) <
	      (int)sizeof(l->link));
	CHECK(mkdir(l->root, 0700) == 0);
	CHECK(mkdir(l->repo, 0700) == 0);
	make_gitdir(l->repo, "/.git");
	CHECK(mkdir(l->outside, 0700) == 0);
	CHECK(symlink("../outside", l->link) == 0);
	l->roots[0] = l->root;
	l->roots[1] = NULL;
}

/* url against roots: LEC_OK with canonical path want (NULL: not local), or
 * LEC_EINVALID on the URL's field when want is "!". */
static void check_url(const char *url, const char *const *roots,
		      const char *want, int line)
{
	char *path = NULL;
	int rc = lec_localrepo_check(url, roots, &path);

	if (want && strcmp(want, "!") == 0) {
		if (rc != LEC_EINVALID || path != NULL ||
		    lec_error_last_field() == NULL ||
		    strcmp(lec_error_last_field(), LEC_LOCALREPO_FIELD) != 0)
			FAIL_AT("line %d: '%s' gave %d (%s), expected a refusal",
				line, url, rc, lec_error_last());
	} else if (rc != LEC_OK) {
		FAIL_AT("line %d: '%s' refused: %s", line, url,
			lec_error_last());
	} else if (want ? path == NULL || strcmp(path, want) != 0
			: path != NULL) {
		FAIL_AT("line %d: '%s' gave path '%s', expected '%s'", line,
			url, path ? path : "(null)", want ? want : "(null)");
	}
	lec__free(path);
}

static char *url_of(char *buf, size_t size, const char *prefix,
		    const char *path, const char *suffix)
{
	CHECK(snprintf(buf, size, "%s%s%s", prefix, path, suffix) <
	      (int)size);
	return buf;
}

TEST(inside_a_root_passes_with_its_canonical_path)
{
	struct layout l;
	char url[1200], want[1200];

	make_layout(&l);
	check_url(url_of(url, sizeof(url), "file://", l.repo, ""), l.roots,
		  l.repo, __LINE__);
	check_url(url_of(url, sizeof(url), "FILE://localhost", l.repo, ""),
		  l.roots, l.repo, __LINE__);
	check_url(l.repo, l.roots, l.repo, __LINE__);
	/* The root itself, a trailing slash, and ".." that stays inside. */
	check_url(url_of(url, sizeof(url), "file://", l.root, "/"), l.roots,
		  l.root, __LINE__);
	check_url(url_of(url, sizeof(url), "file://", l.repo, "/../repo"),
		  l.roots, l.repo, __LINE__);
	/* Not there yet: judged by the part that exists. */
	CHECK(snprintf(want, sizeof(want), "%s/new/repo.git", l.root) <
	      (int)sizeof(want));
	check_url(url_of(url, sizeof(url), "file://", want, ""), l.roots, want,
		  __LINE__);
}

TEST(nothing_leads_out_of_a_root)
{
	struct layout l;
	char url[1200], sibling[1200];

	make_layout(&l);
	check_url("file:///etc", l.roots, "!", __LINE__);
	check_url("/etc", l.roots, "!", __LINE__);
	check_url(url_of(url, sizeof(url), "file://", l.outside, ""), l.roots,
		  "!", __LINE__);
	check_url(url_of(url, sizeof(url), "file://", l.root, "/../outside"),
		  l.roots, "!", __LINE__);
	check_url(url_of(url, sizeof(url), "file://", l.root, "/../../../etc"),
		  l.roots, "!", __LINE__);
	/* A symlink inside the root that points out of it. */
	check_url(url_of(url, sizeof(url), "file://", l.link, ""), l.roots,
		  "!", __LINE__);
	check_url(url_of(url, sizeof(url), "file://", l.link, "/x.git"),
		  l.roots, "!", __LINE__);
	/* A dangling symlink: its target could appear anywhere later. */
	CHECK(snprintf(sibling, sizeof(sibling), "%s/dangling", l.root) <
	      (int)sizeof(sibling));
	CHECK(symlink("/nonexistent-target", sibling) == 0);
	check_url(url_of(url, sizeof(url), "file://", sibling, ""), l.roots,
		  "!", __LINE__);
	check_url(url_of(url, sizeof(url), "file://", sibling, "/x.git"),
		  l.roots, "!", __LINE__);
	/* A name that only starts like the root. */
	CHECK(snprintf(sibling, sizeof(sibling), "%s-evil", l.root) <
	      (int)sizeof(sibling));
	CHECK(mkdir(sibling, 0700) == 0);
	check_url(url_of(url, sizeof(url), "file://", sibling, ""), l.roots,
		  "!", __LINE__);
	/* ".." in a part that does not exist yet. */
	check_url(url_of(url, sizeof(url), "file://", l.root,
			 "/missing/../../outside"),
		  l.roots, "!", __LINE__);
	/* Escapes git would decode, other hosts, relative paths, odd forms. */
	check_url(url_of(url, sizeof(url), "file://", l.root, "/%2e%2e/outside"),
		  l.roots, "!", __LINE__);
	check_url(url_of(url, sizeof(url), "file://example.com", l.repo, ""),
		  l.roots, "!", __LINE__);
	check_url("file:/etc", l.roots, "!", __LINE__);
	check_url("file:relative", l.roots, "!", __LINE__);
	check_url("repo/dir", l.roots, "!", __LINE__);
	check_url("./repo", l.roots, "!", __LINE__);
}

TEST(no_roots_refuse_every_local_url)
{
	struct layout l;
	const char *const empty[] = { NULL };
	char url[1200];

	make_layout(&l);
	url_of(url, sizeof(url), "file://", l.repo, "");
	check_url(url, NULL, "!", __LINE__);
	check_url(url, empty, "!", __LINE__);
	CHECK_ERR(lec_localrepo_check("file:///etc", NULL, NULL),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last(),
		  "This server does not build local repositories: "
		  "'file:///etc'");
}

TEST(the_message_names_the_allowed_directories)
{
	const char *const roots[] = { "/nonexistent-a", "/nonexistent-b",
				      NULL };

	CHECK_ERR(lec_localrepo_check("file:///etc", roots, NULL),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last(),
		  "Local repositories must be in /nonexistent-a, "
		  "/nonexistent-b; 'file:///etc' is not");
	CHECK_STR(lec_error_last_field(), "repository.url");
	/* A root that does not exist holds nothing, not even its future. */
	CHECK_ERR(lec_localrepo_check("file:///nonexistent-a/repo", roots,
				      NULL),
		  LEC_EINVALID);
}

TEST(remote_urls_are_not_local)
{
	const char *const none[] = { NULL };

	check_url("https://github.com/a/b", none, NULL, __LINE__);
	check_url("git://example.com/r.git", none, NULL, __LINE__);
	check_url("git@github.com:a/b.git", none, NULL, __LINE__);
	check_url("lp:launchpad-project", none, NULL, __LINE__);
}

TEST(a_root_of_slash_allows_everything)
{
	const char *const roots[] = { "/", NULL };

	check_url("file:///etc", roots, "/etc", __LINE__);
}

TEST(projects_apply_their_local_roots)
{
	struct lec_store *st = lec_test_store();
	struct lec_project_new in = { 0 };
	struct lec_project_patch patch = { 0 };
	struct lec_project *p = NULL;
	struct layout l;
	char url[1200];

	make_layout(&l);
	in.name = "Local";
	in.repo_url = url_of(url, sizeof(url), "file://", l.repo, "");
	CHECK_ERR(lec_project_create(st, &in, 0, NULL), LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "repository.url");
	in.local_roots = l.roots;
	CHECK_OK(lec_project_create(st, &in, 0, &p));
	/* A patch that leaves the URL alone needs no roots. */
	patch.fields = LEC_PROJECT_F_NAME;
	patch.name = "Local Docs";
	CHECK_OK(lec_project_update(st, p ? p->id : 0, &patch));
	patch.fields = LEC_PROJECT_F_REPO_URL;
	patch.repo_url = "file:///etc";
	patch.local_roots = l.roots;
	CHECK_ERR(lec_project_update(st, p ? p->id : 0, &patch), LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "repository.url");
	patch.repo_url = url_of(url, sizeof(url), "file://", l.link, "");
	CHECK_ERR(lec_project_update(st, p ? p->id : 0, &patch), LEC_EINVALID);
	lec_project_free(p);
	lec_store_free(st);
}


/* A work tree <root>/repo with its .git directory, a symlink to it, a
 * linked worktree of it and a bare repository beside them. */
struct repos {
	struct layout l;
	char gitdir[600]; /* <root>/repo/.git */
	char alias[600];  /* <root>/alias -> repo */
	char wt[600];     /* <root>/wt, a linked worktree of repo */
	char bare[600];   /* <root>/bare.git */
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (f) {
		CHECK(fputs(text, f) >= 0);
		CHECK(fclose(f) == 0);
	}
}

static void make_repos(struct repos *r)
{
	char path[1200];

	make_layout(&r->l);
	url_of(r->gitdir, sizeof(r->gitdir), "", r->l.repo, "/.git");
	url_of(r->alias, sizeof(r->alias), "", r->l.root, "/alias");
	url_of(r->wt, sizeof(r->wt), "", r->l.root, "/wt");
	url_of(r->bare, sizeof(r->bare), "", r->l.root, "/bare.git");
	CHECK(symlink("repo", r->alias) == 0);
	make_gitdir(r->bare, "");
	/* What `git worktree add ../wt` leaves. */
	CHECK(mkdir(url_of(path, sizeof(path), "", r->gitdir, "/worktrees"),
		    0700) == 0);
	CHECK(mkdir(url_of(path, sizeof(path), "", r->gitdir,
			   "/worktrees/wt"),
		    0700) == 0);
	write_file(url_of(path, sizeof(path), "", r->gitdir,
			  "/worktrees/wt/commondir"),
		   "../..\n");
	CHECK(mkdir(r->wt, 0700) == 0);
	write_file(url_of(path, sizeof(path), "", r->wt, "/.git"),
		   "gitdir: ../repo/.git/worktrees/wt\n");
}

static void check_identity(const char *url, const char *want, int line)
{
	char *got = NULL;

	if (lec_localrepo_identity(url, &got) != LEC_OK)
		FAIL_AT("line %d: '%s': %s", line, url, lec_error_last());
	else if (want ? got == NULL || strcmp(got, want) != 0 : got != NULL)
		FAIL_AT("line %d: '%s' is '%s', expected '%s'", line, url,
			got ? got : "(null)", want ? want : "(null)");
	lec__free(got);
}

TEST(one_repository_has_one_identity)
{
	struct repos r;
	char url[1200], missing[1200];

	make_repos(&r);
	check_identity(url_of(url, sizeof(url), "file://", r.l.repo, ""),
		       r.gitdir, __LINE__);
	check_identity(r.l.repo, r.gitdir, __LINE__);
	check_identity(url_of(url, sizeof(url), "", r.l.repo, "/"), r.gitdir,
		       __LINE__);
	check_identity(url_of(url, sizeof(url), "", r.l.repo, "/./"),
		       r.gitdir, __LINE__);
	check_identity(url_of(url, sizeof(url), "file://localhost", r.l.repo,
			      "/.git/"),
		       r.gitdir, __LINE__);
	check_identity(url_of(url, sizeof(url), "FILE://", r.l.root,
			      "//repo"),
		       r.gitdir, __LINE__);
	check_identity(url_of(url, sizeof(url), "file://", r.alias, ""),
		       r.gitdir, __LINE__);
	/* ".." through a part not there names no place. */
	check_identity(url_of(url, sizeof(url), "file://", r.l.root,
			      "/missing/../repo"),
		       NULL, __LINE__);
	/* A linked worktree shares the repository's refs and objects. */
	check_identity(url_of(url, sizeof(url), "file://", r.wt, ""),
		       r.gitdir, __LINE__);
	/* A bare repository is itself; another one is another. */
	check_identity(url_of(url, sizeof(url), "file://", r.bare, "/"),
		       r.bare, __LINE__);
	/* Not there yet: its canonical path, however spelt. */
	url_of(missing, sizeof(missing), "", r.l.root, "/new/repo.git");
	check_identity(url_of(url, sizeof(url), "", r.l.root,
			      "//new//repo.git/"),
		       missing, __LINE__);
	check_identity("https://github.com/a/b", NULL, __LINE__);
	check_identity("repo/dir", NULL, __LINE__);
	check_identity(NULL, NULL, __LINE__);
}

/* Import url as user (0: nobody) into a new project named name. */
static int import_as(struct lec_store *st, const struct repos *r,
		     const char *name, const char *url, const char *privacy,
		     int64_t user, struct lec_project **out)
{
	struct lec_project_new in = { 0 };

	in.name = name;
	in.repo_url = url;
	in.privacy_level = privacy;
	in.local_roots = r->l.roots;
	return lec_project_create(st, &in, user, out);
}

static int64_t make_user(struct lec_store *st, const char *name)
{
	struct lec_user *u = NULL;
	int64_t id;

	CHECK_OK(lec_user_create(st, name, &u));
	id = u ? u->id : 0;
	lec_user_free(u);
	return id;
}

static void check_shared(int rc, int line)
{
	if (rc != LEC_EINVALID || lec_error_last_field() == NULL ||
	    strcmp(lec_error_last_field(), "repository.url") != 0 ||
	    strstr(lec_error_last(), "Another project on this server builds "
				     "from this local repository") == NULL)
		FAIL_AT("line %d: gave %d (%s), expected the shared-repository "
			"refusal", line, rc, lec_error_last());
}

TEST(a_shared_local_repository_needs_a_reader_of_all_of_it)
{
	struct lec_store *st = lec_test_store();
	struct lec_project_patch patch = { 0 };
	struct lec_project *secret = NULL, *mine = NULL;
	struct repos r;
	char url[1200], bare[1200];
	int64_t alice, mallory, root, v[1];

	make_repos(&r);
	alice = make_user(st, "alice");
	mallory = make_user(st, "mallory");
	root = make_user(st, "root");
	v[0] = root;
	CHECK_OK(lec_store__exec_ints(st, "UPDATE users SET is_superuser = 1 "
					  "WHERE id = ?",
				      v, 1, "making a superuser", NULL));
	CHECK_OK(import_as(st, &r, "Secret",
			   url_of(url, sizeof(url), "file://", r.l.repo, ""),
			   "private", alice, &secret));
	/* Mallory, however she spells it, and nobody. */
	check_shared(import_as(st, &r, "Stolen", url, NULL, mallory, NULL),
		     __LINE__);
	check_shared(import_as(st, &r, "Stolen",
			       url_of(url, sizeof(url), "file://", r.gitdir,
				      "/"),
			       NULL, mallory, NULL),
		     __LINE__);
	check_shared(import_as(st, &r, "Stolen",
			       url_of(url, sizeof(url), "file://", r.alias,
				      "/."),
			       NULL, mallory, NULL),
		     __LINE__);
	check_shared(import_as(st, &r, "Stolen",
			       url_of(url, sizeof(url), "file://", r.wt, ""),
			       NULL, mallory, NULL),
		     __LINE__);
	check_shared(import_as(st, &r, "Stolen", url, NULL, 0, NULL),
		     __LINE__);
	/* Its admin and a superuser may. */
	CHECK_OK(import_as(st, &r, "Secret Again", url, "private", alice,
			   NULL));
	CHECK_OK(import_as(st, &r, "Audit", url, NULL, root, NULL));
	/* Another repository is hers; changing it to the secret one is
	 * refused too, leaving it unchanged is not. */
	CHECK_OK(import_as(st, &r, "Mine",
			   url_of(bare, sizeof(bare), "file://", r.bare, ""),
			   NULL, mallory, &mine));
	patch.fields = LEC_PROJECT_F_REPO_URL;
	patch.local_roots = r.l.roots;
	patch.user_id = mallory;
	patch.repo_url = url_of(url, sizeof(url), "file://", r.l.repo,
				"/.git");
	check_shared(lec_project_update(st, mine ? mine->id : 0, &patch),
		     __LINE__);
	patch.repo_url = url_of(url, sizeof(url), "file://", r.bare, "/");
	CHECK_OK(lec_project_update(st, mine ? mine->id : 0, &patch));
	/* Nor may her project's build fetch it as a submodule; one of the
	 * secret's admin's may. */
	url_of(url, sizeof(url), "file://", r.wt, "");
	CHECK_ERR(lec__project_local_submodule_check(st, mine ? mine->id : 0,
						     url),
		  LEC_EINVALID);
	CHECK_OK(lec__project_local_submodule_check(st, secret ? secret->id : 0,
						    url));
	/* Public, but with a private version: still not all readable. */
	patch.fields = LEC_PROJECT_F_PRIVACY_LEVEL;
	patch.privacy_level = "public";
	CHECK_OK(lec_project_update(st, secret ? secret->id : 0, &patch));
	v[0] = secret ? secret->id : 0;
	CHECK_OK(lec_store__exec_ints(st, "UPDATE versions SET privacy_level "
					  "= 'private' WHERE project_id = ?",
				      v, 1, "hiding a version", NULL));
	url_of(url, sizeof(url), "file://", r.l.repo, "");
	check_shared(import_as(st, &r, "Stolen", url, NULL, mallory, NULL),
		     __LINE__);
	CHECK_OK(lec_store__exec_ints(st, "UPDATE versions SET privacy_level "
					  "= 'public' WHERE project_id = ?",
				      v, 1, "showing a version", NULL));
	/* Every project on it readable: anyone. The other private copy
	 * (Secret Again) still stands in the way, until it is public too. */
	check_shared(import_as(st, &r, "Stolen", url, NULL, mallory, NULL),
		     __LINE__);
	CHECK_OK(lec_store__exec(st, "UPDATE projects SET privacy_level = "
				     "'public'"));
	CHECK_OK(import_as(st, &r, "Stolen", url, NULL, mallory, NULL));
	lec_project_free(secret);
	lec_project_free(mine);
	lec_store_free(st);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(inside_a_root_passes_with_its_canonical_path),
	TEST_ENTRY(nothing_leads_out_of_a_root),
	TEST_ENTRY(no_roots_refuse_every_local_url),
	TEST_ENTRY(the_message_names_the_allowed_directories),
	TEST_ENTRY(remote_urls_are_not_local),
	TEST_ENTRY(a_root_of_slash_allows_everything),
	TEST_ENTRY(projects_apply_their_local_roots),
	TEST_ENTRY(one_repository_has_one_identity),
	TEST_ENTRY(a_shared_local_repository_needs_a_reader_of_all_of_it),
};

LEC_TEST_MAIN(tests)
