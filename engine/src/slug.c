/*
 * The service's slug rules, so that projects and versions created locally
 * get the same URLs they would get on the hosted service.
 *
 * Project slugs follow Django's slugify plus the service's DNS-safe pass
 * (behaviour notes §6.5); version slugs follow unicode-slugify with
 * transliteration to ASCII (§6.4). Both are computed in one pass over the
 * normalised text by a small state machine that collapses separator runs,
 * strips them at the ends and stops at the length limit, so even a huge
 * input costs one normalisation and no growing buffers. libunistring does
 * the Unicode work (normalisation, general categories); invalid UTF-8 bytes
 * are dropped as if they were characters the rules drop anyway.
 */
#include <errno.h>
#include <string.h>

#include <unictype.h>
#include <uninorm.h>
#include <unistr.h>

#include "internal.h"
#include "lectern/slug.h"

/* U+FFFD, what u8_mbtouc reports for an invalid sequence. A genuine U+FFFD
 * is a symbol (So), which both rules drop, so dropping every one is exact. */
#define SLUG_REPLACEMENT_CHAR 0xFFFDu

/* Characters a version slug keeps besides letters and digits (the
 * service's ok="-._"). */
#define VERSION_SLUG_PUNCT "-._"

/* Characters the service turns into '-' before slugifying a version. */
#define VERSION_SLUG_DASHED "/%!?"

/*
 * unidecode-style spellings of common Latin letters that have no Unicode
 * decomposition to an ASCII base letter (letters with accents decompose and
 * need no entry). Letters missing here, and letters of other scripts, are
 * dropped; unidecode would spell them, but the service's common refs are
 * Latin. Letters unidecode spells as punctuation (ə as '@') need no entry:
 * the service drops that punctuation again.
 */
static const struct {
	ucs4_t letter;
	const char *ascii;
} latin_spellings[] = {
	{ 0x00C6, "AE" }, /* Æ */
	{ 0x00D0, "D" },  /* Ð */
	{ 0x00D8, "O" },  /* Ø */
	{ 0x00DE, "Th" }, /* Þ */
	{ 0x00DF, "ss" }, /* ß */
	{ 0x00E6, "ae" }, /* æ */
	{ 0x00F0, "d" },  /* ð */
	{ 0x00F8, "o" },  /* ø */
	{ 0x00FE, "th" }, /* þ */
	{ 0x0110, "D" },  /* Đ */
	{ 0x0111, "d" },  /* đ */
	{ 0x0126, "H" },  /* Ħ */
	{ 0x0127, "h" },  /* ħ */
	{ 0x0131, "i" },  /* ı */
	{ 0x0138, "q" },  /* ĸ */
	{ 0x0141, "L" },  /* Ł */
	{ 0x0142, "l" },  /* ł */
	{ 0x014A, "NG" }, /* Ŋ */
	{ 0x014B, "ng" }, /* ŋ */
	{ 0x0152, "OE" }, /* Œ */
	{ 0x0153, "oe" }, /* œ */
	{ 0x0166, "T" },  /* Ŧ */
	{ 0x0167, "t" },  /* ŧ */
	{ 0x0180, "b" },  /* ƀ */
	{ 0x0192, "f" },  /* ƒ */
	{ 0x0197, "I" },  /* Ɨ */
	{ 0x01B5, "Z" },  /* Ƶ */
	{ 0x01B6, "z" },  /* ƶ */
	{ 0x0237, "j" },  /* ȷ */
	{ 0x0268, "i" },  /* ɨ */
	{ 0x1E9E, "Ss" }, /* ẞ */
};

/* The builder both slug kinds share: text is appended one ASCII character at
 * a time; a run of separators becomes one '-' once more text follows. */
struct slug_out {
	char text[LEC_VERSION_SLUG_MAX + 1];
	size_t len;
	size_t max;        /* length limit of this slug kind */
	int pending;       /* separators seen since the last text character */
	int pending_dash;  /* ... and one of them was a '-' */
};

