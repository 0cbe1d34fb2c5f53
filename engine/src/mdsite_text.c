/*
 * Text helpers of the Markdown site generator: the string map it builds
 * pages with (their bytes go into the engine's struct lec__buf), UTF-8
 * repair (a page with stray Latin-1 bytes must still render, never crash),
 * HTML and URL escaping, entity decoding, and heading slugs as GitHub makes
 * them, duplicates told apart its way. Everything here runs once per byte
 * of every page, so the common cases (ASCII, nothing to escape) are handled
 * in bulk.
 */
#include <libxml/HTMLparser.h>
#include <md4c-html.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unicase.h>
#include <unictype.h>
#include <unistr.h>

#include "hash.h"
#include "mdsite_internal.h"

/* First map size; it doubles when 3/4 full. */
#define MAP_MIN_CAP 64
/* The most digits a numeric entity may have (CommonMark). */
#define ENTITY_DIGITS_MAX 8

static const char replacement_char[] = "\xEF\xBF\xBD"; /* U+FFFD */

/* Map --------------------------------------------------------------------- */

static struct lec_mdsite__map_slot *
map_find(const struct lec_mdsite__map *m, const char *key, size_t n)
{
	size_t i;

	if (m->cap == 0)
		return NULL;
	i = (size_t)lec__fnv1a(key, n) & (m->cap - 1);
	while (m->slots[i].key != NULL) {
		if (strncmp(m->slots[i].key, key, n) == 0 &&
		    m->slots[i].key[n] == '\0')
			return &m->slots[i];
		i = (i + 1) & (m->cap - 1);
	}
	return &m->slots[i];
}

static int map_grow(struct lec_mdsite__map *m)
{
	struct lec_mdsite__map bigger = LEC_MDSITE__MAP_INIT;
	size_t i;

	bigger.cap = m->cap ? m->cap * 2 : MAP_MIN_CAP;
	bigger.slots = lec__calloc(bigger.cap, sizeof(*bigger.slots));
	LEC__CHECK_ALLOC(bigger.slots);
	for (i = 0; i < m->cap; i++) {
		const char *key = m->slots[i].key;

		if (key != NULL)
			*map_find(&bigger, key, strlen(key)) = m->slots[i];
	}
	bigger.len = m->len;
	lec__free(m->slots);
	*m = bigger;
	return LEC_OK;
}

size_t *lec_mdsite__map_get(const struct lec_mdsite__map *m, const char *key,
			    size_t n)
{
	struct lec_mdsite__map_slot *slot = map_find(m, key, n);

	return slot && slot->key ? &slot->value : NULL;
}

int lec_mdsite__map_put(struct lec_mdsite__map *m, const char *key, size_t n,
			size_t value)
{
	struct lec_mdsite__map_slot *slot;
	int error;

	if ((m->len + 1) * 4 > m->cap * 3 && (error = map_grow(m)) < 0)
		return error;
	slot = map_find(m, key, n);
	if (slot->key == NULL) {
		slot->key = lec__strndup(key, n);
		LEC__CHECK_ALLOC(slot->key);
		m->len++;
	}
	slot->value = value;
	return LEC_OK;
}

static const size_t slot_texts[] = {
	offsetof(struct lec_mdsite__map_slot, key),
};

void lec_mdsite__map_dispose(struct lec_mdsite__map *m)
{
	LEC__ITEMS_TEXTS_FREE(m->slots, m->cap, slot_texts);
	m->slots = NULL;
	m->cap = m->len = 0;
}

/* UTF-8 ------------------------------------------------------------------- */

/* How many bytes from s (n available) form the longest valid prefix of a
 * multi-byte sequence starting with a lead byte, and whether it completes
 * one: returns the sequence length when complete, else -(valid prefix). */
