/*
 * The tools of `lectern mcp` (mcp.h), each a row of one table: its name,
 * a description written for a model, the JSON Schema of its input, and
 * the function that answers it through the instance's API, as the CLI's
 * commands do. Every answer is a text for the model and the same as
 * structured content; a failure of the instance (an unknown project,
 * which says which names are near) is a tool result with isError, as the
 * protocol asks, so the model can read it and try again.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mcp_pages.h"
#include "mcp_tools.h"

/* Items a listing returns at most: more than any workstation holds, and
 * a bound on one answer's size. */
#define MCP_LIST_MAX 500
/* Search results by default and at most (the search API's page size). */
#define MCP_SEARCH_DEFAULT 10
#define MCP_SEARCH_MAX 50
/* Warnings a build's answer lists: the rest are counted. */
#define MCP_WARNINGS_SHOWN 50
/* Names offered for a slug that is not there. */
#define MCP_NEAR_MAX 3
/* A snippet's characters at most. */
#define MCP_SNIPPET_MAX 300

/* A growing text for the model. */
struct text {
	char *s;
	size_t len, cap;
};

static void add(struct text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (t->len + (size_t)n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		char *grown;

		while (cap < t->len + (size_t)n + 1)
			cap *= 2;
		if ((grown = realloc(t->s, cap)) == NULL)
			return;
		t->s = grown;
		t->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

static cJSON *result_of(struct text *t, cJSON *structured)
{
	cJSON *r = mcp_tool_result(t->s ? t->s : "", structured);

	free(t->s);
	return r;
}

/* The instance's JSON ---------------------------------------------------------- */

/* Every item of a paginated list, following `next`, into the array out
 * (at most MCP_LIST_MAX). */
static int get_all(struct mcp *m, const char *path, cJSON *out,
		   struct lc_error *err)
{
	char *next = strdup(path);
	int rc = next ? LC_OK : LC_ENOMEM;

	while (rc == LC_OK && next && cJSON_GetArraySize(out) < MCP_LIST_MAX) {
		cJSON *page = NULL, *item, *results;
		const cJSON *link;

		rc = mcp_get_json(m, next, NULL, &page, err);
		free(next);
		next = NULL;
		results = cJSON_GetObjectItemCaseSensitive(page, "results");
		cJSON_ArrayForEach(item, results)
			if (cJSON_GetArraySize(out) < MCP_LIST_MAX)
				cJSON_AddItemToArray(out,
						     cJSON_Duplicate(item, 1));
		link = cJSON_GetObjectItemCaseSensitive(page, "next");
		if (rc == LC_OK && cJSON_IsString(link))
			next = strdup(link->valuestring);
		cJSON_Delete(page);
	}
	free(next);
	return rc;
}

static const char *str_in(const cJSON *o, const char *a, const char *b)
{
	return mcp_str(cJSON_GetObjectItemCaseSensitive(o, a), b);
}

/* Near names -------------------------------------------------------------------- */

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

/* Levenshtein's distance between two slugs (at most 63 bytes of each
 * compared), for "did you mean". */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, row[64], diag, up;

	la = la > 63 ? 63 : la;
	lb = lb > 63 ? 63 : lb;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			up = row[j];
			row[j] = a[i - 1] == b[j - 1]
					 ? diag
					 : 1 + min3(diag, up, row[j - 1]);
			diag = up;
		}
	}
	return row[lb];
}

/* The failure for a project that is not there (or not to this token),
 * naming the nearest slugs the instance has. */
static cJSON *no_project(struct mcp *m, const char *slug)
{
	cJSON *all = cJSON_CreateArray(), *p;
	struct lc_error err;
	struct text near = { 0 };
	size_t shown = 0, d;

	if (get_all(m, "/api/v3/projects/?limit=100", all, &err) == LC_OK)
		for (d = 1; d <= 3 && shown < MCP_NEAR_MAX; d++)
			cJSON_ArrayForEach(p, all) {
				const char *s = mcp_str(p, "slug");

				if (s && shown < MCP_NEAR_MAX &&
				    (distance(s, slug) == d ||
				     (d == 3 && strstr(s, slug)))) {
					add(&near, "%s%s", shown ? ", " : "",
					    s);
					shown++;
				}
			}
	cJSON_Delete(all);
	p = shown ? mcp_tool_failure("No project '%s' on context '%s'. Near "
				     "names: %s. list_projects lists them "
				     "all.",
				     slug, m->session.conn.name, near.s)
		  : mcp_tool_failure("No project '%s' on context '%s'. "
				     "list_projects lists the projects there.",
				     slug, m->session.conn.name);
	free(near.s);
	return p;
}

