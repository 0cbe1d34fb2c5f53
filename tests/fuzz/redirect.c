/*
 * Fuzz target: the redirect matcher (engine/src/redirect_match.c), which
 * picks a project's redirect for a request and builds the Location URL.
 *
 * Input, one field per line: the request as the docs server resolves it
 * (path from the root, filename in the version or "", version root or
 * "", query, and "f" for a request of an existing page, which only forced
 * redirects apply to; other shapes are skipped), then up to REDIRECTS_MAX
 * redirects of four lines each (type, from_url, to_url, and flags: "f"
 * force, "p" permanent 301, "d" disabled). Redirects must be as the store
 * keeps them (redirect.h, "Normalisation on save"), or the input is
 * skipped: URLs with exactly one leading '/' (a to_url may be absolute
 * instead), no trailing '/' on a page or exact from_url, none on the
 * clean-URL types; the wildcard prefix is derived from from_url as saving
 * does. Besides the sanitizers, the matcher's safety rules are checked: a
 * Location leaves the current origin only when a redirect's to_url is
 * itself an absolute http(s) URL, and it carries no space or control
 * character (a decoded request path can hold CR or LF, which would end
 * the header).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lectern/errors.h"
#include "lectern/redirect.h"

#define ORIGIN "http://docs.localhost:8000"
#define REQUEST_FIELDS 5
#define REDIRECT_FIELDS 4
#define REDIRECTS_MAX ((FUZZ_FIELDS_MAX - REQUEST_FIELDS) / REDIRECT_FIELDS)
#define WILDCARD "*"
#define LEGACY_REST "$rest"
/* What a header value cannot carry as is (NUL ends the string anyway). */
#define URL_FORBIDDEN                                                        \
	"\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10"      \
	"\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x20\x7f"

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int is_absolute(const char *url)
{
	return strncmp(url, "http://", 7) == 0 ||
	       strncmp(url, "https://", 8) == 0;
}

/* One leading '/' and not two: what normalisation leaves of a path. */
static int is_path(const char *url)
{
	return url[0] == '/' && url[1] != '/';
}

/* Whether the request is one the docs server can make (redirect.h,
 * struct lec_redirect_request): its paths start at a root. */
static int server_shaped(const struct lec_redirect_request *rq)
{
	return rq->path[0] == '/' &&
	       (!*rq->filename || rq->filename[0] == '/') &&
	       (!*rq->version_root || is_path(rq->version_root));
}

/* Whether from and to are as saving a redirect of this kind stores them. */
static int stored_form(const char *type, const char *from, const char *to)
{
	struct lec_redirect_semantics sem;

	if (lec_redirect_semantics_of(type, from, &sem) < 0)
		return 0;
	switch (sem.kind) {
	case LEC_REDIRECT_PREFIX:
		return is_path(from) && (!*to || is_absolute(to) || is_path(to));
	case LEC_REDIRECT_PAGE:
	case LEC_REDIRECT_EXACT:
		return is_path(from) && (strcmp(from, "/") == 0 ||
					 !ends_with(from, "/")) &&
		       (is_absolute(to) || is_path(to));
	case LEC_REDIRECT_CLEAN_URL_TO_HTML:
	case LEC_REDIRECT_HTML_TO_CLEAN_URL:
		return !*from && !*to;
	}
	return 0;
}

/* from_url_without_rest as saving sets it: the part before a trailing
 * "*" of a page or exact redirect, or before a legacy exact's "$rest". */
static char *wildcard_prefix(const char *type, const char *from)
{
	struct lec_redirect_semantics sem;
	size_t n = strlen(from);

	if (lec_redirect_semantics_of(type, from, &sem) < 0 ||
	    (sem.kind != LEC_REDIRECT_PAGE && sem.kind != LEC_REDIRECT_EXACT))
		return NULL;
	if (ends_with(from, WILDCARD))
		return strndup(from, n - strlen(WILDCARD));
	if (sem.legacy && ends_with(from, LEGACY_REST))
		return strndup(from, n - strlen(LEGACY_REST));
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_fields f;
	struct lec_redirect items[REDIRECTS_MAX];
	struct lec_redirect_list list = { items, 0, 0 };
	struct lec_redirect_request rq;
	struct lec_redirect_target out;
	size_t i, any_absolute = 0;

	fuzz_fields_split(&f, data, size);
	memset(items, 0, sizeof(items));
	rq.path = f.at[0];
	rq.filename = f.at[1];
	rq.version_root = f.at[2];
	rq.query = f.at[3];
	rq.forced_only = strchr(f.at[4], 'f') != NULL;
	rq.origin = ORIGIN;
	if (!server_shaped(&rq))
		goto done;
	for (i = REQUEST_FIELDS; i + REDIRECT_FIELDS <= f.n;
	     i += REDIRECT_FIELDS) {
		struct lec_redirect *r = &items[list.len];
		const char *flags = f.at[i + 3];

		if (!stored_form(f.at[i], f.at[i + 1], f.at[i + 2]))
			goto done;
		r->id = (int64_t)list.len + 1;
		r->type = f.at[i];
		r->from_url = f.at[i + 1];
		r->to_url = f.at[i + 2];
		r->from_url_without_rest = wildcard_prefix(r->type, r->from_url);
		r->force = strchr(flags, 'f') != NULL;
		r->http_status = strchr(flags, 'p') ? 301 : 302;
		r->enabled = strchr(flags, 'd') == NULL;
		any_absolute |= r->enabled && is_absolute(r->to_url);
		list.len++;
	}
	if (lec_redirect_match(&list, &rq, &out) == LEC_OK) {
		FUZZ_CHECK(out.url != NULL, "a match gives a URL");
		FUZZ_CHECK(out.status == 301 || out.status == 302,
			   "the status is 301 or 302");
		FUZZ_CHECK(strncmp(out.url, ORIGIN "/", strlen(ORIGIN "/")) == 0 ||
				   any_absolute,
			   "a Location stays on the origin unless a to_url "
			   "is absolute");
		FUZZ_CHECK(strcspn(out.url, URL_FORBIDDEN) == strlen(out.url),
			   "no space or control character in a Location");
		lec_redirect_target_dispose(&out);
	}
done:
	for (i = 0; i < list.len; i++)
		free(items[i].from_url_without_rest);
	fuzz_fields_dispose(&f);
	return 0;
}
