/*
 * Every member of every model the client parses, held to what it does with
 * each field: a good value, and the field missing, null or of another type
 * (the default, never an error), plus the alternatives one model reads for
 * the v2 and v3 shapes and the fields that convert (a build's cache, an
 * embed's content). One table row per member and JSON path; the test puts
 * the value at that path into the model's smallest valid object, parses it
 * and reads the member back. Under ASan it also shows that each model's
 * _free releases whatever a parse filled in.
 */
#include <stddef.h>
#include <stdlib.h>

#include "client_harness.h"

/* ------------------------------------------------------------ Models */

struct model {
	const char *what; /* as in "expected a JSON object for %s" */
	const char *base; /* the smallest object that parses */
	int (*parse)(const cJSON *json, void **out, struct lc_error *err);
	void (*free)(void *item);
	size_t raw;
};

#define MODEL_FNS(name, type)                                                \
	static int parse_##name(const cJSON *j, void **out,                  \
				struct lc_error *err)                        \
	{                                                                    \
		type *item = NULL;                                           \
		int rc = lc_##name##_parse(j, &item, err);                   \
		*out = item;                                                 \
		return rc;                                                   \
	}                                                                    \
	static void free_##name(void *item)                                  \
	{                                                                    \
		lc_##name##_free(item);                                      \
	}

MODEL_FNS(project, struct lc_project)
MODEL_FNS(version, struct lc_version)
MODEL_FNS(build, struct lc_build)
MODEL_FNS(warning, struct lc_warning)
MODEL_FNS(redirect, struct lc_redirect)
MODEL_FNS(envvar, struct lc_envvar)
MODEL_FNS(subproject, struct lc_subproject)
MODEL_FNS(organization, struct lc_organization)
MODEL_FNS(search_result, struct lc_search_result)
MODEL_FNS(embed, struct lc_embed)
MODEL_FNS(diff, struct lc_diff)

enum { PROJECT, VERSION, BUILD, WARNING, REDIRECT, ENVVAR, SUBPROJECT, ORG,
       SEARCH, EMBED, DIFF, MODELS };

