/*
 * The pipeline's seams, below a running build: sanitizing and publishing
 * an output (build_publish.c), the build environment (buildenv.c) and the
 * choice of generator (build_steps.c), each without a server or a worker.
 *
 * - A hostile output keeps only regular files and directories: links (to
 *   /etc/shadow, out of the tree), fifos and sockets go, set-id bits are
 *   dropped, and a tree deeper than the publish bound is cut there.
 * - Publishing moves the output to outputs/<build>, swaps the version's
 *   link to it in one rename, and keeps the newest `keep` passed outputs.
 * - The environment copies its settings, finds no generators in an
 *   interpreter without them (kept all the same, to say so in builds),
 *   stops and wakes, and gives a tree to the build user without following
 *   a link out of it.
 * - The generator follows the configuration, then conf.py, then mkdocs.yml,
 *   and is the built-in Markdown builder otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "build_publish.h"
#include "build_steps.h"
#include "harness.h"
#include "lectern/build.h"
#include "lectern/version.h"

/* Deeper than build_publish.c's PUBLISH_MAX_DEPTH (64). */
#define TOO_DEEP 70

static int exists(const char *dir, const char *rel)
{
	char path[1024];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return lstat(path, &sb) == 0;
}

TEST(sanitize_keeps_files_and_directories_only)
{
	const char *out = lec_test_tmpdir();
	char path[1024];
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct stat sb;
	int fd, i;

	snprintf(path, sizeof(path), "%s/html/_static", out);
	CHECK_OK(lec__mkdirs(path));
	lec_test_put(out, "html/index.html", "<p>hi</p>");
	snprintf(path, sizeof(path), "%s/html/setuid", out);
	lec_test_put(out, "html/setuid", "x");
	CHECK(chmod(path, 04755) == 0);
	snprintf(path, sizeof(path), "%s/html/shadow.html", out);
	CHECK(symlink("/etc/shadow", path) == 0);
	snprintf(path, sizeof(path), "%s/html/up", out);
	CHECK(symlink("../..", path) == 0);
	snprintf(path, sizeof(path), "%s/html/_static/fifo", out);
	CHECK(mkfifo(path, 0644) == 0);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/html/sock", out);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/html", out);
	for (i = 0; i < TOO_DEEP; i++)
		strncat(path, "/d", sizeof(path) - strlen(path) - 1);
	CHECK_OK(lec__mkdirs(path));
	lec_test_put(path, "deep.html", "x");

	CHECK_OK(lec__sanitize_tree(out));
	CHECK(exists(out, "html/index.html"));
	CHECK(exists(out, "html/_static"));
	CHECK(!exists(out, "html/shadow.html"));
	CHECK(!exists(out, "html/up"));
	CHECK(!exists(out, "html/_static/fifo"));
	CHECK(!exists(out, "html/sock"));
	snprintf(path, sizeof(path), "%s/html/setuid", out);
	CHECK(stat(path, &sb) == 0 && !(sb.st_mode & 06000));
	/* Cut at the bound: level 64 stays, what is below it goes. */
	snprintf(path, sizeof(path), "%s/html", out);
	for (i = 0; i < 63; i++)
		strncat(path, "/d", sizeof(path) - strlen(path) - 1);
	CHECK(access(path, F_OK) == 0);
	strncat(path, "/d", sizeof(path) - strlen(path) - 1);
	CHECK(access(path, F_OK) != 0);
	/* A link instead of the output is refused, not followed. */
	snprintf(path, sizeof(path), "%s/link", out);
	CHECK(symlink("/etc", path) == 0);
	CHECK_ERR(lec__sanitize_tree(path), LEC_EIO);
}

/* An output of build id with one page saying text, under data/builds. */
static void make_output(const char *data, int64_t id, const char *text,
			char *out, size_t cap)
{
	char html[1200];

	snprintf(out, cap, "%s/builds/%lld/out", data, (long long)id);
	snprintf(html, sizeof(html), "%s/html", out);
	CHECK_OK(lec__mkdirs(html));
	lec_test_put(html, "index.html", text);
}

static int64_t passed_build(struct lec_store *st, int64_t project,
			    int64_t version)
{
	struct lec_build *b = NULL;
	int64_t id = 0;

	CHECK_OK(lec_build_trigger(st, project, version, NULL, &b, NULL));
	if (b)
		id = b->id;
	lec_build_free(b);
	CHECK_OK(lec_build_set_state(st, id, LEC_BUILD_STATE_BUILDING));
	CHECK_OK(lec_build_finish(st, id, 1, NULL));
	return id;
}

