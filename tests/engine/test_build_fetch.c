/*
 * The checkout step's fetch (build_fetch.c) through the step harness:
 * the `lectern __repo` helper's command line, environment (the URL there,
 * never in argv), mounts and network for a first clone, a later fetch and
 * a local repository; the helper's progress lines (split across chunks,
 * overlong, interleaved with other output) read into the build's progress
 * and the log's summary, the cause of a failed fetch without its
 * "error: " prefix, credentials kept out of the log, and what a killed
 * fetch left in the repo cache removed before the next.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build_steps.h"
#include "harness.h"
#include "lectern/build.h"
#include "steps.h"

/* What the fake helper prints, and what it saw of the build's progress
 * while it ran. */
struct fetch_script {
	const char *const *chunks; /* NULL-terminated */
	int exit_code;
	char progress[2][200];     /* after the first chunk; after a pause */
};

static void read_progress(struct lec_steps *s, char *out, size_t cap)
{
	struct lec_build *b = NULL;

	CHECK_OK(lec_build_get(s->st, s->job.build->id, &b));
	snprintf(out, cap, "%s", b && b->progress ? b->progress : "(none)");
	lec_build_free(b);
}

/* The helper: `fetch TARGET` makes TARGET (a repo cache, for the rename of a
 * first clone) and prints the script's chunks. */
static int helper(struct lec_steps *s, const char *const *argv,
		  lec_runner_output_cb out, void *out_payload,
		  struct lec_runner_result *result)
{
	struct fetch_script *fs = s->data;
	struct timespec pause = { 0, 300 * 1000000L };
	size_t i;

	CHECK_STR(argv[1], LEC_PIPELINE_HELPER_WORD);
	if (strcmp(argv[2], "fetch") == 0)
		CHECK_OK(lec__mkdirs(argv[3]));
	for (i = 0; fs && fs->chunks[i]; i++) {
		out(fs->chunks[i], strlen(fs->chunks[i]), out_payload);
		if (i == 0)
			read_progress(s, fs->progress[0], sizeof(fs->progress[0]));
	}
	/* Progress is written at most every 250 ms: after a pause the
	 * last phase shows. */
	if (fs && i > 1) {
		nanosleep(&pause, NULL);
		out("progress checkout 7 0 0\n", 24, out_payload);
		read_progress(s, fs->progress[1], sizeof(fs->progress[1]));
	}
	result->end = LEC_RUNNER_EXITED;
	result->exit_code = fs ? fs->exit_code : 0;
	return 0;
}

static char *data(const struct lec_steps *s, const char *rel)
{
	return lec__path_join(s->data_dir, rel);
}

TEST(first_clone_through_the_helper)
{
	static const char *const chunks[] = {
		"progress receiving 5 10 2048\nprogress recei",
		"ving 10 10 4194304\nnot a progress line\nprogress bogus 1 2 3\n"
		"progress resolving 3 3 0\n",
		NULL
	};
	struct fetch_script fs = { chunks, 0, { "", "" } };
	struct lec_steps s;
	const struct lec_steps_cmd *c;
	struct stat sb;
	char *staging, *repo_cache, *expect = NULL;

	lec_steps_init(&s, "guide", NULL);
	s.answer = helper;
	s.data = &fs;
	/* The fetch works; reading the fake repo cache's refs does not. */
	CHECK_ERR(lec__job_checkout(&s.job), LEC_ERROR);
	c = s.ncmds ? &s.cmds[0] : NULL;
	CHECK(c != NULL);
	if (c == NULL)
		goto done;
	CHECK_STR(c->display,
		  "git clone --mirror https://example.org/r.git repos/guide.git");
	staging = data(&s, "repos/guide.git.new");
	repo_cache = data(&s, "repos/guide.git");
	CHECK(asprintf(&expect, "/usr/bin/lectern __repo fetch %s/cache.git",
		       staging) > 0);
	CHECK_STR(c->argv, expect);
	free(expect);
	CHECK_STR(c->cwd, "/");
	CHECK_STR(lec_steps_env(c, "LECTERN_REPO_URL"), "https://example.org/r.git");
	CHECK_STR(lec_steps_env(c, "PATH"), "/usr/bin:/bin");
	CHECK_INT(c->network, LEC_RUNNER_NET_HOST);
	/* It writes the staging directory only, and runs the helper. */
	CHECK_INT(c->nmounts, 2);
	CHECK_STR(c->mounts[0].path, staging);
	CHECK_INT(c->mounts[0].writable, 1);
	CHECK_STR(c->mounts[1].path, "/usr/bin/lectern");
	CHECK_INT(c->mounts[1].writable, 0);
	/* The progress as it went, and one line per phase in the log. */
	CHECK_STR(fs.progress[0], "{\"phase\":\"receiving\",\"objects\":5,"
				  "\"total\":10,\"bytes\":2048,\"percent\":50}");
	CHECK_STR(fs.progress[1], "{\"phase\":\"checkout\",\"objects\":7,"
				  "\"total\":null,\"bytes\":0,\"percent\":null}");
	CHECK_STR(c->output, "Receiving objects: 100% (10/10), 4.00 MiB, done.\n"
			     "Resolving deltas: 100% (3/3), done.\n"
			     "Updating files: 100% (7), done.\n");
	CHECK_INT(c->exit_code, 0);
	/* The clone moved into place; the build's progress is cleared. */
	CHECK(stat(repo_cache, &sb) == 0 && S_ISDIR(sb.st_mode));
	CHECK(stat(staging, &sb) != 0);
	{
		char progress[200];

		read_progress(&s, progress, sizeof(progress));
		CHECK_STR(progress, "(none)");
	}
	CHECK(s.job.error && strncmp(s.job.error, "Reading the repository's "
						  "branches and tags failed",
				     47) == 0);
	lec__free(staging);
	lec__free(repo_cache);
done:
	lec_steps_dispose(&s);
}

