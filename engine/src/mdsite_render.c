/*
 * The Markdown site generator's renderer: md4c parses a page (GitHub's
 * dialect: tables, strikethrough, task lists, autolinks) and these callbacks
 * write its HTML. md4c-html's renderer cannot be used as is because pages
 * need what it does not do: ids on headings (known only once the heading's
 * text is complete, so a heading is rendered aside and emitted at its end),
 * a section link in each heading, the first h1 as the page title, and links
 * to .md files rewritten to the generated pages. The HTML otherwise follows
 * md4c-html's, in HTML5 form (table alignment as style, not the obsolete
 * align attribute).
 */
#include <md4c.h>
#include <stdio.h>
#include <string.h>

#include "mdsite_internal.h"

/* GitHub's dialect; raw HTML is kept, as GitHub and MkDocs keep it. */
#define RENDER_FLAGS MD_DIALECT_GITHUB

struct render {
	struct lec__buf *body;
	struct lec__buf *out; /* body, or heading inside a heading */
	struct lec__buf heading;      /* HTML of the open heading */
	struct lec__buf heading_text; /* its text: id and title */
	struct lec__buf scratch;      /* attributes being flattened */
	struct lec__buf id;
	struct lec_mdsite__map ids; /* ids handed out on this page */
	const struct lec_mdsite__links *links;
	unsigned heading_level; /* 0: not in a heading */
	unsigned image_depth;   /* >0: inside an image's alt text */
	char *title;
	int error;
};

static void put(struct render *r, const char *s)
{
	lec__buf_puts(r->out, s);
}

/* md4c's attribute (text with entities) as plain text into r->scratch. */
static void flatten(struct render *r, const MD_ATTRIBUTE *a)
{
	unsigned i;

	r->scratch.len = 0;
	for (i = 0; a->substr_offsets[i] < a->size; i++) {
		const char *s = a->text + a->substr_offsets[i];
		size_t n = a->substr_offsets[i + 1] - a->substr_offsets[i];

		if (a->substr_types[i] == MD_TEXT_NULLCHAR)
			lec__buf_puts(&r->scratch, "\xEF\xBF\xBD");
		else if (a->substr_types[i] != MD_TEXT_ENTITY ||
			 !lec_mdsite__entity_decode(&r->scratch, s, n))
			lec__buf_putn(&r->scratch, s, n);
	}
	if (r->scratch.oom)
		r->out->oom = 1;
}

/* ` name="value"` with the attribute HTML-escaped; nothing when empty. */
static void put_text_attr(struct render *r, const char *name,
			  const MD_ATTRIBUTE *a)
{
	if (a->size == 0)
		return;
	flatten(r, a);
	lec__buf_putc(r->out, ' ');
	put(r, name);
	put(r, "=\"");
	lec_mdsite__html_escape(r->out, r->scratch.ptr, r->scratch.len);
	lec__buf_putc(r->out, '"');
}

static void put_url_attr(struct render *r, const MD_ATTRIBUTE *a, int rewrite)
{
	struct lec__buf url = LEC__BUF_INIT;

	flatten(r, a);
	if (rewrite)
		lec_mdsite__rewrite_href(&url, r->scratch.ptr, r->scratch.len,
					 r->links);
	else
		lec__buf_putn(&url, r->scratch.ptr, r->scratch.len);
	lec_mdsite__url_escape(r->out, url.ptr, url.len);
	if (url.oom)
		r->out->oom = 1;
	lec__buf_dispose(&url);
}

/* Headings ---------------------------------------------------------------- */

static void heading_open(struct render *r, unsigned level)
{
	r->heading_level = level;
	r->heading.len = 0;
	r->heading_text.len = 0;
	r->out = &r->heading;
}

/* The heading's text with whitespace runs made one space, trimmed. */
static char *collapsed_text(const struct lec__buf *text)
{
	struct lec__buf t = LEC__BUF_INIT;
	size_t i;
	int space = 0;

	for (i = 0; i < text->len; i++) {
		char c = text->ptr[i];

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			space = t.len > 0;
			continue;
		}
		if (space)
			lec__buf_putc(&t, ' ');
		space = 0;
		lec__buf_putc(&t, c);
	}
	return lec__buf_take(&t);
}

