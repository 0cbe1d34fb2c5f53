/*
 * A version's kept tree (build_tree.c): the manifest's rules. A tree as
 * the last checkout left it is updated from the commit it holds, with the
 * previous build's byproducts removed but the generators' state kept
 * (directories named _build, _readthedocs/html); a path changed, missing
 * or of another type, a damaged or missing manifest, or a fresh build
 * means a fresh checkout, with the reason noted. The manifest recorded
 * from a real repo cache, the caches of inactive versions pruned, and the
 * tree dropped with what lies beside it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_steps.h"
#include "harness.h"
#include "lectern/version.h"
#include "steps.h"

#define COMMIT "0123456789abcdef0123456789abcdef01234567"

/* A manifest under construction: "T SIZE MTIME PATH\0" records. */
struct manifest_text {
	char buf[8192];
	size_t len;
};

static void add_record(struct manifest_text *m, const char *record)
{
	size_t n = strlen(record) + 1;

	if (m->len + n > sizeof(m->buf)) {
		FAIL_AT("manifest too long");
		return;
	}
	memcpy(m->buf + m->len, record, n);
	m->len += n;
}

/* The record of the checkout's path as it is now. */
static void add_path(struct manifest_text *m, const struct lec_steps *s,
		     const char *rel)
{
	char path[1024], record[1200];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", s->job.checkout, rel);
	if (lstat(path, &sb) != 0) {
		FAIL_AT("%s: missing", rel);
		return;
	}
	snprintf(record, sizeof(record), "%c %lld %lld %s",
		 S_ISLNK(sb.st_mode) ? 'l' : sb.st_mode & 0100 ? 'x' : 'f',
		 (long long)sb.st_size,
		 (long long)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec,
		 rel);
	add_record(m, record);
}

static void write_manifest(const struct lec_steps *s,
			   const struct manifest_text *m)
{
	FILE *f = fopen(s->job.tree_manifest, "w");

	CHECK(f != NULL);
	if (f == NULL)
		return;
	fprintf(f, "lectern-tree 1\n%s\n", COMMIT);
	fwrite(m->buf, 1, m->len, f);
	fclose(f);
}

static int exists(const struct lec_steps *s, const char *rel)
{
	char path[1024];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", s->job.checkout, rel);
	return lstat(path, &sb) == 0;
}

/* prepare, then the checkout note: "reused" or its reason. */
static const char *prepare(struct lec_steps *s, int fresh, char **from)
{
	size_t i;

	s->job.ncache = 0;
	CHECK_OK(lec__tree_prepare(&s->job, fresh, from));
	for (i = 0; i < s->job.ncache; i++)
		if (strcmp(s->job.cache[i].name, "checkout") == 0)
			return s->job.cache[i].reason;
	return "reused";
}

/* A tree the last checkout wrote: two pages and a script, and their
 * manifest. */
static void kept_tree(struct lec_steps *s)
{
	struct manifest_text m = { .len = 0 };

	lec_steps_put(s, "README.md", "# Guide\n");
	lec_steps_put(s, "docs/index.md", "# Index\n");
	lec_steps_put(s, "docs/build.sh", "#!/bin/sh\n");
	CHECK(chmod(s->job.checkout, 0755) == 0);
	{
		char script[1024];

		snprintf(script, sizeof(script), "%s/docs/build.sh",
			 s->job.checkout);
		CHECK(chmod(script, 0755) == 0);
	}
	add_path(&m, s, "README.md");
	add_path(&m, s, "docs/index.md");
	add_path(&m, s, "docs/build.sh");
	write_manifest(s, &m);
}

TEST(unchanged_tree_is_updated_and_cleaned)
{
	/* Kept state is a _build directory at the top or in a directory
	 * of the commit's; one below a directory the build made goes with
	 * it. */
	static const char *const byproducts[] = {
		"notes.txt", "docs/generated.md", "tmp/x/y.txt",
		"_readthedocs/other/a.txt", "my_build/x.txt", "docs/x_build/y",
		"a/b/_build/c",
	};
	static const char *const kept[] = {
		"_build/html/index.html", "docs/_build/doctrees/env.pickle",
		"_readthedocs/html/index.html",
	};
	struct lec_steps s;
	char *from = NULL;
	size_t i;

	lec_steps_init(&s, "guide", NULL);
	kept_tree(&s);
	for (i = 0; i < sizeof(byproducts) / sizeof(byproducts[0]); i++)
		lec_steps_put(&s, byproducts[i], "made by the build\n");
	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		lec_steps_put(&s, kept[i], "state\n");
	CHECK_STR(prepare(&s, 0, &from), "reused");
	CHECK_STR(from, COMMIT);
	for (i = 0; i < sizeof(byproducts) / sizeof(byproducts[0]); i++)
		if (exists(&s, byproducts[i]))
			FAIL_AT("%s is still there", byproducts[i]);
	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (!exists(&s, kept[i]))
			FAIL_AT("%s is gone", kept[i]);
	CHECK(exists(&s, "docs/index.md") && exists(&s, "README.md"));
	CHECK(!exists(&s, "tmp") && exists(&s, "_readthedocs"));
	lec__free(from);
	lec_steps_dispose(&s);
}

