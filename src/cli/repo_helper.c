/*
 * `lectern __repo fetch DIR [REQUEST_REF]`, `lectern __repo checkout MIRROR COMMIT DIR`,
 * `lectern __repo clone MIRROR COMMIT DIR FROM REF` and `lectern __repo
 * submodules MIRROR COMMIT`: the build pipeline's git work, run as a child inside the build sandbox. libgit2 1.5 has no transport timeouts (a stalled server never
 * calls back), so the pipeline runs the fetch as a process it can kill at
 * the build's deadline; the checkout runs the same way so that every phase
 * of a build is inside its time limit and libgit2 reads a hostile
 * repository's objects without the server's rights.
 *
 * Not a user command (absent from --help). The repository URL comes in the
 * environment (LECTERN_REPO_URL): it may carry credentials, and an argv is
 * visible to every user of the machine. Progress goes to stdout as lines
 *     progress PHASE DONE TOTAL BYTES
 * (PHASE receiving, resolving or checkout; TOTAL 0 when unknown), at most
 * REPO_HELPER_PROGRESS_HZ a second and once more at each phase's end; a
 * failure ends with one line "error: MESSAGE" and exit status 1.
 * `checkout` writes a commit's files (a submodule's). `clone` makes a
 * build's checkout: the files (FROM "-"), or an update of a kept checkout
 * of commit FROM, which prints one line per path it changed,
 *     change C PATH
 * with C one of lec_repo_change's letters (A, D, M, O, X); then the .git
 * of the service's clone (lec_repo_clone_write), whose origin is
 * LECTERN_REPO_URL (credentials removed) and whose refs follow REF, what
 * the service fetched: "branch:NAME", "tag:NAME", "external:SLUG" (a pull
 * request's head), "commit" or "head".
 * `submodules` prints one line per submodule of the commit's .gitmodules,
 *     submodule {"commit": ..., "name": ..., "path": ..., "url": ...}
 * because reading that file may open what an [include] names: only here,
 * in the sandbox, is there nothing of the host to open.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "lectern/errors.h"
#include "lectern/repo.h"

/* Progress lines a second: enough for a live bar, few enough that a
 * repository of any size writes a few KB of them a minute. */
#define REPO_HELPER_PROGRESS_HZ 4

struct reporter {
	const char *phase;
	size_t done, total, bytes;
	long long last_ms;
	int pending; /* a change not printed yet */
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void report_print(struct reporter *r)
{
	printf("progress %s %zu %zu %zu\n", r->phase, r->done, r->total,
	       r->bytes);
	fflush(stdout);
	r->pending = 0;
	r->last_ms = now_ms();
}

/* Record where we are; print when the phase changes or it is time. */
static void report(struct reporter *r, const char *phase, size_t done,
		   size_t total, size_t bytes)
{
	if (r->phase && strcmp(r->phase, phase) != 0 && r->pending)
		report_print(r); /* the previous phase's last state */
	if (r->phase == NULL || strcmp(r->phase, phase) != 0)
		r->last_ms = 0;
	r->phase = phase;
	r->done = done;
	r->total = total;
	r->bytes = bytes;
	r->pending = 1;
	if (now_ms() - r->last_ms >= 1000 / REPO_HELPER_PROGRESS_HZ)
		report_print(r);
}

static int on_fetch(const struct lec_repo_progress *p, void *payload)
{
	struct reporter *r = payload;

	if (p->total_objects > 0 && p->received_objects == p->total_objects &&
	    p->total_deltas > 0)
		report(r, "resolving", p->indexed_deltas, p->total_deltas,
		       p->received_bytes);
	else
		report(r, "receiving", p->received_objects, p->total_objects,
		       p->received_bytes);
	return 0;
}

static int on_checkout(const struct lec_repo_progress *p, void *payload)
{
	report(payload, "checkout", p->received_objects, 0, 0);
	return 0;
}

static int helper_fail(void)
{
	printf("error: %s\n", lec_error_last());
	fflush(stdout);
	return CLI_EXIT_FAIL;
}

static int on_change(enum lec_repo_change change, const char *path,
		     void *payload)
{
	(void)payload;
	printf("change %c %s\n", (char)change, path);
	return 0;
}

/* REF of `clone` as what the service fetched; -1 when it is none. */
static int parse_fetched(const char *ref, struct lec_repo_clone *c)
{
	if (strncmp(ref, "branch:", 7) == 0) {
		c->kind = LEC_REPO_FETCH_BRANCH;
		c->name = ref + 7;
	} else if (strncmp(ref, "tag:", 4) == 0) {
		c->kind = LEC_REPO_FETCH_TAG;
		c->name = ref + 4;
	} else if (strncmp(ref, "external:", 9) == 0) {
		c->kind = LEC_REPO_FETCH_EXTERNAL;
		c->name = ref + 9;
	} else if (strcmp(ref, "commit") == 0) {
		c->kind = LEC_REPO_FETCH_COMMIT;
	} else if (strcmp(ref, "head") == 0) {
		c->kind = LEC_REPO_FETCH_HEAD;
	} else {
		return -1;
	}
	return 0;
}

/* `clone MIRROR COMMIT DIR FROM REF`: the files, then the .git. */
static int clone_checkout(char **argv, const struct lec_repo_clone *c,
			  struct reporter *r)
{
	int rc;

