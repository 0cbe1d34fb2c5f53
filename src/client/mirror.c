/*
 * Offline mirrors, the client's half (docs/api.md "Mirrors"): copy one
 * version of a remote project's published HTML into the local engine.
 *
 * The pages are found by walking the version from its root page through
 * the links each page makes to other pages of the same version, which
 * works on any instance (a Lectern, the hosted service) whether or not it
 * publishes an htmlzip or a sitemap that lists pages, and needs no zip
 * reader. Requests to the remote are spaced by an interval (politeness;
 * tests set it to 0) and conditional on the ETags of the last refresh, so
 * an update downloads only what changed; a page the remote reports
 * unchanged is read back from the local mirror to follow its links. Only
 * HTML pages are copied: the reader, search and embed read nothing else,
 * and a page whose path has a name longer than a file's may be is left
 * out (counted) rather than failing the copy.
 *
 * The remote is whatever the caller's client reaches: a client whose
 * connections are checked (lc_client_check_connections) keeps the pages,
 * and every redirect they answer with, to the addresses its check allows.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client_internal.h"

struct pages {
	char **path;  /* page paths below the version's root, "a/b.html" */
	char **etag;  /* their remote tags ("" for none) once fetched */
	size_t len, cap, next; /* next: the first not fetched yet */
};

static void pages_dispose(struct pages *ps)
{
	size_t i;

	for (i = 0; i < ps->len; i++) {
		free(ps->path[i]);
		free(ps->etag[i]);
	}
	free(ps->path);
	free(ps->etag);
	memset(ps, 0, sizeof(*ps));
}

/* Queue path (owned from now on) unless it is there already. */
static int pages_add(struct pages *ps, char *path)
{
	size_t i;

	if (path == NULL)
		return LC_ENOMEM;
	for (i = 0; i < ps->len; i++)
		if (strcmp(ps->path[i], path) == 0) {
			free(path);
			return LC_OK;
		}
	if (ps->len == LC_MIRROR_PAGES_MAX) {
		free(path);
		return LC_OK;
	}
	if (ps->len == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 64;
		char **p = realloc(ps->path, cap * sizeof(char *));
		char **e = p ? realloc(ps->etag, cap * sizeof(char *)) : NULL;

		if (p)
			ps->path = p;
		if (e == NULL) {
			free(path);
			return LC_ENOMEM;
		}
		ps->etag = e;
		ps->cap = cap;
	}
	ps->path[ps->len] = path;
	ps->etag[ps->len++] = NULL;
	return LC_OK;
}

/* Links ----------------------------------------------------------------- */

