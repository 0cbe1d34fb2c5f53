/*
 * The search index's life (behaviour notes §4.1-4.4): a version's index
 * written from its published pages and replaced whole when a build
 * publishes, removed, counted and listed; the tokenizer every part uses;
 * the search.ignore and search.ranking rules an indexing applies. The
 * query, from its words to the ranked results, is search_exec.c's.
 *
 * Layout (schema migration 3): search_pages holds one row per page of a
 * version; the FTS5 table search_entries holds, per page, one row for the
 * page title (kind 0) and one per section (kind 1) or domain entry (kind
 * 2), at rowids page_id << 20 | n << 6 | length bucket. FTS5 returns
 * matches in rowid order, so the rows of a page arrive together and a
 * query aggregates them into page results in one pass, without sorting or
 * hashing rows, and a version's pages are one rowid range.
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lectern/search.h"
#include "search_internal.h"
#include "store_internal.h"

/* Entries kept per page (title row included): what the rowid layout
 * leaves room for, above the parser's 10,000 sections of a real page. */
#define ENTRIES_MAX                                                            \
	((int64_t)1 << (LEC__SEARCH_ENTRY_BITS - LEC__SEARCH_LENGTH_BITS))

/* A statement that prepares only once lec_rank is registered on the
 * connection; the handle's statement cache then keeps it. */
#define RANK_PROBE                                                           \
	"SELECT " LEC__SEARCH_RANK_NAME "(search_entries) FROM search_entries " \
	"WHERE 0"

/* Bytes of the database a connection that searches reads through a
 * memory map (PRAGMA mmap_size): a query reads the text of the sections
 * it shows and the term lists it needs, pages the kernel already caches,
 * and a map spares a copy of each into SQLite's page cache (7% of a
 * query on python3-doc). Address space only; every thread's map shares
 * the same pages. */
#define SEARCH_MMAP_BYTES "268435456"

/* The schema's tokenizer, as fts5 tokenizer name and arguments. */
#define SEARCH_TOKENIZER "porter"
static const char *tokenizer_args[] = { "unicode61", "remove_diacritics",
					      "2" };

/* Deepest directory nesting walked under an HTML root. */
#define WALK_DEPTH_MAX 64

/* The service's search.ignore when the configuration gives none. */
static const char *const default_ignore[] = { "search.html",
					      "search/index.html", "404.html",
					      "404/index.html" };

/* Rank factors (notes §4.1), by rank + 10. */
static const double rank_factors[] = { 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5,
				       0.6,  0.7,  0.8, 1,   1.3, 1.4, 1.5,
				       1.6,  1.7,  1.8, 1.9, 1.93, 1.96, 2 };

double lec_search_rank_factor(int rank)
{
	if (rank < LEC_SEARCH_RANK_MIN || rank > LEC_SEARCH_RANK_MAX)
		return 1;
	return rank_factors[rank - LEC_SEARCH_RANK_MIN];
}

/* Tokenizing ----------------------------------------------------------------- */

/* The connection's FTS5 API (the handle's statement cache keeps the
 * statement: every query asks). */
static fts5_api *fts5_api_of(struct lec_store *st)
{
	fts5_api *api = NULL;
	sqlite3_stmt *stmt = NULL;

	if (lec_store__prepare(st, &stmt, "SELECT fts5(?1)") < 0) {
		lec_error_clear();
		return NULL;
	}
	sqlite3_bind_pointer(stmt, 1, (void *)&api, "fts5_api_ptr", NULL);
	sqlite3_step(stmt);
	lec_store__finalize(st, stmt);
	return api;
}

int lec__search_tokenizer_open(struct lec_store *st,
			       struct lec__search_tokenizer *t)
{
	fts5_api *api = fts5_api_of(st);
	sqlite3_stmt *probe = NULL;
	void *user = NULL;
	int rc;

