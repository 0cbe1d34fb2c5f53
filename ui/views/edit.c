/*
 * The TUI's writes (see edit.h): each builds its form or its question,
 * with the API path and body the v3 contract names, and leaves the rest
 * to the form widget, the confirmation dialog and the app's requests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../app.h"
#include "../confirm.h"
#include "../form.h"
#include "../notice.h"
#include "builds.h"
#include "client.h"
#include "edit.h"

/* A project's API path; owned. */
static char *project_path(const char *project, const char *below)
{
	return ui_xasprintf("/api/v3/projects/%s/%s", project, below);
}

static const char *json_str(const cJSON *o, const char *key)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(item) ? item->valuestring : NULL;
}

static long long json_int(const cJSON *o, const char *key, long long dflt)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(item) ? (long long)item->valuedouble : dflt;
}

static const char *yes_no(const cJSON *o, const char *key, int dflt)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(o, key);

	if (cJSON_IsBool(item))
		return cJSON_IsTrue(item) ? "yes" : "no";
	return dflt ? "yes" : "no";
}

/* Import ------------------------------------------------------------------------ */

/* A directory as typed becomes its file:// URL when the engine reads
 * this machine (lc_repository_url, the CLI's rule too); *out owned. */
static int import_url(const struct ui_form *f, char **out,
		      struct lc_error *err)
{
	return lc_repository_url(ui_form_field(f, "repository.url")->value,
				 f->parent->app->conn.local, out, err);
}

/* Before sending: a directory that is not there is named at once. */
static const char *import_check(const struct ui_form *f, const char **field)
{
	static char why[LC_ERROR_MESSAGE_MAX];
	struct lc_error err;
	char *url = NULL;

	*field = "repository.url";
	/* Left empty: the server says so, beside the other fields' words. */
	if (ui_form_field(f, "repository.url")->len == 0 ||
	    import_url(f, &url, &err) == LC_OK) {
		free(url);
		return NULL;
	}
	snprintf(why, sizeof(why), "%s", err.message);
	return why;
}

static cJSON *import_body(const struct ui_form *f)
{
	cJSON *body = cJSON_CreateObject(), *repo;
	const struct ui_field *fl;
	struct lc_error err;
	char *url = NULL;

	ui_form_put(body, ui_form_field(f, "name"));
	repo = cJSON_AddObjectToObject(body, "repository");
	if (import_url(f, &url, &err) != LC_OK)
		url = NULL; /* import_check said why; the server says it too */
	cJSON_AddStringToObject(repo, "url",
				url ? url
				    : ui_form_field(f, "repository.url")->value);
	free(url);
	cJSON_AddStringToObject(repo, "type", "git");
	/* Left empty: the server's defaults. */
	if ((fl = ui_form_field(f, "language"))->len)
		ui_form_put(body, fl);
	if ((fl = ui_form_field(f, "programming_language"))->len)
		ui_form_put(body, fl);
	if ((fl = ui_form_field(f, "organization"))->len)
		ui_form_put(body, fl);
	return body;
}

static void import_saved(struct ui_view *parent, const struct lc_response *resp)
{
	struct ui_app *app = parent->app;
	const char *slug = json_str(resp->json, "slug");
	struct ui_view *v;

	parent->ops->on_action(parent, UI_ACTION_REFRESH);
	if (slug == NULL) {
		ui_app_message(app, "imported");
		return;
	}
	v = app->screens->project(app, slug);
	ui_app_push(app, v);
	v->ops->on_action(v, UI_ACTION_BUILDS);
	ui_app_message(app, "imported %s: its first build is below", slug);
}

void ui_edit_import(struct ui_view *parent)
{
	struct ui_form *f;

	if (!ui_app_can_write(parent->app))
		return;
	f = ui_form_new("POST", "/api/v3/projects/", import_body, import_saved);
	f->check = import_check;
	ui_form_add(f, UI_FIELD_TEXT, "name", "Name", NULL);
	ui_form_add(f, UI_FIELD_TEXT, "repository.url",
		    "Repository URL/path", NULL);
	ui_form_add(f, UI_FIELD_TEXT, "language", "Language", "en");
	ui_form_add(f, UI_FIELD_TEXT, "programming_language",
		    "Programming language", NULL);
	/* The business edition imports into an organization; elsewhere it
	 * stays empty and is left out. */
	ui_form_add(f, UI_FIELD_TEXT, "organization", "Organization", NULL);
	ui_form_open(parent->app, parent, "Import a project", f);
}

