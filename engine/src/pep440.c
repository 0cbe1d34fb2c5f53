/*
 * A small PEP 440 parser and comparator, for choosing `stable` (behaviour
 * notes §6.2; pep440.h). It follows the grammar of the `packaging`
 * library's VERSION_PATTERN exactly: every optional part starts with a
 * keyword no other part starts with, so one left-to-right pass without
 * backtracking accepts the same strings. Numbers are compared as digit
 * strings, so no version is too long to compare exactly. A name is first
 * cleaned as the service cleans it (NFKD, then ASCII only).
 */
#include <errno.h>
#include <string.h>

#include <uninorm.h>
#include <unistr.h>

#include "internal.h"
#include "lectern/version.h"
#include "pep440.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_alnum(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z');
}

static int is_sep(char c)
{
	return c == '-' || c == '_' || c == '.';
}

/* Python's \s on ASCII text. */
static int is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') ||
	       (c >= '\x1c' && c <= '\x1f');
}

/* Read [0-9]+ at *pp into out; 0 when there is no digit. */
static int read_num(const char **pp, struct lec__pep440_num *out)
{
	const char *p = *pp, *start = *pp;

	if (!is_digit(*p))
		return 0;
	while (is_digit(*p))
		p++;
	while (start < p && *start == '0')
		start++;
	out->p = start;
	out->n = (size_t)(p - start);
	*pp = p;
	return 1;
}

/* The first of labels that starts at p: its index, or -1. */
static int match_label(const char **pp, const char *const *labels, size_t count)
{
	size_t i, n;

	for (i = 0; i < count; i++) {
		n = strlen(labels[i]);
		if (strncmp(*pp, labels[i], n) == 0) {
			*pp += n;
			return (int)i;
		}
	}
	return -1;
}

/* [-_.]? then [0-9]*, after a label. */
static void read_label_number(const char **pp, struct lec__pep440_num *out)
{
	if (is_sep(**pp))
		(*pp)++;
	read_num(pp, out);
}

static void parse_pre(const char **pp, struct lec__pep440 *v)
{
	/* Longer spellings first, as the service's regular expression. */
	static const char *const labels[] = { "alpha", "a",   "beta", "b",
					      "preview", "pre", "c",    "rc" };
	static const int kinds[] = {
		LEC__PEP440_PRE_A,  LEC__PEP440_PRE_A,  LEC__PEP440_PRE_B,
		LEC__PEP440_PRE_B,  LEC__PEP440_PRE_RC, LEC__PEP440_PRE_RC,
		LEC__PEP440_PRE_RC, LEC__PEP440_PRE_RC,
	};
	const char *p = *pp;
	int i;

	if (is_sep(*p))
		p++;
	if ((i = match_label(&p, labels, COUNT(labels))) < 0)
		return;
	v->pre = kinds[i];
	read_label_number(&p, &v->pre_n);
	*pp = p;
}

/* A separator, one of the n labels and its number (a post or dev part):
 * *has set and *pp advanced when there is one. */
static void parse_labelled(const char **pp, const char *const *labels,
			   size_t n, int *has, struct lec__pep440_num *num)
{
	const char *p = *pp;

	if (is_sep(*p))
		p++;
	if (match_label(&p, labels, n) < 0)
		return;
	*has = 1;
	read_label_number(&p, num);
	*pp = p;
}

static void parse_post(const char **pp, struct lec__pep440 *v)
{
	static const char *const labels[] = { "post", "rev", "r" };
	const char *p = *pp;

	/* The implicit form "1.0-1". */
	if (p[0] == '-' && is_digit(p[1])) {
		p++;
		read_num(&p, &v->post);
		v->has_post = 1;
		*pp = p;
		return;
	}
	parse_labelled(pp, labels, COUNT(labels), &v->has_post, &v->post);
}

static void parse_dev(const char **pp, struct lec__pep440 *v)
{
	static const char *const labels[] = { "dev" };

	parse_labelled(pp, labels, COUNT(labels), &v->has_dev, &v->dev);
}

/* One [a-z0-9]+ part of a local label. */
static int parse_local_part(const char **pp, struct lec__pep440 *v)
{
	struct lec__pep440_local *part;
	const char *p = *pp;

	if (!is_alnum(*p) || v->nlocal == LEC__PEP440_MAX_PARTS)
		return 0;
	part = &v->local[v->nlocal++];
	while (is_alnum(*p))
		p++;
	part->text.p = *pp;
	part->text.n = (size_t)(p - *pp);
	part->numeric = 1;
	for (; *pp < p; (*pp)++)
		part->numeric = part->numeric && is_digit(**pp);
	if (part->numeric) {
		const char *q = part->text.p;

		read_num(&q, &part->text);
	}
	return 1;
}

