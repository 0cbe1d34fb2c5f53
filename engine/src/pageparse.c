/*
 * The page parser of the search indexer: one published HTML page in, a title,
 * its sections and its documentation-generator objects out, following the
 * hosted service's parser (behaviour notes §4.4) step by step: find the main
 * node, remove navigation and other noise, take definition-list terms (Sphinx
 * domain objects become domain entries, other terms sections), then the text
 * before the first heading, then every heading grouped by level.
 *
 * It runs over every page of every build, so it is built for speed. libxml2's
 * HTML parser (which repairs broken markup) feeds SAX events into a compact
 * tree of our own, allocated from one arena per page: half of libxml2's tree
 * building time goes to malloc and free of its larger nodes. What the rules
 * ask of an element (is it a heading, a block, noise, a code block?) is
 * worked out once, when it is created, and kept as flags. Every walk is
 * iterative (a broken page may nest deeply), nodes are found in one pass and
 * kept in arrays, and text is gathered raw into one scratch buffer and
 * whitespace-collapsed once per string.
 */
#include <errno.h>
#include <fcntl.h>
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <pthread.h>
#include <stdalign.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "lectern/pageparse.h"
#include "search_internal.h"

/* Forgiving parse that never touches the network or prints: a page's
 * markup errors are the page author's business. */
#define HTML_OPTIONS                                                         \
	(HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |    \
	 HTML_PARSE_NONET)
/* Levels the leading-text scan descends below the main node (service). */
#define LEADING_DEPTH 3
/* Levels a heading's content scan descends into following siblings
 * (service). */
#define SECTION_DEPTH 2
/* h1 .. h6 */
#define HEADING_LEVELS 6
/* Longest role kept ("<domain>:<object type>"); Sphinx's are under 30. */
#define ROLE_MAX 64
/* Arena block size: a typical page's tree fits in a few blocks. */
#define ARENA_BLOCK (64 * 1024)
/* Bytes read per read(2) call for a page file. */
#define READ_CHUNK 65536

/* What the rules need to know about an element, found once. */
enum {
	F_BLOCK = 1 << 0,       /* text set apart from its neighbours */
	F_BREAK = 1 << 1,       /* h<digit> or header: content stops here */
	F_NOISE = 1 << 2,       /* removed before anything is read */
	F_HIGHLIGHT = 1 << 3,   /* class "highlight*": a code block if it has a pre */
	F_SIGNATURE = 1 << 4,   /* class naming a domain object's name part */
	F_ROLE_MAIN = 1 << 5,   /* role="main" */
	F_PRE = 1 << 6,
	F_DL = 1 << 7,
	F_DT = 1 << 8,
	F_DD = 1 << 9,
	F_HEADER = 1 << 10,
	F_MAIN = 1 << 11,
	F_BODY = 1 << 12,
	F_TITLE = 1 << 13,
	F_INDEXED = 1 << 14,    /* a dt/dd taken as an entry, to be removed */
};

struct tag_rule {
	const char *name;
	unsigned flags;
	int level; /* 1..6 for h1..h6 */
};

/* Every tag the rules name. Block elements are notes §4.4's list; noise tags
 * are step 2's. */
static const struct tag_rule tag_rules[] = {
	{ "address", F_BLOCK, 0 },
	{ "article", F_BLOCK, 0 },
	{ "aside", F_BLOCK, 0 },
	{ "blockquote", F_BLOCK, 0 },
	{ "body", F_BODY, 0 },
	{ "canvas", F_BLOCK, 0 },
	{ "dd", F_BLOCK | F_DD, 0 },
	{ "div", F_BLOCK, 0 },
	{ "dl", F_BLOCK | F_DL, 0 },
	{ "dt", F_BLOCK | F_DT, 0 },
	{ "fieldset", F_BLOCK, 0 },
	{ "figcaption", F_BLOCK, 0 },
	{ "figure", F_BLOCK, 0 },
	{ "footer", F_BLOCK, 0 },
	{ "form", F_BLOCK, 0 },
	{ "h0", F_BREAK, 0 },
	{ "h1", F_BLOCK | F_BREAK, 1 },
	{ "h2", F_BLOCK | F_BREAK, 2 },
	{ "h3", F_BLOCK | F_BREAK, 3 },
	{ "h4", F_BLOCK | F_BREAK, 4 },
	{ "h5", F_BLOCK | F_BREAK, 5 },
	{ "h6", F_BLOCK | F_BREAK, 6 },
	{ "h7", F_BREAK, 0 },
	{ "h8", F_BREAK, 0 },
	{ "h9", F_BREAK, 0 },
	{ "header", F_BLOCK | F_BREAK | F_HEADER, 0 },
	{ "hr", F_BLOCK, 0 },
	{ "li", F_BLOCK, 0 },
	{ "main", F_BLOCK | F_MAIN, 0 },
	{ "nav", F_BLOCK | F_NOISE, 0 },
	{ "noscript", F_BLOCK | F_NOISE, 0 },
	{ "ol", F_BLOCK, 0 },
	{ "p", F_BLOCK, 0 },
	{ "pre", F_BLOCK | F_PRE, 0 },
	{ "script", F_NOISE, 0 },
	{ "section", F_BLOCK, 0 },
	{ "style", F_NOISE, 0 },
	{ "table", F_BLOCK, 0 },
	{ "template", F_NOISE, 0 },
	{ "tfoot", F_BLOCK, 0 },
	{ "title", F_TITLE, 0 },
	{ "ul", F_BLOCK, 0 },
	{ "video", F_BLOCK, 0 },
};

