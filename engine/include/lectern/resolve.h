/*
 * Where a project's documentation lives on the docs domain: the service's
 * resolver (behaviour notes §7.1). A subproject is served under its
 * parent's domain at /projects/<alias>/, a translation under its main
 * project's domain, and the versioning scheme decides whether the path
 * carries the language and the version.
 */
#ifndef LECTERN_RESOLVE_H
#define LECTERN_RESOLVE_H

#include "lectern/project.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The documentation URL of a project's version, e.g.
 * "http://docs.localhost:8000/en/latest/".
 * @param docs_domain the public domain documentation is served on
 *                    ("localhost:8000"); projects are its subdomains
 * @return the URL, owned by the caller (free()); NULL when out of memory
 */
char *lec_resolve_docs_url(const struct lec_project *project,
			   const char *version_slug, const char *docs_domain);

/**
 * The host of a project's documentation: the project's slug (its parent's
 * for a subproject, its main project's for a translation) with '_' as '-',
 * then the docs domain. Owned by the caller (free()).
 */
char *lec_resolve_docs_host(const struct lec_project *project,
			    const char *docs_domain);

/**
 * The URL of a pull request's version on its own host,
 * "<project>--<version>.<external domain>" (the service's resolver for
 * external versions; the host's project part as lec_resolve_docs_host's),
 * e.g. "http://guide--7.external.localhost:8000/en/7/".
 * @return owned by the caller (free()); NULL when out of memory
 */
char *lec_resolve_external_url(const struct lec_project *project,
			       const char *version_slug,
			       const char *external_domain);

#ifdef __cplusplus
}
#endif
#endif