/* A failed request's result: a 404 for a project names the near ones. */
static cJSON *failed(struct mcp *m, const char *what, const char *project,
		     const struct lc_error *err)
{
	if (project && err->code == LC_EHTTP && err->status == 404 &&
	    strstr(err->message, "Project"))
		return no_project(m, project);
	return mcp_tool_call_failure(what, err);
}

/* list_projects --------------------------------------------------------------------- */

static cJSON *list_projects(struct mcp *m, const cJSON *args)
{
	cJSON *all = cJSON_CreateArray(), *out, *list, *p;
	struct text t = { 0 };
	struct lc_error err;

	(void)args;
	if (get_all(m, "/api/v3/projects/?limit=100", all, &err) != LC_OK) {
		cJSON_Delete(all);
		return mcp_tool_call_failure("listing the projects", &err);
	}
	out = cJSON_CreateObject();
	list = cJSON_AddArrayToObject(out, "projects");
	add(&t, "%d projects on context '%s':\n", cJSON_GetArraySize(all),
	    m->session.conn.name);
	cJSON_ArrayForEach(p, all) {
		cJSON *o = cJSON_CreateObject();
		const char *slug = mcp_str(p, "slug"), *name = mcp_str(p, "name");
		const char *def = mcp_str(p, "default_version");
		const char *docs = str_in(p, "urls", "documentation");
		const char *lang = str_in(p, "language", "code");

		cJSON_AddStringToObject(o, "slug", slug ? slug : "");
		cJSON_AddStringToObject(o, "name", name ? name : "");
		cJSON_AddStringToObject(o, "default_version", def ? def : "");
		cJSON_AddStringToObject(o, "language", lang ? lang : "");
		cJSON_AddStringToObject(o, "documentation", docs ? docs : "");
		cJSON_AddStringToObject(o, "privacy_level",
					mcp_str(p, "privacy_level")
						? mcp_str(p, "privacy_level")
						: "public");
		cJSON_AddItemToArray(list, o);
		add(&t, "- %s (%s): default version %s, %s\n", slug ? slug : "",
		    name ? name : "", def ? def : "-", docs ? docs : "");
	}
	cJSON_Delete(all);
	return result_of(&t, out);
}

/* list_versions ------------------------------------------------------------------------ */

static cJSON *list_versions(struct mcp *m, const cJSON *args)
{
	const char *project = mcp_arg(args, "project");
	cJSON *detail = NULL, *all, *out, *list, *v;
	char path[CLI_PATH_MAX];
	struct text t = { 0 };
	struct lc_error err;
	const char *def;

	if (project == NULL || !mcp_is_slug(project))
		return mcp_tool_failure("list_versions needs a project slug");
	snprintf(path, sizeof(path), "/api/v3/projects/%s/", project);
	if (mcp_get_json(m, path, NULL, &detail, &err) != LC_OK)
		return failed(m, "reading the project", project, &err);
	def = mcp_str(detail, "default_version");
	all = cJSON_CreateArray();
	snprintf(path, sizeof(path), "/api/v3/projects/%s/versions/?limit=100",
		 project);
	if (get_all(m, path, all, &err) != LC_OK) {
		cJSON_Delete(detail);
		cJSON_Delete(all);
		return failed(m, "listing the versions", project, &err);
	}
	out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "project", project);
	cJSON_AddStringToObject(out, "default_version", def ? def : "");
	list = cJSON_AddArrayToObject(out, "versions");
	add(&t, "Versions of %s (default: %s):\n", project, def ? def : "-");
	cJSON_ArrayForEach(v, all) {
		const char *slug = mcp_str(v, "slug");
		int active = cJSON_IsTrue(cJSON_GetObjectItem(v, "active"));
		int built = cJSON_IsTrue(cJSON_GetObjectItem(v, "built"));
		int is_def = slug && def && strcmp(slug, def) == 0;
		const char *type = mcp_str(v, "type");
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "slug", slug ? slug : "");
		cJSON_AddStringToObject(o, "verbose_name",
					mcp_str(v, "verbose_name")
						? mcp_str(v, "verbose_name")
						: "");
		cJSON_AddStringToObject(o, "type", type ? type : "");
		cJSON_AddBoolToObject(o, "active", active);
		cJSON_AddBoolToObject(o, "built", built);
		cJSON_AddBoolToObject(o, "default", is_def);
		cJSON_AddBoolToObject(o, "stable",
				      slug && strcmp(slug, "stable") == 0);
		cJSON_AddStringToObject(o, "documentation",
					str_in(v, "urls", "documentation")
						? str_in(v, "urls",
							 "documentation")
						: "");
		cJSON_AddItemToArray(list, o);
		add(&t, "- %s (%s)%s%s%s\n", slug ? slug : "",
		    type ? type : "?", is_def ? " default" : "",
		    built ? " built" : " not built",
		    active ? "" : " inactive");
	}
	cJSON_Delete(detail);
	cJSON_Delete(all);
	return result_of(&t, out);
}

