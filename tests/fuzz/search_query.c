/*
 * Fuzz target: the search query parser (engine/src/search_query.c) and the
 * highlighter the same query drives (search_highlight.c).
 *
 * Input: the query on the first line, the text of a result to highlight on
 * the rest. Besides the sanitizers, the parser's central promise is
 * checked: every expression it writes is valid FTS5, whatever the user
 * typed, so each one is run against an in-memory FTS5 table with the
 * index's tokenizer; an FTS5 error is a finding.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "internal.h"
#include "search_internal.h"

/* The search index's tokenizer (engine/src/schema.c, search.c): queries
 * must be tokenized as the index is, or words would be dropped or kept
 * differently from production. */
#define TOKENIZER "porter"
#define TOKENIZER_SQL "'porter unicode61 remove_diacritics 2'"

static const char *tokenizer_args[] = { "unicode61", "remove_diacritics",
					      "2" };

/* A few rows, so expressions are evaluated and not only compiled. */
static const char *const rows[] = {
	"Installing the package with pip install",
	"Configuration reference: the .readthedocs.yaml file",
	"Running builds and reading their logs",
};

static sqlite3 *db;
static sqlite3_stmt *match;
static struct lec__search_tokenizer tokenizer;

static void open_index(void)
{
	fts5_api *api = NULL;
	sqlite3_stmt *st = NULL;
	void *user = NULL;
	size_t i;

	FUZZ_CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK, "sqlite open");
	FUZZ_CHECK(sqlite3_exec(db,
				"CREATE VIRTUAL TABLE t USING fts5(text, "
				"tokenize = " TOKENIZER_SQL ")",
				NULL, NULL, NULL) == SQLITE_OK,
		   "create the FTS5 table");
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		FUZZ_CHECK(sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?1)",
					      -1, &st, NULL) == SQLITE_OK,
			   "prepare insert");
		sqlite3_bind_text(st, 1, rows[i], -1, SQLITE_STATIC);
		FUZZ_CHECK(sqlite3_step(st) == SQLITE_DONE, "insert a row");
		sqlite3_finalize(st);
	}
	FUZZ_CHECK(sqlite3_prepare_v2(db, "SELECT rowid FROM t WHERE t MATCH ?1",
				      -1, &match, NULL) == SQLITE_OK,
		   "prepare match");
	FUZZ_CHECK(sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, NULL) ==
			   SQLITE_OK,
		   "prepare fts5()");
	sqlite3_bind_pointer(st, 1, (void *)&api, "fts5_api_ptr", NULL);
	sqlite3_step(st);
	sqlite3_finalize(st);
	FUZZ_CHECK(api != NULL &&
			   api->xFindTokenizer(api, TOKENIZER, &user,
					       &tokenizer.api) == SQLITE_OK &&
			   tokenizer.api.xCreate(
				   user, tokenizer_args,
				   (int)(sizeof(tokenizer_args) /
					 sizeof(tokenizer_args[0])),
				   &tokenizer.tok) == SQLITE_OK,
		   "the index's tokenizer");
}

static int count_token(void *ctx, int flags, const char *token, int n,
		       int start, int end)
{
	(void)flags, (void)token, (void)n, (void)start, (void)end;
	++*(int *)ctx;
	return SQLITE_DONE; /* one is enough */
}

static int has_tokens(void *ctx, const char *text, size_t len)
{
	int count = 0;

	(void)ctx;
	if (len > 0)
		tokenizer.api.xTokenize(tokenizer.tok, &count,
					FTS5_TOKENIZE_QUERY, text, (int)len,
					count_token);
	return count > 0;
}

static void check_fts5(const char *expr)
{
	int rc;

	if (expr == NULL)
		return;
	sqlite3_bind_text(match, 1, expr, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(match)) == SQLITE_ROW)
		;
	if (rc != SQLITE_DONE)
		fprintf(stderr, "FTS5 refused: %s\n  %s\n", expr,
			sqlite3_errmsg(db));
	FUZZ_CHECK(rc == SQLITE_DONE, "the expression is valid FTS5");
	sqlite3_reset(match);
	sqlite3_clear_bindings(match);
}

static int last_start(void *ctx, int flags, const char *token, int n,
		      int start, int end)
{
	(void)flags, (void)token, (void)n, (void)end;
	*(int *)ctx = start;
	return SQLITE_OK;
}

/* Whole, a fragment searched for from the start, and a fragment searched
 * for from the last token's start (a token start, as the term index's
 * first offsets are). */
static void highlight(const struct lec__search_expr *ex, const char *text)
{
	struct lec__search_hl *hl = NULL;
	size_t first[3] = { 0, 0, 0 };
	char *out = NULL;
	int i, last = 0;

	if (lec__search_hl_new(&tokenizer, ex, &hl) < 0)
		return;
	tokenizer.api.xTokenize(tokenizer.tok, &last, FTS5_TOKENIZE_DOCUMENT,
				text, (int)strlen(text), last_start);
	first[2] = (size_t)last;
	for (i = 0; i < 3; i++) {
		if (lec__search_hl_text(hl, text, i == 0, first[i], &out) ==
			    LEC_OK &&
		    out != NULL) {
			FUZZ_CHECK(fuzz_utf8_valid(out, strlen(out)),
				   "a highlight is valid UTF-8");
			lec__free(out);
			out = NULL;
		}
	}
	lec__search_hl_free(hl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_fields f;
	struct lec__search_expr ex;
	char *text;

	if (db == NULL)
		open_index();
	fuzz_fields_split(&f, data, size);
	if (lec__search_translate(f.at[0], has_tokens, NULL, &ex) == LEC_OK) {
		FUZZ_CHECK((ex.all == NULL) == (ex.any == NULL),
			   "both expressions or neither");
		check_fts5(ex.all);
		check_fts5(ex.any);
		/* The highlighter gets text cleaned as the indexer cleans it. */
		text = lec__search_clean_text(f.at[1], strlen(f.at[1]), NULL);
		if (text)
			highlight(&ex, text);
		lec__free(text);
		lec__search_expr_dispose(&ex);
	}
	fuzz_fields_dispose(&f);
	return 0;
}
