/*
 * Version names read with a bumpver pattern (version_pattern.h), the way
 * the hosted service's sort_versions_custom_pattern reads them (bumpver's
 * v2 parse_version_info): the pattern's parts (YYYY, 0M, MAJOR, BUILD,
 * TAG, ...) become groups of a regular expression, "[...]" an optional
 * part, every other character itself ("\[" a bracket); a name is read
 * when the whole of it matches, and what it matched becomes a key that
 * compares as bumpver's version info tuple does.
 *
 * Where a part name could be read two ways ("YYYY" holds "YY"), the one
 * ending furthest right wins, then the longer, as bumpver chooses. The
 * expression is POSIX's (regcomp), anchored at both ends: bumpver's part
 * expressions put their longer alternatives first so that Python's
 * first-match reads them as POSIX's longest match does. Where bumpver
 * would fail with a Python error rather than a pattern error (a date
 * that does not exist, a calendar part left out of one name and not
 * another), the name is not read, or the missing part compares lowest.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "version_pattern.h"

/* A pattern longer than this is refused: a custom pattern is a setting of
 * at most 32 characters, and calver's is 10. */
#define VPATTERN_MAX 256
/* Part groups in one pattern, at most (each part is at least one
 * character). */
#define VPATTERN_PARTS VPATTERN_MAX

enum field {
	F_YEAR_Y, F_YEAR_G, F_QUARTER, F_MONTH, F_DOM, F_DOY, F_WEEK_W,
	F_WEEK_U, F_WEEK_V, F_MAJOR, F_MINOR, F_PATCH, F_BID, F_TAG, F_PYTAG,
	F_GITHASH, F_NUM, F_INC0, F_INC1, F_COUNT
};

/* bumpver's parts: the name in a pattern, what it matches, the field. */
static const struct part {
	const char *name, *re;
	enum field field;
} parts[] = {
	{ "YYYY", "[1-9][0-9]{3}", F_YEAR_Y },
	{ "YY", "[1-9][0-9]?", F_YEAR_Y },
	{ "0Y", "[0-9]{2}", F_YEAR_Y },
	{ "GGGG", "[1-9][0-9]{3}", F_YEAR_G },
	{ "GG", "[1-9][0-9]?", F_YEAR_G },
	{ "0G", "[0-9]{2}", F_YEAR_G },
	{ "Q", "[1-4]", F_QUARTER },
	{ "MM", "1[0-2]|[1-9]", F_MONTH },
	{ "0M", "1[0-2]|0[1-9]", F_MONTH },
	{ "DD", "3[0-1]|[1-2][0-9]|[1-9]", F_DOM },
	{ "0D", "3[0-1]|[1-2][0-9]|0[1-9]", F_DOM },
	{ "JJJ", "36[0-6]|3[0-5][0-9]|[1-2][0-9][0-9]|[1-9][0-9]|[1-9]", F_DOY },
	{ "00J", "36[0-6]|3[0-5][0-9]|[1-2][0-9][0-9]|0[1-9][0-9]|00[1-9]",
	  F_DOY },
	{ "WW", "5[0-2]|[1-4][0-9]|[0-9]", F_WEEK_W },
	{ "0W", "5[0-2]|[0-4][0-9]", F_WEEK_W },
	{ "UU", "5[0-2]|[1-4][0-9]|[0-9]", F_WEEK_U },
	{ "0U", "5[0-2]|[0-4][0-9]", F_WEEK_U },
	{ "VV", "5[0-3]|[1-4][0-9]|[1-9]", F_WEEK_V },
	{ "0V", "5[0-3]|[1-4][0-9]|0[1-9]", F_WEEK_V },
	{ "MAJOR", "[0-9]+", F_MAJOR },
	{ "MINOR", "[0-9]+", F_MINOR },
	{ "PATCH", "[0-9]+", F_PATCH },
	{ "BUILD", "[0-9]+", F_BID },
	{ "BLD", "[1-9][0-9]*", F_BID },
	{ "TAG", "preview|final|alpha|beta|post|rc", F_TAG },
	{ "PYTAG", "post|rc|a|b", F_PYTAG },
	{ "GITHASH", "\\.[0-9]+\\+.*", F_GITHASH },
	{ "NUM", "[0-9]+", F_NUM },
	{ "INC0", "[0-9]+", F_INC0 },
	{ "INC1", "[1-9][0-9]*", F_INC1 },
};
#define NPARTS (sizeof(parts) / sizeof(parts[0]))

