/*
 * PEP 440 (engine/src/pep440.c), one table per question: what a name
 * parses to, written in its normal form (as `packaging`'s str(Version)
 * writes it, rendered here from the parse); which names are no version; a
 * list in ascending order, every pair of it compared; names equal to each
 * other; which versions are final. The cases follow the PEP's own sections
 * on normalisation and ordering and the ideas of `packaging`'s tests, plus
 * what the service adds before parsing (NFKD to ASCII, ".x" as ".999999").
 */
#include "harness.h"
#include "internal.h"
#include "lectern/version.h"
#include "pep440.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Room for a rendered case: the longest below is well under this. */
#define NORMAL_MAX 256

static void put_num(struct lec__buf *b, const struct lec__pep440_num *n)
{
	if (n->n == 0)
		lec__buf_puts(b, "0");
	else
		lec__buf_putn(b, n->p, n->n);
}

/* v in its normal form: [N!]N(.N)*[{a|b|rc}N][.postN][.devN][+local]. */
static char *render(const struct lec__pep440 *v)
{
	static const char *const pre[] = { "", "a", "b", "rc" };
	struct lec__buf b = LEC__BUF_INIT;
	size_t i;

	if (v->epoch.n) {
		put_num(&b, &v->epoch);
		lec__buf_puts(&b, "!");
	}
	for (i = 0; i < v->nrelease; i++) {
		lec__buf_puts(&b, i ? "." : "");
		put_num(&b, &v->release[i]);
	}
	if (v->pre != LEC__PEP440_PRE_NONE) {
		lec__buf_puts(&b, pre[v->pre]);
		put_num(&b, &v->pre_n);
	}
	if (v->has_post) {
		lec__buf_puts(&b, ".post");
		put_num(&b, &v->post);
	}
	if (v->has_dev) {
		lec__buf_puts(&b, ".dev");
		put_num(&b, &v->dev);
	}
	for (i = 0; i < v->nlocal; i++) {
		lec__buf_puts(&b, i ? "." : "+");
		if (v->local[i].numeric)
			put_num(&b, &v->local[i].text);
		else
			lec__buf_putn(&b, v->local[i].text.p,
				      v->local[i].text.n);
	}
	return lec__buf_take(&b);
}

