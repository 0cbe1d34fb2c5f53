/*
 * A project's addon settings (lectern/addons.h), stored one column a
 * setting in project_addons, one row per project that changed any. The
 * SQL is made from the settings table, so the table, the columns read
 * and the columns written cannot disagree; a project without a row reads
 * the table's defaults. An update reads the row (or the defaults),
 * applies the patch, checks the result and writes the whole row back, in
 * one write transaction.
 */
#include <stdlib.h>
#include <string.h>

#include "lectern/addons.h"
#include "lectern/version.h"
#include "store_internal.h"

/* Longest free text of a setting: the service's columns are 128 or 255
 * characters wide. */
#define ADDONS_TEXT_MAX 255

_Static_assert(LEC_ADDONS_COUNT <= 32, "a patch's set has 32 bits");

static const char *const sortings[] = {
	LEC_ADDONS_SORT_ALPHABETICALLY, LEC_ADDONS_SORT_SEMVER,
	LEC_ADDONS_SORT_PYTHON, LEC_ADDONS_SORT_CALVER,
	LEC_ADDONS_SORT_CUSTOM, NULL,
};
static const char *const positions[] = {
	"bottom-left", "bottom-right", "top-left", "top-right", NULL,
};

#define ON(name, def, help) { name, LEC_ADDONS_BOOL, def, NULL, 0, 0, help }
#define TEXT(name, max, help) { name, LEC_ADDONS_TEXT, NULL, NULL, 1, max, help }

const struct lec_addons_setting lec_addons_settings[LEC_ADDONS_COUNT] = {
	[LEC_ADDONS_ENABLED] = ON("enabled", "1",
		"inject the addons into every page"),
	[LEC_ADDONS_OPTIONS_BASE_VERSION] = TEXT("options_base_version",
		ADDONS_TEXT_MAX, "version the diff compares with (latest)"),
	[LEC_ADDONS_OPTIONS_LOAD_WHEN_EMBEDDED] = ON(
		"options_load_when_embedded", "0",
		"load inside an iframe too"),
	[LEC_ADDONS_OPTIONS_ROOT_SELECTOR] = TEXT("options_root_selector",
		128, "CSS selector of the page's main content"),
	[LEC_ADDONS_DOC_DIFF_ENABLED] = ON("doc_diff_enabled", "1",
		"visual diff against the base version (d)"),
	[LEC_ADDONS_DOC_DIFF_SHOW_ADDITIONS] = ON("doc_diff_show_additions",
		"1", "the diff shows what was added"),
	[LEC_ADDONS_DOC_DIFF_SHOW_DELETIONS] = ON("doc_diff_show_deletions",
		"1", "the diff shows what was removed"),
	[LEC_ADDONS_FILETREEDIFF_ENABLED] = ON("filetreediff_enabled", "1",
		"list the pages a pull request changed"),
	[LEC_ADDONS_FLYOUT_ENABLED] = ON("flyout_enabled", "1",
		"the versions menu"),
	[LEC_ADDONS_FLYOUT_SORTING] = { "flyout_sorting", LEC_ADDONS_CHOICE,
		LEC_ADDONS_SORT_SEMVER, sortings, 0, 0,
		"order of the menu's versions" },
	[LEC_ADDONS_FLYOUT_SORTING_CUSTOM_PATTERN] = TEXT(
		"flyout_sorting_custom_pattern", 32,
		"pattern of the custom-pattern order"),
	[LEC_ADDONS_FLYOUT_SORTING_LATEST_STABLE_AT_BEGINNING] = ON(
		"flyout_sorting_latest_stable_at_beginning", "1",
		"latest and stable first in the menu"),
	[LEC_ADDONS_FLYOUT_POSITION] = { "flyout_position", LEC_ADDONS_CHOICE,
		NULL, positions, 1, 0, "corner of the menu (theme's: null)" },
	[LEC_ADDONS_HOTKEYS_ENABLED] = ON("hotkeys_enabled", "1",
		"keys: / search, d diff"),
	[LEC_ADDONS_LINKPREVIEWS_ENABLED] = ON("linkpreviews_enabled", "0",
		"preview a link's target on hover"),
	[LEC_ADDONS_LINKPREVIEWS_SELECTOR] = TEXT("linkpreviews_selector",
		128, "CSS selector of the links previewed"),
	[LEC_ADDONS_NOTIFICATIONS_ENABLED] = ON("notifications_enabled", "1",
		"notices at the top of the page"),
	[LEC_ADDONS_NOTIFICATIONS_SHOW_ON_LATEST] = ON(
		"notifications_show_on_latest", "1",
		"notice on the latest (development) version"),
	[LEC_ADDONS_NOTIFICATIONS_SHOW_ON_NON_STABLE] = ON(
		"notifications_show_on_non_stable", "1",
		"notice on versions other than stable"),
	[LEC_ADDONS_NOTIFICATIONS_SHOW_ON_EXTERNAL] = ON(
		"notifications_show_on_external", "0",
		"notice on pull-request builds"),
	[LEC_ADDONS_SEARCH_ENABLED] = ON("search_enabled", "1",
		"search as you type"),
	[LEC_ADDONS_SEARCH_DEFAULT_FILTER] = TEXT("search_default_filter",
		128, "query prefix of the search (project:SLUG/VERSION)"),
	[LEC_ADDONS_SEARCH_SHOW_SUBPROJECTS_FILTER] = ON(
		"search_show_subprojects_filter", "1",
		"offer a filter that includes subprojects"),
};