/* Class words that mark noise (permalinks, line numbers, toctrees) and the
 * name parts of a domain object's signature (Sphinx 5: sig-prename and
 * sig-name; older Sphinx: descclassname and descname). */
static const char *const noise_classes[] = {
	"headerlink", "linenos", "lineno", "toctree-wrapper",
};
static const char *const signature_classes[] = {
	"sig-prename", "sig-name", "descclassname", "descname",
};

/* Domains whose object descriptions Sphinx renders as
 * <dl class="DOMAIN OBJTYPE">: the built-in ones that describe objects and
 * the common extension domains (httpdomain, phpdomain, rubydomain,
 * matlabdomain). */
static const char *const domain_names[] = {
	"c", "cpp", "http", "js", "mat", "php", "py", "rb", "rst", "std",
};

/* A node of the page tree: an element (name set) or a text (text set). */
struct pnode {
	struct pnode *parent;
	struct pnode *children;
	struct pnode *last; /* last child */
	struct pnode *prev;
	struct pnode *next;
	const xmlChar *name; /* libxml2's name: used only while parsing */
	const char *text;    /* text nodes: the text, NUL-terminated */
	const char *id;      /* "" when absent */
	const char *cls;     /* <dl> only: the class attribute, else "" */
	unsigned flags;
	int level;
};

struct arena_block {
	struct arena_block *next;
	size_t used;
	size_t size;
	alignas(max_align_t) char data[];
};

struct node_vec {
	struct pnode **v;
	size_t len;
	size_t cap;
};

/* State of one page's parse. */
struct parser {
	struct lec_page_doc *doc;
	size_t sections_cap;
	size_t domains_cap;
	struct arena_block *arena;
	int oom;                 /* an allocation failed while building */
	struct pnode root;       /* the document */
	struct pnode *current;   /* element being built */
	struct lec__buf text;    /* scratch: raw text of the string being read */
	struct node_vec dls;     /* every <dl> under the main node, in order */
	struct node_vec indexed; /* dt/dd nodes taken as entries, to remove */
	struct node_vec headings[HEADING_LEVELS];
	struct pnode *first_h1;  /* after cleaning, for the title */
};

/* Walking a subtree for its text. */
struct text_walk {
	struct lec__buf *out;
	struct pnode *root;
	int skip_entries;   /* leave out nested id-bearing dt and their dd */
	struct pnode *code; /* the code block being read: only <pre> text */
	struct pnode *pre;  /* the outermost <pre> being read */
};

static pthread_once_t libxml_once = PTHREAD_ONCE_INIT;

/* libxml2 2.9 must be initialised once before threads parse at once. */
static void libxml_init(void)
{
	xmlInitParser();
}

/* libxml2's generic error channel, which HTML_PARSE_NOERROR does not
 * cover: a page in a broken encoding would otherwise print "encoding
 * error" lines on the server's stderr for every chunk it reads. */
static void ignore_libxml_message(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

/* Arena ------------------------------------------------------------------- */

static void *arena_alloc(struct parser *p, size_t size)
{
	struct arena_block *b = p->arena;
	size_t align = alignof(max_align_t);
	void *mem;

	size = (size + align - 1) & ~(align - 1);
	if (b == NULL || b->size - b->used < size) {
		size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;

		if ((b = lec__malloc(sizeof(*b) + cap)) == NULL) {
			p->oom = 1;
			return NULL;
		}
		b->size = cap;
		b->used = 0;
		b->next = p->arena;
		p->arena = b;
	}
	mem = b->data + b->used;
	b->used += size;
	return mem;
}

static const char *arena_strndup(struct parser *p, const char *s, size_t n)
{
	char *copy = arena_alloc(p, n + 1);

	if (copy == NULL)
		return "";
	memcpy(copy, s, n);
	copy[n] = '\0';
	return copy;
}

static void arena_free(struct parser *p)
{
	while (p->arena != NULL) {
		struct arena_block *next = p->arena->next;

		lec__free(p->arena);
		p->arena = next;
	}
}

/* Building the tree from libxml2's events --------------------------------- */

static int is_html_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* The index'th word of a class attribute (0-based); sets *len. */
static const char *class_word(const char *cls, size_t index, size_t *len)
{
	const char *p = cls;

	for (;;) {
		while (is_html_space(*p))
			p++;
		if (*p == '\0')
			return NULL;
		*len = 0;
		while (p[*len] != '\0' && !is_html_space(p[*len]))
			(*len)++;
		if (index-- == 0)
			return p;
		p += *len;
	}
}

static int word_in(const char *w, size_t len, const char *const *set,
		   size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strncmp(set[i], w, len) == 0 && set[i][len] == '\0')
			return 1;
	return 0;
}

