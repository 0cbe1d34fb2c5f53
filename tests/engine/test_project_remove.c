/*
 * Removing a project (project_remove.c): lec_project_remove takes its rows
 * and leaves its files, keeping its slug taken; lec_project_removal_finish
 * deletes the files of the removed project only (its slug's places and its
 * builds' ids, which no new build takes) and then frees the slug; a
 * removal another process is finishing is left to it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "lectern/build.h"
#include "lectern/project.h"
#include "lectern/version.h"

struct site {
	char data[512];
	struct lec_store *st;
};

static void open_site(struct site *s)
{
	CHECK(snprintf(s->data, sizeof(s->data), "%s", lec_test_tmpdir()) <
	      (int)sizeof(s->data));
	s->st = NULL;
	CHECK_OK(lec_store_open_dir(&s->st, s->data, NULL));
}

static int64_t import(struct site *s, const char *name)
{
	struct lec_project_new in = { 0 };
	struct lec_project *p = NULL;
	int64_t id;

	in.name = name;
	in.repo_url = "https://example.org/r.git";
	CHECK_OK(lec_project_create(s->st, &in, 0, &p));
	id = p ? p->id : 0;
	lec_project_free(p);
	return id;
}

/* A build of the project's latest version; its id. */
static int64_t build(struct site *s, int64_t project)
{
	struct lec_version *v = NULL;
	struct lec_build *b = NULL;
	int64_t id = 0;

	CHECK_OK(lec_version_get(s->st, project, "latest", &v));
	if (v)
		CHECK_OK(lec_build_trigger(s->st, project, v->id, NULL, &b,
					   NULL));
	id = b ? b->id : 0;
	lec_build_free(b);
	lec_version_free(v);
	return id;
}

/* data/<rel>/index.html, with its directories. */
static void plant(struct site *s, const char *rel)
{
	char path[1024], *p;

	CHECK(snprintf(path, sizeof(path), "%s/%s", s->data, rel) <
	      (int)sizeof(path));
	for (p = path + strlen(s->data) + 1; (p = strchr(p, '/')) != NULL;
	     p++) {
		*p = '\0';
		mkdir(path, 0700);
		*p = '/';
	}
	mkdir(path, 0700);
	lec_test_put(path, "index.html", "<p>docs</p>");
}

static int exists(struct site *s, const char *rel)
{
	char path[1024];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", s->data, rel);
	return lstat(path, &sb) == 0;
}

static int import_slug(struct site *s, const char *name)
{
	struct lec_project_new in = { 0 };

	in.name = name;
	in.repo_url = "https://example.org/r.git";
	return lec_project_create(s->st, &in, 0, NULL);
}

TEST(rows_at_once_files_after_slug_taken_until_then)
{
	struct site s;
	struct lec_project *p = NULL;
	char out[64], kept[64];
	int64_t doomed, other, gone, stays;

	open_site(&s);
	doomed = import(&s, "Doomed");
	other = import(&s, "Other");
	gone = build(&s, doomed);
	stays = build(&s, other);
	snprintf(out, sizeof(out), "outputs/%lld", (long long)gone);
	snprintf(kept, sizeof(kept), "outputs/%lld", (long long)stays);
	plant(&s, "published/doomed/latest/html");
	plant(&s, "checkouts/doomed/latest");
	plant(&s, "repos/doomed.git");
	plant(&s, out);
	plant(&s, "published/other/latest/html");
	plant(&s, kept);

	/* Its build was queued: cancelled, then the rows go. */
	CHECK_OK(lec_project_remove(s.st, s.data, doomed));
	CHECK_ERR(lec_project_get(s.st, "doomed", &p), LEC_ENOTFOUND);
	CHECK_ERR(lec_project_remove(s.st, s.data, doomed), LEC_ENOTFOUND);
	CHECK(exists(&s, "published/doomed/latest/html/index.html"));
	CHECK(exists(&s, out));
	/* The slug is not free yet; a build of another project never takes
	 * the removed build's id. */
	CHECK_ERR(import_slug(&s, "Doomed"), LEC_EEXISTS);
	CHECK_STR(lec_error_last_field(), "name");
	CHECK_STR(lec_error_last(),
		  "Project with slug \"doomed\" already exists: it is being "
		  "removed. Import it again once its files are gone.");
	CHECK(build(&s, other) > gone);

	CHECK_OK(lec_project_removal_finish(s.st, s.data));
	CHECK_ERR(lec_project_removal_finish(s.st, s.data), LEC_ENOTFOUND);
	CHECK(!exists(&s, "published/doomed"));
	CHECK(!exists(&s, "checkouts/doomed"));
	CHECK(!exists(&s, "repos/doomed.git"));
	CHECK(!exists(&s, out));
	CHECK(exists(&s, "published/other/latest/html/index.html"));
	CHECK(exists(&s, kept));
	CHECK_OK(import_slug(&s, "Doomed"));
	lec_store_free(s.st);
}

TEST(another_process_finishing_removals_is_left_to_it)
{
	struct site s;
	char lock[600];
	int fd;

	open_site(&s);
	plant(&s, "checkouts/held/latest");
	CHECK_OK(lec_project_remove(s.st, s.data, import(&s, "Held")));
	snprintf(lock, sizeof(lock), "%s/removal.lock", s.data);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	CHECK(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0);
	CHECK_ERR(lec_project_removal_finish(s.st, s.data), LEC_EBUSY);
	CHECK(exists(&s, "checkouts/held/latest/index.html"));
	CHECK_ERR(import_slug(&s, "Held"), LEC_EEXISTS);
	close(fd);
	CHECK_OK(lec_project_removal_finish(s.st, s.data));
	CHECK(!exists(&s, "checkouts/held"));
	CHECK_OK(import_slug(&s, "Held"));
	lec_store_free(s.st);
}

TEST(nothing_to_finish)
{
	struct site s;

	open_site(&s);
	CHECK_ERR(lec_project_removal_finish(s.st, s.data), LEC_ENOTFOUND);
	CHECK_ERR(lec_project_removal_finish(NULL, s.data), LEC_EINVALID);
	CHECK_ERR(lec_project_removal_finish(s.st, NULL), LEC_EINVALID);
	lec_store_free(s.st);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(rows_at_once_files_after_slug_taken_until_then),
	TEST_ENTRY(another_process_finishing_removals_is_left_to_it),
	TEST_ENTRY(nothing_to_finish),
};

LEC_TEST_MAIN(tests)