char *lc__mirror_link(const char *from, const char *href, size_t len,
		      const char *root_path)
{
	struct lc_buf b = { 0 };
	char *joined, *out, *seg, *dst;
	size_t rlen = strlen(root_path), n;

	/* Drop the fragment and the query. */
	for (n = 0; n < len && href[n] != '#' && href[n] != '?'; n++)
		;
	len = n;
	if (len == 0 || memchr(href, ':', len) || memchr(href, '%', len) ||
	    memchr(href, '\\', len) || (len > 1 && href[0] == '/' &&
					href[1] == '/'))
		return NULL;
	if (href[0] == '/') {
		/* An absolute path: only inside this version. */
		if (len < rlen || strncmp(href, root_path, rlen) != 0)
			return NULL;
		lc__buf_add(&b, href + rlen, len - rlen);
	} else {
		const char *slash = strrchr(from, '/');

		if (slash)
			lc__buf_add(&b, from, (size_t)(slash - from) + 1);
		lc__buf_add(&b, href, len);
	}
	if (b.rc != LC_OK || b.s == NULL) {
		free(b.s);
		return NULL;
	}
	joined = b.s;
	/* Resolve "." and ".." segments; one above the root leaves it. */
	if ((out = calloc(1, strlen(joined) + sizeof("index.html"))) == NULL) {
		free(joined);
		return NULL;
	}
	dst = out;
	for (seg = joined; seg != NULL;) {
		char *end = strchr(seg, '/');
		size_t sl = end ? (size_t)(end - seg) : strlen(seg);

		if (sl == 2 && seg[0] == '.' && seg[1] == '.') {
			if (dst == out) {
				free(joined);
				free(out);
				return NULL;
			}
			dst--; /* the '/' after the last segment */
			while (dst > out && dst[-1] != '/')
				dst--;
		} else if (!(sl == 1 && seg[0] == '.') && sl > 0) {
			memcpy(dst, seg, sl);
			dst += sl;
			if (end)
				*dst++ = '/';
		}
		seg = end ? end + 1 : NULL;
	}
	*dst = '\0';
	free(joined);
	/* A directory is its index page; anything else must be a page. */
	if (out[0] == '\0' || dst[-1] == '/')
		memcpy(dst, "index.html", sizeof("index.html"));
	n = strlen(out);
	if (n < 6 || strcmp(out + n - 5, ".html") != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* Queue every page body links to. */
static int add_links(struct pages *ps, const char *from, const char *body,
		     size_t len, const char *root_path)
{
	const char *p = body, *end = body + len;
	int rc = LC_OK;

	while (rc == LC_OK && p < end &&
	       (p = memmem(p, (size_t)(end - p), "href=", 5)) != NULL) {
		const char *v = p + 5, *close;
		char q;

		p = v;
		if (v >= end || (*v != '"' && *v != '\''))
			continue;
		q = *v++;
		if ((close = memchr(v, q, (size_t)(end - v))) == NULL)
			break;
		{
			char *t = lc__mirror_link(from, v, (size_t)(close - v),
						  root_path);

			if (t)
				rc = pages_add(ps, t);
		}
		p = close + 1;
	}
	return rc;
}

/* Whether a name in path is longer than any file's may be: such a page
 * cannot be stored, so it is left out and never fetched. */
static bool name_too_long(const char *path)
{
	size_t n;

	for (; *path; path += n + (path[n] == '/')) {
		n = strcspn(path, "/");
		if (n > LC_MIRROR_NAME_MAX)
			return true;
	}
	return false;
}

/* Copying ----------------------------------------------------------------- */

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (ms > 0 && nanosleep(&ts, &ts) != 0)
		;
}

/* "scheme://host[:port]" and the path of a URL ("/en/latest/"). */
static int split_url(const char *url, char **origin, char **path)
{
	const char *s = strstr(url, "://"), *slash;

	if (s == NULL)
		return LC_EINVAL;
	slash = strchr(s + 3, '/');
	*origin = slash ? strndup(url, (size_t)(slash - url)) : strdup(url);
	*path = strdup(slash ? slash : "/");
	if (*origin == NULL || *path == NULL) {
		free(*origin);
		free(*path);
		return LC_ENOMEM;
	}
	if ((*path)[strlen(*path) - 1] != '/') {
		/* A version URL names a directory. */
		size_t len = strlen(*path);
		char *p = realloc(*path, len + 2);

		if (p == NULL) {
			free(*origin);
			free(*path);
			return LC_ENOMEM;
		}
		p[len] = '/';
		p[len + 1] = '\0';
		*path = p;
	}
	return LC_OK;
}

/* The documentation URL of a version on an instance. */
static int version_url(struct lc_client *c, const char *project,
		       const char *version, char **url, struct lc_error *err)
{
	struct lc_version *v = NULL;
	int rc = lc_version_get(c, project, version, NULL, &v, err);

	*url = NULL;
	if (rc == LC_OK && (v->documentation_url == NULL ||
			    (*url = strdup(v->documentation_url)) == NULL))
		rc = lc__fail(err, LC_EJSON, 0,
			      "version %s of %s has no documentation URL",
			      version, project);
	lc_version_free(v);
	return rc;
}

/* "/api/v3/projects/<slug>/mirror/<version>/" + rest: the local mirror's
 * copy of version. */
static void mirror_path(struct lc_buf *path, const char *slug,
			const char *version, const char *rest)
{
	lc__buf_str(path, "/api/v3/projects/");
	lc__buf_escape(path, slug, false);
	lc__buf_str(path, "/mirror/");
	lc__buf_escape(path, version, false);
	lc__buf_str(path, "/");
	lc__buf_str(path, rest);
}

/* The ETags the local mirror's last refresh of version recorded. */
static int known_etags(struct lc_client *local, const char *slug,
		       const char *version, cJSON **out, struct lc_error *err)
{
	struct lc_response *r = NULL;
	struct lc_buf path = { 0 };
	cJSON *pages;
	int rc;

	*out = NULL;
	mirror_path(&path, slug, version, "");
	rc = path.rc ? path.rc : lc_get(local, path.s, NULL, NULL, &r, err);
	free(path.s);
	if (rc == LC_OK && r->json &&
	    (pages = cJSON_DetachItemFromObjectCaseSensitive(r->json,
							     "pages")) != NULL)
		*out = pages;
	else if (rc == LC_OK)
		*out = cJSON_CreateObject();
	lc_response_free(r);
	return rc;
}

/* PUT one page into the local mirror's staging. */
static int upload(struct lc_client *local, const char *slug,
		  const char *version, const char *page,
		  const struct lc_response *r, struct lc_error *err)
{
	struct lc_response *resp = NULL;
	struct lc_query q = { 0 };
	struct lc_buf path = { 0 };
	char *url = NULL;
	int rc;

	mirror_path(&path, slug, version, "pages/");
	rc = path.rc ? path.rc : lc_query_add(&q, "path", page);
	if (rc == LC_OK)
		rc = lc__url(local, path.s, &q, &url);
	if (rc == LC_OK)
		rc = lc_request(local, "PUT", url, r->body, &resp, err);
	else
		lc__fail(err, rc, 0, "out of memory");
	lc_response_free(resp);
	lc_query_dispose(&q);
	free(path.s);
	free(url);
	return rc;
}

static int publish(struct lc_client *local, const char *slug,
		   const char *version, const struct pages *ps,
		   const bool *have, struct lc_mirror_result *res,
		   struct lc_error *err)
{
	struct lc_response *resp = NULL;
	struct lc_buf path = { 0 };
	cJSON *body = cJSON_CreateObject(), *map;
	char *text = NULL;
	size_t i;
	int rc = LC_ENOMEM;

	map = body ? cJSON_AddObjectToObject(body, "pages") : NULL;
	for (i = 0; map && i < ps->len; i++)
		if (have[i] &&
		    !cJSON_AddStringToObject(map, ps->path[i],
					     ps->etag[i] ? ps->etag[i] : ""))
			map = NULL;
	mirror_path(&path, slug, version, "");
	if (map && path.rc == LC_OK &&
	    (text = cJSON_PrintUnformatted(body)) != NULL)
		rc = lc_request(local, "POST", path.s, text, &resp, err);
	else
		lc__fail(err, rc, 0, "out of memory");
	if (rc == LC_OK && resp->json)
		res->build = lc__json_int(
			cJSON_GetObjectItemCaseSensitive(resp->json, "build"),
			-1);
	lc_response_free(resp);
	cJSON_free(text);
	cJSON_Delete(body);
	free(path.s);
	return rc;
}

int lc_mirror_version(struct lc_client *remote, struct lc_client *local,
		      const char *slug, const char *project,
		      const char *version, const struct lc_mirror_options *opt,
		      struct lc_mirror_result *res, struct lc_error *err)
{
	struct pages ps = { 0 };
	cJSON *etags = NULL;
	char *rurl = NULL, *lurl = NULL, *rorigin = NULL, *rpath = NULL;
	char *lorigin = NULL, *lpath = NULL;
	bool *have = NULL;
	size_t i;
	int rc;

	memset(res, 0, sizeof(*res));
	lc_error_clear(err);
	if (remote == NULL || local == NULL || slug == NULL ||
	    project == NULL || version == NULL)
		return lc__fail(err, LC_EINVAL, 0, "nothing to mirror");
	if ((rc = version_url(remote, project, version, &rurl, err)) != LC_OK ||
	    (rc = known_etags(local, slug, version, &etags, err)) != LC_OK)
		goto done;
	if ((rc = split_url(rurl, &rorigin, &rpath)) != LC_OK ||
	    (rc = pages_add(&ps, strdup("index.html"))) != LC_OK) {
		lc__fail(err, rc, 0, "bad documentation URL %s", rurl);
		goto done;
	}
	if ((have = calloc(LC_MIRROR_PAGES_MAX, sizeof(*have))) == NULL) {
		rc = lc__fail(err, LC_ENOMEM, 0, "out of memory");
		goto done;
	}
	for (i = 0; i < ps.len; i++) {
		struct lc_response *r = NULL, *back = NULL;
		const char *known = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(etags, ps.path[i]));
		char *url = NULL;
		struct lc_error perr;

		if (name_too_long(ps.path[i])) {
			res->skipped++;
			res->long_names++;
			continue;
		}
		if (i > 0 && opt && opt->interval_ms > 0)
			pause_ms(opt->interval_ms);
		if (asprintf(&url, "%s%s%s", rorigin, rpath, ps.path[i]) < 0) {
			rc = lc__fail(err, LC_ENOMEM, 0, "out of memory");
			break;
		}
		rc = lc_get(remote, url, NULL, known && *known ? known : NULL,
			    &r, &perr);
		free(url);
		if (rc == LC_EHTTP && perr.status == 404) {
			/* A link to a page that is not there. */
			res->skipped++;
			lc_response_free(r);
			rc = LC_OK;
			continue;
		}
		if (rc != LC_OK) {
			*err = perr;
			lc_response_free(r);
			break;
		}
		if (r->not_modified) {
			/* Its links come from the local copy. */
			if (lurl == NULL &&
			    ((rc = version_url(local, slug, version, &lurl,
					       err)) != LC_OK ||
			     (rc = split_url(lurl, &lorigin, &lpath)) !=
				     LC_OK)) {
				lc_response_free(r);
				break;
			}
			if (asprintf(&url, "%s%s%s", lorigin, lpath,
				     ps.path[i]) < 0 ||
			    lc_get(local, url, NULL, NULL, &back, &perr) !=
				    LC_OK) {
				free(url);
				lc_response_free(r);
				lc_response_free(back);
				rc = lc__fail(err, LC_EHTTP, perr.status,
					      "the local copy of %s: %s",
					      ps.path[i], perr.message);
				break;
			}
			free(url);
			ps.etag[i] = strdup(known);
			res->unchanged++;
			have[i] = true;
		} else if (r->content_type &&
			   strncmp(r->content_type, "text/html", 9) != 0) {
			res->skipped++;
			lc_response_free(r);
			continue;
		} else if ((rc = upload(local, slug, version, ps.path[i], r,
					err)) == LC_EHTTP && err->status == 413) {
			/* Bigger than the local API takes a page: left out
			 * of the copy, its links still followed. */
			res->skipped++;
			ps.etag[i] = strdup("");
			rc = LC_OK;
		} else if (rc != LC_OK) {
			lc_response_free(r);
			break;
		} else {
			ps.etag[i] = strdup(r->etag ? r->etag : "");
			res->fetched++;
			have[i] = true;
		}
		{
			const struct lc_response *src = back ? back : r;

			rc = add_links(&ps, ps.path[i], src->body,
				       src->body_len, rpath);
		}
		lc_response_free(r);
		lc_response_free(back);
		if (rc != LC_OK || ps.etag[i] == NULL) {
			rc = lc__fail(err, LC_ENOMEM, 0, "out of memory");
			break;
		}
		if (opt && opt->progress)
			opt->progress(opt->data, ps.path[i], i + 1, ps.len);
	}
	if (rc == LC_OK)
		rc = publish(local, slug, version, &ps, have, res, err);
done:
	free(have);
	cJSON_Delete(etags);
	free(rurl);
	free(lurl);
	free(rorigin);
	free(rpath);
	free(lorigin);
	free(lpath);
	pages_dispose(&ps);
	return rc;
}

int lc_mirror_create(struct lc_client *local, const char *source,
		     const struct lc_project *remote, struct lc_project **out,
		     struct lc_error *err)
{
	struct lc_response *resp = NULL;
	cJSON *body = cJSON_CreateObject();
	char *text = NULL;
	int rc = LC_ENOMEM;

	*out = NULL;
	if (body && cJSON_AddStringToObject(body, "source", source) &&
	    cJSON_AddStringToObject(body, "project", remote->slug) &&
	    cJSON_AddStringToObject(body, "name", remote->name) &&
	    (remote->language == NULL ||
	     cJSON_AddStringToObject(body, "language", remote->language)) &&
	    (text = cJSON_PrintUnformatted(body)) != NULL)
		rc = lc_request(local, "POST", "/api/v3/mirrors/", text, &resp,
				err);
	else
		lc__fail(err, rc, 0, "out of memory");
	if (rc == LC_OK)
		rc = lc_project_parse(resp->json, out, err);
	lc_response_free(resp);
	cJSON_free(text);
	cJSON_Delete(body);
	return rc;
}
