/*
 * The docs-domain resolver: from a project and version to the URL its
 * documentation is served at (behaviour notes §7.1). Used by the API for
 * urls.documentation and by builds for READTHEDOCS_CANONICAL_URL.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "lectern/resolve.h"

#define SCHEME_SINGLE "single_version_without_translations"
#define SCHEME_NO_TRANSLATIONS "multiple_versions_without_translations"

char *lec_resolve_docs_host(const struct lec_project *p,
			    const char *docs_domain)
{
	const char *slug = p->superproject_slug ? p->superproject_slug
			 : p->translation_of    ? p->translation_of
						: p->slug;
	struct lec__buf b = LEC__BUF_INIT;
	char *host;
	size_t i;

	/* Subdomains cannot hold '_': the service maps it to '-'. */
	lec__buf_printf(&b, "%s.%s", slug, docs_domain);
	host = lec__buf_take(&b);
	for (i = 0; host && host[i] && host[i] != '.'; i++)
		if (host[i] == '_')
			host[i] = '-';
	return host;
}

char *lec_resolve_docs_url(const struct lec_project *p,
			   const char *version_slug, const char *docs_domain)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *host = lec_resolve_docs_host(p, docs_domain);

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