/* "+" [a-z0-9]+ ([-_.][a-z0-9]+)* */
static int parse_local(const char **pp, struct lec__pep440 *v)
{
	const char *p = *pp + 1;

	if (!parse_local_part(&p, v))
		return 0;
	while (is_sep(p[0]) && is_alnum(p[1])) {
		p++;
		if (!parse_local_part(&p, v))
			return 0;
	}
	*pp = p;
	return 1;
}

static int parse_release(const char **pp, struct lec__pep440 *v)
{
	const char *p = *pp;

	if (!read_num(&p, &v->release[0]))
		return 0;
	v->nrelease = 1;
	while (p[0] == '.' && is_digit(p[1])) {
		if (v->nrelease == LEC__PEP440_MAX_PARTS)
			return 0;
		p++;
		read_num(&p, &v->release[v->nrelease++]);
	}
	*pp = p;
	return 1;
}

/* Parse lowercase ASCII text; 1 when it is a version. */
static int pep440_parse(const char *s, struct lec__pep440 *v)
{
	struct lec__pep440_num epoch;
	const char *q;

	while (is_space(*s))
		s++;
	if (*s == 'v')
		s++;
	q = s;
	if (read_num(&q, &epoch) && *q == '!') {
		v->epoch = epoch;
		s = q + 1;
	}
	if (!parse_release(&s, v))
		return 0;
	parse_pre(&s, v);
	parse_post(&s, v);
	parse_dev(&s, v);
	if (*s == '+' && !parse_local(&s, v))
		return 0;
	while (is_space(*s))
		s++;
	return *s == '\0';
}

void lec__pep440_dispose(struct lec__pep440 *v)
{
	lec__free(v->text);
	memset(v, 0, sizeof(*v));
}

/* NFKD, then drop what is not ASCII (the service's clean-up). NULL with
 * *error 0 when name is not valid UTF-8: then it is no version. */
static char *nfkd_ascii(const char *name, int *error)
{
	size_t len = strlen(name), n = 0, i, k = 0;
	uint8_t *norm;
	char *ascii;

	*error = LEC_OK;
	if (u8_check((const uint8_t *)name, len) != NULL)
		return NULL;
	norm = len ? u8_normalize(UNINORM_NFKD, (const uint8_t *)name, len,
				  NULL, &n)
		   : NULL;
	if (len && norm == NULL) {
		*error = errno == ENOMEM
				 ? lec__error_oom()
				 : lec__error(LEC_ERROR,
					      "cannot normalise '%s'", name);
		return NULL;
	}
	ascii = lec__malloc(n + 1);
	for (i = 0; ascii && i < n; i++)
		if (norm[i] < 0x80)
			ascii[k++] = (char)norm[i];
	if (ascii)
		ascii[k] = '\0';
	else
		*error = lec__error_oom();
	lec__free(norm); /* libunistring allocated it with plain malloc */
	return ascii;
}

/* ascii lowercased, with every ".x" read as ".999999" if expand_x. */
static char *pep440_text(const char *ascii, int expand_x)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *out;
	size_t i;

	/* Starts the string, so that an empty one is terminated too. */
	lec__buf_puts(&b, "");
	for (; *ascii; ascii++) {
		if (expand_x && ascii[0] == '.' && ascii[1] == 'x') {
			lec__buf_puts(&b, ".999999");
			ascii++;
		} else {
			lec__buf_printf(&b, "%c", *ascii);
		}
	}
	out = lec__buf_take(&b);
	for (i = 0; out && out[i]; i++)
		if (out[i] >= 'A' && out[i] <= 'Z')
			out[i] = (char)(out[i] - 'A' + 'a');
	return out;
}

/* Parse a version name as the service does: 1 when it is a version, 0
 * when not, < 0 on error. On 1, dispose v with lec__pep440_dispose. */
int lec__pep440_read(const char *name, struct lec__pep440 *v)
{
	char *ascii;
	int error, pass, ok = 0;

	memset(v, 0, sizeof(*v));
	if ((ascii = nfkd_ascii(name, &error)) == NULL)
		return error;
	/* As is first; then, the case-sensitive ".x" -> ".999999". */
	for (pass = 0; pass < 2 && !ok; pass++) {
		if (pass == 1 && strstr(ascii, ".x") == NULL)
			break;
		lec__pep440_dispose(v);
		if ((v->text = pep440_text(ascii, pass)) == NULL) {
			lec__free(ascii);
			return LEC_ENOMEM;
		}
		ok = pep440_parse(v->text, v);
	}
	lec__free(ascii);
	if (!ok)
		lec__pep440_dispose(v);
	return ok;
}

