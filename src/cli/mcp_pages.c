/*
 * Pages for `lectern mcp` (mcp_pages.h). A page is read from its docs
 * host as Markdown (the docs host's Accept: text/markdown, with anchors=1
 * so each heading says its anchor, and section=ID for one section), under
 * the same permissions as in a browser; its place is its version's
 * documentation URL (the API's) and its path below it. Long pages come in
 * parts cut at a line's end. The resources are the pages of every built
 * version, from the versions' pages lists (Lectern's v3 extension),
 * PAGE_RESOURCES a call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp_pages.h"

/* A part of a page holds this many characters unless the caller asks for
 * more or fewer: a long page of CPython's docs is 200,000. */
#define READ_DEFAULT_CHARS 20000
#define READ_MIN_CHARS 1000
#define READ_MAX_CHARS 200000
/* Resources listed in one resources/list answer. */
#define PAGE_RESOURCES 100
/* lectern://<context>/<project>/<version>/<path> */
#define URI_SCHEME "lectern://"

/* A page's Markdown ---------------------------------------------------------- */

struct page {
	char *url;      /* the page's URL (owned) */
	char *markdown; /* owned */
	size_t len;
};

static void page_dispose(struct page *p)
{
	free(p->url);
	free(p->markdown);
}

/* The path of a URL ("/en/latest/" of "http://h:1/en/latest/"), and the
 * first label of its host in *label (at most cap bytes). */
static const char *url_path(const char *url, char *label, size_t cap)
{
	const char *host = strstr(url, "://"), *slash;
	size_t n;

	host = host ? host + 3 : url;
	n = strcspn(host, ".:/");
	snprintf(label, cap, "%.*s", (int)n, host);
	slash = strchr(host, '/');
	return slash ? slash : "/";
}

/* Fetch the page (project, version, path, section) as Markdown. The
 * version's documentation URL says where its pages are (a translation's
 * or subproject's docs live below another project's host). */
static int fetch_page(struct mcp *m, const char *project, const char *version,
		      const char *path, const char *section, struct page *out,
		      char *why, size_t cap)
{
	char api[CLI_PATH_MAX], label[128], *rel = NULL, *url = NULL;
	struct mcp_call call = { NULL, NULL, NULL, NULL, "text/markdown" };
	struct lc_response *r = NULL;
	struct lc_query q = { 0 };
	struct lc_error err;
	cJSON *v = NULL;
	const char *docs, *root;
	int rc;

	memset(out, 0, sizeof(*out));
	snprintf(api, sizeof(api), "/api/v3/projects/%s/versions/%s/", project,
		 version);
	if ((rc = mcp_get_json(m, api, NULL, &v, &err)) != LC_OK) {
		snprintf(why, cap, "%s/%s: %s", project, version,
			 err.message[0] ? err.message : lc_code_str(rc));
		return rc;
	}
	docs = mcp_str(cJSON_GetObjectItemCaseSensitive(v, "urls"),
		      "documentation");
	root = docs ? url_path(docs, label, sizeof(label)) : "/";
	if ((rel = malloc(strlen(root) + strlen(path) + 2)) != NULL)
		snprintf(rel, strlen(root) + strlen(path) + 2, "%s%s", root,
			 path[0] == '/' ? path + 1 : path);
	url = rel ? lc_docs_url(m->session.client, docs ? label : project, rel)
		  : NULL;
	cJSON_Delete(v);
	free(rel);
	if (url == NULL) {
		snprintf(why, cap, "out of memory");
		return LC_ENOMEM;
	}
	rc = lc_query_add(&q, "anchors", "1");
	if (rc == LC_OK && section)
		rc = lc_query_add(&q, "section", section);
	call.path = url;
	call.query = &q;
	if (rc == LC_OK)
		rc = mcp_call(m, &call, &r, &err);
	lc_query_dispose(&q);
	if (rc == LC_OK && (r->content_type == NULL ||
			    strncmp(r->content_type, "text/markdown", 13) != 0)) {
		snprintf(why, cap, "%s is not served as Markdown here (this "
				   "instance may not be a Lectern)",
			 url);
		rc = LC_EJSON;
	} else if (rc != LC_OK) {
		snprintf(why, cap, "%s: %s", url,
			 err.status == 404 ? (section ? "no such page or section"
						      : "no such page")
					   : err.message[0] ? err.message
							    : lc_code_str(rc));
	}
	if (rc == LC_OK) {
		out->url = url;
		url = NULL;
		out->markdown = r->body;
		out->len = r->body_len;
		r->body = NULL;
	}
	free(url);
	lc_response_free(r);
	return rc;
}

