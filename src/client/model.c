/*
 * Typed models parsed from the API's JSON. The parsers are deliberately
 * lenient, because the same code reads Lectern's answers and the hosted
 * service's, across v2 and v3 shapes and with `fields`/`omit` applied: unknown
 * fields are ignored, missing or null ones left NULL/-1/LC_UNKNOWN, and a
 * field of an unexpected type is treated as missing. Only a value that is not
 * an object at all is an error. Each model keeps a copy of its JSON (`raw`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"

/* Parsing state: the first allocation failure sticks (SQLite's pRc habit),
 * so the field-by-field code needs no checks of its own. */
struct parse {
	int rc;
};

static char *dup_or_fail(struct parse *p, const char *s)
{
	char *d;

	if (s == NULL || p->rc != LC_OK)
		return NULL;
	d = strdup(s);
	if (d == NULL)
		p->rc = LC_ENOMEM;
	return d;
}

static const cJSON *field(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static char *str(struct parse *p, const cJSON *o, const char *key)
{
	const cJSON *v = field(o, key);

	return cJSON_IsString(v) ? dup_or_fail(p, v->valuestring) : NULL;
}

/* o[outer][inner] as a string. */
static char *str2(struct parse *p, const cJSON *o, const char *outer,
		  const char *inner)
{
	return str(p, field(o, outer), inner);
}

/* A field that is a string in one shape and an object carrying the string
 * under `inner` in another (language, state, project of a search result). */
static char *str_or_obj(struct parse *p, const cJSON *o, const char *key,
			const char *inner)
{
	const cJSON *v = field(o, key);

	if (cJSON_IsObject(v))
		return str(p, v, inner);
	return cJSON_IsString(v) ? dup_or_fail(p, v->valuestring) : NULL;
}

/* A JSON number as an integer; out-of-range values (which a cast would
 * make undefined) count as missing. */
long long lc__json_int(const cJSON *v, long long def)
{
	if (!cJSON_IsNumber(v) || !(v->valuedouble > -9.2e18) ||
	    !(v->valuedouble < 9.2e18))
		return def;
	return (long long)v->valuedouble;
}

static long long num(const cJSON *o, const char *key, long long def)
{
	return lc__json_int(field(o, key), def);
}

static int boolean(const cJSON *o, const char *key)
{
	const cJSON *v = field(o, key);

	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v) ? 1 : 0;
	return LC_UNKNOWN;
}

/* An array of strings, or of objects whose `inner` is a string. */
static char **strings(struct parse *p, const cJSON *arr, const char *inner,
		      size_t *len)
{
	const cJSON *item;
	char **out;
	size_t n = 0;

	*len = 0;
	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0 ||
	    p->rc != LC_OK)
		return NULL;
	out = calloc((size_t)cJSON_GetArraySize(arr), sizeof(*out));
	if (out == NULL) {
		p->rc = LC_ENOMEM;
		return NULL;
	}
	cJSON_ArrayForEach(item, arr) {
		char *s = inner ? str(p, item, inner)
				: (cJSON_IsString(item)
					   ? dup_or_fail(p, item->valuestring)
					   : NULL);
		if (s != NULL)
			out[n++] = s;
	}
	*len = n;
	return out;
}

static void strings_free(char **s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		free(s[i]);
	free(s);
}

static cJSON *copy(struct parse *p, const cJSON *json)
{
	cJSON *c;

	if (p->rc != LC_OK)
		return NULL;
	c = cJSON_Duplicate(json, 1);
	if (c == NULL)
		p->rc = LC_ENOMEM;
	return c;
}

/* The common start of every parser. */
static int check_object(const cJSON *json, const char *what,
			struct lc_error *err)
{
	if (cJSON_IsObject(json))
		return LC_OK;
	return lc__fail(err, LC_EJSON, 0, "expected a JSON object for %s",
			what);
}

static int finish(struct parse *p, struct lc_error *err)
{
	if (p->rc == LC_ENOMEM)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	return p->rc;
}

/* ------------------------------------------------------------ Project */