TEST(changed_tree_is_checked_out_afresh)
{
	struct lec_steps s;
	char *from = NULL, path[1024];

	lec_steps_init(&s, "guide", NULL);
	/* No manifest, a damaged one, one without a commit. */
	CHECK_STR(prepare(&s, 0, &from), "no earlier checkout was kept");
	CHECK(from == NULL);
	lec_test_put(s.data_dir, "checkouts/guide/latest.manifest",
		     "lectern-tree 1\nnot a commit\n");
	CHECK_STR(prepare(&s, 0, &from), "no earlier checkout was kept");
	lec_test_put(s.data_dir, "checkouts/guide/latest.manifest",
		     "lectern-tree 1\n" COMMIT "\nf 12");
	CHECK_STR(prepare(&s, 0, &from), "no earlier checkout was kept");
	/* A fresh build, whatever the tree. */
	kept_tree(&s);
	CHECK_STR(prepare(&s, 1, &from), "a fresh build was asked for");
	CHECK(from == NULL);
	/* A source the build edited (a size, then only a time). */
	lec_steps_put(&s, "docs/index.md", "# Index, edited\n");
	CHECK_STR(prepare(&s, 0, &from),
		  "docs/index.md was changed since the last checkout");
	CHECK(from == NULL);
	kept_tree(&s);
	snprintf(path, sizeof(path), "%s/README.md", s.job.checkout);
	CHECK(utimensat(AT_FDCWD, path,
			(struct timespec[]){ { 1, 0 }, { 1, 0 } }, 0) == 0);
	CHECK_STR(prepare(&s, 0, &from),
		  "README.md was changed since the last checkout");
	/* One gone, one no longer executable. */
	kept_tree(&s);
	CHECK(unlink(path) == 0);
	CHECK_STR(prepare(&s, 0, &from),
		  "README.md was changed since the last checkout");
	kept_tree(&s);
	snprintf(path, sizeof(path), "%s/docs/build.sh", s.job.checkout);
	CHECK(chmod(path, 0644) == 0);
	CHECK_STR(prepare(&s, 0, &from),
		  "docs/build.sh was changed since the last checkout");
	/* A directory where the commit has a file. */
	kept_tree(&s);
	snprintf(path, sizeof(path), "%s/README.md", s.job.checkout);
	CHECK(unlink(path) == 0 && mkdir(path, 0755) == 0);
	CHECK_STR(prepare(&s, 0, &from),
		  "README.md was changed since the last checkout");
	CHECK(from == NULL);
	lec_steps_dispose(&s);
}

TEST(submodule_contents_go)
{
	struct manifest_text m = { .len = 0 };
	struct lec_steps s;
	char *from = NULL;

	lec_steps_init(&s, "guide", NULL);
	lec_steps_put(&s, "index.md", "# Index\n");
	lec_steps_put(&s, "theme/layout.html", "<html>\n");
	add_path(&m, &s, "index.md");
	add_record(&m, "d 0 0 theme");
	write_manifest(&s, &m);
	CHECK_STR(prepare(&s, 0, &from), "reused");
	/* The submodule's directory stays; what its checkout wrote goes. */
	CHECK(exists(&s, "theme") && !exists(&s, "theme/layout.html"));
	lec__free(from);
	/* A submodule's directory missing: afresh. */
	{
		char path[1024];

		snprintf(path, sizeof(path), "%s/theme", s.job.checkout);
		CHECK(rmdir(path) == 0);
	}
	CHECK_STR(prepare(&s, 0, &from),
		  "theme was changed since the last checkout");
	lec_steps_dispose(&s);
}

/* Run a shell line; fails the test unless it exits 0. */
static void sh(const char *line)
{
	char full[8192];

	snprintf(full, sizeof(full),
		 "export GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent "
		 "GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t "
		 "GIT_COMMITTER_EMAIL=t@t; (%s) >/dev/null 2>&1",
		 line);
	if (system(full) != 0)
		FAIL_AT("failed: %s", line);
}