/* The project's default version, into out (cap bytes). */
static int default_version(struct mcp *m, const char *project, char *out,
			   size_t cap, char *why, size_t wcap)
{
	char api[CLI_PATH_MAX];
	struct lc_error err;
	cJSON *p = NULL;
	const char *v;
	int rc;

	snprintf(api, sizeof(api), "/api/v3/projects/%s/", project);
	if ((rc = mcp_get_json(m, api, NULL, &p, &err)) != LC_OK) {
		snprintf(why, wcap, "No project '%s' on context '%s' (%s); "
				    "list_projects lists them.",
			 project, m->session.conn.name,
			 err.message[0] ? err.message : lc_code_str(rc));
		return rc;
	}
	v = mcp_str(p, "default_version");
	snprintf(out, cap, "%s", v ? v : "latest");
	cJSON_Delete(p);
	return LC_OK;
}

/* Where a part ends: at most max bytes from offset, at a line's end when
 * one is in the second half of the part, never inside a UTF-8
 * character. */
static size_t part_end(const char *s, size_t len, size_t offset, size_t max)
{
	size_t end = offset + max, i;

	if (end >= len)
		return len;
	for (i = end; i > offset + max / 2; i--)
		if (s[i - 1] == '\n')
			return i;
	while (end > offset && ((unsigned char)s[end] & 0xc0) == 0x80)
		end--;
	return end;
}

/* A part's result (text consumed): the Markdown, and when more follows
 * a line saying how to get it. */
static cJSON *part_result(char *text, int more, cJSON *structured)
{
	size_t n = (text ? strlen(text) : 0) + 100;
	char *shown = malloc(n);
	cJSON *r;

	if (shown)
		snprintf(shown, n, "%s%s", text ? text : "",
			 more ? "\n[A part of the page: pass next_cursor for "
				"the rest.]\n"
			      : "");
	r = mcp_tool_result(shown ? shown : "", structured);
	free(shown);
	free(text);
	return r;
}

cJSON *mcp_read_page(struct mcp *m, const cJSON *args)
{
	const char *project = mcp_arg(args, "project");
	const char *version = mcp_arg(args, "version");
	const char *path = mcp_arg(args, "path");
	const char *section = mcp_arg(args, "section");
	const char *cursor = mcp_arg(args, "cursor");
	long max = mcp_arg_int(args, "max_chars", READ_DEFAULT_CHARS,
			       READ_MIN_CHARS, READ_MAX_CHARS);
	char vbuf[128], why[1024], *end = NULL, *text;
	unsigned long long offset = 0;
	struct page page;
	size_t stop;
	cJSON *out;

	if (!mcp_is_slug(project) || (version && !mcp_is_slug(version)))
		return mcp_tool_failure("read_page needs a project (and a "
					"version) slug");
	if (path == NULL || strstr(path, "..") || strchr(path, '?') ||
	    strchr(path, '#'))
		return mcp_tool_failure("read_page needs the page's path below "
					"its version, such as guide/index.html");
	if (max < 0)
		return mcp_tool_failure("max_chars is a whole number from %d to "
					"%d",
					READ_MIN_CHARS, READ_MAX_CHARS);
	if (cursor && ((offset = strtoull(cursor, &end, 10)), end == cursor ||
				 *end != '\0'))
		return mcp_tool_failure("cursor is the next_cursor of an "
					"earlier part");
	if (version == NULL) {
		if (default_version(m, project, vbuf, sizeof(vbuf), why,
				    sizeof(why)) != LC_OK)
			return mcp_tool_failure("%s", why);
		version = vbuf;
	}
	if (fetch_page(m, project, version, path, section, &page, why,
		       sizeof(why)) != LC_OK)
		return mcp_tool_failure("%s", why);
	if (offset > page.len)
		offset = page.len;
	stop = part_end(page.markdown, page.len, (size_t)offset, (size_t)max);
	out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "project", project);
	cJSON_AddStringToObject(out, "version", version);
	cJSON_AddStringToObject(out, "path", path);
	if (section)
		cJSON_AddStringToObject(out, "section", section);
	cJSON_AddStringToObject(out, "url", page.url);
	text = strndup(page.markdown + offset, stop - (size_t)offset);
	cJSON_AddStringToObject(out, "markdown", text ? text : "");
	cJSON_AddNumberToObject(out, "offset", (double)offset);
	cJSON_AddNumberToObject(out, "length", (double)page.len);
	if (stop < page.len) {
		char next[32];

		snprintf(next, sizeof(next), "%zu", stop);
		cJSON_AddStringToObject(out, "next_cursor", next);
	} else {
		cJSON_AddNullToObject(out, "next_cursor");
	}
	page_dispose(&page);
	return part_result(text, stop < page.len, out);
}

