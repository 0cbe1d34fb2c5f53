/*
 * A documentation URL taken apart the way the docs server reads its own
 * requests (docs_url.c): the host names the project, the path a
 * subproject, the language (a translation), the version and the file per
 * the project's versioning scheme. The embed APIs and the addons'
 * /_/addons/ read the URLs they are asked about with it; each then
 * decides what the requester may see of the version it names.
 */
#ifndef LECTERN_SRV_DOCS_URL_H
#define LECTERN_SRV_DOCS_URL_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/project.h"
#include "lectern/version.h"
#include "handler.h"

/* Longest host name taken from a URL (DNS's limit plus a port). */
#define SRV_DOCS_HOST_MAX 300

/* What a docs URL names. */
struct srv_docs_url {
	int64_t viewer; /* who is asking (a user id, LEC_VIEWER_ANONYMOUS):
			   set by the caller before reading */
	struct lec_project *project; /* one the requester may see */
	struct lec_version *version; /* as stored, whoever may read it;
					NULL when none is named */
	char *rel;      /* the file below the version's root, as written */
	char *fragment; /* the URL's fragment, or NULL */
};

/* The project of a slug (as written, then with '-' as '_' the way host
 * names spell underscores), if the requester may see it: LEC_OK, or
 * LEC_ENOTFOUND for one that does not exist and one they may not see
 * alike. *out owned by the caller. */
int srv_docs_project_load(struct srv_request *req, int64_t viewer,
			  const char *slug, struct lec_project **out);

/* Split an absolute URL into its host[:port] (host: SRV_DOCS_HOST_MAX
 * bytes), the path that follows (up to '?' or '#') and its fragment; -1
 * when it has no scheme or host (Python's urlparse finding no scheme or
 * netloc). */
int srv_docs_url_split(const char *url, char *host, const char **path,
		       size_t *path_len, const char **fragment);

/* Percent-decode a URL path; NULL for what could leave the published
 * tree or is malformed: an encoded '/', '\' or control character, a bad
 * escape, or a "." / ".." segment. Owned by the caller. */
char *srv_docs_url_decode(const char *raw, size_t n);

/* Read url into out (zeroed by the caller but for its viewer; dispose
 * it): LEC_OK when it names a project the viewer may see and a version of
 * it; LEC_ENOTFOUND when it does not, with out->project set when the host
 * (or the path's subproject or language) named one: a partial match, as
 * the service's unresolver reports it. */
int srv_docs_url_read(struct srv_request *req, const char *url,
		      struct srv_docs_url *out);

/* Accepts NULL. */
void srv_docs_url_dispose(struct srv_docs_url *u);

#endif
