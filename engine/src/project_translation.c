/*
 * Translations: a project that is another's documentation in another
 * language, linked to its main-language project as the service's
 * TranslationForm allows (not itself, not of a translation, not one that
 * has translations, one language per main project, and only under the
 * versioning scheme with translations), and the lists both ways.
 */
#include <string.h>

#include "lectern/language.h"
#include "lectern/project.h"
#include "project_internal.h"
#include "store_internal.h"

/* The service's checks for adding a translation (its TranslationForm). */
static int translation_check(struct lec_store *st,
			     const struct lec_project *t,
			     const struct lec_project *main)
{
	int64_t ids[2] = { main->id, t->id };
	int64_t unused = 0;
	int sibling = 0, has_translations = 0, error;

	if (t->id == main->id)
		return lec__error_field(LEC_EINVALID, "project",
					"Project \"%s\" can not be a "
					"translation of itself.", t->slug);
	if (strcmp(main->versioning_scheme, LEC__SCHEME_WITH_TRANSLATIONS) != 0)
		return lec__error_field(LEC_EINVALID, "non_field_errors",
					"This project is configured with a "
					"versioning scheme that doesn't support "
					"translations.");
	if (main->main_language_project_id)
		return lec__error_field(LEC_EINVALID, "project",
					"Project \"%s\" is already a "
					"translation", main->slug);
	if (strcmp(t->language, main->language) == 0)
		return lec__error_field(LEC_EINVALID, "project",
					"Both projects can not have the same "
					"language (%s).",
					lec_language_name(main->language));
	if ((error = lec_store__query_int(st,
					  "SELECT 1 FROM projects p, projects t"
					  " WHERE t.id = ?2 AND p.id <> ?2"
					  " AND p.main_language_project_id = ?1"
					  " AND p.language = t.language",
					  ids, 2, "reading", &unused,
					  &sibling)) < 0)
		return error;
	if (sibling)
		return lec__error_field(LEC_EINVALID, "project",
					"This project already has a "
					"translation for %s.",
					lec_language_name(t->language));
	if ((error = lec_store__query_int(st,
					  "SELECT 1 FROM projects "
					  "WHERE main_language_project_id = ?",
					  &t->id, 1, "reading", &unused,
					  &has_translations)) < 0)
		return error;
	if (has_translations)
		return lec__error_field(LEC_EINVALID, "project",
					"A project with existing translations "
					"can not be added as a project "
					"translation.");
	return LEC_OK;
}

static int translation_link(struct lec_store *st, int64_t project_id,
			    int64_t main_id)
{
	struct lec_project *t = NULL, *main = NULL;
	int64_t ids[3] = { main_id, lec__now_us(), project_id };
	int error;

	if ((error = lec__project_fetch(st, NULL, project_id, &t)) < 0)
		goto done;
	if (main_id &&
	    ((error = lec__project_fetch(st, NULL, main_id, &main)) <
		     0 ||
	     (error = translation_check(st, t, main)) < 0))
		goto done;
	error = lec_store__exec_ints(st,
				     "UPDATE projects SET "
				     "main_language_project_id = nullif(?1, 0), "
				     "modified = ?2 WHERE id = ?3",
				     ids, 3, "linking a translation", NULL);
done:
	lec_project_free(t);
	lec_project_free(main);
	return error;
}

int lec_project_set_translation_of(struct lec_store *st, int64_t project_id,
				   int64_t main_id)
{
	int error;

	lec_error_clear();
	if ((error = lec_store__begin(st)) < 0)
		return error;
	return lec_store__end(st, translation_link(st, project_id, main_id));
}

int lec_project_translations(struct lec_store *st, int64_t main_id,
			     int64_t viewer_id, const struct lec_page *page,
			     struct lec_project_list *out)
{
	return lec__project_list_visible(st, &lec__projects,
					 "p.main_language_project_id = ?",
					 main_id, viewer_id, page,
					 (void **)&out->items, &out->len,
					 &out->total);
}

int lec_project_translation_of(struct lec_store *st, int64_t project_id,
			       struct lec_project **main)
{
	struct lec_project *t = NULL;
	int error;

	lec_error_clear();
	*main = NULL;
	if ((error = lec__project_fetch(st, NULL, project_id, &t)) < 0)
		return error;
	if (t->main_language_project_id == 0)
		error = lec__error(LEC_ENOTFOUND,
				   "project '%s' is no translation", t->slug);
	else
		error = lec__project_fetch(st, NULL, t->main_language_project_id,
					   main);
	lec_project_free(t);
	return error;
}