TEST(publish_swaps_the_link_and_keeps_the_newest)
{
	const char *data = lec_test_tmpdir();
	struct lec_store *st = lec_test_store();
	int64_t project = lec_test_project(st, "docs"), ids[3];
	struct lec_version *v = NULL;
	char out[1024], link[512], served[1024], target[256];
	ssize_t n;
	int i;

	CHECK_OK(lec_version_create(st, project, "latest", "latest",
				    LEC_VERSION_BRANCH, 1, &v));
	snprintf(link, sizeof(link), "%s/published/docs/latest", data);
	for (i = 0; v && i < 3; i++) {
		struct lec__publish p = { st, data, "docs", project, v->id,
					  "latest", 0, 2 };
		char text[32];

		p.build_id = ids[i] = passed_build(st, project, v->id);
		snprintf(text, sizeof(text), "build %d", i);
		make_output(data, ids[i], text, out, sizeof(out));
		CHECK_OK(lec__publish_tree(&p, out));
		CHECK(access(out, F_OK) != 0); /* moved, not copied */
		n = readlink(link, target, sizeof(target) - 1);
		CHECK(n > 0);
		target[n > 0 ? n : 0] = '\0';
		snprintf(served, sizeof(served), "../../outputs/%lld",
			 (long long)ids[i]);
		CHECK_STR(target, served);
		snprintf(served, sizeof(served), "%s/html/index.html", link);
		{
			char *page = lec_test_read_file(served, NULL);

			CHECK_STR(page, text);
			free(page);
		}
	}
	/* keep 2: the first output is gone, the second kept for diffs. */
	snprintf(out, sizeof(out), "%s/outputs/%lld", data, (long long)ids[0]);
	CHECK(access(out, F_OK) != 0);
	snprintf(out, sizeof(out), "%s/outputs/%lld", data, (long long)ids[1]);
	CHECK(access(out, F_OK) == 0);
	lec_version_free(v);
	lec_store_free(st);
}

TEST(build_environment)
{
	struct lec_pipeline_config config = { 0 };
	struct lec__build_env env;
	const char *roots[] = { "/srv", NULL };
	const char *dir = lec_test_tmpdir();
	char path[1024];
	struct stat sb;
	time_t start;

	config.data_dir = dir;
	config.limits.time_limit_s = 42;
	config.offline = 1;
	config.local_roots = roots;
	CHECK_OK(lec__build_env_init(&env, &config));
	CHECK_STR(env.data_dir, dir);
	CHECK_STR(env.docs_domain, "localhost");
	CHECK_INT(env.limits.time_limit_s, 42);
	CHECK(env.offline && env.local_roots == roots);
	/* An interpreter without the generators is kept, with neither. */
	CHECK_OK(lec__build_env_find_python(&env, "/bin/true"));
	CHECK_STR(env.python, "/bin/true");
	CHECK(!env.has_sphinx && !env.has_mkdocs && env.python_about == NULL);
	/* Stopping wakes an idle wait at once. */
	CHECK(!lec__build_env_stopping(&env));
	lec__build_env_stop(&env);
	CHECK(lec__build_env_stopping(&env));
	start = time(NULL);
	lec__build_env_idle(&env, 60000);
	CHECK(time(NULL) - start < 30);
	/* Giving a tree to the build user follows no link out of it. */
	env.build_uid = 65534;
	env.build_gid = 65534;
	snprintf(path, sizeof(path), "%s/tree/sub", dir);
	CHECK_OK(lec__mkdirs(path));
	lec_test_put(path, "f", "x");
	snprintf(path, sizeof(path), "%s/tree/out", dir);
	CHECK(symlink("/etc/passwd", path) == 0);
	snprintf(path, sizeof(path), "%s/tree", dir);
	CHECK_OK(lec__chown_tree(&env, path, 1, 1));
	snprintf(path, sizeof(path), "%s/tree/sub/f", dir);
	if (geteuid() == 0) {
		CHECK(stat(path, &sb) == 0 && sb.st_uid == 65534);
		CHECK(stat("/etc/passwd", &sb) == 0 && sb.st_uid == 0);
	}
	lec__build_env_dispose(&env);
}

TEST(generator_choice)
{
	struct lec_pipeline_config config = { 0 };
	struct lec__build_env env;
	struct lec__job job = { 0 };
	const char *tree = lec_test_tmpdir();
	char path[1024], checkout[512];

	CHECK_OK(lec__build_env_init(&env, &config));
	snprintf(checkout, sizeof(checkout), "%s", tree);
	job.env = &env;
	job.checkout = checkout;
	CHECK_INT(lec__job_generator(&job), LEC__GEN_MARKDOWN);
	lec_test_put(tree, "mkdocs.yml", "site_name: x\n");
	CHECK_INT(lec__job_generator(&job), LEC__GEN_MKDOCS);
	snprintf(path, sizeof(path), "%s/docs", tree);
	CHECK_OK(lec__mkdirs(path));
	lec_test_put(tree, "docs/conf.py", "project = 'x'\n");
	CHECK_INT(lec__job_generator(&job), LEC__GEN_SPHINX);
	lec_test_put(tree, ".readthedocs.yaml",
	    "version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: "
	    "\"3\"\nmkdocs:\n  configuration: mkdocs.yml\n");
	CHECK_OK(lec_rtd_config_load(tree, ".readthedocs.yaml", &job.config));
	CHECK_INT(lec__job_generator(&job), LEC__GEN_MKDOCS);
	lec_rtd_config_free(job.config);
	lec_test_put(tree, ".readthedocs.yaml",
	    "version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: "
	    "\"3\"\n  commands:\n    - echo hi\n");
	CHECK_OK(lec_rtd_config_load(tree, ".readthedocs.yaml", &job.config));
	CHECK_INT(lec__job_generator(&job), LEC__GEN_COMMANDS);
	lec_rtd_config_free(job.config);
	lec__build_env_dispose(&env);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(sanitize_keeps_files_and_directories_only),
	TEST_ENTRY(publish_swaps_the_link_and_keeps_the_newest),
	TEST_ENTRY(build_environment),
	TEST_ENTRY(generator_choice),
};

LEC_TEST_MAIN(tests)
