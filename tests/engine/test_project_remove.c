/*
 * Removing a project (project_remove.c): its rows and every file of it in
 * the data directory go (mirror, submodule mirrors, kept trees and their
 * records, Python environments and stamps, its builds' outputs and
 * working directories, its published docs) and nothing of a project whose
 * slug it begins; its unfinished builds are cancelled, and while a worker
 * still holds one nothing is removed (LEC_EBUSY); the slug is free again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "lectern/build.h"
#include "lectern/project.h"
#include "lectern/version.h"
#include "files.h"
#include "store_internal.h"

/* Where a project's files lie: before, its slug (or a build's id), after. */
struct place {
	const char *before, *after;
};
static const struct place places[] = {
	{ "repos/", ".git/HEAD" },
	{ "repos/", ".modules/theme.git/HEAD" },
	{ "checkouts/", "/latest/index.md" },
	{ "checkouts/", "/latest.manifest" },
	{ "python/", "/venvs/latest/pyvenv.cfg" },
	{ "python/.stamps/", "/latest" },
	{ "published/", "/latest/index.html" },
};
static const struct place output = { "outputs/", "/html/index.html" };
static const struct place workdir = { "builds/", "/checkout/index.md" };

struct project {
	int64_t id, build;
};

static char *path_of(const char *data, const struct place *at,
		     const char *name)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "%s%s%s", at->before, name, at->after);
	return lec__path_join(data, rel);
}

static void put(const char *data, const struct place *at, const char *name)
{
	char *path = path_of(data, at, name), *slash = strrchr(path, '/');

	*slash = '\0';
	CHECK_OK(lec__mkdirs(path));
	lec_test_put(path, slash + 1, "x\n");
	lec__free(path);
}

static int there(const char *data, const struct place *at, const char *name)
{
	char *path = path_of(data, at, name);
	int yes = access(path, F_OK) == 0;

	lec__free(path);
	return yes;
}

/* A project with a finished build and all its files. */
static struct project make(struct lec_store *st, const char *data,
			   const char *slug)
{
	struct project p = { lec_test_project(st, slug), 0 };
	struct lec_version *v = NULL;
	struct lec_build *b = NULL;
	char id[32];
	size_t i;

	CHECK_OK(lec_version_create(st, p.id, "latest", "main",
				    LEC_VERSION_BRANCH, 1, &v));
	if (v)
		CHECK_OK(lec_build_trigger(st, p.id, v->id, NULL, &b, NULL));
	if (b)
		p.build = b->id;
	lec_version_free(v);
	lec_build_free(b);
	for (i = 0; i < sizeof(places) / sizeof(places[0]); i++)
		put(data, &places[i], slug);
	snprintf(id, sizeof(id), "%lld", (long long)p.build);
	put(data, &output, id);
	put(data, &workdir, id);
	return p;
}

/* Put a build in a state, as a worker would (held: a worker has it). */
static void set_build(struct lec_store *st, int64_t id, const char *state,
		      int held)
{
	char sql[256];

	snprintf(sql, sizeof(sql),
		 "UPDATE builds SET state = '%s', held = %d WHERE id = %lld",
		 state, held, (long long)id);
	CHECK_OK(lec_store__exec(st, sql));
}

TEST(everything_of_it_and_nothing_else)
{
	const char *data = lec_test_tmpdir();
	struct lec_store *st = NULL;
	struct lec_project *gone = NULL;
	struct project guide, other;
	char id[32];
	size_t i;

	CHECK_OK(lec_store_open_dir(&st, data, NULL));
	guide = make(st, data, "guide");
	other = make(st, data, "guide2");
	set_build(st, guide.build, "finished", 0);
	CHECK_OK(lec_project_remove(st, data, guide.id));
	for (i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
		if (there(data, &places[i], "guide"))
			FAIL_AT("%sguide%s was kept", places[i].before,
				places[i].after);
		if (!there(data, &places[i], "guide2"))
			FAIL_AT("%sguide2%s went", places[i].before,
				places[i].after);
	}
	snprintf(id, sizeof(id), "%lld", (long long)guide.build);
	CHECK(!there(data, &output, id) && !there(data, &workdir, id));
	snprintf(id, sizeof(id), "%lld", (long long)other.build);
	CHECK(there(data, &output, id) && there(data, &workdir, id));
	CHECK_ERR(lec_project_get(st, "guide", &gone), LEC_ENOTFOUND);
	CHECK_ERR(lec_project_remove(st, data, guide.id), LEC_ENOTFOUND);
	/* The slug is free again. */
	CHECK(lec_test_project(st, "guide") > 0);
	lec_store_free(st);
}

TEST(a_build_still_held_keeps_everything)
{
	const char *data = lec_test_tmpdir();
	struct lec_store *st = NULL;
	struct lec_build *b = NULL;
	struct project guide;

	CHECK_OK(lec_store_open_dir(&st, data, NULL));
	guide = make(st, data, "guide");
	/* A worker runs it: it is cancelled, but until the worker lets go
	 * nothing is removed. */
	set_build(st, guide.build, "building", 1);
	CHECK_ERR(lec_project_remove(st, data, guide.id), LEC_EBUSY);
	CHECK(strstr(lec_error_last(), "still stopping") != NULL);
	CHECK_OK(lec_build_get(st, guide.build, &b));
	CHECK(b && b->state == LEC_BUILD_STATE_CANCELLED);
	lec_build_free(b);
	CHECK(there(data, &places[0], "guide"));
	CHECK(there(data, &places[6], "guide"));
	/* Let go: now it goes. */
	set_build(st, guide.build, "cancelled", 0);
	CHECK_OK(lec_project_remove(st, data, guide.id));
	CHECK(!there(data, &places[0], "guide"));
	lec_store_free(st);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(everything_of_it_and_nothing_else),
	TEST_ENTRY(a_build_still_held_keeps_everything),
};

LEC_TEST_MAIN(tests)