static unsigned class_flags(const char *cls)
{
	unsigned flags = 0;
	const char *w;
	size_t i, len;

	for (i = 0; (w = class_word(cls, i, &len)) != NULL; i++) {
		if (len >= 9 && memcmp(w, "highlight", 9) == 0)
			flags |= F_HIGHLIGHT;
		if (word_in(w, len, noise_classes,
			    sizeof(noise_classes) / sizeof(noise_classes[0])))
			flags |= F_NOISE;
		if (word_in(w, len, signature_classes,
			    sizeof(signature_classes) /
				    sizeof(signature_classes[0])))
			flags |= F_SIGNATURE;
	}
	return flags;
}

static void tag_rule(struct pnode *n)
{
	const char *name = (const char *)n->name;
	size_t i;

	for (i = 0; i < sizeof(tag_rules) / sizeof(tag_rules[0]); i++)
		if (tag_rules[i].name[0] == name[0] &&
		    strcmp(tag_rules[i].name, name) == 0) {
			n->flags = tag_rules[i].flags;
			n->level = tag_rules[i].level;
			return;
		}
}

static void attributes(struct parser *p, struct pnode *n,
		       const xmlChar **atts)
{
	size_t i;

	for (i = 0; atts != NULL && atts[i] != NULL; i += 2) {
		const char *name = (const char *)atts[i];
		const char *value = atts[i + 1] ? (const char *)atts[i + 1] : "";

		if (strcmp(name, "id") == 0) {
			n->id = arena_strndup(p, value, strlen(value));
		} else if (strcmp(name, "class") == 0) {
			n->flags |= class_flags(value);
			if (n->flags & F_DL)
				n->cls = arena_strndup(p, value, strlen(value));
		} else if (strcmp(name, "role") == 0) {
			if (strcmp(value, "main") == 0)
				n->flags |= F_ROLE_MAIN;
			else if (strcmp(value, "navigation") == 0 ||
				 strcmp(value, "search") == 0)
				n->flags |= F_NOISE;
		}
	}
}

static struct pnode *new_child(struct parser *p)
{
	struct pnode *n = arena_alloc(p, sizeof(*n));
	struct pnode *parent = p->current;

	if (n == NULL)
		return NULL;
	memset(n, 0, sizeof(*n));
	n->id = n->cls = "";
	n->parent = parent;
	n->prev = parent->last;
	if (parent->last != NULL)
		parent->last->next = n;
	else
		parent->children = n;
	parent->last = n;
	return n;
}

static void on_start(void *ctx, const xmlChar *name, const xmlChar **atts)
{
	struct parser *p = ((htmlParserCtxtPtr)ctx)->_private;
	struct pnode *n;

	if (p->oom || (n = new_child(p)) == NULL) {
		xmlStopParser(ctx); /* the page is lost: stop reading it */
		return;
	}
	n->name = name;
	tag_rule(n);
	attributes(p, n, atts);
	p->current = n;
}

static void on_end(void *ctx, const xmlChar *name)
{
	struct parser *p = ((htmlParserCtxtPtr)ctx)->_private;
	struct pnode *n;

	/* libxml2 balances its events; an unmatched end (or one after an
	 * allocation failure) closes up to the matching element, if any. */
	for (n = p->current; n != &p->root; n = n->parent)
		if (n->name == name ||
		    strcmp((const char *)n->name, (const char *)name) == 0) {
			p->current = n->parent;
			return;
		}
}

static void on_text(void *ctx, const xmlChar *s, int len)
{
	struct parser *p = ((htmlParserCtxtPtr)ctx)->_private;
	struct pnode *n;

	if (len <= 0)
		return;
	if (p->oom || (n = new_child(p)) == NULL) {
		xmlStopParser(ctx);
		return;
	}
	n->text = arena_strndup(p, (const char *)s, (size_t)len);
}

