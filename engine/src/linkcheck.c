/*
 * The link check of published HTML (build_warnings.h): every internal link
 * of every page, raw HTML's included, must lead to a file of the output
 * and, when it names an #anchor, to an element with that id or name in the
 * page it leads to. A writer's commit that renames a page or a heading
 * breaks links the generator never sees (a Markdown link written as HTML,
 * a link in a theme); this finds them without fetching anything.
 *
 * It runs after every build over the whole output, so it is a scanner, not
 * a parser: pages are read whole and searched for '<' with memchr; only
 * tags' attributes are looked at (id and name anywhere, href on a, area
 * and link, base's href), comments, CDATA and the raw text of script and
 * style are skipped, and the line of a link is counted only for a link.
 * Files and anchors go into two hash tables over one string arena; links
 * to another page's anchor wait until every page has been read.
 *
 * Not followed: links with a scheme (http:, mailto:, javascript:),
 * protocol-relative (//host) and absolute paths (/en/latest/...: where the
 * site is served is not the output's business), and relative ones that
 * climb above the output (another version's docs). Text fragments
 * (#:~:text=) and #top (which browsers always find) pass.
 *
 * It also lists the output's inventory, its pages and their anchors, and
 * reports what an earlier one had and it lacks as `removed`; the
 * inventory's lines and their comparison are linkcheck_inventory.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_warnings.h"
#include "files.h"
#include "hash.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Bytes of each block of the string arena. */
#define ARENA_BLOCK (256 * 1024)
/* Longest href quoted in a record (a data: blob is not a link). */
#define HREF_QUOTE_MAX 300

/* Elements whose href is a link to follow. */
static const char *const link_tags[] = { "a", "area", "link" };

/* Arena ------------------------------------------------------------------- */

struct block {
	struct block *next;
	size_t used, size;
	char *data; /* size bytes, after the block itself */
};

struct arena {
	struct block *head;
};

static struct block *block_new(size_t size)
{
	struct block *b = lec__malloc(sizeof(*b) + size);

	if (b) {
		b->next = NULL;
		b->used = 0;
		b->size = size;
		b->data = (char *)(b + 1);
	}
	return b;
}

/* A NUL-terminated copy of n bytes, valid until arena_free; NULL: oom. */
static char *arena_dup(struct arena *a, const char *s, size_t n)
{
	char *out;

	if (a->head == NULL || a->head->used + n + 1 > a->head->size) {
		/* A string bigger than a block gets one of its own. */
		struct block *b = block_new(n + 1 > ARENA_BLOCK ? n + 1
								 : ARENA_BLOCK);

		if (b == NULL)
			return NULL;
		b->next = a->head;
		a->head = b;
	}
	out = a->head->data + a->head->used;
	a->head->used += n + 1;
	memcpy(out, s, n);
	out[n] = '\0';
	return out;
}

static void arena_free(struct arena *a)
{
	while (a->head) {
		struct block *next = a->head->next;

		lec__free(a->head);
		a->head = next;
	}
}

/* Hash table of (owner, string) keys to entry numbers --------------------- */

struct slot {
	uint64_t hash;
	uint32_t entry; /* + 1; 0: empty */
};

struct table {
	struct slot *slots;
	size_t cap, n; /* cap a power of two */
};

static uint64_t key_hash(uint32_t owner, const char *s, size_t n)
{
	return lec__fnv1a(s, n) ^ ((uint64_t)owner * 0x9e3779b97f4a7c15ull);
}

static int table_grow(struct table *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024, i;
	struct slot *slots = lec__calloc(cap, sizeof(*slots));

	if (slots == NULL)
		return lec__error_oom();
	for (i = 0; i < t->cap; i++) {
		size_t j;

		if (t->slots[i].entry == 0)
			continue;
		for (j = t->slots[i].hash & (cap - 1); slots[j].entry;
		     j = (j + 1) & (cap - 1))
			;
		slots[j] = t->slots[i];
	}
	lec__free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return LEC_OK;
}

/* Files and anchors -------------------------------------------------------- */

struct file {
	const char *path;
	uint32_t len;
	int html;
};

struct anchor {
	uint32_t page;
	const char *name;
};

/* A link to another page's #anchor, checked once every page is read. */
struct pending {
	uint32_t from, to;
	unsigned line;
	const char *fragment;
	const char *href;
};