void lc_project_free(struct lc_project *pr)
{
	if (pr == NULL)
		return;
	free(pr->name);
	free(pr->slug);
	free(pr->language);
	free(pr->programming_language);
	free(pr->repository_url);
	free(pr->repository_type);
	free(pr->homepage);
	free(pr->default_version);
	free(pr->default_branch);
	free(pr->documentation_url);
	free(pr->subproject_of);
	free(pr->translation_of);
	free(pr->created);
	free(pr->modified);
	strings_free(pr->tags, pr->tags_len);
	free(pr->mirror_source);
	free(pr->mirror_project);
	free(pr->mirror_updated);
	cJSON_Delete(pr->raw);
	free(pr);
}

static void project_fields(struct parse *p, const cJSON *j,
			   struct lc_project *pr)
{
	const cJSON *repo = field(j, "repository");

	pr->id = num(j, "id", -1);
	pr->name = str(p, j, "name");
	pr->slug = str(p, j, "slug");
	pr->language = str_or_obj(p, j, "language", "code");
	pr->programming_language =
		str_or_obj(p, j, "programming_language", "code");
	if (cJSON_IsObject(repo)) {
		pr->repository_url = str(p, repo, "url");
		pr->repository_type = str(p, repo, "type");
	} else {
		/* v2 */
		pr->repository_url = str(p, j, "repo");
		pr->repository_type = str(p, j, "repo_type");
	}
	pr->homepage = str(p, j, "homepage");
	pr->default_version = str(p, j, "default_version");
	pr->default_branch = str(p, j, "default_branch");
	pr->documentation_url = str2(p, j, "urls", "documentation");
	if (pr->documentation_url == NULL)
		pr->documentation_url = str(p, j, "canonical_url");
	pr->subproject_of = str_or_obj(p, j, "subproject_of", "slug");
	pr->translation_of = str_or_obj(p, j, "translation_of", "slug");
	pr->created = str(p, j, "created");
	pr->modified = str(p, j, "modified");
	pr->tags = strings(p, field(j, "tags"), NULL, &pr->tags_len);
	pr->mirror_source = str2(p, j, "mirror", "source");
	pr->mirror_project = str2(p, j, "mirror", "project");
	pr->mirror_updated = str2(p, j, "mirror", "updated");
	pr->raw = copy(p, j);
}

int lc_project_parse(const cJSON *json, struct lc_project **out,
		     struct lc_error *err)
{
	struct parse p = { LC_OK };
	struct lc_project *pr;
	int rc;

	*out = NULL;
	rc = check_object(json, "a project", err);
	if (rc != LC_OK)
		return rc;
	pr = calloc(1, sizeof(*pr));
	if (pr == NULL)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	project_fields(&p, json, pr);
	rc = finish(&p, err);
	if (rc != LC_OK)
		lc_project_free(pr);
	else
		*out = pr;
	return rc;
}

/* ------------------------------------------------------------ Version */

void lc_version_free(struct lc_version *v)
{
	if (v == NULL)
		return;
	free(v->slug);
	free(v->verbose_name);
	free(v->identifier);
	free(v->ref);
	free(v->type);
	free(v->privacy_level);
	free(v->documentation_url);
	free(v->project);
	cJSON_Delete(v->raw);
	free(v);
}

int lc_version_parse(const cJSON *json, struct lc_version **out,
		     struct lc_error *err)
{
	struct parse p = { LC_OK };
	struct lc_version *v;
	int rc;

	*out = NULL;
	rc = check_object(json, "a version", err);
	if (rc != LC_OK)
		return rc;
	v = calloc(1, sizeof(*v));
	if (v == NULL)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	v->id = num(json, "id", -1);
	v->slug = str(&p, json, "slug");
	v->verbose_name = str(&p, json, "verbose_name");
	v->identifier = str(&p, json, "identifier");
	v->ref = str(&p, json, "ref");
	v->type = str(&p, json, "type");
	v->privacy_level = str(&p, json, "privacy_level");
	v->active = boolean(json, "active");
	v->hidden = boolean(json, "hidden");
	v->built = boolean(json, "built");
	v->documentation_url = str2(&p, json, "urls", "documentation");
	v->project = str_or_obj(&p, json, "project", "slug");
	v->raw = copy(&p, json);
	rc = finish(&p, err);
	if (rc != LC_OK)
		lc_version_free(v);
	else
		*out = v;
	return rc;
}

