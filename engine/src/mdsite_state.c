/*
 * The Markdown site generator's kept state (lectern/mdsite.h, state_dir):
 * the manifest that lets the next build reuse pages, and the stamp that
 * tells one build of Lectern's generator from another.
 *
 * The manifest is one text file, written whole by mdsite.c (a temporary
 * file renamed over the old one) and read whole here. It names the
 * generator that wrote it, a digest of everything that frames every page
 * (the site's title, the page list, each page's title: the navigation and
 * previous/next links), and per page the SHA-256 of its source's bytes,
 * the SHA-256 and size of its HTML (kept under the state's pages/), its
 * output path, its source and its first h1. Paths and titles may hold any
 * byte but NUL (a file name may hold a newline), so strings are written
 * with their length before them:
 *
 *   lectern-mdsite-state 1
 *   generator <build ids>
 *   site <sha-256 hex>
 *   page <source sha-256|-> <html sha-256> <size> <n>:<out> <n>:<src> <n>:<title>|-
 *   ...
 *   end <number of pages>
 *
 * "-" as a page's digest means never reuse it (the generated index, which
 * has no source, and a page whose source could not be read); "-" as its
 * title means the page has no h1. Anything else, a manifest cut short or
 * with one byte out of place, is refused whole, and the build that reads
 * it starts fresh.
 */
#include <elf.h>
#include <inttypes.h>
#include <link.h>
#include <md4c.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "lectern/mdsite.h"
#include "mdsite_internal.h"

/* The manifest's first line; the number changes with its layout. */
#define MAGIC "lectern-mdsite-state "
#define HEADER MAGIC "1\n"
/* Longest build id read: GNU ld writes 20 bytes (SHA-1) by default, 16
 * (md5) or 32 (sha256) on request; more is not a build id we know. */
#define BUILD_ID_MAX 32
/* Digits of the largest 64-bit number. */
#define NUMBER_DIGITS_MAX 20

/* Parsing ----------------------------------------------------------------- */

struct cursor {
	const char *p;
	const char *end;
};

static int bad(const char *what)
{
	return lec__error(LEC_EINVALID, "the mdsite state is not valid: %s",
			  what);
}

/* The literal text s next; 1 when taken. */
static int take(struct cursor *c, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n) != 0)
		return 0;
	c->p += n;
	return 1;
}

/* A decimal number as put_number writes it: no sign, no leading zero. */
static int take_number(struct cursor *c, uint64_t *out)
{
	size_t digits = 0;
	uint64_t v = 0;

	if (c->end - c->p >= 2 && c->p[0] == '0' && c->p[1] >= '0' &&
	    c->p[1] <= '9')
		return 0;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		unsigned d = (unsigned)(*c->p - '0');

		if (++digits > NUMBER_DIGITS_MAX || v > (UINT64_MAX - d) / 10)
			return 0;
		v = v * 10 + d;
		c->p++;
	}
	*out = v;
	return digits > 0;
}

/* 64 lowercase hex digits into out, or "-" (out becomes ""). */
static int take_digest(struct cursor *c, char out[LEC__SHA256_HEX_LEN + 1])
{
	size_t i;

	out[0] = '\0';
	if (take(c, "-"))
		return 1;
	if (c->end - c->p < LEC__SHA256_HEX_LEN)
		return 0;
	for (i = 0; i < LEC__SHA256_HEX_LEN; i++) {
		char h = c->p[i];

		if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f')))
			return 0;
		out[i] = h;
	}
	out[i] = '\0';
	c->p += LEC__SHA256_HEX_LEN;
	return 1;
}

/* "<n>:<n bytes>" as a string owned by the caller (*out NULL and 0 when
 * malformed or holding a NUL; LEC_ENOMEM sets *oom). */
static int take_string(struct cursor *c, char **out, int *oom)
{
	uint64_t n;

	*out = NULL;
	if (!take_number(c, &n) || !take(c, ":") ||
	    n > (uint64_t)(c->end - c->p) || memchr(c->p, '\0', (size_t)n))
		return 0;
	if ((*out = lec__strndup(c->p, (size_t)n)) == NULL) {
		*oom = 1;
		return 0;
	}
	c->p += n;
	return 1;
}

/* The generator stamp: hex digits and '+', up to the line's end. */
static int take_stamp(struct cursor *c, char **out, int *oom)
{
	const char *start = c->p;

	while (c->p < c->end && strchr("0123456789abcdef+", *c->p) &&
	       *c->p != '\0')
		c->p++;
	if (c->p == start || (size_t)(c->p - start) > LEC_MDSITE__STAMP_MAX)
		return 0;
	if ((*out = lec__strndup(start, (size_t)(c->p - start))) == NULL) {
		*oom = 1;
		return 0;
	}
	return 1;
}

