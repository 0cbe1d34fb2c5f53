/*
 * Build warnings (lectern/warning.h): collecting records safely, comparing
 * them with the version's last good build, and keeping them in the store,
 * one row per record and one summary row per build, beside the inventory
 * of the newest passed build's pages and anchors that the next build's
 * `removed` records are found from.
 *
 * Records come from a generator's output and from published HTML, both
 * written by the project's own code: every text is treated as bytes that
 * may be anything, and leaves here as bounded, valid UTF-8 without
 * control characters, so a log full of binary junk shows as text in JSON
 * and on a terminal.
 */
#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "hash.h"
#include "lectern/runner.h"
#include "lectern/warning.h"
#include "store_internal.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Hex digits after "0x" that make a memory address, not a number a
 * warning quotes (0x1F). */
#define ADDRESS_DIGITS_MIN 8
/* U+FFFD, what a byte that is not UTF-8 becomes. */
#define REPLACEMENT "\xef\xbf\xbd"

static const char *const kind_codes[LEC_WARNING_KINDS] = {
	[LEC_WARNING_WARNING] = "warning",
	[LEC_WARNING_ERROR] = "error",
	[LEC_WARNING_CRITICAL] = "critical",
	[LEC_WARNING_LINK] = "link",
	[LEC_WARNING_REMOVED] = "removed",
};

const char *lec_warning_kind_code(enum lec_warning_kind kind)
{
	return (unsigned)kind < COUNT(kind_codes) ? kind_codes[kind]
						  : "warning";
}

int lec_warning_kind_lookup(const char *code, enum lec_warning_kind *out)
{
	size_t i;

	for (i = 0; code && i < COUNT(kind_codes); i++)
		if (strcmp(code, kind_codes[i]) == 0) {
			*out = (enum lec_warning_kind)i;
			return LEC_OK;
		}
	return lec__error(LEC_EINVALID, "no warning kind '%s'",
			  code ? code : "");
}

/* Safe texts ------------------------------------------------------------- */

/* s as safe text of at most max bytes: valid UTF-8 (U+FFFD for what is
 * not), tabs as spaces, newlines kept only when multiline, other control
 * characters and trailing white space dropped, cut at a character. */
static char *safe_text(const char *s, size_t max, int multiline)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p), i = 0;
	struct lec__buf b = LEC__BUF_INIT;

	while (i < n) {
		size_t len = lec__utf8_len(p + i, n - i);
		const char *piece = (const char *)p + i;
		size_t plen = len;

		if (len == 0) {
			piece = REPLACEMENT;
			plen = sizeof(REPLACEMENT) - 1;
			len = 1;
		} else if (p[i] == '\t') {
			piece = " ";
		} else if ((p[i] < 0x20 && !(p[i] == '\n' && multiline)) ||
			   p[i] == 0x7f) {
			plen = 0;
		}
		if (b.len + plen > max)
			break;
		lec__buf_putn(&b, piece, plen);
		i += len;
	}
	while (b.len > 0 && (b.ptr[b.len - 1] == ' ' || b.ptr[b.len - 1] == '\n'))
		b.len--;
	if (b.ptr)
		b.ptr[b.len] = '\0';
	else
		lec__buf_puts(&b, "");
	return lec__buf_take(&b);
}

/* Drop, in place, the addresses of Python's default reprs ("<x.Conn
 * object at 0x7f3c5a1d2b10>" becomes "<x.Conn object>"): they differ on
 * every run, so a record quoting one (intersphinx's unreachable
 * inventories) would be new and fixed in every build of the same tree. */
static void drop_addresses(char *m)
{
	static const char at[] = " at 0x";
	char *p = m, *hex;

	while ((p = strstr(p, at)) != NULL) {
		hex = p + sizeof(at) - 1;
		while (isxdigit((unsigned char)*hex))
			hex++;
		if (*hex == '>' && hex - p > (ptrdiff_t)sizeof(at))
			memmove(p, hex, strlen(hex) + 1);
		else
			p++;
	}
}

/* Collecting -------------------------------------------------------------- */

static void warning_dispose(void *item)
{
	struct lec_warning *w = item;

	lec__free(w->file);
	lec__free(w->message);
	lec__free(w->doc);
	w->file = w->message = w->doc = NULL;
}

