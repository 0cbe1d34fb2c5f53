/*
 * The dashboard's pages (docs/dashboard.md): every dashboard URL the API
 * emits answers with a page, server-rendered, on the host the API is on,
 * read-only but for the Addons tab's form, for the project's admins:
 *
 *   /projects/<p>/                          a project: facts, its active
 *                                           versions, its latest builds
 *   /projects/<p>/builds/                   its builds, a page at a time
 *   /projects/<p>/versions/                 its versions
 *   /projects/<p>/addons/                   its reader addons' settings
 *                                           (POST: its admins' form,
 *                                           saved as the v3 PATCH saves)
 *   /projects/<p>/builds/<id>/              a build: state, what it reused
 *                                           (cache), the end of its log,
 *                                           live while it runs (live/:
 *                                           the page's changing parts as
 *                                           JSON; output/<c>/: a command's
 *                                           whole output, as text)
 *   /dashboard/<p>/version/<v>/edit/        a version and its builds
 *   /_/login/                               the docs login, on this host
 *   /_/logout/                              and its logout
 *   /_/dashboard.css                        the theme (?theme=NAME)
 *
 * Who may see what is the API's rule, to the letter: the project is looked
 * up as the v3 routes do (srv_v3_parent_load: a private project is, for
 * anyone else, a project that does not exist), and a version and its
 * builds are shown when srv_v3_version_visible says so. The requester is
 * found as the docs host finds them: a token header, or the session
 * cookie of the docs login, which works here too (srv_dash_authenticate,
 * called by the router before the response cache is consulted, so a page
 * is kept per user). The form's CSRF token is bound to the reader's
 * session (docs_form_token): the docs login's nonce cookie reaches its
 * /_/ paths only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "lectern/addons.h"
#include "lectern/build.h"
#include "lectern/project.h"
#include "lectern/repo.h"
#include "lectern/timefmt.h"
#include "lectern/user.h"
#include "lectern/version.h"
#include "body.h"
#include "buildlog.h"
#include "dash.h"
#include "docs.h"
#include "v3.h"

/* Builds per page of the builds list, and on a project's or version's
 * page. */
#define DASH_BUILDS_PER_PAGE 25
#define DASH_RECENT_BUILDS 10
/* Builds read per query while the visible ones are picked out (as
 * v3_builds.c's scan). */
#define DASH_SCAN_CHUNK 200
/* Milliseconds between a running build page's updates. */
#define DASH_LIVE_MS 1000
/* A build's page shows the end of each command's output, DASH_LOG_TAIL
 * bytes at most, and DASH_LOG_PAGE bytes of output in all: a page, and a
 * running build's live/ every second, is then a few hundred KB at most to
 * render, send and lay out, whatever the log (the engine keeps up to
 * LEC_BUILD_LOG_MAX a build; the whole log on the page took 200 MB a
 * request, issue 36). The whole of an output is a link away, as text
 * sent as it is read. */
#define DASH_LOG_TAIL (32 * 1024)
#define DASH_LOG_PAGE (128 * 1024)

/* One page being answered. */
struct view {
	struct srv_request *req;
	struct srv_response *res;
	struct lec_store *store;
	struct srv_parent parent;
	struct lec_version_list versions; /* the project's, for slugs */
	struct srv_text h;
	struct dash_frame f;
	char *docs_url;
	char path[600];
};

/* Who is asking -------------------------------------------------------- */

void srv_dash_authenticate(struct srv_request *req)
{
	struct docs_ctx c;

	memset(&c, 0, sizeof(c));
	c.req = req;
	if ((c.store = srv_store(req)) == NULL)
		return;
	docs_user(&c);
	lec_user_free(req->user);
	req->user = c.user; /* the request's now */
}

/* Answers ---------------------------------------------------------------- */

/* End the page (its footer) and send it with status. */
static int send_page(struct view *v, int status)
{
	size_t len = 0;
	char *body;

	dash_page_end(&v->h, &v->f);
	if ((body = srv_text_take(&v->h, &len)) == NULL)
		return srv_respond_internal(v->res, "out of memory");
	srv_response_drop_body(v->res);
	v->res->status = status;
	v->res->body = body;
	v->res->body_len = len;
	v->res->content_type = "text/html; charset=utf-8";
	return status;
}

/* The path (with query) of the request, for the login's return. */
static void request_path(struct view *v)
{
	snprintf(v->path, sizeof(v->path), "%s", v->req->raw_uri);
}

static void frame(struct view *v, const char *title, const char *tab)
{
	const struct lec_project *p = v->parent.project;

	v->f.title = title;
	v->f.tab = tab;
	v->f.theme = dash_theme_name(srv_query(v->req, "theme"));
	v->f.user = v->req->user ? v->req->user->username : NULL;
	request_path(v);
	v->f.path = v->path;
	if (p) {
		v->f.project_name = p->name;
		v->f.project_slug = p->slug;
		if (v->docs_url == NULL)
			v->docs_url =
				srv_docs_url(v->req, p, p->default_version);
		v->f.docs_url = v->docs_url;
	}
}

/* The 404 page of a project, version or build the requester cannot see
 * (or that does not exist: the two look alike), inviting an anonymous
 * one to log in. */
static int not_found(struct view *v)
{
	srv_text_dispose(&v->h);
	frame(v, "Not found", NULL);
	v->f.project_name = v->f.project_slug = NULL;
	v->f.docs_url = NULL;
	dash_page_begin(&v->h, &v->f);
	srv_text_puts(&v->h, "<p>There is no such page here, or it belongs "
			     "to a project you may not see.</p>\n");
	if (v->req->user == NULL) {
		srv_text_puts(&v->h, "<p>");
		dash_login_link(&v->h, v->path, "Log in");
		srv_text_puts(&v->h, " to see private projects.</p>\n");
	}
	return send_page(v, 404);
}

static void view_dispose(struct view *v)
{
	srv_text_dispose(&v->h);
	lec_version_list_dispose(&v->versions);
	srv_v3_parent_dispose(&v->parent);
	free(v->docs_url);
}