/* -------------------------------------------------------------- Build */

static void commands_free(struct lc_build_command *cmds, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		free(cmds[i].command);
		free(cmds[i].description);
		free(cmds[i].output);
		free(cmds[i].start_time);
		free(cmds[i].end_time);
	}
	free(cmds);
}

void lc_build_free(struct lc_build *b)
{
	if (b == NULL)
		return;
	free(b->project);
	free(b->version);
	free(b->state);
	free(b->state_name);
	free(b->error);
	free(b->commit);
	free(b->created);
	free(b->finished);
	free(b->build_url);
	free(b->docs_url);
	free(b->progress.phase);
	free(b->triggered_by);
	free(b->cache_reason);
	commands_free(b->commands, b->commands_len);
	cJSON_Delete(b->raw);
	free(b);
}

static void build_commands(struct parse *p, const cJSON *arr,
			   struct lc_build *b)
{
	const cJSON *item;
	size_t n = 0;

	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0)
		return;
	b->commands = calloc((size_t)cJSON_GetArraySize(arr),
			     sizeof(*b->commands));
	if (b->commands == NULL) {
		p->rc = LC_ENOMEM;
		return;
	}
	cJSON_ArrayForEach(item, arr) {
		struct lc_build_command *c = &b->commands[n];

		if (!cJSON_IsObject(item))
			continue;
		c->id = num(item, "id", -1);
		c->command = str(p, item, "command");
		c->description = str(p, item, "description");
		c->output = str(p, item, "output");
		c->exit_code = num(item, "exit_code", -1);
		c->run_time = num(item, "run_time", -1);
		c->start_time = str(p, item, "start_time");
		c->end_time = str(p, item, "end_time");
		n++;
	}
	b->commands_len = n;
}

/* {"<cache>": {"reused": bool, "reason": text}, ...} into a word and the
 * first reason. */
static void build_cache(struct parse *p, const cJSON *cache,
			struct lc_build *b)
{
	const cJSON *one;
	int reused = 0, all = 0;

	if (!cJSON_IsObject(cache))
		return;
	cJSON_ArrayForEach(one, cache)
	{
		const cJSON *why = field(one, "reason");

		all++;
		if (cJSON_IsTrue(field(one, "reused"))) {
			reused++;
		} else if (b->cache_reason == NULL && cJSON_IsString(why) &&
			   one->string) {
			size_t n = strlen(one->string) + strlen(why->valuestring) + 3;

			if ((b->cache_reason = malloc(n)) == NULL)
				p->rc = LC_ENOMEM;
			else
				snprintf(b->cache_reason, n, "%s: %s",
					 one->string, why->valuestring);
		}
	}
	b->cache = all == 0	     ? LC_CACHE_UNKNOWN
		   : reused == all ? LC_CACHE_KEPT
		   : reused == 0   ? LC_CACHE_FRESH
				   : LC_CACHE_PARTLY;
}

/* Lectern's {"count", "new", "fixed"[, "dropped"]}; count -1 when absent. */
static void build_warnings(const cJSON *w, struct lc_build_warnings *out)
{
	out->count = cJSON_IsObject(w) ? num(w, "count", -1) : -1;
	out->new_count = num(w, "new", 0);
	out->fixed = num(w, "fixed", 0);
	out->dropped = num(w, "dropped", 0);
}

/* v3 names first, then the v2 ones (project_slug, date, length, ...). */
/* Lectern's `progress` object (absent: phase stays NULL). */
static void build_progress(struct parse *p, const cJSON *o,
			   struct lc_build_progress *pr)
{
	pr->phase = str(p, o, "phase");
	pr->objects = num(o, "objects", 0);
	pr->total = num(o, "total", -1);
	pr->bytes = num(o, "bytes", 0);
	pr->percent = num(o, "percent", -1);
}

