/*
 * A version's pages (a Lectern extension of v3, docs/api.md):
 * GET /api/v3/projects/<p>/versions/<v>/pages/ lists the pages of the
 * version's search index in reading order, each with its path, title,
 * first sentence and URL, paginated like every v3 list. What an agent's
 * client (lectern mcp) offers as its resources: the pages there are to
 * read. The version is looked up as the versions endpoint looks it up, so
 * a private one is hidden exactly as its detail is.
 */
#include <stdlib.h>

#include "lectern/search.h"
#include "text.h"
#include "v3.h"

static int fill_pages(struct srv_v3_fill *f)
{
	const struct srv_parent *parent = f->parent;
	const struct lec_page *page = f->page;
	struct lec_search_listing listing = { 0 };
	char *root;
	size_t i;
	int rc;

	rc = lec_search_index_pages(srv_store(f->req), parent->version->id,
				    &listing);
	if (rc < 0)
		return srv_respond_engine_error(f->res, rc), -1;
	root = srv_docs_url(f->req, parent->project, parent->version->slug);
	for (i = page->offset; i < listing.len && i < page->offset + page->limit;
	     i++) {
		const struct lec_search_listed *p = &listing.items[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "path", p->path);
		cJSON_AddStringToObject(o, "title", p->title);
		cJSON_AddStringToObject(o, "summary", p->summary);
		if (root) {
			struct srv_text url = { 0 };
			char *text;

			srv_text_printf(&url, "%s%s", root, p->path);
			text = srv_text_take(&url, NULL);
			cJSON_AddStringToObject(o, "url", text ? text : "");
			free(text);
		}
		cJSON_AddItemToArray(f->results, o);
	}
	f->total = listing.len;
	free(root);
	lec_search_listing_dispose(&listing);
	return 0;
}

SRV_V3_LIST(srv_v3_version_pages_list, .parent = SRV_PARENT_VERSION,
	    .fill = fill_pages)