static int grow_pages(struct lec_mdsite__state *st, size_t *cap)
{
	size_t n = *cap ? *cap * 2 : 64;
	void *p;

	if (st->npages < *cap)
		return LEC_OK;
	p = lec__realloc(st->pages, n * sizeof(*st->pages));
	LEC__CHECK_ALLOC(p);
	st->pages = p;
	*cap = n;
	return LEC_OK;
}

/* One "page ..." line after its keyword. */
static int take_page(struct cursor *c, struct lec_mdsite__kept_page *k,
		     int *oom)
{
	memset(k, 0, sizeof(*k));
	if (!take_digest(c, k->hash) || !take(c, " ") ||
	    !take_digest(c, k->html) || k->html[0] == '\0' || !take(c, " ") ||
	    !take_number(c, &k->size) || !take(c, " ") ||
	    !take_string(c, &k->out_rel, oom) || !take(c, " ") ||
	    !take_string(c, &k->src_rel, oom) || !take(c, " "))
		return 0;
	if (!take(c, "-") && !take_string(c, &k->title, oom))
		return 0;
	return take(c, "\n") && k->out_rel[0] != '\0';
}

static void kept_page_dispose(void *item)
{
	struct lec_mdsite__kept_page *k = item;

	lec__free(k->out_rel);
	lec__free(k->src_rel);
	lec__free(k->title);
}

int lec_mdsite__state_parse(const char *text, size_t len,
			    struct lec_mdsite__state *out)
{
	struct cursor c = { text, text + len };
	size_t cap = 0;
	uint64_t count;
	int oom = 0, error = LEC_OK;

	memset(out, 0, sizeof(*out));
	if (!take(&c, HEADER)) {
		error = bad("unknown format");
		goto done;
	}
	if (!take(&c, "generator ") || !take_stamp(&c, &out->generator, &oom) ||
	    !take(&c, "\nsite ") || !take_digest(&c, out->site) ||
	    out->site[0] == '\0' || !take(&c, "\n")) {
		error = oom ? lec__error_oom() : bad("bad header");
		goto done;
	}
	while (take(&c, "page ")) {
		struct lec_mdsite__kept_page *k;

		if ((error = grow_pages(out, &cap)) < 0)
			goto done;
		k = &out->pages[out->npages];
		if (!take_page(&c, k, &oom)) {
			kept_page_dispose(k);
			error = oom ? lec__error_oom() : bad("bad page line");
			goto done;
		}
		out->npages++;
		if (lec_mdsite__map_get(&out->by_out, k->out_rel,
					strlen(k->out_rel)) != NULL) {
			error = bad("a page listed twice");
			goto done;
		}
		if ((error = lec_mdsite__map_put(&out->by_out, k->out_rel,
						 strlen(k->out_rel),
						 out->npages - 1)) < 0)
			goto done;
	}
	if (!take(&c, "end ") || !take_number(&c, &count) || !take(&c, "\n") ||
	    c.p != c.end || count != out->npages)
		error = bad("cut short");
done:
	if (error < 0)
		lec_mdsite__state_dispose(out);
	return error;
}

int lec_mdsite__state_foreign(const char *text, size_t len)
{
	return len >= sizeof(HEADER) - 1 && memcmp(text, MAGIC,
						     sizeof(MAGIC) - 1) == 0 &&
	       memcmp(text, HEADER, sizeof(HEADER) - 1) != 0;
}

void lec_mdsite__state_dispose(struct lec_mdsite__state *st)
{
	if (st == NULL)
		return;
	LEC__ITEMS_FREE(st->pages, st->npages, kept_page_dispose);
	lec__free(st->generator);
	lec_mdsite__map_dispose(&st->by_out);
	memset(st, 0, sizeof(*st));
}

const struct lec_mdsite__kept_page *
lec_mdsite__state_find(const struct lec_mdsite__state *st,
		       const char *out_rel)
{
	size_t *i = lec_mdsite__map_get(&st->by_out, out_rel, strlen(out_rel));

	return i ? &st->pages[*i] : NULL;
}

/* Writing ----------------------------------------------------------------- */

static void put_number(struct lec__buf *out, uint64_t n)
{
	char digits[NUMBER_DIGITS_MAX + 1];

	snprintf(digits, sizeof(digits), "%" PRIu64, n);
	lec__buf_puts(out, digits);
}

