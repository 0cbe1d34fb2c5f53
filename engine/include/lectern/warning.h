/*
 * A build's warnings (Lectern's; the hosted service has none): what the
 * generator warned about and what the published HTML gets wrong, as
 * records {file, line, kind, message} instead of lines lost in a log.
 *
 * The pipeline collects them while a build runs (a generator's output,
 * the links of its published pages, the pages and anchors its version's
 * last good build had and this one lost), at most LEC_WARNINGS_MAX per
 * build with the count of those dropped, and stores them with the build:
 * each record is new, or carried over from the version's previous
 * successful build (matched by kind, file and message, whatever the line:
 * an edit above a warning moves it), and the previous build's records
 * that matched nothing are counted as fixed. A preview and `lectern check`
 * collect the same records without a store.
 *
 * Texts are kept safe to show: invalid UTF-8 becomes U+FFFD, control
 * characters (a log's colour codes, a NUL) are dropped, and each text is
 * cut at a named length. A file is as the generator named it, relative to
 * the repository when it lies in the checkout; Lectern never opens a file
 * outside the tree because a warning named it.
 */
#ifndef LECTERN_WARNING_H
#define LECTERN_WARNING_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Records kept per build: a real site's worst build has a few hundred; a
 * broken one (a theme that lost its templates) millions, of which the
 * first thousand say what happened and the rest are counted. */
#define LEC_WARNINGS_MAX 1000
/* Of those, the generator's at most: a flood of them (a theme's missing
 * templates, an extension not installed) leaves room for the published
 * HTML's broken links and lost pages, which the generator never sees. */
#define LEC_WARNINGS_GENERATOR_MAX 750
/* Bytes of one record's message: a Sphinx warning with its quoted source
 * block fits; a traceback is cut. */
#define LEC_WARNING_MESSAGE_MAX 2048
/* Bytes of a record's file: a path, never a page of text. */
#define LEC_WARNING_FILE_MAX 512

enum lec_warning_kind {
	LEC_WARNING_WARNING,  /* "warning": the generator warned */
	LEC_WARNING_ERROR,    /* "error" */
	LEC_WARNING_CRITICAL, /* "critical" (docutils' SEVERE) */
	LEC_WARNING_LINK,     /* "link": an internal link of the published
				 HTML leads nowhere (file: the page) */
	LEC_WARNING_REMOVED   /* "removed": a page or anchor the version's
				 last good build published and this one
				 does not (file: the page) */
};
#define LEC_WARNING_KINDS 5

struct lec_warning {
	char *file;    /* "" when the warning names none */
	unsigned line; /* 1-based; 0 when not known */
	enum lec_warning_kind kind;
	char *message;
	int is_new;    /* not in the previous successful build's records */
	/* Where the generator found it, for the next incremental build
	 * (the engine's; not stored with a build): the phase of its run and
	 * the document, or 0 and NULL when not known. */
	unsigned phase;
	char *doc;
};

/* Records being collected: the first LEC_WARNINGS_MAX, and the count of
 * the others. Zero-initialise; dispose with lec_warning_set_dispose. */
struct lec_warning_set {
	struct lec_warning *items; /* owned */
	size_t len, cap;
	size_t dropped; /* records past the caps */
	size_t generator; /* kept records of the generator's kinds */
	/* Secret values to mask in every text added (NULL-terminated,
	 * borrowed), as the build log masks them; NULL: none. */
	const char *const *secrets;
};

/* What a build's records add up to. */
struct lec_warning_summary {
	size_t count;   /* records found, dropped ones included */
	size_t new_count; /* stored records that are new */
	size_t fixed;   /* the previous good build's records gone */
	size_t dropped; /* records past LEC_WARNINGS_MAX */
};

LEC_PAGE_LIST(lec_warning);

/* Which records lec_warning_list returns. */
struct lec_warning_filter {
	int new_only; /* only the new ones */
};

/** The kind's name ("warning", "error", "critical", "link", "removed"). */
const char *lec_warning_kind_code(enum lec_warning_kind kind);
/** @return LEC_OK or LEC_EINVALID (not a kind's name) */
int lec_warning_kind_lookup(const char *code, enum lec_warning_kind *out);