/* Remove a project -------------------------------------------------------------- */

/* The slug the user must type is the form's path's last part. */
static const char *typed_slug_check(const struct ui_form *f,
				    const char **field)
{
	const char *want = f->path + strlen("/api/v3/projects/");
	const struct ui_field *fl = ui_form_field(f, "confirm");

	*field = "confirm";
	if (strncmp(fl->value, want, strlen(want) - 1) == 0 &&
	    fl->len == strlen(want) - 1)
		return NULL;
	return "type the project's slug exactly, or Esc to keep it";
}

static cJSON *no_body(const struct ui_form *f)
{
	(void)f;
	return NULL;
}

static void project_removed(struct ui_view *parent,
			    const struct lc_response *resp)
{
	(void)resp;
	parent->ops->on_action(parent, UI_ACTION_REFRESH);
	ui_app_message(parent->app, "removed the project with everything of it");
}

void ui_edit_remove_project(struct ui_view *parent, const char *project)
{
	struct ui_form *f;
	char *path, *note;

	if (!ui_app_can_write(parent->app))
		return;
	path = project_path(project, "");
	f = ui_form_new("DELETE", path, no_body, project_removed);
	f->check = typed_slug_check;
	/* Nothing brings it back: say what goes, and make the user type
	 * which project. */
	note = ui_xasprintf("Type %s to remove it with its versions, builds, "
			    "docs, search, settings and caches.",
			    project);
	ui_form_note(f, note);
	ui_form_add(f, UI_FIELD_TEXT, "confirm", "The project's slug", NULL);
	ui_form_open(parent->app, parent, "Remove a project", f);
	free(note);
	free(path);
}

/* Every shown field, as the form has it. */
static cJSON *all_fields_body(const struct ui_form *f)
{
	cJSON *body = cJSON_CreateObject();
	size_t i;

	for (i = 0; i < f->len; i++)
		ui_form_put(body, &f->fields[i]);
	return body;
}

/* Settings ------------------------------------------------------------------------ */

static const char *const schemes[] = {
	"multiple_versions_with_translations",
	"multiple_versions_without_translations",
	"single_version_without_translations",
};

/* A PATCH of what was changed only: the API does not return every
 * writable field (external builds, analytics), so an untouched field must
 * not overwrite what the server has. */
static cJSON *settings_body(const struct ui_form *f)
{
	cJSON *body = cJSON_CreateObject();
	size_t i;

	for (i = 0; i < f->len; i++)
		if (f->fields[i].changed)
			ui_form_put(body, &f->fields[i]);
	return body;
}

static void settings_saved(struct ui_view *parent,
			   const struct lc_response *resp)
{
	(void)resp;
	parent->ops->on_action(parent, UI_ACTION_REFRESH);
	ui_app_message(parent->app, "settings saved");
}

void ui_edit_settings(struct ui_view *parent, const char *project,
		      const cJSON *detail)
{
	struct lc_project *p = NULL;
	struct ui_form *f;
	char *path;

	if (!ui_app_can_write(parent->app))
		return;
	/* A detail not loaded yet, or not parsed, leaves the fields empty:
	 * only what is typed is sent. */
	if (detail)
		lc_project_parse(detail, &p, NULL);
	path = project_path(project, "");
	f = ui_form_new("PATCH", path, settings_body, settings_saved);
	ui_form_add(f, UI_FIELD_TEXT, "default_version", "Default version",
		    p ? p->default_version : NULL);
	ui_form_add(f, UI_FIELD_TEXT, "default_branch", "Default branch",
		    p ? p->default_branch : NULL);
	ui_form_add(f, UI_FIELD_TEXT, "language", "Language",
		    p ? p->language : NULL);
	ui_form_add(f, UI_FIELD_TEXT, "programming_language",
		    "Programming language", p ? p->programming_language : NULL);
	ui_form_add(f, UI_FIELD_TEXT, "homepage", "Homepage",
		    p ? p->homepage : NULL);
	ui_form_add_choice(f, "versioning_scheme", "Versioning", schemes,
			   sizeof(schemes) / sizeof(schemes[0]),
			   json_str(detail, "versioning_scheme"));
	ui_form_add(f, UI_FIELD_BOOL, "external_builds_enabled",
		    "External builds", yes_no(detail, "external_builds_enabled", 0));
	ui_form_add(f, UI_FIELD_TEXT, "analytics_code", "Analytics code",
		    json_str(detail, "analytics_code"));
	ui_form_open(parent->app, parent, "Settings", f);
	lc_project_free(p);
	free(path);
}