/* A tag and its PEP 440 form, both ways (bumpver's two tables, for the
 * tags its expressions can match). */
static const char *const tags[][2] = {
	{ "alpha", "a" }, { "beta", "b" },    { "rc", "rc" },
	{ "post", "post" }, { "preview", "rc" }, { "final", "" },
};

struct srv_vpattern {
	regex_t re;
	size_t groups;                      /* the expression's groups */
	signed char field[VPATTERN_PARTS + 1]; /* of group i; -1: none */
};

/* Compiling ---------------------------------------------------------------- */

/* The part chosen at each place of the pattern (NULL: none), bumpver's
 * way: every occurrence of every part, right ends first, longer first,
 * none overlapping one taken. */
static void choose_parts(const char *pattern, size_t n,
			 const struct part **at)
{
	size_t end, i, last = n + 1;
	const char *hit;

	for (end = n; end > 0; end--) {
		const struct part *best = NULL;
		size_t best_len = 0;

		for (i = 0; i < NPARTS; i++) {
			size_t len = strlen(parts[i].name);
			const char *from = pattern;

			/* bumpver scans each name's occurrences left to
			 * right, without overlaps of the same name. */
			while ((hit = strstr(from, parts[i].name)) != NULL) {
				size_t e = (size_t)(hit - pattern) + len;

				if (e == end && len > best_len) {
					best = &parts[i];
					best_len = len;
				}
				from = hit + len;
			}
		}
		if (best && end <= last) {
			at[end - best_len] = best;
			last = end - best_len;
		}
	}
}

/* Append text to the expression being built; -1 when it is full. */
static int put(char *re, size_t *len, size_t cap, const char *text)
{
	size_t n = strlen(text);

	if (*len + n >= cap)
		return -1;
	memcpy(re + *len, text, n + 1);
	*len += n;
	return 0;
}

/* The pattern as an anchored POSIX expression, with its part groups'
 * fields in p->field; -1 when it is none. */
static int translate(struct srv_vpattern *p, const char *pattern, char *re,
		     size_t cap)
{
	const struct part *at[VPATTERN_MAX] = { 0 };
	size_t n = strlen(pattern), i, len = 0, group = 0;
	int depth = 0, rc = put(re, &len, cap, "^");
	char one[3] = { 0 };

	choose_parts(pattern, n, at);
	for (i = 0; rc == 0 && i < n; i++) {
		char c = pattern[i];

		if (at[i]) {
			p->field[++group] = (signed char)at[i]->field;
			rc = put(re, &len, cap, "(") || put(re, &len, cap, at[i]->re) ||
			     put(re, &len, cap, ")");
			i += strlen(at[i]->name) - 1;
		} else if (c == '\\' && pattern[i + 1]) {
			one[0] = c;
			one[1] = pattern[++i];
			rc = put(re, &len, cap, one);
		} else if (c == '[') {
			p->field[++group] = -1;
			depth++;
			rc = put(re, &len, cap, "(");
		} else if (c == ']') {
			rc = depth-- > 0 ? put(re, &len, cap, ")?") : -1;
		} else {
			one[0] = strchr(".+*?{}()|^$\\", c) ? '\\' : c;
			one[1] = one[0] == '\\' ? c : '\0';
			rc = put(re, &len, cap, one);
		}
	}
	p->groups = group;
	return rc == 0 && depth == 0 ? put(re, &len, cap, "$") : -1;
}

struct srv_vpattern *srv_vpattern_new(const char *pattern)
{
	/* Each character becomes at most its part's expression. */
	char re[VPATTERN_MAX * 64];
	struct srv_vpattern *p;

