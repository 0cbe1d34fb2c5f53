/*
 * The order a person sees versions in, one rule for every project, the
 * CLI's tables and the TUI's screens alike: the service's sorting of a
 * version list with "latest and stable at the beginning", its
 * dashboard's default for it (readthedocs/projects/version_handling.py,
 * sort_versions_generic; the project's AddonsConfig
 * flyout_sorting_latest_stable_at_beginning): `latest`, then `stable`,
 * then the slugs that are PEP 440 versions, newest first, then every
 * other (branches: main, master, develop...) by slug, descending, as the
 * service leaves them. A release branch named "1.x" reads as 1.999999, as
 * the service's parse_version_failsafe reads it, so it sits above its
 * releases rather than among the branches.
 *
 * Not the service's other rule, comparable_version (its "SemVer (Read
 * the Docs)" sorting): that one puts git's fallback branch, `master`,
 * above `latest`, and counts a name that is no version as 0.01, which
 * equals 0.1, so `main` landed between 0.2 and 0.1 on one project and
 * `master` on top on another (issue 43, item 12). The API's own lists keep
 * the service's API order (verbose_name descending, the model's
 * Meta.ordering); this is for the screens and tables built from them.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client.h"

/* Release parts compared; more are rare enough to ignore. */
#define RELEASE_MAX 8

/* Pre-release kinds in their order; NONE sorts after every pre-release and
 * DEV_ONLY (a bare ".devN" release) before them. */
enum { PRE_DEV_ONLY = -1, PRE_A, PRE_B, PRE_RC, PRE_NONE };

struct pep440 {
	long epoch;
	long release[RELEASE_MAX];
	int pre;       /* PRE_* */
	long pre_n;
	int post;      /* has a post release */
	long post_n;
	int dev;       /* has a dev release */
	long dev_n;
};

struct keyed {
	cJSON *item;
	const char *name; /* its slug (else verbose_name), "" when none */
	struct pep440 v;
	int rank;      /* 3 latest, 2 stable, 1 a version, 0 the rest */
	size_t index;  /* where it came: the order of full ties */
};

static long number(const char **p)
{
	long n = 0;

	while (isdigit((unsigned char)**p) && n < 100000000L)
		n = n * 10 + (*(*p)++ - '0');
	return n;
}

/* An optional separator, as PEP 440's normalisation allows ("1.0-rc.1"). */
static void separator(const char **p)
{
	if (**p == '.' || **p == '-' || **p == '_')
		(*p)++;
}

/* word at *p (case-insensitive), consumed when found. */
static int word(const char **p, const char *w)
{
	size_t n = strlen(w);

	if (strncasecmp(*p, w, n) != 0)
		return 0;
	*p += n;
	return 1;
}

static int parse_pre(const char **p, struct pep440 *v)
{
	static const struct {
		const char *word;
		int kind;
	} pre[] = { { "alpha", PRE_A }, { "beta", PRE_B }, { "preview", PRE_RC },
		    { "pre", PRE_RC },   { "rc", PRE_RC },  { "a", PRE_A },
		    { "b", PRE_B },      { "c", PRE_RC } };
	const char *q = *p;
	size_t i;

	separator(&q);
	for (i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (word(&q, pre[i].word)) {
			separator(&q);
			v->pre = pre[i].kind;
			v->pre_n = number(&q);
			*p = q;
			return 1;
		}
	return 0;
}

static void parse_post(const char **p, struct pep440 *v)
{
	const char *q = *p;

	if (*q == '-' && isdigit((unsigned char)q[1])) {
		q++;
	} else {
		separator(&q);
		if (!word(&q, "post") && !word(&q, "rev") && !word(&q, "r"))
			return;
		separator(&q);
	}
	v->post = 1;
	v->post_n = number(&q);
	*p = q;
}

static void parse_dev(const char **p, struct pep440 *v)
{
	const char *q = *p;

	separator(&q);
	if (!word(&q, "dev"))
		return;
	separator(&q);
	v->dev = 1;
	v->dev_n = number(&q);
	*p = q;
}

/* name as PEP 440 (packaging's Version, "v" and an epoch allowed, ".x"
 * read as .999999); 0 when it is none. */
static int parse_version(const char *name, struct pep440 *v)
{
	const char *p = name;
	int n = 0;

	memset(v, 0, sizeof(*v));
	v->pre = PRE_NONE;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == 'v' || *p == 'V')
		p++;
	if (!isdigit((unsigned char)*p))
		return 0;
	v->release[n++] = number(&p);
	if (*p == '!') {
		p++;
		v->epoch = v->release[0];
		n = 0;
		if (!isdigit((unsigned char)*p))
			return 0;
		v->release[n++] = number(&p);
	}
	while (*p == '.' && (isdigit((unsigned char)p[1]) || p[1] == 'x')) {
		long part = 999999L; /* "1.x": after every 1.N */

		if (*++p == 'x')
			p++;
		else
			part = number(&p);
		if (n < RELEASE_MAX)
			v->release[n++] = part;
	}
	parse_pre(&p, v);
	parse_post(&p, v);
	parse_dev(&p, v);
	if (v->dev && !v->post && v->pre == PRE_NONE)
		v->pre = PRE_DEV_ONLY;
	if (*p == '+') /* a local label: ignored */
		p += strlen(p);
	while (isspace((unsigned char)*p))
		p++;
	return *p == '\0';
}