#define M(name, type, what, base)                                            \
	{ what, base, parse_##name, free_##name, offsetof(type, raw) }

static const struct model models[MODELS] = {
	[PROJECT] = M(project, struct lc_project, "a project", "{}"),
	[VERSION] = M(version, struct lc_version, "a version", "{}"),
	[BUILD] = M(build, struct lc_build, "a build", "{}"),
	[WARNING] = M(warning, struct lc_warning, "a warning", "{}"),
	[REDIRECT] = M(redirect, struct lc_redirect, "a redirect", "{}"),
	[ENVVAR] = M(envvar, struct lc_envvar, "an environment variable", "{}"),
	[SUBPROJECT] = M(subproject, struct lc_subproject, "a subproject",
			 "{\"child\":{}}"),
	[ORG] = M(organization, struct lc_organization, "an organization", "{}"),
	[SEARCH] = M(search_result, struct lc_search_result, "a search result",
		     "{}"),
	[EMBED] = M(embed, struct lc_embed, "an embed answer", "{}"),
	[DIFF] = M(diff, struct lc_diff, "a diff", "{}"),
};

/* The record a member lives in, when it is not the model itself: the
 * first item of a list, a nested model. */
static void *self(void *m) { return m; }
static void *command0(void *m) { return ((struct lc_build *)m)->commands; }
static void *block0(void *m) { return ((struct lc_search_result *)m)->blocks; }
static void *page0(void *m) { return ((struct lc_diff *)m)->pages; }
static void *section0(void *m)
{
	struct lc_diff_page *p = page0(m);

	return p ? p->sections : NULL;
}
static void *child(void *m) { return ((struct lc_subproject *)m)->child; }

/* ------------------------------------------------------------ Probes */

enum kind { K_STR, K_INT, K_BOOL, K_ARRAY };

/* One member read from one JSON path ("a.b"; "[]" is a list's one item).
 * Missing, null or another type: def_s / def_i (K_ARRAY: NULL and 0).
 * The good JSON value gives want_s / want_i (K_ARRAY: the length). */
struct probe {
	int model;
	void *(*at)(void *model);
	const char *path;
	enum kind kind;
	size_t offset, len_offset;
	const char *def_s;
	long long def_i;
	const char *good;
	const char *want_s;
	long long want_i;
	const char *member; /* for messages */
};

#define STR(mo, at, T, m, path)                                              \
	{ mo, at, path, K_STR, offsetof(T, m), 0, NULL, 0, "\"v\"", "v", 0, #m }
#define STRD(mo, T, m, path, def)                                            \
	{ mo, self, path, K_STR, offsetof(T, m), 0, def, 0, "\"v\"", "v", 0, #m }
#define INT(mo, at, T, m, path, def)                                         \
	{ mo, at, path, K_INT, offsetof(T, m), 0, NULL, def, "42", NULL, 42, #m }
#define BOOL(mo, at, T, m, path)                                             \
	{ mo, at, path, K_BOOL, offsetof(T, m), 0, NULL, LC_UNKNOWN, "true",  \
	  NULL, 1, #m }
#define ARRAY(mo, at, T, m, len, path, good, n)                              \
	{ mo, at, path, K_ARRAY, offsetof(T, m), offsetof(T, len), NULL, 0,   \
	  good, NULL, n, #m }

#define P_ struct lc_project
#define V_ struct lc_version
#define B_ struct lc_build
#define C_ struct lc_build_command
#define W_ struct lc_warning
#define R_ struct lc_redirect
#define E_ struct lc_envvar
#define S_ struct lc_subproject
#define O_ struct lc_organization
#define Q_ struct lc_search_result
#define K_ struct lc_search_block
#define X_ struct lc_embed
#define D_ struct lc_diff
#define G_ struct lc_diff_page
#define N_ struct lc_diff_section

#define STRINGS_GOOD "[\"a\",3,\"b\",null]"
#define LIST_GOOD "[{},7,{},\"x\"]"

static const struct probe probes[] = {
	INT(PROJECT, self, P_, id, "id", -1),
	STR(PROJECT, self, P_, name, "name"),
	STR(PROJECT, self, P_, slug, "slug"),
	STR(PROJECT, self, P_, language, "language"),
	STR(PROJECT, self, P_, language, "language.code"),
	STR(PROJECT, self, P_, programming_language, "programming_language"),
	STR(PROJECT, self, P_, programming_language, "programming_language.code"),
	STR(PROJECT, self, P_, repository_url, "repository.url"),
	STR(PROJECT, self, P_, repository_url, "repo"),
	STR(PROJECT, self, P_, repository_type, "repository.type"),
	STR(PROJECT, self, P_, repository_type, "repo_type"),
	STR(PROJECT, self, P_, homepage, "homepage"),
	STR(PROJECT, self, P_, default_version, "default_version"),
	STR(PROJECT, self, P_, default_branch, "default_branch"),
	STR(PROJECT, self, P_, documentation_url, "urls.documentation"),
	STR(PROJECT, self, P_, documentation_url, "canonical_url"),
	STR(PROJECT, self, P_, subproject_of, "subproject_of"),
	STR(PROJECT, self, P_, subproject_of, "subproject_of.slug"),
	STR(PROJECT, self, P_, translation_of, "translation_of"),
	STR(PROJECT, self, P_, translation_of, "translation_of.slug"),
	STR(PROJECT, self, P_, created, "created"),
	STR(PROJECT, self, P_, modified, "modified"),
	ARRAY(PROJECT, self, P_, tags, tags_len, "tags", STRINGS_GOOD, 2),
	STR(PROJECT, self, P_, mirror_source, "mirror.source"),
	STR(PROJECT, self, P_, mirror_project, "mirror.project"),
	STR(PROJECT, self, P_, mirror_updated, "mirror.updated"),

	INT(VERSION, self, V_, id, "id", -1),
	STR(VERSION, self, V_, slug, "slug"),
	STR(VERSION, self, V_, verbose_name, "verbose_name"),
	STR(VERSION, self, V_, identifier, "identifier"),
	STR(VERSION, self, V_, ref, "ref"),
	STR(VERSION, self, V_, type, "type"),
	STR(VERSION, self, V_, privacy_level, "privacy_level"),
	BOOL(VERSION, self, V_, active, "active"),
	BOOL(VERSION, self, V_, hidden, "hidden"),
	BOOL(VERSION, self, V_, built, "built"),
	STR(VERSION, self, V_, documentation_url, "urls.documentation"),
	STR(VERSION, self, V_, project, "project"),
	STR(VERSION, self, V_, project, "project.slug"),

	INT(BUILD, self, B_, id, "id", -1),
	STR(BUILD, self, B_, project, "project"),
	STR(BUILD, self, B_, project, "project_slug"),
	STR(BUILD, self, B_, version, "version"),
	STR(BUILD, self, B_, version, "version_slug"),
	STR(BUILD, self, B_, state, "state"),
	STR(BUILD, self, B_, state, "state.code"),
	STR(BUILD, self, B_, state_name, "state.name"),
	STR(BUILD, self, B_, state_name, "state_display"),
	BOOL(BUILD, self, B_, success, "success"),
	STR(BUILD, self, B_, error, "error"),
	STR(BUILD, self, B_, commit, "commit"),
	STR(BUILD, self, B_, created, "created"),
	STR(BUILD, self, B_, created, "date"),
	STR(BUILD, self, B_, finished, "finished"),
	INT(BUILD, self, B_, duration, "duration", -1),
	INT(BUILD, self, B_, duration, "length", -1),
	STR(BUILD, self, B_, build_url, "urls.build"),
	STR(BUILD, self, B_, docs_url, "docs_url"),
	ARRAY(BUILD, self, B_, commands, commands_len, "commands", LIST_GOOD, 2),
	INT(BUILD, command0, C_, id, "commands.[].id", -1),
	STR(BUILD, command0, C_, command, "commands.[].command"),
	STR(BUILD, command0, C_, description, "commands.[].description"),
	STR(BUILD, command0, C_, output, "commands.[].output"),
	INT(BUILD, command0, C_, exit_code, "commands.[].exit_code", -1),
	INT(BUILD, command0, C_, run_time, "commands.[].run_time", -1),
	STR(BUILD, command0, C_, start_time, "commands.[].start_time"),
	STR(BUILD, command0, C_, end_time, "commands.[].end_time"),
	STR(BUILD, self, B_, progress.phase, "progress.phase"),
	INT(BUILD, self, B_, progress.objects, "progress.objects", 0),
	INT(BUILD, self, B_, progress.total, "progress.total", -1),
	INT(BUILD, self, B_, progress.bytes, "progress.bytes", 0),
	INT(BUILD, self, B_, progress.percent, "progress.percent", -1),
	STR(BUILD, self, B_, triggered_by, "triggered_by"),
	INT(BUILD, self, B_, warnings.count, "warnings.count", -1),
	INT(BUILD, self, B_, warnings.new_count, "warnings.new", 0),
	INT(BUILD, self, B_, warnings.fixed, "warnings.fixed", 0),
	INT(BUILD, self, B_, warnings.dropped, "warnings.dropped", 0),

	STRD(WARNING, W_, file, "file", ""),
	INT(WARNING, self, W_, line, "line", 0),
	STRD(WARNING, W_, kind, "kind", "warning"),
	STRD(WARNING, W_, message, "message", ""),
	BOOL(WARNING, self, W_, is_new, "new"),

	INT(REDIRECT, self, R_, pk, "pk", -1),
	STR(REDIRECT, self, R_, project, "project"),
	STR(REDIRECT, self, R_, type, "type"),
	STR(REDIRECT, self, R_, from_url, "from_url"),
	STR(REDIRECT, self, R_, to_url, "to_url"),
	STR(REDIRECT, self, R_, created, "created"),
	STR(REDIRECT, self, R_, modified, "modified"),
	INT(REDIRECT, self, R_, http_status, "http_status", 0),
	INT(REDIRECT, self, R_, position, "position", -1),
	BOOL(REDIRECT, self, R_, enabled, "enabled"),
	BOOL(REDIRECT, self, R_, force, "force"),

	INT(ENVVAR, self, E_, pk, "pk", -1),
	STR(ENVVAR, self, E_, project, "project"),
	STR(ENVVAR, self, E_, name, "name"),
	BOOL(ENVVAR, self, E_, public_, "public"),
	STR(ENVVAR, self, E_, created, "created"),
	STR(ENVVAR, self, E_, modified, "modified"),

	STR(SUBPROJECT, self, S_, alias, "alias"),
	STR(SUBPROJECT, child, P_, slug, "child.slug"),
	INT(SUBPROJECT, child, P_, id, "child.id", -1),
	STR(SUBPROJECT, child, P_, documentation_url, "child.urls.documentation"),

	STR(ORG, self, O_, slug, "slug"),
	STR(ORG, self, O_, name, "name"),
	STR(ORG, self, O_, description, "description"),
	STR(ORG, self, O_, email, "email"),
	STR(ORG, self, O_, url, "url"),
	BOOL(ORG, self, O_, disabled, "disabled"),
	STR(ORG, self, O_, created, "created"),
	STR(ORG, self, O_, modified, "modified"),
	ARRAY(ORG, self, O_, owners, owners_len, "owners",
	      "[{\"username\":\"a\"},{\"x\":1},\"s\",{\"username\":\"b\"},"
	      "{\"username\":7}]", 2),

	STR(SEARCH, self, Q_, type, "type"),
	STR(SEARCH, self, Q_, project, "project"),
	STR(SEARCH, self, Q_, project, "project.slug"),
	STR(SEARCH, self, Q_, project_alias, "project_alias"),
	STR(SEARCH, self, Q_, project_alias, "project.alias"),
	STR(SEARCH, self, Q_, version, "version"),
	STR(SEARCH, self, Q_, version, "version.slug"),
	STR(SEARCH, self, Q_, title, "title"),
	STR(SEARCH, self, Q_, domain, "domain"),
	STR(SEARCH, self, Q_, path, "path"),
	ARRAY(SEARCH, self, Q_, hl_title.items, hl_title.len, "highlights.title",
	      STRINGS_GOOD, 2),
	ARRAY(SEARCH, self, Q_, blocks, blocks_len, "blocks", LIST_GOOD, 2),
	STR(SEARCH, block0, K_, type, "blocks.[].type"),
	STR(SEARCH, block0, K_, id, "blocks.[].id"),
	STR(SEARCH, block0, K_, title, "blocks.[].title"),
	STR(SEARCH, block0, K_, content, "blocks.[].content"),
	STR(SEARCH, block0, K_, role, "blocks.[].role"),
	STR(SEARCH, block0, K_, name, "blocks.[].name"),
	ARRAY(SEARCH, block0, K_, hl_title.items, hl_title.len,
	      "blocks.[].highlights.title", STRINGS_GOOD, 2),
	ARRAY(SEARCH, block0, K_, hl_content.items, hl_content.len,
	      "blocks.[].highlights.content", STRINGS_GOOD, 2),
	ARRAY(SEARCH, block0, K_, hl_name.items, hl_name.len,
	      "blocks.[].highlights.name", STRINGS_GOOD, 2),

	STR(EMBED, self, X_, url, "url"),
	STR(EMBED, self, X_, fragment, "fragment"),
	STR(EMBED, self, X_, content, "content"),
	BOOL(EMBED, self, X_, external, "external"),

	STR(DIFF, self, D_, base_ref, "base.ref"),
	STR(DIFF, self, D_, head_ref, "head.ref"),
	INT(DIFF, self, D_, base_build, "base.build", -1),
	INT(DIFF, self, D_, head_build, "head.build", -1),
	INT(DIFF, self, D_, unchanged, "unchanged", -1),
	BOOL(DIFF, self, D_, truncated, "truncated"),
	ARRAY(DIFF, self, D_, pages, pages_len, "pages", LIST_GOOD, 2),
	STR(DIFF, page0, G_, path, "pages.[].path"),
	STR(DIFF, page0, G_, status, "pages.[].status"),
	STR(DIFF, page0, G_, title, "pages.[].title"),
	STR(DIFF, page0, G_, base_title, "pages.[].base_title"),
	ARRAY(DIFF, page0, G_, sections, sections_len, "pages.[].sections",
	      LIST_GOOD, 2),
	STR(DIFF, section0, N_, id, "pages.[].sections.[].id"),
	STR(DIFF, section0, N_, status, "pages.[].sections.[].status"),
	STR(DIFF, section0, N_, title, "pages.[].sections.[].title"),
	STR(DIFF, section0, N_, base_title, "pages.[].sections.[].base_title"),
	ARRAY(DIFF, section0, N_, lines, lines_len, "pages.[].sections.[].lines",
	      STRINGS_GOOD, 2),
};

/* Values of another type than each kind reads, and "null". */
static const char *const wrong[][7] = {
	[K_STR] = { "null", "7", "false", "[7]", "{}", "{\"v\":\"v\"}", NULL },
	[K_INT] = { "null", "\"7\"", "true", "1e300", "-1e300", "[7]", "{}" },
	[K_BOOL] = { "null", "\"true\"", "1", "0", "[true]", "{}", NULL },
	[K_ARRAY] = { "null", "{}", "\"x\"", "7", "[]", "true", NULL },
};

/* ---------------------------------------------------------- Helpers */

/* A copy of base with value (taken) at path. */
static cJSON *doc_with(const char *base, const char *path, cJSON *value)
{
	cJSON *doc = cJSON_Parse(base), *cur = doc;
	char buf[128], *seg, *next;

	snprintf(buf, sizeof(buf), "%s", path);
	for (seg = buf; (next = strchr(seg, '.')) != NULL; seg = next + 1) {
		cJSON *in;

		*next = '\0';
		if (strcmp(seg, "[]") == 0) {
			if ((in = cJSON_GetArrayItem(cur, 0)) == NULL)
				cJSON_AddItemToArray(cur, in = cJSON_CreateObject());
		} else if ((in = cJSON_GetObjectItemCaseSensitive(cur, seg)) ==
			   NULL) {
			in = strncmp(next + 1, "[]", 2) == 0
				     ? cJSON_CreateArray()
				     : cJSON_CreateObject();
			cJSON_AddItemToObject(cur, seg, in);
		}
		cur = in;
	}
	if (value != NULL)
		cJSON_AddItemToObject(cur, seg, value);
	return doc;
}

static void *member(void *rec, size_t offset)
{
	return (char *)rec + offset;
}

/* Checks probe pr's member against the good value (good 1) or its
 * default; label says which JSON was parsed. */
static void check_member(const struct probe *pr, void *m, int good,
			 const char *label)
{
	void *rec = pr->at(m);

	if (rec == NULL) {
		FAIL_AT("%s %s (%s): no record", pr->path, label, pr->member);
		return;
	}
	switch (pr->kind) {
	case K_STR: {
		const char *got = *(char **)member(rec, pr->offset);
		const char *want = good ? pr->want_s : pr->def_s;

		if ((got == NULL) != (want == NULL) ||
		    (got && strcmp(got, want) != 0))
			FAIL_AT("%s %s: %s is \"%s\", expected \"%s\"", pr->path,
				label, pr->member, got ? got : "(null)",
				want ? want : "(null)");
		break;
	}
	case K_INT:
	case K_BOOL: {
		long long got = pr->kind == K_INT
					? *(long long *)member(rec, pr->offset)
					: *(int *)member(rec, pr->offset);
		long long want = good ? pr->want_i : pr->def_i;

		if (got != want)
			FAIL_AT("%s %s: %s is %lld, expected %lld", pr->path,
				label, pr->member, got, want);
		break;
	}
	case K_ARRAY: {
		void *items = *(void **)member(rec, pr->offset);
		size_t len = *(size_t *)member(rec, pr->len_offset);

		if ((long long)len != (good ? pr->want_i : 0) ||
		    (!good && items != NULL))
			FAIL_AT("%s %s: %s has %zu items%s", pr->path, label,
				pr->member, len, items ? "" : " (NULL)");
		break;
	}
	}
}

/* Parses doc (taken) with probe pr's model; checks the member, and that
 * raw is what was parsed. */
static void probe_doc(const struct probe *pr, cJSON *doc, int good,
		      const char *label)
{
	const struct model *mo = &models[pr->model];
	struct lc_error err;
	void *m = NULL;

	CHECK_OK(mo->parse(doc, &m, &err), &err);
	if (m != NULL) {
		check_member(pr, m, good, label);
		CHECK(cJSON_Compare(*(cJSON **)member(m, mo->raw), doc, 1));
	}
	mo->free(m);
	cJSON_Delete(doc);
}

/* ------------------------------------------------------------ Tests */

TEST(every_member_good_missing_null_wrong)
{
	size_t i, w;

	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		const struct probe *pr = &probes[i];
		const char *base = models[pr->model].base;
		char label[64];

		probe_doc(pr, doc_with(base, pr->path, cJSON_Parse(pr->good)), 1,
			  pr->good);
		/* Missing: the path's objects there, the field not. */
		probe_doc(pr, doc_with(base, pr->path, NULL), 0, "missing");
		for (w = 0; w < 7 && wrong[pr->kind][w]; w++) {
			snprintf(label, sizeof(label), "= %s",
				 wrong[pr->kind][w]);
			probe_doc(pr,
				  doc_with(base, pr->path,
					   cJSON_Parse(wrong[pr->kind][w])),
				  0, label);
		}
	}
}

/* A whole JSON document and one member's value in it. */
struct exact {
	int model;
	const char *json;
	struct probe pr; /* at, kind, offset; want_s / want_i */
};

#define XS(mo, at, T, m, json, want)                                         \
	{ mo, json, { mo, at, "", K_STR, offsetof(T, m), 0, NULL, 0, NULL,    \
		      want, 0, #m } }
#define XI(mo, T, m, json, want)                                             \
	{ mo, json, { mo, self, "", K_INT, offsetof(T, m), 0, NULL, 0, NULL,  \
		      NULL, want, #m } }
/* An int member: a tri-state or an enum. */
#define XB(mo, T, m, json, want)                                             \
	{ mo, json, { mo, self, "", K_BOOL, offsetof(T, m), 0, NULL, 0, NULL, \
		      NULL, want, #m } }

static const struct exact exacts[] = {
	/* One shape's member settles it, or gives way to the other's. */
	XS(PROJECT, self, P_, repository_url,
	   "{\"repository\":{\"type\":\"git\"},\"repo\":\"r\"}", NULL),
	XS(PROJECT, self, P_, repository_url,
	   "{\"repository\":{\"url\":null},\"repo\":\"r\"}", NULL),
	XS(PROJECT, self, P_, repository_type,
	   "{\"repository\":{},\"repo_type\":\"git\"}", NULL),
	XS(PROJECT, self, P_, repository_url,
	   "{\"repository\":\"u\",\"repo\":\"r\"}", "r"),
	XS(PROJECT, self, P_, repository_url,
	   "{\"repository\":[{\"url\":\"u\"}],\"repo\":\"r\"}", "r"),
	XS(PROJECT, self, P_, repository_url,
	   "{\"repository\":{\"url\":\"u\"},\"repo\":\"r\"}", "u"),
	XS(PROJECT, self, P_, documentation_url,
	   "{\"urls\":{\"documentation\":null},\"canonical_url\":\"c\"}", "c"),
	XS(PROJECT, self, P_, documentation_url,
	   "{\"urls\":\"u\",\"canonical_url\":\"c\"}", "c"),
	XS(PROJECT, self, P_, documentation_url,
	   "{\"urls\":{\"documentation\":\"d\"},\"canonical_url\":\"c\"}", "d"),
	XS(PROJECT, self, P_, language,
	   "{\"language\":{\"code\":\"en\",\"name\":\"English\"}}", "en"),
	XS(PROJECT, self, P_, language, "{\"language\":{\"name\":\"x\"}}", NULL),
	XS(BUILD, self, B_, project, "{\"project\":7,\"project_slug\":\"p\"}", "p"),
	XS(BUILD, self, B_, project, "{\"project\":\"a\",\"project_slug\":\"p\"}",
	   "a"),
	XS(BUILD, self, B_, state_name,
	   "{\"state\":\"building\",\"state_display\":\"Building\"}", "Building"),
	XS(BUILD, self, B_, state_name,
	   "{\"state\":{\"name\":\"N\"},\"state_display\":\"D\"}", "N"),
	XS(BUILD, self, B_, state_name,
	   "{\"state\":{\"name\":7},\"state_display\":\"D\"}", "D"),
	XS(BUILD, self, B_, created, "{\"created\":null,\"date\":\"d\"}", "d"),
	XI(BUILD, B_, duration, "{\"duration\":-1,\"length\":5}", -1),
	XI(BUILD, B_, duration, "{\"duration\":0,\"length\":5}", 0),
	XI(BUILD, B_, duration, "{\"duration\":\"1\",\"length\":5}", 5),
	XI(BUILD, B_, duration, "{\"duration\":1e300,\"length\":5}", 5),
	XI(BUILD, B_, duration, "{\"duration\":null,\"length\":null}", -1),
	XS(SEARCH, self, Q_, project_alias,
	   "{\"project_alias\":null,\"project\":{\"alias\":\"k\"}}", "k"),
	XS(SEARCH, self, Q_, project_alias,
	   "{\"project_alias\":\"a\",\"project\":{\"alias\":\"k\"}}", "a"),
	/* v2's "" error means none. */
	XS(BUILD, self, B_, error, "{\"error\":\"\"}", NULL),
	XS(BUILD, self, B_, error, "{\"error\":\" \"}", " "),
	/* Numbers: truncated toward zero, out of range as missing. */
	XI(BUILD, B_, id, "{\"id\":2.9}", 2),
	XI(BUILD, B_, id, "{\"id\":-2.9}", -2),
	XI(BUILD, B_, id, "{\"id\":9.3e18}", -1),
	XB(VERSION, V_, active, "{\"active\":false}", 0),
	/* The cache map in a word and its first reason. */
	XB(BUILD, B_, cache, "{\"cache\":{}}", LC_CACHE_UNKNOWN),
	XB(BUILD, B_, cache, "{\"cache\":[{\"reused\":true}]}", LC_CACHE_UNKNOWN),
	XB(BUILD, B_, cache, "{\"cache\":\"x\"}", LC_CACHE_UNKNOWN),
	XB(BUILD, B_, cache, "{\"cache\":{\"a\":{\"reused\":true}}}",
	   LC_CACHE_KEPT),
	XB(BUILD, B_, cache, "{\"cache\":{\"a\":{\"reused\":1},\"b\":7}}",
	   LC_CACHE_FRESH),
	XB(BUILD, B_, cache,
	   "{\"cache\":{\"a\":{\"reused\":true},\"b\":{\"reused\":false}}}",
	   LC_CACHE_PARTLY),
	XS(BUILD, self, B_, cache_reason, "{\"cache\":{\"a\":{\"reused\":true}}}",
	   NULL),
	XS(BUILD, self, B_, cache_reason,
	   "{\"cache\":{\"a\":{\"reason\":7},\"b\":{\"reused\":true,"
	   "\"reason\":\"no\"},\"c\":{\"reason\":\"x changed\"},"
	   "\"d\":{\"reason\":\"later\"}}}",
	   "c: x changed"),
	/* An embed's content: a string, or v2's list of HTML strings. */
	XS(EMBED, self, X_, content, "{\"content\":[\"<p>a</p>\",7,\"<p>b</p>\"]}",
	   "<p>a</p>\n<p>b</p>"),
	XS(EMBED, self, X_, content, "{\"content\":[\"\",\"b\"]}", "b"),
	XS(EMBED, self, X_, content, "{\"content\":[\"a\",\"\"]}", "a\n"),
	XS(EMBED, self, X_, content, "{\"content\":[]}", NULL),
	XS(EMBED, self, X_, content, "{\"content\":[7]}", NULL),
	/* A nested model keeps its own copy of its JSON. */
	XS(SUBPROJECT, child, P_, name, "{\"child\":{\"name\":\"n\"},\"alias\":7}",
	   "n"),
};

TEST(alternatives_and_conversions)
{
	size_t i;

	for (i = 0; i < sizeof(exacts) / sizeof(exacts[0]); i++) {
		cJSON *doc = cJSON_Parse(exacts[i].json);

		CHECK(doc != NULL);
		probe_doc(&exacts[i].pr, doc, 1, exacts[i].json);
	}
}

TEST(nested_model_raw_and_required)
{
	cJSON *doc = cJSON_Parse("{\"alias\":\"a\",\"child\":{\"slug\":\"c\"}}");
	const char *bad[] = { "{\"alias\":\"a\"}", "{\"child\":null}",
			      "{\"child\":\"c\"}", "{\"child\":[{}]}" };
	struct lc_subproject *s = NULL;
	struct lc_error err;
	size_t i;

	CHECK_OK(lc_subproject_parse(doc, &s, &err), &err);
	CHECK(cJSON_Compare(s->child->raw,
			    cJSON_GetObjectItemCaseSensitive(doc, "child"), 1));
	lc_subproject_free(s);
	cJSON_Delete(doc);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		doc = cJSON_Parse(bad[i]);
		s = (void *)1;
		CHECK_RC(lc_subproject_parse(doc, &s, &err), LC_EJSON, &err);
		CHECK_STR(err.message, "a subproject without its child project");
		CHECK_INT(err.status, 0);
		CHECK(s == NULL);
		cJSON_Delete(doc);
	}
}

TEST(only_an_object_parses)
{
	const char *not_objects[] = { "[]", "[{}]", "\"x\"", "7", "null", "true" };
	struct lc_error err;
	size_t i, j;

	for (i = 0; i < MODELS; i++) {
		char want[96];

		snprintf(want, sizeof(want), "expected a JSON object for %s",
			 models[i].what);
		for (j = 0; j <= sizeof(not_objects) / sizeof(not_objects[0]); j++) {
			cJSON *doc = j < sizeof(not_objects) / sizeof(not_objects[0])
					     ? cJSON_Parse(not_objects[j])
					     : NULL;
			void *m = (void *)1;

			CHECK_RC(models[i].parse(doc, &m, &err), LC_EJSON, &err);
			CHECK_STR(err.message, want);
			CHECK(m == NULL);
			cJSON_Delete(doc);
		}
		models[i].free(NULL);
	}
}

int main(int argc, char **argv)
{
	static const struct lec_test tests[] = {
		TEST_ENTRY(every_member_good_missing_null_wrong),
		TEST_ENTRY(alternatives_and_conversions),
		TEST_ENTRY(nested_model_raw_and_required),
		TEST_ENTRY(only_an_object_parses),
	};

	return lct_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