	if (pattern == NULL || strlen(pattern) >= VPATTERN_MAX ||
	    (p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	if (translate(p, pattern, re, sizeof(re)) < 0 ||
	    regcomp(&p->re, re, REG_EXTENDED) != 0) {
		free(p);
		return NULL;
	}
	return p;
}

void srv_vpattern_free(struct srv_vpattern *p)
{
	if (p == NULL)
		return;
	regfree(&p->re);
	free(p);
}

/* Reading ------------------------------------------------------------------ */

/* The text each field matched (the leftmost group that matched one), as
 * offsets into the name; so < 0: not matched. */
struct matched {
	regoff_t so[F_COUNT], eo[F_COUNT];
};

static int64_t number(const char *name, const struct matched *m,
		      enum field f, int64_t absent)
{
	int64_t v = 0;
	regoff_t i;

	if (m->so[f] < 0)
		return absent;
	/* Saturated: no real version number comes near. */
	for (i = m->so[f]; i < m->eo[f] && v < INT64_MAX / 10 - 10; i++)
		v = v * 10 + (name[i] - '0');
	return v;
}

static void text(const char *name, const struct matched *m, enum field f,
		 char *out, size_t cap, const char *absent)
{
	size_t n = m->so[f] < 0 ? 0 : (size_t)(m->eo[f] - m->so[f]);

	if (n == 0 || n >= cap) {
		snprintf(out, cap, "%s", absent);
		return;
	}
	memcpy(out, name + m->so[f], n);
	out[n] = '\0';
}

/* The ISO year ('G') or a week number ('W', 'U', 'V') of tm, as
 * strftime's conversion of that letter gives it. */
static int64_t tm_number(const struct tm *tm, char conversion)
{
	char buf[16];
	size_t n;

	switch (conversion) {
	case 'G': n = strftime(buf, sizeof(buf), "%G", tm); break;
	case 'W': n = strftime(buf, sizeof(buf), "%W", tm); break;
	case 'U': n = strftime(buf, sizeof(buf), "%U", tm); break;
	default: n = strftime(buf, sizeof(buf), "%V", tm); break;
	}
	return n ? strtoll(buf, NULL, 10) : -1;
}

/* The calendar fields of a date that exists (month 1-12, day within
 * it; or day of the year doy when not < 0), derived as bumpver derives
 * them; 0 when it does not exist. */
static int derive_date(int64_t *cal, int64_t year, int64_t month, int64_t day,
		       int64_t doy)
{
	struct tm tm = { 0 };
	time_t t;

	tm.tm_year = (int)(year - 1900);
	tm.tm_mon = doy >= 0 ? 0 : (int)(month - 1);
	tm.tm_mday = doy >= 0 ? (int)doy : (int)day;
	tm.tm_hour = 12;
	t = timegm(&tm);
	if (doy < 0 && (tm.tm_mon != month - 1 || tm.tm_mday != day))
		return 0;
	gmtime_r(&t, &tm);
	if (tm.tm_year != year - 1900)
		return 0;
	cal[F_YEAR_Y] = year;
	cal[F_YEAR_G] = tm_number(&tm, 'G');
	cal[F_MONTH] = tm.tm_mon + 1;
	cal[F_DOM] = tm.tm_mday;
	cal[F_DOY] = tm.tm_yday + 1;
	cal[F_WEEK_W] = tm_number(&tm, 'W');
	cal[F_WEEK_U] = tm_number(&tm, 'U');
	cal[F_WEEK_V] = tm_number(&tm, 'V');
	return 1;
}

/* The calendar part of the key: 0 when the name gives a date that does
 * not exist. */
static int calendar(const char *name, const struct matched *m, int64_t *cal)
{
	size_t f;
	int any = 0;

	for (f = F_YEAR_Y; f <= F_WEEK_V; f++) {
		cal[f] = number(name, m, (enum field)f, -1);
		any |= cal[f] >= 0;
	}
	/* Two-digit years are this century's. */
	if (cal[F_YEAR_Y] >= 0 && cal[F_YEAR_Y] < 1000)
		cal[F_YEAR_Y] += 2000;
	if (cal[F_YEAR_G] >= 0 && cal[F_YEAR_G] < 1000)
		cal[F_YEAR_G] += 2000;
	if (!any) {
		/* bumpver fills today's date in: the same for every name. */
		memset(cal, 0, SRV_VKEY_CALENDAR * sizeof(*cal));
		return 1;
	}
	if (cal[F_YEAR_Y] > 0 && cal[F_DOY] > 0) {
		if (!derive_date(cal, cal[F_YEAR_Y], 0, 0, cal[F_DOY]))
			return 0;
	} else if (cal[F_YEAR_Y] > 0 && cal[F_MONTH] > 0 && cal[F_DOM] > 0) {
		if (!derive_date(cal, cal[F_YEAR_Y], cal[F_MONTH], cal[F_DOM],
				 -1))
			return 0;
	}
	if (cal[F_QUARTER] < 0 && cal[F_MONTH] > 0)
		cal[F_QUARTER] = (cal[F_MONTH] - 1) / 3 + 1;
	return 1;
}

/* tag and pytag, each filled in from the other as bumpver does. */
static void tag_forms(struct srv_vkey *key)
{
	size_t i;

	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		if (key->tag[0] && !key->pytag[0] &&
		    strcmp(key->tag, tags[i][0]) == 0)
			snprintf(key->pytag, sizeof(key->pytag), "%s", tags[i][1]);
		else if (key->pytag[0] && !key->tag[0] &&
			 strcmp(key->pytag, tags[i][1]) == 0)
			snprintf(key->tag, sizeof(key->tag), "%s", tags[i][0]);
	}
	if (!key->tag[0])
		snprintf(key->tag, sizeof(key->tag), "final");
}

int srv_vpattern_read(const struct srv_vpattern *p, const char *name,
		      struct srv_vkey *key)
{
	regmatch_t g[VPATTERN_PARTS + 1];
	struct matched m;
	size_t i;

