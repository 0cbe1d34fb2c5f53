/*
 * Repositories: caching over file://, a plain path and git:// (a real
 * `git daemon` on 127.0.0.1), fetching again with prune after commits, new
 * and deleted tags and branches and a moved default branch; the refs and
 * default branch read back, annotated tags peeled; progress reports and
 * aborting through them; clear errors for bad URLs that never show
 * credentials; resolving refs; and checkouts (contents, executable bits,
 * symbolic links, submodules, refusing a used target and hostile trees).
 *
 * Fixture repositories are made with the git program; the engine itself
 * only uses libgit2.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "internal.h"
#include "lectern/repo.h"

/* How long to wait for git daemon to accept connections, in 50 ms steps. */
#define DAEMON_WAIT_STEPS 200

#define PATH_LEN 512
#define HEX_LEN (LEC_REPO_COMMIT_HEX + 1)

/* Fixtures ---------------------------------------------------------------- */

/* git's identity and an empty HOME, so no user configuration (of git or of
 * libgit2) changes what the tests see. */
static void git_env(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	setenv("HOME", lec_test_tmpdir(), 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_AUTHOR_NAME", "Test", 1);
	setenv("GIT_AUTHOR_EMAIL", "test@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "Test", 1);
	setenv("GIT_COMMITTER_EMAIL", "test@example.com", 1);
}

static int sh(const char *fmt, ...) LEC__PRINTF(1, 2);

/* Run a shell command quietly; its status (0 on success). */
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

#define SH(...) CHECK_INT(sh(__VA_ARGS__), 0)

static void capture(char *out, size_t n, const char *fmt, ...)
	LEC__PRINTF(3, 4);

/* The first line a shell command prints. */
static void capture(char *out, size_t n, const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	FILE *p;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	out[0] = '\0';
	p = popen(cmd, "r");
	if (p == NULL || fgets(out, (int)n, p) == NULL)
		FAIL_AT("no output from: %s", cmd);
	if (p)
		pclose(p);
	out[strcspn(out, "\n")] = '\0';
}

static void rev_parse(const char *repo, const char *rev, char *out)
{
	capture(out, HEX_LEN + 1, "git -C %s rev-parse '%s'", repo, rev);
}

/*
 * A source repository: main with two commits (an executable script, a
 * symbolic link, a subdirectory), a feature branch at the first commit, a
 * lightweight tag v1.0 there, an annotated v2.0 and a pre-release v3.0rc1
 * on the second, and a tag of a tree (which leads to no commit).
 */
static void make_source(const char *tmp, char *src)
{
	snprintf(src, PATH_LEN, "%s/src", tmp);
	SH("git init -q -b main %s", src);
	SH("cd %s && printf 'hello\\n' > README.md && "
	   "printf '#!/bin/sh\\necho hi\\n' > run.sh && chmod +x run.sh && "
	   "ln -s README.md link && mkdir docs && "
	   "printf '# Docs\\n' > docs/index.md && git add -A && "
	   "git commit -q -m one && git tag v1.0 && git branch feature",
	   src);
	SH("cd %s && printf 'more\\n' >> README.md && git commit -q -am two && "
	   "git tag -a v2.0 -m 'release 2.0' && git tag v3.0rc1 && "
	   "git tag treetag 'HEAD^{tree}'",
	   src);
}

static void mirror_path(const char *tmp, char *out)
{
	snprintf(out, PATH_LEN, "%s/repos/p.git", tmp);
}

static const struct lec_repo_ref *find(const struct lec_repo_refs *refs,
				       const char *name,
				       enum lec_repo_ref_type type)
{
	size_t i;

	for (i = 0; i < refs->len; i++)
		if (refs->items[i].type == type &&
		    strcmp(refs->items[i].name, name) == 0)
			return &refs->items[i];
	return NULL;
}

static void check_ref(const struct lec_repo_refs *refs, const char *name,
		      enum lec_repo_ref_type type, const char *commit)
{
	const struct lec_repo_ref *r = find(refs, name, type);

	if (r == NULL) {
		FAIL_AT("ref %s missing", name);
		return;
	}
	CHECK_STR(r->commit, commit);
}

static int path_exists(const char *path)
{
	struct stat sb;

	return lstat(path, &sb) == 0;
}

/* Whether a directory holds an entry whose name contains part. */
static int dir_has(const char *dir, const char *part)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	while (d && (e = readdir(d)) != NULL)
		if (strstr(e->d_name, part))
			found = 1;
	if (d)
		closedir(d);
	return found;
}

static void read_text(const char *path, char *out, size_t n)
{
	FILE *f = fopen(path, "r");
	size_t got = f ? fread(out, 1, n - 1, f) : 0;

	out[got] = '\0';
	if (f)
		fclose(f);
	else
		FAIL_AT("cannot read %s", path);
}

/* The repo cache of a fresh source, with its refs listed. */
static void mirror_source(const char *tmp, char *src, char *repo_cache,
			  struct lec_repo_refs *refs)
{
	make_source(tmp, src);
	mirror_path(tmp, repo_cache);
	CHECK_OK(lec_repo_cache_update(src, repo_cache, NULL, NULL));
	CHECK_OK(lec_repo_list_refs(repo_cache, refs));
}

/* URLs -------------------------------------------------------------------- */

static void check_redact(const char *url, const char *want)
{
	char *got = lec_repo_redact_url(url);

	CHECK_STR(got, want);
	free(got);
}

TEST(redact_url)
{
	check_redact("http://user:secret@host/x", "http://host/x");
	check_redact("https://token@host:8443/p?q=a@b",
		     "https://host:8443/p?q=a@b");
	check_redact("HTTPS://a:b@c:d@host/", "HTTPS://host/");
	check_redact("git://host/a@b", "git://host/a@b");
	check_redact("http://u:p@h", "http://h");
	check_redact("file:///tmp/r.git", "file:///tmp/r.git");
	check_redact("/srv/with@at", "/srv/with@at");
	check_redact("git@github.com:org/r.git", "git@github.com:org/r.git");
	check_redact("", "");
	CHECK(lec_repo_redact_url(NULL) == NULL);
}

/* The repo cache --------------------------------------------------------------- */

TEST(mirror_file_url)
{
	const char *tmp;
	char src[PATH_LEN], repo_cache[PATH_LEN], url[PATH_LEN + 8];
	char c1[HEX_LEN + 1], c2[HEX_LEN + 1], tagobj[HEX_LEN + 1];
	char text[4096];
	struct lec_repo_refs refs = { 0 };

	git_env();
	tmp = lec_test_tmpdir();
	make_source(tmp, src);
	mirror_path(tmp, repo_cache);
	snprintf(url, sizeof(url), "file://%s", src);
	/* The parent directory (repos/) does not exist yet. */
	CHECK_OK(lec_repo_cache_update(url, repo_cache, NULL, NULL));
	CHECK_OK(lec_repo_list_refs(repo_cache, &refs));
	rev_parse(src, "main~1", c1);
	rev_parse(src, "main", c2);
	rev_parse(src, "v2.0", tagobj);
	CHECK_INT(refs.len, 5);
	/* Branches first, then tags, each by name. */
	if (refs.len == 5) {
		CHECK_STR(refs.items[0].name, "feature");
		CHECK_STR(refs.items[1].name, "main");
		CHECK_STR(refs.items[2].name, "v1.0");
		CHECK_STR(refs.items[3].name, "v2.0");
		CHECK_STR(refs.items[4].name, "v3.0rc1");
	}
	check_ref(&refs, "main", LEC_REPO_BRANCH, c2);
	check_ref(&refs, "feature", LEC_REPO_BRANCH, c1);
	check_ref(&refs, "v1.0", LEC_REPO_TAG, c1);
	/* The annotated tag is peeled to its commit. */
	check_ref(&refs, "v2.0", LEC_REPO_TAG, c2);
	CHECK(strcmp(tagobj, c2) != 0);
	check_ref(&refs, "v3.0rc1", LEC_REPO_TAG, c2);
	CHECK(find(&refs, "treetag", LEC_REPO_TAG) == NULL);
	CHECK(find(&refs, "main", LEC_REPO_TAG) == NULL);
	CHECK_STR(refs.default_branch, "main");
	/* A repo cache, its HEAD like git clone --mirror's; the URL is not
	 * stored and the temporary clone directory is gone. */
	CHECK(path_exists(repo_cache));
	snprintf(text, sizeof(text), "%s/HEAD", repo_cache);
	read_text(text, text, sizeof(text));
	CHECK_STR(text, "ref: refs/heads/main\n");
	snprintf(text, sizeof(text), "%s/config", repo_cache);
	read_text(text, text, sizeof(text));
	CHECK(strstr(text, "bare = true") != NULL);
	CHECK(strstr(text, src) == NULL);
	snprintf(text, sizeof(text), "%s/repos", tmp);
	CHECK(!dir_has(text, ".tmp-"));
	lec_repo_refs_dispose(&refs);
	lec_repo_refs_dispose(&refs);
	lec_repo_refs_dispose(NULL);
}

TEST(mirror_path_then_fetch_with_prune)
{
	const char *tmp;
	char src[PATH_LEN], repo_cache[PATH_LEN], c3[HEX_LEN + 1];
	char c1[HEX_LEN + 1], fetchhead[PATH_LEN + 16], text[256];
	struct lec_repo_refs refs = { 0 };

	git_env();
	tmp = lec_test_tmpdir();
	mirror_source(tmp, src, repo_cache, &refs);
	CHECK_INT(refs.len, 5);
	lec_repo_refs_dispose(&refs);
	rev_parse(src, "main~1", c1);

	/* New commits and tags, a deleted branch and tag, and the default
	 * branch moved to a new branch while the old one is deleted. */
	SH("cd %s && printf 'three\\n' > new.txt && git add new.txt && "
	   "git commit -q -m three && git tag -a v4.0 -m four && "
	   "git branch -D -q feature && git tag -d v1.0 && "
	   "git checkout -q -b dev && git branch -D -q main",
	   src);
	rev_parse(src, "dev", c3);
	CHECK_OK(lec_repo_cache_update(src, repo_cache, NULL, NULL));
	CHECK_OK(lec_repo_list_refs(repo_cache, &refs));
	CHECK_INT(refs.len, 4);
	check_ref(&refs, "dev", LEC_REPO_BRANCH, c3);
	check_ref(&refs, "v4.0", LEC_REPO_TAG, c3);
	CHECK(find(&refs, "feature", LEC_REPO_BRANCH) == NULL);
	CHECK(find(&refs, "main", LEC_REPO_BRANCH) == NULL);
	CHECK(find(&refs, "v1.0", LEC_REPO_TAG) == NULL);
	CHECK(find(&refs, "v2.0", LEC_REPO_TAG) != NULL);
	CHECK_STR(refs.default_branch, "dev");
	lec_repo_refs_dispose(&refs);

	/* A tag moved by force follows; nothing is written to FETCH_HEAD. */
	SH("cd %s && git tag -f v2.0 %s", src, c1);
	CHECK_OK(lec_repo_cache_update(src, repo_cache, NULL, NULL));
	CHECK_OK(lec_repo_list_refs(repo_cache, &refs));
	check_ref(&refs, "v2.0", LEC_REPO_TAG, c1);
	lec_repo_refs_dispose(&refs);
	snprintf(fetchhead, sizeof(fetchhead), "%s/FETCH_HEAD", repo_cache);
	if (path_exists(fetchhead)) {
		read_text(fetchhead, text, sizeof(text));
		CHECK_STR(text, "");
	}

	/* A default branch that the remote no longer has is not reported. */
	SH("cd %s && git symbolic-ref HEAD refs/heads/gone", src);
	CHECK_OK(lec_repo_cache_update(src, repo_cache, NULL, NULL));
	CHECK_OK(lec_repo_list_refs(repo_cache, &refs));
	CHECK(refs.default_branch == NULL);
	CHECK(find(&refs, "dev", LEC_REPO_BRANCH) != NULL);
	lec_repo_refs_dispose(&refs);
}

TEST(mirror_into_empty_directory_and_refuse_other)
{
	const char *tmp;
	char src[PATH_LEN], dir[PATH_LEN], file[PATH_LEN + 8];
	struct lec_repo_refs refs = { 0 };

	git_env();
	tmp = lec_test_tmpdir();
	make_source(tmp, src);
	snprintf(dir, sizeof(dir), "%s/empty.git/", tmp);
	CHECK_INT(mkdir(dir, 0700), 0);
	CHECK_OK(lec_repo_cache_update(src, dir, NULL, NULL));
	CHECK_OK(lec_repo_list_refs(dir, &refs));
	CHECK_INT(refs.len, 5);
	lec_repo_refs_dispose(&refs);

	/* A used directory that is not a repo cache is left alone. */
	snprintf(dir, sizeof(dir), "%s/other", tmp);
	CHECK_INT(mkdir(dir, 0700), 0);
	snprintf(file, sizeof(file), "%s/keep", dir);
	SH("echo data > %s", file);
	CHECK_ERR(lec_repo_cache_update(src, dir, NULL, NULL), LEC_EEXISTS);
	CHECK(strstr(lec_error_last(), "is not a repo cache") != NULL);
	CHECK(path_exists(file));
	/* A file where the repo cache should be. */
	CHECK_ERR(lec_repo_cache_update(src, file, NULL, NULL), LEC_EEXISTS);
	CHECK(strstr(lec_error_last(), "not a directory") != NULL);
}

TEST(mirror_empty_repository)
{
	const char *tmp;
	char src[PATH_LEN], repo_cache[PATH_LEN];
	struct lec_repo_refs refs = { 0 };

	git_env();
	tmp = lec_test_tmpdir();
	snprintf(src, sizeof(src), "%s/empty", tmp);
	SH("git init -q -b main %s", src);
	mirror_path(tmp, repo_cache);
	CHECK_OK(lec_repo_cache_update(src, repo_cache, NULL, NULL));
	CHECK_OK(lec_repo_list_refs(repo_cache, &refs));
	CHECK_INT(refs.len, 0);
	CHECK(refs.default_branch == NULL);
	lec_repo_refs_dispose(&refs);
	/* Its first commit arrives with the next fetch. */
	SH("git -C %s commit -q --allow-empty -m one", src);
	CHECK_OK(lec_repo_cache_update(src, repo_cache, NULL, NULL));
	CHECK_OK(lec_repo_list_refs(repo_cache, &refs));
	CHECK_INT(refs.len, 1);
	CHECK_STR(refs.default_branch, "main");
	lec_repo_refs_dispose(&refs);
}

/* Progress ---------------------------------------------------------------- */

struct progress_log {
	int calls;
	int abort_at; /* abort on this call (1-based); 0: never */
	struct lec_repo_progress last;
};

static int on_progress(const struct lec_repo_progress *p, void *payload)
{
	struct progress_log *log = payload;

	log->calls++;
	log->last = *p;
	return log->abort_at && log->calls >= log->abort_at;
}

TEST(progress_reports)
{
	const char *tmp;
	char src[PATH_LEN], repo_cache[PATH_LEN];
	struct progress_log log = { 0 };

	git_env();
	tmp = lec_test_tmpdir();
	make_source(tmp, src);
	mirror_path(tmp, repo_cache);
	CHECK_OK(lec_repo_cache_update(src, repo_cache, on_progress, &log));
	CHECK(log.calls > 0);
	CHECK(log.last.total_objects > 0);
	CHECK_INT(log.last.received_objects, log.last.total_objects);
	CHECK_INT(log.last.indexed_objects, log.last.total_objects);
	CHECK(log.last.received_bytes > 0);
}

TEST(abort_through_callback)
{
	const char *tmp;
	char src[PATH_LEN], repo_cache[PATH_LEN], repos[PATH_LEN], c2[HEX_LEN + 1];
	struct progress_log log = { 0, 1, { 0, 0, 0, 0, 0, 0 } };
	struct lec_repo_refs refs = { 0 };

	git_env();
	tmp = lec_test_tmpdir();
	make_source(tmp, src);
	mirror_path(tmp, repo_cache);
	/* An aborted first clone leaves nothing behind. */
	CHECK_ERR(lec_repo_cache_update(src, repo_cache, on_progress, &log), LEC_ERROR);
	CHECK_STR(lec_error_last(), LEC_REPO_CANCELLED);
	CHECK_INT(log.calls, 1);
	CHECK(!path_exists(repo_cache));
	snprintf(repos, sizeof(repos), "%s/repos", tmp);
	CHECK(!dir_has(repos, ".tmp-"));

	/* An aborted fetch leaves the repo cache as it was. */
	CHECK_OK(lec_repo_cache_update(src, repo_cache, NULL, NULL));
	rev_parse(src, "main", c2);
	SH("cd %s && printf 'x\\n' > x.txt && git add x.txt && "
	   "git commit -q -m x",
	   src);
	log.calls = 0;
	CHECK_ERR(lec_repo_cache_update(src, repo_cache, on_progress, &log), LEC_ERROR);
	CHECK_STR(lec_error_last(), LEC_REPO_CANCELLED);
	CHECK_OK(lec_repo_list_refs(repo_cache, &refs));
	check_ref(&refs, "main", LEC_REPO_BRANCH, c2);
	lec_repo_refs_dispose(&refs);
}

/* Errors ------------------------------------------------------------------ */

/* A failed repo cache call: its code, a message naming what, never secret. */
static void check_bad_url(const char *tmp, const char *url, int code,
			  const char *names)
{
	char repo_cache[PATH_LEN];

	mirror_path(tmp, repo_cache);
	CHECK_ERR(lec_repo_cache_update(url, repo_cache, NULL, NULL), code);
	if (strstr(lec_error_last(), names) == NULL)
		FAIL_AT("message for %s: \"%s\" lacks \"%s\"", url,
			lec_error_last(), names);
	CHECK(strstr(lec_error_last(), "secret") == NULL);
	CHECK(strstr(lec_error_last(), "user:") == NULL);
	CHECK(!path_exists(repo_cache));
}

TEST(bad_urls)
{
	const char *tmp;
	char missing[PATH_LEN], url[PATH_LEN + 8];

	git_env();
	tmp = lec_test_tmpdir();
	snprintf(missing, sizeof(missing), "%s/no/such/repo",
		 tmp);
	check_bad_url(tmp, missing, LEC_ENOTFOUND, missing);
	CHECK(strstr(lec_error_last(), "no repository at") != NULL);
	snprintf(url, sizeof(url), "file://%s", missing);
	check_bad_url(tmp, url, LEC_ENOTFOUND, missing);
	check_bad_url(tmp, "ftp://user:secret@example.com/r.git", LEC_EINVALID,
		      "unsupported repository URL 'ftp://example.com/r.git'");
	check_bad_url(tmp, "ssh://user:secret@example.com/r.git", LEC_EINVALID,
		      "unsupported");
	check_bad_url(tmp, "user@example.com:org/r.git", LEC_EINVALID,
		      "unsupported");
	/* Nothing listens on port 1: the network error names the URL
	 * without its credentials. */
	check_bad_url(tmp, "http://user:secret@127.0.0.1:1/x", LEC_EIO,
		      "cannot fetch http://127.0.0.1:1/x: ");
	check_bad_url(tmp, "git://user:secret@127.0.0.1:1/x", LEC_EIO,
		      "git://127.0.0.1:1/x");
	check_bad_url(tmp, "", LEC_EINVALID, "no repository URL");
	CHECK_ERR(lec_repo_cache_update(NULL, missing, NULL, NULL), LEC_EINVALID);
	CHECK_ERR(lec_repo_cache_update(missing, NULL, NULL, NULL), LEC_EINVALID);
	CHECK_ERR(lec_repo_cache_update(missing, "", NULL, NULL), LEC_EINVALID);
}

/* A server that answers every request with 401 and a Basic challenge, as
 * a forge does for a private repository; forked, serving until killed.
 * Its port into *port. */
static pid_t start_private_server(int *port)
{
	static const char answer[] =
		"HTTP/1.1 401 Unauthorized\r\n"
		"WWW-Authenticate: Basic realm=\"private\"\r\n"
		"Content-Length: 0\r\nConnection: close\r\n\r\n";
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t len = sizeof(addr);
	char buf[4096];
	int fd = socket(AF_INET, SOCK_STREAM, 0), c;
	pid_t pid;

	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(fd, 8) < 0 ||
	    getsockname(fd, (struct sockaddr *)&addr, &len) < 0)
		return -1;
	*port = ntohs(addr.sin_port);
	if ((pid = fork()) != 0) {
		close(fd);
		return pid;
	}
	while ((c = accept(fd, NULL, NULL)) >= 0) {
		if (read(c, buf, sizeof(buf)) > 0 &&
		    write(c, answer, sizeof(answer) - 1) < 0)
			_exit(1);
		close(c);
	}
	_exit(0);
}