/* Parses html into p->root, which stays empty when libxml2 finds nothing
 * to parse; sets p->oom when memory ran out. */
static void build_tree(struct parser *p, const char *html, size_t len)
{
	htmlParserCtxtPtr ctxt;
	htmlSAXHandler sax;

	if (len == 0)
		return;
	/* The channel is per thread, and any thread may index. */
	xmlSetGenericErrorFunc(NULL, ignore_libxml_message);
	if ((ctxt = htmlCreateMemoryParserCtxt(html, (int)len)) == NULL) {
		p->oom = 1; /* libxml2 fails it only for want of memory */
		return;
	}
	memset(&sax, 0, sizeof(sax));
	sax.startElement = on_start;
	sax.endElement = on_end;
	sax.characters = on_text;
	sax.cdataBlock = on_text;
	sax.initialized = 1;
	memcpy(ctxt->sax, &sax, sizeof(sax));
	ctxt->_private = p;
	htmlCtxtUseOptions(ctxt, HTML_OPTIONS);
	/* UTF-8 unless a byte-order mark or a <meta> charset says otherwise:
	 * what generators write (libxml2 alone would guess Latin-1). */
	xmlSwitchEncoding(ctxt, XML_CHAR_ENCODING_UTF8);
	p->current = &p->root;
	/* The return value reports markup errors, which recovery repaired. */
	htmlParseDocument(ctxt);
	htmlFreeParserCtxt(ctxt);
}

/* Nodes ------------------------------------------------------------------- */

/* The next node of a pre-order walk of root's subtree, not entering n's
 * children when descend is 0; NULL at the end. */
static struct pnode *walk_next(struct pnode *n, const struct pnode *root,
			       int descend)
{
	if (descend && n->children != NULL)
		return n->children;
	while (n != NULL && n != root) {
		if (n->next != NULL)
			return n->next;
		n = n->parent;
	}
	return NULL;
}

/* The first element below root (root excluded) with one of flags. */
static struct pnode *find_flag(struct pnode *root, unsigned flags)
{
	struct pnode *n;

	for (n = root->children; n != NULL; n = walk_next(n, root, 1))
		if (n->flags & flags)
			return n;
	return NULL;
}

/* Sphinx and MkDocs code blocks: a "highlight*" class around a <pre>. */
static int is_code_block(struct pnode *n)
{
	return (n->flags & F_HIGHLIGHT) && find_flag(n, F_PRE) != NULL;
}

static void unlink_node(struct pnode *n)
{
	if (n->prev != NULL)
		n->prev->next = n->next;
	else
		n->parent->children = n->next;
	if (n->next != NULL)
		n->next->prev = n->prev;
	else
		n->parent->last = n->prev;
	n->prev = n->next = NULL;
}

static int vec_push(struct node_vec *vec, struct pnode *n)
{
	if (lec__grow((void **)&vec->v, &vec->cap, vec->len,
		      sizeof(*vec->v), 16) < 0)
		return LEC_ENOMEM;
	vec->v[vec->len++] = n;
	return LEC_OK;
}

static void vec_dispose(struct node_vec *vec)
{
	lec__free(vec->v);
	vec->v = NULL;
	vec->len = vec->cap = 0;
}

/* The service's main node: the first [role=main], else the first <main>,
 * else the parent of the first <h1>'s container, else the body. */
static struct pnode *main_node(struct pnode *body)
{
	struct pnode *first_main = NULL, *first_h1 = NULL;
	struct pnode *n;

	for (n = body->children; n != NULL; n = walk_next(n, body, 1)) {
		if (n->flags & F_ROLE_MAIN)
			return n;
		if (first_main == NULL && (n->flags & F_MAIN))
			first_main = n;
		else if (first_h1 == NULL && n->level == 1)
			first_h1 = n;
	}
	if (first_main != NULL)
		return first_main;
	if (first_h1 != NULL) {
		struct pnode *container = (first_h1->parent->flags & F_HEADER)
						  ? first_h1->parent
						  : first_h1;

		return container->parent;
	}
	return body;
}

/* Text -------------------------------------------------------------------- */

/* Bytes of the whitespace character at p (Python's str.isspace set, which
 * the service splits on), 0 if p is not at one. */