/* Resources ------------------------------------------------------------------ */

/* The pages of one version from offset, as resources, into list, at most
 * room of them; *more whether the version has more after those. */
static int version_pages(struct mcp *m, const char *project,
			 const char *version, long offset, int room,
			 cJSON *list, int *more)
{
	char path[CLI_PATH_MAX], uri[CLI_PATH_MAX * 2];
	struct lc_error err;
	cJSON *page = NULL, *p;
	int rc, n = 0;

	*more = 0;
	snprintf(path, sizeof(path),
		 "/api/v3/projects/%s/versions/%s/pages/?limit=%d&offset=%ld",
		 project, version, room, offset);
	if ((rc = mcp_get_json(m, path, NULL, &page, &err)) != LC_OK)
		return rc == LC_ECANCELLED ? rc : LC_OK; /* none to list */
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(page, "results")) {
		const char *ppath = mcp_str(p, "path"), *title = mcp_str(p, "title");
		const char *summary = mcp_str(p, "summary");
		cJSON *o;

		if (ppath == NULL)
			continue;
		o = cJSON_CreateObject();
		snprintf(uri, sizeof(uri), URI_SCHEME "%s/%s/%s/%s",
			 m->session.conn.name, project, version, ppath);
		cJSON_AddStringToObject(o, "uri", uri);
		cJSON_AddStringToObject(o, "name", ppath);
		if (title && *title)
			cJSON_AddStringToObject(o, "title", title);
		if (summary && *summary)
			cJSON_AddStringToObject(o, "description", summary);
		cJSON_AddStringToObject(o, "mimeType", "text/markdown");
		cJSON_AddItemToArray(list, o);
		n++;
	}
	*more = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(page, "next"));
	cJSON_Delete(page);
	return LC_OK;
}

/* The built versions of project, as slugs, into versions (an array). */
static int built_versions(struct mcp *m, const char *project, cJSON *versions)
{
	char path[CLI_PATH_MAX];
	struct lc_error err;
	cJSON *page = NULL, *v;
	int rc;

	snprintf(path, sizeof(path),
		 "/api/v3/projects/%s/versions/?limit=100&active=true",
		 project);
	if ((rc = mcp_get_json(m, path, NULL, &page, &err)) != LC_OK)
		return rc;
	cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(page, "results"))
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "built")) &&
		    mcp_str(v, "slug"))
			cJSON_AddItemToArray(versions,
					     cJSON_CreateString(mcp_str(v, "slug")));
	cJSON_Delete(page);
	return LC_OK;
}

/* The cursor: "<project>/<version>/<offset>", where the next answer
 * starts. */
static int parse_cursor(const char *cursor, char *project, char *version,
			long *offset)
{
	char *end;

	if (cursor == NULL) {
		project[0] = version[0] = '\0';
		*offset = 0;
		return 0;
	}
	if (sscanf(cursor, "%127[^/]/%127[^/]/", project, version) != 2 ||
	    !mcp_is_slug(project) || !mcp_is_slug(version))
		return -1;
	*offset = strtol(strrchr(cursor, '/') + 1, &end, 10);
	return *end == '\0' && *offset >= 0 ? 0 : -1;
}