struct check {
	const char *dir;
	struct lec_warning_set *set;
	struct lec__linkcheck_stats *stats;
	struct arena arena;
	struct file *files;
	size_t nfiles, cap_files;
	struct table file_index;
	struct anchor *anchors;
	size_t nanchors, cap_anchors;
	struct table anchor_index;
	struct pending *pending;
	size_t npending, cap_pending;
	int single; /* one page alone: links to other files not checked */
	/* The page being scanned. */
	uint32_t page;
	const char *html;
	size_t len;
	size_t counted; /* bytes whose newlines are counted */
	unsigned line;  /* at counted */
	char *base;     /* <base href>'s directory, owned; NULL: the page's */
	int base_external; /* <base href> names another site */
	/* What the page has reported or is waiting for: an #anchor link is
	 * checked once per page, and a missing file reported once per page
	 * (a navigation bar repeats links; an index links one page's many
	 * anchors). */
	struct table seen;
	const char **seen_keys;
	size_t cap_seen;
	/* follow()'s work buffers, kept from link to link: a page's
	 * navigation alone is hundreds of links. */
	struct lec__buf href, path, frag, target;
	int error;
};

static int grow(void **items, size_t *cap, size_t n, size_t size)
{
	size_t want;
	void *grown;

	if (n < *cap)
		return LEC_OK;
	want = *cap ? *cap * 2 : 256;
	if ((grown = lec__realloc(*items, want * size)) == NULL)
		return lec__error_oom();
	*items = grown;
	*cap = want;
	return LEC_OK;
}

/* The file with this path, or -1. */
static long file_find(const struct check *c, const char *path, size_t n)
{
	uint64_t h;
	size_t j;

	if (c->file_index.cap == 0)
		return -1;
	h = key_hash(0, path, n);
	for (j = h & (c->file_index.cap - 1); c->file_index.slots[j].entry;
	     j = (j + 1) & (c->file_index.cap - 1)) {
		const struct slot *s = &c->file_index.slots[j];
		const struct file *f = &c->files[s->entry - 1];

		if (s->hash == h && f->len == n && memcmp(f->path, path, n) == 0)
			return (long)s->entry - 1;
	}
	return -1;
}

static int ends_with_nocase(const char *s, size_t n, const char *suffix)
{
	size_t m = strlen(suffix);

	return n >= m && strncasecmp(s + n - m, suffix, m) == 0;
}

static int file_add(struct check *c, const char *path)
{
	size_t n = strlen(path), j;
	struct file *f;
	int error;

	if ((c->file_index.n + 1) * 2 > c->file_index.cap &&
	    (error = table_grow(&c->file_index)) < 0)
		return error;
	if ((error = grow((void **)&c->files, &c->cap_files, c->nfiles,
			  sizeof(*c->files))) < 0)
		return error;
	f = &c->files[c->nfiles];
	if ((f->path = arena_dup(&c->arena, path, n)) == NULL)
		return lec__error_oom();
	f->len = (uint32_t)n;
	f->html = ends_with_nocase(path, n, ".html") ||
		  ends_with_nocase(path, n, ".htm");
	for (j = key_hash(0, path, n) & (c->file_index.cap - 1);
	     c->file_index.slots[j].entry; j = (j + 1) & (c->file_index.cap - 1))
		;
	c->file_index.slots[j].hash = key_hash(0, path, n);
	c->file_index.slots[j].entry = (uint32_t)++c->nfiles;
	c->file_index.n++;
	return LEC_OK;
}

static int anchor_has(const struct check *c, uint32_t page, const char *name,
		      size_t n)
{
	uint64_t h;
	size_t j;

	if (c->anchor_index.cap == 0)
		return 0;
	h = key_hash(page, name, n);
	for (j = h & (c->anchor_index.cap - 1); c->anchor_index.slots[j].entry;
	     j = (j + 1) & (c->anchor_index.cap - 1)) {
		const struct slot *s = &c->anchor_index.slots[j];
		const struct anchor *a = &c->anchors[s->entry - 1];

		if (s->hash == h && a->page == page &&
		    strncmp(a->name, name, n) == 0 && a->name[n] == '\0')
			return 1;
	}
	return 0;
}