static size_t space_len(const unsigned char *p, const unsigned char *end)
{
	if ((*p >= 0x09 && *p <= 0x0d) || (*p >= 0x1c && *p <= 0x20))
		return 1;
	if (*p < 0xc2)
		return 0;
	if (*p == 0xc2 && end - p >= 2 && (p[1] == 0x85 || p[1] == 0xa0))
		return 2;
	if (end - p < 3)
		return 0;
	if (p[0] == 0xe1 && p[1] == 0x9a && p[2] == 0x80) /* U+1680 */
		return 3;
	if (p[0] == 0xe2 && p[1] == 0x80 && /* U+2000-200A, 2028/9, 202F */
	    ((p[2] >= 0x80 && p[2] <= 0x8a) || p[2] == 0xa8 || p[2] == 0xa9 ||
	     p[2] == 0xaf))
		return 3;
	if (p[0] == 0xe2 && p[1] == 0x81 && p[2] == 0x9f) /* U+205F */
		return 3;
	if (p[0] == 0xe3 && p[1] == 0x80 && p[2] == 0x80) /* U+3000 */
		return 3;
	return 0;
}

/* s[0..len) with whitespace runs made single spaces, trimmed, cut after
 * LEC_PAGE_TEXT_MAX characters. Owned by caller; NULL when out of memory. */
static char *collapse(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *end = p + len;
	char *out = lec__malloc(len + 1);
	size_t o = 0, chars = 0;
	int gap = 0;

	if (out == NULL) {
		lec__error_oom();
		return NULL;
	}
	while (p < end) {
		size_t k = space_len(p, end);

		if (k > 0) {
			gap = o > 0;
			p += k;
			continue;
		}
		if (chars + (size_t)gap >= LEC_PAGE_TEXT_MAX)
			break;
		if (gap) {
			out[o++] = ' ';
			chars++;
			gap = 0;
		}
		/* One UTF-8 sequence: its lead byte and continuation bytes. */
		out[o++] = (char)*p++;
		while (p < end && (*p & 0xc0) == 0x80)
			out[o++] = (char)*p++;
		chars++;
	}
	out[o] = '\0';
	return out;
}

/* A dt with an id, or the dd that such a dt is the first to precede: the
 * nested entries a description leaves out (they are entries of their own). */
static int is_nested_entry(const struct pnode *n)
{
	const struct pnode *s;

	if (n->flags & F_DT)
		return n->id[0] != '\0';
	if (!(n->flags & F_DD))
		return 0;
	for (s = n->prev; s != NULL && !(s->flags & F_DD); s = s->prev)
		if ((s->flags & F_DT) && s->id[0] != '\0')
			return 1;
	return 0;
}

/* Entering n; returns whether to read its children. */
static int text_enter(struct text_walk *w, struct pnode *n)
{
	if (n->text != NULL) {
		if (w->code == NULL || w->pre != NULL)
			lec__buf_puts(w->out, n->text);
		return 0;
	}
	if (w->skip_entries && n != w->root && is_nested_entry(n))
		return 0;
	if (w->code == NULL && is_code_block(n))
		w->code = n;
	else if (w->code != NULL && w->pre == NULL && (n->flags & F_PRE))
		w->pre = n;
	if (n->flags & F_BLOCK)
		lec__buf_puts(w->out, " ");
	return 1;
}

static void text_leave(struct text_walk *w, struct pnode *n)
{
	if (n == w->pre)
		w->pre = NULL;
	if (n == w->code)
		w->code = NULL;
	if (n->flags & F_BLOCK)
		lec__buf_puts(w->out, " ");
}

/* Appends the raw text of root's subtree (root included) to out: code
 * blocks give only their <pre> text, block elements are set apart by
 * spaces. */
static void add_text(struct lec__buf *out, struct pnode *root,
		     int skip_entries)
{
	struct text_walk w = { out, root, skip_entries, NULL, NULL };
	struct pnode *n = root;

	for (;;) {
		if (text_enter(&w, n) && n->children != NULL) {
			n = n->children;
			continue;
		}
		for (;;) {
			text_leave(&w, n);
			if (n == root)
				return;
			if (n->next != NULL) {
				n = n->next;
				break;
			}
			n = n->parent;
		}
	}
}

/* The service's section content walk: n and its following siblings until a
 * heading, descending depth levels into children (and stopping there too at
 * a heading). Returns whether a heading was met. */
static int add_content(struct lec__buf *out, struct pnode *n, int depth)
{
	int found = 0;

	for (; n != NULL && !found; n = n->next) {
		if (n->flags & F_BREAK)
			return 1;
		if (depth <= 0 || n->children == NULL || is_code_block(n)) {
			add_text(out, n, 0);
			continue;
		}
		if (n->flags & F_BLOCK)
			lec__buf_puts(out, " ");
		found = add_content(out, n->children, depth - 1);
		if (n->flags & F_BLOCK)
			lec__buf_puts(out, " ");
	}
	return found;
}

/* Hands out the scratch text collapsed (owned by caller) and empties the
 * scratch buffer for the next string. NULL when out of memory. */
static char *take_text(struct parser *p)
{
	char *s;

	if (p->text.oom) {
		lec__error_oom();
		return NULL;
	}
	s = collapse(p->text.ptr != NULL ? p->text.ptr : "", p->text.len);
	p->text.len = 0; /* reused: one buffer serves every string of a page */
	return s;
}