/**
 * Add a record: texts copied, made safe (see above) and masked; past
 * LEC_WARNINGS_MAX (LEC_WARNINGS_GENERATOR_MAX for the generator's
 * warning, error and critical) only counted.
 * @param file NULL or "" when none
 * @return LEC_OK (also when only counted); LEC_ENOMEM
 */
int lec_warning_set_add(struct lec_warning_set *set,
			enum lec_warning_kind kind, const char *file,
			unsigned line, const char *message);
/** Whether the set holds a record of this kind, file and message. */
int lec_warning_set_has(const struct lec_warning_set *set,
			enum lec_warning_kind kind, const char *file,
			const char *message);
/** Free what a set holds; it is empty again. Accepts NULL. */
void lec_warning_set_dispose(struct lec_warning_set *set);

/**
 * Whether two messages say the same: equal but for memory addresses
 * ("<object at 0x7f4df1a84390>", which Python prints and which differ
 * from run to run).
 */
int lec_warning_message_equal(const char *a, const char *b);

/**
 * Mark each record of set new or not against prev (a multiset: two equal
 * records in set match two in prev), matching kind, file and message
 * (lec_warning_message_equal).
 * @param fixed   the records of prev that match none of set's; may be NULL
 */
void lec_warning_compare(struct lec_warning_set *set,
			 const struct lec_warning *prev, size_t nprev,
			 size_t *fixed);

/* The store -------------------------------------------------------------- */

/**
 * Store a finished build's records, compared (lec_warning_compare) with
 * those of its version's previous successful build; replaces any stored
 * before for the build. A failed build may have stopped before its
 * generator read everything (a conf.py error, a time limit): its records
 * are marked new or not, but none of the previous build's count as fixed.
 * @param set its records are marked new or not
 * @param passed whether the build passed (0: nothing counts as fixed)
 * @return LEC_OK; LEC_ENOTFOUND (no such build); the store's errors
 */
int lec_warning_store(struct lec_store *store, int64_t build_id,
		      struct lec_warning_set *set, int passed);

/**
 * A build's summary.
 * @return LEC_OK; LEC_ENOTFOUND (no records stored for it: a build
 *         before warnings were kept, or one not finished)
 */
int lec_warning_summary_get(struct lec_store *store, int64_t build_id,
			    struct lec_warning_summary *out);

/**
 * A build's records: new ones first, then in the order found.
 * @param filter NULL for all
 * @param page NULL for all
 * @param out filled; release with lec_warning_list_dispose
 */
int lec_warning_list(struct lec_store *store, int64_t build_id,
		     const struct lec_warning_filter *filter,
		     const struct lec_page *page,
		     struct lec_warning_list *out);

/**
 * The version's newest successful build before build_id (0: before
 * none, the newest of all).
 * @return LEC_OK with *out the build's id, or 0 when there is none
 */
int lec_warning_previous_good(struct lec_store *store, int64_t version_id,
			      int64_t build_id, int64_t *out);

/**
 * Keep the inventory of a passed build's published pages and anchors
 * (the text the link check writes: what `removed` compares the next build
 * with), in place of the version's earlier one.
 * @return LEC_OK; LEC_ENOTFOUND (no such build)
 */
int lec_warning_inventory_save(struct lec_store *store, int64_t build_id,
			       const char *text, size_t len);
/**
 * The version's kept inventory, of its newest passed build before
 * build_id.
 * @param out owned by the caller (free with lec_warning_text_free); NULL
 *            when none is kept
 */
int lec_warning_inventory_get(struct lec_store *store, int64_t version_id,
			      int64_t build_id, char **out, size_t *len);
/** Free a text the store handed out. Accepts NULL. */
void lec_warning_text_free(char *text);

/** Free what a list holds (not the list struct). Accepts NULL. */
void lec_warning_list_dispose(struct lec_warning_list *list);

#ifdef __cplusplus
}
#endif
#endif
