/*
 * `lectern check [DIR] [--new-only] [--json] [--cache DIR]`: what a writer
 * runs before `git push` and a CI job runs on every change. The working
 * tree is built once the way `lectern preview` builds it (the engine's
 * preview: the pipeline's generator choice, no server, nothing fetched,
 * its cache reused so a second check is incremental), and its warnings
 * and broken links are printed as "file:line: kind: message", the form
 * editors and CI parse. It exits 1 when there is any (or the build
 * failed), 0 when there is none. What the hosted service refuses and
 * Lectern builds anyway (a tree without .readthedocs.yaml) is said on
 * stderr, "check: the hosted service refuses this: <its message>", and in
 * --json's service_refuses; it does not count.
 *
 * --new-only prints only what the current context's last successful
 * build of the same project and version did not have: the project is the
 * one built from the tree's repository, found by its identity (the tree
 * itself, imported from a local directory; then its remotes, origin
 * first: a local one as the server tells one repository's URLs apart, a
 * forge's in any of its forms), the version the one of the tree's branch,
 * else "latest" (what the default branch builds as). Records match as the
 * engine matches a build with the last good one: kind, file and message,
 * whatever the line. What it compared with is said: the project and
 * the build.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cmd.h"
#include "lectern/errors.h"
#include "lectern/preview.h"
#include "warnings.h"

/* Bytes of git's answer read (a remote URL, a branch name, the list of
 * remotes). */
#define GIT_ANSWER_MAX 16384
/* URLs of a tree's repository tried: itself and its remotes. */
#define CHECK_URLS_MAX 16

extern char **environ;

/* The output's end, kept for a failed build's message. */
static void on_output(void *payload, const char *data, size_t len)
{
	cli_log_tail_add(payload, data, len);
}

/* A line of the log that is one of the records (printed on stdout): a
 * record's message ends it. Short messages could end many lines. */
#define SEEN_MESSAGE_MIN 12

static int is_record(const char *line, size_t len, const void *payload)
{
	const struct lec_warning_set *set = payload;
	size_t i, n;

	while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' '))
		len--;
	for (i = 0; i < set->len; i++) {
		n = strlen(set->items[i].message);
		if (n >= SEEN_MESSAGE_MIN && n <= len &&
		    memcmp(line + len - n, set->items[i].message, n) == 0)
			return 1;
	}
	return 0;
}

static int copy_set(const struct lec_warning_set *from,
		    struct lec_warning_set *to)
{
	size_t i;

	for (i = 0; i < from->len; i++)
		if (lec_warning_set_add(to, from->items[i].kind,
					from->items[i].file, from->items[i].line,
					from->items[i].message) < 0)
			return -1;
	to->dropped = from->dropped;
	return 0;
}

/* Git ------------------------------------------------------------------------- */

static void free_argv(char **argv)
{
	size_t i;

	for (i = 0; argv[i]; i++)
		free(argv[i]);
}

/* `git -C dir <args>`'s output (at most GIT_ANSWER_MAX bytes), or NULL
 * (no git, not a repository, no such remote, nothing said). Owned. */