int lec_addons_find(const char *name)
{
	int i;

	for (i = 0; name && i < LEC_ADDONS_COUNT; i++)
		if (strcmp(lec_addons_settings[i].name, name) == 0)
			return i;
	return -1;
}

void lec_addons_dispose(struct lec_addons *addons)
{
	int i;

	if (addons == NULL)
		return;
	for (i = 0; i < LEC_ADDONS_COUNT; i++) {
		lec__free(addons->text[i]);
		addons->text[i] = NULL;
	}
}

/* The table's defaults. */
static int defaults(struct lec_addons *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < LEC_ADDONS_COUNT; i++) {
		const struct lec_addons_setting *s = &lec_addons_settings[i];

		if (s->kind == LEC_ADDONS_BOOL)
			a->on[i] = s->fallback[0] == '1';
		else if (s->fallback &&
			 (a->text[i] = lec__strdup(s->fallback)) == NULL)
			return lec__error_oom();
	}
	return LEC_OK;
}

/* "a, b, c" of the columns, into b. */
static void column_list(struct lec__buf *b)
{
	int i;

	for (i = 0; i < LEC_ADDONS_COUNT; i++) {
		if (i)
			lec__buf_puts(b, ", ");
		lec__buf_puts(b, lec_addons_settings[i].name);
	}
}

/* The statement sql (built here) with the project's id as ?1. */
static int prepare(struct lec_store *st, const struct lec__buf *sql,
		   int64_t project_id, sqlite3_stmt **stmt)
{
	int error;

	if (sql->oom)
		return lec__error_oom();
	if ((error = lec_store__prepare(st, stmt, sql->ptr)) < 0)
		return error;
	sqlite3_bind_int64(*stmt, 1, project_id);
	return LEC_OK;
}

/* The stored row into a (filled with the defaults already). */
static int read_row(struct lec_store *st, int64_t project_id,
		    struct lec_addons *a)
{
	struct lec__buf sql = LEC__BUF_INIT;
	sqlite3_stmt *stmt = NULL;
	int rc, i, error = LEC_OK;

	lec__buf_puts(&sql, "SELECT ");
	column_list(&sql);
	lec__buf_puts(&sql, " FROM project_addons WHERE project_id = ?1");
	if ((error = prepare(st, &sql, project_id, &stmt)) < 0)
		goto done;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_DONE)
		goto done;
	if (rc != SQLITE_ROW) {
		error = lec_store__sqlerr(st, rc, "reading addon settings");
		goto done;
	}
	for (i = 0; i < LEC_ADDONS_COUNT && error == LEC_OK; i++) {
		if (lec_addons_settings[i].kind == LEC_ADDONS_BOOL) {
			a->on[i] = sqlite3_column_int(stmt, i) != 0;
			continue;
		}
		lec__free(a->text[i]);
		a->text[i] = NULL;
		error = lec_store__col_text(stmt, i, &a->text[i]);
	}
done:
	lec_store__finalize(st, stmt);
	lec__buf_dispose(&sql);
	return error;
}

int lec_addons_get(struct lec_store *store, int64_t project_id,
		   struct lec_addons *out)
{
	int error;

	lec_error_clear();
	if ((error = defaults(out)) < 0 ||
	    (error = lec__project_exists(store, project_id)) < 0 ||
	    (error = read_row(store, project_id, out)) < 0) {
		lec_addons_dispose(out);
		return error;
	}
	return LEC_OK;
}

/* Checks ------------------------------------------------------------------ */

static int is_choice(const struct lec_addons_setting *s, const char *v)
{
	const char *const *c;

	for (c = s->choices; *c; c++)
		if (strcmp(*c, v) == 0)
			return 1;
	return 0;
}