/* A private repository: the message says it needs credentials and how to
 * give them, not libgit2's "no callback set". */
TEST(private_repository)
{
	char url[64];
	int port = 0;
	pid_t pid;

	git_env();
	pid = start_private_server(&port);
	CHECK(pid > 0);
	if (pid <= 0)
		return;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/private.git", port);
	check_bad_url(lec_test_tmpdir(), url, LEC_EAUTH,
		      "the repository asks for credentials");
	CHECK(strstr(lec_error_last(), "https://USER:TOKEN@") != NULL);
	CHECK(strstr(lec_error_last(), "callback") == NULL);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

TEST(local_directory_that_is_not_a_repository)
{
	const char *tmp;
	char repo_cache[PATH_LEN];

	git_env();
	tmp = lec_test_tmpdir();
	mirror_path(tmp, repo_cache);
	CHECK(lec_repo_cache_update(lec_test_tmpdir(), repo_cache, NULL, NULL) < 0);
	CHECK(strstr(lec_error_last(), "cannot fetch") != NULL);
	CHECK(!path_exists(repo_cache));
}

TEST(list_refs_without_mirror)
{
	const char *tmp;
	char dir[PATH_LEN];
	struct lec_repo_refs refs = { (struct lec_repo_ref *)1, 3, NULL };

	git_env();
	tmp = lec_test_tmpdir();
	snprintf(dir, sizeof(dir), "%s/none.git", tmp);
	CHECK_ERR(lec_repo_list_refs(dir, &refs), LEC_ENOTFOUND);
	CHECK(strstr(lec_error_last(), "no repo cache at") != NULL);
	CHECK(refs.items == NULL && refs.len == 0);
	CHECK_ERR(lec_repo_list_refs(NULL, &refs), LEC_EINVALID);
}

/* Resolving --------------------------------------------------------------- */

TEST(resolve_refs)
{
	const char *tmp;
	char src[PATH_LEN], repo_cache[PATH_LEN], c1[HEX_LEN + 1], c2[HEX_LEN + 1];
	struct lec_repo_refs refs = { 0 };
	char *commit = NULL;

	git_env();
	tmp = lec_test_tmpdir();
	mirror_source(tmp, src, repo_cache, &refs);
	lec_repo_refs_dispose(&refs);
	rev_parse(src, "main~1", c1);
	rev_parse(src, "main", c2);
	CHECK_OK(lec_repo_resolve(repo_cache, "main", LEC_REPO_BRANCH, &commit));
	CHECK_STR(commit, c2);
	free(commit);
	CHECK_OK(lec_repo_resolve(repo_cache, "v2.0", LEC_REPO_TAG, &commit));
	CHECK_STR(commit, c2);
	free(commit);
	CHECK_OK(lec_repo_resolve(repo_cache, "feature", LEC_REPO_BRANCH, &commit));
	CHECK_STR(commit, c1);
	free(commit);
	/* A tag version's identifier is a commit. */
	CHECK_OK(lec_repo_resolve(repo_cache, c1, LEC_REPO_TAG, &commit));
	CHECK_STR(commit, c1);
	free(commit);
	CHECK_ERR(lec_repo_resolve(repo_cache, c1, LEC_REPO_BRANCH, &commit),
		  LEC_ENOTFOUND);
	CHECK(commit == NULL);
	CHECK_ERR(lec_repo_resolve(repo_cache, "v2.0", LEC_REPO_BRANCH, &commit),
		  LEC_ENOTFOUND);
	CHECK_STR(lec_error_last(), "no branch 'v2.0' in the repo cache");
	CHECK_ERR(lec_repo_resolve(repo_cache, "nope", LEC_REPO_TAG, &commit),
		  LEC_ENOTFOUND);
	CHECK_ERR(lec_repo_resolve(repo_cache, "treetag", LEC_REPO_TAG, &commit),
		  LEC_EINVALID);
	CHECK_ERR(lec_repo_resolve(repo_cache, "a..b", LEC_REPO_BRANCH, &commit),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last(), "'a..b' is not a valid branch name");
	CHECK_ERR(lec_repo_resolve(repo_cache, "", LEC_REPO_BRANCH, &commit),
		  LEC_EINVALID);
	CHECK(commit == NULL);
}

/* Checkout ---------------------------------------------------------------- */

TEST(checkout_writes_files_modes_links)
{
	const char *tmp;
	char src[PATH_LEN], repo_cache[PATH_LEN], c2[HEX_LEN + 1], c3[HEX_LEN + 1];
	char target[PATH_LEN], path[PATH_LEN + 32], text[256];
	struct stat sb;
	ssize_t n;

	git_env();
	tmp = lec_test_tmpdir();
	make_source(tmp, src);
	/* A submodule entry (gitlink) on top. */
	SH("cd %s && git update-index --add --cacheinfo "
	   "160000,0123456789012345678901234567890123456789,sub && "
	   "git commit -q -m sub",
	   src);
	mirror_path(tmp, repo_cache);
	CHECK_OK(lec_repo_cache_update(src, repo_cache, NULL, NULL));
	rev_parse(src, "main", c3);
	rev_parse(src, "v2.0^{commit}", c2);

	snprintf(target, sizeof(target), "%s/builds/1/checkout",
		 tmp);
	CHECK_OK(lec_repo_checkout(repo_cache, c3, target, NULL, NULL));
	snprintf(path, sizeof(path), "%s/README.md", target);
	read_text(path, text, sizeof(text));
	CHECK_STR(text, "hello\nmore\n");
	CHECK(lstat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
	      (sb.st_mode & 0111) == 0);
	snprintf(path, sizeof(path), "%s/run.sh", target);
	CHECK(lstat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
	      (sb.st_mode & S_IXUSR) != 0);
	snprintf(path, sizeof(path), "%s/link", target);
	CHECK(lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode));
	n = readlink(path, text, sizeof(text) - 1);
	text[n > 0 ? n : 0] = '\0';
	CHECK_STR(text, "README.md");
	snprintf(path, sizeof(path), "%s/docs/index.md", target);
	read_text(path, text, sizeof(text));
	CHECK_STR(text, "# Docs\n");
	snprintf(path, sizeof(path), "%s/sub", target);
	CHECK(lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode));
	CHECK(rmdir(path) == 0); /* only an empty directory goes */
	snprintf(path, sizeof(path), "%s/.git", target);
	CHECK(!path_exists(path));

	/* Another commit into an existing empty directory. */
	snprintf(target, sizeof(target), "%s/empty", tmp);
	CHECK_INT(mkdir(target, 0700), 0);
	CHECK_OK(lec_repo_checkout(repo_cache, c2, target, NULL, NULL));
	snprintf(path, sizeof(path), "%s/sub", target);
	CHECK(!path_exists(path));
	snprintf(path, sizeof(path), "%s/README.md", target);
	CHECK(path_exists(path));
}