static void anchor_add(struct check *c, const char *name, size_t n)
{
	size_t j;
	uint64_t h;

	if (c->error || n == 0 || anchor_has(c, c->page, name, n))
		return;
	if (((c->anchor_index.n + 1) * 2 > c->anchor_index.cap &&
	     (c->error = table_grow(&c->anchor_index)) < 0) ||
	    (c->error = grow((void **)&c->anchors, &c->cap_anchors,
			     c->nanchors, sizeof(*c->anchors))) < 0)
		return;
	c->anchors[c->nanchors].page = c->page;
	if ((c->anchors[c->nanchors].name = arena_dup(&c->arena, name, n)) ==
	    NULL) {
		c->error = lec__error_oom();
		return;
	}
	h = key_hash(c->page, name, n);
	for (j = h & (c->anchor_index.cap - 1); c->anchor_index.slots[j].entry;
	     j = (j + 1) & (c->anchor_index.cap - 1))
		;
	c->anchor_index.slots[j].hash = h;
	c->anchor_index.slots[j].entry = (uint32_t)++c->nanchors;
	c->anchor_index.n++;
}

/* Whether key (n bytes) is new to the page, remembering it; 0 when it
 * was seen before (or memory ran out: nothing more is reported). */
static int seen_first(struct check *c, const char *key, size_t n)
{
	uint64_t h;
	size_t j;

	if (c->error)
		return 0;
	if ((c->seen.n + 1) * 2 > c->seen.cap &&
	    (c->error = table_grow(&c->seen)) < 0)
		return 0;
	h = key_hash(0, key, n);
	for (j = h & (c->seen.cap - 1); c->seen.slots[j].entry;
	     j = (j + 1) & (c->seen.cap - 1)) {
		const char *k = c->seen_keys[c->seen.slots[j].entry - 1];

		if (c->seen.slots[j].hash == h && strncmp(k, key, n) == 0 &&
		    k[n] == '\0')
			return 0;
	}
	if ((c->error = grow((void **)&c->seen_keys, &c->cap_seen, c->seen.n,
			     sizeof(*c->seen_keys))) < 0 ||
	    (c->seen_keys[c->seen.n] = arena_dup(&c->arena, key, n)) == NULL) {
		c->error = c->error < 0 ? c->error : lec__error_oom();
		return 0;
	}
	c->seen.slots[j].hash = h;
	c->seen.slots[j].entry = (uint32_t)++c->seen.n;
	return 1;
}

/* Text ------------------------------------------------------------------- */

static void put_utf8(struct lec__buf *b, unsigned long cp)
{
	char u[4];

	if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		cp = 0xfffd;
	if (cp < 0x80) {
		u[0] = (char)cp;
		lec__buf_putn(b, u, 1);
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		lec__buf_putn(b, u, 2);
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		lec__buf_putn(b, u, 3);
	} else {
		u[0] = (char)(0xf0 | cp >> 18);
		u[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		u[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		lec__buf_putn(b, u, 4);
	}
}

/* The named references attribute values of generated HTML use. */
static const struct {
	const char *name;
	char ch;
} entities[] = {
	{ "amp;", '&' }, { "lt;", '<' }, { "gt;", '>' },
	{ "quot;", '"' }, { "apos;", '\'' },
};

/* An attribute's value with character references replaced (into b,
 * emptied first). */
static void decode_attr(struct lec__buf *b, const char *s, size_t n)
{
	size_t i = 0, k;

	b->len = 0;
	while (i < n) {
		const char *amp = memchr(s + i, '&', n - i);
		size_t run = amp ? (size_t)(amp - s) - i : n - i;

		lec__buf_putn(b, s + i, run);
		i += run;
		if (i >= n)
			break;
		i++; /* the '&' */
		if (i < n && s[i] == '#') {
			unsigned long cp = 0;
			size_t j = i + 1, digits = 0;
			int hex = j < n && (s[j] == 'x' || s[j] == 'X');

			for (j += (size_t)hex; j < n && digits < 8; j++, digits++) {
				int v = hex ? lec__hex_value(s[j])
					    : (s[j] >= '0' && s[j] <= '9'
						       ? s[j] - '0'
						       : -1);

				if (v < 0)
					break;
				cp = cp * (hex ? 16 : 10) + (unsigned long)v;
			}
			if (digits > 0) {
				put_utf8(b, cp);
				i = j < n && s[j] == ';' ? j + 1 : j;
				continue;
			}
		}
		for (k = 0; k < COUNT(entities); k++) {
			size_t m = strlen(entities[k].name);

			if (n - i >= m && memcmp(s + i, entities[k].name, m) == 0) {
				lec__buf_putn(b, &entities[k].ch, 1);
				i += m;
				break;
			}
		}
		if (k == COUNT(entities))
			lec__buf_putn(b, "&", 1);
	}
	lec__buf_putn(b, "", 0);
}

/* s with %XX decoded, into b (emptied first). */
static void percent_decode(struct lec__buf *b, const char *s, size_t n)
{
	size_t i;
	int hi, lo;

	b->len = 0;
	for (i = 0; i < n;) {
		const char *pct = memchr(s + i, '%', n - i);
		size_t run = pct ? (size_t)(pct - s) - i : n - i;

		/* The text up to the next '%' in one copy. */
		lec__buf_putn(b, s + i, run);
		if ((i += run) >= n)
			break;
		if (i + 2 < n && (hi = lec__hex_value(s[i + 1])) >= 0 &&
		    (lo = lec__hex_value(s[i + 2])) >= 0) {
			char ch = (char)(hi * 16 + lo);

			lec__buf_putn(b, &ch, 1);
			i += 3;
		} else {
			lec__buf_putn(b, "%", 1);
			i++;
		}
	}
	lec__buf_putn(b, "", 0);
}

/* lec__path_push, then NUL-terminate out: the checks read it as a
 * string. */
static int push_path(struct lec__buf *out, const char *rel, size_t n)
{
	if (!lec__path_push(out, rel, n))
		return 0;
	lec__buf_putn(out, "", 0);
	return 1;
}

/* The directory part of path ("" for a top-level file). */
static size_t dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) : 0;
}

