/*
 * Applying a project's user redirects to one request: which redirect
 * matches (behaviour notes §7.3 for today's types, §7.4 for the contract's
 * legacy ones, as the decision table asks) and the absolute URL it sends
 * the client to. No HTTP and no database here: the serving code hands in
 * the enabled redirects in list order and what it resolved about the
 * request, and gets a Location and a status back, so every rule is unit
 * tested without a server.
 *
 * Safety rules live here too, so no caller can forget them: a target that
 * is not an absolute http(s) URL is put on the current scheme and host
 * (a to_url or :splat that produced "//evil.com" cannot leave the site),
 * a target equal to the current host and path is no redirect (loop), and
 * spaces and control characters are percent-encoded (a :splat comes from
 * the decoded request path, where a CR or LF would end the header).
 */
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "lectern/redirect.h"

#define INDEX_SUFFIX "/index.html"
#define HTML_SUFFIX ".html"
#define SPLAT ":splat"

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int is_absolute(const char *url)
{
	return starts_with(url, "http://") || starts_with(url, "https://");
}

/* "/" and "/index.html": the version root, which only page and exact
 * redirects (and legacy prefix ones, which look at the full path) may
 * redirect. */
static int is_root_file(const char *filename)
{
	return strcmp(filename, "/") == 0 ||
	       strcmp(filename, INDEX_SUFFIX) == 0;
}

/* Which kinds of redirect a filename can trigger (§7.3 "considered only
 * when"). */
static int applicable(enum lec_redirect_kind kind, const char *filename)
{
	if (kind == LEC_REDIRECT_EXACT || kind == LEC_REDIRECT_PREFIX)
		return 1;
	if (filename[0] == '\0')
		return 0;
	if (kind == LEC_REDIRECT_PAGE)
		return 1;
	if (is_root_file(filename))
		return 0;
	if (kind == LEC_REDIRECT_CLEAN_URL_TO_HTML)
		return ends_with(filename, "/") ||
		       ends_with(filename, INDEX_SUFFIX);
	return ends_with(filename, HTML_SUFFIX) &&
	       !ends_with(filename, INDEX_SUFFIX);
}

/* A page or exact redirect's from_url against subject: equality after
 * trailing slashes are stripped (the root stays "/"), or, for a wildcard,
 * a prefix match whose remainder (the splat) is returned. NULL: no match. */
static const char *match_url(const struct lec_redirect *r,
			     const char *subject)
{
	size_t n = strlen(subject);

	if (r->from_url_without_rest)
		return starts_with(subject, r->from_url_without_rest)
			       ? subject + strlen(r->from_url_without_rest)
			       : NULL;
	while (n > 1 && subject[n - 1] == '/')
		n--;
	return strlen(r->from_url) == n && strncmp(r->from_url, subject, n) == 0
		       ? subject + strlen(subject)
		       : NULL;
}

/* The service's wildcard loop guard: a redirect from "/dev/<anything>"
 * to "/dev/new/:splat" would redirect its own target forever. */
static int wildcard_loops(const struct lec_redirect *r, const char *subject)
{
	const char *at = strstr(r->to_url, SPLAT);
	char *before;
	int loops;

	if (r->from_url_without_rest == NULL || at == NULL)
		return 0;
	before = lec__strndup(r->to_url, (size_t)(at - r->to_url));
	if (before == NULL)
		return 0;
	loops = starts_with(before, r->from_url_without_rest) &&
		starts_with(subject, before);
	lec__free(before);
	return loops;
}

/* to_url with every ":splat" replaced by splat. */
static void put_splatted(struct lec__buf *b, const char *to, const char *splat)
{
	const char *at;

	while ((at = strstr(to, SPLAT)) != NULL) {
		lec__buf_printf(b, "%.*s%s", (int)(at - to), to, splat);
		to = at + strlen(SPLAT);
	}
	lec__buf_puts(b, to);
}

/* A file path resolved in the current version ("/x.html" ->
 * "/en/latest/x.html"). */
static void put_in_version(struct lec__buf *b,
			   const struct lec_redirect_request *rq,
			   const char *file, size_t n)
{
	while (n > 0 && *file == '/') {
		file++;
		n--;
	}
	lec__buf_printf(b, "%s/%.*s", rq->version_root, (int)n, file);
}

/*
 * The target of redirect r (before the origin and query are applied) in
 * *out. Returns 1 when r matched (*out NULL when it yields no target: the
 * wildcard loop guard), 0 when it did not, LEC_ENOMEM.
 */
static int raw_target(const struct lec_redirect *r,
		      const struct lec_redirect_semantics *sem,
		      const struct lec_redirect_request *rq, char **out)
{
	struct lec__buf b = LEC__BUF_INIT;
	const char *fn = rq->filename, *subject, *splat;
	size_t n = strlen(fn);

	*out = NULL;
	switch (sem->kind) {
	case LEC_REDIRECT_PREFIX:
		if (!starts_with(rq->path, r->from_url))
			return 0;
		splat = rq->path + strlen(r->from_url);
		put_in_version(&b, rq, splat, strlen(splat));
		break;
	case LEC_REDIRECT_CLEAN_URL_TO_HTML:
		n -= ends_with(fn, "/") ? 1 : strlen(INDEX_SUFFIX);
		put_in_version(&b, rq, fn, n);
		lec__buf_puts(&b, HTML_SUFFIX);
		break;
	case LEC_REDIRECT_HTML_TO_CLEAN_URL:
		put_in_version(&b, rq, fn, n - strlen(HTML_SUFFIX));
		lec__buf_puts(&b, "/");
		break;
	case LEC_REDIRECT_PAGE:
	case LEC_REDIRECT_EXACT:
		subject = sem->kind == LEC_REDIRECT_PAGE ? fn : rq->path;
		if ((splat = match_url(r, subject)) == NULL)
			return 0;
		if (sem->legacy) {
			/* Legacy exact with $rest: to_url replaces the prefix. */
			lec__buf_printf(&b, "%s%s", r->to_url, splat);
			break;
		}
		if (wildcard_loops(r, subject))
			return 1;
		if (sem->kind == LEC_REDIRECT_PAGE && !is_absolute(r->to_url))
			lec__buf_puts(&b, rq->version_root);
		put_splatted(&b, r->to_url, splat);
		break;
	}
	*out = lec__buf_take(&b);
	return *out ? 1 : lec__error_oom();
}

