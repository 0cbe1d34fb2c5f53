/*
 * The embed API's view of a published page (lectern/embed.h): parse the
 * HTML, find the node a request names, make its links absolute and hand
 * back its outer HTML. The rules are the service's (behaviour notes §3.6):
 * v2's id / slug / docutils-id / module lookups, the heading-text fallback
 * and the <dt> and heading special cases; v3's [id="fragment"] and main
 * node. Where the service relied on Sphinx's JSON builder (the page body
 * and its local table of contents), the body is the page's main node and
 * the table of contents is read off its headings (docs/embed.md).
 *
 * libxml2's HTML parser builds the tree (it recovers from any markup); the
 * nodes found are edited in place (links rewritten, other glossary terms
 * removed) on a tree that belongs to this call only.
 */
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <unistr.h>

#include "html_internal.h"
#include "internal.h"
#include "lectern/embed.h"

/* Parser options: recover from broken markup silently, never fetch. */
#define EMBED_PARSE_OPTIONS                                                  \
	(HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET |      \
	 HTML_PARSE_RECOVER)
/* U+FFFD REPLACEMENT CHARACTER in UTF-8. */
#define EMBED_FFFD "\xEF\xBF\xBD"
/* The identifier forms a section is tried as (notes §3.6). */
#define EMBED_ID_FORMS 4
/* Deepest element the tree walks visit: real pages nest a few dozen deep;
 * a hostile page nested a million deep must not exhaust the stack. */
#define EMBED_MAX_DEPTH 256

/* A run of sibling nodes returned as one content string (first == last for
 * a single element). */
struct embed_range {
	xmlNode *first;
	xmlNode *last;
};

/* Tree helpers ------------------------------------------------------------ */

int lec__html_is(const xmlNode *n, const char *name)
{
	return n && n->type == XML_ELEMENT_NODE &&
	       xmlStrcasecmp(n->name, (const xmlChar *)name) == 0;
}

const char *lec__html_attr(const xmlNode *n, const char *name)
{
	const xmlAttr *a;

	if (n == NULL || n->type != XML_ELEMENT_NODE)
		return NULL;
	for (a = n->properties; a; a = a->next)
		if (xmlStrcasecmp(a->name, (const xmlChar *)name) == 0)
			return a->children && a->children->content
				       ? (const char *)a->children->content
				       : "";
	return NULL;
}

static int has_class(const xmlNode *n, const char *cls)
{
	const char *v = lec__html_attr(n, "class");
	size_t len = strlen(cls);

	while (v && *v) {
		size_t tok;

		v += strspn(v, " \t\r\n\f");
		tok = strcspn(v, " \t\r\n\f");
		if (tok == len && strncmp(v, cls, len) == 0)
			return 1;
		v += tok;
	}
	return 0;
}

/* 1..6 for <h1>..<h6>, else 0. */
static int heading_rank(const xmlNode *n)
{
	if (n == NULL || n->type != XML_ELEMENT_NODE ||
	    (n->name[0] != 'h' && n->name[0] != 'H') || n->name[1] < '1' ||
	    n->name[1] > '6' || n->name[2] != '\0')
		return 0;
	return n->name[1] - '0';
}

/* The first descendant of root (pre-order, down to depth levels) that
 * test accepts. */
static xmlNode *find_below(xmlNode *root,
			   int (*test)(const xmlNode *, const void *),
			   const void *arg, int depth)
{
	xmlNode *c, *hit;

	for (c = root ? root->children : NULL; c && depth > 0; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (test(c, arg))
			return c;
		if ((hit = find_below(c, test, arg, depth - 1)) != NULL)
			return hit;
	}
	return NULL;
}

static xmlNode *find_first(xmlNode *root,
			   int (*test)(const xmlNode *, const void *),
			   const void *arg)
{
	return find_below(root, test, arg, EMBED_MAX_DEPTH);
}