/* RFC 3986's scheme then ':'. */
static int has_scheme(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') ||
			(s[0] >= 'A' && s[0] <= 'Z')))
		return 0;
	for (i = 1; i < n; i++) {
		char ch = s[i];

		if (ch == ':')
			return 1;
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '+' || ch == '-' ||
		      ch == '.'))
			return 0;
	}
	return 0;
}

/* Links -------------------------------------------------------------------- */

/* The line of offset at in the page, counting on from the last asked. */
static unsigned line_at(struct check *c, size_t at)
{
	const char *p = c->html + c->counted, *end = c->html + at;

	if (at < c->counted) {
		c->counted = 0;
		c->line = 1;
		p = c->html;
	}
	while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		c->line++;
		p++;
	}
	c->counted = at;
	return c->line;
}

static void report(struct check *c, enum lec_warning_kind kind,
		   const char *file, unsigned line, const char *message)
{
	if (!c->error)
		c->error = lec_warning_set_add(c->set, kind, file, line, message);
}

/* A broken link of the page being read. */
static void broken(struct check *c, size_t at, const char *href,
		   const char *why)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *msg;

	c->stats->broken++;
	lec__buf_printf(&b, "broken link '%.*s': %s", HREF_QUOTE_MAX, href,
			why);
	if ((msg = lec__buf_take(&b)) == NULL) {
		c->error = lec__error_oom();
		return;
	}
	report(c, LEC_WARNING_LINK, c->files[c->page].path, line_at(c, at), msg);
	lec__free(msg);
}

static int fragment_passes(const char *frag)
{
	return frag[0] == '\0' || strcasecmp(frag, "top") == 0 ||
	       strncmp(frag, ":~:", 3) == 0;
}

/* An #anchor of page to, checked now (the page read already) or once all
 * are. */
static void want_anchor(struct check *c, size_t at, uint32_t to,
			const char *fragment, const char *href)
{
	struct pending *p;

	/* Even the page's own anchors may come later in it: all wait, each
	 * once per page. */
	if (fragment_passes(fragment) || !seen_first(c, href, strlen(href)))
		return;
	if ((c->error = grow((void **)&c->pending, &c->cap_pending, c->npending,
			     sizeof(*c->pending))) < 0)
		return;
	p = &c->pending[c->npending];
	p->from = c->page;
	p->to = to;
	p->line = line_at(c, at);
	p->fragment = arena_dup(&c->arena, fragment, strlen(fragment));
	p->href = arena_dup(&c->arena, href, strlen(href));
	if (p->fragment == NULL || p->href == NULL)
		c->error = lec__error_oom();
	else
		c->npending++;
}