/* Look the page's project (and version) up as the v3 routes do; an HTML
 * 404 for what is missing or hidden. 0, or -1 with the answer given. */
static int open_view(struct view *v, struct srv_request *req,
		     struct srv_response *res, enum srv_parent_kind kind)
{
	struct lec_version_filter all = { 0 };

	memset(v, 0, sizeof(*v));
	v->req = req;
	v->res = res;
	if ((v->store = srv_store(req)) == NULL) {
		srv_respond_internal(res, "no store");
		return -1;
	}
	request_path(v);
	if (srv_v3_parent_load(req, res, kind, &v->parent) < 0) {
		if (res->status == 404)
			not_found(v);
		return -1;
	}
	if (lec_version_list(v->store, v->parent.project->id, &all, NULL,
			     &v->versions) < 0) {
		srv_respond_internal(res, "listing versions");
		return -1;
	}
	return 0;
}

/* Values ----------------------------------------------------------------- */

static const struct lec_version *version_of(const struct view *v, int64_t id)
{
	size_t i;

	for (i = 0; id && i < v->versions.len; i++)
		if (v->versions.items[i].id == id)
			return &v->versions.items[i];
	return NULL;
}

static void fact(struct srv_text *h, const char *name, const char *value)
{
	srv_text_puts(h, "<dt>");
	srv_text_puts(h, name);
	srv_text_puts(h, "</dt><dd>");
	dash_esc(h, value ? value : "");
	srv_text_puts(h, "</dd>\n");
}

static void anchor(struct srv_text *h, const char *url, const char *text)
{
	srv_text_puts(h, "<a href=\"");
	dash_esc(h, url);
	srv_text_puts(h, "\">");
	dash_esc(h, text);
	srv_text_puts(h, "</a>");
}

/* A build's state: its class and words. */
static void state(struct srv_text *h, const struct lec_build *b)
{
	const char *cls, *words;

	if (!lec_build_state_final(b->state)) {
		cls = "state-running";
		words = lec_build_state_name(b->state);
	} else if (b->state == LEC_BUILD_STATE_CANCELLED) {
		cls = "state-fail";
		words = "Cancelled";
	} else if (b->success) {
		cls = "state-ok";
		words = "Passed";
	} else {
		cls = "state-fail";
		words = "Failed";
	}
	srv_text_printf(h, "<span class=\"%s\">%s</span>", cls,
			words ? words : "");
}

static void build_url(const struct view *v, int64_t id, char *out,
		      size_t cap)
{
	snprintf(out, cap, "/projects/%s/builds/%lld/",
		 v->parent.project->slug, (long long)id);
	dash_themed(&v->f, out, cap);
}

static void version_url(const struct view *v, const char *slug, char *out,
			size_t cap)
{
	snprintf(out, cap, "/dashboard/%s/version/%s/edit/",
		 v->parent.project->slug, slug);
	dash_themed(&v->f, out, cap);
}

/* Seconds a build has taken: its duration, or while it runs, so far. */
static int64_t build_seconds(const struct lec_build *b)
{
	if (b->duration >= 0)
		return b->duration;
	if (b->started > 0)
		return (lec_time_now() - b->started) / 1000000;
	return -1;
}

/* The first reason a cache was not reused, in a word: what the builds
 * list shows ("all reused" when every one was). */
static void cache_word(struct srv_text *h, const char *json)
{
	cJSON *cache = json ? cJSON_Parse(json) : NULL, *c;
	int all = cache && cache->child;

	cJSON_ArrayForEach(c, cache) {
		if (!cJSON_IsTrue(cJSON_GetObjectItem(c, "reused"))) {
			all = 0;
			srv_text_puts(h, "<span class=\"dim\">");
			dash_esc(h, c->string);
			srv_text_puts(h, " not reused</span>");
			break;
		}
	}
	if (all)
		srv_text_puts(h, "all reused");
	cJSON_Delete(cache);
}

static void builds_head(struct srv_text *h)
{
	srv_text_puts(h, "<table><thead><tr><th>Build</th><th>Version</th>"
			 "<th>State</th><th>Started</th><th>Duration</th>"
			 "<th>Commit</th><th>Cache</th></tr></thead><tbody>\n");
}

static void build_row(struct view *v, const struct lec_build *b)
{
	const struct lec_version *ver = version_of(v, b->version_id);
	struct srv_text *h = &v->h;
	char url[700], num[32];

	build_url(v, b->id, url, sizeof(url));
	snprintf(num, sizeof(num), "#%lld", (long long)b->id);
	srv_text_puts(h, "<tr><td>");
	anchor(h, url, num);
	srv_text_puts(h, "</td><td>");
	if (ver) {
		version_url(v, ver->slug, url, sizeof(url));
		anchor(h, url, ver->slug);
	}
	srv_text_puts(h, "</td><td>");
	state(h, b);
	srv_text_puts(h, "</td><td>");
	dash_time(h, b->created);
	srv_text_puts(h, "</td><td>");
	dash_duration(h, build_seconds(b));
	srv_text_puts(h, "</td><td><code>");
	if (b->commit)
		dash_text(h, b->commit, strlen(b->commit) < 12 ?
						strlen(b->commit) : 12);
	srv_text_puts(h, "</code></td><td>");
	cache_word(h, b->cache);
	srv_text_puts(h, "</td></tr>\n");
}

/* Rows of the builds (of version_id, 0: all) the requester may see, from
 * the offset-th of them, at most limit; *total gets how many there are. */
