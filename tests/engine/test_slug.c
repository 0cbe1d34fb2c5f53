/*
 * Slugs match the hosted service's: every example of behaviour notes §6.4
 * (version slugs) and §6.5 (project slugs), the uniqueness suffixes, the
 * manual version-slug rule, and hostile input (NULL, invalid UTF-8, 64 KB
 * names, allocation failures).
 */
#include "harness.h"
#include "internal.h"
#include "lectern/slug.h"

/* Bigger than any name the API accepts, to show the cost stays linear and
 * the limits hold. */
#define HUGE_NAME_BYTES (64 * 1024)

static void check_version(const char *name, const char *expected, int line)
{
	char *slug = NULL;
	int rc = lec_slug_version(name, &slug);

	if (rc != LEC_OK || slug == NULL || strcmp(slug, expected) != 0)
		FAIL_AT("line %d: version slug of \"%s\" is \"%s\" (rc %d), "
			"expected \"%s\"",
			line, name, slug ? slug : "(null)", rc, expected);
	else if (!lec_slug_version_valid(slug))
		FAIL_AT("line %d: version slug \"%s\" breaks the manual rule",
			line, slug);
	lec__free(slug);
}

static void check_project(const char *name, const char *expected, int line)
{
	char *slug = NULL;
	int rc = lec_slug_project(name, &slug);

	if (rc != LEC_OK || slug == NULL || strcmp(slug, expected) != 0)
		FAIL_AT("line %d: project slug of \"%s\" is \"%s\" (rc %d), "
			"expected \"%s\"",
			line, name, slug ? slug : "(null)", rc, expected);
	lec__free(slug);
}

#define CHECK_VERSION(name, expected)                                        \
	check_version(name, expected, __LINE__)
#define CHECK_PROJECT(name, expected)                                        \
	check_project(name, expected, __LINE__)

static void check_suffix(unsigned long n, const char *expected, int line)
{
	char out[16];

	lec_slug_suffix(n, out);
	if (strcmp(out, expected) != 0)
		FAIL_AT("line %d: suffix %lu is \"%s\", expected \"%s\"", line,
			n, out, expected);
}

#define CHECK_SUFFIX(n, expected) check_suffix(n, expected, __LINE__)