TEST(failed_fetch_says_why)
{
	static const char *const failing[] = {
		"progress receiving 1 10 100\n"
		"error: failed to resolve address for example.org: Name or "
		"service not known\n",
		NULL
	};
	struct fetch_script fs = { failing, 128, { "", "" } };
	struct lec_steps s;

	lec_steps_init(&s, "guide", NULL);
	s.answer = helper;
	s.data = &fs;
	CHECK_ERR(lec__job_checkout(&s.job), LEC_ERROR);
	CHECK_STR(s.job.error, "Cloning the repository failed: failed to "
			       "resolve address for example.org: Name or "
			       "service not known");
	/* The thread's message too, though the build's progress was
	 * cleared after the failure. */
	CHECK_STR(lec_error_last(), s.job.error ? s.job.error : "");
	CHECK_INT(s.ncmds, 1);
	if (s.ncmds) {
		CHECK_INT(s.cmds[0].exit_code, 1);
		CHECK_STR(s.cmds[0].output,
			  "Receiving objects: 100% (1/10), 0.00 MiB, done.\n"
			  "failed to resolve address for example.org: Name or "
			  "service not known\n");
	}
	lec_steps_dispose(&s);
}

TEST(later_fetch_cleans_the_mirror)
{
	struct lec_steps s;
	const struct lec_steps_cmd *c;
	char *repo_cache, *expect = NULL;

	lec_steps_init(&s, "guide", NULL);
	repo_cache = data(&s, "repos/guide.git");
	/* What a killed fetch leaves: lock files and a partial pack. */
	CHECK_OK(lec__mkdirs(repo_cache));
	{
		char *heads = lec__path_join(repo_cache, "refs/heads");
		char *packs = lec__path_join(repo_cache, "objects/pack");

		CHECK_OK(lec__mkdirs(heads));
		CHECK_OK(lec__mkdirs(packs));
		lec_test_put(heads, "main.lock", "");
		lec_test_put(repo_cache, "packed-refs.lock", "");
		lec_test_put(packs, "pack_git2_4f2a", "");
		lec_test_put(packs, "pack-1234.pack", "kept");
		lec__free(heads);
		lec__free(packs);
	}
	s.answer = helper;
	CHECK_ERR(lec__job_checkout(&s.job), LEC_ERROR);
	c = s.ncmds ? &s.cmds[0] : NULL;
	CHECK(c != NULL);
	if (c) {
		CHECK_STR(c->display, "git fetch --prune --force "
				      "https://example.org/r.git "
				      "'+refs/heads/*:refs/heads/*' "
				      "'+refs/tags/*:refs/tags/*'");
		CHECK(asprintf(&expect, "/usr/bin/lectern __repo fetch %s",
			       repo_cache) > 0);
		CHECK_STR(c->argv, expect);
		free(expect);
		CHECK(c->nmounts >= 1 && strcmp(c->mounts[0].path, repo_cache) == 0 &&
		      c->mounts[0].writable);
	}
	{
		char *lock = lec__path_join(repo_cache, "refs/heads/main.lock");
		char *top = lec__path_join(repo_cache, "packed-refs.lock");
		char *partial = lec__path_join(repo_cache, "objects/pack/pack_git2_4f2a");
		char *pack = lec__path_join(repo_cache, "objects/pack/pack-1234.pack");

		CHECK(access(lock, F_OK) != 0);
		CHECK(access(top, F_OK) != 0);
		CHECK(access(partial, F_OK) != 0);
		CHECK(access(pack, F_OK) == 0);
		lec__free(lock);
		lec__free(top);
		lec__free(partial);
		lec__free(pack);
	}
	lec__free(repo_cache);
	lec_steps_dispose(&s);
}