TEST(checkout_refuses_bad_input)
{
	const char *tmp;
	char src[PATH_LEN], repo_cache[PATH_LEN], c2[HEX_LEN + 1];
	char target[PATH_LEN], keep[PATH_LEN + 8];
	struct lec_repo_refs refs = { 0 };

	git_env();
	tmp = lec_test_tmpdir();
	mirror_source(tmp, src, repo_cache, &refs);
	lec_repo_refs_dispose(&refs);
	rev_parse(src, "main", c2);
	/* A target in use is refused and left as it was. */
	snprintf(target, sizeof(target), "%s/used", tmp);
	CHECK_INT(mkdir(target, 0700), 0);
	snprintf(keep, sizeof(keep), "%s/keep", target);
	SH("echo data > %s", keep);
	CHECK_ERR(lec_repo_checkout(repo_cache, c2, target, NULL, NULL), LEC_EEXISTS);
	CHECK(strstr(lec_error_last(), "is not empty") != NULL);
	CHECK(path_exists(keep));
	CHECK(!dir_has(target, "README"));
	CHECK_ERR(lec_repo_checkout(repo_cache, c2, keep, NULL, NULL), LEC_EEXISTS);

	snprintf(target, sizeof(target), "%s/new", tmp);
	CHECK_ERR(lec_repo_checkout(repo_cache, "main", target, NULL, NULL), LEC_EINVALID);
	CHECK(strstr(lec_error_last(), "is not a commit id") != NULL);
	CHECK_ERR(lec_repo_checkout(repo_cache,
				    "0000000000000000000000000000000000000001",
				    target, NULL, NULL),
		  LEC_ENOTFOUND);
	CHECK(!path_exists(target));
	CHECK_ERR(lec_repo_checkout(repo_cache, NULL, target, NULL, NULL), LEC_EINVALID);
	CHECK_ERR(lec_repo_checkout(repo_cache, c2, "", NULL, NULL), LEC_EINVALID);
	snprintf(target, sizeof(target), "%s/nothing", tmp);
	CHECK_ERR(lec_repo_checkout(target, c2, keep, NULL, NULL), LEC_ENOTFOUND);
}