/* An href of the page being read, at offset at. */
static void follow(struct check *c, size_t at, const char *raw, size_t n)
{
	struct lec__buf *href = &c->href, *path = &c->path, *frag = &c->frag,
			*target = &c->target;
	const char *s, *hash, *query, *page = c->files[c->page].path;
	size_t len, plen, i;
	long to;

	target->len = 0;
	path->len = 0;
	/* URLs drop surrounding white space and any tab or newline. */
	decode_attr(href, raw, n);
	s = href->ptr ? href->ptr : "";
	len = href->len;
	while (len > 0 && strchr(" \t\n\r\f", s[0])) {
		s++;
		len--;
	}
	while (len > 0 && strchr(" \t\n\r\f", s[len - 1]))
		len--;
	for (i = 0; i < len; i++) {
		size_t j = i;

		/* What lies between tabs and newlines, a run at a time. */
		while (j < len && s[j] != '\t' && s[j] != '\n' && s[j] != '\r')
			j++;
		lec__buf_putn(target, s + i, j - i);
		i = j;
	}
	lec__buf_putn(target, "", 0);
	s = target->ptr;
	len = target->len;
	if (len == 0 || has_scheme(s, len) || s[0] == '/' || c->error)
		return;
	c->stats->links++;
	hash = memchr(s, '#', len);
	query = memchr(s, '?', hash ? (size_t)(hash - s) : len);
	plen = query ? (size_t)(query - s) : hash ? (size_t)(hash - s) : len;
	percent_decode(frag, hash ? hash + 1 : "",
		       hash ? len - (size_t)(hash + 1 - s) : 0);
	if (plen == 0) {
		want_anchor(c, at, c->page, frag->ptr, s);
		return;
	}
	if (c->single || c->base_external)
		return;
	/* Where the page's relative links start. */
	if (c->base)
		lec__buf_puts(path, c->base);
	else
		lec__buf_putn(path, page, dir_len(page));
	percent_decode(href, s, plen);
	if (!push_path(path, href->ptr, href->len))
		return; /* above the output: another version's docs */
	if (path->len == 0 || s[plen - 1] == '/')
		lec__buf_puts(path, path->len ? "/index.html" : "index.html");
	if (path->oom || frag->oom || href->oom) {
		c->error = lec__error_oom();
		return;
	}
	if ((to = file_find(c, path->ptr, path->len)) < 0) {
		/* A directory named without its slash. */
		lec__buf_puts(path, "/index.html");
		to = file_find(c, path->ptr, path->len);
	}
	if (to < 0) {
		path->len -= strlen("/index.html");
		path->ptr[path->len] = '\0';
		frag->len = 0;
		lec__buf_printf(frag, "no file %s in the output", path->ptr);
		if (frag->oom)
			c->error = lec__error_oom();
		else if (seen_first(c, frag->ptr, frag->len))
			broken(c, at, s, frag->ptr);
	} else if (c->files[to].html) {
		want_anchor(c, at, (uint32_t)to, frag->ptr, s);
	}
}

/* <base href>: an external one means relative links leave the site; a
 * relative one moves where they start. */
static void set_base(struct check *c, const char *raw, size_t n)
{
	struct lec__buf v = LEC__BUF_INIT, path = LEC__BUF_INIT;
	const char *page = c->files[c->page].path;

	decode_attr(&v, raw, n);
	if (v.ptr == NULL || v.oom) {
		c->error = lec__error_oom();
	} else if (has_scheme(v.ptr, v.len) || v.ptr[0] == '/') {
		c->base_external = 1;
	} else {
		lec__buf_putn(&path, page, dir_len(page));
		if (push_path(&path, v.ptr, dir_len(v.ptr)) && !path.oom) {
			lec__free(c->base);
			c->base = lec__buf_take(&path);
		} else {
			c->base_external = 1;
		}
	}
	lec__buf_dispose(&v);
	lec__buf_dispose(&path);
}

/* Scanning ------------------------------------------------------------------ */

static int is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' ||
	       ch == '\f';
}

static int name_is(const char *s, size_t n, const char *name)
{
	return strlen(name) == n && strncasecmp(s, name, n) == 0;
}