/* The host of an absolute URL ("http://a.b:1/x" -> "a.b:1"), n bytes. */
static const char *url_host(const char *url, size_t *n)
{
	const char *host = strstr(url, "://");

	host = host ? host + 3 : url;
	*n = strcspn(host, "/?#");
	return host;
}

/* Whether the URL base (no query or fragment) names the request itself. */
static int is_current(const char *base, size_t n,
		      const struct lec_redirect_request *rq)
{
	size_t hn, on;
	const char *host = url_host(base, &hn);
	const char *origin = url_host(rq->origin, &on);
	const char *path = host + hn;
	size_t pn = n - (size_t)(path - base);

	if (hn != on || strncasecmp(host, origin, hn) != 0)
		return 0;
	if (pn == 0)
		return strcmp(rq->path, "/") == 0;
	return strlen(rq->path) == pn && strncmp(rq->path, path, pn) == 0;
}

/* url with each space and control character percent-encoded, as a
 * header value must carry it; NULL when out of memory. */
static char *header_safe(const char *url)
{
	struct lec__buf b = LEC__BUF_INIT;
	size_t n;

	while (*url) {
		n = 0;
		while (url[n] && (unsigned char)url[n] > ' ' && url[n] != 0x7f)
			n++;
		lec__buf_printf(&b, "%.*s", (int)n, url);
		url += n;
		if (*url) {
			lec__buf_printf(&b, "%%%02X", (unsigned char)*url);
			url++;
		}
	}
	return lec__buf_take(&b);
}

/*
 * The final URL of a raw target: on the current origin unless absolute,
 * the request's query first, then the target's, then its fragment. NULL
 * in *out when it is the current page (the loop guard).
 */
static int finish(const char *raw, const struct lec_redirect_request *rq,
		  char **out)
{
	struct lec__buf b = LEC__BUF_INIT;
	size_t base_n = strcspn(raw, "?#");
	const char *fragment = strchr(raw, '#');
	const char *query = raw[base_n] == '?' ? raw + base_n + 1 : "";
	size_t query_n = fragment && fragment > query
				 ? (size_t)(fragment - query)
				 : strcspn(query, "#");
	const char *base = raw;

	*out = NULL;
	if (!is_absolute(raw)) {
		/* One leading slash: "//evil.com" must stay a path. */
		while (base_n > 0 && (*base == '/' || *base == '\\')) {
			base++;
			base_n--;
		}
		lec__buf_printf(&b, "%s/", rq->origin);
	}
	lec__buf_printf(&b, "%.*s", (int)base_n, base);
	if (b.ptr && is_current(b.ptr, b.len, rq)) {
		lec__buf_dispose(&b);
		return LEC_OK;
	}
	if (rq->query[0] || query_n > 0)
		lec__buf_printf(&b, "?%s%s%.*s", rq->query,
				rq->query[0] && query_n > 0 ? "&" : "",
				(int)query_n, query);
	if (fragment)
		lec__buf_puts(&b, fragment);
	*out = b.ptr && !b.oom ? header_safe(b.ptr) : NULL;
	lec__buf_dispose(&b);
	return *out ? LEC_OK : lec__error_oom();
}

int lec_redirect_match(const struct lec_redirect_list *list,
		       const struct lec_redirect_request *rq,
		       struct lec_redirect_target *out)
{
	size_t i;
	int error = LEC_OK;

	lec_error_clear();
	memset(out, 0, sizeof(*out));
	if (rq->path == NULL || rq->filename == NULL ||
	    rq->version_root == NULL || rq->origin == NULL ||
	    rq->query == NULL)
		return lec__error(LEC_EINVALID, "incomplete redirect request");
	for (i = 0; list && i < list->len; i++) {
		const struct lec_redirect *r = &list->items[i];
		struct lec_redirect_semantics sem;
		char *raw = NULL;

		if (!r->enabled || (rq->forced_only && !r->force) ||
		    lec_redirect_semantics_of(r->type, r->from_url, &sem) < 0 ||
		    !applicable(sem.kind, rq->filename))
			continue;
		if ((error = raw_target(r, &sem, rq, &raw)) == 0)
			continue;
		if (raw)
			error = finish(raw, rq, &out->url);
		lec__free(raw);
		if (error < 0)
			return error;
		if (out->url) {
			out->status = r->http_status == 301 ? 301 : 302;
			out->redirect_id = r->id;
			return LEC_OK;
		}
		/* Matched without a target: today's service stops here. */
		if (!sem.legacy)
			break;
	}
	lec_error_clear();
	return lec__error(LEC_ENOTFOUND, "no redirect applies");
}

void lec_redirect_target_dispose(struct lec_redirect_target *target)
{
	if (target == NULL)
		return;
	lec__free(target->url);
	target->url = NULL;
}