static int test_id(const xmlNode *n, const void *id)
{
	const char *v = lec__html_attr(n, "id");

	return v && strcmp(v, id) == 0;
}

static int test_tag(const xmlNode *n, const void *name)
{
	return lec__html_is(n, name);
}

static int test_role_main(const xmlNode *n, const void *unused)
{
	const char *v = lec__html_attr(n, "role");

	(void)unused;
	return v && strcmp(v, "main") == 0;
}

/* The page's main content: [role=main], <main>, the parent of the first
 * <h1>, and for v2 (which read a whole body) finally <body>. */
xmlNode *lec__html_main_node(xmlDoc *doc, int body_fallback)
{
	xmlNode *root = (xmlNode *)doc;
	xmlNode *n = find_first(root, test_role_main, NULL);

	if (n == NULL)
		n = find_first(root, test_tag, "main");
	if (n == NULL && (n = find_first(root, test_tag, "h1")) != NULL &&
	    (n = n->parent)->type != XML_ELEMENT_NODE)
		n = NULL;
	if (n == NULL && body_fallback)
		n = find_first(root, test_tag, "body");
	if (n == NULL && body_fallback)
		n = xmlDocGetRootElement(doc);
	return n;
}

/* Text -------------------------------------------------------------------- */

/* The text of n, without permalink markers ("¶" in a.headerlink). */
static void put_text(struct lec__buf *b, const xmlNode *n, int depth)
{
	const xmlNode *c;

	for (c = n->children; c && depth > 0; c = c->next) {
		if (c->type == XML_TEXT_NODE ||
		    c->type == XML_CDATA_SECTION_NODE)
			lec__buf_puts(b, (const char *)c->content);
		else if (c->type == XML_ELEMENT_NODE &&
			 !(lec__html_is(c, "a") &&
			   has_class(c, "headerlink")) &&
			 !lec__html_is(c, "script") &&
			 !lec__html_is(c, "style"))
			put_text(b, c, depth - 1);
	}
}

/* Collapse runs of white space to one space and trim, in place. */
static void squeeze_space(char *s)
{
	char *w = s, *start = s;
	int pending = 0;

	for (; *s; s++) {
		if (strchr(" \t\r\n\f", *s)) {
			pending = w != start;
			continue;
		}
		if (pending) {
			*w++ = ' ';
			pending = 0;
		}
		*w++ = *s;
	}
	*w = '\0';
}

/* The element's text, white space squeezed; owned by the caller. */
static char *text_of(const xmlNode *n)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *s;

	lec__buf_puts(&b, "");
	put_text(&b, n, EMBED_MAX_DEPTH);
	if ((s = lec__buf_take(&b)) == NULL)
		return NULL;
	squeeze_space(s);
	return s;
}

/* Case-insensitive (ASCII) substring test. */
static int contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return 1;
	return n == 0;
}

/* Identifier forms ------------------------------------------------------- */

static int ascii_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