/* A string of n copies of unit (owned by the caller). */
static char *repeat(const char *unit, size_t n)
{
	size_t len = strlen(unit), i;
	char *s = lec__malloc(len * n + 1);

	if (s == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		memcpy(s + i * len, unit, len);
	s[len * n] = '\0';
	return s;
}

TEST(version_service_examples)
{
	/* rtd_tests/tests/test_version_slug.py, as listed in §6.4 */
	CHECK_VERSION("1.0", "1.0");
	CHECK_VERSION("1%0", "1-0");
	CHECK_VERSION("1!0", "1-0");
	CHECK_VERSION("1?0", "1-0");
	CHECK_VERSION("releases/1.0", "releases-1.0");
	CHECK_VERSION("SomeString-charclass", "somestring-charclass");
	CHECK_VERSION("-", "unknown");
	CHECK_VERSION("-./.-", "unknown");
	CHECK_VERSION("camión", "camion");
	CHECK_VERSION("ŭñíč°də-branch", "unicd-branch");
}

TEST(version_separators_and_punctuation)
{
	/* leading '-', '.', '_' stripped; trailing ones kept */
	CHECK_VERSION("._-1.0", "1.0");
	CHECK_VERSION("1.0-", "1.0-");
	CHECK_VERSION("1.0.", "1.0.");
	CHECK_VERSION("1.0_", "1.0_");
	CHECK_VERSION("_v1_", "v1_");
	/* dropped characters do not separate */
	CHECK_VERSION("a\tb", "ab");
	CHECK_VERSION("a@b+c", "abc");
	CHECK_VERSION("a~b#c(d)", "abcd");
	/* runs of '-' and spaces collapse; '.' and '_' are not separators */
	CHECK_VERSION("a---b", "a-b");
	CHECK_VERSION("a   b", "a-b");
	CHECK_VERSION("a - - b", "a-b");
	CHECK_VERSION("a .b", "a-.b");
	CHECK_VERSION("a__b..c", "a__b..c");
	CHECK_VERSION("feature//x", "feature-x");
	/* outer spaces are trimmed, so only a real '-' survives at the end */
	CHECK_VERSION("  v1  ", "v1");
	CHECK_VERSION("v1 -", "v1-");
	CHECK_VERSION("v1 \t ", "v1");
	CHECK_VERSION("V1.0-RC1", "v1.0-rc1");
	CHECK_VERSION("", "unknown");
	CHECK_VERSION("!?%/", "unknown");
}

TEST(version_unicode)
{
	/* separators (Z*) become spaces; symbols are dropped */
	CHECK_VERSION("a\xc2\xa0" "b", "a-b");         /* no-break space */
	CHECK_VERSION("a\xe2\x80\x83" "b", "a-b");     /* em space */
	CHECK_VERSION("a\xe2\x80\xa8" "b", "a-b");     /* line separator */
	CHECK_VERSION("v1\xc2\xa9", "v1");             /* © is So: dropped */
	/* NFKC first: compatibility forms become ASCII */
	CHECK_VERSION("ＶＥＲ１", "ver1");              /* fullwidth */
	CHECK_VERSION("\xef\xac\x81le", "file");       /* ﬁ ligature */
	CHECK_VERSION("v1\xe2\x84\xa2", "v1tm");       /* ™ is "TM" */
	CHECK_VERSION("x²", "x2");
	/* a fullwidth '!' is not replaced by '-' (that happens before NFKC),
	 * so it is dropped like other punctuation */
	CHECK_VERSION("1！0", "10");
	/* combining marks go, decomposed or precomposed */
	CHECK_VERSION("camio\xcc\x81n", "camion");
	CHECK_VERSION("İstanbul", "istanbul");
	CHECK_VERSION("ǖ", "u");
	/* Latin letters without a decomposition */
	CHECK_VERSION("Straße", "strasse");
	CHECK_VERSION("Æther-æ", "aether-ae");
	CHECK_VERSION("Øre-ø", "ore-o");
	CHECK_VERSION("Đa-đ", "da-d");
	CHECK_VERSION("Łódź", "lodz");
	CHECK_VERSION("Œuvre-œ", "oeuvre-oe");
	CHECK_VERSION("Þór-þ-ð", "thor-th-d");
	CHECK_VERSION("ı", "i");
	CHECK_VERSION("ə", "unknown");
	/* digits of any script by value */
	CHECK_VERSION("v١.٢", "v1.2");
	CHECK_VERSION("v१", "v1");
	/* scripts without a spelling here are dropped */
	CHECK_VERSION("版本", "unknown");
	CHECK_VERSION("rel-版本-1", "rel-1");
}

TEST(version_invalid_utf8)
{
	/* invalid bytes vanish like dropped characters */
	CHECK_VERSION("1\xff.0", "1.0");
	CHECK_VERSION("1.0\xc3", "1.0");
	CHECK_VERSION("\x80\x80v2", "v2");
	/* an overlong '/' is not a '/' */
	CHECK_VERSION("v\xc0\xaf" "1", "v1");
	/* an encoded surrogate is invalid */
	CHECK_VERSION("\xed\xa0\x80x", "x");
	CHECK_VERSION("\xfe\xff", "unknown");
	/* a genuine U+FFFD is a symbol and is dropped too */
	CHECK_VERSION("a\xef\xbf\xbd" "b", "ab");
}

TEST(version_length_limit)
{
	char *name = repeat("a", 300);
	char *expected = repeat("a", LEC_VERSION_SLUG_MAX);
	char *huge = repeat("é", HUGE_NAME_BYTES / 2);
	char *expected_e = repeat("e", LEC_VERSION_SLUG_MAX);
	char *junk = repeat("\xff-", HUGE_NAME_BYTES / 2);

	CHECK(name && expected && huge && expected_e && junk);
	if (name && expected && huge && expected_e && junk) {
		CHECK_VERSION(name, expected);
		/* cut mid-transliteration: ß spells "ss" */
		memcpy(name + LEC_VERSION_SLUG_MAX - 1, "ß", 2);
		name[LEC_VERSION_SLUG_MAX + 1] = '\0';
		expected[LEC_VERSION_SLUG_MAX - 1] = 's';
		CHECK_VERSION(name, expected);
		CHECK_VERSION(huge, expected_e);
		CHECK_VERSION(junk, "unknown");
	}
	lec__free(name);
	lec__free(expected);
	lec__free(huge);
	lec__free(expected_e);
	lec__free(junk);
}

TEST(suffixes)
{
	CHECK_SUFFIX(0, "_a");
	CHECK_SUFFIX(1, "_b");
	CHECK_SUFFIX(25, "_z");
	CHECK_SUFFIX(26, "_ba");
	CHECK_SUFFIX(27, "_bb");
	CHECK_SUFFIX(52, "_ca");
	CHECK_SUFFIX(675, "_zz");
	CHECK_SUFFIX(676, "_baa");
	CHECK_SUFFIX(677, "_bab");
	/* the largest value still fits the 16-byte buffer */
	if (sizeof(unsigned long) == 8)
		CHECK_SUFFIX(18446744073709551615ul, "_hlhxczmxsyumqp");
}

/* The service's uniqueness loop (§6.4 step 5) over slugs already taken,
 * as the version module runs it: base, then base + suffix(0), (1), ... */
static void unique_slug(const char *name, const char *const *taken,
			size_t ntaken, char *out, size_t outsize)
{
	char *base = NULL;
	char suffix[16];
	unsigned long n = 0;
	size_t i;
	int clash;

	CHECK_OK(lec_slug_version(name, &base));
	snprintf(out, outsize, "%s", base ? base : "");
	do {
		clash = 0;
		for (i = 0; i < ntaken; i++)
			clash |= strcmp(out, taken[i]) == 0;
		if (clash) {
			lec_slug_suffix(n++, suffix);
			snprintf(out, outsize, "%s%s", base ? base : "",
				 suffix);
		}
	} while (clash);
	lec__free(base);
}

TEST(suffixes_make_service_examples_unique)
{
	static const char *const taken[] = { "unknown", "1-0", "1-0_a" };
	char slug[64];

	unique_slug("-./.-", taken, 1, slug, sizeof(slug));
	CHECK_STR(slug, "unknown_a");
	unique_slug("1%0", taken, 2, slug, sizeof(slug));
	CHECK_STR(slug, "1-0_a");
	unique_slug("1?0", taken, 3, slug, sizeof(slug));
	CHECK_STR(slug, "1-0_b");
	CHECK(lec_slug_version_valid("1-0_b"));
}

TEST(version_valid)
{
	char *s255 = repeat("a", LEC_VERSION_SLUG_MAX);
	char *s256 = repeat("a", LEC_VERSION_SLUG_MAX + 1);

	CHECK(lec_slug_version_valid("v1.0"));
	CHECK(lec_slug_version_valid("1-0_a"));
	CHECK(lec_slug_version_valid("latest"));
	CHECK(lec_slug_version_valid("0"));
	CHECK(lec_slug_version_valid("a-"));
	CHECK(!lec_slug_version_valid("-x"));
	CHECK(!lec_slug_version_valid(".x"));
	CHECK(!lec_slug_version_valid("_x"));
	CHECK(!lec_slug_version_valid("A"));
	CHECK(!lec_slug_version_valid("vA"));
	CHECK(!lec_slug_version_valid(""));
	CHECK(!lec_slug_version_valid(NULL));
	CHECK(!lec_slug_version_valid("v 1"));
	CHECK(!lec_slug_version_valid("v/1"));
	CHECK(!lec_slug_version_valid("v1\xc3\xa9"));
	CHECK(s255 && lec_slug_version_valid(s255));
	CHECK(s256 && !lec_slug_version_valid(s256));
	lec__free(s255);
	lec__free(s256);
}

TEST(project_examples)
{
	CHECK_PROJECT("Test Project", "test-project");
	CHECK_PROJECT("My_Project!!", "my-project");
	CHECK_PROJECT("  --weird__name--  ", "weird-name");
	CHECK_PROJECT("Ünïcödé Dõcs", "unicode-docs");
	CHECK_PROJECT("!!!", "");
	CHECK_PROJECT("", "");
	/* punctuation vanishes without separating; '-', '_' and all ASCII
	 * whitespace separate */
	CHECK_PROJECT("a.b", "ab");
	CHECK_PROJECT("a!-!b", "a-b");
	CHECK_PROJECT("a\tb\nc\x1f" "d", "a-b-c-d");
	CHECK_PROJECT("a\x01" "b", "ab");
	CHECK_PROJECT("a_-_b", "a-b");
	CHECK_PROJECT("_a_", "a");
	CHECK_PROJECT("Docs 2.0", "docs-20");
	/* NFKD keeps base letters and compatibility forms only; letters without
	 * a decomposition and other scripts are dropped (no transliteration) */
	CHECK_PROJECT("ＡＢＣ", "abc");
	CHECK_PROJECT("Straße", "strae");
	CHECK_PROJECT("版本 docs", "docs");
	CHECK_PROJECT("a\xc2\xa0" "b", "a-b"); /* NFKD: no-break space -> ' ' */
}

TEST(project_length_and_invalid_utf8)
{
	char *hundred = repeat("x", 100);
	char *expected = repeat("x", LEC_PROJECT_SLUG_MAX);
	char *cut = repeat("a", 100);
	char *expected_cut = repeat("a", LEC_PROJECT_SLUG_MAX - 1);
	char *huge = repeat("\xff" "Ab-", HUGE_NAME_BYTES / 4);

	CHECK(hundred && expected && cut && expected_cut && huge);
	if (hundred && expected && cut && expected_cut && huge) {
		CHECK_PROJECT(hundred, expected);
		/* a cut right after a separator loses the '-' */
		cut[LEC_PROJECT_SLUG_MAX - 1] = ' ';
		CHECK_PROJECT(cut, expected_cut);
		{
			char *slug = NULL;

			CHECK_OK(lec_slug_project(huge, &slug));
			CHECK(slug && strlen(slug) <= LEC_PROJECT_SLUG_MAX);
			CHECK(slug && slug[strlen(slug) - 1] != '-');
			CHECK(slug && strncmp(slug, "ab-ab-", 6) == 0);
			lec__free(slug);
		}
	}
	CHECK_PROJECT("\xffTest\xc3 Pro\x80ject", "test-project");
	CHECK_PROJECT("\xed\xa0\x80", "");
	lec__free(hundred);
	lec__free(expected);
	lec__free(cut);
	lec__free(expected_cut);
	lec__free(huge);
}

/* What *out holds before a call that must reset it. */
static char untouched[] = "untouched";

TEST(null_arguments)
{
	char *slug = untouched;

	CHECK_ERR(lec_slug_version(NULL, &slug), LEC_EINVALID);
	CHECK(lec_error_last()[0] != '\0');
	CHECK_ERR(lec_slug_version("1.0", NULL), LEC_EINVALID);
	CHECK_ERR(lec_slug_project(NULL, &slug), LEC_EINVALID);
	CHECK(lec_error_last()[0] != '\0');
	CHECK_ERR(lec_slug_project("x", NULL), LEC_EINVALID);
	/* a later success clears the error */
	slug = NULL;
	CHECK_OK(lec_slug_project("x", &slug));
	CHECK_STR(lec_error_last(), "");
	lec__free(slug);
}

/* Fail each engine allocation in turn: every failure is LEC_ENOMEM with
 * *out NULL, and the run with no failure succeeds (ASan checks leaks). */
static void check_alloc_failures(int (*fn)(const char *, char **),
				 const char *name, const char *expected)
{
	char *slug = untouched;
	long n;
	int rc = LEC_ENOMEM;

	for (n = 1; rc == LEC_ENOMEM && n < 10; n++) {
		lec__alloc_fail_after(n);
		rc = fn(name, &slug);
		if (rc == LEC_ENOMEM) {
			CHECK(slug == NULL);
			CHECK_STR(lec_error_last(), "out of memory");
		}
	}
	lec__alloc_fail_after(0);
	CHECK_OK(rc);
	CHECK(n > 2); /* at least one allocation was failed */
	CHECK_STR(slug, expected);
	lec__free(slug);
}

TEST(allocation_failures)
{
	check_alloc_failures(lec_slug_version, "Camión/2.0", "camion-2.0");
	check_alloc_failures(lec_slug_version, "", "unknown");
	check_alloc_failures(lec_slug_project, "Ünïcödé Dõcs", "unicode-docs");
	check_alloc_failures(lec_slug_project, "!!!", "");
}

static const struct lec_test tests[] = {
	TEST_ENTRY(version_service_examples),
	TEST_ENTRY(version_separators_and_punctuation),
	TEST_ENTRY(version_unicode),
	TEST_ENTRY(version_invalid_utf8),
	TEST_ENTRY(version_length_limit),
	TEST_ENTRY(suffixes),
	TEST_ENTRY(suffixes_make_service_examples_unique),
	TEST_ENTRY(version_valid),
	TEST_ENTRY(project_examples),
	TEST_ENTRY(project_length_and_invalid_utf8),
	TEST_ENTRY(null_arguments),
	TEST_ENTRY(allocation_failures),
};

LEC_TEST_MAIN(tests)