TEST(normal_forms)
{
	static const struct {
		const char *name, *normal;
	} cases[] = {
		/* Development releases. */
		{ "1.0dev", "1.0.dev0" },
		{ "1.0.dev", "1.0.dev0" },
		{ "1.0-DEV1", "1.0.dev1" },
		{ "1.0_dev_2", "1.0.dev2" },
		{ "1.0.dev.3", "1.0.dev3" },
		/* Pre-releases, every spelling of each kind. */
		{ "1.0a", "1.0a0" },
		{ "1.0.a1", "1.0a1" },
		{ "1.0-alpha1", "1.0a1" },
		{ "1.0ALPHA", "1.0a0" },
		{ "1.0_b", "1.0b0" },
		{ "1.0.beta2", "1.0b2" },
		{ "1.0c", "1.0rc0" },
		{ "1.0-C1", "1.0rc1" },
		{ "1.0RC", "1.0rc0" },
		{ "1.0pre", "1.0rc0" },
		{ "1.0.preview2", "1.0rc2" },
		{ "1.0-rc.3", "1.0rc3" },
		/* Post-releases, the implicit one included. */
		{ "1.0post", "1.0.post0" },
		{ "1.0-post1", "1.0.post1" },
		{ "1.0r", "1.0.post0" },
		{ "1.0.rev1", "1.0.post1" },
		{ "1.0-r5", "1.0.post5" },
		{ "1.0-5", "1.0.post5" },
		{ "1.0a1-1", "1.0a1.post1" },
		{ "1.0b2.post345.dev456", "1.0b2.post345.dev456" },
		/* Local labels: lowercase, any separator a dot. */
		{ "1.0+AbC", "1.0+abc" },
		{ "1.0+ubuntu-1", "1.0+ubuntu.1" },
		{ "1.0+ubuntu_1.2", "1.0+ubuntu.1.2" },
		{ "1.0+007.x", "1.0+7.x" },
		{ "1.2+123abc456", "1.2+123abc456" },
		/* Numbers without leading zeros; epochs; the release as
		 * written (trailing zeros only compare equal). */
		{ "1.01", "1.1" },
		{ "1.0a05", "1.0a5" },
		{ "1.0c056", "1.0rc56" },
		{ "1.0.post000", "1.0.post0" },
		{ "1.1.dev09000", "1.1.dev9000" },
		{ "00!1.2", "1.2" },
		{ "0100!0.0", "100!0.0" },
		{ "7!1.0b2.post345", "7!1.0b2.post345" },
		{ "1.0.0", "1.0.0" },
		{ "2024.01", "2024.1" },
		{ "1.123456789012345678901234567890",
		  "1.123456789012345678901234567890" },
		/* A leading v, blanks around. */
		{ "v1.0", "1.0" },
		{ "V1.0", "1.0" },
		{ "   v1.0\t\n", "1.0" },
		/* The service's clean-up first: NFKD, then ASCII only
		 * (fullwidth digits, a narrow no-break space and a paragraph
		 * separator), and ".x" as ".999999". */
		{ "\xef\xbc\x91.\xef\xbc\x90", "1.0" },
		{ "\xe2\x80\xaf"
		  "1.0\t\xe2\x80\xa9\n ",
		  "1.0" },
		{ "1.x", "1.999999" },
		{ "2.3.x", "2.3.999999" },
	};
	struct lec__pep440 v;
	char *got;
	size_t i;

	for (i = 0; i < COUNT(cases); i++) {
		if (lec__pep440_read(cases[i].name, &v) != 1) {
			FAIL_AT("'%s' is not read as a version", cases[i].name);
			continue;
		}
		got = render(&v);
		if (got == NULL || strcmp(got, cases[i].normal) != 0)
			FAIL_AT("'%s' reads as '%s', expected '%s'",
				cases[i].name, got ? got : "(null)",
				cases[i].normal);
		lec__free(got);
		lec__pep440_dispose(&v);
	}
}

TEST(not_versions)
{
	static const char *const names[] = {
		"", "latest", "stable", "french toast", "release-1.0",
		/* Local labels. */
		"1.0+", "1.0+a+", "1.0++", "1.0+_foobar", "1.0+foo&asd",
		"1.0+1+1", "1.0+a..b",
		/* Blanks inside. */
		"1. 0", "1 .0", "1.0 a1", "1.0a 1",
		/* Dots. */
		".", "..", "1..0", "1.0.", ".1.0",
		/* Epochs, separators, the capital X ".x" is not. */
		"1!", "!1.0", "1.0-", "1.0--1", "1.X",
		/* Not UTF-8; digits of another script, dropped as not
		 * ASCII. */
		"\xff", "\xd9\xa0\xd9\xa1.\xd9\xa2",
		/* More parts than a version is taken to have. */
		"1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16.17.18.19.20.21.22.23."
		"24.25.26.27.28.29.30.31.32.33",
		"1.0+a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.0.1.2."
		"3.4.5.6",
	};
	struct lec__pep440 v;
	size_t i;
	int cmp;

	for (i = 0; i < COUNT(names); i++)
		if (lec__pep440_read(names[i], &v) != 0)
			FAIL_AT("'%s' is read as a version", names[i]);
	CHECK_ERR(lec_version_pep440_compare("1.0", "french toast", &cmp),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last(), "'french toast' is not a PEP 440 version");
	CHECK_ERR(lec_version_pep440_compare(NULL, "1.0", &cmp), LEC_EINVALID);
}