/* Hostile trees ----------------------------------------------------------- */

struct raw_entry {
	const char *mode;
	const char *name;
	const char *sha; /* hex */
};

/* Write a tree object literally (no checks), as a hostile repository
 * could contain, into the bare repository git_dir; its id in out. */
static void raw_tree(const char *tmp, const char *git_dir,
		     const struct raw_entry *e, size_t n, char *out)
{
	char file[PATH_LEN];
	FILE *f;
	size_t i, j;

	snprintf(file, sizeof(file), "%s/tree.raw", tmp);
	f = fopen(file, "wb");
	if (f == NULL) {
		FAIL_AT("cannot write %s", file);
		return;
	}
	for (i = 0; i < n; i++) {
		fprintf(f, "%s %s", e[i].mode, e[i].name);
		fputc('\0', f);
		for (j = 0; j < LEC_REPO_COMMIT_HEX; j += 2) {
			unsigned int byte = 0;

			sscanf(e[i].sha + j, "%2x", &byte);
			fputc((int)byte, f);
		}
	}
	fclose(f);
	capture(out, HEX_LEN + 1,
		"git --git-dir=%s hash-object -w -t tree --literally %s",
		git_dir, file);
}

/* A commit of a hostile tree, and the checkout that must refuse it. */
static void check_hostile(const char *tmp, const char *git_dir,
			  const struct raw_entry *e, size_t n, int code,
			  const char *message)
{
	char tree[HEX_LEN + 1], commit[HEX_LEN + 1], target[PATH_LEN];

	raw_tree(tmp, git_dir, e, n, tree);
	capture(commit, sizeof(commit),
		"git --git-dir=%s commit-tree %s -m hostile", git_dir, tree);
	snprintf(target, sizeof(target), "%s/co", tmp);
	CHECK_ERR(lec_repo_checkout(git_dir, commit, target, NULL, NULL), code);
	if (strstr(lec_error_last(), message) == NULL)
		FAIL_AT("\"%s\" lacks \"%s\"", lec_error_last(), message);
	/* Whatever was written is gone again. */
	CHECK(!path_exists(target));
}

