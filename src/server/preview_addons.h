/*
 * GET /_/addons/ on the preview's server (preview_addons.c): the reader's
 * addons' document for the one working tree a `lectern preview` builds,
 * so the page a writer previews gets the flyout the published docs get.
 */
#ifndef LECTERN_SRV_PREVIEW_ADDONS_H
#define LECTERN_SRV_PREVIEW_ADDONS_H

#include <stdint.h>

/* The preview's one version, as the flyout names it. */
#define SRV_PREVIEW_VERSION_SLUG "working-tree"
#define SRV_PREVIEW_VERSION_NAME "working tree"

/* What the answer is made from, all of it the preview's own. */
struct srv_preview_site {
	const char *name;     /* the project: the tree's directory name */
	const char *origin;   /* "http://<host:port>" the page was asked on */
	const char *status;   /* the status endpoint's path */
	uint64_t published;   /* the build served; 0: none yet */
	int64_t duration_ms;  /* that build's; < 0: not known */
};

/*
 * The answer to GET /_/addons/?query (query without its '?', "" when
 * none): the HTTP status, with the JSON body (malloc'd) in *body; -1 when
 * out of memory. The service's parameters and error bodies, its
 * api-version 1 shape, and only the addons the preview can serve on.
 */
int srv_preview_addons(const struct srv_preview_site *site, const char *query,
		       char **body);

#endif