static void build_fields(struct parse *p, const cJSON *j, struct lc_build *b)
{
	b->id = num(j, "id", -1);
	b->project = str(p, j, "project");
	if (b->project == NULL)
		b->project = str(p, j, "project_slug");
	b->version = str(p, j, "version");
	if (b->version == NULL)
		b->version = str(p, j, "version_slug");
	b->state = str_or_obj(p, j, "state", "code");
	b->state_name = str2(p, j, "state", "name");
	if (b->state_name == NULL)
		b->state_name = str(p, j, "state_display");
	b->success = boolean(j, "success");
	b->error = str(p, j, "error");
	if (b->error != NULL && b->error[0] == '\0') {
		free(b->error);
		b->error = NULL;
	}
	b->commit = str(p, j, "commit");
	b->created = str(p, j, "created");
	if (b->created == NULL)
		b->created = str(p, j, "date");
	b->finished = str(p, j, "finished");
	b->duration = num(j, "duration", num(j, "length", -1));
	b->build_url = str2(p, j, "urls", "build");
	b->docs_url = str(p, j, "docs_url");
	build_commands(p, field(j, "commands"), b);
	build_progress(p, field(j, "progress"), &b->progress);
	b->triggered_by = str(p, j, "triggered_by");
	build_cache(p, field(j, "cache"), b);
	build_warnings(field(j, "warnings"), &b->warnings);
	b->raw = copy(p, j);
}

const char *lc_build_cache_word(const struct lc_build *b)
{
	static const char *const words[] = { "", "fresh", "partly", "kept" };

	return b && (unsigned)b->cache < sizeof(words) / sizeof(words[0])
		       ? words[b->cache]
		       : "";
}

int lc_build_parse(const cJSON *json, struct lc_build **out,
		   struct lc_error *err)
{
	struct parse p = { LC_OK };
	struct lc_build *b;
	int rc;

	*out = NULL;
	rc = check_object(json, "a build", err);
	if (rc != LC_OK)
		return rc;
	b = calloc(1, sizeof(*b));
	if (b == NULL)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	build_fields(&p, json, b);
	rc = finish(&p, err);
	if (rc != LC_OK)
		lc_build_free(b);
	else
		*out = b;
	return rc;
}

/* ----------------------------------------------------------- Redirect */

void lc_redirect_free(struct lc_redirect *r)
{
	if (r == NULL)
		return;
	free(r->project);
	free(r->type);
	free(r->from_url);
	free(r->to_url);
	free(r->created);
	free(r->modified);
	cJSON_Delete(r->raw);
	free(r);
}

int lc_warning_parse(const cJSON *json, struct lc_warning **out,
		     struct lc_error *err)
{
	struct parse p = { LC_OK };
	struct lc_warning *w;
	int rc;

	*out = NULL;
	rc = check_object(json, "a warning", err);
	if (rc != LC_OK)
		return rc;
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	w->file = str(&p, json, "file");
	if (w->file == NULL && p.rc == LC_OK && (w->file = strdup("")) == NULL)
		p.rc = LC_ENOMEM;
	w->line = num(json, "line", 0);
	w->kind = str(&p, json, "kind");
	if (w->kind == NULL && p.rc == LC_OK &&
	    (w->kind = strdup("warning")) == NULL)
		p.rc = LC_ENOMEM;
	w->message = str(&p, json, "message");
	if (w->message == NULL && p.rc == LC_OK &&
	    (w->message = strdup("")) == NULL)
		p.rc = LC_ENOMEM;
	w->is_new = boolean(json, "new");
	w->raw = copy(&p, json);
	rc = finish(&p, err);
	if (rc != LC_OK)
		lc_warning_free(w);
	else
		*out = w;
	return rc;
}

void lc_warning_free(struct lc_warning *w)
{
	if (w == NULL)
		return;
	free(w->file);
	free(w->kind);
	free(w->message);
	cJSON_Delete(w->raw);
	free(w);
}

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

int lc_redirect_parse(const cJSON *json, struct lc_redirect **out,
		      struct lc_error *err)
{
	struct parse p = { LC_OK };
	struct lc_redirect *r;
	int rc;