static int cmp_long(long a, long b)
{
	return (a > b) - (a < b);
}

static int compare_versions(const struct pep440 *a, const struct pep440 *b)
{
	int c, i;

	if ((c = cmp_long(a->epoch, b->epoch)) != 0)
		return c;
	for (i = 0; i < RELEASE_MAX; i++)
		if ((c = cmp_long(a->release[i], b->release[i])) != 0)
			return c;
	if ((c = cmp_long(a->pre, b->pre)) != 0 ||
	    (a->pre != PRE_NONE && (c = cmp_long(a->pre_n, b->pre_n)) != 0))
		return c;
	if ((c = cmp_long(a->post, b->post)) != 0 ||
	    (c = cmp_long(a->post_n, b->post_n)) != 0)
		return c;
	/* No dev release sorts after any. */
	if ((c = cmp_long(!a->dev, !b->dev)) != 0)
		return c;
	return cmp_long(a->dev_n, b->dev_n);
}

/* latest, stable, the versions newest first, then the rest; equal
 * versions ("1.0", "v1.0") and the rest by slug, descending. */
static int compare_keyed(const void *pa, const void *pb)
{
	const struct keyed *a = pa, *b = pb;
	int c;

	if (a->rank != b->rank)
		return b->rank - a->rank;
	if (a->rank == 1 && (c = compare_versions(&b->v, &a->v)) != 0)
		return c;
	if ((c = strcmp(b->name, a->name)) != 0)
		return c;
	return a->index < b->index ? -1 : a->index > b->index;
}

static void key_of(struct keyed *k, cJSON *item, size_t index)
{
	const char *name = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(item, "slug"));

	if (name == NULL)
		name = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(item, "verbose_name"));
	k->item = item;
	k->index = index;
	k->name = name ? name : "";
	memset(&k->v, 0, sizeof(k->v));
	k->rank = strcmp(k->name, "latest") == 0   ? 3
		  : strcmp(k->name, "stable") == 0 ? 2
		  : parse_version(k->name, &k->v)  ? 1
						   : 0;
}

int lc_versions_sort(cJSON *versions)
{
	struct keyed *keys;
	size_t n = 0, i;
	cJSON *item;

	if (!cJSON_IsArray(versions))
		return LC_OK;
	cJSON_ArrayForEach(item, versions)
		n++;
	if (n < 2)
		return LC_OK;
	if ((keys = calloc(n, sizeof(*keys))) == NULL)
		return LC_ENOMEM;
	i = 0;
	cJSON_ArrayForEach(item, versions) {
		key_of(&keys[i], item, i);
		i++;
	}
	qsort(keys, n, sizeof(*keys), compare_keyed);
	/* Relink the array's items in the new order. */
	for (i = 0; i < n; i++) {
		item = keys[i].item;
		item->prev = keys[i > 0 ? i - 1 : n - 1].item;
		item->next = i + 1 < n ? keys[i + 1].item : NULL;
	}
	versions->child = keys[0].item;
	free(keys);
	return LC_OK;
}