/* Redirects ----------------------------------------------------------------------- */

static const char *const redirect_types[] = {
	"page", "exact", "clean_url_to_html", "html_to_clean_url",
};

/* Only page and exact redirects have URLs of their own. */
static void redirect_changed(struct ui_form *f)
{
	const char *type = ui_field_text(ui_form_field(f, "type"));
	int urls = strcmp(type, "page") == 0 || strcmp(type, "exact") == 0;

	ui_form_field(f, "from_url")->hidden = !urls;
	ui_form_field(f, "to_url")->hidden = !urls;
}

static void redirect_saved(struct ui_view *parent,
			   const struct lc_response *resp)
{
	(void)resp;
	parent->ops->on_action(parent, UI_ACTION_REFRESH);
	ui_app_message(parent->app, "redirect saved");
}

void ui_edit_redirect(struct ui_view *parent, const char *project,
		      const cJSON *redirect)
{
	struct ui_form *f;
	char *path, *below = NULL, status[24];
	/* A redirect without a pk is a new one filled in beforehand. */
	int editing = redirect && json_int(redirect, "pk", 0) > 0;

	if (!ui_app_can_write(parent->app))
		return;
	if (editing)
		below = ui_xasprintf("redirects/%lld/",
				     json_int(redirect, "pk", 0));
	path = project_path(project, below ? below : "redirects/");
	/* Editing replaces the redirect with what the form shows (PUT). */
	f = ui_form_new(editing ? "PUT" : "POST", path, all_fields_body,
			redirect_saved);
	f->on_change = redirect_changed;
	ui_form_add_choice(f, "type", "Type", redirect_types,
			   sizeof(redirect_types) / sizeof(redirect_types[0]),
			   json_str(redirect, "type"));
	ui_form_add(f, UI_FIELD_TEXT, "from_url", "From URL",
		    json_str(redirect, "from_url"));
	ui_form_add(f, UI_FIELD_TEXT, "to_url", "To URL",
		    json_str(redirect, "to_url"));
	snprintf(status, sizeof(status), "%lld",
		 json_int(redirect, "http_status", 302));
	ui_form_add(f, UI_FIELD_NUMBER, "http_status", "HTTP status", status);
	ui_form_add(f, UI_FIELD_BOOL, "force", "Force",
		    yes_no(redirect, "force", 0));
	ui_form_add(f, UI_FIELD_BOOL, "enabled", "Enabled",
		    yes_no(redirect, "enabled", 1));
	ui_form_add(f, UI_FIELD_TEXT, "description", "Description",
		    json_str(redirect, "description"));
	ui_form_open(parent->app, parent,
		     editing ? "Edit redirect" : "Add a redirect", f);
	free(below);
	free(path);
}

void ui_edit_redirect_move(struct ui_view *parent, const char *project,
			   const cJSON *redirect, int step)
{
	long long pos = json_int(redirect, "position", -1);
	char *path, *below, body[48], done[64];

	if (!ui_app_can_write(parent->app))
		return;
	if (pos < 0 || pos + step < 0) {
		ui_app_message(parent->app, "the redirect is already first");
		return;
	}
	below = ui_xasprintf("redirects/%lld/", json_int(redirect, "pk", 0));
	path = project_path(project, below);
	snprintf(body, sizeof(body), "{\"position\": %lld}", pos + step);
	snprintf(done, sizeof(done), "redirect moved to position %lld",
		 pos + step);
	ui_app_send(parent->app, parent, UI_EDIT_TAG, "PATCH", path, body,
		    done);
	free(below);
	free(path);
}

/* Env vars and subprojects ----------------------------------------------------------- */