	memset(t, 0, sizeof(*t));
	if (lec_store__prepare(st, &probe, RANK_PROBE) == LEC_OK) {
		lec_store__finalize(st, probe);
	} else {
		lec_error_clear();
		if ((rc = lec__search_rank_register(api, st->db)) < 0 ||
		    (rc = lec__search_postings_register(api, st)) < 0 ||
		    (rc = lec_store__exec(st, "PRAGMA mmap_size = "
					      SEARCH_MMAP_BYTES)) < 0)
			return rc;
	}
	if (api == NULL ||
	    api->xFindTokenizer(api, SEARCH_TOKENIZER, &user, &t->api) !=
		    SQLITE_OK ||
	    t->api.xCreate(user, tokenizer_args,
			   (int)(sizeof(tokenizer_args) /
				 sizeof(tokenizer_args[0])),
			   &t->tok) != SQLITE_OK)
		return lec__error(LEC_ERROR, "the search tokenizer is missing");
	return LEC_OK;
}

void lec__search_tokenizer_close(struct lec__search_tokenizer *t)
{
	if (t->tok)
		t->api.xDelete(t->tok);
}

/* Rules: search.ignore and search.ranking ------------------------------------ */

struct rules {
	char **ignore;
	size_t nignore;
	char **rank_pattern;
	int *rank_value;
	size_t nrank;
};

static void rules_dispose(struct rules *r)
{
	lec__strings_free(r->ignore, r->nignore);
	lec__strings_free(r->rank_pattern, r->nrank);
	lec__free(r->rank_value);
	memset(r, 0, sizeof(*r));
}

static int rules_alloc(struct rules *r, size_t nignore, size_t nrank)
{
	r->ignore = lec__calloc(nignore + 1, sizeof(char *));
	r->rank_pattern = lec__calloc(nrank + 1, sizeof(char *));
	r->rank_value = lec__calloc(nrank + 1, sizeof(int));
	if (!r->ignore || !r->rank_pattern || !r->rank_value)
		return lec__error_oom();
	return LEC_OK;
}

static int rules_add_ignore(struct rules *r, const char *pattern)
{
	if ((r->ignore[r->nignore] = lec__strdup(pattern)) == NULL)
		return lec__error_oom();
	r->nignore++;
	return LEC_OK;
}

static int rules_add_rank(struct rules *r, const char *pattern, int value)
{
	if ((r->rank_pattern[r->nrank] = lec__strdup(pattern)) == NULL)
		return lec__error_oom();
	r->rank_value[r->nrank++] = value;
	return LEC_OK;
}

static int rules_defaults(struct rules *r)
{
	size_t n = sizeof(default_ignore) / sizeof(default_ignore[0]), i;
	int rc = rules_alloc(r, n, 0);

	for (i = 0; rc == LEC_OK && i < n; i++)
		rc = rules_add_ignore(r, default_ignore[i]);
	return rc;
}

static int rules_from_config(struct rules *r, const struct lec_rtd_config *c)
{
	size_t i;
	int rc = rules_alloc(r, c->search_ignore.len, c->ranking_patterns.len);

	for (i = 0; rc == LEC_OK && i < c->search_ignore.len; i++)
		rc = rules_add_ignore(r, c->search_ignore.items[i]);
	for (i = 0; rc == LEC_OK && i < c->ranking_patterns.len; i++)
		rc = rules_add_rank(r, c->ranking_patterns.items[i],
				    c->ranking_values[i]);
	return rc;
}

/* {"ignore":["p",...],"ranking":[["p",rank],...]} */
static char *rules_json(const struct rules *r)
{
	cJSON *o = cJSON_CreateObject(), *ign = cJSON_CreateArray();
	cJSON *rank = cJSON_CreateArray(), *pair;
	char *text = NULL, *copy = NULL;
	size_t i;
	int ok = o && ign && rank;

	for (i = 0; ok && i < r->nignore; i++)
		ok = cJSON_AddItemToArray(ign,
					  cJSON_CreateString(r->ignore[i]));
	for (i = 0; ok && i < r->nrank; i++) {
		pair = cJSON_CreateArray();
		ok = pair && cJSON_AddItemToArray(rank, pair) &&
		     cJSON_AddItemToArray(pair, cJSON_CreateString(
							r->rank_pattern[i])) &&
		     cJSON_AddItemToArray(pair, cJSON_CreateNumber(
							r->rank_value[i]));
	}
	if (ok && cJSON_AddItemToObject(o, "ignore", ign)) {
		ign = NULL;
		if (cJSON_AddItemToObject(o, "ranking", rank)) {
			rank = NULL;
			text = cJSON_PrintUnformatted(o);
		}
	}
	if (text)
		copy = lec__strdup(text);
	cJSON_free(text);
	cJSON_Delete(ign);
	cJSON_Delete(rank);
	cJSON_Delete(o);
	if (copy == NULL)
		lec__error_oom();
	return copy;
}

