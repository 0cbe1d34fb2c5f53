/*
 * The client's models, described once: for each struct of client.h parsed
 * from the API's JSON, a field table (fields.h) with a row per field it
 * reads, from which its lc_*_parse and lc_*_free come. The tables say where
 * a v2 shape names a field differently (rows marked F_ELSE), and the few
 * fields that convert (a build's cache, an embed's content list) have
 * their functions here. The parsers are deliberately lenient, because the
 * same code reads Lectern's answers and the hosted service's, across v2
 * and v3 shapes and with `fields`/`omit` applied: unknown fields are
 * ignored, missing or null ones left NULL/-1/LC_UNKNOWN, and a field of an
 * unexpected type is treated as missing. Only a value that is not an
 * object at all is an error. Each model keeps a copy of its JSON (`raw`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"

/* The model of struct lc_NAME from NAME_fields (what: for the error of
 * a value that is no object), and its lc_NAME_parse and lc_NAME_free. */
#define MODEL(name, what)                                                    \
	static const struct lc__model name##_model =                         \
		LC__MODEL(what, struct lc_##name, name##_fields,             \
			  offsetof(struct lc_##name, raw));                  \
	int lc_##name##_parse(const cJSON *json, struct lc_##name **out,     \
			      struct lc_error *err)                          \
	{                                                                    \
		void *rec;                                                   \
		int rc = lc__model_parse(&name##_model, json, &rec, err);    \
		*out = rec;                                                  \
		return rc;                                                   \
	}                                                                    \
	void lc_##name##_free(struct lc_##name *rec)                         \
	{                                                                    \
		lc__model_free(&name##_model, rec);                          \
	}

/* The model of a list's items, type, from NAME_fields. */
#define ITEMS(name, type)                                                    \
	static const struct lc__model name##_model =                         \
		LC__MODEL(NULL, type, name##_fields, LC__NO_RAW)

/* ------------------------------------------------------------ Project */

#define F_REC struct lc_project
static const struct lc__field project_fields[] = {
	F_INT("id", id, -1),
	F_STR("name", name),
	F_STR("slug", slug),
	F_STR_OR_IN("language", "code", language),
	F_STR_OR_IN("programming_language", "code", programming_language),
	/* v3 sends {url, type}; v2, without that object, repo and
	 * repo_type. */
	F_STR_IN("repository", "url", repository_url, F_SETTLES),
	F_STR("repo", repository_url, F_ELSE),
	F_STR_IN("repository", "type", repository_type, F_SETTLES),
	F_STR("repo_type", repository_type, F_ELSE),
	F_STR("homepage", homepage),
	F_STR("default_version", default_version),
	F_STR("default_branch", default_branch),
	F_STR_IN("urls", "documentation", documentation_url),
	F_STR("canonical_url", documentation_url, F_ELSE),
	F_STR_OR_IN("subproject_of", "slug", subproject_of),
	F_STR_OR_IN("translation_of", "slug", translation_of),
	F_TIME("created", created),
	F_TIME("modified", modified),
	F_STRINGS("tags", tags, tags_len),
	F_STR_IN("mirror", "source", mirror_source),
	F_STR_IN("mirror", "project", mirror_project),
	F_TIME_IN("mirror", "updated", mirror_updated),
};
#undef F_REC
MODEL(project, "a project")

/* ------------------------------------------------------------ Version */

#define F_REC struct lc_version
static const struct lc__field version_fields[] = {
	F_INT("id", id, -1),
	F_STR("slug", slug),
	F_STR("verbose_name", verbose_name),
	F_STR("identifier", identifier),
	F_STR("ref", ref),
	F_STR("type", type),
	F_STR("privacy_level", privacy_level),
	F_BOOL("active", active),
	F_BOOL("hidden", hidden),
	F_BOOL("built", built),
	F_STR_IN("urls", "documentation", documentation_url),
	F_STR_OR_IN("project", "slug", project),
};
#undef F_REC
MODEL(version, "a version")

/* -------------------------------------------------------------- Build */

#define F_REC struct lc_build_command
static const struct lc__field command_fields[] = {
	F_INT("id", id, -1),
	F_STR("command", command),
	F_STR("description", description),
	F_STR("output", output),
	F_INT("exit_code", exit_code, -1),
	F_INT("run_time", run_time, -1),
	F_TIME("start_time", start_time),
	F_TIME("end_time", end_time),
};
#undef F_REC
ITEMS(command, struct lc_build_command);

/* {"<cache>": {"reused": bool, "reason": text}, ...} in a word. */
static int cache_kind(struct lc__parse *p, const cJSON *cache, void *member)
{
	const cJSON *one;
	int reused = 0, all = 0;

	(void)p;
	if (cJSON_IsObject(cache))
		cJSON_ArrayForEach(one, cache) {
			all++;
			if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
				    one, "reused")))
				reused++;
		}
	*(int *)member = all == 0	     ? LC_CACHE_UNKNOWN
			 : reused == all ? LC_CACHE_KEPT
			 : reused == 0   ? LC_CACHE_FRESH
					 : LC_CACHE_PARTLY;
	return all > 0;
}

/* The first cache not reused that says why: "doctrees: conf.py changed". */
static int cache_reason(struct lc__parse *p, const cJSON *cache,
			void *member)
{
	char **out = member;
	const cJSON *one;

	if (!cJSON_IsObject(cache))
		return 0;
	cJSON_ArrayForEach(one, cache) {
		const cJSON *why = cJSON_GetObjectItemCaseSensitive(one, "reason");
		size_t n;

		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(one, "reused")) ||
		    !cJSON_IsString(why) || one->string == NULL)
			continue;
		n = strlen(one->string) + strlen(why->valuestring) + 3;
		if ((*out = malloc(n)) == NULL)
			lc__parse_nomem(p);
		else
			snprintf(*out, n, "%s: %s", one->string,
				 why->valuestring);
		return 1;
	}
	return 0;
}

