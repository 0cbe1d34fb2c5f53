/*
 * Commit statuses: a build reported back to its forge, as
 * the service's send_build_status does (readthedocs/oauth/services/
 * github.py, gitlab.py): "pending" when the build starts, "success" or
 * "failure" when it ends, with the build's page as the target (the
 * preview's URL once it passed), through the forge's API: GitHub's POST
 * /repos/{owner}/{repo}/statuses/{sha}, GitLab's POST
 * /api/v4/projects/{id}/statuses/{sha}. They go with the token the
 * project's integration of that forge holds (lec_integration_set_token),
 * to its API base URL or the public forge's.
 *
 * The engine knows nothing of HTTP: a build event queues a status with its
 * URL and body rendered then; the server's sender (beside the outgoing
 * webhooks') takes due ones, posts them and records each outcome, which
 * schedules retries with a doubling backoff, as webhook deliveries are;
 * after LEC_COMMIT_STATUS_ATTEMPTS_MAX the status is failed, and shown so
 * on the build. A forge that is down never touches the build itself.
 */
#ifndef LECTERN_COMMIT_STATUS_H
#define LECTERN_COMMIT_STATUS_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/integration.h"
#include "lectern/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tries of one status: the first and four retries, as a webhook's. */
#define LEC_COMMIT_STATUS_ATTEMPTS_MAX 5
/* Finished statuses kept per integration, newest first: a build sends two
 * (pending, then its result), so the last hundred builds still show theirs,
 * bounded so a busy forge's pushes cannot grow the store. */
#define LEC_COMMIT_STATUSES_KEPT 200

enum lec_commit_status_state {
	LEC_COMMIT_STATUS_PENDING,
	LEC_COMMIT_STATUS_SUCCESS,
	LEC_COMMIT_STATUS_FAILURE
};

enum lec_commit_status_delivery {
	LEC_COMMIT_STATUS_QUEUED,    /* not sent yet, or to be tried again */
	LEC_COMMIT_STATUS_DELIVERED, /* the forge answered 2xx */
	LEC_COMMIT_STATUS_FAILED     /* every try failed */
};

struct lec_commit_status {
	int64_t id;
	int64_t build_id;
	enum lec_commit_status_state state;
	char *target_url;
	enum lec_commit_status_delivery delivery;
	int attempts;
	int status_code; /* the last answer's; 0: none */
	char *error;     /* why the last try failed, or NULL */
	int64_t created;
	int64_t modified;
};

struct lec_commit_status_list {
	struct lec_commit_status *items; /* owned */
	size_t len;
};

/* One due status, for the sender. */
struct lec_commit_status_outgoing {
	int64_t id;
	enum lec_integration_type forge;
	char *url;
	char *body;
	size_t body_len;
	char *token; /* wiped by the dispose */
	size_t token_len;
	int attempt; /* 1 for the first try */
};

/* The hosts a status's target URL names. */
struct lec_commit_status_site {
	const char *production_domain; /* the dashboard's host[:port] */
	const char *external_domain;   /* NULL: "external.localhost" */
	const char *docs_domain;       /* NULL: "localhost" */
};

/** "pending", "success", "failure" (the state sent is the forge's). */
const char *lec_commit_status_state_code(enum lec_commit_status_state s);
/** "queued", "delivered", "failed". */
const char *lec_commit_status_delivery_code(
	enum lec_commit_status_delivery d);

/**
 * Queue the status of a build: a pull request's build whose forge's
 * integration holds a token, and whose request named its repository on
 * the forge; or a branch or tag's build whose commit is known, when the
 * project's GitHub (else GitLab) integration holds a token and has learnt
 * the repository from a delivery (the status then links to the version's
 * docs); otherwise nothing.
 * @return LEC_OK (also when nothing is queued); LEC_ENOTFOUND (no build)
 */
int lec_commit_status_queue(struct lec_store *store, int64_t build_id,
			    enum lec_commit_status_state state,
			    const struct lec_commit_status_site *site);

/** A build's statuses, oldest first. Dispose with
 * lec_commit_status_list_dispose. */
int lec_commit_status_list(struct lec_store *store, int64_t build_id,
			   struct lec_commit_status_list *out);

/**
 * Take a status due at now_us, the oldest of its build's still queued (a
 * build's statuses reach the forge in order), with its token opened. Its
 * next try is put off lease_ms, so a sender that dies mid-try leaves it
 * to be tried again.
 * @param out release with lec_commit_status_outgoing_dispose
 * @return LEC_OK; LEC_ENOTFOUND when none is due; LEC_ECORRUPT (the
 *         token does not open: the status is failed)
 */
int lec_commit_status_next(struct lec_store *store, int64_t now_us,
			   unsigned lease_ms,
			   struct lec_commit_status_outgoing *out);

/**
 * Record how a try went: 2xx delivers it; anything else (status_code 0:
 * no answer, error saying why) schedules the next try backoff_ms *
 * 2^(attempt-1) later, or fails it after the last.
 */
int lec_commit_status_done(struct lec_store *store, int64_t id,
			   int status_code, const char *error,
			   unsigned backoff_ms);

void lec_commit_status_list_dispose(struct lec_commit_status_list *list);
void lec_commit_status_outgoing_dispose(
	struct lec_commit_status_outgoing *out);

#ifdef __cplusplus
}
#endif
#endif
