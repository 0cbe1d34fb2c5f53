/*
 * A project's user redirects: validation with the service's messages,
 * normalisation on save, and the ordered positions the serving code walks.
 *
 * Types. Every spelling of the contract and of today's service is accepted
 * and stored as given (the API returns the stored spelling):
 *
 *   stored type                    semantics                legacy (§7.4)
 *   prefix                         prefix                   yes
 *   page                           page                     no (§7.3)
 *   exact                          exact                    only with $rest
 *   clean_url_to_html              clean URL -> .html       no
 *   docgen_html, sphinx_html       clean URL -> .html       yes
 *   html_to_clean_url              .html -> clean URL       no
 *   docgen_htmldir, sphinx_htmldir .html -> clean URL       yes
 *
 * lec_redirect_semantics_of() gives the row of this table for a stored
 * redirect. page and exact are spelled the same in both worlds; they follow
 * the current semantics (`*` wildcard, `:splat`). The one exception keeps
 * old clients' redirects working: an exact redirect whose from_url ends in
 * `$rest` is a legacy exact redirect (the part before `$rest` is a prefix
 * that to_url replaces, §7.4). A page redirect ending in `$rest` is refused
 * with the service's message. Whatever the spelling, the serving code tries
 * redirects in list order: position ascending, then newest first.
 *
 * Validation (field errors use lec_error_last_field(); business rules have
 * no field, so the API shows them as a bare list):
 *   type missing -> "type": "This field is required."; unknown ->
 *     "type": "\"<x>\" is not a valid choice."
 *   from_url not given (NULL) for prefix/page/exact, to_url for page/exact
 *     -> that field: "This field is required." (as in the service, "" is a
 *     value, normalised below)
 *   http_status not 301/302 -> "http_status": "\"303\" is not a valid
 *     choice."; position < 0 -> "position": "Ensure this value is greater
 *     than or equal to 0."
 *   creating the 101st redirect -> LEC_ELIMIT (no field)
 *   page/exact: from_url ending in $rest (page only, see above), a `*` that
 *     is not last, `:splat` in to_url without a trailing `*` in from_url ->
 *     LEC_EINVALID (no field)
 *   a second clean-URL-to-html (or html-to-clean-URL) redirect, whatever
 *     the spelling -> LEC_EINVALID (no field), naming the current type
 * The wildcard rules are checked on the normalised URLs, so what is stored
 * always satisfies them.
 *
 * Normalisation on save (§7.3): page/exact from_url loses trailing slashes
 * and gets exactly one leading slash ("/docs/" -> "/docs", "" -> "/");
 * to_url is kept when it starts with http:// or https://, else gets exactly
 * one leading slash. A from_url ending in `*` (or, for legacy exact, in
 * `$rest`) has the part before it stored in from_url_without_rest. prefix
 * gets one leading slash but keeps its trailing slash (a literal prefix:
 * "/dev/" must not match "/developer"); its optional to_url is normalised
 * like page's when given. The clean-URL types store empty from/to URLs.
 *
 * Positions (the service's projects/ordering.py): creating clamps the
 * position to [0, count] and shifts redirects at >= position down by one
 * (so the default 0 inserts at the top); moving clamps to [0, count - 1]
 * and shifts the redirects in between; deleting shifts later ones up. Each
 * change runs in one write transaction.
 */
#ifndef LECTERN_REDIRECT_H
#define LECTERN_REDIRECT_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The community service's per-project limit (RTD_DEFAULT_FEATURES). */
#define LEC_REDIRECT_MAX_PER_PROJECT 100
/* The service's default status: temporary, so a mistake is not cached. */
#define LEC_REDIRECT_DEFAULT_STATUS 302

enum lec_redirect_kind {
	LEC_REDIRECT_PREFIX = 1,
	LEC_REDIRECT_PAGE,
	LEC_REDIRECT_EXACT,
	LEC_REDIRECT_CLEAN_URL_TO_HTML,
	LEC_REDIRECT_HTML_TO_CLEAN_URL
};

struct lec_redirect_semantics {
	enum lec_redirect_kind kind;
	int legacy; /* non-zero: behaviour notes §7.4; zero: §7.3 */
};

struct lec_redirect {
	int64_t id;
	int64_t project_id;
	char *type; /* the spelling stored */
	char *from_url; /* normalised; "" for the clean-URL types */
	char *to_url; /* normalised; "" for the clean-URL types */
	char *from_url_without_rest; /* wildcard prefix, or NULL */
	int http_status; /* 301 or 302 */
	int enabled;
	int force; /* also applied before serving an existing page */
	char *description;
	int64_t position;
	int64_t created; /* microseconds since the epoch, UTC */
	int64_t modified;
};

LEC_PAGE_LIST(lec_redirect);

/*
 * The fields of a create or an update. NULL strings and has_* == 0 mean
 * "not given": on create the default (enabled, not forced, status 302,
 * description "", position 0; type is required), on update the stored
 * value (so one struct serves PUT and PATCH: the API layer makes PUT
 * require type). The strings are borrowed. A NULL patch gives nothing.
 */