static int rules_parse(struct rules *r, const char *json)
{
	cJSON *o = cJSON_Parse(json), *ign, *rank, *it;
	int rc;

	ign = cJSON_GetObjectItemCaseSensitive(o, "ignore");
	rank = cJSON_GetObjectItemCaseSensitive(o, "ranking");
	if (!cJSON_IsArray(ign) || !cJSON_IsArray(rank)) {
		cJSON_Delete(o);
		return rules_defaults(r);
	}
	rc = rules_alloc(r, (size_t)cJSON_GetArraySize(ign),
			 (size_t)cJSON_GetArraySize(rank));
	cJSON_ArrayForEach(it, ign)
	{
		if (rc == LEC_OK && cJSON_IsString(it))
			rc = rules_add_ignore(r, it->valuestring);
	}
	cJSON_ArrayForEach(it, rank)
	{
		cJSON *p = cJSON_GetArrayItem(it, 0);
		cJSON *v = cJSON_GetArrayItem(it, 1);

		if (rc == LEC_OK && cJSON_IsString(p) && cJSON_IsNumber(v))
			rc = rules_add_rank(r, p->valuestring, v->valueint);
	}
	cJSON_Delete(o);
	return rc;
}

/* The rules of the version's last indexing, else the defaults. */
static int rules_stored(struct lec_store *st, int64_t version_id,
			struct rules *r)
{
	char *json = NULL;
	int rc = lec_store__query_text(st,
				       "SELECT rules FROM search_versions "
				       "WHERE version_id = ?",
				       &version_id, 1, "reading search rules",
				       &json, NULL);

	if (rc == LEC_OK)
		rc = json ? rules_parse(r, json) : rules_defaults(r);
	lec__free(json);
	return rc;
}

static int rules_ignored(const struct rules *r, const char *path)
{
	size_t i;

	for (i = 0; i < r->nignore; i++)
		if (fnmatch(r->ignore[i], path, 0) == 0)
			return 1;
	return 0;
}

/* The last matching pattern wins (the service iterates the whole map). */
static int rules_rank(const struct rules *r, const char *path)
{
	size_t i;
	int rank = 0;

	for (i = 0; i < r->nrank; i++)
		if (fnmatch(r->rank_pattern[i], path, 0) == 0)
			rank = r->rank_value[i];
	if (rank < LEC_SEARCH_RANK_MIN || rank > LEC_SEARCH_RANK_MAX)
		rank = 0;
	return rank;
}

/* Replacing an index ----------------------------------------------------------- */

/* Bind cleaned text (no control characters, valid UTF-8): the highlight
 * markers must never occur in indexed text. *clean (may be NULL) gets the
 * bound copy, valid until the bindings are cleared. */
static int bind_clean(sqlite3_stmt *stmt, int idx, const char *text,
		      const char **clean)
{
	size_t len = text ? strlen(text) : 0;
	char *copy = lec__search_clean_text(text ? text : "", len, NULL);

	if (copy == NULL)
		return LEC_ENOMEM;
	if (sqlite3_bind_text(stmt, idx, copy, -1, lec__free) != SQLITE_OK)
		return lec__error_oom();
	if (clean)
		*clean = copy;
	return LEC_OK;
}

struct entry {
	int kind;
	const char *page_title, *title, *content, *anchor, *role;
};

/* What replacing a version's index writes through. */
struct writer {
	struct lec_store *st;
	int64_t version_id;
	sqlite3_stmt *page, *entry, *names;
	struct lec__search_terms_builder *terms;
};

/* One row of search_entries, its text counted into the term index. */
static int insert_entry(struct writer *w, int64_t rowid, int rank,
			const struct entry *e)
{
	sqlite3_stmt *stmt = w->entry;
	const char *texts[LEC__SEARCH_COLUMNS];
	int rc;

	sqlite3_bind_int64(stmt, 1, rowid);
	if ((rc = bind_clean(stmt, 2, e->page_title, &texts[0])) < 0 ||
	    (rc = bind_clean(stmt, 3, e->title, &texts[1])) < 0 ||
	    (rc = bind_clean(stmt, 4, e->content, &texts[2])) < 0 ||
	    (rc = bind_clean(stmt, 8, e->anchor, NULL)) < 0 ||
	    (rc = bind_clean(stmt, 9, e->role, NULL)) < 0)
		goto done;
	sqlite3_bind_int64(stmt, 5, w->version_id);
	sqlite3_bind_int(stmt, 6, rank);
	sqlite3_bind_int(stmt, 7, e->kind);
	if ((rc = lec_store__step_done(w->st, stmt, "indexing a page")) ==
	    LEC_OK)
		rc = lec__search_terms_add(w->terms, rowid, texts);
done:
	sqlite3_reset(stmt);
	sqlite3_clear_bindings(stmt);
	return rc;
}