static int build_rows(struct view *v, int64_t version_id, size_t offset,
		      size_t limit, size_t *total)
{
	struct lec_page chunk = { DASH_SCAN_CHUNK, 0 };
	struct lec_build_list list = { 0 };
	size_t i, seen = 0;
	int rc;

	do {
		lec_build_list_dispose(&list);
		rc = lec_build_list(v->store, v->parent.project->id,
				    version_id, NULL, &chunk, &list);
		for (i = 0; rc == LEC_OK && i < list.len; i++) {
			const struct lec_build *b = &list.items[i];

			if (!srv_v3_version_visible(
				    v->store, &v->parent,
				    version_of(v, b->version_id)))
				continue;
			if (seen >= offset && seen - offset < limit)
				build_row(v, b);
			seen++;
		}
		chunk.offset += DASH_SCAN_CHUNK;
	} while (rc == LEC_OK && list.len == DASH_SCAN_CHUNK);
	lec_build_list_dispose(&list);
	*total = seen;
	return rc;
}

/* A table of builds, or a line saying there are none. */
static int builds_table(struct view *v, int64_t version_id, size_t offset,
			size_t limit, size_t *total)
{
	size_t mark = v->h.len;
	int rc;

	builds_head(&v->h);
	rc = build_rows(v, version_id, offset, limit, total);
	srv_text_puts(&v->h, "</tbody></table>\n");
	if (rc == LEC_OK && *total == 0 && !v->h.oom) {
		v->h.len = mark;
		v->h.s[mark] = '\0';
		srv_text_puts(&v->h, "<p class=\"dim\">No builds.</p>\n");
	}
	return rc;
}

static void versions_table(struct view *v, int active_only)
{
	struct srv_text *h = &v->h;
	char url[700];
	size_t i, shown = 0;

	srv_text_puts(h, "<table><thead><tr><th>Version</th><th>Type</th>"
			 "<th>Active</th><th>Built</th><th>Hidden</th>"
			 "<th>Privacy</th><th>Docs</th></tr></thead><tbody>\n");
	for (i = 0; i < v->versions.len; i++) {
		const struct lec_version *ver = &v->versions.items[i];
		char *docs;

		if ((active_only && !ver->active) ||
		    ver->type == LEC_VERSION_EXTERNAL ||
		    !srv_v3_version_visible(v->store, &v->parent, ver))
			continue;
		shown++;
		version_url(v, ver->slug, url, sizeof(url));
		srv_text_puts(h, "<tr><td>");
		anchor(h, url, ver->verbose_name);
		srv_text_printf(h, "</td><td>%s</td><td>%s</td><td>%s</td>"
				   "<td>%s</td><td>",
				lec_version_type_code(ver->type),
				ver->active ? "yes" : "no",
				ver->built ? "yes" : "no",
				ver->hidden ? "yes" : "no");
		dash_esc(h, ver->privacy_level);
		srv_text_puts(h, "</td><td>");
		if (ver->active && ver->built &&
		    (docs = srv_docs_url(v->req, v->parent.project,
					 ver->slug)) != NULL) {
			anchor(h, docs, "read");
			free(docs);
		}
		srv_text_puts(h, "</td></tr>\n");
	}
	srv_text_puts(h, "</tbody></table>\n");
	if (shown == 0)
		srv_text_puts(h, "<p class=\"dim\">No versions.</p>\n");
}

/* Pages ------------------------------------------------------------------- */

/* End the page and send it, unless reading what it shows failed (rc). */
static void finish(struct view *v, int rc)
{
	if (rc < 0) {
		srv_respond_internal(v->res, "reading builds");
		return;
	}
	send_page(v, 200);
}

static int overview(struct srv_request *req, struct srv_response *res)
{
	struct view v;
	const struct lec_project *p;
	char *repo;
	size_t total;
	int rc;

	if (open_view(&v, req, res, SRV_PARENT_PROJECT) < 0)
		goto done;
	p = v.parent.project;
	frame(&v, p->name, "overview");
	dash_page_begin(&v.h, &v.f);
	if (p->description && p->description[0]) {
		srv_text_puts(&v.h, "<p>");
		dash_esc(&v.h, p->description);
		srv_text_puts(&v.h, "</p>\n");
	}
	srv_text_puts(&v.h, "<dl class=\"facts\">\n");
	repo = lec_repo_redact_url(p->repo_url);
	fact(&v.h, "Repository", repo);
	free(repo);
	fact(&v.h, "Default version", p->default_version);
	fact(&v.h, "Default branch",
	     p->default_branch ? p->default_branch : "master");
	fact(&v.h, "Language", p->language);
	fact(&v.h, "Privacy", p->privacy_level);
	srv_text_puts(&v.h, "<dt>Documentation</dt><dd>");
	if (v.docs_url)
		anchor(&v.h, v.docs_url, v.docs_url);
	srv_text_puts(&v.h, "</dd>\n</dl>\n<h2>Active versions</h2>\n");
	versions_table(&v, 1);
	srv_text_puts(&v.h, "<h2>Latest builds</h2>\n");
	rc = builds_table(&v, 0, 0, DASH_RECENT_BUILDS, &total);
	finish(&v, rc);
done:
	view_dispose(&v);
	return res->status;
}

/* The Addons tab ---------------------------------------------------------- */

/* What the Addons tab shows: the settings, and for the project's admins
 * the form that changes them. */
struct addons_view {
	struct lec_addons now;                /* the project's settings */
	const struct lec_addons_patch *sent;  /* a refused form's values */
	char token[DOCS_FORM_TOKEN_MAX];      /* the form's; "": no form */
	char field[64];                       /* what a refused form got */
	char error[512];                      /* wrong, and why; "": none */
};

/* A setting's value as the API shows it: on/off, the text, or "none". */
static const char *setting_value(const struct lec_addons *a, size_t id)
{
	if (lec_addons_settings[id].kind == LEC_ADDONS_BOOL)
		return a->on[id] ? "on" : "off";
	return a->text[id] ? a->text[id] : "none";
}

/* The docs login's view of the request (docs_auth.c): who asks, and with
 * which session. 0, or the status of the answer given; c->user is the
 * caller's to free. */
static int auth_ctx(struct srv_request *req, struct srv_response *res,
		    struct docs_ctx *c)
{
	const char *q = strchr(req->raw_uri, '?');