int lec_warning_set_add(struct lec_warning_set *set,
			enum lec_warning_kind kind, const char *file,
			unsigned line, const char *message)
{
	struct lec_warning w = { 0 };

	int generator = kind <= LEC_WARNING_CRITICAL;

	if (set->len >= LEC_WARNINGS_MAX ||
	    (generator && set->generator >= LEC_WARNINGS_GENERATOR_MAX)) {
		set->dropped++;
		return LEC_OK;
	}
	if (set->len == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 16;
		struct lec_warning *grown;

		if (cap > LEC_WARNINGS_MAX)
			cap = LEC_WARNINGS_MAX;
		grown = lec__realloc(set->items, cap * sizeof(*grown));
		LEC__CHECK_ALLOC(grown);
		set->items = grown;
		set->cap = cap;
	}
	w.kind = kind;
	w.line = line;
	w.file = safe_text(file, LEC_WARNING_FILE_MAX, 0);
	w.message = safe_text(message, LEC_WARNING_MESSAGE_MAX, 1);
	if (w.file == NULL || w.message == NULL) {
		warning_dispose(&w);
		return lec__error_oom();
	}
	drop_addresses(w.message);
	if (set->secrets) {
		lec_runner_mask(w.file, strlen(w.file), set->secrets);
		lec_runner_mask(w.message, strlen(w.message), set->secrets);
	}
	set->items[set->len++] = w;
	set->generator += generator != 0;
	return LEC_OK;
}

int lec_warning_set_has(const struct lec_warning_set *set,
			enum lec_warning_kind kind, const char *file,
			const char *message)
{
	size_t i;

	for (i = 0; i < set->len; i++)
		if (set->items[i].kind == kind &&
		    strcmp(set->items[i].file, file) == 0 &&
		    strcmp(set->items[i].message, message) == 0)
			return 1;
	return 0;
}

void lec_warning_set_dispose(struct lec_warning_set *set)
{
	if (set == NULL)
		return;
	LEC__ITEMS_FREE(set->items, set->len, warning_dispose);
	set->items = NULL;
	set->len = set->cap = set->dropped = set->generator = 0;
}

/* Comparing ----------------------------------------------------------------- */

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/* The length of a memory address at s ("0x7f4df1a84390"), 0 when none:
 * Python prints objects with theirs, which differ from run to run. */
static size_t address_at(const char *s)
{
	size_t n = 0;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return 0;
	while (is_hex(s[2 + n]))
		n++;
	return n >= ADDRESS_DIGITS_MIN ? n + 2 : 0;
}

int lec_warning_message_equal(const char *a, const char *b)
{
	for (;;) {
		size_t na = address_at(a), nb = address_at(b);

		if (na && nb) {
			a += na;
			b += nb;
			continue;
		}
		if (*a != *b)
			return 0;
		if (*a == '\0')
			return 1;
		a++;
		b++;
	}
}

/* A message's hash, addresses left out as lec_warning_message_equal
 * leaves them. */
static uint64_t message_hash(const char *s)
{
	uint64_t h = 14695981039346656037ull;
	size_t n;

	while (*s) {
		if ((n = address_at(s)) > 0) {
			s += n;
			h = (h ^ 'x') * 1099511628211ull;
			continue;
		}
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	}
	return h;
}

/* What two records must share to be the same warning: not the line, which
 * an edit above it moves. */
static uint64_t identity(const struct lec_warning *w)
{
	uint64_t h = lec__fnv1a(w->file, strlen(w->file));

	h ^= message_hash(w->message) * 31u;
	return h * 7u + (uint64_t)w->kind;
}

static int same(const struct lec_warning *a, const struct lec_warning *b)
{
	return a->kind == b->kind && strcmp(a->file, b->file) == 0 &&
	       lec_warning_message_equal(a->message, b->message);
}

void lec_warning_compare(struct lec_warning_set *set,
			 const struct lec_warning *prev, size_t nprev,
			 size_t *fixed)
{
	uint64_t *keys = nprev ? lec__calloc(nprev, sizeof(*keys)) : NULL;
	unsigned char *used = nprev ? lec__calloc(nprev, 1) : NULL;
	size_t i, j, matched = 0;

	size_t gone = 0;

	/* What a build lost since the one before is news once: never carried
	 * over, never fixed. */
	for (j = 0; keys && used && j < nprev; j++) {
		keys[j] = identity(&prev[j]);
		if (prev[j].kind == LEC_WARNING_REMOVED) {
			used[j] = 1;
			gone++;
		}
	}
	for (i = 0; i < set->len; i++) {
		struct lec_warning *w = &set->items[i];
		uint64_t key = identity(w);

		w->is_new = 1;
		for (j = 0; keys && used && j < nprev && w->is_new &&
			    w->kind != LEC_WARNING_REMOVED;
		     j++)
			if (!used[j] && keys[j] == key && same(w, &prev[j])) {
				used[j] = 1;
				w->is_new = 0;
				matched++;
			}
	}
	/* Out of memory: everything reads as new, nothing as fixed. */
	if (fixed)
		*fixed = keys && used ? nprev - matched - gone : 0;
	lec__free(keys);
	lec__free(used);
}