	if (strcmp(argv[4], "-") == 0)
		rc = lec_repo_checkout(argv[1], argv[2], argv[3], on_checkout,
				       r);
	else
		rc = lec_repo_checkout_update(argv[1], argv[4], argv[2], argv[3],
					      on_change, NULL, r);
	return rc < 0 ? rc : lec_repo_clone_write(argv[1], argv[2], argv[3], c);
}

/* One "submodule {...}" line per submodule. */
static int print_submodules(const char *repo_cache, const char *commit)
{
	struct lec_repo_submodules subs;
	size_t i;
	int rc = lec_repo_submodules(repo_cache, commit, &subs);

	for (i = 0; rc == LEC_OK && i < subs.len; i++) {
		const struct lec_repo_submodule *s = &subs.items[i];
		cJSON *o = cJSON_CreateObject();
		char *text = NULL;

		if (o && cJSON_AddStringToObject(o, "commit", s->commit) &&
		    cJSON_AddStringToObject(o, "name", s->name) &&
		    cJSON_AddStringToObject(o, "path", s->path) &&
		    cJSON_AddStringToObject(o, "url", s->url))
			text = cJSON_PrintUnformatted(o);
		if (text)
			printf("submodule %s\n", text);
		else
			rc = LEC_ENOMEM;
		cJSON_free(text);
		cJSON_Delete(o);
	}
	lec_repo_submodules_dispose(&subs);
	fflush(stdout);
	return rc;
}

int cli_repo_helper(int argc, char **argv)
{
	struct reporter r = { 0 };
	const char *url = getenv("LECTERN_REPO_URL");
	struct lec_repo_clone fetched = { url, LEC_REPO_FETCH_COMMIT, NULL };
	int rc;

	if ((argc == 2 || argc == 3) && strcmp(argv[0], "fetch") == 0 && url)
		rc = lec_repo_cache_update_ref(url, argv[1], argc == 3 ? argv[2] : NULL,
					 on_fetch, &r);
	else if (argc == 4 && strcmp(argv[0], "checkout") == 0)
		rc = lec_repo_checkout(argv[1], argv[2], argv[3], on_checkout,
				       &r);
	else if (argc == 6 && strcmp(argv[0], "clone") == 0 && url &&
		 parse_fetched(argv[5], &fetched) == 0)
		rc = clone_checkout(argv, &fetched, &r);
	else if (argc == 3 && strcmp(argv[0], "submodules") == 0)
		rc = print_submodules(argv[1], argv[2]);
	else {
		fprintf(stderr, "usage: lectern __repo fetch DIR [REQUEST_REF] "
				"(URL in LECTERN_REPO_URL) | checkout MIRROR COMMIT "
				"DIR | clone MIRROR COMMIT DIR FROM|- "
				"branch:NAME|tag:NAME|external:SLUG|commit|head (URL in "
				"LECTERN_REPO_URL) | submodules MIRROR "
				"COMMIT\n");
		return CLI_EXIT_USAGE;
	}
	if (rc < 0)
		return helper_fail();
	if (r.pending)
		report_print(&r);
	return CLI_EXIT_OK;
}