static int num_cmp(const struct lec__pep440_num *a,
		   const struct lec__pep440_num *b)
{
	int c;

	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	c = a->n ? memcmp(a->p, b->p, a->n) : 0;
	return (c > 0) - (c < 0);
}

/* Strings as Python compares them: bytes, then length. */
static int text_cmp(const struct lec__pep440_num *a,
		    const struct lec__pep440_num *b)
{
	size_t n = a->n < b->n ? a->n : b->n;
	int c = n ? memcmp(a->p, b->p, n) : 0;

	if (c != 0)
		return (c > 0) - (c < 0);
	return (a->n > b->n) - (a->n < b->n);
}

static int int_cmp(int a, int b)
{
	return (a > b) - (a < b);
}

/* Release segments compare with trailing zeros dropped. */
static int release_cmp(const struct lec__pep440 *a, const struct lec__pep440 *b)
{
	size_t na = a->nrelease, nb = b->nrelease, i;
	int c;

	while (na > 0 && a->release[na - 1].n == 0)
		na--;
	while (nb > 0 && b->release[nb - 1].n == 0)
		nb--;
	for (i = 0; i < na && i < nb; i++)
		if ((c = num_cmp(&a->release[i], &b->release[i])) != 0)
			return c;
	return (na > nb) - (na < nb);
}

/* The pre-release's rank: a bare dev release sorts before every
 * pre-release, no pre-release after them all. */
static int pre_rank(const struct lec__pep440 *v)
{
	if (v->pre == LEC__PEP440_PRE_NONE && !v->has_post && v->has_dev)
		return -1;
	if (v->pre == LEC__PEP440_PRE_NONE)
		return LEC__PEP440_PRE_RC + 1;
	return v->pre;
}

/* Numeric parts sort after alphanumeric ones; a longer label after its
 * prefix. */
static int local_cmp(const struct lec__pep440 *a, const struct lec__pep440 *b)
{
	size_t i;
	int c;

	for (i = 0; i < a->nlocal && i < b->nlocal; i++) {
		const struct lec__pep440_local *x = &a->local[i],
					       *y = &b->local[i];

		if (x->numeric != y->numeric)
			return x->numeric ? 1 : -1;
		c = x->numeric ? num_cmp(&x->text, &y->text)
			       : text_cmp(&x->text, &y->text);
		if (c != 0)
			return c;
	}
	return (a->nlocal > b->nlocal) - (a->nlocal < b->nlocal);
}

int lec__pep440_cmp(const struct lec__pep440 *a, const struct lec__pep440 *b)
{
	int c;

	if ((c = num_cmp(&a->epoch, &b->epoch)) != 0 ||
	    (c = release_cmp(a, b)) != 0 ||
	    (c = int_cmp(pre_rank(a), pre_rank(b))) != 0)
		return c;
	if (a->pre != LEC__PEP440_PRE_NONE &&
	    (c = num_cmp(&a->pre_n, &b->pre_n)) != 0)
		return c;
	/* No post release sorts first, no dev release last. */
	if ((c = int_cmp(a->has_post, b->has_post)) != 0 ||
	    (a->has_post && (c = num_cmp(&a->post, &b->post)) != 0) ||
	    (c = int_cmp(!a->has_dev, !b->has_dev)) != 0 ||
	    (a->has_dev && (c = num_cmp(&a->dev, &b->dev)) != 0))
		return c;
	return local_cmp(a, b);
}

int lec_version_pep440_compare(const char *a, const char *b, int *cmp)
{
	struct lec__pep440 va, vb;
	int ra, rb, error = LEC_OK;

	lec_error_clear();
	*cmp = 0;
	if (a == NULL || b == NULL)
		return lec__error(LEC_EINVALID, "no version name given");
	if ((ra = lec__pep440_read(a, &va)) < 0)
		return ra;
	if ((rb = lec__pep440_read(b, &vb)) < 0) {
		lec__pep440_dispose(&va);
		return rb;
	}
	if (!ra || !rb)
		error = lec__error(LEC_EINVALID,
				   "'%s' is not a PEP 440 version", ra ? b : a);
	else
		*cmp = lec__pep440_cmp(&va, &vb);
	lec__pep440_dispose(&va);
	lec__pep440_dispose(&vb);
	return error;
}

int lec__pep440_is_final(const struct lec__pep440 *v)
{
	return v->pre == LEC__PEP440_PRE_NONE && !v->has_dev;
}

int lec_version_pep440_final(const char *name)
{
	struct lec__pep440 v;
	int final;

	lec_error_clear();
	if (name == NULL || lec__pep440_read(name, &v) != 1)
		return 0;
	final = lec__pep440_is_final(&v);
	lec__pep440_dispose(&v);
	return final;
}
