/*
 * Offline mirrors of remote docs: a project of another instance (a second
 * Lectern, the hosted service) copied here as a read-only local project, so
 * that reading, search and embed work with no network.
 *
 * The engine never fetches anything itself: a client (`lectern mirror`)
 * downloads the remote's published HTML and hands it over through the API,
 * one page at a time (lec_mirror_stage), then publishes the version's
 * whole page list (lec_mirror_publish). Publishing goes the way a build's
 * does: the pages are sanitized as untrusted output, become the version's
 * published docs with one rename() of its link, are kept for diffs and
 * indexed for search. Each refresh is recorded as a finished build
 * triggered by "mirror". A mirror is never built and its versions are
 * never synced from a repository.
 */
#ifndef LECTERN_MIRROR_H
#define LECTERN_MIRROR_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/project.h"
#include "lectern/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pages one refresh of a version may hold: a large documentation set
 * (CPython's) has about 1,500; the page list must also fit one API
 * request body. */
#define LEC_MIRROR_PAGES_MAX 4000
/* Bytes of a page path ("a/b.html"). */
#define LEC_MIRROR_PATH_MAX 1024
/* Bytes of each name in it: the file system's NAME_MAX, as pages are
 * files here. */
#define LEC_MIRROR_NAME_MAX 255
/* Bytes of one entity tag kept for incremental refreshes. */
#define LEC_MIRROR_ETAG_MAX 256

/* What a new mirror copies. Strings borrowed. */
struct lec_mirror_new {
	const char *source;   /* the remote's API URL, http(s)://host[:port] */
	const char *project;  /* the project's slug there */
	const char *name;     /* its name there: the local project's name */
	const char *language; /* its language there; NULL: "en" */
};

/**
 * Find the local mirror of (source, project), or create it: a project
 * named in->name (its slug follows, as for an import), owned by user_id,
 * marked as a mirror and never built.
 * @param created set to 1 when it was created (may be NULL)
 * @param out the project (owned by caller, lec_project_free)
 * @return LEC_OK; LEC_EINVALID (a field: "source", "project", "name",
 *         "language"); LEC_EEXISTS (field "name": a project that is not this
 *         mirror holds the slug); LEC_ENOMEM
 */
int lec_mirror_ensure(struct lec_store *store, const struct lec_mirror_new *in,
		      int64_t user_id, struct lec_project **out, int *created);

/**
 * Stage one page of a mirror's next refresh of a version (replacing a page
 * staged before under the same path).
 * @param data_dir the engine's data directory
 * @param path the page's path below the version's root: relative, ending
 *        in ".html", without "..", backslashes or control characters, at
 *        most LEC_MIRROR_PATH_MAX bytes and LEC_MIRROR_NAME_MAX a name
 * @return LEC_OK; LEC_EINVALID (field "path"; the version slug);
 *         LEC_ELIMIT (over LEC_PAGE_HTML_MAX bytes); LEC_EIO; LEC_ENOMEM
 */
int lec_mirror_stage(const char *data_dir, const struct lec_project *mirror,
		     const char *version, const char *path, const void *data,
		     size_t len);

/* One page of a refresh: where it is, and its remote entity tag ("" when
 * the remote gave none). */
struct lec_mirror_page {
	const char *path;
	const char *etag;
};

/* What a refresh did. */
struct lec_mirror_report {
	int64_t build_id;   /* the build recording it */
	size_t uploaded;    /* pages staged for it */
	size_t unchanged;   /* pages kept from the previous refresh */
	size_t indexed;     /* pages indexed for search */
};

/**
 * Publish a refresh of a mirror's version: exactly the pages listed, each
 * the one staged for it or else (not modified at the remote) the one the
 * version serves now. The version is created (active) when missing; the
 * staging area is emptied once it is published (a failed publish leaves
 * it for another try).
 * @param keep outputs kept per version for diffs (0: the default)
 * @return LEC_OK; LEC_EINVALID (not a mirror; no pages or more than
 *         LEC_MIRROR_PAGES_MAX; a bad path or etag; field "pages" names a
 *         page neither staged nor served now); LEC_EIO; LEC_ENOMEM
 */
int lec_mirror_publish(struct lec_store *store, const char *data_dir,
		       const struct lec_project *mirror, const char *version,
		       const struct lec_mirror_page *pages, size_t n,
		       unsigned keep, struct lec_mirror_report *report);

/**
 * The entity tags of the pages a mirror's version serves, as the JSON
 * object {"<path>": "<etag>", ...} its last refresh listed.
 * @param json owned by the caller (free with lec_mirror_free_string); "{}"
 *        when the version was never refreshed
 * @return LEC_OK; LEC_EINVALID; LEC_ENOMEM
 */
int lec_mirror_etags(const char *data_dir, const struct lec_project *mirror,
		     const char *version, char **json);

/** Free a string from lec_mirror_etags. Accepts NULL. */
void lec_mirror_free_string(char *s);

#ifdef __cplusplus
}
#endif
#endif
