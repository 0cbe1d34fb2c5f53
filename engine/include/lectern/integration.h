/*
 * A project's integrations (incoming webhooks) and what their deliveries
 * do, as the hosted service has them: a GitHub, GitLab, Bitbucket or
 * generic ("API") webhook holds a secret that the forge signs its
 * deliveries with (or sends back as a token); a push builds the active
 * versions of the pushed branch or tag; a branch or tag created or deleted
 * syncs the project's versions.
 *
 * A secret is generated (or given) at creation, shown to the caller once,
 * and stored sealed (AES-256-GCM under the data directory's key, bound to
 * the integration's project); nothing reads it back but the verification
 * calls here, which compare in constant time.
 */
#ifndef LECTERN_INTEGRATION_H
#define LECTERN_INTEGRATION_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/errors.h"
#include "lectern/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Characters of a generated secret (letters and digits, like the
 * service's): 190 bits, far past guessing. */
#define LEC_INTEGRATION_SECRET_LEN 32
/* Longest secret a caller may give. */
#define LEC_INTEGRATION_SECRET_MAX 255
/* Most refs one delivery may name: a push names one, a generic webhook a
 * short list of branches; more is not a delivery but an attack. */
#define LEC_INTEGRATION_REFS_MAX 64

enum lec_integration_type {
	LEC_INTEGRATION_GITHUB,
	LEC_INTEGRATION_GITLAB,
	LEC_INTEGRATION_BITBUCKET,
	LEC_INTEGRATION_API /* the generic webhook */
};

struct lec_integration {
	int64_t id;
	int64_t project_id;
	enum lec_integration_type type;
	int64_t created; /* microseconds since the epoch, UTC */
	/* Commit statuses (commit_status.h): whether it holds a forge token
	 * (sealed, never read back but to send a status), and the forge's
	 * API base URL; NULL: the public forge's. */
	int has_token;
	char *api_url;
	/* The repository on the forge its last delivery named (GitHub's
	 * "owner/name", GitLab's project id), for the statuses of branch
	 * builds; NULL: none yet. */
	char *forge_repo;
};

LEC_PAGE_LIST(lec_integration);

/** The service's name of a type: "github_webhook", "gitlab_webhook",
 * "bitbucket_webhook", "api_webhook". */
const char *lec_integration_type_code(enum lec_integration_type type);

/** The type named code. @return LEC_OK; LEC_EINVALID (field
 * "integration_type") */
int lec_integration_type_lookup(const char *code,
				enum lec_integration_type *out);

/**
 * Create an integration of a project.
 * @param secret     the secret to use, or NULL to generate one
 * @param out        the new integration (owned by caller), or NULL
 * @param secret_out when secret is NULL and this is not: the generated
 *                   secret, owned by the caller (free() after wiping): the
 *                   only time anyone sees it
 * @return LEC_OK; LEC_ENOTFOUND (no such project); LEC_EINVALID (field
 *         "secret": empty, too long or not printable ASCII)
 */
int lec_integration_create(struct lec_store *store, int64_t project_id,
			   enum lec_integration_type type, const char *secret,
			   struct lec_integration **out, char **secret_out);

/* Longest forge token and API base URL: GitHub's and GitLab's tokens are
 * far shorter; an API URL is a base, not a query. */
#define LEC_INTEGRATION_TOKEN_MAX 255
#define LEC_INTEGRATION_API_URL_MAX 600

/**
 * Give an integration (GitHub or GitLab) the token commit statuses are
 * sent with, sealed like its secret, and the forge's API base URL
 * ("https://github.example.com/api/v3" for GitHub Enterprise, a
 * self-hosted GitLab's root); NULL api_url: the public forge's.
 * @param token the token; NULL removes it (and statuses stop)
 * @return LEC_OK; LEC_ENOTFOUND; LEC_EINVALID (field "token": empty, too
 *         long or not printable ASCII; "api_url": not an http(s) URL;
 *         "integration_type": a Bitbucket or generic integration)
 */