	memset(c, 0, sizeof(*c));
	c->req = req;
	c->res = res;
	c->query = q ? q : "";
	if ((c->store = srv_store(req)) == NULL)
		return srv_respond_internal(res, "no store");
	return 0;
}

/* The Addons tab's address, in the page's theme, into url. */
static void addons_url(const struct view *v, char *url, size_t cap)
{
	snprintf(url, cap, "/projects/%s/addons/", v->parent.project->slug);
	dash_themed(&v->f, url, cap);
}

/* One setting's field of the form, showing what the refused form sent
 * for it, else its value now. */
static void setting_field(struct srv_text *h, const struct addons_view *av,
			  size_t id)
{
	const struct lec_addons_setting *s = &lec_addons_settings[id];
	int sent = av->sent && (av->sent->set & (1u << id));
	const char *text = sent ? av->sent->text[id] : av->now.text[id];
	const char *const *c;

	if (s->kind == LEC_ADDONS_BOOL) {
		srv_text_printf(h, "<input type=\"checkbox\" id=\"%s\" "
				   "name=\"%s\"%s>",
				s->name, s->name,
				(sent ? av->sent->on[id] : av->now.on[id])
					? " checked"
					: "");
		return;
	}
	if (s->kind == LEC_ADDONS_TEXT) {
		srv_text_printf(h, "<input type=\"text\" id=\"%s\" name=\"%s\" "
				   "maxlength=\"%zu\" placeholder=\"none\" "
				   "value=\"",
				s->name, s->name, s->max_chars);
		dash_esc(h, text);
		srv_text_puts(h, "\">");
		return;
	}
	srv_text_printf(h, "<select id=\"%s\" name=\"%s\">", s->name, s->name);
	if (s->nullable)
		srv_text_printf(h, "<option value=\"\"%s>none</option>",
				text ? "" : " selected");
	for (c = s->choices; *c; c++) {
		srv_text_puts(h, "<option");
		if (text && strcmp(text, *c) == 0)
			srv_text_puts(h, " selected");
		srv_text_puts(h, ">");
		dash_esc(h, *c);
		srv_text_puts(h, "</option>");
	}
	srv_text_puts(h, "</select>");
}

/* The settings: a form when av has a token, else a table of values. */
static void settings_table(struct view *v, const struct addons_view *av)
{
	struct srv_text *h = &v->h;
	char url[700];
	size_t i;

	if (av->token[0]) {
		addons_url(v, url, sizeof(url));
		srv_text_puts(h, "<form method=\"post\" action=\"");
		dash_esc(h, url);
		srv_text_printf(h, "\">\n<input type=\"hidden\" "
				   "name=\"csrf_token\" value=\"%s\">\n",
				av->token);
	}
	srv_text_puts(h, "<table><thead><tr><th>Setting</th><th>Value</th>"
			 "<th>What it does</th></tr></thead><tbody>\n");
	for (i = 0; i < LEC_ADDONS_COUNT; i++) {
		const char *name = lec_addons_settings[i].name;

		if (av->token[0]) {
			srv_text_printf(h, "<tr%s><td><label for=\"%s\"><code>"
					   "%s</code></label></td><td>",
					strcmp(av->field, name) == 0
						? " class=\"error\""
						: "",
					name, name);
			setting_field(h, av, i);
		} else {
			srv_text_printf(h, "<tr><td><code>%s</code></td><td>",
					name);
			dash_esc(h, setting_value(&av->now, i));
		}
		srv_text_puts(h, "</td><td>");
		dash_esc(h, lec_addons_settings[i].help);
		srv_text_puts(h, "</td></tr>\n");
	}
	srv_text_puts(h, "</tbody></table>\n");
	if (av->token[0])
		srv_text_puts(h, "<p><button>Save</button></p>\n</form>\n");
}

/* The Addons tab with status: the project's settings (the v3 addons
 * resource), each with what it does; for its admins a form, with what
 * was wrong with the last one sent. */
static int addons_page(struct view *v, struct docs_ctx *c,
		       struct addons_view *av, int status)
{
	const char *slug = v->parent.project->slug;
	int rc;

	if ((rc = lec_addons_get(v->store, v->parent.project->id,
				 &av->now)) != LEC_OK)
		return srv_respond_engine_error(v->res, rc);
	if (!v->parent.admin || docs_form_token(c, av->token) < 0)
		av->token[0] = '\0';
	frame(v, "Addons", "addons");
	v->f.form = av->token[0] != '\0';
	dash_page_begin(&v->h, &v->f);
	srv_text_puts(&v->h, "<p>What the readers of these docs get on every "
			     "page: the versions menu, notices, search as they "
			     "type, link previews, the visual diff.</p>\n");
	if (av->error[0]) {
		srv_text_puts(&v->h, "<p class=\"error\">Not saved: ");
		if (av->field[0]) {
			srv_text_puts(&v->h, "<code>");
			dash_esc(&v->h, av->field);
			srv_text_puts(&v->h, "</code>: ");
		}
		dash_esc(&v->h, av->error);
		srv_text_puts(&v->h, "</p>\n");
	}
	settings_table(v, av);
	srv_text_printf(&v->h, "<p class=\"dim\">%s<code>lectern addons ",
			v->f.form ? "Changed here too, or with " : "Changed by "
				    "the project's admins, with ");
	dash_esc(&v->h, slug);
	srv_text_puts(&v->h, " NAME=VALUE</code> or <code>PATCH /api/v3/"
			     "projects/");
	dash_esc(&v->h, slug);
	srv_text_puts(&v->h, "/addons/</code>.</p>\n");
	if (v->f.form)
		docs_form_headers(c);
	return send_page(v, status);
}

static int addons(struct srv_request *req, struct srv_response *res)
{
	struct addons_view av;
	struct docs_ctx c;
	struct view v;

	memset(&av, 0, sizeof(av));
	memset(&c, 0, sizeof(c));
	if (open_view(&v, req, res, SRV_PARENT_PROJECT) == 0 &&
	    auth_ctx(req, res, &c) == 0)
		addons_page(&v, &c, &av, 200);
	lec_user_free(c.user);
	lec_addons_dispose(&av.now);
	view_dispose(&v);
	return res->status;
}