	*out = NULL;
	rc = check_object(json, "a redirect", err);
	if (rc != LC_OK)
		return rc;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	r->pk = num(json, "pk", -1);
	r->project = str(&p, json, "project");
	r->type = str(&p, json, "type");
	r->from_url = str(&p, json, "from_url");
	r->to_url = str(&p, json, "to_url");
	r->created = str(&p, json, "created");
	r->modified = str(&p, json, "modified");
	r->http_status = num(json, "http_status", 0);
	r->position = num(json, "position", -1);
	r->enabled = boolean(json, "enabled");
	r->force = boolean(json, "force");
	r->raw = copy(&p, json);
	rc = finish(&p, err);
	if (rc != LC_OK)
		lc_redirect_free(r);
	else
		*out = r;
	return rc;
}

/* ------------------------------------------------------- Env variable */

void lc_envvar_free(struct lc_envvar *e)
{
	if (e == NULL)
		return;
	free(e->project);
	free(e->name);
	free(e->created);
	free(e->modified);
	cJSON_Delete(e->raw);
	free(e);
}

int lc_envvar_parse(const cJSON *json, struct lc_envvar **out,
		    struct lc_error *err)
{
	struct parse p = { LC_OK };
	struct lc_envvar *e;
	int rc;

	*out = NULL;
	rc = check_object(json, "an environment variable", err);
	if (rc != LC_OK)
		return rc;
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	e->pk = num(json, "pk", -1);
	e->project = str(&p, json, "project");
	e->name = str(&p, json, "name");
	e->public_ = boolean(json, "public");
	e->created = str(&p, json, "created");
	e->modified = str(&p, json, "modified");
	e->raw = copy(&p, json);
	rc = finish(&p, err);
	if (rc != LC_OK)
		lc_envvar_free(e);
	else
		*out = e;
	return rc;
}

/* --------------------------------------------------------- Subproject */

void lc_subproject_free(struct lc_subproject *s)
{
	if (s == NULL)
		return;
	free(s->alias);
	lc_project_free(s->child);
	cJSON_Delete(s->raw);
	free(s);
}

int lc_subproject_parse(const cJSON *json, struct lc_subproject **out,
			struct lc_error *err)
{
	struct parse p = { LC_OK };
	struct lc_subproject *s;
	int rc;

	*out = NULL;
	rc = check_object(json, "a subproject", err);
	if (rc != LC_OK)
		return rc;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	s->alias = str(&p, json, "alias");
	rc = lc_project_parse(field(json, "child"), &s->child, err);
	if (rc == LC_EJSON)
		lc__fail(err, rc, 0, "a subproject without its child project");
	if (rc == LC_OK) {
		s->raw = copy(&p, json);
		rc = finish(&p, err);
	}
	if (rc != LC_OK)
		lc_subproject_free(s);
	else
		*out = s;
	return rc;
}

/* ------------------------------------------------------- Organization */

void lc_organization_free(struct lc_organization *o)
{
	if (o == NULL)
		return;
	free(o->slug);
	free(o->name);
	free(o->description);
	free(o->email);
	free(o->url);
	free(o->created);
	free(o->modified);
	strings_free(o->owners, o->owners_len);
	cJSON_Delete(o->raw);
	free(o);
}

int lc_organization_parse(const cJSON *json, struct lc_organization **out,
			  struct lc_error *err)
{
	struct parse p = { LC_OK };
	struct lc_organization *o;
	int rc;

	*out = NULL;
	rc = check_object(json, "an organization", err);
	if (rc != LC_OK)
		return rc;
	o = calloc(1, sizeof(*o));
	if (o == NULL)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	o->slug = str(&p, json, "slug");
	o->name = str(&p, json, "name");
	o->description = str(&p, json, "description");
	o->email = str(&p, json, "email");
	o->url = str(&p, json, "url");
	o->disabled = boolean(json, "disabled");
	o->created = str(&p, json, "created");
	o->modified = str(&p, json, "modified");
	o->owners = strings(&p, field(json, "owners"), "username",
			    &o->owners_len);
	o->raw = copy(&p, json);
	rc = finish(&p, err);
	if (rc != LC_OK)
		lc_organization_free(o);
	else
		*out = o;
	return rc;
}