int lec_integration_set_token(struct lec_store *store, int64_t project_id,
			      int64_t id, const char *token,
			      const char *api_url);

/** Record the repository a delivery to the integration named (at most
 * LEC_INTEGRATION_API_URL_MAX printable characters; others are ignored).
 * @return LEC_OK; store errors */
int lec_integration_set_forge_repo(struct lec_store *store, int64_t id,
				   const char *repo);

/** A project's integrations, oldest first. @param out dispose with
 * lec_integration_list_dispose */
int lec_integration_list(struct lec_store *store, int64_t project_id,
			 const struct lec_page *page,
			 struct lec_integration_list *out);

/** One of a project's integrations. @return LEC_OK or LEC_ENOTFOUND */
int lec_integration_get(struct lec_store *store, int64_t project_id,
			int64_t id, struct lec_integration **out);

/** A project's oldest integration of a type (a forge's deliveries name no
 * integration). @return LEC_OK or LEC_ENOTFOUND */
int lec_integration_find(struct lec_store *store, int64_t project_id,
			 enum lec_integration_type type,
			 struct lec_integration **out);

/** Delete one of a project's integrations. @return LEC_OK or
 * LEC_ENOTFOUND */
int lec_integration_delete(struct lec_store *store, int64_t project_id,
			   int64_t id);

void lec_integration_free(struct lec_integration *integration);
void lec_integration_list_dispose(struct lec_integration_list *list);

/**
 * Check a delivery signed with the integration's secret: signature is
 * "sha256=" and the hex HMAC-SHA256 of body (GitHub's X-Hub-Signature-256,
 * Bitbucket's X-Hub-Signature). Constant time.
 * @return LEC_OK when it matches; LEC_EAUTH when it does not (or is
 *         missing); LEC_ECORRUPT (the secret cannot be opened)
 */
int lec_integration_verify_signature(struct lec_store *store,
				     const struct lec_integration *integration,
				     const void *body, size_t len,
				     const char *signature);

/**
 * Check a token sent back as it is (GitLab's X-Gitlab-Token, a generic
 * webhook's "token"). Constant time.
 * @return LEC_OK; LEC_EAUTH; LEC_ECORRUPT
 */
int lec_integration_verify_token(struct lec_store *store,
				 const struct lec_integration *integration,
				 const char *token);

/* A branch or tag a delivery names. */
enum lec_integration_ref_type {
	LEC_INTEGRATION_REF_BRANCH,
	LEC_INTEGRATION_REF_TAG,
	LEC_INTEGRATION_REF_ANY /* a generic webhook's "branches" */
};

struct lec_integration_ref {
	const char *name;
	enum lec_integration_ref_type type;
	const char *commit; /* where the ref now points, or NULL: unknown */
};

/* What a push did: the slugs of the versions it builds. */
struct lec_integration_builds {
	char **slugs; /* len strings, owned */
	size_t len;
};

/**
 * Build the project's active versions that follow these refs (a branch by
 * its name, a tag by its name). A version keeps its newest unfinished
 * build instead of getting a new one when that build will build the ref's
 * commit anyway: it is still queued (a replayed delivery builds nothing
 * twice), it checked out that very commit, or it was triggered at or after
 * since_us and has not checked out yet (a person who commits, then asks for
 * a build). Otherwise a new build supersedes it. Inactive versions are
 * skipped.
 * @param since_us when the refs changed (microseconds since the epoch),
 *                 or 0 when unknown
 * @param how      what started the builds (lec_build.triggered_by)
 * @param out the versions built; dispose with
 *            lec_integration_builds_dispose
 * @return LEC_OK; LEC_EINVALID (more than LEC_INTEGRATION_REFS_MAX refs);
 *         store errors
 */
int lec_integration_build_refs(struct lec_store *store, int64_t project_id,
			       const struct lec_integration_ref *refs,
			       size_t n, int64_t since_us, const char *how,
			       struct lec_integration_builds *out);

void lec_integration_builds_dispose(struct lec_integration_builds *builds);

#ifdef __cplusplus
}
#endif
#endif