static char *git_output(const char *dir, const char *a, const char *b,
			const char *c)
{
	const char *args[] = { "git", "-C", dir, a, b, c };
	char *argv[sizeof(args) / sizeof(args[0]) + 1] = { NULL };
	posix_spawn_file_actions_t fa;
	char buf[GIT_ANSWER_MAX + 1];
	size_t got = 0, i;
	size_t nargs = sizeof(args) / sizeof(args[0]);
	int pipefd[2], status = -1;
	pid_t pid;

	/* The arguments end at the first NULL. */
	while (nargs > 0 && args[nargs - 1] == NULL)
		nargs--;
	for (i = 0; i < nargs; i++)
		if ((argv[i] = strdup(args[i])) == NULL)
			break;
	if (i < nargs || pipe2(pipefd, O_CLOEXEC) < 0) {
		free_argv(argv);
		return NULL;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "git", &fa, NULL, argv, environ) != 0)
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	while (pid > 0 && got < GIT_ANSWER_MAX) {
		ssize_t n = read(pipefd[0], buf + got, GIT_ANSWER_MAX - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(pipefd[0]);
	free_argv(argv);
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	if (pid <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return NULL;
	buf[got] = '\0';
	return buf[0] ? strdup(buf) : NULL;
}

/* Its first line. */
static char *git_line(const char *dir, const char *a, const char *b,
		      const char *c)
{
	char *out = git_output(dir, a, b, c);

	if (out)
		out[strcspn(out, "\r\n")] = '\0';
	if (out && out[0] == '\0') {
		free(out);
		out = NULL;
	}
	return out;
}

/* The URLs that may name the tree's repository, in the order they are
 * tried: the tree's own place (a project imported from the directory
 * itself), then its remotes' URLs, origin's first. */
struct tree_urls {
	char *items[CHECK_URLS_MAX];
	size_t len;
};

static void urls_add(struct tree_urls *u, char *url)
{
	size_t i;

	for (i = 0; url && i < u->len; i++)
		if (strcmp(u->items[i], url) == 0)
			break;
	if (url && i == u->len && u->len < CHECK_URLS_MAX)
		u->items[u->len++] = url;
	else
		free(url);
}

static void tree_urls(const char *tree, struct tree_urls *u)
{
	char *top = git_line(tree, "rev-parse", "--show-toplevel", NULL);
	char *remotes = git_output(tree, "config", "--get-regexp",
				   "^remote\\..*\\.url$");
	char *line, *next;

	if (top) {
		size_t n = strlen(top) + sizeof("file://");
		char *url = malloc(n);

		if (url)
			snprintf(url, n, "file://%s", top);
		urls_add(u, url);
	}
	urls_add(u, git_line(tree, "remote", "get-url", "origin"));
	for (line = remotes; line && *line; line = next) {
		char *sp;

		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if ((sp = strchr(line, ' ')) != NULL && sp[1])
			urls_add(u, strdup(sp + 1));
	}
	free(top);
	free(remotes);
}

static void tree_urls_dispose(struct tree_urls *u)
{
	while (u->len > 0)
		free(u->items[--u->len]);
}

/* A local repository's URL (file://, an absolute path): only the
 * server can tell which of its projects are built from the same one. */
static int local_url(const char *url)
{
	return strncmp(url, "file://", 7) == 0 || url[0] == '/';
}

/* A repository URL in one comparable form: "host/owner/repo" for the
 * forges' https, ssh and scp-like forms (no user, no ".git", no trailing
 * slash), a path for file:// and local paths. Owned. */
static char *repo_key(const char *url)
{
	const char *s = url, *at, *colon, *slash;
	char *out;
	size_t n;

	if (strncmp(s, "file://", 7) == 0) {
		s += 7;
	} else if (strstr(s, "://")) {
		s = strstr(s, "://") + 3;
		slash = strchr(s, '/');
		at = strchr(s, '@');
		if (at && (!slash || at < slash))
			s = at + 1;
	} else if ((colon = strchr(s, ':')) != NULL &&
		   ((slash = strchr(s, '/')) == NULL || colon < slash)) {
		/* scp-like: [user@]host:path */
		at = strchr(s, '@');
		if (at && at < colon)
			s = at + 1;
	}
	if ((out = strdup(s)) == NULL)
		return NULL;
	/* host:path → host/path; a port's colon too (never compared). */
	if (s[0] != '/' && (colon = strchr(out, ':')) != NULL)
		out[colon - out] = '/';
	n = strlen(out);
	while (n > 0 && out[n - 1] == '/')
		out[--n] = '\0';
	if (n > 4 && strcasecmp(out + n - 4, ".git") == 0)
		out[n -= 4] = '\0';
	while (n > 0 && out[n - 1] == '/')
		out[--n] = '\0';
	return out;
}

/* The server side ---------------------------------------------------------- */

struct baseline {
	char *project;
	char *version;
	long long build;
};

static void baseline_dispose(struct baseline *b)
{
	free(b->project);
	free(b->version);
}

/* The project of the context built from the repository url names: for a
 * local one the server's answer to ?repository= (Lectern's; a server
 * that ignores it lists projects that are not local), else the one whose
 * repository.url is a form of the same forge URL. */
static int find_project(struct cli_session *s, const char *url,
			struct baseline *b)
{
	struct lc_query q = { 0 };
	struct lc_iter *it = NULL;
	struct lc_error err;
	const cJSON *item;
	int local = local_url(url), rc = 0;
	char *want = local ? NULL : repo_key(url);

	if ((!local && want == NULL) ||
	    (local && lc_query_add(&q, "repository", url) != LC_OK)) {
		free(want);
		lc_query_dispose(&q);
		return cli_fail("out of memory");
	}
	if (lc_iter_new(&it, s->client, "/api/v3/projects/", local ? &q : NULL,
			&err) != LC_OK) {
		free(want);
		lc_query_dispose(&q);
		return cli_fail_client(&err);
	}
	while (b->project == NULL && (rc = lc_iter_next(it, &item, &err)) == 1) {
		const char *theirs = cli_json_str(
			cJSON_GetObjectItemCaseSensitive(item, "repository"),
			"url");
		char *key = local ? NULL : repo_key(theirs);

		if (local ? strncmp(theirs, "file:", 5) == 0
			  : key && strcmp(key, want) == 0)
			b->project = strdup(cli_json_str(item, "slug"));
		free(key);
	}
	lc_iter_free(it);
	lc_query_dispose(&q);
	free(want);
	return rc < 0 ? cli_fail_client(&err) : CLI_EXIT_OK;
}

/* What find_version seeks: the version of a branch (NULL: none is). */
struct branch_version {
	const char *branch;
	char *slug; /* found: its slug, caller frees */
};

static int of_branch(const cJSON *item, void *arg)
{
	struct branch_version *want = arg;

	if (want->branch == NULL ||
	    strcmp(cli_json_str(item, "verbose_name"), want->branch) != 0)
		return 0;
	want->slug = strdup(cli_json_str(item, "slug"));
	return 1;
}

/* The version of branch: its own, else "latest" (the default branch's). */
static int find_version(struct cli_session *s, const char *branch,
			struct baseline *b)
{
	struct branch_version want = { branch, NULL };
	struct lc_error err;

	if (cli_find_item(s, &err, of_branch, &want,
			  "/api/v3/projects/%s/versions/", b->project) < 0)
		return cli_fail_client(&err);
	b->version = want.slug ? want.slug : strdup("latest");
	return b->version ? CLI_EXIT_OK : cli_fail("out of memory");
}

/* A build that passed: its id into *(long long *)id. */
static int passed(const cJSON *item, void *id)
{
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(item, "success")))
		return 0;
	*(long long *)id = (long long)cJSON_GetNumberValue(
		cJSON_GetObjectItemCaseSensitive(item, "id"));
	return 1;
}