static size_t len0(const char *s)
{
	return s ? strlen(s) : 0;
}

/* The rowid of a page's entry n, with its length bucket. */
static int64_t entry_rowid(int64_t base, int64_t n, const struct entry *e)
{
	size_t bytes = len0(e->page_title) + len0(e->title) + len0(e->content);

	return base + (n << LEC__SEARCH_LENGTH_BITS) +
	       lec__search_length_bucket(bytes);
}

/* A page's title row, then its sections, then its domain entries, each
 * section and entry with its names. */
static int insert_entries(struct writer *w, int64_t page_id, int rank,
			  const char *title, const struct lec_page_doc *doc)
{
	int64_t base = page_id * LEC__SEARCH_ENTRIES_PER_PAGE, n = 1;
	struct entry e = { LEC__SEARCH_KIND_PAGE, title, "", "", "", "" };
	size_t i;
	int rc;

	if ((rc = insert_entry(w, entry_rowid(base, 0, &e), rank, &e)) < 0 ||
	    doc == NULL)
		return rc;
	for (i = 0; i < doc->sections_len && n < ENTRIES_MAX; i++, n++) {
		const struct lec_page_section *s = &doc->sections[i];
		struct entry se = { LEC__SEARCH_KIND_SECTION,
				    "",
				    s->title,
				    s->content,
				    s->id,
				    "" };
		int64_t rowid = entry_rowid(base, n, &se);

		if ((rc = insert_entry(w, rowid, rank, &se)) < 0 ||
		    (rc = lec__search_names_add(w->st, w->names, rowid, "",
						s->id, s->title)) < 0)
			return rc;
	}
	for (i = 0; i < doc->domains_len && n < ENTRIES_MAX; i++, n++) {
		const struct lec_page_domain *d = &doc->domains[i];
		struct entry de = { LEC__SEARCH_KIND_DOMAIN,
				    "",
				    d->name,
				    d->content,
				    d->id,
				    d->role };
		int64_t rowid = entry_rowid(base, n, &de);

		if ((rc = insert_entry(w, rowid, rank, &de)) < 0 ||
		    (rc = lec__search_names_add(w->st, w->names, rowid,
						d->role, d->id, d->name)) < 0)
			return rc;
	}
	return LEC_OK;
}

static int insert_page(struct writer *w, const struct lec_search_page *p)
{
	sqlite3_stmt *page_stmt = w->page;
	const char *title = p->doc && p->doc->title ? p->doc->title : "";
	int rank = p->rank < LEC_SEARCH_RANK_MIN || p->rank > LEC_SEARCH_RANK_MAX
			   ? 0
			   : p->rank;
	int64_t page_id;
	int rc;

	if (p->path == NULL || p->path[0] == '\0')
		return lec__error(LEC_EINVALID, "a page to index has no path");
	sqlite3_bind_int64(page_stmt, 1, w->version_id);
	if ((rc = bind_clean(page_stmt, 2, p->path, NULL)) < 0 ||
	    (rc = bind_clean(page_stmt, 3, title, NULL)) < 0)
		goto done;
	sqlite3_bind_int(page_stmt, 4, rank);
	rc = lec_store__step_done(w->st, page_stmt, "indexing a page");
	if (rc == LEC_EEXISTS)
		rc = lec__error(LEC_EINVALID, "page '%s' is given twice",
				p->path);
	if (rc < 0)
		goto done;
	page_id = sqlite3_last_insert_rowid(w->st->db);
	rc = insert_entries(w, page_id, rank, title, p->doc);
done:
	sqlite3_reset(page_stmt);
	sqlite3_clear_bindings(page_stmt);
	return rc;
}