int mcp_resources_list(struct mcp *m, const cJSON *params, cJSON **result,
		       const char **message)
{
	char start_p[128], start_v[128], next[300] = "";
	cJSON *projects = NULL, *out, *list, *p;
	struct lc_error err;
	long offset;
	int started, rc = LC_OK;

	*result = NULL;
	if (parse_cursor(mcp_arg(params, "cursor"), start_p, start_v,
			 &offset) < 0) {
		*message = "Invalid params: not a cursor of this server";
		return MCP_INVALID_PARAMS;
	}
	if (mcp_get_json(m, "/api/v3/projects/?limit=100", NULL, &projects,
			 &err) !=
	    LC_OK) {
		*message = "the instance did not list its projects";
		return MCP_INTERNAL_ERROR;
	}
	out = cJSON_CreateObject();
	list = cJSON_AddArrayToObject(out, "resources");
	started = start_p[0] == '\0';
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(projects,
							      "results")) {
		const char *slug = mcp_str(p, "slug");
		cJSON *versions, *v;

		if (slug == NULL || next[0] || rc != LC_OK)
			continue;
		if (!started && strcmp(slug, start_p) != 0)
			continue;
		versions = cJSON_CreateArray();
		rc = built_versions(m, slug, versions);
		cJSON_ArrayForEach(v, versions) {
			int room = PAGE_RESOURCES - cJSON_GetArraySize(list);
			int more = 0;

			if (next[0] || rc != LC_OK)
				break;
			if (!started && strcmp(v->valuestring, start_v) != 0)
				continue;
			rc = version_pages(m, slug, v->valuestring,
					   started ? 0 : offset, room, list,
					   &more);
			if (more)
				snprintf(next, sizeof(next), "%s/%s/%ld", slug,
					 v->valuestring,
					 (started ? 0 : offset) + room);
			started = 1;
		}
		cJSON_Delete(versions);
		started = 1;
	}
	cJSON_Delete(projects);
	if (next[0])
		cJSON_AddStringToObject(out, "nextCursor", next);
	*result = out;
	return 0;
}

cJSON *mcp_resource_templates(const struct mcp *m)
{
	cJSON *out = cJSON_CreateObject(), *list, *t;
	char uri[256];

	list = cJSON_AddArrayToObject(out, "resourceTemplates");
	t = cJSON_CreateObject();
	snprintf(uri, sizeof(uri), URI_SCHEME "%s/{project}/{version}/{+path}",
		 m->session.conn.name);
	cJSON_AddStringToObject(t, "uriTemplate", uri);
	cJSON_AddStringToObject(t, "name", "page");
	cJSON_AddStringToObject(t, "title", "A page of a project's version");
	cJSON_AddStringToObject(t, "description",
				"A built page as Markdown: project and version "
				"slugs, and the page's path below the version "
				"(list_versions, search_docs).");
	cJSON_AddStringToObject(t, "mimeType", "text/markdown");
	cJSON_AddItemToArray(list, t);
	return out;
}

int mcp_resources_read(struct mcp *m, const cJSON *params, cJSON **result,
		       const char **message)
{
	const char *uri = mcp_arg(params, "uri");
	const char *ctx = m->session.conn.name, *rest;
	char project[128], version[128], why[1024];
	struct page page;
	cJSON *out, *contents, *c;
	size_t n = strlen(URI_SCHEME);

	*result = NULL;
	*message = "Resource not found";
	if (uri == NULL || strncmp(uri, URI_SCHEME, n) != 0 ||
	    strncmp(uri + n, ctx, strlen(ctx)) != 0 ||
	    uri[n + strlen(ctx)] != '/')
		return MCP_RESOURCE_NOT_FOUND;
	rest = uri + n + strlen(ctx) + 1;
	if (sscanf(rest, "%127[^/]/%127[^/]/", project, version) != 2 ||
	    !mcp_is_slug(project) || !mcp_is_slug(version))
		return MCP_RESOURCE_NOT_FOUND;
	rest += strlen(project) + strlen(version) + 2;
	if (*rest == '\0' || strstr(rest, "..") || strchr(rest, '?') ||
	    fetch_page(m, project, version, rest, NULL, &page, why,
		       sizeof(why)) != LC_OK)
		return MCP_RESOURCE_NOT_FOUND;
	out = cJSON_CreateObject();
	contents = cJSON_AddArrayToObject(out, "contents");
	c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "uri", uri);
	cJSON_AddStringToObject(c, "mimeType", "text/markdown");
	cJSON_AddStringToObject(c, "text", page.markdown);
	cJSON_AddItemToArray(contents, c);
	page_dispose(&page);
	*result = out;
	return 0;
}