/* The version's newest passed build. */
static int find_build(struct cli_session *s, struct baseline *b)
{
	struct lc_error err;

	b->build = -1;
	if (cli_find_item(s, &err, passed, &b->build,
			  "/api/v3/projects/%s/versions/%s/builds/",
			  b->project, b->version) < 0)
		return cli_fail_client(&err);
	return CLI_EXIT_OK;
}

/* Mark each record of set new or not against the baseline build's. What
 * cannot be found is said on stderr, and every record stays new. */
static int compare_with_context(struct cli_ctx *ctx, const char *tree,
				struct lec_warning_set *set, char *about,
				size_t cap)
{
	struct cli_session s = { 0 };
	struct cli_warning_list theirs = { 0 };
	struct baseline b = { 0 };
	struct tree_urls urls = { .len = 0 };
	char *branch = git_line(tree, "rev-parse", "--abbrev-ref", "HEAD");
	unsigned char *used = NULL;
	size_t i, j;
	int status = CLI_EXIT_OK;

	for (i = 0; i < set->len; i++)
		set->items[i].is_new = 1;
	snprintf(about, cap, "no build to compare with");
	tree_urls(tree, &urls);
	if (urls.len == 0) {
		cli_print(stderr, "lectern: check: %s is not in a git "
			  "repository: every warning counts as new\n", tree);
		goto done;
	}
	if ((status = cli_session_open(ctx, &s)) != CLI_EXIT_OK)
		goto done;
	for (i = 0; i < urls.len && b.project == NULL; i++)
		if ((status = find_project(&s, urls.items[i], &b)) !=
		    CLI_EXIT_OK)
			goto done;
	if (b.project == NULL) {
		cli_print(stderr, "lectern: check: no project of this context "
			  "is built from %s or its remotes: every warning "
			  "counts as new\n", tree);
		goto done;
	}
	if ((status = find_version(&s, branch, &b)) != CLI_EXIT_OK ||
	    (status = find_build(&s, &b)) != CLI_EXIT_OK)
		goto done;
	/* The default branch's own version is seldom built: "latest" is. */
	if (b.build < 0 && strcmp(b.version, "latest") != 0) {
		free(b.version);
		if ((b.version = strdup("latest")) == NULL ||
		    (status = find_build(&s, &b)) != CLI_EXIT_OK)
			goto done;
	}
	if (b.build < 0) {
		cli_print(stderr,
			  "lectern: check: %s/%s has no successful build: "
			  "every warning counts as new\n", b.project,
			  b.version);
		goto done;
	}
	if ((status = cli_build_warnings(&s, b.project, b.build, 0, &theirs)) !=
	    CLI_EXIT_OK)
		goto done;
	snprintf(about, cap, "%s build #%lld, version %s", b.project, b.build,
		 b.version);
	used = calloc(theirs.len + 1, 1);
	for (i = 0; used && i < set->len; i++) {
		struct lec_warning *w = &set->items[i];

		for (j = 0; j < theirs.len && w->is_new; j++)
			if (!used[j] &&
			    strcmp(theirs.items[j]->kind,
				   lec_warning_kind_code(w->kind)) == 0 &&
			    strcmp(theirs.items[j]->file, w->file) == 0 &&
			    lec_warning_message_equal(theirs.items[j]->message,
						      w->message)) {
				used[j] = 1;
				w->is_new = 0;
			}
	}
done:
	free(used);
	cli_warning_list_dispose(&theirs);
	baseline_dispose(&b);
	if (s.client)
		cli_session_close(&s);
	tree_urls_dispose(&urls);
	free(branch);
	return status;
}