static void envvar_saved(struct ui_view *parent, const struct lc_response *resp)
{
	(void)resp;
	parent->ops->on_action(parent, UI_ACTION_REFRESH);
	ui_app_message(parent->app, "variable added");
}

void ui_edit_envvar(struct ui_view *parent, const char *project)
{
	struct ui_form *f;
	char *path;

	if (!ui_app_can_write(parent->app))
		return;
	path = project_path(project, "environmentvariables/");
	f = ui_form_new("POST", path, all_fields_body, envvar_saved);
	ui_form_add(f, UI_FIELD_TEXT, "name", "Name", NULL);
	ui_form_add(f, UI_FIELD_SECRET, "value", "Value (masked)", NULL);
	ui_form_add(f, UI_FIELD_BOOL, "public", "Public",
		    "no");
	ui_form_open(parent->app, parent, "Add an env var", f);
	free(path);
}

static void subproject_saved(struct ui_view *parent,
			     const struct lc_response *resp)
{
	(void)resp;
	parent->ops->on_action(parent, UI_ACTION_REFRESH);
	ui_app_message(parent->app, "subproject added");
}

/* The user's projects per request: the API's maximum page. */
#define CHOICES_PAGE 1000

void ui_edit_subproject(struct ui_view *parent, const char *project)
{
	struct ui_form *f;
	char *path, *list;

	if (!ui_app_can_write(parent->app))
		return;
	path = project_path(project, "subprojects/");
	/* The user's own projects (what the token lists), less this one,
	 * read afresh: projects imported since the list was shown count. */
	list = ui_xasprintf("/api/v3/projects/?limit=%d", CHOICES_PAGE);
	f = ui_form_new("POST", path, all_fields_body, subproject_saved);
	ui_form_add_choice(f, "child", "Project", NULL, 0, NULL);
	ui_form_add(f, UI_FIELD_TEXT, "alias", "Alias", NULL);
	ui_form_choices_from(f, "child", list, project);
	ui_form_open(parent->app, parent, "Add a subproject", f);
	free(list);
	free(path);
}

/* Integrations ---------------------------------------------------------------------- */

const char *ui_edit_forge(const char *type)
{
	const char *forge = lc_forge_name(type);

	return forge ? forge : type ? type : "?";
}

static cJSON *integration_body(const struct ui_form *f)
{
	const char *forge = ui_field_text(ui_form_field(f, "forge"));
	cJSON *body = cJSON_CreateObject();

	if (lc_forge_type(forge))
		cJSON_AddStringToObject(body, "integration_type",
					lc_forge_type(forge));
	return body;
}

/* The answer is the one place the secret is ever given: show it with the
 * URL until the user closes the notice, and wipe the answer's copies (the
 * app frees it after this call). */
static void integration_saved(struct ui_view *parent,
			      const struct lc_response *resp)
{
	cJSON *secret = cJSON_GetObjectItemCaseSensitive(resp->json, "secret");
	const char *url = json_str(resp->json, "url");
	char *text;

	parent->ops->on_action(parent, UI_ACTION_REFRESH);
	if (cJSON_IsString(secret)) {
		text = ui_xasprintf("Paste these into the forge's webhook "
				    "settings:\n\n  URL     %s\n  Secret  %s\n\n"
				    "The secret is shown this once: the server "
				    "never returns it.",
				    url ? url : "?", secret->valuestring);
		explicit_bzero(secret->valuestring, strlen(secret->valuestring));
		explicit_bzero(resp->body, resp->body_len);
	} else {
		/* A secret the user chose is not sent back. */
		text = ui_xasprintf("Paste this into the forge's webhook "
				    "settings:\n\n  URL     %s",
				    url ? url : "?");
	}
	ui_notice_open(parent->app, "New integration", text);
	explicit_bzero(text, strlen(text));
	free(text);
	ui_app_message(parent->app, "integration added");
}

void ui_edit_integration(struct ui_view *parent, const char *project)
{
	const char *forges[LC_FORGE_COUNT];
	struct ui_form *f;
	char *path;
	size_t i;

	if (!ui_app_can_write(parent->app))
		return;
	for (i = 0; i < LC_FORGE_COUNT; i++)
		forges[i] = lc_forges[i].forge;
	path = project_path(project, "integrations/");
	f = ui_form_new("POST", path, integration_body, integration_saved);
	ui_form_add_choice(f, "forge", "Forge", forges, LC_FORGE_COUNT, NULL);
	ui_form_open(parent->app, parent, "Add an integration", f);
	free(path);
}