/* A form refused (403): why, and the way back to the tab. */
static int form_refused(struct view *v, const char *why)
{
	char url[700];

	srv_text_dispose(&v->h);
	frame(v, "Forbidden", "addons");
	dash_page_begin(&v->h, &v->f);
	srv_text_puts(&v->h, "<p class=\"error\">");
	dash_esc(&v->h, why);
	srv_text_puts(&v->h, " Nothing was changed.</p>\n<p>");
	addons_url(v, url, sizeof(url));
	anchor(&v->h, url, "Back to the Addons tab");
	srv_text_puts(&v->h, "</p>\n");
	return send_page(v, 403);
}

/* What a 400 of the API says (res's body: {"field": ["message"]}, a bare
 * list, or {"detail": "message"}) into av, for the form's page. */
static void refusal_of(const struct srv_response *res, struct addons_view *av)
{
	cJSON *errors = res->body ? cJSON_Parse(res->body) : NULL;
	const cJSON *e = errors ? errors->child : NULL;

	if (e && cJSON_IsObject(errors) && strcmp(e->string, "detail") != 0)
		snprintf(av->field, sizeof(av->field), "%s", e->string);
	while (e && !cJSON_IsString(e))
		e = e->child;
	snprintf(av->error, sizeof(av->error), "%s",
		 e ? e->valuestring : "the form was not understood.");
	cJSON_Delete(errors);
}

/* The Addons form sent: refused (403) without its CSRF token or from
 * someone who does not administer the project; shown again with what is
 * wrong (400) when a value is not one the v3 PATCH takes; otherwise
 * saved, as the PATCH saves it, and on to the tab (303), so that a
 * reload sends nothing again. */
static int addons_post(struct srv_request *req, struct srv_response *res)
{
	struct lec_addons_patch patch;
	struct addons_view av;
	struct docs_ctx c;
	cJSON *body = NULL;
	const cJSON *token;
	char url[700];
	struct view v;

	memset(&av, 0, sizeof(av));
	memset(&c, 0, sizeof(c));
	if (open_view(&v, req, res, SRV_PARENT_PROJECT) < 0 ||
	    auth_ctx(req, res, &c) != 0)
		goto done;
	if ((body = srv_parse_body(req, res)) == NULL) {
		refusal_of(res, &av);
		addons_page(&v, &c, &av, res->status);
		goto done;
	}
	token = srv_body_get(body, "csrf_token");
	if (!docs_form_token_valid(&c, cJSON_IsString(token)
						? token->valuestring
						: NULL)) {
		form_refused(&v, "The form has expired or came from another "
				 "site.");
		goto done;
	}
	if (!v.parent.admin) {
		form_refused(&v, "Only the project's admins change its "
				 "addons.");
		goto done;
	}
	if (srv_v3_addons_apply(req, res, v.parent.project->id, body, 1,
				&patch) < 0) {
		if (res->status == 400) {
			refusal_of(res, &av);
			av.sent = &patch;
			addons_page(&v, &c, &av, 400);
		}
		goto done;
	}
	v.f.theme = dash_theme_name(srv_query(req, "theme"));
	addons_url(&v, url, sizeof(url));
	if ((res->location = strdup(url)) == NULL) {
		srv_respond_internal(res, "out of memory");
		goto done;
	}
	srv_respond_empty(res, 303);
done:
	cJSON_Delete(body);
	lec_user_free(c.user);
	lec_addons_dispose(&av.now);
	view_dispose(&v);
	return res->status;
}

/* The 1-based page number of ?page= (1 for anything else). */
static size_t page_number(struct srv_request *req)
{
	const char *s = srv_query(req, "page");
	char *end;
	unsigned long n = s ? strtoul(s, &end, 10) : 1;

	return s && *s && *end == '\0' && n >= 1 && n < 100000 ? (size_t)n
							      : 1;
}

static void page_link(struct view *v, size_t page, const char *text)
{
	char url[64];

	snprintf(url, sizeof(url), "?page=%zu", page);
	dash_themed(&v->f, url, sizeof(url));
	anchor(&v->h, url, text);
}

static int builds(struct srv_request *req, struct srv_response *res)
{
	size_t page = page_number(req), total = 0, pages;
	char title[400];
	struct view v;

	if (open_view(&v, req, res, SRV_PARENT_PROJECT) < 0)
		goto done;
	snprintf(title, sizeof(title), "Builds of %s", v.parent.project->name);
	frame(&v, title, "builds");
	dash_page_begin(&v.h, &v.f);
	if (builds_table(&v, 0, (page - 1) * DASH_BUILDS_PER_PAGE,
			 DASH_BUILDS_PER_PAGE, &total) < 0) {
		finish(&v, -1);
		goto done;
	}
	pages = (total + DASH_BUILDS_PER_PAGE - 1) / DASH_BUILDS_PER_PAGE;
	srv_text_puts(&v.h, "<div class=\"pages\">");
	if (page > 1)
		page_link(&v, page - 1, "Newer");
	if (pages > 1)
		srv_text_printf(&v.h, "<span class=\"dim\">page %zu of %zu, "
				      "%zu builds</span>",
				page, pages, total);
	if (page < pages)
		page_link(&v, page + 1, "Older");
	srv_text_puts(&v.h, "</div>\n");
	send_page(&v, 200);
done:
	view_dispose(&v);
	return res->status;
}

static int versions(struct srv_request *req, struct srv_response *res)
{
	char title[400];
	struct view v;

	if (open_view(&v, req, res, SRV_PARENT_PROJECT) < 0)
		goto done;
	snprintf(title, sizeof(title), "Versions of %s",
		 v.parent.project->name);
	frame(&v, title, "versions");
	dash_page_begin(&v.h, &v.f);
	versions_table(&v, 0);
	send_page(&v, 200);
done:
	view_dispose(&v);
	return res->status;
}

