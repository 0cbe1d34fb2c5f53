/*
 * What the docs host's files share (docs.h), below all of them: a
 * request's path decoded, the project a host name names, the plain 404
 * page and the system redirects, language codes, and the URL of a
 * version's root. docs.c resolves a request with these and docs_serve.c
 * serves it with them; no other docs file is called from here (which
 * project serves a language depends on who may see it, docs_auth.c, so it
 * is docs_serve.c's), so the calls run one way.
 */
#include <ctype.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lectern/errors.h"
#include "lectern/language.h"
#include "docs.h"
#include "input.h"

#define DOCS_NOT_FOUND_PAGE                                              \
	"<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n" \
	"<body><h1>Not Found</h1>\n<p>The page you requested does not "     \
	"exist.</p></body></html>\n"

/* Paths ------------------------------------------------------------------- */

/* Whether a decoded path has a "." or ".." segment. */
static int has_dot_segment(const char *path)
{
	const char *s = path;

	while (*s) {
		size_t n = strcspn(s, "/");

		if ((n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.'))
			return 1;
		s += n;
		if (*s == '/')
			s++;
	}
	return 0;
}

char *docs_decode_path(const char *raw, size_t n)
{
	char *out;
	size_t i, j = 0;

	if (n == 0 || raw[0] != '/' || (out = malloc(n + 1)) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		int hi, lo, c;

		if ((unsigned char)raw[i] < 0x20 || raw[i] == 0x7f)
			goto fail;
		if (raw[i] != '%') {
			out[j++] = raw[i];
			continue;
		}
		hi = i + 2 < n ? srv_hex_value(raw[i + 1]) : -1;
		lo = i + 2 < n ? srv_hex_value(raw[i + 2]) : -1;
		c = hi * 16 + lo;
		if (hi < 0 || lo < 0 || c < 0x20 || c == 0x7f || c == '/' ||
		    c == '\\')
			goto fail;
		out[j++] = (char)c;
		i += 2;
	}
	out[j] = '\0';
	if (has_dot_segment(out))
		goto fail;
	return out;
fail:
	free(out);
	return NULL;
}

/* Host -------------------------------------------------------------------- */

int docs_host_slug(const char *host, const char *domain, char *out,
		   size_t cap)
{
	size_t hn = host ? strlen(host) : 0, dn = strlen(domain), n, i;

	if (hn <= dn + 1 || strcasecmp(host + hn - dn, domain) != 0 ||
	    host[hn - dn - 1] != '.')
		return 0;
	n = hn - dn - 1;
	if (n >= cap || memchr(host, '.', n) != NULL)
		return 0;
	for (i = 0; i < n; i++)
		out[i] = (char)(host[i] >= 'A' && host[i] <= 'Z'
					? host[i] - 'A' + 'a'
					: host[i]);
	out[n] = '\0';
	return 1;
}

int docs_external_host(const char *host, const char *domain, char *project,
		       size_t project_cap, char *version, size_t version_cap)
{
	char label[LEC_PROJECT_SLUG_MAX + LEC_VERSION_SLUG_MAX + 3];
	const char *sep = NULL, *p;
	size_t n;

	if (!docs_host_slug(host, domain, label, sizeof(label)))
		return 0;
	for (p = label; (p = strstr(p, "--")) != NULL; p++)
		sep = p;
	if (sep == NULL || sep == label || sep[2] == '\0')
		return 0;
	n = (size_t)(sep - label);
	if (n >= project_cap || strlen(sep + 2) >= version_cap)
		return 0;
	memcpy(project, label, n);
	project[n] = '\0';
	snprintf(version, version_cap, "%s", sep + 2);
	return 1;
}

int docs_default_slug(struct docs_ctx *c, char **out)
{
	if (c->external[0] == '\0')
		return lec_version_default_slug(c->store, c->project->id, out);
	if ((*out = strdup(c->external)) == NULL)
		return LEC_ENOMEM;
	return LEC_OK;
}

int docs_version_on_host(const struct docs_ctx *c,
			 const struct lec_version *version)
{
	if (c->external[0] == '\0')
		return version->type != LEC_VERSION_EXTERNAL;
	return version->type == LEC_VERSION_EXTERNAL &&
	       strcmp(version->slug, c->external) == 0;
}

int docs_find_project(struct lec_store *store, char *slug,
		      struct lec_project **out)
{
	int rc = lec_project_get(store, slug, out);
	char *p;

	if (rc != LEC_ENOTFOUND || strchr(slug, '-') == NULL)
		return rc;
	for (p = slug; *p; p++)
		if (*p == '-')
			*p = '_';
	return lec_project_get(store, slug, out);
}

/* Responses --------------------------------------------------------------- */

int docs_plain_not_found(struct srv_response *res)
{
	res->status = 404;
	res->content_type = "text/html; charset=utf-8";
	res->body_len = sizeof(DOCS_NOT_FOUND_PAGE) - 1;
	res->body = strdup(DOCS_NOT_FOUND_PAGE);
	if (res->body == NULL)
		res->body_len = 0;
	return 404;
}

int docs_system_redirect(struct docs_ctx *c, const char *target)
{
	size_t n = strlen(target) + strlen(c->query) + 1;

	if ((c->res->location = malloc(n)) == NULL)
		return srv_respond_internal(c->res, "out of memory");
	snprintf(c->res->location, n, "%s%s", target, c->query);
	c->res->rtd_redirect = "system";
	return srv_respond_empty(c->res, 302);
}

/* Projects ---------------------------------------------------------------- */

int docs_language_code(const char *segment, char *out, size_t cap)
{
	size_t i, n = strlen(segment);

	if (n == 0 || n >= cap)
		return 0;
	for (i = 0; i <= n; i++)
		out[i] = segment[i] == '_'
				 ? '-'
				 : (char)tolower((unsigned char)segment[i]);
	return lec_language_valid(out) || strcmp(out, "zh") == 0;
}

void docs_root_url(struct docs_ctx *c, const char *version, char *out,
		   size_t cap)
{
	const char *scheme = c->project->versioning_scheme;

	if (scheme && strcmp(scheme, DOCS_SCHEME_SINGLE) == 0)
		snprintf(out, cap, "%s", c->prefix);
	else if (scheme && strcmp(scheme, DOCS_SCHEME_NO_TRANSLATIONS) == 0)
		snprintf(out, cap, "%s/%s", c->prefix, version);
	else
		snprintf(out, cap, "%s/%s/%s", c->prefix,
			 c->project->language ? c->project->language : "",
			 version);
}

int docs_form_value(const char *s, const char *key, char *out, size_t cap)
{
	size_t kn = strlen(key);

	while (s && *s) {
		size_t n = strcspn(s, "&");

		if (n > kn && strncmp(s, key, kn) == 0 && s[kn] == '=') {
			char *value = srv_percent_decode(s + kn + 1, n - kn - 1,
							 1);
			size_t len = value ? strlen(value) : cap;
			int ok = len < cap;

			if (ok)
				memcpy(out, value, len + 1);
			if (value)
				OPENSSL_cleanse(value, len);
			free(value);
			return ok;
		}
		s += n;
		s += *s == '&';
	}
	return 0;
}