TEST(checkout_refuses_hostile_trees)
{
	const char *tmp;
	char dir[PATH_LEN], blob[HEX_LEN + 1], outside[PATH_LEN];
	char link[HEX_LEN + 1], sub[HEX_LEN + 1], victim[PATH_LEN + 8];
	struct raw_entry dotdot[] = { { "100644", "..", blob } };
	struct raw_entry dotgit[] = { { "100644", "README", blob },
				      { "40000", ".GIT", sub } };
	struct raw_entry slash[] = { { "100644", "a/b", blob } };
	struct raw_entry dot[] = { { "40000", ".", sub } };
	/* A link and a directory of one name: writing d/x must not follow
	 * the link out of the target. */
	struct raw_entry twice[] = { { "120000", "d", link },
				     { "40000", "d", sub } };
	struct raw_entry x[] = { { "100644", "x", blob } };

	git_env();
	tmp = lec_test_tmpdir();
	snprintf(dir, sizeof(dir), "%s/hostile.git", tmp);
	SH("git init -q --bare %s", dir);
	capture(blob, sizeof(blob),
		"echo data | git --git-dir=%s hash-object -w --stdin", dir);
	raw_tree(tmp, dir, x, 1, sub);
	snprintf(outside, sizeof(outside), "%s/outside", tmp);
	CHECK_INT(mkdir(outside, 0700), 0);
	capture(link, sizeof(link),
		"printf '%%s' '%s' | git --git-dir=%s hash-object -w --stdin",
		outside, dir);

	check_hostile(tmp, dir, dotdot, 1, LEC_ECORRUPT,
		      "refusing to check out '..'");
	check_hostile(tmp, dir, dotgit, 2, LEC_ECORRUPT, "'.GIT'");
	check_hostile(tmp, dir, slash, 1, LEC_ECORRUPT, "'a/b'");
	check_hostile(tmp, dir, dot, 1, LEC_ECORRUPT, "'.'");
	check_hostile(tmp, dir, twice, 2, LEC_EIO, "cannot create");
	snprintf(victim, sizeof(victim), "%s/x", outside);
	CHECK(!path_exists(victim));
}

