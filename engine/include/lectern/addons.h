/*
 * A project's addon settings: which of the reader's addons its docs pages
 * get (the flyout menu, notifications, search as you type, link previews,
 * the visual diff, hotkeys) and how they behave, as the hosted service's
 * AddonsConfig holds them (docs/addons.md).
 *
 * The settings are one table, lec_addons_settings, in the order of enum
 * lec_addons_id: each names its kind (on/off, free text, one of a list),
 * its default and its limits. A project that never changed a setting has
 * no row and reads the defaults, the service's own. The API's `addons`
 * field of a project, the CLI and the TUI all walk the same table, so a
 * new setting is one line here and a column in the schema.
 */
#ifndef LECTERN_ADDONS_H
#define LECTERN_ADDONS_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The settings, in table order. */
enum lec_addons_id {
	LEC_ADDONS_ENABLED,
	LEC_ADDONS_OPTIONS_BASE_VERSION,
	LEC_ADDONS_OPTIONS_LOAD_WHEN_EMBEDDED,
	LEC_ADDONS_OPTIONS_ROOT_SELECTOR,
	LEC_ADDONS_DOC_DIFF_ENABLED,
	LEC_ADDONS_DOC_DIFF_SHOW_ADDITIONS,
	LEC_ADDONS_DOC_DIFF_SHOW_DELETIONS,
	LEC_ADDONS_FILETREEDIFF_ENABLED,
	LEC_ADDONS_FLYOUT_ENABLED,
	LEC_ADDONS_FLYOUT_SORTING,
	LEC_ADDONS_FLYOUT_SORTING_CUSTOM_PATTERN,
	LEC_ADDONS_FLYOUT_SORTING_LATEST_STABLE_AT_BEGINNING,
	LEC_ADDONS_FLYOUT_POSITION,
	LEC_ADDONS_HOTKEYS_ENABLED,
	LEC_ADDONS_LINKPREVIEWS_ENABLED,
	LEC_ADDONS_LINKPREVIEWS_SELECTOR,
	LEC_ADDONS_NOTIFICATIONS_ENABLED,
	LEC_ADDONS_NOTIFICATIONS_SHOW_ON_LATEST,
	LEC_ADDONS_NOTIFICATIONS_SHOW_ON_NON_STABLE,
	LEC_ADDONS_NOTIFICATIONS_SHOW_ON_EXTERNAL,
	LEC_ADDONS_SEARCH_ENABLED,
	LEC_ADDONS_SEARCH_DEFAULT_FILTER,
	LEC_ADDONS_SEARCH_SHOW_SUBPROJECTS_FILTER,
	LEC_ADDONS_COUNT
};

enum lec_addons_kind {
	LEC_ADDONS_BOOL,   /* on[id] */
	LEC_ADDONS_TEXT,   /* text[id]: free text or NULL */
	LEC_ADDONS_CHOICE, /* text[id]: one of choices (NULL when nullable) */
};

/* The flyout's orders (the service's ADDONS_FLYOUT_SORTING_*). */
#define LEC_ADDONS_SORT_ALPHABETICALLY "alphabetically"
#define LEC_ADDONS_SORT_SEMVER "semver-readthedocs-compatible"
#define LEC_ADDONS_SORT_PYTHON "python-packaging"
#define LEC_ADDONS_SORT_CALVER "calver"
#define LEC_ADDONS_SORT_CUSTOM "custom-pattern"

struct lec_addons_setting {
	const char *name;      /* the service's field name, the API's key and
				  the column */
	enum lec_addons_kind kind;
	const char *fallback;  /* default: "1"/"0" for a bool; text or NULL */
	const char *const *choices; /* CHOICE: NULL-terminated */
	int nullable;          /* TEXT and CHOICE: null is a value */
	size_t max_chars;      /* TEXT: longest value, in characters */
	const char *help;      /* one line for `lectern addons` and the TUI */
};

extern const struct lec_addons_setting lec_addons_settings[LEC_ADDONS_COUNT];

/* One project's settings: on[] holds the bools, text[] the rest (owned;
 * NULL for null), both indexed by enum lec_addons_id. */
struct lec_addons {
	int on[LEC_ADDONS_COUNT];
	char *text[LEC_ADDONS_COUNT];
};

/* What an update changes: bit id of set for each setting given; texts are
 * borrowed. */
struct lec_addons_patch {
	uint32_t set;
	int on[LEC_ADDONS_COUNT];
	const char *text[LEC_ADDONS_COUNT];
};

/**
 * The setting named name.
 * @return its id, or -1 when there is none
 */
int lec_addons_find(const char *name);

/**
 * A project's settings (the defaults where it changed none).
 * @param out filled; dispose with lec_addons_dispose
 * @return LEC_OK; LEC_ENOTFOUND (no such project); a store error
 */
int lec_addons_get(struct lec_store *store, int64_t project_id,
		   struct lec_addons *out);

/**
 * Check a patch against the table and the project without writing: a
 * choice not in its list, a text too long or a null where none is
 * allowed, a base version that is not one of the project's.
 * @return LEC_OK; LEC_EINVALID naming the setting as the field
 *         (lec_error_last_field)
 */
int lec_addons_check(struct lec_store *store, int64_t project_id,
		     const struct lec_addons_patch *patch);

/**
 * Apply a patch (checked as lec_addons_check does) in one transaction.
 * @return LEC_OK; LEC_EINVALID; LEC_ENOTFOUND (no such project)
 */
int lec_addons_update(struct lec_store *store, int64_t project_id,
		      const struct lec_addons_patch *patch);

/** Free what settings hold (not the struct). Accepts NULL. */
void lec_addons_dispose(struct lec_addons *addons);

#ifdef __cplusplus
}
#endif
#endif