/* search_docs ------------------------------------------------------------------- */

/* A highlight ("<span>word</span>" marks, HTML-escaped) as plain text
 * with **word** marks, at most MCP_SNIPPET_MAX bytes. */
static void snippet(const char *hl, char *out, size_t cap)
{
	static const struct {
		const char *from, *to;
	} subs[] = { { "<span>", "**" }, { "</span>", "**" },
		     { "&amp;", "&" },   { "&lt;", "<" },
		     { "&gt;", ">" },    { "&quot;", "\"" },
		     { "&#x27;", "'" },  { "&#x2F;", "/" } };
	size_t o = 0, i, limit = cap < MCP_SNIPPET_MAX ? cap : MCP_SNIPPET_MAX;

	while (hl && *hl && o + 3 < limit) {
		for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
			if (strncmp(hl, subs[i].from, strlen(subs[i].from)) ==
			    0)
				break;
		if (i < sizeof(subs) / sizeof(subs[0])) {
			size_t n = strlen(subs[i].to);

			if (o + n + 1 >= limit)
				break;
			memcpy(out + o, subs[i].to, n);
			o += n;
			hl += strlen(subs[i].from);
		} else {
			out[o++] = *hl == '\n' ? ' ' : *hl;
			hl++;
		}
	}
	out[o] = '\0';
}

/* The path of a result's page below its version's root ("/en/latest/a/b.html"
 * with version latest: "a/b.html"). */
static const char *page_path(const char *path, const char *version)
{
	char mark[128];
	const char *at;

	if (path == NULL)
		return "";
	snprintf(mark, sizeof(mark), "/%s/", version ? version : "");
	if (version && (at = strstr(path, mark)) != NULL)
		return at + strlen(mark);
	return path[0] == '/' ? path + 1 : path;
}

static void add_hit(struct text *t, cJSON *hits, const cJSON *r,
		    const cJSON *block, int n)
{
	const char *project = mcp_str(r, "project"), *version = mcp_str(r, "version");
	const char *title = mcp_str(r, "title"), *domain = mcp_str(r, "domain");
	const char *path = mcp_str(r, "path");
	/* A section block has a title; a domain block (an API entry,
	 * "py:function asyncio.gather") its name, its id the anchor. */
	const char *stitle = block ? (mcp_str(block, "title")
					      ? mcp_str(block, "title")
					      : mcp_str(block, "name"))
				   : NULL;
	const char *id = block ? mcp_str(block, "id") : NULL;
	const cJSON *hl = block ? cJSON_GetObjectItemCaseSensitive(
					  cJSON_GetObjectItemCaseSensitive(
						  block, "highlights"),
					  "content")
				: NULL;
	const char *content = block ? mcp_str(block, "content") : NULL;
	char snip[MCP_SNIPPET_MAX + 1], url[2048];
	cJSON *o = cJSON_CreateObject(), *ref;

	if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(r, "project"))) {
		project = str_in(r, "project", "slug");
		version = str_in(r, "version", "slug");
	}
	snippet(cJSON_IsArray(hl) && cJSON_GetArraySize(hl) > 0
			? cJSON_GetArrayItem(hl, 0)->valuestring
			: content,
		snip, sizeof(snip));
	snprintf(url, sizeof(url), "%s%s%s%s", domain ? domain : "",
		 path ? path : "", id ? "#" : "", id ? id : "");
	cJSON_AddStringToObject(o, "project", project ? project : "");
	cJSON_AddStringToObject(o, "version", version ? version : "");
	cJSON_AddStringToObject(o, "page_title", title ? title : "");
	cJSON_AddStringToObject(o, "section_title", stitle ? stitle : "");
	cJSON_AddStringToObject(o, "url", url);
	cJSON_AddStringToObject(o, "snippet", snip);
	ref = cJSON_AddObjectToObject(o, "ref");
	cJSON_AddStringToObject(ref, "project", project ? project : "");
	cJSON_AddStringToObject(ref, "version", version ? version : "");
	cJSON_AddStringToObject(ref, "path", page_path(path, version));
	if (id)
		cJSON_AddStringToObject(ref, "section", id);
	cJSON_AddItemToArray(hits, o);
	add(t, "%d. %s%s%s (%s/%s)\n   %s\n   %s\n   read_page: project=%s "
	       "version=%s path=%s%s%s\n",
	    n, title ? title : "", stitle ? " — " : "", stitle ? stitle : "",
	    project ? project : "", version ? version : "", url, snip,
	    project ? project : "", version ? version : "",
	    page_path(path, version), id ? " section=" : "", id ? id : "");
}