/* One setting's new text value, with DRF's messages. */
static int check_text(struct lec_store *st, int64_t project_id, int id,
		      const char *v)
{
	const struct lec_addons_setting *s = &lec_addons_settings[id];
	struct lec_version *version = NULL;
	int error;

	if (v == NULL)
		return s->nullable ? LEC_OK
				   : lec__error_field(LEC_EINVALID, s->name,
						      "This field may not be "
						      "null.");
	if (s->kind == LEC_ADDONS_CHOICE)
		return is_choice(s, v)
			       ? LEC_OK
			       : lec__error_field(LEC_EINVALID, s->name,
						  "\"%.100s\" is not a valid "
						  "choice.",
						  v);
	if (lec__utf8_chars(v) > s->max_chars)
		return lec__error_field(LEC_EINVALID, s->name,
					"Ensure this field has no more than "
					"%zu characters.",
					s->max_chars);
	if (id != LEC_ADDONS_OPTIONS_BASE_VERSION)
		return LEC_OK;
	error = lec_version_get(st, project_id, v, &version);
	lec_version_free(version);
	if (error == LEC_ENOTFOUND)
		return lec__error_field(LEC_EINVALID, s->name,
					"Select a valid choice. That choice "
					"is not one of the available "
					"choices.");
	return error;
}

int lec_addons_check(struct lec_store *store, int64_t project_id,
		     const struct lec_addons_patch *patch)
{
	int i, error = LEC_OK;

	lec_error_clear();
	for (i = 0; i < LEC_ADDONS_COUNT && error == LEC_OK; i++)
		if ((patch->set & (1u << i)) &&
		    lec_addons_settings[i].kind != LEC_ADDONS_BOOL)
			error = check_text(store, project_id, i,
					   patch->text[i]);
	return error;
}

/* Writing ----------------------------------------------------------------- */

/* The whole row of a (the patch applied) for project_id. */
static int write_row(struct lec_store *st, int64_t project_id,
		     const struct lec_addons *a)
{
	struct lec__buf sql = LEC__BUF_INIT;
	sqlite3_stmt *stmt = NULL;
	int i, error;

	lec__buf_puts(&sql, "INSERT OR REPLACE INTO project_addons "
			    "(project_id, ");
	column_list(&sql);
	lec__buf_puts(&sql, ") VALUES (?1");
	for (i = 0; i < LEC_ADDONS_COUNT; i++)
		lec__buf_printf(&sql, ", ?%d", i + 2);
	lec__buf_puts(&sql, ")");
	if ((error = prepare(st, &sql, project_id, &stmt)) < 0)
		goto done;
	for (i = 0; i < LEC_ADDONS_COUNT && error == LEC_OK; i++)
		if (lec_addons_settings[i].kind == LEC_ADDONS_BOOL)
			sqlite3_bind_int(stmt, i + 2, a->on[i]);
		else
			error = lec_store__bind_text(stmt, i + 2, a->text[i]);
	if (error == LEC_OK)
		error = lec_store__step_done(st, stmt,
					     "saving addon settings");
done:
	lec_store__finalize(st, stmt);
	lec__buf_dispose(&sql);
	return error;
}

/* Apply patch to a. */
static int apply(struct lec_addons *a, const struct lec_addons_patch *patch)
{
	int i;

	for (i = 0; i < LEC_ADDONS_COUNT; i++) {
		if (!(patch->set & (1u << i)))
			continue;
		if (lec_addons_settings[i].kind == LEC_ADDONS_BOOL) {
			a->on[i] = patch->on[i] != 0;
			continue;
		}
		lec__free(a->text[i]);
		a->text[i] = NULL;
		if (patch->text[i] &&
		    (a->text[i] = lec__strdup(patch->text[i])) == NULL)
			return lec__error_oom();
	}
	return LEC_OK;
}

int lec_addons_update(struct lec_store *store, int64_t project_id,
		      const struct lec_addons_patch *patch)
{
	struct lec_addons a;
	int error;

	lec_error_clear();
	memset(&a, 0, sizeof(a));
	if ((error = lec_store__begin(store)) < 0)
		return error;
	if ((error = lec_addons_get(store, project_id, &a)) < 0 ||
	    (error = lec_addons_check(store, project_id, patch)) < 0 ||
	    (error = apply(&a, patch)) < 0 ||
	    (error = write_row(store, project_id, &a)) < 0) {
		lec_store__rollback(store);
		goto done;
	}
	error = lec_store__commit(store);
done:
	lec_addons_dispose(&a);
	return error;
}