/* v3 names first, then the v2 ones (project_slug, date, length, ...). */
#define F_REC struct lc_build
static const struct lc__field build_fields[] = {
	F_INT("id", id, -1),
	F_STR("project", project),
	F_STR("project_slug", project, F_ELSE),
	F_STR("version", version),
	F_STR("version_slug", version, F_ELSE),
	F_STR_OR_IN("state", "code", state),
	F_STR_IN("state", "name", state_name),
	F_STR("state_display", state_name, F_ELSE),
	F_BOOL("success", success),
	F_STR("error", error, F_EMPTY_IS_NULL),
	F_STR("commit", commit),
	F_TIME("created", created),
	F_TIME("date", created, F_ELSE),
	F_TIME("finished", finished),
	F_INT("duration", duration, -1),
	F_INT("length", duration, -1, F_ELSE),
	F_STR_IN("urls", "build", build_url),
	F_STR("docs_url", docs_url),
	F_LIST("commands", commands, commands_len, &command_model),
	/* Lectern's `progress` object (absent: phase stays NULL). */
	F_STR_IN("progress", "phase", progress.phase),
	F_INT_IN("progress", "objects", progress.objects, 0),
	F_INT_IN("progress", "total", progress.total, -1),
	F_INT_IN("progress", "bytes", progress.bytes, 0),
	F_INT_IN("progress", "percent", progress.percent, -1),
	F_STR("triggered_by", triggered_by),
	F_CONVERT("cache", LC__BOOL, cache, cache_kind),
	F_CONVERT("cache", LC__STR, cache_reason, cache_reason),
	/* Lectern's {"count", "new", "fixed"[, "dropped"]}; count -1 when
	 * absent. */
	F_INT_IN("warnings", "count", warnings.count, -1),
	F_INT_IN("warnings", "new", warnings.new_count, 0),
	F_INT_IN("warnings", "fixed", warnings.fixed, 0),
	F_INT_IN("warnings", "dropped", warnings.dropped, 0),
	F_STR("version_type", version_type),
	F_STR("external_forge", external_forge),
};
#undef F_REC
MODEL(build, "a build")

