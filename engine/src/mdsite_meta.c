/*
 * A page's front matter, for the Markdown site generator: the YAML block
 * that Jekyll, Hugo, Docusaurus, MkDocs' meta extension and GitHub's own
 * renderer read from the top of a Markdown file,
 *
 *     ---
 *     title: npm-edit
 *     description: Edit an installed package
 *     ---
 *
 * is the page's metadata, not its text. md4c knows nothing of it and would
 * render it as a rule and a heading ("title: npm-edit description: ..."),
 * so the generator skips it, and takes its `title` as the page's title the
 * way MkDocs does (before the first h1). The block is found as GitHub finds
 * it: a first line of "---" and a closing line of "---" or "...", within
 * FRONT_MATTER_MAX bytes, holding a YAML mapping (read by the engine's
 * YAML reader, leniently: Jekyll's and MkDocs' tags and anchors are
 * metadata too). Anything else stays Markdown: a page that only begins
 * with a rule, prose between two rules, and YAML with a mistake in it,
 * which the writer then sees on the page.
 */
#include <string.h>

#include "mdsite_internal.h"
#include "yaml_reader.h"

/* Where the closing line is looked for: metadata is a few lines; a rule
 * at the top of a long page followed, far below, by another is not. */
#define FRONT_MATTER_MAX (64 * 1024)

/* The length of the line at s (up to n bytes), its newline included, and
 * whether it is `mark` ("---" or "...") with nothing but blanks after. */
static size_t line_at(const char *s, size_t n, const char *mark, int *is)
{
	const char *nl = memchr(s, '\n', n);
	size_t len = nl ? (size_t)(nl - s) + 1 : n, i;

	*is = len >= 3 && memcmp(s, mark, 3) == 0;
	for (i = 3; *is && i < len; i++)
		*is = s[i] == ' ' || s[i] == '\t' || s[i] == '\r' ||
		      s[i] == '\n';
	return len;
}

/* The YAML between the two lines, within md: *start, *len; the bytes the
 * block takes with its lines in *skip. 0 when there is no block. */
static int find_block(const char *md, size_t n, size_t *start, size_t *len,
		      size_t *skip)
{
	size_t at, limit = n < FRONT_MATTER_MAX ? n : FRONT_MATTER_MAX;
	int is;

	at = line_at(md, limit, "---", &is);
	if (!is || at >= limit || md[at - 1] != '\n')
		return 0;
	*start = at;
	while (at < limit) {
		size_t line = line_at(md + at, limit - at, "---", &is);
		int dots = 0;

		if (!is)
			line_at(md + at, limit - at, "...", &dots);
		if (is || dots) {
			*len = at - *start;
			*skip = at + line;
			return 1;
		}
		at += line;
	}
	return 0;
}

/* Front matter is read for its top level only: the tree keeps collections
 * below it empty. Its size is bounded by FRONT_MATTER_MAX, so its values
 * need no count of their own. */
static const struct lec__yaml_rules meta_rules = { "front matter", 0, 1, 0, 0 };

/* The first top-level "title" whose value is a non-empty scalar, copied
 * into *title (else NULL). */
static int find_title(const struct lec__yaml_node *map, char **title)
{
	const struct lec__yaml_entry *e;
	size_t i;

	for (i = 0; i < map->len; i++) {
		e = &map->entries[i];
		if (strcmp(e->key, "title") != 0 ||
		    e->value->kind != LEC__YAML_SCALAR ||
		    e->value->text[0] == '\0')
			continue;
		*title = lec__strdup(e->value->text);
		LEC__CHECK_ALLOC(*title);
		return LEC_OK;
	}
	return LEC_OK;
}

/* Whether the block is metadata: YAML whose first document is a mapping
 * (or nothing at all); 1, with a copy of its top-level "title" in *title
 * when that is a non-empty scalar (else NULL). 0 for anything else, which
 * stays Markdown: prose between two rules, or YAML with a mistake in it,
 * which the writer then sees on the page. LEC_ENOMEM. */
static int read_meta(const char *yaml, size_t n, char **title)
{
	struct lec__yaml_node *root = NULL;
	int rc, meta;

	*title = NULL;
	rc = lec__yaml_read(yaml, n, &meta_rules, &root);
	meta = rc == LEC_OK && (root == NULL || root->kind == LEC__YAML_MAP);
	if (meta && root)
		rc = find_title(root, title);
	lec__yaml_free(root);
	return rc == LEC_ENOMEM ? rc : meta;
}

int lec_mdsite__front_matter(const char *md, size_t n, size_t *skip,
			     char **title)
{
	size_t start, len, block;
	int rc;

	*skip = 0;
	*title = NULL;
	if (!find_block(md, n, &start, &len, &block))
		return LEC_OK;
	if ((rc = read_meta(md + start, len, title)) < 0)
		return rc;
	if (rc == 1)
		*skip = block;
	return LEC_OK;
}
