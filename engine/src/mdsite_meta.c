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
 * FRONT_MATTER_MAX bytes, holding a YAML mapping. Anything else stays
 * Markdown: a page that only begins with a rule, prose between two rules,
 * and YAML with a mistake in it, which the writer then sees on the page.
 */
#include <string.h>
#include <yaml.h>

#include "mdsite_internal.h"

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

/* Where a YAML event leaves the walk of the top-level mapping. */
struct walk {
	int depth;       /* collections open */
	int in_mapping;  /* the document is a mapping */
	int is_key;      /* the next depth-1 node is a key */
	int want;        /* the key just read is "title" */
};

/* Take one event; a copy of the value of "title" into *title. */
static int walk_event(struct walk *w, const yaml_event_t *ev, char **title)
{
	switch (ev->type) {
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT:
		if (w->depth == 0)
			w->in_mapping = ev->type == YAML_MAPPING_START_EVENT;
		else if (w->depth == 1)
			w->is_key = !w->is_key; /* a value, not a title */
		w->depth++;
		return LEC_OK;
	case YAML_MAPPING_END_EVENT:
	case YAML_SEQUENCE_END_EVENT:
		w->depth--;
		return LEC_OK;
	case YAML_SCALAR_EVENT:
		if (w->depth != 1 || !w->in_mapping)
			return LEC_OK;
		if (w->is_key) {
			w->want = ev->data.scalar.length == 5 &&
				  memcmp(ev->data.scalar.value, "title", 5) == 0;
		} else if (w->want && *title == NULL &&
			   ev->data.scalar.length > 0) {
			*title = lec__strndup((const char *)ev->data.scalar.value,
					      ev->data.scalar.length);
			if (*title == NULL)
				return lec__error_oom();
		}
		w->is_key = !w->is_key;
		return LEC_OK;
	default:
		return LEC_OK;
	}
}

/* Whether the block is metadata: YAML whose first document is a mapping
 * (or nothing at all); 1, with a copy of its top-level "title" in *title
 * when that is a non-empty scalar (else NULL). 0 for anything else, which
 * stays Markdown: prose between two rules, or YAML with a mistake in it,
 * which the writer then sees on the page. LEC_ENOMEM. */
static int read_meta(const char *yaml, size_t n, char **title)
{
	struct walk w = { 0, 0, 1, 0 };
	yaml_parser_t parser;
	yaml_event_t ev;
	int rc = LEC_OK, end = 0, nodes = 0;

	*title = NULL;
	if (!yaml_parser_initialize(&parser))
		return lec__error_oom();
	yaml_parser_set_input_string(&parser, (const unsigned char *)yaml, n);
	while (rc == LEC_OK && !end) {
		if (!yaml_parser_parse(&parser, &ev)) {
			rc = -1;
			break;
		}
		nodes += ev.type == YAML_SCALAR_EVENT ||
			 ev.type == YAML_MAPPING_START_EVENT ||
			 ev.type == YAML_SEQUENCE_START_EVENT ||
			 ev.type == YAML_ALIAS_EVENT;
		rc = walk_event(&w, &ev, title);
		/* The first document only. */
		end = ev.type == YAML_DOCUMENT_END_EVENT ||
		      ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	if (rc == LEC_OK && (nodes == 0 || w.in_mapping))
		return 1;
	lec__free(*title);
	*title = NULL;
	return rc == LEC_ENOMEM ? rc : 0;
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