/* git:// ------------------------------------------------------------------ */

static int free_port(void)
{
	struct sockaddr_in addr;
	socklen_t len = sizeof(addr);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = 0;

	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&addr, &len) == 0)
		port = ntohs(addr.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

static int accepts(int port)
{
	struct sockaddr_in addr;
	int fd = socket(AF_INET, SOCK_STREAM, 0), ok;

	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	addr.sin_port = htons((unsigned short)port);
	ok = fd >= 0 &&
	     connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

/* Start `git daemon` serving base on 127.0.0.1:port, in its own process
 * group so that stopping it also stops the children serving clients. */
static pid_t start_daemon(const char *base, int port)
{
	char base_arg[PATH_LEN + 16], port_arg[32];
	pid_t pid;
	int i, null;

	snprintf(base_arg, sizeof(base_arg), "--base-path=%s", base);
	snprintf(port_arg, sizeof(port_arg), "--port=%d", port);
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		null = open("/dev/null", O_RDWR);
		dup2(null, 1);
		dup2(null, 2);
		execlp("git", "git", "daemon", "--export-all", "--reuseaddr",
		       "--listen=127.0.0.1", base_arg, port_arg, (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	setpgid(pid, pid);
	for (i = 0; i < DAEMON_WAIT_STEPS && !accepts(port); i++)
		usleep(50 * 1000);
	return pid;
}

static void stop_daemon(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(-pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

TEST(mirror_over_git_protocol)
{
	const char *tmp;
	char src[PATH_LEN], base[PATH_LEN], repo_cache[PATH_LEN], url[128];
	char c2[HEX_LEN + 1], c3[HEX_LEN + 1];
	struct lec_repo_refs refs = { 0 };
	struct progress_log log = { 0 };
	int port;
	pid_t pid;

	git_env();
	tmp = lec_test_tmpdir();
	make_source(tmp, src);
	snprintf(base, sizeof(base), "%s/srv", tmp);
	SH("mkdir -p %s && git clone -q --bare %s %s/proj.git", base, src,
	   base);
	port = free_port();
	CHECK(port > 0);
	pid = start_daemon(base, port);
	CHECK(pid > 0 && accepts(port));
	mirror_path(tmp, repo_cache);
	snprintf(url, sizeof(url), "git://127.0.0.1:%d/proj.git", port);
	CHECK_OK(lec_repo_cache_update(url, repo_cache, on_progress, &log));
	CHECK(log.calls > 0);
	CHECK_OK(lec_repo_list_refs(repo_cache, &refs));
	rev_parse(src, "main", c2);
	CHECK_INT(refs.len, 5);
	check_ref(&refs, "v2.0", LEC_REPO_TAG, c2);
	check_ref(&refs, "main", LEC_REPO_BRANCH, c2);
	CHECK_STR(refs.default_branch, "main");
	lec_repo_refs_dispose(&refs);

	/* Fetch again over the wire: a new commit, a deleted branch. */
	SH("cd %s && git commit -q --allow-empty -m next && "
	   "git push -q %s/proj.git main && "
	   "git -C %s/proj.git branch -D feature",
	   src, base, base);
	rev_parse(src, "main", c3);
	CHECK_OK(lec_repo_cache_update(url, repo_cache, NULL, NULL));
	CHECK_OK(lec_repo_list_refs(repo_cache, &refs));
	check_ref(&refs, "main", LEC_REPO_BRANCH, c3);
	CHECK(find(&refs, "feature", LEC_REPO_BRANCH) == NULL);
	lec_repo_refs_dispose(&refs);

	/* A path the daemon does not serve. */
	snprintf(url, sizeof(url), "git://127.0.0.1:%d/missing.git", port);
	CHECK(lec_repo_cache_update(url, repo_cache, NULL, NULL) < 0);
	CHECK(strstr(lec_error_last(), "cannot fetch git://127.0.0.1") != NULL);
	stop_daemon(pid);
}

/* A local source is cached by copying its object files: a fetch after
 * one commit copies only that commit's loose objects; a source with
 * alternates (objects elsewhere) is fetched through libgit2 instead, and
 * both end with the source's refs. */
TEST(local_mirror_copies_only_what_is_missing)
{
	const char *tmp;
	char src[PATH_LEN], repo_cache[PATH_LEN], shared[PATH_LEN];
	char want[HEX_LEN + 1], got[HEX_LEN + 1];
	struct progress_log log = { 0 };
	struct lec_repo_refs refs = { 0 };

	git_env();
	tmp = lec_test_tmpdir();
	make_source(tmp, src);
	SH("cd %s && git gc -q", src); /* everything in one pack */
	mirror_path(tmp, repo_cache);
	CHECK_OK(lec_repo_cache_update(src, repo_cache, on_progress, &log));
	CHECK_INT(log.last.received_objects, 2); /* the pack and its index */
	SH("cd %s && printf 'three\\n' >> README.md && git commit -q -am three",
	   src);
	memset(&log, 0, sizeof(log));
	CHECK_OK(lec_repo_cache_update(src, repo_cache, on_progress, &log));
	CHECK_INT(log.last.received_objects, 3); /* commit, tree, blob */
	rev_parse(src, "main", want);
	CHECK_OK(lec_repo_list_refs(repo_cache, &refs));
	check_ref(&refs, "main", LEC_REPO_BRANCH, want);
	CHECK_STR(refs.default_branch, "main");
	lec_repo_refs_dispose(&refs);
	/* A deleted branch goes (the fetch prunes). */
	SH("cd %s && git branch -q -D feature", src);
	CHECK_OK(lec_repo_cache_update(src, repo_cache, NULL, NULL));
	CHECK_OK(lec_repo_list_refs(repo_cache, &refs));
	CHECK(find(&refs, "feature", LEC_REPO_BRANCH) == NULL);
	lec_repo_refs_dispose(&refs);

	/* git clone --shared: its objects are the source's. */
	snprintf(shared, sizeof(shared), "%s/shared", tmp);
	SH("git clone -q --shared %s %s && cd %s && printf 's\\n' > s.md && "
	   "git add s.md && git commit -q -m shared",
	   src, shared, shared);
	snprintf(repo_cache, sizeof(repo_cache), "%s/repos/shared.git", tmp);
	CHECK_OK(lec_repo_cache_update(shared, repo_cache, NULL, NULL));
	rev_parse(shared, "main", want);
	CHECK_OK(lec_repo_resolve(repo_cache, "main", LEC_REPO_BRANCH, &refs.default_branch));
	snprintf(got, sizeof(got), "%s", refs.default_branch ? refs.default_branch : "");
	CHECK_STR(got, want);
	lec_repo_refs_dispose(&refs);
}

static int count_change(enum lec_repo_change change, const char *path,
			void *payload)
{
	char *seen = payload;
	size_t n = strlen(seen);

	(void)path;
	if (n + 1 < 64) {
		seen[n] = (char)change;
		seen[n + 1] = '\0';
	}
	return 0;
}

/* Updating a checkout of one commit to another writes what a fresh
 * checkout writes, touching only what changed, and tells each change. */
TEST(checkout_update_equals_a_fresh_checkout)
{
	const char *tmp;
	char src[PATH_LEN], repo_cache[PATH_LEN], kept[PATH_LEN], fresh[PATH_LEN];
	char one[HEX_LEN + 1], two[HEX_LEN + 1], mid[HEX_LEN + 1], seen[64] = "";
	struct stat before, after;

	git_env();
	tmp = lec_test_tmpdir();
	make_source(tmp, src);
	rev_parse(src, "main", one);
	/* A file becomes a directory, a directory goes, a title changes, a
	 * paragraph changes, a link is retargeted, a file is added. */
	SH("cd %s && git rm -q run.sh && mkdir run.sh && printf x > run.sh/f && "
	   "git rm -q -r docs && printf 'Title\\n=====\\n\\nText.\\n' > a.rst && "
	   "printf 'Body\\n' > b.md && ln -sf b.md link && git add -A && "
	   "git commit -q -m move && "
	   "printf 'Title\\n=====\\n\\nOther text.\\n' > a.rst && "
	   "printf '# Heading\\nBody\\n' > b.md && printf 'new\\n' > c.txt && "
	   "git add -A && git commit -q -m edit",
	   src);
	rev_parse(src, "main", two);
	mirror_path(tmp, repo_cache);
	CHECK_OK(lec_repo_cache_update(src, repo_cache, NULL, NULL));
	snprintf(kept, sizeof(kept), "%s/kept", tmp);
	snprintf(fresh, sizeof(fresh), "%s/fresh", tmp);
	CHECK_OK(lec_repo_checkout(repo_cache, one, kept, NULL, NULL));
	CHECK(lstat(kept, &before) == 0);
	{
		char readme[PATH_LEN + 16];

		snprintf(readme, sizeof(readme), "%s/README.md", kept);
		CHECK(stat(readme, &before) == 0);
		CHECK_OK(lec_repo_checkout_update(repo_cache, one, two, kept,
						  count_change, NULL, seen));
		CHECK(stat(readme, &after) == 0);
		/* Unchanged: the same file, its time untouched. */
		CHECK(before.st_ino == after.st_ino &&
		      before.st_mtim.tv_nsec == after.st_mtim.tv_nsec &&
		      before.st_mtim.tv_sec == after.st_mtim.tv_sec);
	}
	CHECK_OK(lec_repo_checkout(repo_cache, two, fresh, NULL, NULL));
	SH("diff -r --no-dereference %s %s", kept, fresh);
	/* docs/index.md went and run.sh became a directory: D and A. */
	CHECK(strchr(seen, 'D') && strchr(seen, 'A'));
	/* From the middle commit: a.rst's outline (its title) is the same,
	 * M; b.md gained a heading, O; c.txt is new, A. */
	seen[0] = '\0';
	rev_parse(src, "main~1", mid);
	SH("rm -rf %s && true", fresh);
	CHECK_OK(lec_repo_checkout(repo_cache, mid, fresh, NULL, NULL));
	CHECK_OK(lec_repo_checkout_update(repo_cache, mid, two, fresh, count_change,
					  NULL, seen));
	CHECK_STR(seen, "MOA");
	SH("diff -r --no-dereference %s %s", kept, fresh);
	/* And back again. */
	seen[0] = '\0';
	CHECK_OK(lec_repo_checkout_update(repo_cache, two, one, kept, count_change,
					  NULL, seen));
	SH("rm -rf %s && true", fresh);
	CHECK_OK(lec_repo_checkout(repo_cache, one, fresh, NULL, NULL));
	SH("diff -r --no-dereference %s %s", kept, fresh);
}

/* The clone's .git ----------------------------------------------------------- */

/* A linear history of 55 commits on main (an annotated v1 at the third, a
 * lightweight v2 at the fortieth) and a side branch off its last but one
 * commit, cached; the commit of main's tip in tip. */
static void clone_source(const char *tmp, char *src, char *repo_cache, char *tip)
{
	snprintf(src, PATH_LEN, "%s/history", tmp);
	snprintf(repo_cache, PATH_LEN, "%s/repos/history.git", tmp);
	SH("git init -q -b main %s && cd %s && for i in $(seq 1 55); do "
	   "echo $i > f; git add f; git commit -q -m c$i; "
	   "[ $i = 3 ] && git tag -a v1 -m one; [ $i = 40 ] && git tag v2; "
	   "[ $i = 54 ] && git branch side; done; git checkout -q side && "
	   "echo s > s && git add s && git commit -q -m s && "
	   "git checkout -q main",
	   src, src);
	CHECK_OK(lec_repo_cache_update(src, repo_cache, NULL, NULL));
	rev_parse(src, "main", tip);
}

/* Whether the first line a git command prints in dir is want. */
static void check_git(const char *dir, const char *args, const char *want)
{
	char out[256];

	capture(out, sizeof(out), "git -C %s %s 2>&1", dir, args);
	CHECK_STR(out, want);
}

TEST(clone_is_the_service_clone)
{
	char tmp[PATH_LEN], src[PATH_LEN], repo_cache[PATH_LEN], tip[HEX_LEN + 1];
	char dir[PATH_LEN + 8], path[PATH_LEN + 32], text[4096], want[256];
	char boundary[HEX_LEN + 1], v1[HEX_LEN + 1];
	struct lec_repo_clone branch = { "https://reader:s3cret@example.test/"
					 "history.git",
					 LEC_REPO_FETCH_BRANCH, "main" };

	git_env();
	snprintf(tmp, sizeof(tmp), "%s", lec_test_tmpdir());
	clone_source(tmp, src, repo_cache, tip);
	snprintf(dir, sizeof(dir), "%s/main", tmp);
	CHECK_OK(lec_repo_checkout(repo_cache, tip, dir, NULL, NULL));
	CHECK_OK(lec_repo_clone_write(repo_cache, tip, dir, &branch));
	/* HEAD detached at origin/main, its last 50 commits, the tags of
	 * those, a clean tree, the URL without its credentials. */
	check_git(dir, "rev-parse HEAD", tip);
	check_git(dir, "branch", "* (HEAD detached at origin/main)");
	check_git(dir, "rev-list --count HEAD", "50");
	check_git(dir, "rev-parse --is-shallow-repository", "true");
	snprintf(want, sizeof(want), "v2-15-g%.7s", tip);
	check_git(dir, "describe --tags", want);
	check_git(dir, "tag", "v2");
	check_git(dir, "status --porcelain; echo clean", "clean");
	check_git(dir, "remote get-url origin",
		  "https://example.test/history.git");
	check_git(dir, "config remote.origin.fetch",
		  "+refs/heads/main:refs/remotes/origin/main");
	/* A few hundred objects: git's shortest abbreviation. */
	check_git(dir, "config core.abbrev", "7");
	snprintf(path, sizeof(path), "%s/.git/shallow", dir);
	read_text(path, text, sizeof(text));
	rev_parse(src, "main~49", boundary);
	snprintf(want, sizeof(want), "%s\n", boundary);
	CHECK_STR(text, want);
	snprintf(path, sizeof(path), "%s/.git/config", dir);
	read_text(path, text, sizeof(text));
	CHECK(strstr(text, "s3cret") == NULL);
	/* Pushing is refused; fetching reads the repo cache. */
	check_git(dir, "push -q origin HEAD:refs/heads/x >/dev/null 2>&1 || "
		       "echo refused",
		  "refused");
	SH("git -C %s fetch -q --unshallow", dir);
	check_git(dir, "rev-list --count HEAD", "55");
	check_git(dir, "rev-parse --is-shallow-repository", "false");
	/* A .git is never written over. */
	CHECK_ERR(lec_repo_clone_write(repo_cache, tip, dir, &branch), LEC_EEXISTS);

	/* A tag: its history whole (3 commits), main's tip of the --depth 1
	 * clone still shallow, the annotated tag peeled. */
	{
		struct lec_repo_clone tag = { "file:///x", LEC_REPO_FETCH_TAG,
					      "v1" };

		rev_parse(src, "v1^{}", v1);
		snprintf(dir, sizeof(dir), "%s/v1", tmp);
		CHECK_OK(lec_repo_checkout(repo_cache, v1, dir, NULL, NULL));
		CHECK_OK(lec_repo_clone_write(repo_cache, v1, dir, &tag));
		check_git(dir, "describe --tags", "v1");
		check_git(dir, "rev-list --count HEAD", "3");
		snprintf(path, sizeof(path), "%s/.git/shallow", dir);
		read_text(path, text, sizeof(text));
		snprintf(want, sizeof(want), "%s\n", tip);
		CHECK_STR(text, want);
		snprintf(path, sizeof(path), "%s/.git/packed-refs", dir);
		read_text(path, text, sizeof(text));
		snprintf(want, sizeof(want), " refs/tags/v1\n^%s\n", v1);
		CHECK(strstr(text, want) != NULL);
	}
	/* A pull request's head (pull/7/head:external-7): a local branch
	 * external-7 at the commit, HEAD detached at the commit itself, and
	 * the tags git follows for a refspec with a destination. */
	{
		struct lec_repo_clone pr = { "file:///x",
					     LEC_REPO_FETCH_EXTERNAL, "7" };

		snprintf(dir, sizeof(dir), "%s/pr", tmp);
		CHECK_OK(lec_repo_checkout(repo_cache, tip, dir, NULL, NULL));
		CHECK_OK(lec_repo_clone_write(repo_cache, tip, dir, &pr));
		check_git(dir, "rev-parse external-7", tip);
		snprintf(want, sizeof(want), "* (HEAD detached at %.7s)", tip);
		check_git(dir, "branch | head -1", want);
		check_git(dir, "tag", "v2");
		pr.name = "a..b";
		snprintf(dir, sizeof(dir), "%s/pr-bad", tmp);
		CHECK_OK(lec_repo_checkout(repo_cache, tip, dir, NULL, NULL));
		CHECK_ERR(lec_repo_clone_write(repo_cache, tip, dir, &pr),
			  LEC_EINVALID);
	}
	/* HEAD fetched (latest without a default branch): on main, and
	 * git follows no tag. */
	{
		struct lec_repo_clone head = { "file:///x", LEC_REPO_FETCH_HEAD,
					       NULL };

		snprintf(dir, sizeof(dir), "%s/head", tmp);
		CHECK_OK(lec_repo_checkout(repo_cache, tip, dir, NULL, NULL));
		CHECK_OK(lec_repo_clone_write(repo_cache, tip, dir, &head));
		check_git(dir, "symbolic-ref HEAD", "refs/heads/main");
		check_git(dir, "tag | wc -l", "0");
	}
}

/* A commit id no repo cache has. */
#define ABSENT_COMMIT "0123456789012345678901234567890123456789"

TEST(clone_refuses_bad_input)
{
	char tmp[PATH_LEN], src[PATH_LEN], repo_cache[PATH_LEN], tip[HEX_LEN + 1];
	char dir[PATH_LEN + 16];
	struct lec_repo_clone bad = { "file:///x", LEC_REPO_FETCH_BRANCH,
				      "a..b" };
	struct lec_repo_clone good = { "file:///x", LEC_REPO_FETCH_BRANCH,
				       "main" };

	git_env();
	snprintf(tmp, sizeof(tmp), "%s", lec_test_tmpdir());
	clone_source(tmp, src, repo_cache, tip);
	snprintf(dir, sizeof(dir), "%s/main", tmp);
	CHECK_OK(lec_repo_checkout(repo_cache, tip, dir, NULL, NULL));
	CHECK_ERR(lec_repo_clone_write(repo_cache, tip, dir, &bad), LEC_EINVALID);
	CHECK_ERR(lec_repo_clone_write("repos/history.git", tip, dir, &good),
		  LEC_EINVALID);
	CHECK_ERR(lec_repo_clone_write(repo_cache, "nope", dir, &good),
		  LEC_EINVALID);
	CHECK_ERR(lec_repo_clone_write(repo_cache, ABSENT_COMMIT, dir, &good),
		  LEC_ENOTFOUND);
	/* Nothing was written. */
	snprintf(dir, sizeof(dir), "%s/main/.git", tmp);
	CHECK(!path_exists(dir));
}

static const struct lec_test tests[] = {
	TEST_ENTRY(local_mirror_copies_only_what_is_missing),
	TEST_ENTRY(checkout_update_equals_a_fresh_checkout),
	TEST_ENTRY(redact_url),
	TEST_ENTRY(mirror_file_url),
	TEST_ENTRY(mirror_path_then_fetch_with_prune),
	TEST_ENTRY(mirror_into_empty_directory_and_refuse_other),
	TEST_ENTRY(mirror_empty_repository),
	TEST_ENTRY(progress_reports),
	TEST_ENTRY(abort_through_callback),
	TEST_ENTRY(bad_urls),
	TEST_ENTRY(private_repository),
	TEST_ENTRY(local_directory_that_is_not_a_repository),
	TEST_ENTRY(list_refs_without_mirror),
	TEST_ENTRY(resolve_refs),
	TEST_ENTRY(checkout_writes_files_modes_links),
	TEST_ENTRY(checkout_refuses_bad_input),
	TEST_ENTRY(checkout_refuses_hostile_trees),
	TEST_ENTRY(mirror_over_git_protocol),
	TEST_ENTRY(clone_is_the_service_clone),
	TEST_ENTRY(clone_refuses_bad_input),
};

LEC_TEST_MAIN(tests)