/* ------------------------------------------------------------- Search */

static void highlights(struct parse *p, const cJSON *hl, const char *key,
		       struct lc_highlights *out)
{
	out->items = strings(p, field(hl, key), NULL, &out->len);
}

static void blocks_free(struct lc_search_block *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		free(b[i].type);
		free(b[i].id);
		free(b[i].title);
		free(b[i].content);
		free(b[i].role);
		free(b[i].name);
		strings_free(b[i].hl_title.items, b[i].hl_title.len);
		strings_free(b[i].hl_content.items, b[i].hl_content.len);
		strings_free(b[i].hl_name.items, b[i].hl_name.len);
	}
	free(b);
}

void lc_search_result_free(struct lc_search_result *r)
{
	if (r == NULL)
		return;
	free(r->type);
	free(r->project);
	free(r->project_alias);
	free(r->version);
	free(r->title);
	free(r->domain);
	free(r->path);
	strings_free(r->hl_title.items, r->hl_title.len);
	blocks_free(r->blocks, r->blocks_len);
	cJSON_Delete(r->raw);
	free(r);
}

static void search_blocks(struct parse *p, const cJSON *arr,
			  struct lc_search_result *r)
{
	const cJSON *item;
	size_t n = 0;

	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0)
		return;
	r->blocks = calloc((size_t)cJSON_GetArraySize(arr), sizeof(*r->blocks));
	if (r->blocks == NULL) {
		p->rc = LC_ENOMEM;
		return;
	}
	cJSON_ArrayForEach(item, arr) {
		struct lc_search_block *b = &r->blocks[n];
		const cJSON *hl = field(item, "highlights");

		if (!cJSON_IsObject(item))
			continue;
		b->type = str(p, item, "type");
		b->id = str(p, item, "id");
		b->title = str(p, item, "title");
		b->content = str(p, item, "content");
		b->role = str(p, item, "role");
		b->name = str(p, item, "name");
		highlights(p, hl, "title", &b->hl_title);
		highlights(p, hl, "content", &b->hl_content);
		highlights(p, hl, "name", &b->hl_name);
		n++;
	}
	r->blocks_len = n;
}

int lc_search_result_parse(const cJSON *json, struct lc_search_result **out,
			   struct lc_error *err)
{
	struct parse p = { LC_OK };
	struct lc_search_result *r;
	int rc;

	*out = NULL;
	rc = check_object(json, "a search result", err);
	if (rc != LC_OK)
		return rc;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	r->type = str(&p, json, "type");
	/* v2 sends project/version as slugs; v3 as {slug, alias}/{slug}. */
	r->project = str_or_obj(&p, json, "project", "slug");
	r->project_alias = str(&p, json, "project_alias");
	if (r->project_alias == NULL)
		r->project_alias = str2(&p, json, "project", "alias");
	r->version = str_or_obj(&p, json, "version", "slug");
	r->title = str(&p, json, "title");
	r->domain = str(&p, json, "domain");
	r->path = str(&p, json, "path");
	highlights(&p, field(json, "highlights"), "title", &r->hl_title);
	search_blocks(&p, field(json, "blocks"), r);
	r->raw = copy(&p, json);
	rc = finish(&p, err);
	if (rc != LC_OK)
		lc_search_result_free(r);
	else
		*out = r;
	return rc;
}

/* -------------------------------------------------------------- Embed */

void lc_embed_free(struct lc_embed *e)
{
	if (e == NULL)
		return;
	free(e->url);
	free(e->fragment);
	free(e->content);
	cJSON_Delete(e->raw);
	free(e);
}

/* v3 sends content as one string; the historical v2 answer as a list of
 * HTML strings, joined here. */
static char *embed_content(struct parse *p, const cJSON *j)
{
	const cJSON *v = field(j, "content"), *item;
	struct lc_buf b = { 0 };

	if (!cJSON_IsArray(v))
		return str(p, j, "content");
	cJSON_ArrayForEach(item, v) {
		if (!cJSON_IsString(item))
			continue;
		if (b.len > 0)
			lc__buf_str(&b, "\n");
		lc__buf_str(&b, item->valuestring);
	}
	if (b.rc != LC_OK)
		p->rc = b.rc;
	return b.s;
}