static cJSON *search_docs(struct mcp *m, const cJSON *args)
{
	const char *query = mcp_arg(args, "query"), *project, *version;
	long limit = mcp_arg_int(args, "limit", MCP_SEARCH_DEFAULT, 1,
				 MCP_SEARCH_MAX);
	struct lc_query q = { 0 };
	struct text t = { 0 };
	struct lc_error err;
	cJSON *page = NULL, *out, *hits, *r, *b;
	char *path = NULL;
	int n = 0, rc;

	project = mcp_arg(args, "project");
	version = mcp_arg(args, "version");
	if (query == NULL || *query == '\0')
		return mcp_tool_failure("search_docs needs a query");
	if (limit < 0)
		return mcp_tool_failure("limit is a whole number from 1 to %d",
					MCP_SEARCH_MAX);
	if ((project && !mcp_is_slug(project)) ||
	    (version && !mcp_is_slug(version)))
		return mcp_tool_failure("not a project or version slug");
	lc_client_detect(m->session.client, &err);
	rc = lc_search_request(m->session.client, query, project,
			       project ? version : NULL, 1, (int)limit, &path,
			       &q);
	if (rc == LC_OK)
		rc = mcp_get_json(m, path, &q, &page, &err);
	free(path);
	lc_query_dispose(&q);
	if (rc != LC_OK)
		return failed(m, "searching", project, &err);
	out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "query", query);
	hits = cJSON_AddArrayToObject(out, "results");
	/* Each page's sections and API entries in the order they matched,
	 * pages in the order the search ranked them. */
	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(page, "results")) {
		int blocks = 0;

		cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(r,
								      "blocks"))
		{
			if (n >= limit)
				continue;
			add_hit(&t, hits, r, b, ++n);
			blocks++;
		}
		if (blocks == 0 && n < limit)
			add_hit(&t, hits, r, NULL, ++n);
	}
	if (n == 0)
		add(&t, "No section matches \"%s\".\n", query);
	cJSON_Delete(page);
	return result_of(&t, out);
}

/* get_build ------------------------------------------------------------------------ */

static void add_warnings(struct mcp *m, const char *project, long long id,
			 struct text *t, cJSON *out)
{
	char path[CLI_PATH_MAX];
	cJSON *page = NULL, *w, *list;
	struct lc_error err;
	long long count;

	snprintf(path, sizeof(path),
		 "/api/v3/projects/%s/builds/%lld/warnings/?limit=%d", project,
		 id, MCP_WARNINGS_SHOWN);
	if (mcp_get_json(m, path, NULL, &page, &err) != LC_OK)
		return; /* an instance without Lectern's warnings */
	count = (long long)cJSON_GetNumberValue(
		cJSON_GetObjectItemCaseSensitive(page, "count"));
	list = cJSON_AddArrayToObject(out, "warnings");
	add(t, "Warnings: %lld%s\n", count,
	    count > MCP_WARNINGS_SHOWN ? " (the first shown)" : "");
	cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(page, "results")) {
		struct lc_warning *lw = NULL;
		char *line;

		if (lc_warning_parse(w, &lw, &err) != LC_OK)
			continue;
		if ((line = lc_warning_format(lw)) != NULL) {
			add(t, "  %s\n", line);
			cJSON_AddItemToArray(list, cJSON_CreateString(line));
			free(line);
		}
		lc_warning_free(lw);
	}
	cJSON_AddNumberToObject(out, "warnings_count", (double)count);
	cJSON_Delete(page);
}

