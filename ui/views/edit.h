/*
 * The TUI's writes, shared by the screens that bind them: the forms
 * (import a project, project settings, a redirect, an env var, a
 * subproject, an integration), the confirmations of destructive actions,
 * and the direct writes (trigger a build, flip a version's flags, move a
 * redirect). Each checks ui_app_can_write first, so a read-only context
 * refuses every one of them with its reason in the status line.
 *
 * Direct and confirmed writes belong to the screen that started them: its
 * on_data gets UI_EDIT_TAG and reloads what changed. A form's success
 * sends the screen UI_ACTION_REFRESH instead.
 */
#ifndef LECTERN_UI_VIEWS_EDIT_H
#define LECTERN_UI_VIEWS_EDIT_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct ui_view;
struct lc_build;

/* The tag of a screen's own writes; above the builds model's tags. */
#define UI_EDIT_TAG 200
/* A branch preview's answer (ui_edit_preview_branch). */
#define UI_EDIT_PREVIEW_TAG 201

/* The import form (name, repository URL, language, programming
 * language; the organization on the business edition); on success
 * parent reloads and the new project opens on its builds tab, where the
 * first build runs live. */
void ui_edit_import(struct ui_view *parent);
/* Remove project with everything of it (Lectern's DELETE): a form where
 * the user types the slug, sent only when it matches; a 409 (a cancelled
 * build still stopping) stays under the form, and Enter asks again. On
 * success parent (the Projects screen) reloads. */
void ui_edit_remove_project(struct ui_view *parent, const char *project);
/* The settings form of project, filled from its v3 detail (may be NULL). */
void ui_edit_settings(struct ui_view *parent, const char *project,
		      const cJSON *detail);
/* The redirect form: a new one (redirect NULL, or its fields without a
 * pk to start from) or editing redirect (its v3 JSON). */
void ui_edit_redirect(struct ui_view *parent, const char *project,
		      const cJSON *redirect);
/* Move redirect (its v3 JSON) one place up (step -1) or down (1). */
void ui_edit_redirect_move(struct ui_view *parent, const char *project,
			   const cJSON *redirect, int step);
/* The env var form: name, value (masked), public. */
void ui_edit_envvar(struct ui_view *parent, const char *project);
/* The subproject form: a child among the context's other projects, and an
 * alias. */
void ui_edit_subproject(struct ui_view *parent, const char *project);
/* The integration form: the forge (github, gitlab, bitbucket, generic);
 * on success the webhook URL and the secret, shown this once, stay in a
 * notice until the user closes it. */
void ui_edit_integration(struct ui_view *parent, const char *project);
/* The forge an integration type is for ("github" for github_webhook,
 * "generic" for api_webhook); an unknown type as it is. */
const char *ui_edit_forge(const char *type);
/* Confirm, then DELETE path below /api/v3/projects/<project>/; what names
 * it in the question ("redirect /a -> /b"). */
void ui_edit_delete(struct ui_view *parent, const char *project,
		    const char *path, const char *what);
/* Trigger a build of version; fresh: one that reuses nothing earlier
 * builds kept (the body {"fresh": true}, which the hosted service
 * ignores). */
void ui_edit_trigger(struct ui_view *parent, const char *project,
		     const char *version, int fresh);
/* Build branch (a branch's name, not an active version) as a preview
 * (Lectern's POST .../previews/); parent's on_data gets
 * UI_EDIT_PREVIEW_TAG with the answer, whose version says where it is
 * served. */
void ui_edit_preview_branch(struct ui_view *parent, const char *project,
			    const char *branch);
/* Confirm, then cancel build b (it must be running; a final one is
 * refused here with a message). */
void ui_edit_cancel(struct ui_view *parent, const struct lc_build *b);
/* Flip a version's active (deactivating asks first) or hidden flag; on
 * is the flag's current value. */
void ui_edit_version_flag(struct ui_view *parent, const char *project,
			  const char *version, const char *flag, int on);

#endif