	if (p == NULL || regexec(&p->re, name, p->groups + 1, g, 0) != 0)
		return 0;
	for (i = 0; i < F_COUNT; i++)
		m.so[i] = m.eo[i] = -1;
	for (i = 1; i <= p->groups; i++) {
		int f = p->field[i];

		if (f >= 0 && g[i].rm_so >= 0 && m.so[f] < 0) {
			m.so[f] = g[i].rm_so;
			m.eo[f] = g[i].rm_eo;
		}
	}
	memset(key, 0, sizeof(*key));
	if (!calendar(name, &m, key->head))
		return 0;
	for (i = F_MAJOR; i <= F_PATCH; i++)
		key->head[i] = number(name, &m, (enum field)i, 0);
	text(name, &m, F_BID, key->bid, sizeof(key->bid), "1000");
	text(name, &m, F_TAG, key->tag, sizeof(key->tag), "");
	text(name, &m, F_PYTAG, key->pytag, sizeof(key->pytag), "");
	text(name, &m, F_GITHASH, key->githash, sizeof(key->githash), "");
	tag_forms(key);
	for (i = F_NUM; i <= F_INC1; i++)
		key->tail[i - F_NUM] =
			number(name, &m, (enum field)i, i == F_INC1);
	return 1;
}

/* The first difference of n numbers. */
static int numbers_compare(const int64_t *a, const int64_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

int srv_vkey_compare(const struct srv_vkey *a, const struct srv_vkey *b)
{
	const char *const at[] = { a->bid, a->tag, a->pytag, a->githash };
	const char *const bt[] = { b->bid, b->tag, b->pytag, b->githash };
	int c = numbers_compare(a->head, b->head, SRV_VKEY_HEAD);
	size_t i;

	for (i = 0; c == 0 && i < sizeof(at) / sizeof(at[0]); i++)
		c = strcmp(at[i], bt[i]);
	return c ? c : numbers_compare(a->tail, b->tail, SRV_VKEY_TAIL);
}