/* Output ------------------------------------------------------------------- */

static int print_json(const struct lec_warning_set *set, int new_only,
		      int built, const char *about, const char *refuses)
{
	cJSON *o = cJSON_CreateObject(), *list;
	size_t i, n = 0;
	int status;

	list = cJSON_CreateArray();
	for (i = 0; list && i < set->len; i++) {
		const struct lec_warning *w = &set->items[i];
		cJSON *r;

		if (new_only && !w->is_new)
			continue;
		r = cJSON_CreateObject();
		cJSON_AddItemToArray(list, r);
		cJSON_AddStringToObject(r, "file", w->file);
		cJSON_AddStringToObject(r, "kind", lec_warning_kind_code(w->kind));
		cJSON_AddNumberToObject(r, "line", w->line);
		cJSON_AddStringToObject(r, "message", w->message);
		cJSON_AddBoolToObject(r, "new", w->is_new);
		n++;
	}
	if (o == NULL || list == NULL) {
		cJSON_Delete(o);
		cJSON_Delete(list);
		return cli_fail("out of memory");
	}
	/* Keys in sorted order, as every Lectern JSON body. */
	cJSON_AddBoolToObject(o, "built", built);
	if (about)
		cJSON_AddStringToObject(o, "compared_with", about);
	else
		cJSON_AddNullToObject(o, "compared_with");
	cJSON_AddNumberToObject(o, "count", (double)n);
	cJSON_AddNumberToObject(o, "dropped", (double)set->dropped);
	cJSON_AddItemToObject(o, "results", list);
	if (refuses)
		cJSON_AddStringToObject(o, "service_refuses", refuses);
	else
		cJSON_AddNullToObject(o, "service_refuses");
	status = cli_print_json(o);
	cJSON_Delete(o);
	return status;
}