void lec_mdsite__state_put_string(struct lec__buf *out, const char *s)
{
	put_number(out, strlen(s));
	lec__buf_putc(out, ':');
	lec__buf_puts(out, s);
}

void lec_mdsite__state_put_header(struct lec__buf *out,
				  const char *generator, const char *site)
{
	lec__buf_puts(out, HEADER "generator ");
	lec__buf_puts(out, generator);
	lec__buf_puts(out, "\nsite ");
	lec__buf_puts(out, site);
	lec__buf_putc(out, '\n');
}

void lec_mdsite__state_put_page(struct lec__buf *out,
				const struct lec_mdsite__kept_page *k)
{
	lec__buf_puts(out, "page ");
	lec__buf_puts(out, k->hash[0] ? k->hash : "-");
	lec__buf_putc(out, ' ');
	lec__buf_puts(out, k->html);
	lec__buf_putc(out, ' ');
	put_number(out, k->size);
	lec__buf_putc(out, ' ');
	lec_mdsite__state_put_string(out, k->out_rel);
	lec__buf_putc(out, ' ');
	lec_mdsite__state_put_string(out, k->src_rel);
	lec__buf_putc(out, ' ');
	if (k->title)
		lec_mdsite__state_put_string(out, k->title);
	else
		lec__buf_putc(out, '-');
	lec__buf_putc(out, '\n');
}

void lec_mdsite__state_put_end(struct lec__buf *out, size_t npages)
{
	lec__buf_puts(out, "end ");
	put_number(out, npages);
	lec__buf_putc(out, '\n');
}

/* The generator's stamp ----------------------------------------------------- */

/* Looking for the build id of the loaded object that holds `addr`. */
struct build_id_search {
	uintptr_t addr;
	char hex[2 * BUILD_ID_MAX + 1]; /* "" until found */
};

static int holds_address(const struct dl_phdr_info *info, uintptr_t addr)
{
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && addr >= start &&
		    addr - start < ph->p_memsz)
			return 1;
	}
	return 0;
}

/* The GNU build id note in one PT_NOTE segment, hex into out. Notes are
 * padded to the segment's alignment (4, or 8 for .note.gnu.property). */
static int note_build_id(const char *p, size_t len, size_t align, char *out)
{
	const char *end = p + len;

	while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
		const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(const void *)p;
		size_t name = (n->n_namesz + align - 1) & ~(align - 1);
		size_t desc = (n->n_descsz + align - 1) & ~(align - 1);
		const char *body = p + sizeof(*n);

		if (name > (size_t)(end - body) ||
		    desc > (size_t)(end - body) - name)
			return 0;
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
		    memcmp(body, "GNU", 4) == 0 && n->n_descsz > 0 &&
		    n->n_descsz <= BUILD_ID_MAX) {
			lec__hex((const unsigned char *)body + name,
				 n->n_descsz, out);
			return 1;
		}
		p = body + name + desc;
	}
	return 0;
}

static int find_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
	struct build_id_search *b = data;
	int i;

	(void)size;
	if (!holds_address(info, b->addr))
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_NOTE &&
		    note_build_id((const char *)(info->dlpi_addr + ph->p_vaddr),
				  ph->p_memsz, ph->p_align == 8 ? 8 : 4,
				  b->hex))
			break;
	}
	return 1; /* the object is found, with or without an id */
}

/* The stamp, worked out once: the loaded objects do not change. */
static char stamp[LEC_MDSITE__STAMP_MAX + 1];

static void make_stamp(void)
{
	struct build_id_search self = { 0 }, md4c = { 0 };

	/* Function pointers as addresses: POSIX's dlsym already relies on the
	 * two converting both ways. This file's own function finds the
	 * object the generator is linked into, as it is linked with it. */
	self.addr = (uintptr_t)(void *)lec_mdsite__generator_stamp;
	md4c.addr = (uintptr_t)(void *)md_parse;
	dl_iterate_phdr(find_build_id, &self);
	dl_iterate_phdr(find_build_id, &md4c);
	if (self.hex[0] == '\0' || md4c.hex[0] == '\0')
		return;
	if (strcmp(self.hex, md4c.hex) == 0)
		snprintf(stamp, sizeof(stamp), "%s", self.hex);
	else
		snprintf(stamp, sizeof(stamp), "%s+%s", self.hex, md4c.hex);
}

const char *lec_mdsite__generator_stamp(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, make_stamp);
	return stamp[0] ? stamp : NULL;
}