static int heading_close(struct render *r)
{
	char tag[4] = { 'h', (char)('0' + r->heading_level), '\0', '\0' };
	int error;

	r->out = r->body;
	r->id.len = 0;
	lec_mdsite__slugify(&r->id, r->heading_text.ptr, r->heading_text.len);
	if ((error = lec_mdsite__unique_id(&r->ids, &r->id)) < 0)
		return error;
	put(r, "<");
	put(r, tag);
	put(r, " id=\"");
	lec__buf_putn(r->out, r->id.ptr, r->id.len);
	put(r, "\">");
	lec__buf_putn(r->out, r->heading.ptr, r->heading.len);
	put(r, "<a class=\"headerlink\" href=\"#");
	lec__buf_putn(r->out, r->id.ptr, r->id.len);
	put(r, "\" title=\"Link to this heading\">\xC2\xB6</a></");
	put(r, tag);
	put(r, ">\n");
	if (r->heading_level == 1 && r->title == NULL &&
	    (r->title = collapsed_text(&r->heading_text)) == NULL)
		return LEC_ENOMEM;
	r->heading_level = 0;
	return LEC_OK;
}

/* Blocks ------------------------------------------------------------------ */

static void put_cell(struct render *r, const char *tag,
		     const MD_BLOCK_TD_DETAIL *d)
{
	static const char *const align[] = {
		[MD_ALIGN_LEFT] = "left",
		[MD_ALIGN_CENTER] = "center",
		[MD_ALIGN_RIGHT] = "right",
	};

	put(r, tag);
	if (d->align != MD_ALIGN_DEFAULT) {
		put(r, " style=\"text-align: ");
		put(r, align[d->align]);
		put(r, "\"");
	}
	put(r, ">");
}

static void put_list_item(struct render *r, const MD_BLOCK_LI_DETAIL *d)
{
	if (!d->is_task) {
		put(r, "<li>");
		return;
	}
	put(r, "<li class=\"task-list-item\"><input type=\"checkbox\" "
	       "class=\"task-list-item-checkbox\" disabled");
	if (d->task_mark == 'x' || d->task_mark == 'X')
		put(r, " checked");
	put(r, "> ");
}

static void put_ordered_list(struct render *r, const MD_BLOCK_OL_DETAIL *d)
{
	char start[32];

	if (d->start == 1) {
		put(r, "<ol>\n");
		return;
	}
	snprintf(start, sizeof(start), "<ol start=\"%u\">\n", d->start);
	put(r, start);
}

static void put_code_block(struct render *r, const MD_BLOCK_CODE_DETAIL *d)
{
	put(r, "<pre><code");
	if (d->lang.size > 0) {
		flatten(r, &d->lang);
		put(r, " class=\"language-");
		lec_mdsite__html_escape(r->out, r->scratch.ptr,
					r->scratch.len);
		put(r, "\"");
	}
	put(r, ">");
}

static int enter_block(MD_BLOCKTYPE type, void *detail, void *userdata)
{
	struct render *r = userdata;

	switch (type) {
	case MD_BLOCK_DOC:
	case MD_BLOCK_HTML:
		break;
	case MD_BLOCK_QUOTE:
		put(r, "<blockquote>\n");
		break;
	case MD_BLOCK_UL:
		put(r, "<ul>\n");
		break;
	case MD_BLOCK_OL:
		put_ordered_list(r, detail);
		break;
	case MD_BLOCK_LI:
		put_list_item(r, detail);
		break;
	case MD_BLOCK_HR:
		put(r, "<hr>\n");
		break;
	case MD_BLOCK_H:
		heading_open(r, ((const MD_BLOCK_H_DETAIL *)detail)->level);
		break;
	case MD_BLOCK_CODE:
		put_code_block(r, detail);
		break;
	case MD_BLOCK_P:
		put(r, "<p>");
		break;
	case MD_BLOCK_TABLE:
		put(r, "<table>\n");
		break;
	case MD_BLOCK_THEAD:
		put(r, "<thead>\n");
		break;
	case MD_BLOCK_TBODY:
		put(r, "<tbody>\n");
		break;
	case MD_BLOCK_TR:
		put(r, "<tr>\n");
		break;
	case MD_BLOCK_TH:
		put_cell(r, "<th", detail);
		break;
	case MD_BLOCK_TD:
		put_cell(r, "<td", detail);
		break;
	}
	return r->out->oom ? -1 : 0;
}