int lc_embed_parse(const cJSON *json, struct lc_embed **out,
		   struct lc_error *err)
{
	struct parse p = { LC_OK };
	struct lc_embed *e;
	int rc;

	*out = NULL;
	rc = check_object(json, "an embed answer", err);
	if (rc != LC_OK)
		return rc;
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	e->url = str(&p, json, "url");
	e->fragment = str(&p, json, "fragment");
	e->content = embed_content(&p, json);
	e->external = boolean(json, "external");
	e->raw = copy(&p, json);
	rc = finish(&p, err);
	if (rc != LC_OK)
		lc_embed_free(e);
	else
		*out = e;
	return rc;
}

/* ---------------------------------------------------------- Page diff */

static void diff_sections_free(struct lc_diff_section *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		free(s[i].id);
		free(s[i].status);
		free(s[i].title);
		free(s[i].base_title);
		strings_free(s[i].lines, s[i].lines_len);
	}
	free(s);
}

void lc_diff_free(struct lc_diff *d)
{
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < d->pages_len; i++) {
		free(d->pages[i].path);
		free(d->pages[i].status);
		free(d->pages[i].title);
		free(d->pages[i].base_title);
		diff_sections_free(d->pages[i].sections,
				   d->pages[i].sections_len);
	}
	free(d->pages);
	free(d->base_ref);
	free(d->head_ref);
	cJSON_Delete(d->raw);
	free(d);
}

/* calloc of an array's length of items (NULL for an empty or no array). */
static void *items_for(struct parse *p, const cJSON *arr, size_t size)
{
	void *out;

	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0 ||
	    p->rc != LC_OK)
		return NULL;
	if ((out = calloc((size_t)cJSON_GetArraySize(arr), size)) == NULL)
		p->rc = LC_ENOMEM;
	return out;
}

static void diff_page(struct parse *p, const cJSON *j, struct lc_diff_page *pg)
{
	const cJSON *arr = field(j, "sections"), *item;

	pg->path = str(p, j, "path");
	pg->status = str(p, j, "status");
	pg->title = str(p, j, "title");
	pg->base_title = str(p, j, "base_title");
	if ((pg->sections = items_for(p, arr, sizeof(*pg->sections))) == NULL)
		return;
	cJSON_ArrayForEach(item, arr) {
		struct lc_diff_section *s = &pg->sections[pg->sections_len];

		if (!cJSON_IsObject(item))
			continue;
		s->id = str(p, item, "id");
		s->status = str(p, item, "status");
		s->title = str(p, item, "title");
		s->base_title = str(p, item, "base_title");
		s->lines = strings(p, field(item, "lines"), NULL,
				   &s->lines_len);
		pg->sections_len++;
	}
}

int lc_diff_parse(const cJSON *json, struct lc_diff **out,
		  struct lc_error *err)
{
	struct parse p = { LC_OK };
	const cJSON *arr = field(json, "pages"), *item;
	struct lc_diff *d;
	int rc;

	*out = NULL;
	if ((rc = check_object(json, "a diff", err)) != LC_OK)
		return rc;
	if ((d = calloc(1, sizeof(*d))) == NULL)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	d->base_ref = str2(&p, json, "base", "ref");
	d->head_ref = str2(&p, json, "head", "ref");
	d->base_build = num(field(json, "base"), "build", -1);
	d->head_build = num(field(json, "head"), "build", -1);
	d->unchanged = num(json, "unchanged", -1);
	d->truncated = boolean(json, "truncated");
	if ((d->pages = items_for(&p, arr, sizeof(*d->pages))) != NULL)
		cJSON_ArrayForEach(item, arr) {
			if (cJSON_IsObject(item))
				diff_page(&p, item, &d->pages[d->pages_len++]);
		}
	d->raw = copy(&p, json);
	rc = finish(&p, err);
	if (rc != LC_OK)
		lc_diff_free(d);
	else
		*out = d;
	return rc;
}