static int utf8_sequence(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xBF;
	int len, i;

	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		len = 2;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		len = 3;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		len = 4;
	else
		return -1;
	if (s[0] == 0xE0)
		lo = 0xA0; /* overlong */
	else if (s[0] == 0xED)
		hi = 0x9F; /* surrogates */
	else if (s[0] == 0xF0)
		lo = 0x90; /* overlong */
	else if (s[0] == 0xF4)
		hi = 0x8F; /* above U+10FFFF */
	for (i = 1; i < len; i++) {
		if ((size_t)i >= n || s[i] < lo || s[i] > hi)
			return -i;
		lo = 0x80;
		hi = 0xBF;
	}
	return len;
}

/* ASCII that HTML text may hold: printable, and whitespace (HTML forbids
 * the other control characters). */
static int plain_byte(unsigned char c)
{
	return (c >= 0x20 && c < 0x7F) || c == '\t' || c == '\n' ||
	       c == '\r' || c == '\f';
}

/* Whether 8 bytes are all printable ASCII: no high bit, none below 0x20,
 * no DEL ("has less than" and "has zero byte" from Bit Twiddling Hacks). */
static int plain_word(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ull;
	const uint64_t highs = 0x8080808080808080ull;
	uint64_t del = w ^ (0x7F * ones);

	return (w & highs) == 0 && ((w - 0x20 * ones) & ~w & highs) == 0 &&
	       ((del - ones) & ~del & highs) == 0;
}

/* Bytes of s from i on that are plain ASCII, a word at a time; a word with
 * a line break is checked byte by byte. */
static size_t ascii_run(const unsigned char *s, size_t n, size_t i)
{
	for (;;) {
		size_t end;
		uint64_t word;

		while (i + sizeof(word) <= n) {
			memcpy(&word, s + i, sizeof(word));
			if (!plain_word(word))
				break;
			i += sizeof(word);
		}
		end = i + sizeof(word) < n ? i + sizeof(word) : n;
		while (i < end && plain_byte(s[i]))
			i++;
		if (i < end || i >= n)
			return i;
	}
}

/* The code point of a valid sequence of len bytes. */
static uint32_t decode(const unsigned char *s, int len)
{
	uint32_t c = s[0] & (0xFFu >> (len + 1));
	int i;

	for (i = 1; i < len; i++)
		c = (c << 6) | (s[i] & 0x3Fu);
	return c;
}

/* C1 controls and noncharacters: valid UTF-8 that HTML forbids. */
static int forbidden(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9F) || (c >= 0xFDD0 && c <= 0xFDEF) ||
	       (c & 0xFFFE) == 0xFFFE;
}

size_t lec_mdsite__utf8_repair(const char *text, size_t n,
			       struct lec__buf *out)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, copied = 0, replaced = 0;

	for (;;) {
		int len;

		i = ascii_run(s, n, i);
		if (i >= n)
			break;
		len = s[i] < 0x80 ? -1 : utf8_sequence(s + i, n - i);
		if (len > 0 && !forbidden(decode(s + i, len))) {
			i += (size_t)len;
			continue;
		}
		lec__buf_putn(out, text + copied, i - copied);
		lec__buf_putn(out, replacement_char, 3);
		i += (size_t)(len > 0 ? len : -len);
		copied = i;
		replaced++;
	}
	if (replaced)
		lec__buf_putn(out, text + copied, n - copied);
	return replaced;
}

/* Escaping ---------------------------------------------------------------- */

void lec_mdsite__html_escape(struct lec__buf *out, const char *s,
			     size_t n)
{
	size_t i, start = 0;

	if (n == 0)
		return; /* s may be NULL (an empty buffer): no s + 0 below */
	for (i = 0; i < n; i++) {
		const char *rep;

		switch (s[i]) {
		case '&':
			rep = "&amp;";
			break;
		case '<':
			rep = "&lt;";
			break;
		case '>':
			rep = "&gt;";
			break;
		case '"':
			rep = "&quot;";
			break;
		default:
			continue;
		}
		lec__buf_putn(out, s + start, i - start);
		lec__buf_puts(out, rep);
		start = i + 1;
	}
	lec__buf_putn(out, s + start, n - start);
}