static int leave_block(MD_BLOCKTYPE type, void *detail, void *userdata)
{
	static const char *const closing[] = {
		[MD_BLOCK_QUOTE] = "</blockquote>\n",
		[MD_BLOCK_UL] = "</ul>\n",
		[MD_BLOCK_OL] = "</ol>\n",
		[MD_BLOCK_LI] = "</li>\n",
		[MD_BLOCK_CODE] = "</code></pre>\n",
		[MD_BLOCK_P] = "</p>\n",
		[MD_BLOCK_TABLE] = "</table>\n",
		[MD_BLOCK_THEAD] = "</thead>\n",
		[MD_BLOCK_TBODY] = "</tbody>\n",
		[MD_BLOCK_TR] = "</tr>\n",
		[MD_BLOCK_TH] = "</th>\n",
		[MD_BLOCK_TD] = "</td>\n",
	};
	struct render *r = userdata;

	(void)detail;
	if (type == MD_BLOCK_H) {
		if ((r->error = heading_close(r)) < 0)
			return -1;
	} else if ((size_t)type < sizeof(closing) / sizeof(closing[0]) &&
		   closing[type] != NULL) {
		put(r, closing[type]);
	}
	return r->out->oom ? -1 : 0;
}

/* Spans ------------------------------------------------------------------- */

static int enter_span(MD_SPANTYPE type, void *detail, void *userdata)
{
	struct render *r = userdata;

	/* Inside an image only the alt text is written, as plain text. */
	if (r->image_depth > 0) {
		r->image_depth += type == MD_SPAN_IMG;
		return 0;
	}
	switch (type) {
	case MD_SPAN_EM:
		put(r, "<em>");
		break;
	case MD_SPAN_STRONG:
		put(r, "<strong>");
		break;
	case MD_SPAN_U:
		put(r, "<u>");
		break;
	case MD_SPAN_DEL:
		put(r, "<del>");
		break;
	case MD_SPAN_CODE:
		put(r, "<code>");
		break;
	case MD_SPAN_A: {
		const MD_SPAN_A_DETAIL *a = detail;

		put(r, "<a href=\"");
		put_url_attr(r, &a->href, 1);
		put(r, "\"");
		put_text_attr(r, "title", &a->title);
		put(r, ">");
		break;
	}
	case MD_SPAN_IMG:
		put(r, "<img src=\"");
		put_url_attr(r, &((const MD_SPAN_IMG_DETAIL *)detail)->src, 0);
		put(r, "\" alt=\"");
		r->image_depth = 1;
		break;
	case MD_SPAN_LATEXMATH:
	case MD_SPAN_LATEXMATH_DISPLAY:
	case MD_SPAN_WIKILINK:
		break; /* extensions not enabled */
	}
	return r->out->oom ? -1 : 0;
}

static int leave_span(MD_SPANTYPE type, void *detail, void *userdata)
{
	struct render *r = userdata;

	if (r->image_depth > 0) {
		const MD_SPAN_IMG_DETAIL *img = detail;

		r->image_depth -= type == MD_SPAN_IMG;
		if (r->image_depth == 0) {
			put(r, "\"");
			put_text_attr(r, "title", &img->title);
			put(r, ">");
		}
		return r->out->oom ? -1 : 0;
	}
	switch (type) {
	case MD_SPAN_EM:
		put(r, "</em>");
		break;
	case MD_SPAN_STRONG:
		put(r, "</strong>");
		break;
	case MD_SPAN_U:
		put(r, "</u>");
		break;
	case MD_SPAN_DEL:
		put(r, "</del>");
		break;
	case MD_SPAN_CODE:
		put(r, "</code>");
		break;
	case MD_SPAN_A:
		put(r, "</a>");
		break;
	case MD_SPAN_IMG:
	case MD_SPAN_LATEXMATH:
	case MD_SPAN_LATEXMATH_DISPLAY:
	case MD_SPAN_WIKILINK:
		break;
	}
	return r->out->oom ? -1 : 0;
}