/* The statements of a writer; its term builder is the caller's. */
static int writer_prepare(struct writer *w)
{
	int rc;

	if ((rc = lec_store__prepare(w->st, &w->page,
				     "INSERT INTO search_pages (version_id, "
				     "path, title, rank) VALUES (?, ?, ?, ?)")) <
		    0 ||
	    (rc = lec_store__prepare(
		     w->st, &w->entry,
		     "INSERT INTO search_entries (rowid, page_title, title, "
		     "content, version_id, page_rank, kind, anchor, role) "
		     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) < 0)
		return rc;
	return lec_store__prepare(
		w->st, &w->names,
		"INSERT OR IGNORE INTO search_names (key, entry, kind, "
		"weight, name, role) VALUES (?, ?, ?, ?, ?, ?)");
}

static void writer_dispose(struct writer *w)
{
	lec_store__finalize(w->st, w->page);
	lec_store__finalize(w->st, w->entry);
	lec_store__finalize(w->st, w->names);
}

/* The version's row in search_versions: its rules (rules_json NULL keeps
 * the stored ones) and when it was indexed. */
static int record_version(struct lec_store *st, int64_t version_id,
			  const char *rules_json)
{
	sqlite3_stmt *ver = NULL;
	int rc;

	if ((rc = lec_store__prepare(
		     st, &ver,
		     "INSERT INTO search_versions (version_id, rules, indexed) "
		     "VALUES (?, ?, ?) ON CONFLICT (version_id) DO UPDATE SET "
		     "indexed = excluded.indexed, "
		     "rules = coalesce(excluded.rules, rules)")) < 0)
		return rc;
	sqlite3_bind_int64(ver, 1, version_id);
	if ((rc = lec_store__bind_text(ver, 2, rules_json)) == LEC_OK) {
		sqlite3_bind_int64(ver, 3, lec__now_us());
		rc = lec_store__step_done(st, ver, "recording a search index");
	}
	lec_store__finalize(st, ver);
	return rc;
}

/* Replace in one transaction; rules_json NULL keeps the stored rules. */
static int replace(struct lec_store *st, int64_t version_id,
		   const struct lec_search_page *pages, size_t n,
		   const char *rules_json)
{
	struct writer w = { st, version_id, NULL, NULL, NULL, NULL };
	struct lec__search_tokenizer tok;
	int64_t ids[1] = { version_id }, one = 0;
	int found = 0, rc;
	size_t i;

	memset(&tok, 0, sizeof(tok));
	if ((rc = lec__search_tokenizer_open(st, &tok)) < 0 ||
	    (rc = lec__search_terms_begin(&tok, &w.terms)) < 0 ||
	    (rc = lec_store__begin(st)) < 0)
		goto out;
	if ((rc = lec_store__query_int(st, "SELECT 1 FROM versions WHERE id = ?",
				       ids, 1, "finding a version", &one,
				       &found)) < 0)
		goto done;
	if (!found) {
		rc = lec__error(LEC_EINVALID, "no version with id %lld",
				(long long)version_id);
		goto done;
	}
	if ((rc = lec_store__exec_ints(st,
				       "DELETE FROM search_pages "
				       "WHERE version_id = ?",
				       ids, 1, "removing a search index",
				       NULL)) < 0 ||
	    (rc = lec_store__exec_ints(st,
				       "DELETE FROM search_terms "
				       "WHERE version_id = ?",
				       ids, 1, "removing a search index",
				       NULL)) < 0 ||
	    (rc = writer_prepare(&w)) < 0)
		goto done;
	for (i = 0; i < n && rc == LEC_OK; i++)
		rc = insert_page(&w, &pages[i]);
	if (rc == LEC_OK &&
	    (rc = record_version(st, version_id, rules_json)) == LEC_OK)
		rc = lec__search_terms_write(st, w.terms, version_id);
done:
	writer_dispose(&w);
	if (rc == LEC_OK)
		rc = lec_store__commit(st);
	else
		lec_store__rollback(st);
out:
	lec__search_terms_free(w.terms);
	lec__search_tokenizer_close(&tok);
	return rc;
}

int lec_search_index_replace(struct lec_store *st, int64_t version_id,
			     const struct lec_search_page *pages, size_t n)
{
	lec_error_clear();
	if (n > 0 && pages == NULL)
		return lec__error(LEC_EINVALID, "no pages given");
	return replace(st, version_id, pages, n, NULL);
}

int lec_search_index_remove(struct lec_store *st, int64_t version_id)
{
	int64_t ids[1] = { version_id };
	int rc;

	lec_error_clear();
	if ((rc = lec_store__begin(st)) < 0)
		return rc;
	if ((rc = lec_store__exec_ints(st,
				       "DELETE FROM search_pages "
				       "WHERE version_id = ?",
				       ids, 1, "removing a search index",
				       NULL)) == LEC_OK)
		rc = lec_store__exec_ints(st,
					  "DELETE FROM search_versions "
					  "WHERE version_id = ?",
					  ids, 1, "removing a search index",
					  NULL);
	return lec_store__end(st, rc);
}

int lec_search_index_count(struct lec_store *st, int64_t version_id,
			   size_t *count)
{
	int64_t ids[1] = { version_id }, n = 0;
	int rc;

	lec_error_clear();
	*count = 0;
	rc = lec_store__query_int(st,
				  "SELECT count(*) FROM search_pages "
				  "WHERE version_id = ?",
				  ids, 1, "counting indexed pages", &n, NULL);
	*count = (size_t)n;
	return rc;
}

/* Indexing a directory --------------------------------------------------------- */

void lec__paths_dispose(struct lec__paths *p)
{
	lec__strings_free(p->items, p->len);
	memset(p, 0, sizeof(*p));
}

static int paths_push(struct lec__paths *p, char *path)
{
	if (path == NULL)
		return lec__error_oom();
	if (p->len == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		char **grown = lec__realloc(p->items, cap * sizeof(char *));

		if (grown == NULL) {
			lec__free(path);
			return lec__error_oom();
		}
		p->items = grown;
		p->cap = cap;
	}
	p->items[p->len++] = path;
	return LEC_OK;
}

static int ends_with_html(const char *name)
{
	size_t n = strlen(name);

	return n > 5 && strcmp(name + n - 5, ".html") == 0;
}

/* Collect the *.html files under root/rel (rel "" for the root). Links
 * are skipped: published output must not index files outside itself. */
static int walk(const char *root, const char *rel, int depth,
		struct lec__paths *out)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *dir, *child;
	struct dirent *e;
	struct stat sb;
	DIR *d;
	int rc = LEC_OK;

	lec__buf_printf(&b, "%s%s%s", root, rel[0] ? "/" : "", rel);
	if ((dir = lec__buf_take(&b)) == NULL)
		return LEC_ENOMEM;
	if ((d = opendir(dir)) == NULL) {
		rc = depth == 0 ? lec__error(LEC_EIO, "cannot read %s: %s",
					     dir, strerror(errno))
				: LEC_OK;
		lec__free(dir);
		return rc;
	}
	while (rc == LEC_OK && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		lec__buf_printf(&b, "%s/%s", dir, e->d_name);
		child = lec__buf_take(&b);
		if (child == NULL) {
			rc = LEC_ENOMEM;
			break;
		}
		if (lstat(child, &sb) == 0) {
			lec__buf_printf(&b, "%s%s%s", rel, rel[0] ? "/" : "",
					e->d_name);
			if (S_ISDIR(sb.st_mode) && depth < WALK_DEPTH_MAX) {
				char *sub = lec__buf_take(&b);

				rc = sub ? walk(root, sub, depth + 1, out)
					 : LEC_ENOMEM;
				lec__free(sub);
			} else if (S_ISREG(sb.st_mode) &&
				   ends_with_html(e->d_name)) {
				rc = paths_push(out, lec__buf_take(&b));
			}
			lec__buf_dispose(&b);
		}
		lec__free(child);
	}
	closedir(d);
	lec__free(dir);
	return rc;
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int lec__html_pages(const char *root, struct lec__paths *out)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = walk(root, "", 0, out)) < 0)
		lec__paths_dispose(out);
	else if (out->len > 1)
		qsort(out->items, out->len, sizeof(char *), path_cmp);
	return rc;
}