TEST(credentials_stay_out_of_the_log)
{
	struct lec_steps s;

	lec_steps_init(&s, "guide", NULL);
	lec__free(s.job.project->repo_url);
	s.job.project->repo_url =
		lec__strdup("https://alice:tok3n-tok3n@example.org/r.git");
	s.answer = helper;
	CHECK_ERR(lec__job_checkout(&s.job), LEC_ERROR);
	CHECK(s.ncmds >= 1);
	if (s.ncmds >= 1) {
		CHECK(strstr(s.cmds[0].display, "tok3n") == NULL);
		CHECK(strstr(s.cmds[0].display, "example.org/r.git") != NULL);
		CHECK(strstr(s.cmds[0].argv, "tok3n") == NULL);
		CHECK_STR(lec_steps_env(&s.cmds[0], "LECTERN_REPO_URL"),
			  "https://alice:tok3n-tok3n@example.org/r.git");
	}
	lec_steps_dispose(&s);
}

TEST(local_repository_read_as_the_server)
{
	struct lec_steps s;
	const char *roots[2] = { NULL, NULL };
	char *repo, *url = NULL;

	lec_steps_init(&s, "guide", NULL);
	repo = lec__path_join(s.data_dir, "src");
	CHECK_OK(lec__mkdirs(repo));
	roots[0] = s.data_dir;
	s.env.local_roots = roots;
	CHECK(asprintf(&url, "file://%s", repo) > 0);
	lec__free(s.job.project->repo_url);
	s.job.project->repo_url = lec__strdup(url);
	s.answer = helper;
	CHECK_ERR(lec__job_checkout(&s.job), LEC_ERROR);
	CHECK(s.ncmds >= 1);
	if (s.ncmds >= 1) {
		const struct lec_steps_cmd *c = &s.cmds[0];

		/* No network; the repository bound read-only, its path
		 * (not the URL) given to the helper. */
		CHECK_INT(c->network, LEC_RUNNER_NET_NONE);
		CHECK_STR(lec_steps_env(c, "LECTERN_REPO_URL"), repo);
		CHECK(c->nmounts == 3 && strcmp(c->mounts[1].path, repo) == 0 &&
		      !c->mounts[1].writable);
	}
	/* A repository outside the allowed directories is refused before
	 * any helper runs (the repo cache made above is fetched, not cloned). */
	lec_steps_clear(&s);
	lec__free(s.job.error);
	s.job.error = NULL;
	lec__free(s.job.project->repo_url);
	s.job.project->repo_url = lec__strdup("file:///etc");
	CHECK_ERR(lec__job_checkout(&s.job), LEC_ERROR);
	CHECK(s.ncmds == 1 && s.cmds[0].argv == NULL);
	free(url);
	CHECK(asprintf(&url, "Fetching the repository failed: Local "
			     "repositories must be in %s; 'file:///etc' is not",
		       s.data_dir) > 0);
	CHECK_STR(s.job.error, url);
	free(url);
	lec__free(repo);
	lec_steps_dispose(&s);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(first_clone_through_the_helper),
	TEST_ENTRY(failed_fetch_says_why),
	TEST_ENTRY(later_fetch_cleans_the_mirror),
	TEST_ENTRY(credentials_stay_out_of_the_log),
	TEST_ENTRY(local_repository_read_as_the_server),
};

LEC_TEST_MAIN(tests)