/* Text -------------------------------------------------------------------- */

/* The heading's plain text, as a reader sees it (no markup, no alt). */
static void collect_heading_text(struct render *r, MD_TEXTTYPE type,
				 const char *text, size_t size)
{
	struct lec__buf *t = &r->heading_text;

	switch (type) {
	case MD_TEXT_NORMAL:
	case MD_TEXT_CODE:
	case MD_TEXT_LATEXMATH:
		lec__buf_putn(t, text, size);
		break;
	case MD_TEXT_NULLCHAR:
		lec__buf_puts(t, "\xEF\xBF\xBD");
		break;
	case MD_TEXT_BR:
	case MD_TEXT_SOFTBR:
		lec__buf_putc(t, ' ');
		break;
	case MD_TEXT_ENTITY:
		if (!lec_mdsite__entity_decode(t, text, size))
			lec__buf_putn(t, text, size);
		break;
	case MD_TEXT_HTML:
		break;
	}
	if (t->oom)
		r->out->oom = 1;
}

static int on_text(MD_TEXTTYPE type, const MD_CHAR *text, MD_SIZE size,
		   void *userdata)
{
	struct render *r = userdata;

	if (r->heading_level > 0 && r->image_depth == 0)
		collect_heading_text(r, type, text, size);
	switch (type) {
	case MD_TEXT_NULLCHAR:
		put(r, "\xEF\xBF\xBD");
		break;
	case MD_TEXT_BR:
		put(r, r->image_depth ? " " : "<br>\n");
		break;
	case MD_TEXT_SOFTBR:
		put(r, r->image_depth ? " " : "\n");
		break;
	case MD_TEXT_HTML:
		if (r->image_depth)
			lec_mdsite__html_escape(r->out, text, size);
		else
			lec__buf_putn(r->out, text, size);
		break;
	case MD_TEXT_ENTITY:
		/* Decoded as md4c-html does: an unknown name (or an invalid
		 * code point, which becomes U+FFFD) must not reach the page
		 * as an entity, or the HTML is not valid. */
		r->scratch.len = 0;
		if (lec_mdsite__entity_decode(&r->scratch, text, size))
			lec_mdsite__html_escape(r->out, r->scratch.ptr,
						r->scratch.len);
		else
			lec_mdsite__html_escape(r->out, text, size);
		if (r->scratch.oom)
			r->out->oom = 1;
		break;
	case MD_TEXT_NORMAL:
	case MD_TEXT_CODE:
	case MD_TEXT_LATEXMATH:
		lec_mdsite__html_escape(r->out, text, size);
		break;
	}
	return r->out->oom ? -1 : 0;
}

int lec_mdsite__render(const char *md, size_t n,
		       const struct lec_mdsite__links *links,
		       struct lec__buf *body, char **title)
{
	MD_PARSER parser;
	struct render r;
	int rc, error = LEC_OK;

	*title = NULL;
	memset(&parser, 0, sizeof(parser));
	parser.flags = RENDER_FLAGS;
	parser.enter_block = enter_block;
	parser.leave_block = leave_block;
	parser.enter_span = enter_span;
	parser.leave_span = leave_span;
	parser.text = on_text;
	memset(&r, 0, sizeof(r));
	r.body = r.out = body;
	r.links = links;
	rc = md_parse(md, (MD_SIZE)n, &parser, &r);
	if (r.error < 0)
		error = r.error;
	else if (body->oom || r.out->oom)
		error = lec__error_oom();
	else if (rc != 0)
		error = lec__error(LEC_ERROR, "the Markdown parser failed (%d)",
				   rc);
	if (error == LEC_OK)
		*title = r.title;
	else
		lec__free(r.title);
	lec__buf_dispose(&r.heading);
	lec__buf_dispose(&r.heading_text);
	lec__buf_dispose(&r.scratch);
	lec__buf_dispose(&r.id);
	lec_mdsite__map_dispose(&r.ids);
	return error;
}