void lec_search_index_report_dispose(struct lec_search_index_report *r)
{
	if (r == NULL)
		return;
	lec__strings_free(r->failures, r->failures_len);
	memset(r, 0, sizeof(*r));
}

static void report_failure(struct lec_search_index_report *r,
			   const char *path, const char *why)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *msg;

	r->failed++;
	if (r->failures_len >= LEC_SEARCH_FAILURES_SHOWN)
		return;
	if (r->failures == NULL &&
	    (r->failures = lec__calloc(LEC_SEARCH_FAILURES_SHOWN,
				       sizeof(char *))) == NULL)
		return;
	lec__buf_printf(&b, "%s: %s", path, why[0] ? why : "unreadable");
	if ((msg = lec__buf_take(&b)) != NULL)
		r->failures[r->failures_len++] = msg;
}

/* Parse the pages that are not ignored; a page that fails is indexed
 * empty and reported. docs[i] belongs to pages[i]. */
static int parse_pages(const char *html_dir, const struct lec__paths *files,
		       const struct rules *rules, struct lec_search_page *pages,
		       struct lec_page_doc **docs, size_t *npages,
		       struct lec_search_index_report *r)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *file;
	size_t i, n = 0;
	int rc;

	for (i = 0; i < files->len; i++) {
		const char *rel = files->items[i];

		if (rules_ignored(rules, rel)) {
			r->ignored++;
			continue;
		}
		lec__buf_printf(&b, "%s/%s", html_dir, rel);
		if ((file = lec__buf_take(&b)) == NULL)
			return LEC_ENOMEM;
		docs[n] = NULL;
		rc = lec_page_parse_file(file, rel, &docs[n]);
		lec__free(file);
		if (rc == LEC_ENOMEM)
			return rc;
		if (rc < 0)
			report_failure(r, rel, lec_error_last());
		pages[n].path = rel;
		pages[n].rank = rules_rank(rules, rel);
		pages[n].doc = docs[n];
		if (docs[n])
			r->entries += docs[n]->sections_len +
				      docs[n]->domains_len;
		n++;
	}
	*npages = n;
	r->pages = n;
	return LEC_OK;
}