static char *node_text(struct parser *p, struct pnode *n, int skip_entries)
{
	add_text(&p->text, n, skip_entries);
	return take_text(p);
}

/* Building the document ----------------------------------------------------- */

/* Appends a section taking ownership of the strings (freed on failure). */
static int push_section(struct parser *p, char *id, char *title,
			char *content)
{
	struct lec_page_doc *doc = p->doc;
	struct lec_page_section *s;

	if (id == NULL || title == NULL || content == NULL ||
	    lec__grow((void **)&doc->sections, &p->sections_cap,
		      doc->sections_len, sizeof(*s), 16) < 0)
		goto fail;
	s = &doc->sections[doc->sections_len++];
	s->id = id;
	s->title = title;
	s->content = content;
	return LEC_OK;
fail:
	lec__free(id);
	lec__free(title);
	lec__free(content);
	return lec__error_oom();
}

/* Appends a domain entry taking ownership of the strings. */
static int push_domain(struct parser *p, char *role, char *name, char *id,
		       char *content)
{
	struct lec_page_doc *doc = p->doc;
	struct lec_page_domain *d;

	if (role == NULL || name == NULL || id == NULL || content == NULL ||
	    lec__grow((void **)&doc->domains, &p->domains_cap,
		      doc->domains_len, sizeof(*d), 16) < 0)
		goto fail;
	d = &doc->domains[doc->domains_len++];
	d->role = role;
	d->name = name;
	d->id = id;
	d->content = content;
	return LEC_OK;
fail:
	lec__free(role);
	lec__free(name);
	lec__free(id);
	lec__free(content);
	return lec__error_oom();
}

/* Removes the noise under the main node and notes, in document order, its
 * <dl>s and its first <h1> (the title). */
static int clean(struct parser *p, struct pnode *root)
{
	struct pnode *n = root->children;
	int error;

	while (n != NULL) {
		if (n->flags & F_NOISE) {
			struct pnode *next = walk_next(n, root, 0);

			unlink_node(n);
			n = next;
			continue;
		}
		if ((n->flags & F_DL) && (error = vec_push(&p->dls, n)) < 0)
			return error;
		if (p->first_h1 == NULL && n->level == 1)
			p->first_h1 = n;
		n = walk_next(n, root, 1);
	}
	return LEC_OK;
}

/* "py:function" for <dl class="py function">; 0 when dl is not a domain
 * object list. */
static int domain_role(const struct pnode *dl, char *role, size_t size)
{
	const char *dom, *type;
	size_t dlen, tlen;

	if ((dom = class_word(dl->cls, 0, &dlen)) == NULL ||
	    (type = class_word(dl->cls, 1, &tlen)) == NULL ||
	    dlen + 1 + tlen >= size ||
	    !word_in(dom, dlen, domain_names,
		     sizeof(domain_names) / sizeof(domain_names[0])))
		return 0;
	memcpy(role, dom, dlen);
	role[dlen] = ':';
	memcpy(role + dlen + 1, type, tlen);
	role[dlen + 1 + tlen] = '\0';
	return 1;
}

/* A domain object's full name: its signature's name parts in document
 * order, else its id. */
static char *object_name(struct parser *p, struct pnode *dt, const char *id)
{
	struct pnode *c;
	char *name;

	for (c = dt->children; c != NULL; c = c->next)
		if (c->flags & F_SIGNATURE)
			add_text(&p->text, c, 0);
	name = take_text(p);
	if (name != NULL && name[0] == '\0') {
		lec__free(name);
		name = lec__strdup(id);
		if (name == NULL)
			lec__error_oom();
	}
	return name;
}

/* The first <dd> among the siblings after dt (the service's "dt ~ dd"). */
static struct pnode *following_dd(struct pnode *dt)
{
	struct pnode *s;

	for (s = dt->next; s != NULL; s = s->next)
		if (s->flags & F_DD)
			return s;
	return NULL;
}

/* One term with an id and its description: a domain entry when role is
 * set, else a section. Past the caps the entry is dropped but its nodes are
 * still removed, as the service removes every indexed term. */
static int add_entry(struct parser *p, const char *role, struct pnode *dt,
		     struct pnode *dd)
{
	if (role != NULL) {
		if (p->doc->domains_len >= LEC_PAGE_SECTIONS_MAX)
			return LEC_OK;
		return push_domain(p, lec__strdup(role),
				   object_name(p, dt, dt->id),
				   lec__strdup(dt->id), node_text(p, dd, 1));
	}
	if (p->doc->sections_len >= LEC_PAGE_SECTIONS_MAX)
		return LEC_OK;
	return push_section(p, lec__strdup(dt->id), node_text(p, dt, 0),
			    node_text(p, dd, 1));
}