/* Confirmed and direct writes ---------------------------------------------------------- */

void ui_edit_delete(struct ui_view *parent, const char *project,
		    const char *path, const char *what)
{
	char *full, *question, *done;

	if (!ui_app_can_write(parent->app))
		return;
	full = project_path(project, path);
	question = ui_xasprintf("Delete %s of %s?", what, project);
	done = ui_xasprintf("deleted %s", what);
	ui_confirm_open(parent->app, parent, UI_EDIT_TAG, question, "DELETE",
			full, NULL, done);
	free(done);
	free(question);
	free(full);
}

void ui_edit_trigger(struct ui_view *parent, const char *project,
		     const char *version, int fresh)
{
	char *below, *path, *done;

	if (!ui_app_can_write(parent->app))
		return;
	below = ui_xasprintf("versions/%s/builds/", version);
	path = project_path(project, below);
	done = ui_xasprintf("triggered a %sbuild of %s/%s",
			    fresh ? "fresh " : "", project, version);
	ui_app_send(parent->app, parent, UI_EDIT_TAG, "POST", path,
		    fresh ? "{\"fresh\": true}" : NULL, done);
	free(done);
	free(path);
	free(below);
}

void ui_edit_preview_branch(struct ui_view *parent, const char *project,
			    const char *branch)
{
	cJSON *o;
	char *path, *body, *done;

	if (!ui_app_can_write(parent->app))
		return;
	/* The name as JSON: a branch may hold any character git allows. */
	if ((o = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(o, "branch", branch) == NULL ||
	    (body = cJSON_PrintUnformatted(o)) == NULL)
		ui_die("out of memory");
	cJSON_Delete(o);
	path = project_path(project, "previews/");
	done = ui_xasprintf("triggered a preview of %s's branch %s", project,
			    branch);
	ui_app_send(parent->app, parent, UI_EDIT_PREVIEW_TAG, "POST", path,
		    body, done);
	free(done);
	free(path);
	cJSON_free(body);
}

void ui_edit_cancel(struct ui_view *parent, const struct lc_build *b)
{
	char *below, *path, *question, *done;

	if (!ui_app_can_write(parent->app))
		return;
	if (ui_build_final(b)) {
		ui_app_error(parent->app, "build #%lld has already ended", b->id);
		return;
	}
	below = ui_xasprintf("builds/%lld/cancel/", b->id);
	path = project_path(b->project, below);
	question = ui_xasprintf("Cancel build #%lld of %s/%s?", b->id,
				b->project, b->version ? b->version : "-");
	done = ui_xasprintf("cancelled build #%lld", b->id);
	ui_confirm_open(parent->app, parent, UI_EDIT_TAG, question, "POST",
			path, NULL, done);
	free(done);
	free(question);
	free(path);
	free(below);
}

void ui_edit_version_flag(struct ui_view *parent, const char *project,
			  const char *version, const char *flag, int on)
{
	char *below, *path, *body, *done, *question;
	int active = strcmp(flag, "active") == 0;

	if (!ui_app_can_write(parent->app))
		return;
	below = ui_xasprintf("versions/%s/", version);
	path = project_path(project, below);
	body = ui_xasprintf("{\"%s\": %s}", flag, on ? "false" : "true");
	done = ui_xasprintf("%s %s",
			    active ? (on ? "deactivated" : "activated")
				   : (on ? "unhid" : "hid"),
			    version);
	if (active && on) {
		/* Deactivating takes the version's docs offline. */
		question = ui_xasprintf("Deactivate version %s of %s (its "
					"docs go offline)?", version, project);
		ui_confirm_open(parent->app, parent, UI_EDIT_TAG, question,
				"PATCH", path, body, done);
		free(question);
	} else {
		ui_app_send(parent->app, parent, UI_EDIT_TAG, "PATCH", path,
			    body, done);
	}
	free(done);
	free(body);
	free(path);
	free(below);
}