int lec_search_index_dir(struct lec_store *st, int64_t version_id,
			 const char *html_dir,
			 const struct lec_rtd_config *config,
			 struct lec_search_index_report *report)
{
	struct lec_search_index_report own = { 0 };
	struct lec_search_index_report *r = report ? report : &own;
	struct rules rules = { 0 };
	struct lec__paths files = { 0 };
	struct lec_search_page *pages = NULL;
	struct lec_page_doc **docs = NULL;
	char *json = NULL;
	size_t npages = 0, i;
	int rc;

	lec_error_clear();
	memset(r, 0, sizeof(*r));
	if (html_dir == NULL)
		return lec__error(LEC_EINVALID, "no directory to index");
	rc = config ? rules_from_config(&rules, config)
		    : rules_stored(st, version_id, &rules);
	if (rc < 0 || (rc = lec__html_pages(html_dir, &files)) < 0)
		goto done;
	pages = lec__calloc(files.len + 1, sizeof(*pages));
	docs = lec__calloc(files.len + 1, sizeof(*docs));
	if (pages == NULL || docs == NULL) {
		rc = lec__error_oom();
		goto done;
	}
	if ((rc = parse_pages(html_dir, &files, &rules, pages, docs, &npages,
			      r)) < 0)
		goto done;
	if ((json = rules_json(&rules)) == NULL) {
		rc = LEC_ENOMEM;
		goto done;
	}
	lec_error_clear();
	rc = replace(st, version_id, pages, npages, json);
done:
	for (i = 0; docs && i < files.len; i++)
		lec_page_doc_free(docs[i]);
	lec__free(docs);
	lec__free(pages);
	lec__free(json);
	lec__paths_dispose(&files);
	rules_dispose(&rules);
	if (report == NULL)
		lec_search_index_report_dispose(&own);
	return rc;
}

/* Results' text ---------------------------------------------------------------- */

const char *lec__search_col_str(sqlite3_stmt *stmt, int col)
{
	const unsigned char *s = sqlite3_column_text(stmt, col);

	return s ? (const char *)s : "";
}

char *lec__search_dup(const char *s, int *rc)
{
	char *copy;

	if (s == NULL)
		return NULL;
	if ((copy = lec__strdup(s)) == NULL)
		*rc = lec__error_oom();
	return copy;
}

/* Listing ------------------------------------------------------------------ */

static const size_t listed_texts[] = {
	offsetof(struct lec_search_listed, path),
	offsetof(struct lec_search_listed, title),
	offsetof(struct lec_search_listed, summary),
};