struct lec_redirect_patch {
	const char *type;
	const char *from_url;
	const char *to_url;
	const char *description;
	int has_http_status;
	int http_status;
	int has_enabled;
	int enabled;
	int has_force;
	int force;
	int has_position;
	int64_t position;
};

/**
 * What a redirect of a stored type does (see the table above).
 * @param type     a stored type spelling
 * @param from_url its from_url (decides legacy exact); may be NULL
 * @return LEC_OK, or LEC_EINVALID for a type that is no known spelling
 */
int lec_redirect_semantics_of(const char *type, const char *from_url,
			      struct lec_redirect_semantics *out);

/**
 * Create a redirect.
 * @param out the new redirect (owned by caller, lec_redirect_free), or NULL
 * @return LEC_OK; LEC_EINVALID (validation, see above); LEC_ELIMIT;
 *         LEC_ENOTFOUND (no such project)
 */
int lec_redirect_create(struct lec_store *store, int64_t project_id,
			const struct lec_redirect_patch *fields,
			struct lec_redirect **out);

/**
 * A redirect of a project.
 * @param out owned by caller (lec_redirect_free)
 * @return LEC_OK or LEC_ENOTFOUND (no such id in this project)
 */
int lec_redirect_get(struct lec_store *store, int64_t project_id, int64_t id,
		     struct lec_redirect **out);

/**
 * A project's redirects by position ascending, then newest first.
 * @param page NULL for all
 * @param out  filled; release with lec_redirect_list_dispose
 */
int lec_redirect_list(struct lec_store *store, int64_t project_id,
		      const struct lec_page *page,
		      struct lec_redirect_list *out);

/**
 * The enabled redirects of a project in the order the serving code tries
 * them (the list order). out->total is out->len.
 */
int lec_redirect_list_enabled(struct lec_store *store, int64_t project_id,
			      struct lec_redirect_list *out);

/**
 * Change the given fields of a redirect; the result is validated and
 * normalised as on create (no limit check), and a given position moves it.
 * @param out the updated redirect (owned by caller), or NULL
 * @return as lec_redirect_create, LEC_ENOTFOUND for no such redirect
 */
int lec_redirect_update(struct lec_store *store, int64_t project_id,
			int64_t id, const struct lec_redirect_patch *patch,
			struct lec_redirect **out);

/** Delete a redirect, closing the gap in positions. */
int lec_redirect_delete(struct lec_store *store, int64_t project_id,
			int64_t id);

/* Matching (redirect_match.c) ---------------------------------------------- */

/*
 * What the serving code knows about a request when it looks for a user
 * redirect. Strings are borrowed; paths are decoded, without the query.
 */
struct lec_redirect_request {
	const char *path;         /* from the domain root: "/en/latest/a.html" */
	const char *filename;     /* inside the version: "/a.html"; "" when no
				     version was resolved (only exact and
				     prefix redirects can match then) */
	const char *version_root; /* URL of the version's root without the
				     trailing '/': "/en/latest", "/latest",
				     "/projects/sub/en/latest", "" */
	const char *origin;       /* current scheme and host, no trailing '/':
				     "http://docs.localhost:8000" */
	const char *query;        /* the request's query without '?', or "" */
	int forced_only;          /* only force=1 redirects (an existing page) */
};

/* Where a matching redirect sends the client. */
struct lec_redirect_target {
	char *url;        /* absolute URL for Location; owned (dispose) */
	int status;       /* 301 or 302 */
	int64_t redirect_id;
};

/**
 * The redirect of list (in list order: position, then newest) that applies
 * to a request, and the absolute URL it sends the client to: behaviour
 * notes §7.3 for today's types, §7.4 for the legacy ones. A target that is
 * not an absolute http(s) URL is put on req->origin, so no redirect can
 * leave the current host unless its to_url says so; the request's query
 * comes first, then the target's. A redirect whose URL would be the
 * current host and path (a loop) gives no target; after such a match a
 * current-semantics redirect ends the search (as the service does), a
 * legacy one lets later redirects be tried.
 * @param req every string required (NULL: LEC_EINVALID)
 * @param out filled on LEC_OK; release with lec_redirect_target_dispose
 * @return LEC_OK; LEC_ENOTFOUND when no redirect applies; LEC_EINVALID;
 *         LEC_ENOMEM
 */
int lec_redirect_match(const struct lec_redirect_list *list,
		       const struct lec_redirect_request *req,
		       struct lec_redirect_target *out);

/** Free what a target holds. Accepts NULL. */
void lec_redirect_target_dispose(struct lec_redirect_target *target);

/** Free a redirect. Accepts NULL. */
void lec_redirect_free(struct lec_redirect *redirect);
/** Free what a list holds (not the list struct). Accepts NULL. */
void lec_redirect_list_dispose(struct lec_redirect_list *list);

#ifdef __cplusplus
}
#endif
#endif