/* Ascending; every pair compares as the list orders it. */
TEST(ordering)
{
	static const char *const ascending[] = {
		"1.0.dev0",
		"1.0.dev456",
		"1.0a0",
		"1.0a0.post0.dev0",
		"1.0a0.post0",
		"1.0a1.dev1",
		"1.0a1",
		"1.0a1+local",
		"1.0b1.dev456",
		"1.0b2",
		"1.0b2.post345.dev456",
		"1.0b2.post345",
		"1.0b2-346",
		"1.0rc1.dev1",
		"1.0c1.post1",
		"1.0rc2",
		"1.0",
		"1.0+abc",
		"1.0+abc.5",
		"1.0+abc.10",
		"1.0+5",
		"1.0.post0.dev0",
		"1.0.post0",
		"1.0.post456.dev34",
		"1.0.post456",
		"1.0.1.dev1",
		"1.0.1a1",
		"1.0.1",
		"1.0.1.post1",
		"1.1.dev1",
		"1.2+a",
		"1.2+abc",
		"1.2+def",
		"1.2+0",
		"1.2+1",
		"1.2+1.abc",
		"1.2+1.1",
		"1.2+1.1.0",
		"1.2+123",
		"1.2.r32",
		"1.2.rev33",
		"1.9",
		"1.10",
		"1.x",
		"2024.1",
		"1!0.1.dev1",
		"1!0.1",
		"1!1.0",
	};
	struct lec__pep440 v[COUNT(ascending)];
	size_t i, j;
	int c;

	for (i = 0; i < COUNT(ascending); i++)
		if (lec__pep440_read(ascending[i], &v[i]) != 1) {
			FAIL_AT("'%s' is not read as a version", ascending[i]);
			return;
		}
	for (i = 0; i < COUNT(ascending); i++)
		for (j = 0; j < COUNT(ascending); j++) {
			c = lec__pep440_cmp(&v[i], &v[j]);
			c = (c > 0) - (c < 0);
			if (c != (i > j) - (i < j))
				FAIL_AT("'%s' vs '%s': %d", ascending[i],
					ascending[j], c);
		}
	for (i = 0; i < COUNT(ascending); i++)
		lec__pep440_dispose(&v[i]);
}

/* Different spellings of one version. */
TEST(equal_versions)
{
	static const char *const pairs[][2] = {
		{ "1.0", "1.0.0" },     { "1.0", "1.0.0.0.0" },
		{ "1.0rc1", "1.0c1" },  { "1.0", "0!1.0" },
		{ "1.0+ABC-1", "1.0+abc.1" }, { "1.0+01", "1.0+1" },
		{ "1.x", "1.999999" },  { "1.0.post", "1.0-0" },
		{ "1.0.dev", "1.0-dev0" },
	};
	size_t i;
	int cmp;

	for (i = 0; i < COUNT(pairs); i++) {
		cmp = 1;
		CHECK_OK(lec_version_pep440_compare(pairs[i][0], pairs[i][1],
						    &cmp));
		if (cmp != 0)
			FAIL_AT("'%s' and '%s' differ", pairs[i][0],
				pairs[i][1]);
	}
}

/* What `stable` may point at: no pre-release, no dev release. */
TEST(final_releases)
{
	static const struct {
		const char *name;
		int final;
	} cases[] = {
		{ "1.0", 1 },	       { "v2.0.post3", 1 },
		{ "1.0+local", 1 },    { "1!2.0", 1 },
		{ "1.x", 1 },	       { "1.0rc1", 0 },
		{ "1.0a1.post1", 0 },  { "1.0.dev0", 0 },
		{ "1.0.post1.dev0", 0 }, { "1.0alpha", 0 },
		{ "latest", 0 },
	};
	size_t i;

	for (i = 0; i < COUNT(cases); i++)
		if (lec_version_pep440_final(cases[i].name) != cases[i].final)
			FAIL_AT("'%s' final: expected %d", cases[i].name,
				cases[i].final);
	CHECK_INT(lec_version_pep440_final(NULL), 0);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(normal_forms),
	TEST_ENTRY(not_versions),
	TEST_ENTRY(ordering),
	TEST_ENTRY(equal_versions),
	TEST_ENTRY(final_releases),
};

LEC_TEST_MAIN(tests)