/* The store -------------------------------------------------------------- */

/* A kind no code names (a later Lectern's) reads as a warning; a record
 * without a file has "". */
static const struct lec__column warning_columns[] = {
	LEC__CODE(lec_warning, kind, "kind", kind_codes,
		  LEC_WARNING_WARNING),
	LEC__TEXT(lec_warning, file, "file"),
	LEC__INT(lec_warning, line, "line"),
	LEC__TEXT(lec_warning, message, "message"),
	LEC__BOOL(lec_warning, is_new, "is_new"),
};
static const struct lec__row warning_row =
	LEC__ROW(lec_warning, warning_columns, NULL, NULL);
/* New ones first, each group in the order the build found them. */
static const struct lec__table warnings = {
	.row = &warning_row, .from = "build_warnings",
	.order = "is_new DESC, position ASC",
};

int lec_warning_previous_good(struct lec_store *st, int64_t version_id,
			      int64_t build_id, int64_t *out)
{
	const int64_t v[2] = { version_id, build_id > 0 ? build_id : INT64_MAX };

	*out = 0;
	return lec_store__query_int(st,
				    "SELECT id FROM builds WHERE version_id = ?"
				    " AND id < ? AND state = 'finished' AND "
				    "success = 1 ORDER BY id DESC LIMIT 1",
				    v, 2, "finding the last good build", out,
				    NULL);
}

/* The build's version (0 when it has none), or LEC_ENOTFOUND when there
 * is no such build. */
static int build_version(struct lec_store *st, int64_t build_id,
			 int64_t *version_id)
{
	int error, found = 0;

	*version_id = 0;
	if ((error = lec_store__query_int(st, "SELECT version_id FROM builds "
					      "WHERE id = ?",
					  &build_id, 1, "reading a build",
					  version_id, &found)) < 0)
		return error;
	if (!found)
		return lec__error(LEC_ENOTFOUND, "no build with id %lld",
				  (long long)build_id);
	return LEC_OK;
}

/* The records of the version's previous good build, for comparing. */
static int previous_records(struct lec_store *st, int64_t version_id,
			    int64_t build_id, struct lec_warning_list *out)
{
	int64_t prev = 0;
	int error;

	if (version_id == 0)
		return LEC_OK;
	if ((error = lec_warning_previous_good(st, version_id, build_id,
					       &prev)) < 0 ||
	    prev == 0)
		return error;
	return lec_warning_list(st, prev, NULL, NULL, out);
}

static int insert_record(struct lec_store *st, sqlite3_stmt *stmt,
			 int64_t build_id, size_t position,
			 const struct lec_warning *w)
{
	int error;

	sqlite3_bind_int64(stmt, 1, build_id);
	sqlite3_bind_int64(stmt, 2, (sqlite3_int64)position);
	if ((error = lec_store__bind_text(stmt, 3,
					  lec_warning_kind_code(w->kind))) < 0 ||
	    (error = lec_store__bind_text(stmt, 4, w->file)) < 0 ||
	    (error = lec_store__bind_text(stmt, 6, w->message)) < 0)
		return error;
	sqlite3_bind_int64(stmt, 5, w->line);
	sqlite3_bind_int(stmt, 7, w->is_new);
	error = lec_store__step_done(st, stmt, "storing a warning");
	sqlite3_reset(stmt);
	return error;
}

int lec_warning_store(struct lec_store *st, int64_t build_id,
		      struct lec_warning_set *set, int passed)
{
	struct lec_warning_list prev = { 0 };
	sqlite3_stmt *stmt = NULL;
	size_t i, fixed = 0, fresh = 0;
	int64_t totals[5], version_id = 0;
	int error;

	lec_error_clear();
	if ((error = build_version(st, build_id, &version_id)) < 0 ||
	    (error = previous_records(st, version_id, build_id, &prev)) < 0)
		return error;
	lec_warning_compare(set, prev.items, prev.len, &fixed);
	lec_warning_list_dispose(&prev);
	if (!passed)
		fixed = 0;
	for (i = 0; i < set->len; i++)
		fresh += set->items[i].is_new != 0;
	if ((error = lec_store__begin(st)) < 0)
		return error;
	if ((error = lec_store__exec_ints(st, "DELETE FROM build_warnings "
					      "WHERE build_id = ?",
					  &build_id, 1, "replacing warnings",
					  NULL)) < 0 ||
	    (error = lec_store__prepare(st, &stmt,
					"INSERT INTO build_warnings (build_id, "
					"position, kind, file, line, message, "
					"is_new) VALUES (?, ?, ?, ?, ?, ?, "
					"?)")) < 0)
		goto done;
	for (i = 0; error == LEC_OK && i < set->len; i++)
		error = insert_record(st, stmt, build_id, i, &set->items[i]);
	totals[0] = build_id;
	totals[1] = (int64_t)(set->len + set->dropped);
	totals[2] = (int64_t)fresh;
	totals[3] = (int64_t)fixed;
	totals[4] = (int64_t)set->dropped;
	if (error == LEC_OK)
		error = lec_store__exec_ints(
			st,
			"INSERT OR REPLACE INTO build_warning_totals (build_id,"
			" count, new, fixed, dropped) VALUES (?, ?, ?, ?, ?)",
			totals, 5, "storing warning totals", NULL);
done:
	lec_store__finalize(st, stmt);
	return lec_store__end(st, error);
}