/* The end of a raw-text element's content: its "</name", or the end. */
static size_t raw_text_end(const char *html, size_t len, size_t from,
			   const char *name)
{
	size_t n = strlen(name);
	const char *p = html + from, *end = html + len;

	while ((p = memchr(p, '<', (size_t)(end - p))) != NULL) {
		if ((size_t)(end - p) >= n + 2 && p[1] == '/' &&
		    strncasecmp(p + 2, name, n) == 0)
			return (size_t)(p - html);
		p++;
	}
	return len;
}

/* A start tag's attributes from i (after its name) to its '>'; returns
 * the offset after it. */
static size_t scan_attributes(struct check *c, size_t tag_at, size_t i,
			      const char *tag, size_t tag_len)
{
	const char *h = c->html;
	size_t len = c->len, k;
	int follows = 0, is_base = name_is(tag, tag_len, "base");

	for (k = 0; k < COUNT(link_tags); k++)
		follows |= name_is(tag, tag_len, link_tags[k]);
	while (i < len && h[i] != '>') {
		size_t name_at, name_len, val_at = 0, val_len = 0;

		if (is_space(h[i]) || h[i] == '/') {
			i++;
			continue;
		}
		name_at = i;
		while (i < len && !is_space(h[i]) && h[i] != '=' &&
		       h[i] != '>' && !(h[i] == '/' && i > name_at))
			i++;
		name_len = i - name_at;
		while (i < len && is_space(h[i]))
			i++;
		if (i < len && h[i] == '=') {
			i++;
			while (i < len && is_space(h[i]))
				i++;
			if (i < len && (h[i] == '"' || h[i] == '\'')) {
				const char *close = memchr(h + i + 1, h[i],
							   len - i - 1);

				val_at = i + 1;
				val_len = close ? (size_t)(close - h) - val_at
						: len - val_at;
				i = val_at + val_len + (close ? 1 : 0);
			} else {
				val_at = i;
				while (i < len && !is_space(h[i]) && h[i] != '>')
					i++;
				val_len = i - val_at;
			}
		}
		if (name_len == 0) {
			i++;
			continue;
		}
		if (name_is(h + name_at, name_len, "id") ||
		    name_is(h + name_at, name_len, "name")) {
			struct lec__buf v = LEC__BUF_INIT;

			decode_attr(&v, h + val_at, val_len);
			if (v.oom)
				c->error = lec__error_oom();
			else if (v.ptr)
				anchor_add(c, v.ptr, v.len);
			lec__buf_dispose(&v);
		} else if (name_is(h + name_at, name_len, "href") && follows) {
			follow(c, tag_at, h + val_at, val_len);
		} else if (name_is(h + name_at, name_len, "href") && is_base &&
			   c->base == NULL && !c->base_external) {
			set_base(c, h + val_at, val_len);
		}
	}
	return i < len ? i + 1 : len;
}

/* Skip past the first `close` from `from` (the end when none). */
static size_t skip_past(const char *html, size_t len, size_t from,
			const char *close)
{
	const char *at = memmem(html + from, len - from, close, strlen(close));

	return at ? (size_t)(at - html) + strlen(close) : len;
}

static void scan_page(struct check *c)
{
	const char *h = c->html, *lt;
	size_t len = c->len, i = 0;

	c->counted = 0;
	c->line = 1;
	c->seen.n = 0;
	if (c->seen.slots)
		memset(c->seen.slots, 0, c->seen.cap * sizeof(*c->seen.slots));
	c->base_external = 0;
	lec__free(c->base);
	c->base = NULL;
	while (!c->error && i < len &&
	       (lt = memchr(h + i, '<', len - i)) != NULL) {
		size_t at = (size_t)(lt - h), name_at;

		i = at + 1;
		if (i >= len)
			break;
		if (h[i] == '!') {
			if (len - i >= 3 && memcmp(h + i, "!--", 3) == 0)
				i = skip_past(h, len, i + 3, "-->");
			else if (len - i >= 8 && memcmp(h + i, "![CDATA[", 8) == 0)
				i = skip_past(h, len, i + 8, "]]>");
			else
				i = skip_past(h, len, i, ">");
			continue;
		}
		if (h[i] == '?' || h[i] == '/') {
			i = skip_past(h, len, i, ">");
			continue;
		}
		if (!((h[i] >= 'a' && h[i] <= 'z') || (h[i] >= 'A' && h[i] <= 'Z')))
			continue;
		name_at = i;
		while (i < len && !is_space(h[i]) && h[i] != '>' && h[i] != '/')
			i++;
		{
			const char *tag = h + name_at;
			size_t tag_len = i - name_at;

			i = scan_attributes(c, at, i, tag, tag_len);
			if (name_is(tag, tag_len, "script") ||
			    name_is(tag, tag_len, "style"))
				i = raw_text_end(h, len, i,
						 name_is(tag, tag_len, "script")
							 ? "script"
							 : "style");
		}
	}
}