static int ascii_alnum(unsigned c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

static char ascii_lower(unsigned c)
{
	return (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
}

static void out_char(struct slug_out *o, char c)
{
	if (o->len < o->max)
		o->text[o->len++] = c;
}

/* Append a text character, first closing any separator run before it. */
static void out_text(struct slug_out *o, unsigned c)
{
	if (o->pending)
		out_char(o, '-');
	o->pending = o->pending_dash = 0;
	out_char(o, ascii_lower(c));
}

/* Note a separator; one at the start is stripped, as the rules strip them. */
static void out_separator(struct slug_out *o, int is_dash)
{
	if (o->len == 0)
		return;
	o->pending = 1;
	o->pending_dash |= is_dash;
}

/*
 * Copy the valid UTF-8 of s, dropping invalid bytes; with dash_punct, the
 * characters of VERSION_SLUG_DASHED become '-' (before normalisation, as the
 * service replaces them in the raw name).
 */
static int clean_utf8(const char *s, int dash_punct, uint8_t **out,
		      size_t *outlen)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t n = strlen(s);
	uint8_t *copy = lec__malloc(n + 1);
	size_t len = 0;

	if (copy == NULL)
		return lec__error_oom();
	while (n > 0) {
		ucs4_t uc;
		int step = u8_mbtouc(&uc, p, n);

		if (uc != SLUG_REPLACEMENT_CHAR) {
			memcpy(copy + len, p, (size_t)step);
			if (dash_punct && uc < 0x80 &&
			    strchr(VERSION_SLUG_DASHED, (int)uc))
				copy[len] = '-';
			len += (size_t)step;
		}
		p += step;
		n -= (size_t)step;
	}
	*out = copy;
	*outlen = len;
	return LEC_OK;
}

/*
 * Normalise s (valid UTF-8, len bytes) into *out, allocated by libunistring
 * with the C allocator, which lec__free releases (it is plain free).
 */
static int normalise(uninorm_t form, const uint8_t *s, size_t len,
		     uint8_t **out, size_t *outlen)
{
	*out = u8_normalize(form, s, len, NULL, outlen);
	if (*out != NULL)
		return LEC_OK;
	if (errno == ENOMEM)
		return lec__error_oom();
	return lec__error(LEC_ERROR, "cannot normalise a slug source: %s",
			  strerror(errno));
}

/* Valid UTF-8 of name, in the given normal form, and its length; *out is
 * NULL for an empty result. Free with lec__free. */
static int slug_source(const char *name, int dash_punct, uninorm_t form,
		       uint8_t **out, size_t *outlen)
{
	uint8_t *clean = NULL;
	size_t len = 0;
	int error;

	*out = NULL;
	*outlen = 0;
	if ((error = clean_utf8(name, dash_punct, &clean, &len)) < 0)
		return error;
	if (len > 0)
		error = normalise(form, clean, len, out, outlen);
	lec__free(clean);
	return error;
}

/* Hand the finished slug (or fallback when it is empty) to the caller. */
static int slug_take(const struct slug_out *o, const char *fallback,
		     char **out)
{
	*out = o->len > 0 ? lec__strndup(o->text, o->len)
			  : lec__strdup(fallback);
	LEC__CHECK_ALLOC(*out);
	return LEC_OK;
}

/* Project slugs --------------------------------------------------------- */

/* Python's str.isspace() over ASCII, which Django's \s follows. */
static int ascii_space(unsigned c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1C && c <= 0x1F);
}

int lec_slug_project(const char *name, char **out)
{
	struct slug_out o = { .max = LEC_PROJECT_SLUG_MAX };
	uint8_t *text = NULL;
	size_t len = 0, i;
	int error;

	lec_error_clear();
	if (out == NULL || name == NULL)
		return lec__error(LEC_EINVALID, "no name to make a slug from");
	*out = NULL;
	if ((error = slug_source(name, 0, UNINORM_NFKD, &text, &len)) < 0)
		goto done;
	/* Non-ASCII bytes (what NFKD left of accents, other scripts) and
	 * punctuation vanish without separating; '-', '_' and whitespace
	 * separate. */
	for (i = 0; i < len; i++) {
		unsigned c = text[i];

		if (ascii_alnum(c))
			out_text(&o, c);
		else if (c == '-' || c == '_' || ascii_space(c))
			out_separator(&o, 1);
	}
	/* A cut at the limit can end in '-', which DNS forbids. */
	while (o.len > 0 && o.text[o.len - 1] == '-')
		o.len--;
	error = slug_take(&o, "", out);
done:
	lec__free(text);
	return error;
}

/* Version slugs --------------------------------------------------------- */

/* Add one ASCII character after transliteration: unicode-slugify's filter
 * keeps letters, digits and VERSION_SLUG_PUNCT and maps a space to a
 * separator. Leading '.' and '_' are stripped like leading separators. */
static void version_put(struct slug_out *o, unsigned c)
{
	if (ascii_alnum(c) || ((c == '.' || c == '_') && o->len > 0))
		out_text(o, c);
	else if (c == '-' || c == ' ')
		out_separator(o, c == '-');
}