/* Step 4a: every <dl>'s direct dt children that have an id and a dd. */
static int add_definitions(struct parser *p)
{
	char role[ROLE_MAX];
	size_t i;
	int error;

	for (i = 0; i < p->dls.len; i++) {
		struct pnode *dl = p->dls.v[i];
		int is_domain = domain_role(dl, role, sizeof(role));
		struct pnode *dt, *dd;

		for (dt = dl->children; dt != NULL; dt = dt->next) {
			if (!(dt->flags & F_DT) || dt->id[0] == '\0' ||
			    (dd = following_dd(dt)) == NULL)
				continue;
			if ((error = add_entry(p, is_domain ? role : NULL, dt,
					       dd)) < 0 ||
			    (error = vec_push(&p->indexed, dt)) < 0)
				return error;
			dt->flags |= F_INDEXED;
			/* Terms that share a description list it once. */
			if (!(dd->flags & F_INDEXED) &&
			    (error = vec_push(&p->indexed, dd)) < 0)
				return error;
			dd->flags |= F_INDEXED;
		}
	}
	return LEC_OK;
}

/* Removes the indexed terms from the tree once all are read: a term nested
 * in another's description is an entry of its own too. */
static void remove_indexed(struct parser *p)
{
	size_t i;

	for (i = 0; i < p->indexed.len; i++)
		unlink_node(p->indexed.v[i]);
	p->indexed.len = 0;
}

static int collect_headings(struct parser *p, struct pnode *root)
{
	struct pnode *n;
	int error;

	for (n = root->children; n != NULL; n = walk_next(n, root, 1))
		if (n->level > 0 &&
		    (error = vec_push(&p->headings[n->level - 1], n)) < 0)
			return error;
	return LEC_OK;
}

/* Step 4b: the text before the first heading, titled with the page. */
static int add_leading(struct parser *p, struct pnode *root)
{
	char *content;

	add_content(&p->text, root->children, LEADING_DEPTH);
	if ((content = take_text(p)) == NULL)
		return LEC_ENOMEM;
	if (content[0] == '\0' ||
	    p->doc->sections_len >= LEC_PAGE_SECTIONS_MAX) {
		lec__free(content);
		return LEC_OK;
	}
	return push_section(p, lec__strdup(""), lec__strdup(p->doc->title),
			    content);
}

/* Step 4c: one heading; its id falls back to the parent's (Sphinx puts it
 * on the wrapping <section>). */
static int add_heading(struct parser *p, struct pnode *h)
{
	const char *id = h->id[0] != '\0' ? h->id : h->parent->id;
	struct pnode *container = (h->parent->flags & F_HEADER) ? h->parent : h;
	char *title = node_text(p, h, 0);

	add_content(&p->text, container->next, SECTION_DEPTH);
	return push_section(p, lec__strdup(id), title, take_text(p));
}

static int add_headings(struct parser *p)
{
	size_t level, i;
	int error;

	for (level = 0; level < HEADING_LEVELS; level++)
		for (i = 0; i < p->headings[level].len; i++) {
			if (p->doc->sections_len >= LEC_PAGE_SECTIONS_MAX)
				return LEC_OK;
			if ((error = add_heading(p, p->headings[level].v[i])) < 0)
				return error;
		}
	return LEC_OK;
}

/* The first <h1>'s text, else the <title>'s, else the path. */
static int set_title(struct parser *p, const char *path)
{
	struct pnode *title;
	char *text = NULL;

	if (p->first_h1 != NULL && (text = node_text(p, p->first_h1, 0)) == NULL)
		return LEC_ENOMEM;
	if ((text == NULL || text[0] == '\0') &&
	    (title = find_flag(&p->root, F_TITLE)) != NULL) {
		lec__free(text);
		if ((text = node_text(p, title, 0)) == NULL)
			return LEC_ENOMEM;
	}
	if (text == NULL || text[0] == '\0') {
		lec__free(text);
		text = lec__strdup(path);
		LEC__CHECK_ALLOC(text);
	}
	p->doc->title = text;
	return LEC_OK;
}

static int parse_tree(struct parser *p, const char *path)
{
	struct pnode *body = find_flag(&p->root, F_BODY);
	struct pnode *main = NULL;
	int error;

	if (body != NULL) {
		main = main_node(body);
		if ((error = clean(p, main)) < 0)
			return error;
	}
	if ((error = set_title(p, path)) < 0 || main == NULL)
		return error;
	if ((error = add_definitions(p)) < 0)
		return error;
	remove_indexed(p);
	if ((error = collect_headings(p, main)) < 0 ||
	    (error = add_leading(p, main)) < 0)
		return error;
	return add_headings(p);
}

