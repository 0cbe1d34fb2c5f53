/*
 * The docs-domain resolver: from a project and version to the URL its
 * documentation is served at (behaviour notes §7.1), and a pull
 * request's version to the URL on its own host. Used by the API for
 * urls.documentation and by builds for READTHEDOCS_CANONICAL_URL.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "lectern/resolve.h"

#define SCHEME_SINGLE "single_version_without_translations"
#define SCHEME_NO_TRANSLATIONS "multiple_versions_without_translations"

/* The host a project's documentation is served from: the project's slug
 * (its parent's for a subproject, its main project's for a translation),
 * then label (a pull request's "--<version>", or ""), then domain. */
static char *host_of(const struct lec_project *p, const char *label,
		     const char *domain)
{
	const char *slug = p->superproject_slug ? p->superproject_slug
			 : p->translation_of    ? p->translation_of
						: p->slug;
	struct lec__buf b = LEC__BUF_INIT;
	char *host;
	size_t i, n = strlen(slug);

	/* Subdomains cannot hold '_': the service maps it to '-'. */
	lec__buf_printf(&b, "%s%s.%s", slug, label, domain);
	host = lec__buf_take(&b);
	for (i = 0; host && i < n; i++)
		if (host[i] == '_')
			host[i] = '-';
	return host;
}

/* "http://<host>" and the version's path below it, by the project's
 * versioning scheme. */
static char *url_at(const struct lec_project *p, char *host,
		    const char *version_slug)
{
	struct lec__buf b = LEC__BUF_INIT;

	if (host == NULL)
		return NULL;
	lec__buf_printf(&b, "http://%s", host);
	lec__free(host);
	if (p->superproject_slug)
		lec__buf_printf(&b, "/projects/%s", p->superproject_alias);
	if (strcmp(p->versioning_scheme, SCHEME_SINGLE) == 0)
		lec__buf_puts(&b, "/");
	else if (strcmp(p->versioning_scheme, SCHEME_NO_TRANSLATIONS) == 0)
		lec__buf_printf(&b, "/%s/", version_slug);
	else
		lec__buf_printf(&b, "/%s/%s/", p->language, version_slug);
	return lec__buf_take(&b);
}

char *lec_resolve_docs_host(const struct lec_project *p,
			    const char *docs_domain)
{
	return host_of(p, "", docs_domain);
}

char *lec_resolve_docs_url(const struct lec_project *p,
			   const char *version_slug, const char *docs_domain)
{
	return url_at(p, host_of(p, "", docs_domain), version_slug);
}

char *lec_resolve_external_url(const struct lec_project *p,
			       const char *version_slug,
			       const char *external_domain)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *label, *url;

	lec__buf_printf(&b, "--%s", version_slug);
	if ((label = lec__buf_take(&b)) == NULL)
		return NULL;
	url = url_at(p, host_of(p, label, external_domain), version_slug);
	lec__free(label);
	return url;
}
