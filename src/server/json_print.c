/*
 * The text of every JSON response: what cJSON_PrintUnformatted writes,
 * byte for byte (cJSON 1.7.15: the same escapes, number formats and
 * order), with U+2028 and U+2029 escaped as the service escapes them.
 *
 * cJSON's printer looks at every byte of a string twice through a switch
 * and grows its buffer by doubling, then the line separators took a third
 * pass over the whole text, which made rendering a search results page
 * (28 KB, mostly section text) cost as much as the search. Here strings
 * are scanned eight bytes a step for the few bytes that need escaping and
 * the runs between them are copied whole; the tree is walked twice, once
 * counting and once writing into a buffer of exactly that size. The fuzz
 * target json_print and tests/server/test_json_print.c check the output
 * against cJSON's own.
 */
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handler.h"

/* Room for a double in cJSON's formats ("%1.17g": sign, 17 digits, point,
 * exponent), as cJSON's own number buffer. */
#define NUMBER_MAX 26

struct out {
	char *p;
	size_t len;
	int failed; /* what cJSON would not print (or a number too long) */
};

/* Whether a byte inside a string is not copied as it is: control
 * characters, '"', '\\', and 0xE2, which may start U+2028 or U+2029. */
static int special(unsigned char c)
{
	return c < 32 || c == '"' || c == '\\' || c == 0xE2;
}

/* The same test on eight bytes at once (the classic "has a byte less
 * than n" and "has a zero byte" tricks): 0 when none is special. */
#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
#define HAS_ZERO(x) (((x) - ONES) & ~(x) & HIGHS)

static uint64_t word_special(uint64_t w)
{
	uint64_t quote = w ^ (ONES * '"'), slash = w ^ (ONES * '\\'),
		 e2 = w ^ (ONES * 0xE2);

	return ((w - ONES * 32) & ~w & HIGHS) | HAS_ZERO(quote) |
	       HAS_ZERO(slash) | HAS_ZERO(e2);
}

/* The length of the run of ordinary bytes at s (n bytes). */
static size_t ordinary_run(const unsigned char *s, size_t n)
{
	size_t i = 0;
	uint64_t w;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		if (word_special(w))
			break;
	}
	while (i < n && !special(s[i]))
		i++;
	return i;
}

/* Bytes go into o->p, or are only counted while it is NULL. */
static void put(struct out *o, const char *s, size_t n)
{
	if (o->p)
		memcpy(o->p + o->len, s, n);
	o->len += n;
}

static void put_char(struct out *o, char c)
{
	put(o, &c, 1);
}

/* One special byte of a string at s (n bytes left); returns the bytes
 * it took. */
static size_t put_special(struct out *o, const unsigned char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char esc[6] = { '\\', 'u', '0', '0', 0, 0 };

	switch (*s) {
	case '"': put(o, "\\\"", 2); return 1;
	case '\\': put(o, "\\\\", 2); return 1;
	case '\b': put(o, "\\b", 2); return 1;
	case '\f': put(o, "\\f", 2); return 1;
	case '\n': put(o, "\\n", 2); return 1;
	case '\r': put(o, "\\r", 2); return 1;
	case '\t': put(o, "\\t", 2); return 1;
	case 0xE2:
		if (n >= 3 && s[1] == 0x80 && (s[2] == 0xA8 || s[2] == 0xA9)) {
			put(o, s[2] == 0xA8 ? "\\u2028" : "\\u2029", 6);
			return 3;
		}
		put(o, (const char *)s, 1);
		return 1;
	default: /* another control character: cJSON's lowercase \u00xx */
		esc[4] = hex[*s >> 4];
		esc[5] = hex[*s & 0xF];
		put(o, esc, sizeof(esc));
		return 1;
	}
}

/* n bytes of a string, escaped. */
static void put_escaped(struct out *o, const unsigned char *s, size_t n)
{
	size_t i = 0, run;

	while (i < n) {
		run = i + ordinary_run(s + i, n - i);
		put(o, (const char *)s + i, run - i);
		if (run < n)
			run += put_special(o, s + run, n - run);
		i = run;
	}
}

/* A string (NULL is cJSON's ""), quoted and escaped. */
static void put_string(struct out *o, const char *text)
{
	const char *s = text ? text : "";

	put_char(o, '"');
	put_escaped(o, (const unsigned char *)s, strlen(s));
	put_char(o, '"');
}

size_t srv_json_escape(char *out, const char *s, size_t n)
{
	struct out o = { out, 0, 0 };

	put_escaped(&o, (const unsigned char *)s, n);
	return o.len;
}

/* cJSON's test of a number read back: equal within an epsilon of the
 * larger. */
static int same_double(double a, double b)
{
	double most = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

	return fabs(a - b) <= most * DBL_EPSILON;
}

/* cJSON 1.7.15's print_number: 15 significant digits when they read back
 * as the same double, else 17; NaN and infinities as null; the locale's
 * decimal point written as '.'. */
static void put_number(struct out *o, double d)
{
	char buf[NUMBER_MAX];
	char point = localeconv()->decimal_point[0];
	double back = 0;
	int n, i;

	if (isnan(d) || isinf(d)) {
		put(o, "null", 4);
		return;
	}
	n = snprintf(buf, sizeof(buf), "%1.15g", d);
	if (sscanf(buf, "%lg", &back) != 1 || !same_double(back, d))
		n = snprintf(buf, sizeof(buf), "%1.17g", d);
	if (n < 0 || n >= (int)sizeof(buf)) {
		o->failed = 1;
		return;
	}
	for (i = 0; i < n; i++)
		if (buf[i] == point)
			buf[i] = '.';
	put(o, buf, (size_t)n);
}

static void put_value(struct out *o, const cJSON *item)
{
	const cJSON *child;

	switch (item->type & 0xFF) {
	case cJSON_NULL: put(o, "null", 4); break;
	case cJSON_False: put(o, "false", 5); break;
	case cJSON_True: put(o, "true", 4); break;
	case cJSON_Number: put_number(o, item->valuedouble); break;
	case cJSON_String: put_string(o, item->valuestring); break;
	case cJSON_Raw:
		if (item->valuestring == NULL)
			o->failed = 1; /* cJSON fails the whole print */
		else
			put(o, item->valuestring, strlen(item->valuestring));
		break;
	case cJSON_Array:
	case cJSON_Object:
		put_char(o, cJSON_IsArray(item) ? '[' : '{');
		for (child = item->child; child; child = child->next) {
			if (cJSON_IsObject(item)) {
				put_string(o, child->string);
				put_char(o, ':');
			}
			put_value(o, child);
			if (child->next)
				put_char(o, ',');
		}
		put_char(o, cJSON_IsArray(item) ? ']' : '}');
		break;
	default:
		o->failed = 1; /* cJSON_Invalid: cJSON prints nothing */
		break;
	}
}

char *srv_json_print(const cJSON *item, size_t *len)
{
	struct out o = { NULL, 0, 0 };

	*len = 0;
	if (item == NULL)
		return NULL;
	/* Twice: once counting, then into a buffer of exactly that size.
	 * Growing one by doubling cost a page fault for every fresh page (15
	 * a search results page), more than the printing itself. */
	put_value(&o, item);
	if (o.failed || (o.p = malloc(o.len + 1)) == NULL)
		return NULL;
	*len = o.len;
	o.len = 0;
	put_value(&o, item);
	o.p[o.len] = '\0';
	return o.p;
}