static int version(struct srv_request *req, struct srv_response *res)
{
	const struct lec_version *ver;
	char title[400], *docs = NULL;
	struct view v;
	size_t total;

	if (open_view(&v, req, res, SRV_PARENT_VERSION) < 0)
		goto done;
	ver = v.parent.version;
	snprintf(title, sizeof(title), "Version %s", ver->verbose_name);
	frame(&v, title, "versions");
	dash_page_begin(&v.h, &v.f);
	srv_text_puts(&v.h, "<dl class=\"facts\">\n");
	fact(&v.h, "Slug", ver->slug);
	fact(&v.h, "Type", lec_version_type_code(ver->type));
	fact(&v.h, "Identifier", ver->identifier);
	fact(&v.h, "Active", ver->active ? "yes" : "no");
	fact(&v.h, "Hidden", ver->hidden ? "yes" : "no");
	fact(&v.h, "Built", ver->built ? "yes" : "no");
	fact(&v.h, "Privacy", ver->privacy_level);
	fact(&v.h, "Documentation type", ver->documentation_type);
	srv_text_puts(&v.h, "<dt>Documentation</dt><dd>");
	if (ver->active && ver->built &&
	    (docs = srv_docs_url(req, v.parent.project, ver->slug)) != NULL)
		anchor(&v.h, docs, docs);
	free(docs);
	srv_text_puts(&v.h, "</dd>\n</dl>\n<h2>Builds</h2>\n");
	finish(&v, builds_table(&v, ver->id, 0, DASH_RECENT_BUILDS, &total));
done:
	view_dispose(&v);
	return res->status;
}

/* A build ------------------------------------------------------------------ */

/* The build's facts and what it reused: the part of its page that
 * changes as it runs, besides the log. */
static void build_head(struct view *v, const struct lec_build *b)
{
	const struct lec_version *ver = version_of(v, b->version_id);
	struct srv_text *h = &v->h;
	cJSON *cache = b->cache ? cJSON_Parse(b->cache) : NULL, *c;
	char url[700];

	srv_text_puts(h, "<dl class=\"facts\">\n<dt>State</dt><dd>");
	state(h, b);
	srv_text_puts(h, "</dd>\n<dt>Version</dt><dd>");
	if (ver) {
		version_url(v, ver->slug, url, sizeof(url));
		anchor(h, url, ver->verbose_name);
	}
	srv_text_puts(h, "</dd>\n");
	fact(h, "Commit", b->commit);
	fact(h, "Triggered by", b->triggered_by ? b->triggered_by : "hand");
	srv_text_puts(h, "<dt>Created</dt><dd>");
	dash_time(h, b->created);
	srv_text_puts(h, "</dd>\n<dt>Finished</dt><dd>");
	dash_time(h, b->finished);
	srv_text_puts(h, "</dd>\n<dt>Duration</dt><dd>");
	dash_duration(h, build_seconds(b));
	srv_text_puts(h, "</dd>\n");
	if (b->fresh)
		fact(h, "Fresh", "yes: nothing of earlier builds was used");
	if (b->error) {
		srv_text_puts(h, "<dt>Error</dt><dd class=\"error\">");
		dash_esc(h, b->error);
		srv_text_puts(h, "</dd>\n");
	}
	srv_text_puts(h, "</dl>\n");
	if (cJSON_IsObject(cache) && cache->child) {
		srv_text_puts(h, "<h2>Cache</h2>\n<table><thead><tr><th>Kept "
				 "work</th><th>Reused</th><th>Why not"
				 "</th></tr></thead><tbody>\n");
		cJSON_ArrayForEach(c, cache) {
			const cJSON *reason = cJSON_GetObjectItem(c, "reason");
			int reused =
				cJSON_IsTrue(cJSON_GetObjectItem(c, "reused"));

			srv_text_puts(h, "<tr><td>");
			dash_esc(h, c->string);
			srv_text_printf(h, "</td><td class=\"%s\">%s</td><td>",
					reused ? "state-ok" : "dim",
					reused ? "yes" : "no");
			if (cJSON_IsString(reason))
				dash_esc(h, reason->valuestring);
			srv_text_puts(h, "</td></tr>\n");
		}
		srv_text_puts(h, "</tbody></table>\n");
	}
	cJSON_Delete(cache);
}

/* A command's claim on the page: the end of its output it would show. */
struct share {
	size_t want, i;
};

static int by_want(const void *a, const void *b)
{
	const struct share *x = a, *y = b;

	return (x->want > y->want) - (x->want < y->want);
}

/* How much of each command's output the page shows: its end, at most
 * DASH_LOG_TAIL, and DASH_LOG_PAGE in all, shared fairly: outputs
 * smaller than an even share show whole, and the others split what they
 * leave. Owned by the caller; NULL when out of memory. */
static size_t *log_shares(const struct lec_build_command_list *cl)
{
	size_t *shown = calloc(cl->len + 1, sizeof(*shown));
	struct share *by = calloc(cl->len + 1, sizeof(*by));
	size_t left = DASH_LOG_PAGE, k, fair;

	if (shown == NULL || by == NULL) {
		free(shown);
		free(by);
		return NULL;
	}
	for (k = 0; k < cl->len; k++) {
		by[k].want = cl->items[k].output_len < DASH_LOG_TAIL
				     ? cl->items[k].output_len
				     : DASH_LOG_TAIL;
		by[k].i = k;
	}
	/* Smallest first: each takes what it wants, or an even share of
	 * what is left when it wants more, as does every one after it. */
	qsort(by, cl->len, sizeof(*by), by_want);
	for (k = 0; k < cl->len; k++) {
		fair = left / (cl->len - k);
		shown[by[k].i] = by[k].want < fair ? by[k].want : fair;
		left -= shown[by[k].i];
	}
	free(by);
	return shown;
}

/* The last n bytes of c's output, from a character's start and, when it
 * is cut, from the start of a line in its first half, into buf
 * (DASH_LOG_TAIL bytes). */