int lec_warning_summary_get(struct lec_store *st, int64_t build_id,
			    struct lec_warning_summary *out)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	lec_error_clear();
	memset(out, 0, sizeof(*out));
	if ((error = lec_store__prepare(st, &stmt,
					"SELECT count, new, fixed, dropped "
					"FROM build_warning_totals WHERE "
					"build_id = ?")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, build_id);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		out->count = (size_t)sqlite3_column_int64(stmt, 0);
		out->new_count = (size_t)sqlite3_column_int64(stmt, 1);
		out->fixed = (size_t)sqlite3_column_int64(stmt, 2);
		out->dropped = (size_t)sqlite3_column_int64(stmt, 3);
	} else if (rc == SQLITE_DONE) {
		error = lec__error(LEC_ENOTFOUND, "no warnings kept for build "
						  "%lld",
				   (long long)build_id);
	} else {
		error = lec_store__sqlerr(st, rc, "reading warning totals");
	}
	lec_store__finalize(st, stmt);
	return error;
}

int lec_warning_list(struct lec_store *st, int64_t build_id,
		     const struct lec_warning_filter *filter,
		     const struct lec_page *page, struct lec_warning_list *out)
{
	struct lec__query q;

	lec_error_clear();
	lec__table_query(&q, &warnings);
	lec__query_where_int(&q, "build_id = ?", build_id);
	if (filter && filter->new_only)
		lec__query_where(&q, "is_new = 1");
	return lec__table_rows(st, &warnings, &q, page, (void **)&out->items,
			       &out->len, &out->total);
}

LEC__DEFINE_LIST_DISPOSE(lec_warning, &warning_row)

/* Inventories ----------------------------------------------------------- */

int lec_warning_inventory_save(struct lec_store *st, int64_t build_id,
			       const char *text, size_t len)
{
	sqlite3_stmt *stmt = NULL;
	int64_t version_id = 0;
	int error;

	lec_error_clear();
	if ((error = build_version(st, build_id, &version_id)) < 0)
		return error;
	if ((error = lec_store__begin(st)) < 0)
		return error;
	/* One per version: only the newest passed build is compared with. */
	if ((error = lec_store__exec_ints(st, "DELETE FROM build_inventories "
					      "WHERE version_id = ?",
					  &version_id, 1,
					  "replacing an inventory", NULL)) < 0 ||
	    (error = lec_store__prepare(st, &stmt,
					"INSERT INTO build_inventories "
					"(build_id, version_id, data) VALUES "
					"(?, ?, ?)")) < 0)
		goto done;
	sqlite3_bind_int64(stmt, 1, build_id);
	sqlite3_bind_int64(stmt, 2, version_id);
	sqlite3_bind_blob64(stmt, 3, text, len, SQLITE_STATIC);
	error = lec_store__step_done(st, stmt, "storing an inventory");
done:
	lec_store__finalize(st, stmt);
	return lec_store__end(st, error);
}

int lec_warning_inventory_get(struct lec_store *st, int64_t version_id,
			      int64_t build_id, char **out, size_t *len)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	lec_error_clear();
	*out = NULL;
	*len = 0;
	if ((error = lec_store__prepare(st, &stmt,
					"SELECT data FROM build_inventories "
					"WHERE version_id = ? AND build_id < ? "
					"ORDER BY build_id DESC LIMIT 1")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, version_id);
	sqlite3_bind_int64(stmt, 2, build_id > 0 ? build_id : INT64_MAX);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		size_t n = (size_t)sqlite3_column_bytes(stmt, 0);
		const void *data = sqlite3_column_blob(stmt, 0);

		if ((*out = lec__malloc(n + 1)) == NULL) {
			error = lec__error_oom();
		} else {
			if (n)
				memcpy(*out, data, n);
			(*out)[n] = '\0';
			*len = n;
		}
	} else if (rc != SQLITE_DONE) {
		error = lec_store__sqlerr(st, rc, "reading an inventory");
	}
	lec_store__finalize(st, stmt);
	return error;
}

void lec_warning_text_free(char *text)
{
	lec__free(text);
}