int cli_cmd_check(struct cli_ctx *ctx, int argc, char **argv)
{
	struct lec_preview_options popts = LEC_PREVIEW_OPTIONS_INIT;
	struct cli_log_tail run = { .len = 0 };
	struct lec_preview_callbacks cb = { NULL, on_output, NULL, &run };
	struct lec_preview *pv = NULL;
	struct lec_warning_set own = { 0 }, *set;
	const char *cache = NULL;
	char *pos[1], about[256] = "", error[1024], python[PATH_MAX];
	int new_only = 0, json = 0, n, status, built;
	size_t i, shown = 0;
	const struct cli_opt opts[] = { { "--new-only", NULL, &new_only },
					{ "--json", NULL, &json },
					{ "--cache", &cache, NULL },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_args("check", argc, argv, opts, pos, 0, 1,
				     &n)) != CLI_EXIT_OK)
		return status;
	popts.cache_dir = cache;
	if (cli_writer_python(python, sizeof(python)))
		popts.python = python;
	if (lec_preview_open(&pv, n ? pos[0] : ".", &popts) < 0)
		return cli_fail_engine("check: cannot build");
	built = lec_preview_build(pv, &cb, NULL) == LEC_OK;
	/* The error, then what of the output's end says more: not the
	 * error again, nor the records printed below. */
	if (!built) {
		snprintf(error, sizeof(error), "%s", lec_error_last());
		cli_print(stderr, "lectern: check: the build failed: %s\n",
			  error);
		cli_print_log_end(stderr, &run, error, is_record,
				  lec_preview_warnings(pv));
	}
	lec_preview_prune(pv);
	/* A copy of the engine's, marked against the context's build, or all
	 * new for this run. */
	set = &own;
	if (copy_set(lec_preview_warnings(pv), set) < 0) {
		status = cli_fail("out of memory");
		goto done;
	}
	if (new_only)
		status = compare_with_context(ctx, lec_preview_tree(pv), set,
					      about, sizeof(about));
	else
		for (i = 0; i < set->len; i++)
			set->items[i].is_new = 1;
	if (status != CLI_EXIT_OK)
		goto done;
	if (json) {
		status = print_json(set, new_only, built, new_only ? about : NULL,
				    lec_preview_service_refuses(pv));
	} else {
		/* Said, not counted: Lectern builds such a tree on purpose. */
		if (lec_preview_service_refuses(pv))
			cli_print(stderr, "check: %s\n",
				  lec_preview_service_refuses(pv));
		for (i = 0; i < set->len && status == CLI_EXIT_OK; i++) {
			if (new_only && !set->items[i].is_new)
				continue;
			status = cli_print_engine_record(stdout, &set->items[i]);
			shown++;
		}
		fflush(stdout);
		if (set->dropped)
			cli_print(stderr, "lectern: check: %zu more not kept\n",
				  set->dropped);
		if (new_only)
			cli_print(stderr,
				  "check: %zu new warning%s (compared with %s)\n",
				  shown, shown == 1 ? "" : "s", about);
	}
	if (json)
		for (i = 0; i < set->len; i++)
			shown += !new_only || set->items[i].is_new;
	if (status == CLI_EXIT_OK && (!built || shown > 0 ||
				      (!new_only && set->dropped > 0)))
		status = CLI_EXIT_FAIL;
done:
	lec_warning_set_dispose(&own);
	lec_preview_free(pv);
	return status;
}