static int output_tail(struct view *v, const struct lec_build_command *c,
		       size_t n, char *buf)
{
	size_t got = 0, skip = 0;
	const char *line;
	int rc;

	if (n == 0)
		return LEC_OK;
	if ((rc = lec_build_command_read(v->store, c, c->output_len - n, buf,
					 n, &got)) < 0)
		return rc == LEC_ENOTFOUND ? LEC_OK : rc; /* gone since */
	if (n < c->output_len) {
		while (skip < got && skip < 3 &&
		       ((unsigned char)buf[skip] & 0xC0) == 0x80)
			skip++;
		if (got / 2 > skip &&
		    (line = memchr(buf + skip, '\n', got / 2 - skip)) != NULL)
			skip = (size_t)(line + 1 - buf);
	}
	dash_text(&v->h, buf + skip, got - skip);
	return LEC_OK;
}

/* What the page leaves out of an output, and the link to all of it. */
static void earlier_output(struct view *v, const struct lec_build *b,
			   const struct lec_build_command *c, size_t shown)
{
	char size[LEC_BUILD_SIZE_TEXT_MAX], url[700];

	lec_build_size_text(c->output_len - shown, size);
	snprintf(url, sizeof(url), "/projects/%s/builds/%lld/output/%lld/",
		 v->parent.project->slug, (long long)b->id, (long long)c->id);
	srv_text_printf(&v->h, "<div class=\"dim\">&hellip; %s %s: ", size,
			shown ? "before this" : "of output");
	anchor(&v->h, url, "the whole output");
	srv_text_puts(&v->h, "</div>\n");
}

/* The commands and the end of their output. */
static int build_log(struct view *v, const struct lec_build *b)
{
	struct lec_build_command_list cl = { 0 };
	struct srv_text *h = &v->h;
	size_t *shown = NULL, i;
	char *tail = NULL;
	int rc;

	if ((rc = lec_build_command_list(v->store, b->id, &cl)) < 0)
		return rc;
	if ((shown = log_shares(&cl)) == NULL ||
	    (tail = malloc(DASH_LOG_TAIL)) == NULL) {
		rc = LEC_ENOMEM;
		goto done;
	}
	for (i = 0; rc == LEC_OK && i < cl.len; i++) {
		const struct lec_build_command *c = &cl.items[i];

		srv_text_puts(h, "<div class=\"command\">$ ");
		dash_esc(h, c->description && c->description[0]
				    ? c->description
				    : c->command);
		srv_text_puts(h, "</div>\n");
		if (shown[i] < c->output_len)
			earlier_output(v, b, c, shown[i]);
		srv_text_puts(h, "<pre>");
		rc = output_tail(v, c, shown[i], tail);
		srv_text_puts(h, "</pre>\n<div class=\"dim\">");
		if (c->end_time)
			srv_text_printf(h, "exit code %d, %lld s", c->exit_code,
					(long long)c->run_time);
		else
			srv_text_puts(h, "running");
		srv_text_puts(h, "</div>\n");
	}
	if (cl.len == 0)
		srv_text_puts(h, "<p class=\"dim\">Nothing has run yet.</p>\n");
done:
	free(tail);
	free(shown);
	lec_build_command_list_dispose(&cl);
	return rc;
}

/* The build of the path as the API would show it to the requester: its
 * view and the build, or -1 with the answer given (an HTML 404). */
static int open_build(struct view *v, struct srv_request *req,
		      struct srv_response *res, struct lec_build **b)
{
	struct lec_version_filter all = { 0 };
	int64_t id;

	*b = NULL;
	memset(v, 0, sizeof(*v));
	v->req = req;
	v->res = res;
	v->store = srv_store(req);
	request_path(v);
	if (v->store == NULL) {
		srv_respond_internal(res, "no store");
		return -1;
	}
	if (srv_v3_build_find(req, res, req->params[1], &v->parent, &id) < 0) {
		if (res->status == 404)
			not_found(v);
		return -1;
	}
	if (lec_build_get(v->store, id, b) < 0 ||
	    lec_version_list(v->store, v->parent.project->id, &all, NULL,
			     &v->versions) < 0) {
		srv_respond_internal(res, "reading the build");
		return -1;
	}
	return 0;
}

/* The script that keeps a running build's page current: it asks live/
 * for the parts that change, puts them in place (following the log's end
 * when the reader is there), and stops once the build has ended. */
static const char live_script[] =
	"<script>\n"
	"(function () {\n"
	"  var live = document.getElementById('live');\n"
	"  function tick() {\n"
	"    fetch(live.dataset.src, {credentials: 'same-origin', "
	"cache: 'no-store'})\n"
	"      .then(function (r) { return r.json(); })\n"
	"      .then(function (d) {\n"
	"        var end = window.innerHeight + window.scrollY >= "
	"document.body.scrollHeight - 40;\n"
	"        document.getElementById('build-head').innerHTML = d.head;\n"
	"        document.getElementById('log').innerHTML = d.log;\n"
	"        if (end) window.scrollTo(0, document.body.scrollHeight);\n"
	"        if (d.done) live.dataset.state = 'done';\n"
	"        else setTimeout(tick, live.dataset.ms);\n"
	"      })\n"
	"      .catch(function () { setTimeout(tick, 3 * live.dataset.ms); "
	"});\n"
	"  }\n"
	"  setTimeout(tick, live.dataset.ms);\n"
	"})();\n"
	"</script>\n";