static char ascii_lower(char c)
{
	return (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
}

/* Django's slugify on ASCII: lowercase; keep letters, digits, '_', '-'
 * and spaces; runs of spaces and '-' become one '-'; '-' and '_' trimmed
 * at both ends. Other characters (non-ASCII included) are dropped. */
static char *slugify(const char *s)
{
	char *out = lec__malloc(strlen(s) + 1), *w = out;
	int dash = 0;

	if (out == NULL)
		return NULL;
	for (; *s; s++) {
		if (*s == ' ' || *s == '-' || *s == '\t' || *s == '\n') {
			dash = 1;
			continue;
		}
		if (!ascii_alnum(*s) && *s != '_')
			continue;
		if (dash && w > out)
			*w++ = '-';
		dash = 0;
		*w++ = ascii_lower(*s);
	}
	while (w > out && w[-1] == '_')
		w--;
	*w = '\0';
	while (out[0] == '_' || out[0] == '-')
		memmove(out, out + 1, strlen(out));
	return out;
}

/* docutils' make_id on ASCII: lowercase, runs of anything but [a-z0-9]
 * become one '-', then leading digits and '-' and trailing '-' go. */
static char *make_id(const char *s)
{
	char *out = lec__malloc(strlen(s) + 1), *w = out, *start;
	int dash = 0;

	if (out == NULL)
		return NULL;
	for (; *s; s++) {
		if (!ascii_alnum(*s)) {
			dash = 1;
			continue;
		}
		if (dash && w > out)
			*w++ = '-';
		dash = 0;
		*w++ = ascii_lower(*s);
	}
	*w = '\0';
	start = out + strspn(out, "-0123456789");
	memmove(out, start, strlen(start) + 1);
	return out;
}

/* The ids a v2 section is tried as, in order (notes §3.6); forms[i] are
 * owned by the caller. LEC_OK or LEC_ENOMEM. */
static int id_forms(const char *section, char *forms[EMBED_ID_FORMS])
{
	struct lec__buf module = LEC__BUF_INIT;

	lec__buf_printf(&module, "module-%s", section);
	forms[0] = lec__strdup(section);
	forms[1] = slugify(section);
	forms[2] = make_id(section);
	forms[3] = lec__buf_take(&module);
	return forms[0] && forms[1] && forms[2] && forms[3] ? LEC_OK
							    : lec__error_oom();
}

/* Links and serialisation ------------------------------------------------ */

/* Rewrite one attribute of n to its absolute form. */
static int absolutize_attr(xmlNode *n, const char *name, const char *url)
{
	const char *v = lec__html_attr(n, name);
	char *abs = NULL;
	int rc;

	if (v == NULL || *v == '\0')
		return LEC_OK;
	rc = lec_embed_absolute_url(url, v, &abs);
	if (rc == LEC_OK &&
	    xmlSetProp(n, (const xmlChar *)name, (const xmlChar *)abs) == NULL)
		rc = lec__error_oom();
	lec__free(abs);
	return rc;
}

/* Make every link and image under (and at) n absolute against url. */
static int absolutize(xmlNode *n, const char *url, int depth)
{
	xmlNode *c;
	int rc = LEC_OK;

	if (n->type != XML_ELEMENT_NODE || depth <= 0)
		return LEC_OK;
	if (lec__html_is(n, "a"))
		rc = absolutize_attr(n, "href", url);
	else if (lec__html_is(n, "img"))
		rc = absolutize_attr(n, "src", url);
	for (c = n->children; c && rc == LEC_OK; c = c->next)
		rc = absolutize(c, url, depth - 1);
	return rc;
}

/* The outer HTML of each node of the range, links made absolute; owned by
 * the caller. */
static int range_html(xmlDoc *doc, const struct embed_range *r,
		      const char *url, char **out)
{
	struct lec__buf b = LEC__BUF_INIT;
	xmlNode *n;
	int rc = LEC_OK;

	*out = NULL;
	lec__buf_puts(&b, "");
	for (n = r->first; n && rc == LEC_OK; n = n->next) {
		xmlOutputBuffer *o;

		if ((rc = absolutize(n, url, EMBED_MAX_DEPTH)) != LEC_OK)
			break;
		if ((o = xmlAllocOutputBuffer(NULL)) == NULL) {
			rc = lec__error_oom();
			break;
		}
		htmlNodeDumpFormatOutput(o, doc, n, "UTF-8", 0);
		xmlOutputBufferFlush(o);
		lec__buf_printf(&b, "%.*s", (int)xmlOutputBufferGetSize(o),
				(const char *)xmlOutputBufferGetContent(o));
		xmlOutputBufferClose(o);
		if (n == r->last)
			break;
	}
	if (rc != LEC_OK) {
		lec__buf_dispose(&b);
		return rc;
	}
	*out = lec__buf_take(&b);
	return *out ? LEC_OK : lec__error_oom();
}

/* Parsing ----------------------------------------------------------------- */

/* A copy of a page that is not valid UTF-8 with each invalid sequence
 * as U+FFFD, as a browser shows it: libxml2, told the page is UTF-8,
 * would pass its bytes on into the JSON answer. NULL when the page is
 * valid or out of memory (*oom). Owned by the caller. */
static char *utf8_repaired(const char *html, size_t len, size_t *out_len,
			   int *oom)
{
	const uint8_t *s = (const uint8_t *)html, *end = s + len;
	struct lec__buf b = LEC__BUF_INIT;
	ucs4_t uc;
	int n;

	*oom = 0;
	if (u8_check(s, len) == NULL)
		return NULL;
	while (s < end) {
		n = u8_mbtouc(&uc, s, (size_t)(end - s));
		if (uc == 0xFFFD && !(n == 3 && memcmp(s, EMBED_FFFD, 3) == 0))
			lec__buf_puts(&b, EMBED_FFFD);
		else
			lec__buf_putn(&b, (const char *)s, (size_t)n);
		s += n;
	}
	*out_len = b.len;
	if ((*oom = b.oom) != 0)
		lec__buf_dispose(&b);
	return lec__buf_take(&b);
}

/* libxml2's generic error channel, which HTML_PARSE_NOERROR does not
 * cover (a page in a broken encoding would print on stderr). */
static void ignore_libxml_message(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

int lec__html_parse(const char *html, size_t len, const char *url,
		    xmlDoc **doc)
{
	size_t fixed_len = 0;
	char *fixed;
	int oom;

	xmlSetGenericErrorFunc(NULL, ignore_libxml_message);
	if (len > LEC_EMBED_PAGE_MAX)
		return lec__error(LEC_EINVALID, "page larger than %d bytes",
				  LEC_EMBED_PAGE_MAX);
	if ((fixed = utf8_repaired(html, len, &fixed_len, &oom)) != NULL) {
		html = fixed;
		len = fixed_len;
	} else if (oom) {
		return lec__error_oom();
	}
	*doc = htmlReadMemory(html, (int)len, url, "UTF-8",
			      EMBED_PARSE_OPTIONS);
	lec__free(fixed);
	/* An empty page parses to nothing; embed finds nothing in it. */
	if (*doc == NULL)
		*doc = htmlNewDocNoDtD(NULL, NULL);
	return *doc ? LEC_OK : lec__error_oom();
}

/* Read a published page into memory (owned by the caller): the start of
 * both lec_embed_*_file calls, which check their arguments here first
 * (has_out: whether the caller was given somewhere to put its answer). */
static int read_page(const char *path, int has_out, char **html, size_t *len)
{
	struct stat st;
	ssize_t got = 0;
	size_t done = 0;
	int fd, rc = LEC_OK;

	lec_error_clear();
	*html = NULL;
	if (!has_out)
		return lec__error(LEC_EINVALID, "no output");
	if (path == NULL)
		return lec__error(LEC_EINVALID, "no page");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > LEC_EMBED_PAGE_MAX) {
		rc = lec__error(LEC_ENOTFOUND, "no page at %s", path);
		goto done;
	}
	if ((*html = lec__malloc((size_t)st.st_size + 1)) == NULL) {
		rc = lec__error_oom();
		goto done;
	}
	while (done < (size_t)st.st_size &&
	       (got = read(fd, *html + done, (size_t)st.st_size - done)) > 0)
		done += (size_t)got;
	if (got < 0) {
		rc = lec__error(LEC_EIO, "cannot read %s", path);
		goto done;
	}
	(*html)[done] = '\0';
	*len = done;
done:
	if (fd >= 0)
		close(fd);
	if (rc != LEC_OK) {
		lec__free(*html);
		*html = NULL;
	}
	return rc;
}

/* v2 ---------------------------------------------------------------------- */

/* The headings of a page body, in document order. */
struct heading_list {
	xmlNode **items;
	size_t len;
	size_t cap;
};

static int collect_headings(xmlNode *root, struct heading_list *l,
			    int depth)
{
	xmlNode *c;

	for (c = root->children; c && depth > 0; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (heading_rank(c) > 0) {
			if (lec__grow((void **)&l->items, &l->cap, l->len,
				      sizeof(*l->items), 16) < 0)
				return LEC_ENOMEM;
			l->items[l->len++] = c;
		} else if (collect_headings(c, l, depth - 1) != LEC_OK) {
			return LEC_ENOMEM;
		}
	}
	return LEC_OK;
}

static int is_sectioning(const xmlNode *n)
{
	return lec__html_is(n, "section") || has_class(n, "section");
}

static xmlNode *next_element(xmlNode *n)
{
	for (n = n->next; n && n->type != XML_ELEMENT_NODE; n = n->next)
		;
	return n;
}

/* A heading's section: its sectioning parent (Sphinx), or in flat markup
 * (Markdown, MkDocs) the heading and its siblings up to the next heading
 * of the same or a higher rank. */
static struct embed_range heading_section(xmlNode *h)
{
	struct embed_range r = { h, h };
	int rank = heading_rank(h), k;
	xmlNode *n;

	if (is_sectioning(h->parent)) {
		r.first = r.last = h->parent;
		return r;
	}
	for (n = h->next; n; n = n->next) {
		if ((k = heading_rank(n)) > 0 && k <= rank)
			break;
		r.last = n;
	}
	return r;
}

/* What v2 returns for the node a section named (notes §3.6): a lone <dt>
 * brings its <dd> (glossary, citation) or its whole <dl>; a heading its
 * section; a <span> target its parent. */
static struct embed_range v2_range(xmlNode *hit)
{
	struct embed_range r = { hit, hit };
	xmlNode *p = hit->parent, *dd;

	if (lec__html_is(hit, "dt") && lec__html_is(p, "dl")) {
		if (has_class(p, "glossary") || has_class(p, "citation")) {
			if ((dd = next_element(hit)) != NULL &&
			    lec__html_is(dd, "dd"))
				r.first = r.last = dd;
		} else {
			r.first = r.last = p;
		}
	} else if (heading_rank(hit) > 0) {
		r = heading_section(hit);
	} else if (lec__html_is(hit, "span") && p &&
		   p->type == XML_ELEMENT_NODE) {
		r.first = r.last = p;
	}
	return r;
}

/* The table of contents: every heading with text, the page title (an
 * <h1> first) as "#", the others as "#<id>" of the heading or of its
 * section. */
static int v2_headers(const struct heading_list *hl, struct lec_embed_v2 *e)
{
	size_t i;

	if (hl->len == 0)
		return LEC_OK;
	if ((e->headers = lec__calloc(hl->len, sizeof(*e->headers))) == NULL)
		return lec__error_oom();
	for (i = 0; i < hl->len; i++) {
		xmlNode *h = hl->items[i];
		struct lec_embed_header *out = &e->headers[e->headers_len];
		const char *id = lec__html_attr(h, "id");
		struct lec__buf anchor = LEC__BUF_INIT;

		if ((out->title = text_of(h)) == NULL)
			return LEC_ENOMEM;
		if (out->title[0] == '\0') {
			lec__free(out->title);
			out->title = NULL;
			continue;
		}
		if ((id == NULL || *id == '\0') && is_sectioning(h->parent))
			id = lec__html_attr(h->parent, "id");
		if (i == 0 && heading_rank(h) == 1)
			lec__buf_puts(&anchor, "#");
		else if (id && *id)
			lec__buf_printf(&anchor, "#%s", id);
		e->headers_len++;
		if (anchor.len == 0)
			continue;
		if ((out->anchor = lec__buf_take(&anchor)) == NULL)
			return LEC_ENOMEM;
	}
	return LEC_OK;
}

static int add_content(struct lec_embed_v2 *e, xmlDoc *doc,
		       const struct embed_range *r, const char *url)
{
	char *html = NULL;
	int rc = range_html(doc, r, url, &html);

	if (rc == LEC_OK)
		e->content[e->content_len++] = html;
	return rc;
}

/* The section's node by id, in the forms the service tried. */
static int find_section_by_id(xmlNode *body, const char *section,
			      xmlNode **hit)
{
	char *forms[EMBED_ID_FORMS] = { NULL };
	size_t i;
	int rc = LEC_OK;

	*hit = NULL;
	if ((rc = id_forms(section, forms)) < 0)
		goto done;
	for (i = 0; i < EMBED_ID_FORMS && *hit == NULL; i++)
		if (forms[i][0] != '\0')
			*hit = find_first(body, test_id, forms[i]);
done:
	for (i = 0; i < EMBED_ID_FORMS; i++)
		lec__free(forms[i]);
	return rc;
}

/* Fill content: the section by id, else every heading whose text contains
 * the section, each as its section. */
static int v2_content(xmlDoc *doc, xmlNode *body,
		      const struct heading_list *hl, const char *url,
		      struct lec_embed_v2 *e)
{
	struct embed_range r;
	xmlNode *hit = NULL, *seen_first = NULL;
	size_t i;
	int rc;

	if ((e->content = lec__calloc(hl->len + 1, sizeof(char *))) == NULL)
		return lec__error_oom();
	if ((rc = find_section_by_id(body, e->section, &hit)) != LEC_OK)
		return rc;
	if (hit) {
		r = v2_range(hit);
		return add_content(e, doc, &r, url);
	}
	for (i = 0; i < hl->len && rc == LEC_OK; i++) {
		char *text = text_of(hl->items[i]);

		if (text == NULL)
			return LEC_ENOMEM;
		if (text[0] && contains_nocase(text, e->section)) {
			r = v2_range(hl->items[i]);
			if (r.first != seen_first)
				rc = add_content(e, doc, &r, url);
			seen_first = r.first;
		}
		lec__free(text);
	}
	return rc;
}

static int embed_v2(xmlDoc *doc, const char *url, const char *section,
		    struct lec_embed_v2 *e)
{
	struct heading_list hl = { NULL, 0, 0 };
	xmlNode *body = lec__html_main_node(doc, 1);
	char *p;
	int rc = LEC_OK;

	if (body == NULL)
		goto done;
	if ((rc = collect_headings(body, &hl, EMBED_MAX_DEPTH)) != LEC_OK ||
	    (rc = v2_headers(&hl, e)) != LEC_OK)
		goto done;
	if (section && *section)
		e->section = lec__strdup(section);
	else if (e->headers_len > 0) {
		e->section = lec__strdup(e->headers[0].title);
		for (p = e->section; p && *p; p++)
			*p = ascii_lower(*p);
	} else
		goto done;
	if (e->section == NULL) {
		rc = lec__error_oom();
		goto done;
	}
	rc = v2_content(doc, body, &hl, url, e);
done:
	lec__free(hl.items);
	return rc;
}

/* The checks both lec_embed_*_html calls start with (has_out: whether the
 * caller was given somewhere to put its answer). */
static int page_args(const char *html, const char *page_url, int has_out)
{
	lec_error_clear();
	if (!has_out)
		return lec__error(LEC_EINVALID, "no output");
	if (html == NULL || page_url == NULL)
		return lec__error(LEC_EINVALID, "no page");
	return LEC_OK;
}

int lec_embed_v2_html(const char *html, size_t len, const char *page_url,
		      const char *section, struct lec_embed_v2 **out)
{
	struct lec_embed_v2 *e = NULL;
	xmlDoc *doc = NULL;
	int rc;

	if (out != NULL)
		*out = NULL;
	if ((rc = page_args(html, page_url, out != NULL)) != LEC_OK)
		return rc;
	if (section && strlen(section) > LEC_EMBED_SECTION_MAX)
		return lec__error_too_long("section", LEC_EMBED_SECTION_MAX);
	if ((rc = lec__html_parse(html, len, page_url, &doc)) != LEC_OK)
		goto done;
	if ((e = lec__calloc(1, sizeof(*e))) == NULL) {
		rc = lec__error_oom();
		goto done;
	}
	if ((rc = embed_v2(doc, page_url, section, e)) == LEC_OK) {
		*out = e;
		e = NULL;
	}
done:
	lec_embed_v2_free(e);
	if (doc)
		xmlFreeDoc(doc);
	return rc;
}

int lec_embed_v2_file(const char *path, const char *page_url,
		      const char *section, struct lec_embed_v2 **out)
{
	char *html = NULL;
	size_t len = 0;
	int rc;

	if (out != NULL)
		*out = NULL;
	if ((rc = read_page(path, out != NULL, &html, &len)) == LEC_OK)
		rc = lec_embed_v2_html(html, len, page_url, section, out);
	lec__free(html);
	return rc;
}

static const size_t header_texts[] = {
	offsetof(struct lec_embed_header, title),
	offsetof(struct lec_embed_header, anchor),
};

void lec_embed_v2_free(struct lec_embed_v2 *embed)
{
	if (embed == NULL)
		return;
	lec__strings_free(embed->content, embed->content_len);
	LEC__ITEMS_TEXTS_FREE(embed->headers, embed->headers_len, header_texts);
	lec__free(embed->section);
	lec__free(embed);
}

/* v3 ---------------------------------------------------------------------- */

/* Longest part of a maincontent selector (tag, class, id, attribute). */
#define EMBED_SELECTOR_PART_MAX 128

/* A simple CSS selector: tag? (.class | #id)? ([attr] | [attr=value])? */
struct simple_selector {
	char tag[EMBED_SELECTOR_PART_MAX];
	char cls[EMBED_SELECTOR_PART_MAX];
	char id[EMBED_SELECTOR_PART_MAX];
	char attr[EMBED_SELECTOR_PART_MAX];
	char value[EMBED_SELECTOR_PART_MAX];
	int has_value;
};

/* Copy the run of characters of s not in stop into out; its length, or
 * -1 when it does not fit. */
static int take_part(const char **s, const char *stop, char *out)
{
	size_t n = strcspn(*s, stop);

	if (n >= EMBED_SELECTOR_PART_MAX)
		return -1;
	memcpy(out, *s, n);
	out[n] = '\0';
	*s += n;
	return (int)n;
}

/* "[attr]" or "[attr=value]" (value optionally quoted) at *s. */
static int parse_attr_part(const char **s, struct simple_selector *sel)
{
	const char *p = *s + 1;
	char quote;

	if (take_part(&p, "=]\"' \t", sel->attr) <= 0)
		return -1;
	if (*p == '=') {
		p++;
		quote = (*p == '"' || *p == '\'') ? *p++ : '\0';
		if (take_part(&p, quote == '"' ? "\"" : quote ? "'" : "]",
			      sel->value) < 0)
			return -1;
		if (quote && *p++ != quote)
			return -1;
		sel->has_value = 1;
	}
	if (*p != ']')
		return -1;
	*s = p + 1;
	return 0;
}

static int parse_selector(const char *s, struct simple_selector *sel)
{
	static const char stop[] = ".#[ \t>+~:,*()";

	memset(sel, 0, sizeof(*sel));
	if (take_part(&s, stop, sel->tag) < 0)
		return -1;
	if (*s == '.' || *s == '#') {
		char *dest = *s == '.' ? sel->cls : sel->id;

		s++;
		if (take_part(&s, stop, dest) <= 0)
			return -1;
	}
	if (*s == '[' && parse_attr_part(&s, sel) < 0)
		return -1;
	if (*s != '\0' ||
	    !(sel->tag[0] || sel->cls[0] || sel->id[0] || sel->attr[0]))
		return -1;
	return 0;
}

static int test_selector(const xmlNode *n, const void *arg)
{
	const struct simple_selector *sel = arg;
	const char *v;

	if (sel->tag[0] && !lec__html_is(n, sel->tag))
		return 0;
	if (sel->cls[0] && !has_class(n, sel->cls))
		return 0;
	if (sel->id[0] && !test_id(n, sel->id))
		return 0;
	if (sel->attr[0]) {
		v = lec__html_attr(n, sel->attr);
		if (v == NULL || (sel->has_value && strcmp(v, sel->value)))
			return 0;
	}
	return 1;
}

/* Sphinx puts a definition's id on its <dt> (notes §3.6, v3): a glossary
 * or citation term comes back as its <dl> holding only that term and its
 * definition; any other definition as its whole <dl>. */
static xmlNode *sphinx_dt(xmlNode *dt)
{
	xmlNode *dl = dt->parent, *dd = next_element(dt), *c, *next;

	if (!lec__html_is(dl, "dl"))
		return dt;
	if (!has_class(dl, "glossary") && !has_class(dl, "citation"))
		return dl;
	for (c = dl->children; c; c = next) {
		next = c->next;
		if (c != dt && c != dd) {
			xmlUnlinkNode(c);
			xmlFreeNode(c);
		}
	}
	return dl;
}

static int v3_node(xmlDoc *doc, const char *fragment,
		   const struct simple_selector *sel, const char *doctool,
		   xmlNode **node)
{
	if (fragment && *fragment) {
		*node = find_first((xmlNode *)doc, test_id, fragment);
		if (*node && doctool && strcmp(doctool, "sphinx") == 0 &&
		    lec__html_is(*node, "dt"))
			*node = sphinx_dt(*node);
	} else if (sel) {
		*node = find_first((xmlNode *)doc, test_selector, sel);
	} else {
		*node = lec__html_main_node(doc, 0);
	}
	return *node ? LEC_OK
		     : lec__error(LEC_ENOTFOUND, "no content for fragment %s",
				  fragment ? fragment : "(none)");
}

int lec_embed_v3_html(const char *html, size_t len, const char *page_url,
		      const char *fragment, const char *maincontent,
		      const char *doctool, char **out)
{
	struct simple_selector sel;
	struct embed_range r;
	xmlDoc *doc = NULL;
	int use_sel = maincontent && *maincontent;
	int rc;

	if (out != NULL)
		*out = NULL;
	if ((rc = page_args(html, page_url, out != NULL)) != LEC_OK)
		return rc;
	if (fragment && strlen(fragment) > LEC_EMBED_SECTION_MAX)
		return lec__error(LEC_EINVALID, "fragment too long");
	if (use_sel && parse_selector(maincontent, &sel) < 0)
		return lec__error_field(LEC_EINVALID, "maincontent",
					"Unsupported selector: %s",
					maincontent);
	if ((rc = lec__html_parse(html, len, page_url, &doc)) != LEC_OK)
		goto done;
	if ((rc = v3_node(doc, fragment, use_sel ? &sel : NULL, doctool,
			  &r.first)) != LEC_OK)
		goto done;
	r.last = r.first;
	rc = range_html(doc, &r, page_url, out);
done:
	if (doc)
		xmlFreeDoc(doc);
	return rc;
}

int lec_embed_v3_file(const char *path, const char *page_url,
		      const char *fragment, const char *maincontent,
		      const char *doctool, char **out)
{
	char *html = NULL;
	size_t len = 0;
	int rc;

	if (out != NULL)
		*out = NULL;
	if ((rc = read_page(path, out != NULL, &html, &len)) == LEC_OK)
		rc = lec_embed_v3_html(html, len, page_url, fragment,
				       maincontent, doctool, out);
	lec__free(html);
	return rc;
}