TEST(manifest_recorded_from_the_mirror)
{
	struct lec_steps s;
	char cmd[4096], commit[64] = "", *from = NULL, *text;
	FILE *p;

	lec_steps_init(&s, "guide", NULL);
	snprintf(cmd, sizeof(cmd),
		 "git init -q -b main %1$s/src && cd %1$s/src && "
		 "mkdir docs && printf '# Guide\\n' > README.md && "
		 "printf '#!/bin/sh\\n' > docs/build.sh && "
		 "chmod +x docs/build.sh && ln -s README.md link.md && "
		 "git add -A && git commit -q -m one && "
		 "git clone -q --mirror %1$s/src %2$s && "
		 "cp -a README.md link.md docs %3$s/",
		 s.data_dir, s.job.repo_cache, s.job.checkout);
	sh(cmd);
	snprintf(cmd, sizeof(cmd), "git -C %s/src rev-parse HEAD", s.data_dir);
	if ((p = popen(cmd, "r")) != NULL) {
		if (fgets(commit, sizeof(commit), p) == NULL)
			commit[0] = '\0';
		pclose(p);
	}
	commit[strcspn(commit, "\n")] = '\0';
	s.job.commit = lec__strdup(commit);
	CHECK_OK(lec__tree_record(&s.job));
	text = lec_test_read_file(s.job.tree_manifest, NULL);
	CHECK(text && strncmp(text, "lectern-tree 1\n", 15) == 0 &&
	      strncmp(text + 15, commit, 40) == 0);
	free(text);
	/* What it recorded is what the tree holds: the next build updates
	 * it from that commit. */
	CHECK_STR(prepare(&s, 0, &from), "reused");
	CHECK_STR(from, commit);
	lec__free(from);
	/* Forgotten: the next is afresh. */
	lec__tree_forget(&s.job);
	CHECK_STR(prepare(&s, 0, &from), "no earlier checkout was kept");
	lec_steps_dispose(&s);
}

TEST(inactive_versions_pruned_tree_dropped)
{
	static const char *const old[] = {
		"checkouts/guide/old", "checkouts/guide/old.manifest",
		"checkouts/guide/old.sphinx", "python/guide/venvs/old",
		"python/.stamps/guide/old",
	};
	static const char *const live[] = {
		"checkouts/guide/latest", "python/guide/venvs/latest",
		"python/.stamps/guide/latest", "python/guide/wheels",
	};
	struct lec_version *v = NULL;
	struct lec_steps s;
	size_t i;

	lec_steps_init(&s, "guide", NULL);
	CHECK_OK(lec_version_create(s.st, s.job.project->id, "old", "old",
				    LEC_VERSION_BRANCH, 0, &v));
	for (i = 0; i < sizeof(old) / sizeof(old[0]); i++) {
		char *path = lec__path_join(s.data_dir, old[i]);

		CHECK_OK(lec__mkdirs(path));
		lec__free(path);
	}
	for (i = 0; i < sizeof(live) / sizeof(live[0]); i++) {
		char *path = lec__path_join(s.data_dir, live[i]);

		CHECK_OK(lec__mkdirs(path));
		lec__free(path);
	}
	lec__prune_caches(&s.env, s.st, s.job.project);
	for (i = 0; i < sizeof(old) / sizeof(old[0]); i++) {
		char *path = lec__path_join(s.data_dir, old[i]);

		if (access(path, F_OK) == 0)
			FAIL_AT("%s was kept", old[i]);
		lec__free(path);
	}
	for (i = 0; i < sizeof(live) / sizeof(live[0]); i++) {
		char *path = lec__path_join(s.data_dir, live[i]);

		if (access(path, F_OK) != 0)
			FAIL_AT("%s went", live[i]);
		lec__free(path);
	}
	/* The disk is full: the version's tree goes, with its manifest and
	 * the generators' records beside it. */
	lec_test_put(s.data_dir, "checkouts/guide/latest.manifest", "x");
	lec_test_put(s.data_dir, "checkouts/guide/latest.sphinx", "x");
	lec__tree_drop(&s.job);
	CHECK(access(s.job.checkout, F_OK) != 0);
	CHECK(access(s.job.tree_manifest, F_OK) != 0);
	lec_version_free(v);
	lec_steps_dispose(&s);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(unchanged_tree_is_updated_and_cleaned),
	TEST_ENTRY(changed_tree_is_checked_out_afresh),
	TEST_ENTRY(submodule_contents_go),
	TEST_ENTRY(manifest_recorded_from_the_mirror),
	TEST_ENTRY(inactive_versions_pruned_tree_dropped),
};

LEC_TEST_MAIN(tests)