/* The service's short names of an external version's origin
 * (Version.explicit_name): a pull request, a merge request, or another
 * external version. */
static const char *external_mark(const char *forge)
{
	if (forge && strcmp(forge, "github") == 0)
		return "PR";
	if (forge && strcmp(forge, "gitlab") == 0)
		return "MR";
	return "EV";
}

const char *lc_build_version_shown(const struct lc_build *b, char *buf,
				   size_t size)
{
	const char *v = b->version;

	if (v == NULL)
		return NULL;
	if (b->version_type == NULL || strcmp(b->version_type, "external"))
		snprintf(buf, size, "%s", v);
	else
		snprintf(buf, size, "%s%s (%s)",
			 *v && strspn(v, "0123456789") == strlen(v) ? "#" : "",
			 v, external_mark(b->external_forge));
	return buf;
}

const char *lc_build_cache_word(const struct lc_build *b)
{
	static const char *const words[] = { "", "fresh", "partly", "kept" };

	return b && (unsigned)b->cache < sizeof(words) / sizeof(words[0])
		       ? words[b->cache]
		       : "";
}

/* ------------------------------------------------------------ Warning */

#define F_REC struct lc_warning
static const struct lc__field warning_fields[] = {
	F_STR_OR("file", file, ""),
	F_INT("line", line, 0),
	F_STR_OR("kind", kind, "warning"),
	F_STR_OR("message", message, ""),
	F_BOOL("new", is_new),
};
#undef F_REC
MODEL(warning, "a warning")

char *lc_warning_format(const struct lc_warning *w)
{
	size_t cap = strlen(w->file) + strlen(w->kind) + 32, n = 0, i;
	char *out, *p;

	for (i = 0; w->message[i]; i++)
		cap += w->message[i] == '\n' ? 3 : 1;
	if ((out = malloc(cap)) == NULL)
		return NULL;
	if (*w->file)
		n += (size_t)snprintf(out + n, cap - n, "%s:", w->file);
	if (*w->file && w->line > 0)
		n += (size_t)snprintf(out + n, cap - n, "%lld:", w->line);
	n += (size_t)snprintf(out + n, cap - n, "%s%s: ", n ? " " : "",
			      w->kind);
	/* Further lines indented, so each record starts a line of its own. */
	for (p = w->message; *p && n + 3 < cap; p++) {
		out[n++] = *p;
		if (*p == '\n' && p[1] != '\n' && p[1] != '\0') {
			out[n++] = ' ';
			out[n++] = ' ';
		}
	}
	out[n] = '\0';
	return out;
}

/* ----------------------------------------------------------- Redirect */

#define F_REC struct lc_redirect
static const struct lc__field redirect_fields[] = {
	F_INT("pk", pk, -1),
	F_STR("project", project),
	F_STR("type", type),
	F_STR("from_url", from_url),
	F_STR("to_url", to_url),
	F_TIME("created", created),
	F_TIME("modified", modified),
	F_INT("http_status", http_status, 0),
	F_INT("position", position, -1),
	F_BOOL("enabled", enabled),
	F_BOOL("force", force),
};
#undef F_REC
MODEL(redirect, "a redirect")

/* ------------------------------------------------------- Env variable */

#define F_REC struct lc_envvar
static const struct lc__field envvar_fields[] = {
	F_INT("pk", pk, -1),
	F_STR("project", project),
	F_STR("name", name),
	F_BOOL("public", public_),
	F_TIME("created", created),
	F_TIME("modified", modified),
};
#undef F_REC
MODEL(envvar, "an environment variable")

/* --------------------------------------------------------- Subproject */

#define F_REC struct lc_subproject
static const struct lc__field subproject_fields[] = {
	F_STR("alias", alias),
	F_MODEL_REQUIRED("child", child, &project_model,
			 "a subproject without its child project"),
};
#undef F_REC
MODEL(subproject, "a subproject")

/* ------------------------------------------------------- Organization */