static cJSON *get_build(struct mcp *m, const cJSON *args)
{
	const char *project = mcp_arg(args, "project");
	long build = mcp_arg_int(args, "build", 0, 1, 1L << 40);
	char path[CLI_PATH_MAX];
	struct text t = { 0 };
	struct lc_error err;
	struct lc_build *b = NULL;
	cJSON *json = NULL, *item, *out;

	if (project == NULL || !mcp_is_slug(project))
		return mcp_tool_failure("get_build needs a project slug");
	if (build < 0)
		return mcp_tool_failure("build is a build number");
	if (build > 0)
		snprintf(path, sizeof(path), "/api/v3/projects/%s/builds/%ld/",
			 project, build);
	else
		snprintf(path, sizeof(path),
			 "/api/v3/projects/%s/builds/?limit=1", project);
	if (mcp_get_json(m, path, NULL, &json, &err) != LC_OK)
		return failed(m, "reading the build", project, &err);
	item = build > 0 ? json
			 : cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
						      json, "results"),
					      0);
	if (item == NULL || lc_build_parse(item, &b, &err) != LC_OK) {
		cJSON_Delete(json);
		return mcp_tool_failure("%s has no build yet", project);
	}
	out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "project", project);
	cJSON_AddNumberToObject(out, "build", (double)b->id);
	cJSON_AddStringToObject(out, "version", b->version ? b->version : "");
	cJSON_AddStringToObject(out, "state", b->state ? b->state : "");
	if (b->success == 0 || b->success == 1)
		cJSON_AddBoolToObject(out, "success", b->success);
	else
		cJSON_AddNullToObject(out, "success");
	if (b->error)
		cJSON_AddStringToObject(out, "error", b->error);
	else
		cJSON_AddNullToObject(out, "error");
	cJSON_AddStringToObject(out, "commit", b->commit ? b->commit : "");
	cJSON_AddStringToObject(out, "created", b->created ? b->created : "");
	add(&t, "Build #%lld of %s/%s: %s%s\n", b->id, project,
	    b->version ? b->version : "?", b->state ? b->state : "?",
	    b->success == 1 ? ", passed" : b->success == 0 ? ", failed" : "");
	if (b->commit)
		add(&t, "Commit: %s\n", b->commit);
	if (b->error)
		add(&t, "Error: %s\n", b->error);
	add_warnings(m, project, b->id, &t, out);
	lc_build_free(b);
	cJSON_Delete(json);
	return result_of(&t, out);
}

/* trigger_build -------------------------------------------------------------------- */

static cJSON *trigger_build(struct mcp *m, const cJSON *args)
{
	const char *project = mcp_arg(args, "project");
	const char *version = mcp_arg(args, "version");
	struct mcp_call call = { "POST", NULL, NULL, NULL, NULL };
	char path[CLI_PATH_MAX];
	struct lc_response *r = NULL;
	struct text t = { 0 };
	struct lc_error err;
	long long id;
	cJSON *out;

	if (project == NULL || version == NULL ||
	    !mcp_is_slug(project) ||
	    !mcp_is_slug(version))
		return mcp_tool_failure("trigger_build needs a project and a "
					"version slug");
	snprintf(path, sizeof(path),
		 "/api/v3/projects/%s/versions/%s/builds/", project, version);
	call.path = path;
	if (mcp_call(m, &call, &r, &err) != LC_OK) {
		lc_response_free(r);
		return failed(m, "triggering the build", project, &err);
	}
	id = (long long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(r ? r->json : NULL, "build"),
		"id"));
	lc_response_free(r);
	out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "project", project);
	cJSON_AddStringToObject(out, "version", version);
	cJSON_AddNumberToObject(out, "build", (double)id);
	add(&t, "Triggered build #%lld of %s/%s; get_build with build=%lld "
		"follows it.\n",
	    id, project, version, id);
	return result_of(&t, out);
}

/* The table --------------------------------------------------------------------------- */

struct tool {
	const char *name, *title, *description, *input;
	int writes; /* offered only with --allow-write */
	cJSON *(*call)(struct mcp *m, const cJSON *args);
};

#define SLUG "{\"type\":\"string\",\"description\":"