/* Bytes a URL keeps as they are (md4c-html's set): '%' so that an already
 * encoded URL is not encoded twice. */
static int url_safe(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') ||
	       (c != '\0' && strchr("~-_.+!*(),%#@?=;:/$", c) != NULL);
}

void lec_mdsite__url_escape(struct lec__buf *out, const char *s,
			    size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i, start = 0;

	if (n == 0)
		return; /* s may be NULL (an empty URL): no s + 0 below */
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (url_safe(c))
			continue;
		lec__buf_putn(out, s + start, i - start);
		if (c == '&') {
			lec__buf_puts(out, "&amp;");
		} else {
			char enc[3] = { '%', hex[c >> 4], hex[c & 15] };

			lec__buf_putn(out, enc, sizeof(enc));
		}
		start = i + 1;
	}
	lec__buf_putn(out, s + start, n - start);
}

/* Append code point c as UTF-8; invalid ones as U+FFFD. */
static void put_codepoint(struct lec__buf *out, ucs4_t c)
{
	uint8_t enc[6];
	int len;

	if (c == 0 || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		c = 0xFFFD;
	len = u8_uctomb(enc, c, (int)sizeof(enc));
	if (len > 0)
		lec__buf_putn(out, (const char *)enc, (size_t)len);
}

static int numeric_entity(struct lec__buf *out, const char *s,
			  size_t n)
{
	int hex = n > 3 && (s[2] == 'x' || s[2] == 'X');
	size_t i = hex ? 3 : 2;
	uint32_t value = 0;

	if (n - 1 <= i || n - 1 - i > ENTITY_DIGITS_MAX)
		return 0;
	for (; i < n - 1; i++) {
		char c = s[i];
		unsigned digit;

		if (c >= '0' && c <= '9')
			digit = (unsigned)(c - '0');
		else if (hex && c >= 'a' && c <= 'f')
			digit = (unsigned)(c - 'a' + 10);
		else if (hex && c >= 'A' && c <= 'F')
			digit = (unsigned)(c - 'A' + 10);
		else
			return 0;
		value = value * (hex ? 16u : 10u) + digit;
	}
	put_codepoint(out, value);
	return 1;
}

static void append_output(const MD_CHAR *text, MD_SIZE size, void *userdata)
{
	lec__buf_putn(userdata, text, size);
}

/* A named entity libxml2 does not know (it has HTML 4's 253, HTML5 has over
 * 2,000): md4c-html knows them all, and rendering the entity alone gives
 * "<p>X</p>\n" with X the text escaped, or "&amp;name;" when unknown. */
static int html5_entity(struct lec__buf *out, const char *s, size_t n)
{
	static const char *const escapes[][2] = {
		{ "&amp;", "&" }, { "&lt;", "<" }, { "&gt;", ">" },
		{ "&quot;", "\"" },
	};
	struct lec__buf html = LEC__BUF_INIT;
	size_t i, k;
	int known;

	md_html(s, (MD_SIZE)n, append_output, &html, 0, 0);
	known = !html.oom && html.len > 8 &&
		memcmp(html.ptr, "<p>", 3) == 0 &&
		memcmp(html.ptr + html.len - 5, "</p>\n", 5) == 0 &&
		memcmp(html.ptr + 3, "&amp;", 5) != 0;
	for (i = 3; known && i < html.len - 5; i++) {
		for (k = 0; k < sizeof(escapes) / sizeof(escapes[0]); k++) {
			size_t len = strlen(escapes[k][0]);

			if (strncmp(html.ptr + i, escapes[k][0], len) == 0)
				break;
		}
		if (k == sizeof(escapes) / sizeof(escapes[0])) {
			lec__buf_putc(out, html.ptr[i]);
			continue;
		}
		lec__buf_puts(out, escapes[k][1]);
		i += strlen(escapes[k][0]) - 1;
	}
	if (html.oom)
		out->oom = 1;
	lec__buf_dispose(&html);
	return known;
}

int lec_mdsite__entity_decode(struct lec__buf *out, const char *s,
			      size_t n)
{
	char name[64];
	const htmlEntityDesc *desc;

	if (n < 3 || s[0] != '&' || s[n - 1] != ';')
		return 0;
	if (s[1] == '#')
		return numeric_entity(out, s, n);
	if (n - 2 >= sizeof(name))
		return 0;
	memcpy(name, s + 1, n - 2);
	name[n - 2] = '\0';
	desc = htmlEntityLookup((const xmlChar *)name);
	if (desc == NULL)
		return html5_entity(out, s, n);
	put_codepoint(out, desc->value);
	return 1;
}

/* Slugs ------------------------------------------------------------------- */

/* What a heading's slug keeps, as GitHub does (its \p{Word}): letters,
 * marks (so a decomposed "é" stays one word), decimal and letter numbers
 * and connector punctuation ('_'), besides '-' and ' ' (which becomes
 * '-'). Other punctuation and symbols are dropped, not made separators:
 * "fs.watch()" is "fswatch", the anchor writers link to on GitHub. */
static int slug_keeps(ucs4_t c)
{
	if (c < 0x80)
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		       (c >= '0' && c <= '9') || c == '_' || c == '-' ||
		       c == ' ';
	return uc_is_general_category(
		c, uc_general_category_or(
			   uc_general_category_or(UC_CATEGORY_L, UC_CATEGORY_M),
			   uc_general_category_or(
				   uc_general_category_or(UC_CATEGORY_Nd,
							  UC_CATEGORY_Nl),
				   UC_CATEGORY_Pc)));
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void lec_mdsite__slugify(struct lec__buf *out, const char *text,
			 size_t n)
{
	const uint8_t *s = (const uint8_t *)text;
	size_t i = 0, start = out->len;

	/* The heading's text as shown: no blanks at either end. */
	while (n > 0 && is_blank(text[n - 1]))
		n--;
	while (i < n && is_blank(text[i]))
		i++;
	while (i < n) {
		ucs4_t c;
		uint8_t enc[6];
		int len = u8_mbtouc(&c, s + i, n - i);

		i += (size_t)(len > 0 ? len : 1);
		if (len <= 0 || !slug_keeps(c))
			continue;
		if (c == ' ') {
			enc[0] = '-';
			len = 1;
		} else {
			len = u8_uctomb(enc, uc_tolower(c), (int)sizeof(enc));
		}
		if (len <= 0)
			continue;
		if (out->len - start + (size_t)len > LEC_MDSITE_SLUG_MAX) {
			/* Cut at a character; a cut slug ends in no '-'. */
			while (out->len > start && out->ptr[out->len - 1] == '-')
				out->len--;
			break;
		}
		lec__buf_putn(out, (const char *)enc, (size_t)len);
	}
	if (out->len == start)
		lec__buf_puts(out, "section");
}

int lec_mdsite__unique_id(struct lec_mdsite__map *used,
			  struct lec__buf *id)
{
	size_t base_len = id->len;
	int error;

	if (id->oom)
		return lec__error_oom();
	/* used maps each base slug to how many suffixes it has handed out,
	 * and each id given to 0. */
	while (lec_mdsite__map_get(used, id->ptr, id->len) != NULL) {
		size_t *base = lec_mdsite__map_get(used, id->ptr, base_len);
		char suffix[24];
		int len;

		(*base)++;
		len = snprintf(suffix, sizeof(suffix), "-%zu", *base);
		id->len = base_len;
		lec__buf_putn(id, suffix, (size_t)len);
		if (id->oom)
			return lec__error_oom();
	}
	if ((error = lec_mdsite__map_put(used, id->ptr, id->len, 0)) < 0)
		return error;
	return LEC_OK;
}