/* Reading the output ---------------------------------------------------------- */

static int collect_file(const struct lec__walk_at *at,
			enum lec__walk_event event, void *payload)
{
	struct check *c = payload;

	if (event != LEC__WALK_ENTRY || !S_ISREG(at->st->st_mode))
		return 0;
	return file_add(c, at->path);
}

/* Read file f whole (up to LEC__LINKCHECK_PAGE_MAX) into *buf. */
static int read_page(struct check *c, const struct file *f, char **buf,
		     size_t *cap, size_t *len)
{
	struct stat sb;
	size_t want, got = 0;
	int fd = -1, error;

	if ((error = lec__open_in(c->dir, f->path, LEC__OPEN_FILE, &fd)) < 0)
		return error;
	if (fstat(fd, &sb) < 0) {
		close(fd);
		return lec__error(LEC_EIO, "%s: %s", f->path, strerror(errno));
	}
	want = (size_t)sb.st_size < LEC__LINKCHECK_PAGE_MAX
		       ? (size_t)sb.st_size
		       : LEC__LINKCHECK_PAGE_MAX;
	if (want + 1 > *cap) {
		char *grown = lec__realloc(*buf, want + 1);

		if (grown == NULL) {
			close(fd);
			return lec__error_oom();
		}
		*buf = grown;
		*cap = want + 1;
	}
	while (got < want) {
		ssize_t n = read(fd, *buf + got, want - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	(*buf)[got] = '\0';
	*len = got;
	return LEC_OK;
}

static void check_pending(struct check *c)
{
	struct lec__buf b = LEC__BUF_INIT;
	size_t i;

	for (i = 0; i < c->npending && !c->error; i++) {
		const struct pending *p = &c->pending[i];
		char *msg;

		if (anchor_has(c, p->to, p->fragment, strlen(p->fragment)))
			continue;
		c->stats->broken++;
		lec__buf_printf(&b, "broken link '%.*s': no anchor #%s in %s",
				HREF_QUOTE_MAX, p->href, p->fragment,
				c->files[p->to].path);
		if ((msg = lec__buf_take(&b)) == NULL) {
			c->error = lec__error_oom();
			break;
		}
		report(c, LEC_WARNING_LINK, c->files[p->from].path, p->line, msg);
		lec__free(msg);
	}
}

/* Inventory -------------------------------------------------------------------- */

/* The sorted lines of this output's inventory, in the arena. */
static int inventory_lines(struct check *c, char ***out, size_t *n)
{
	struct lec__buf b = LEC__BUF_INIT;
	size_t i, cap = 0, len = 0;
	char **lines = NULL;
	int error = LEC_OK;

	for (i = 0; error == LEC_OK && i < c->nfiles + c->nanchors; i++) {
		const char *page;

		if (i < c->nfiles && !c->files[i].html)
			continue;
		if (i >= c->nfiles &&
		    !lec__inventory_keeps(c->anchors[i - c->nfiles].name))
			continue;
		b.len = 0;
		page = i < c->nfiles ? c->files[i].path
				     : c->files[c->anchors[i - c->nfiles].page].path;
		lec__inventory_put(
			&b, page,
			i < c->nfiles ? NULL : c->anchors[i - c->nfiles].name);
		if (b.oom ||
		    (error = grow((void **)&lines, &cap, len, sizeof(*lines))) < 0 ||
		    (lines[len] = arena_dup(&c->arena, b.ptr, b.len)) == NULL) {
			error = error < 0 ? error : lec__error_oom();
			break;
		}
		len++;
	}
	lec__buf_dispose(&b);
	if (error < 0) {
		lec__free(lines);
		return error;
	}
	lec__inventory_sort(lines, len);
	*out = lines;
	*n = len;
	return LEC_OK;
}

/* A page or anchor of the last good build this output lacks: a `removed`
 * record. */
static int removed_one(void *payload, const char *page, const char *anchor)
{
	struct check *c = payload;
	struct lec__buf msg = LEC__BUF_INIT;

	c->stats->removed++;
	if (anchor)
		lec__buf_printf(&msg,
				"removed anchor #%s of %s, which the last "
				"good build had",
				anchor, page);
	else
		lec__buf_printf(&msg,
				"removed page %s, which the last good "
				"build published",
				page);
	if (msg.oom)
		c->error = lec__error_oom();
	else
		report(c, LEC_WARNING_REMOVED, page, 0, msg.ptr);
	lec__buf_dispose(&msg);
	return c->error;
}

/* Whole checks ------------------------------------------------------------------ */

static void check_dispose(struct check *c)
{
	arena_free(&c->arena);
	lec__free(c->files);
	lec__free(c->file_index.slots);
	lec__free(c->anchors);
	lec__free(c->anchor_index.slots);
	lec__free(c->pending);
	lec__free(c->base);
	lec__free(c->seen.slots);
	lec__free(c->seen_keys);
	lec__buf_dispose(&c->href);
	lec__buf_dispose(&c->path);
	lec__buf_dispose(&c->frag);
	lec__buf_dispose(&c->target);
}

int lec__linkcheck(const char *dir, struct lec_warning_set *set,
		   const char *prev, size_t prev_len, char **inventory,
		   size_t *inventory_len, struct lec__linkcheck_stats *stats)
{
	struct lec__linkcheck_stats ignored;
	struct check c;
	char *buf = NULL, **lines = NULL;
	size_t cap = 0, i, nlines = 0;
	struct stat sb;
	int error;

	lec_error_clear();
	if (inventory) {
		*inventory = NULL;
		*inventory_len = 0;
	}
	memset(&c, 0, sizeof(c));
	memset(stats ? stats : &ignored, 0, sizeof(ignored));
	c.dir = dir;
	c.set = set;
	c.stats = stats ? stats : &ignored;
	if (stat(dir, &sb) < 0 || !S_ISDIR(sb.st_mode))
		return lec__error(LEC_EIO, "%s: not a directory to check", dir);
	if ((error = lec__walk(AT_FDCWD, dir, collect_file, &c)) < 0)
		goto done;
	for (i = 0; i < c.nfiles && !c.error; i++) {
		if (!c.files[i].html)
			continue;
		if ((error = read_page(&c, &c.files[i], &buf, &cap, &c.len)) < 0) {
			/* A page that vanished or cannot be opened beneath dir
			 * has no links to check. */
			if (error == LEC_ENOMEM)
				goto done;
			continue;
		}
		c.stats->pages++;
		c.page = (uint32_t)i;
		c.html = buf;
		scan_page(&c);
	}
	if (!c.error)
		check_pending(&c);
	if (!c.error && (inventory || prev))
		c.error = inventory_lines(&c, &lines, &nlines);
	if (!c.error && prev)
		c.error = lec__inventory_compare(lines, nlines, prev, prev_len,
						 removed_one, &c);
	if (!c.error && inventory)
		c.error = lec__inventory_text(lines, nlines, inventory,
					      inventory_len);
	error = c.error;
done:
	lec__free(lines);
	lec__free(buf);
	check_dispose(&c);
	return error;
}

int lec__linkcheck_page(const char *html, size_t len, const char *page,
			struct lec_warning_set *set,
			struct lec__linkcheck_stats *stats)
{
	struct lec__linkcheck_stats ignored;
	struct check c;
	int error;

	lec_error_clear();
	memset(&c, 0, sizeof(c));
	memset(stats ? stats : &ignored, 0, sizeof(ignored));
	c.set = set;
	c.stats = stats ? stats : &ignored;
	c.single = 1;
	if ((error = file_add(&c, page)) == LEC_OK) {
		c.html = html;
		c.len = len;
		c.stats->pages = 1;
		scan_page(&c);
		if (!c.error)
			check_pending(&c);
		error = c.error;
	}
	check_dispose(&c);
	return error;
}