static void parser_dispose(struct parser *p)
{
	size_t i;

	arena_free(p);
	lec__buf_dispose(&p->text);
	vec_dispose(&p->dls);
	vec_dispose(&p->indexed);
	for (i = 0; i < HEADING_LEVELS; i++)
		vec_dispose(&p->headings[i]);
}

/* Public API ---------------------------------------------------------------- */

static const size_t section_texts[] = {
	offsetof(struct lec_page_section, id),
	offsetof(struct lec_page_section, title),
	offsetof(struct lec_page_section, content),
};
static const size_t domain_texts[] = {
	offsetof(struct lec_page_domain, role),
	offsetof(struct lec_page_domain, name),
	offsetof(struct lec_page_domain, id),
	offsetof(struct lec_page_domain, content),
};

void lec_page_doc_free(struct lec_page_doc *doc)
{
	if (doc == NULL)
		return;
	LEC__ITEMS_TEXTS_FREE(doc->sections, doc->sections_len, section_texts);
	LEC__ITEMS_TEXTS_FREE(doc->domains, doc->domains_len, domain_texts);
	lec__free(doc->title);
	lec__free(doc);
}

int lec_page_parse_html(const char *html, size_t len, const char *path,
			struct lec_page_doc **out)
{
	struct parser p;
	int error = LEC_OK;

	lec_error_clear();
	if (out == NULL)
		return lec__error(LEC_EINVALID, "no output document given");
	*out = NULL;
	if (path == NULL || (html == NULL && len > 0))
		return lec__error(LEC_EINVALID, "no page path or HTML given");
	if (len > LEC_PAGE_HTML_MAX)
		return lec__error(LEC_ELIMIT,
				  "%s: page is larger than %u bytes", path,
				  LEC_PAGE_HTML_MAX);
	memset(&p, 0, sizeof(p));
	p.root.id = p.root.cls = "";
	p.doc = lec__calloc(1, sizeof(*p.doc));
	LEC__CHECK_ALLOC(p.doc);
	pthread_once(&libxml_once, libxml_init);
	build_tree(&p, html, len);
	if (p.oom) {
		error = lec__error_oom();
	} else if (p.root.children == NULL) {
		/* Not a page at all: indexed empty, as the service does. */
		p.doc->title = lec__strdup("");
		error = p.doc->title != NULL ? LEC_OK : lec__error_oom();
	} else {
		error = parse_tree(&p, path);
	}
	parser_dispose(&p);
	if (error < 0) {
		lec_page_doc_free(p.doc);
		return error;
	}
	*out = p.doc;
	return LEC_OK;
}

int lec__page_read(const char *file, char **data, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	size_t have = 0;
	int fd, error = LEC_OK;

	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) < 0)
		return lec__error(LEC_EIO, "cannot open %s: %s", file,
				  strerror(errno));
	if (fstat(fd, &st) < 0) {
		error = lec__error(LEC_EIO, "cannot read %s: %s", file,
				   strerror(errno));
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		error = lec__error(LEC_EIO, "cannot read %s: not a regular file",
				   file);
		goto done;
	}
	if ((uint64_t)st.st_size > LEC_PAGE_HTML_MAX) {
		error = lec__error(LEC_ELIMIT, "%s is larger than %u bytes",
				   file, LEC_PAGE_HTML_MAX);
		goto done;
	}
	if ((buf = lec__malloc((size_t)st.st_size + 1)) == NULL) {
		error = lec__error_oom();
		goto done;
	}
	/* Read what fstat promised; a file that shrinks meanwhile is read as
	 * it now is. */
	while (have < (size_t)st.st_size) {
		size_t want = (size_t)st.st_size - have;
		ssize_t n = read(fd, buf + have,
				 want < READ_CHUNK ? want : READ_CHUNK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error = lec__error(LEC_EIO, "cannot read %s: %s", file,
					   strerror(errno));
			goto done;
		}
		if (n == 0)
			break;
		have += (size_t)n;
	}
	*data = buf;
	*len = have;
	buf = NULL;
done:
	lec__free(buf);
	close(fd);
	return error;
}

int lec_page_parse_file(const char *file, const char *path,
			struct lec_page_doc **out)
{
	char *data = NULL;
	size_t len = 0;
	int error;

	lec_error_clear();
	if (out == NULL)
		return lec__error(LEC_EINVALID, "no output document given");
	*out = NULL;
	if (file == NULL || path == NULL)
		return lec__error(LEC_EINVALID, "no page file or path given");
	if ((error = lec__page_read(file, &data, &len)) < 0)
		return error;
	error = lec_page_parse_html(data, len, path, out);
	lec__free(data);
	return error;
}