static const char *latin_spelling(ucs4_t uc)
{
	size_t i;

	for (i = 0; i < sizeof(latin_spellings) / sizeof(latin_spellings[0]);
	     i++)
		if (latin_spellings[i].letter == uc)
			return latin_spellings[i].ascii;
	return NULL;
}

/* One decomposed part of a letter: ASCII stays, marks (accents) go, some
 * Latin letters are spelled out, anything else is dropped. */
static void version_put_part(struct slug_out *o, ucs4_t part)
{
	const char *spelling;

	if (part < 0x80) {
		version_put(o, part);
		return;
	}
	if (uc_is_general_category(part, UC_CATEGORY_M))
		return;
	spelling = latin_spelling(part);
	for (; spelling && *spelling; spelling++)
		version_put(o, (unsigned char)*spelling);
}

/* Transliterate a non-ASCII letter or digit the way unidecode does for
 * common cases: digits of any script by value, letters by their NFKD base
 * letter or the table of Latin spellings. */
static int version_put_letter(struct slug_out *o, ucs4_t uc)
{
	uint32_t local[UC_DECOMPOSITION_MAX_LENGTH];
	size_t nparts = UC_DECOMPOSITION_MAX_LENGTH, i;
	uint32_t *parts;
	int digit = uc_decimal_value(uc);

	if (digit >= 0) {
		version_put(o, (unsigned)('0' + digit));
		return LEC_OK;
	}
	parts = u32_normalize(UNINORM_NFKD, &uc, 1, local, &nparts);
	if (parts == NULL)
		return lec__error_oom();
	for (i = 0; i < nparts; i++)
		version_put_part(o, parts[i]);
	if (parts != local)
		lec__free(parts); /* libunistring's malloc: too long for local */
	return LEC_OK;
}

/* unicode-slugify's first filter over one NFKC character. */
static int version_put_char(struct slug_out *o, ucs4_t uc)
{
	if (uc < 0x80) {
		version_put(o, uc);
		return LEC_OK;
	}
	if (uc_is_general_category(uc, UC_CATEGORY_Z)) {
		version_put(o, ' ');
		return LEC_OK;
	}
	if (uc_is_general_category(uc, UC_CATEGORY_L) ||
	    uc_is_general_category(uc, UC_CATEGORY_N))
		return version_put_letter(o, uc);
	return LEC_OK;
}

int lec_slug_version(const char *name, char **out)
{
	struct slug_out o = { .max = LEC_VERSION_SLUG_MAX };
	uint8_t *text = NULL;
	size_t len = 0, i = 0;
	int error;

	lec_error_clear();
	if (out == NULL || name == NULL)
		return lec__error(LEC_EINVALID,
				  "no ref name to make a slug from");
	*out = NULL;
	if ((error = slug_source(name, 1, UNINORM_NFKC, &text, &len)) < 0)
		goto done;
	while (i < len && o.len < o.max) {
		ucs4_t uc;

		i += (size_t)u8_mbtouc(&uc, text + i, len - i);
		if ((error = version_put_char(&o, uc)) < 0)
			goto done;
	}
	/* Trailing spaces are stripped, but a trailing '-' is kept. */
	if (o.pending_dash)
		out_char(&o, '-');
	error = slug_take(&o, "unknown", out);
done:
	lec__free(text);
	return error;
}

/* Suffixes and validation ----------------------------------------------- */

/* The suffix alphabet: base 26 with 'a' as the zero digit. */
#define SLUG_SUFFIX_BASE 26

void lec_slug_suffix(unsigned long n, char out[16])
{
	char digits[16];
	size_t k = 0, i;

	lec_error_clear();
	do {
		digits[k++] = (char)('a' + n % SLUG_SUFFIX_BASE);
		n /= SLUG_SUFFIX_BASE;
	} while (n > 0);
	out[0] = '_';
	for (i = 0; i < k; i++)
		out[i + 1] = digits[k - 1 - i];
	out[k + 1] = '\0';
}

/* The manual rule's alphabet: lowercase letters and digits, and after the
 * first character also VERSION_SLUG_PUNCT. */
static int version_slug_char(unsigned c, int first)
{
	if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
		return 1;
	return !first && strchr(VERSION_SLUG_PUNCT, (int)c);
}

int lec_slug_version_valid(const char *s)
{
	size_t n, i;

	lec_error_clear();
	if (s == NULL)
		return 0;
	n = strlen(s);
	if (n == 0 || n > LEC_VERSION_SLUG_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!version_slug_char((unsigned char)s[i], i == 0))
			return 0;
	return 1;
}