void lec_search_listing_dispose(struct lec_search_listing *listing)
{
	if (listing == NULL)
		return;
	LEC__ITEMS_TEXTS_FREE(listing->items, listing->len, listed_texts);
	memset(listing, 0, sizeof(*listing));
}

/* Bytes of s's first sentence (up to ". ", "! ", "? " or the end), cut
 * at a space before LEC_SEARCH_SUMMARY_MAX characters; *cut says so. */
static size_t first_sentence(const char *s, int *cut)
{
	size_t i, chars = 0, space = 0;

	*cut = 0;
	for (i = 0; s[i]; i++) {
		if ((s[i] == '.' || s[i] == '!' || s[i] == '?') &&
		    (s[i + 1] == ' ' || s[i + 1] == '\0'))
			return i + 1;
		if (s[i] == ' ')
			space = i;
		if (((unsigned char)s[i] & 0xC0) != 0x80 &&
		    ++chars > LEC_SEARCH_SUMMARY_MAX) {
			*cut = 1;
			return space ? space : i;
		}
	}
	return i;
}

/* The order pages are listed in: "index.html" of a directory sorts as the
 * directory itself, before everything in it. */
static int listing_cmp(const void *a, const void *b)
{
	const char *x = ((const struct lec_search_listed *)a)->path;
	const char *y = ((const struct lec_search_listed *)b)->path;
	size_t xn = strlen(x), yn = strlen(y), k = sizeof("index.html") - 1;

	if (xn >= k && strcmp(x + xn - k, "index.html") == 0 &&
	    (xn == k || x[xn - k - 1] == '/'))
		xn -= k;
	if (yn >= k && strcmp(y + yn - k, "index.html") == 0 &&
	    (yn == k || y[yn - k - 1] == '/'))
		yn -= k;
	{
		size_t n = xn < yn ? xn : yn;
		int c = memcmp(x, y, n);

		if (c != 0)
			return c;
		return (xn > yn) - (xn < yn);
	}
}

int lec_search_index_pages(struct lec_store *st, int64_t version_id,
			   struct lec_search_listing *out)
{
	sqlite3_stmt *stmt = NULL;
	size_t cap = 0;
	int rc, step;

	lec_error_clear();
	memset(out, 0, sizeof(*out));
	if ((rc = lec_store__prepare(
		     st, &stmt,
		     "SELECT p.path, p.title, (SELECT e.content FROM "
		     "search_entries e WHERE e.rowid BETWEEN p.id * 1048576 "
		     "AND p.id * 1048576 + 1048575 AND e.kind = 1 ORDER BY "
		     "e.rowid LIMIT 1) FROM search_pages p WHERE "
		     "p.version_id = ?")) < 0)
		return rc;
	sqlite3_bind_int64(stmt, 1, version_id);
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct lec_search_listed *it;
		const char *content = lec__search_col_str(stmt, 2);
		size_t n;
		int cut;

		if (out->len == cap) {
			size_t grown = cap ? cap * 2 : 64;
			void *p = lec__malloc(grown * sizeof(*out->items));

			if (p == NULL) {
				rc = lec__error_oom();
				break;
			}
			if (out->len)
				memcpy(p, out->items,
				       out->len * sizeof(*out->items));
			lec__free(out->items);
			out->items = p;
			cap = grown;
		}
		it = &out->items[out->len++];
		memset(it, 0, sizeof(*it));
		it->path = lec__search_dup(lec__search_col_str(stmt, 0), &rc);
		it->title = lec__search_dup(lec__search_col_str(stmt, 1), &rc);
		n = first_sentence(content, &cut);
		if ((it->summary = lec__malloc(n + 4)) == NULL) {
			rc = lec__error_oom();
		} else {
			memcpy(it->summary, content, n);
			memcpy(it->summary + n, cut ? "..." : "", cut ? 4 : 1);
		}
		if (rc < 0)
			break;
	}
	if (rc == LEC_OK && step != SQLITE_DONE)
		rc = lec_store__sqlerr(st, step, "listing indexed pages");
	lec_store__finalize(st, stmt);
	if (rc < 0) {
		lec_search_listing_dispose(out);
		return rc;
	}
	if (out->len > 1)
		qsort(out->items, out->len, sizeof(*out->items), listing_cmp);
	return LEC_OK;
}