static int build(struct srv_request *req, struct srv_response *res)
{
	struct lec_build *b = NULL;
	char title[64];
	struct view v;
	int running;

	if (open_build(&v, req, res, &b) < 0)
		goto done;
	snprintf(title, sizeof(title), "Build #%lld", (long long)b->id);
	frame(&v, title, "builds");
	dash_page_begin(&v.h, &v.f);
	running = !lec_build_state_final(b->state);
	srv_text_puts(&v.h, "<div id=\"build-head\">\n");
	build_head(&v, b);
	srv_text_puts(&v.h, "</div>\n<h2>Log</h2>\n<div id=\"log\">\n");
	if (build_log(&v, b) < 0) {
		srv_respond_internal(res, "reading the log");
		goto done;
	}
	srv_text_puts(&v.h, "</div>\n");
	srv_text_printf(&v.h, "<div id=\"live\" data-state=\"%s\" "
			      "data-ms=\"%d\" data-src=\"live/\"></div>\n",
			running ? "running" : "done", DASH_LIVE_MS);
	if (running)
		srv_text_puts(&v.h, live_script);
	send_page(&v, 200);
done:
	lec_build_free(b);
	view_dispose(&v);
	return res->status;
}

/* The changing parts of a build's page as JSON: {"done", "head", "log"}. */
static int build_live(struct srv_request *req, struct srv_response *res)
{
	struct lec_build *b = NULL;
	cJSON *o = NULL;
	struct view v;
	char *part;

	if (open_build(&v, req, res, &b) < 0) {
		if (res->status == 404) {
			srv_response_drop_body(res);
			srv_respond_detail(res, 404, "Not found.");
		}
		goto done;
	}
	o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "done", lec_build_state_final(b->state));
	build_head(&v, b);
	part = srv_text_take(&v.h, NULL);
	cJSON_AddStringToObject(o, "head", part ? part : "");
	free(part);
	if (build_log(&v, b) < 0) {
		srv_respond_internal(res, "reading the log");
		goto done;
	}
	part = srv_text_take(&v.h, NULL);
	cJSON_AddStringToObject(o, "log", part ? part : "");
	free(part);
	srv_respond_json(res, 200, o, SRV_JSON_AS_BUILT);
	o = NULL;
done:
	cJSON_Delete(o);
	lec_build_free(b);
	view_dispose(&v);
	return res->status;
}

/* The whole output of one of a build's commands, as text sent as it is
 * read (buildlog.h): what the build's page leaves out. */
static int build_output(struct srv_request *req, struct srv_response *res)
{
	struct lec_build_command_list cl = { 0 };
	struct srv_buildlog *log;
	struct lec_build *b = NULL;
	struct view v;
	int64_t id = 0;
	size_t i;

	if (open_build(&v, req, res, &b) < 0)
		goto done;
	if (srv_param_id(req->params[2], res, &id) < 0) {
		not_found(&v);
		goto done;
	}
	if (lec_build_command_list(v.store, b->id, &cl) < 0) {
		srv_respond_internal(res, "listing the build's commands");
		goto done;
	}
	for (i = 0; i < cl.len && cl.items[i].id != id; i++)
		;
	if (i == cl.len) {
		not_found(&v);
		goto done;
	}
	if ((log = srv_buildlog_new(v.store)) != NULL)
		srv_buildlog_output(log, &cl.items[i]);
	srv_buildlog_respond(res, 200, "text/plain; charset=utf-8", log);
done:
	lec_build_command_list_dispose(&cl);
	lec_build_free(b);
	view_dispose(&v);
	return res->status;
}

/* Login, logout and theme ------------------------------------------------ */

/* A page of the docs login (docs_auth.c) on this host. */
static int auth_page(struct srv_request *req, struct srv_response *res,
		     int (*page)(struct docs_ctx *c))
{
	struct docs_ctx c;
	int status;

	if ((status = auth_ctx(req, res, &c)) != 0)
		return status;
	status = page(&c);
	lec_user_free(c.user);
	return status;
}

static int login(struct srv_request *req, struct srv_response *res)
{
	return auth_page(req, res, docs_login_form);
}

static int logout(struct srv_request *req, struct srv_response *res)
{
	return auth_page(req, res, docs_logout);
}

static int stylesheet(struct srv_request *req, struct srv_response *res)
{
	size_t len = 0;
	char *css = dash_theme_css(
		dash_theme_name(srv_query(req, "theme")), &len);

	if (css == NULL)
		return srv_respond_internal(res, "out of memory");
	res->status = 200;
	res->body = css;
	res->body_len = len;
	res->content_type = "text/css; charset=utf-8";
	return 200;
}

/* Routes ------------------------------------------------------------------ */

#define PAGE(pattern, handler, view)                                         \
	{ pattern, SRV_API_DASH, SRV_PERM_ANYONE, 0,                         \
	  { { SRV_GET, SRV_PERM_ANYONE, handler } }, view, NULL }

const struct srv_route srv_dash_routes[] = {
	PAGE("/projects/{}/", overview, "Project"),
	PAGE("/projects/{}/builds/", builds, "Builds"),
	PAGE("/projects/{}/versions/", versions, "Versions"),
	{ "/projects/{}/addons/", SRV_API_DASH, SRV_PERM_ANYONE, 0,
	  { { SRV_GET, SRV_PERM_ANYONE, addons },
	    { SRV_POST, SRV_PERM_ANYONE, addons_post } },
	  "Addons", NULL },
	PAGE("/projects/{}/builds/{}/", build, "Build"),
	PAGE("/projects/{}/builds/{}/live/", build_live, "Build"),
	PAGE("/projects/{}/builds/{}/output/{}/", build_output, "Output"),
	PAGE("/dashboard/{}/version/{}/edit/", version, "Version"),
	PAGE("/_/dashboard.css", stylesheet, "Stylesheet"),
	{ "/_/login/", SRV_API_DASH, SRV_PERM_ANYONE, 0,
	  { { SRV_GET, SRV_PERM_ANYONE, login },
	    { SRV_POST, SRV_PERM_ANYONE, login } },
	  "Login", NULL },
	{ "/_/logout/", SRV_API_DASH, SRV_PERM_ANYONE, 0,
	  { { SRV_GET, SRV_PERM_ANYONE, logout },
	    { SRV_POST, SRV_PERM_ANYONE, logout } },
	  "Logout", NULL },
};

const size_t srv_dash_route_count =
	sizeof(srv_dash_routes) / sizeof(srv_dash_routes[0]);