#define F_REC struct lc_organization
static const struct lc__field organization_fields[] = {
	F_STR("slug", slug),
	F_STR("name", name),
	F_STR("description", description),
	F_STR("email", email),
	F_STR("url", url),
	F_BOOL("disabled", disabled),
	F_TIME("created", created),
	F_TIME("modified", modified),
	F_STRINGS_OF("owners", "username", owners, owners_len),
};
#undef F_REC
MODEL(organization, "an organization")

/* ------------------------------------------------------------- Search */

#define F_REC struct lc_search_block
static const struct lc__field block_fields[] = {
	F_STR("type", type),
	F_STR("id", id),
	F_STR("title", title),
	F_STR("content", content),
	F_STR("role", role),
	F_STR("name", name),
	F_STRINGS_IN("highlights", "title", hl_title.items, hl_title.len),
	F_STRINGS_IN("highlights", "content", hl_content.items,
		     hl_content.len),
	F_STRINGS_IN("highlights", "name", hl_name.items, hl_name.len),
};
#undef F_REC
ITEMS(block, struct lc_search_block);

/* v2 sends project/version as slugs; v3 as {slug, alias}/{slug}. */
#define F_REC struct lc_search_result
static const struct lc__field search_result_fields[] = {
	F_STR("type", type),
	F_STR_OR_IN("project", "slug", project),
	F_STR("project_alias", project_alias),
	F_STR_IN("project", "alias", project_alias, F_ELSE),
	F_STR_OR_IN("version", "slug", version),
	F_STR("title", title),
	F_STR("domain", domain),
	F_STR("path", path),
	F_STRINGS_IN("highlights", "title", hl_title.items, hl_title.len),
	F_LIST("blocks", blocks, blocks_len, &block_model),
};
#undef F_REC
MODEL(search_result, "a search result")

/* -------------------------------------------------------------- Embed */

/* v3 sends content as one string; the historical v2 answer as a list of
 * HTML strings, joined here. */
static int embed_content(struct lc__parse *p, const cJSON *v, void *member)
{
	char **out = member;
	struct lc_buf b = { 0 };
	const cJSON *item;

	if (!cJSON_IsArray(v)) {
		*out = cJSON_IsString(v) ? lc__parse_dup(p, v->valuestring)
					 : NULL;
		return cJSON_IsString(v);
	}
	cJSON_ArrayForEach(item, v) {
		if (!cJSON_IsString(item))
			continue;
		if (b.len > 0)
			lc__buf_str(&b, "\n");
		lc__buf_str(&b, item->valuestring);
	}
	if (b.rc != LC_OK)
		lc__parse_nomem(p);
	*out = b.s;
	return 1;
}

#define F_REC struct lc_embed
static const struct lc__field embed_fields[] = {
	F_STR("url", url),
	F_STR("fragment", fragment),
	F_CONVERT("content", LC__STR, content, embed_content),
	F_BOOL("external", external),
};
#undef F_REC
MODEL(embed, "an embed answer")

/* ---------------------------------------------------------- Page diff */

#define F_REC struct lc_diff_section
static const struct lc__field section_fields[] = {
	F_STR("id", id),
	F_STR("status", status),
	F_STR("title", title),
	F_STR("base_title", base_title),
	F_STRINGS("lines", lines, lines_len),
};
#undef F_REC
ITEMS(section, struct lc_diff_section);

#define F_REC struct lc_diff_page
static const struct lc__field page_fields[] = {
	F_STR("path", path),
	F_STR("status", status),
	F_STR("title", title),
	F_STR("base_title", base_title),
	F_LIST("sections", sections, sections_len, &section_model),
};
#undef F_REC
ITEMS(page, struct lc_diff_page);

#define F_REC struct lc_diff
static const struct lc__field diff_fields[] = {
	F_STR_IN("base", "ref", base_ref),
	F_STR_IN("head", "ref", head_ref),
	F_INT_IN("base", "build", base_build, -1),
	F_INT_IN("head", "build", head_build, -1),
	F_INT("unchanged", unchanged, -1),
	F_BOOL("truncated", truncated),
	F_LIST("pages", pages, pages_len, &page_model),
};
#undef F_REC
MODEL(diff, "a diff")