static const struct tool tools[] = {
	{ "search_docs", "Search the documentation",
	  "Full-text search of the documentation Lectern holds (the exact "
	  "versions built or mirrored here, offline). Returns ranked "
	  "sections with project, version, page and section titles, URL, a "
	  "snippet with the matches in **bold**, and a ref whose project, "
	  "version, path and section read_page takes. Without a project, "
	  "every project the token's user maintains is searched.",
	  "{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\","
	  "\"description\":\"words, \\\"a phrase\\\", +required, -excluded\"},"
	  "\"project\":" SLUG "\"a project slug (list_projects)\"},"
	  "\"version\":" SLUG "\"a version slug of the project (default: "
	  "latest)\"},\"limit\":{\"type\":\"integer\",\"minimum\":1,"
	  "\"maximum\":50,\"description\":\"sections at most (default 10)\"}},"
	  "\"required\":[\"query\"],\"additionalProperties\":false}",
	  0, search_docs },
	{ "read_page", "Read a page",
	  "A page of a project's built documentation (or one section of it) "
	  "as Markdown: code blocks, tables and lists kept, each heading "
	  "ending with its anchor {#id} (what section takes), links made "
	  "absolute. A long page comes in parts: pass the answer's "
	  "next_cursor as cursor for the next.",
	  "{\"type\":\"object\",\"properties\":{\"project\":" SLUG
	  "\"a project slug\"},\"version\":" SLUG "\"a version slug "
	  "(default: the project's default version)\"},\"path\":{\"type\":"
	  "\"string\",\"description\":\"the page's path below the version, "
	  "e.g. library/asyncio-task.html (a search result's ref.path)\"},"
	  "\"section\":{\"type\":\"string\",\"description\":\"an anchor: only "
	  "that section\"},\"cursor\":{\"type\":\"string\",\"description\":"
	  "\"next_cursor of the previous part\"},\"max_chars\":{\"type\":"
	  "\"integer\",\"minimum\":1000,\"maximum\":200000,\"description\":"
	  "\"characters a part holds at most (default 20000)\"}},"
	  "\"required\":[\"project\",\"path\"],\"additionalProperties\":false}",
	  0, mcp_read_page },
	{ "list_projects", "List the projects",
	  "Every project of this Lectern context: slug, name, default "
	  "version, language and documentation URL.",
	  "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":"
	  "false}",
	  0, list_projects },
	{ "list_versions", "List a project's versions",
	  "A project's versions: which is the default and which is stable, "
	  "which are built (only built ones have pages), active or not.",
	  "{\"type\":\"object\",\"properties\":{\"project\":" SLUG
	  "\"a project slug\"}},\"required\":[\"project\"],"
	  "\"additionalProperties\":false}",
	  0, list_versions },
	{ "get_build", "Read a build",
	  "A build of a project (its newest without build): state, result, "
	  "commit, the error line when it failed, and its warnings as "
	  "file:line: kind: message — what to fix after a change broke the "
	  "docs build.",
	  "{\"type\":\"object\",\"properties\":{\"project\":" SLUG
	  "\"a project slug\"},\"build\":{\"type\":\"integer\",\"minimum\":1,"
	  "\"description\":\"a build number (default: the newest)\"}},"
	  "\"required\":[\"project\"],\"additionalProperties\":false}",
	  0, get_build },
	{ "trigger_build", "Build a version",
	  "Start a build of a project's version (from its newest commit); "
	  "get_build follows it.",
	  "{\"type\":\"object\",\"properties\":{\"project\":" SLUG
	  "\"a project slug\"},\"version\":" SLUG "\"a version slug\"}},"
	  "\"required\":[\"project\",\"version\"],\"additionalProperties\":"
	  "false}",
	  1, trigger_build },
};

#define TOOLS (sizeof(tools) / sizeof(tools[0]))

cJSON *mcp_tools_list(const struct mcp *m)
{
	cJSON *out = cJSON_CreateObject(), *list;
	size_t i;

	list = cJSON_AddArrayToObject(out, "tools");
	for (i = 0; i < TOOLS; i++) {
		cJSON *o;

		if (tools[i].writes && !m->allow_write)
			continue;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", tools[i].name);
		cJSON_AddStringToObject(o, "title", tools[i].title);
		cJSON_AddStringToObject(o, "description", tools[i].description);
		cJSON_AddItemToObject(o, "inputSchema",
				      cJSON_Parse(tools[i].input));
		cJSON_AddItemToArray(list, o);
	}
	return out;
}

int mcp_tools_call(struct mcp *m, const cJSON *params, cJSON **result)
{
	const char *name = mcp_arg(params, "name");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(params,
							     "arguments");
	size_t i;

	*result = NULL;
	for (i = 0; name && i < TOOLS; i++)
		if (strcmp(name, tools[i].name) == 0 &&
		    (!tools[i].writes || m->allow_write))
			break;
	if (name == NULL || i == TOOLS)
		return MCP_INVALID_PARAMS;
	if (args != NULL && !cJSON_IsObject(args))
		return MCP_INVALID_PARAMS;
	*result = tools[i].call(m, args);
	return 0;
}
