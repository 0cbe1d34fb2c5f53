/*
 * Tests of page diffs (diff.c): the sentence diff (exact scripts for small
 * cases, and for random ones a check against an independent longest common
 * subsequence that the script both rebuilds each side and is shortest), the
 * fallback past LEC_DIFF_CELLS_MAX, pages compared across two trees (added,
 * removed, changed, markup-only changes, titles, one page by path), bad
 * paths and references, and allocation failures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "internal.h"
#include "lectern/diff.h"

/* Rebuild one side of a script: ' ' and skip ('-' for head, '+' for
 * base) joined by spaces. Owned by the caller. */
static char *side(const struct lec_diff_line *l, size_t n, char skip)
{
	size_t i, len = 1;
	char *s, *p;

	for (i = 0; i < n; i++)
		len += strlen(l[i].text) + 1;
	if ((p = s = calloc(1, len)) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		if (l[i].op == skip)
			continue;
		p += sprintf(p, "%s%s", p == s ? "" : " ", l[i].text);
	}
	return s;
}

static void check_lines(const char *base, const char *head,
			const char *const *want)
{
	struct lec_diff_line *l = NULL;
	size_t n = 0, i;

	CHECK_OK(lec_diff_text(base, head, &l, &n));
	for (i = 0; want[i] && i < n; i++) {
		char got[256];

		snprintf(got, sizeof(got), "%c%s", l[i].op, l[i].text);
		CHECK_STR(got, want[i]);
	}
	for (i = 0; want[i]; i++)
		;
	CHECK_INT(n, i);
	lec_diff_lines_free(l, n);
}

TEST(sentence_diffs)
{
	static const char *const one[] = { " A.", "-B.", "+X.", " C.", NULL };
	static const char *const grow[] = { "+A.", "+B?", NULL };
	static const char *const gone[] = { "-Only one", NULL };
	static const char *const none[] = { NULL };
	static const char *const mid[] = { "-a.", " b.", " c.", "-d.", "+x.",
					   " e.", "+f.", NULL };

	check_lines("A. B. C.", "A. X. C.", one);
	check_lines("", "A. B?", grow);
	check_lines("Only one", "", gone);
	check_lines("", "", none);
	check_lines("Same. Text!", "Same. Text!",
		    (const char *const[]){ " Same.", " Text!", NULL });
	check_lines("a. b. c. d. e.", "b. c. x. e. f.", mid);
	/* A dot without a space ends no sentence (3.14, os.path). */
	check_lines("Use os.path here. Pi is 3.14.",
		    "Use os.path here. Pi is 3.15.",
		    (const char *const[]){ " Use os.path here.",
					   "-Pi is 3.14.", "+Pi is 3.15.",
					   NULL });
}

/* The longest common subsequence's length, by the textbook table. */
static size_t lcs_len(const char *const *a, size_t na, const char *const *b,
		      size_t nb)
{
	size_t *t = calloc((na + 1) * (nb + 1), sizeof(*t)), i, j, r;

	for (i = 1; i <= na; i++)
		for (j = 1; j <= nb; j++)
			t[i * (nb + 1) + j] =
				strcmp(a[i - 1], b[j - 1]) == 0
					? t[(i - 1) * (nb + 1) + j - 1] + 1
				: t[(i - 1) * (nb + 1) + j] >
						t[i * (nb + 1) + j - 1]
					? t[(i - 1) * (nb + 1) + j]
					: t[i * (nb + 1) + j - 1];
	r = t[na * (nb + 1) + nb];
	free(t);
	return r;
}

#define RANDOM_ROUNDS 300
#define RANDOM_LEN 12

TEST(random_diffs_are_shortest)
{
	static const char *const words[] = { "a.", "b.", "c.", "d." };
	const char *a[RANDOM_LEN], *b[RANDOM_LEN];
	unsigned seed = 20261125;
	int round;

	for (round = 0; round < RANDOM_ROUNDS; round++) {
		char base[RANDOM_LEN * 3 + 1] = "", head[RANDOM_LEN * 3 + 1] = "";
		size_t na = (size_t)rand_r(&seed) % RANDOM_LEN;
		size_t nb = (size_t)rand_r(&seed) % RANDOM_LEN, i, same = 0, n;
		struct lec_diff_line *l = NULL;
		char *got;

		for (i = 0; i < na; i++) {
			a[i] = words[rand_r(&seed) % 4];
			strcat(strcat(base, i ? " " : ""), a[i]);
		}
		for (i = 0; i < nb; i++) {
			b[i] = words[rand_r(&seed) % 4];
			strcat(strcat(head, i ? " " : ""), b[i]);
		}
		CHECK_OK(lec_diff_text(base, head, &l, &n));
		got = side(l, n, '+');
		CHECK_STR(got, base);
		free(got);
		got = side(l, n, '-');
		CHECK_STR(got, head);
		free(got);
		for (i = 0; i < n; i++)
			same += l[i].op == ' ';
		CHECK_INT(same, lcs_len(a, na, b, nb));
		lec_diff_lines_free(l, n);
	}
}

/* Past LEC_DIFF_CELLS_MAX the middle is all removed then all added. */
TEST(cell_limit_falls_back)
{
	size_t count = 2100, i, n = 0; /* 2100^2 cells > 4 Mi */
	char *base = calloc(count, 12), *head = calloc(count, 12);
	struct lec_diff_line *l = NULL;

	CHECK(count * count > LEC_DIFF_CELLS_MAX);
	for (i = 0; i < count; i++) {
		sprintf(base + strlen(base), "%sb%zu.", i ? " " : "", i);
		sprintf(head + strlen(head), "%sh%zu.", i ? " " : "", i);
	}
	/* A shared first and last sentence stay paired. */
	memcpy(head, "b0.", 3);
	CHECK_OK(lec_diff_text(base, head, &l, &n));
	CHECK_INT(n, 2 * count - 1);
	if (n == 2 * count - 1) {
		CHECK_STR(l[0].text, "b0.");
		CHECK_INT(l[0].op, ' ');
		for (i = 1; i < count; i++)
			CHECK_INT(l[i].op, '-');
		for (; i < n; i++)
			CHECK_INT(l[i].op, '+');
	}
	lec_diff_lines_free(l, n);
	free(base);
	free(head);
}

/* Pages ---------------------------------------------------------------- */

static void write_file(const char *dir, const char *rel, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (strchr(rel, '/')) {
		char sub[4096];

		snprintf(sub, sizeof(sub), "%s/%.*s", dir,
			 (int)(strrchr(rel, '/') - rel), rel);
		mkdir(sub, 0700);
	}
	if ((f = fopen(path, "w")) == NULL) {
		FAIL_AT("cannot write %s", path);
		return;
	}
	fputs(text, f);
	fclose(f);
}

/* A page as Sphinx lays it out: sections with anchors in the main node. */
static void page(const char *dir, const char *rel, const char *title,
		 const char *body, const char *chrome)
{
	char html[4096];

	snprintf(html, sizeof(html),
		 "<html><head><title>%s</title></head><body>"
		 "<div class=\"footer\">%s</div>"
		 "<div role=\"main\"><section id=\"top\"><h1>%s</h1>"
		 "%s</section></div></body></html>",
		 title, chrome, title, body);
	write_file(dir, rel, html);
}

static const char *sec(const char *id, const char *title, const char *text)
{
	static char buf[4][1024];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]),
		 "<section id=\"%s\"><h2>%s</h2><p>%s</p></section>", id,
		 title, text);
	return buf[i];
}

static char base_dir[4096], head_dir[4096];

static void make_trees(void)
{
	char body[3072];

	snprintf(base_dir, sizeof(base_dir), "%s/base", lec_test_tmpdir());
	snprintf(head_dir, sizeof(head_dir), "%s/head", lec_test_tmpdir());
	mkdir(base_dir, 0700);
	mkdir(head_dir, 0700);
	page(base_dir, "index.html", "Home", "<p>Welcome.</p>", "build 1");
	page(head_dir, "index.html", "Home", "<p>Welcome.</p>", "build 2");
	snprintf(body, sizeof(body), "<p>Intro.</p>%s%s%s",
		 sec("install", "Install", "Run it. Then restart."),
		 sec("usage", "Usage", "Call it. It returns zero."),
		 sec("old", "Old", "Gone soon."));
	page(base_dir, "guide.html", "Guide", body, "");
	snprintf(body, sizeof(body), "<p>Intro.</p>%s%s%s",
		 sec("install", "Installing", "Run it. Then restart."),
		 sec("usage", "Usage", "Call it. It returns one."),
		 sec("new", "New", "Fresh."));
	page(head_dir, "guide.html", "Guide", body, "");
	page(base_dir, "old.html", "Old page", "<p>x</p>", "");
	page(head_dir, "sub/new.html", "New page", "<p>y</p>", "");
	page(base_dir, "retitled.html", "Before", "<p>z</p>", "");
	page(head_dir, "retitled.html", "After", "<p>z</p>", "");
	write_file(head_dir, "notes.txt", "not a page");
}

static const struct lec_diff_section *find_section(
	const struct lec_diff_page *p, const char *id)
{
	size_t i;

	for (i = 0; i < p->sections_len; i++)
		if (strcmp(p->sections[i].id, id) == 0)
			return &p->sections[i];
	FAIL_AT("no section %s in %s", id, p->path);
	return NULL;
}

TEST(pages_across_trees)
{
	struct lec_diff *d = NULL;
	const struct lec_diff_section *s;
	const struct lec_diff_page *g;

	make_trees();
	CHECK_OK(lec_diff_pages(base_dir, head_dir, NULL, &d));
	if (d == NULL)
		return;
	/* index.html differs only outside the main node. */
	CHECK_INT(d->unchanged, 1);
	CHECK_INT(d->truncated, 0);
	CHECK_INT(d->pages_len, 4);
	if (d->pages_len != 4)
		goto done;
	CHECK_STR(d->pages[0].path, "guide.html");
	CHECK_STR(d->pages[1].path, "old.html");
	CHECK_INT(d->pages[1].status, LEC_DIFF_REMOVED);
	CHECK_STR(d->pages[1].title, "Old page");
	CHECK_INT(d->pages[1].sections_len, 0);
	CHECK_STR(d->pages[2].path, "retitled.html");
	CHECK_STR(d->pages[2].title, "After");
	CHECK_STR(d->pages[2].base_title, "Before");
	CHECK_STR(d->pages[3].path, "sub/new.html");
	CHECK_INT(d->pages[3].status, LEC_DIFF_ADDED);
	CHECK_STR(d->pages[3].title, "New page");
	g = &d->pages[0];
	CHECK_INT(g->status, LEC_DIFF_CHANGED);
	CHECK(g->base_title == NULL);
	CHECK_INT(g->sections_len, 4); /* install, usage, old, new */
	if ((s = find_section(g, "install")) != NULL) {
		CHECK_INT(s->status, LEC_DIFF_CHANGED);
		CHECK_STR(s->title, "Installing");
		CHECK_STR(s->base_title, "Install");
		CHECK_INT(s->lines_len, 2); /* the text did not change */
	}
	if ((s = find_section(g, "usage")) != NULL) {
		CHECK_INT(s->status, LEC_DIFF_CHANGED);
		CHECK(s->base_title == NULL);
		CHECK_INT(s->lines_len, 3);
		if (s->lines_len == 3) {
			CHECK_INT(s->lines[1].op, '-');
			CHECK_STR(s->lines[1].text, "It returns zero.");
			CHECK_INT(s->lines[2].op, '+');
			CHECK_STR(s->lines[2].text, "It returns one.");
		}
	}
	if ((s = find_section(g, "old")) != NULL) {
		CHECK_INT(s->status, LEC_DIFF_REMOVED);
		CHECK_INT(s->lines_len, 1);
		if (s->lines_len == 1)
			CHECK_INT(s->lines[0].op, '-');
	}
	if ((s = find_section(g, "new")) != NULL) {
		CHECK_INT(s->status, LEC_DIFF_ADDED);
		CHECK_INT(s->lines_len, 1);
		if (s->lines_len == 1)
			CHECK_STR(s->lines[0].text, "Fresh.");
	}
done:
	lec_diff_free(d);
}

/* A changelog: docutils numbers the ids of headings whose names repeat
 * (id1, id2, ...) in page order, so a release added on top renumbers every
 * later one. Its sections pair by title: one added, nothing changed. */
TEST(generated_ids_pair_by_title)
{
	char base[3072], head[3072], dir_a[4096], dir_b[4096];
	struct lec_diff *d = NULL;

	snprintf(dir_a, sizeof(dir_a), "%s/log-a", lec_test_tmpdir());
	snprintf(dir_b, sizeof(dir_b), "%s/log-b", lec_test_tmpdir());
	mkdir(dir_a, 0700);
	mkdir(dir_b, 0700);
	snprintf(base, sizeof(base), "%s%s",
		 sec("id1", "2.1 (May)", "Fixed a bug."),
		 sec("id2", "2.0 (April)", "New API."));
	snprintf(head, sizeof(head), "%s%s%s",
		 sec("id1", "2.2 (June)", "Faster."),
		 sec("id2", "2.1 (May)", "Fixed a bug."),
		 sec("id3", "2.0 (April)", "New API."));
	page(dir_a, "changes.html", "Changes", base, "");
	page(dir_b, "changes.html", "Changes", head, "");
	CHECK_OK(lec_diff_pages(dir_a, dir_b, NULL, &d));
	if (d == NULL)
		return;
	CHECK_INT(d->pages_len, 1);
	if (d->pages_len == 1) {
		CHECK_INT(d->pages[0].sections_len, 1);
		if (d->pages[0].sections_len == 1) {
			CHECK_INT(d->pages[0].sections[0].status,
				  LEC_DIFF_ADDED);
			CHECK_STR(d->pages[0].sections[0].title, "2.2 (June)");
		}
	}
	lec_diff_free(d);
}

TEST(one_page_by_path)
{
	static const char *const ways[] = { "guide.html", "guide", "/guide" };
	struct lec_diff *d = NULL;
	size_t i;

	make_trees();
	for (i = 0; i < sizeof(ways) / sizeof(ways[0]); i++) {
		CHECK_OK(lec_diff_pages(base_dir, head_dir, ways[i], &d));
		if (d && d->pages_len == 1)
			CHECK_STR(d->pages[0].path, "guide.html");
		else
			FAIL_AT("%s: not one page", ways[i]);
		lec_diff_free(d);
		d = NULL;
	}
	CHECK_OK(lec_diff_pages(base_dir, head_dir, "sub/new", &d));
	if (d && d->pages_len == 1)
		CHECK_INT(d->pages[0].status, LEC_DIFF_ADDED);
	lec_diff_free(d);
	d = NULL;
	CHECK_OK(lec_diff_pages(base_dir, head_dir, "/", &d));
	if (d)
		CHECK_INT(d->unchanged, 1); /* index.html */
	lec_diff_free(d);
	d = NULL;
	CHECK_ERR(lec_diff_pages(base_dir, head_dir, "sub/", &d),
		  LEC_ENOTFOUND);
	CHECK_ERR(lec_diff_pages(base_dir, head_dir, "notes.txt", &d),
		  LEC_ENOTFOUND);
	CHECK_ERR(lec_diff_pages(base_dir, head_dir, "../head/guide.html", &d),
		  LEC_EINVALID);
	CHECK_ERR(lec_diff_pages(base_dir, head_dir, "a/../../x", &d),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "path");
	CHECK_ERR(lec_diff_pages(base_dir, head_dir, "a\nb", &d),
		  LEC_EINVALID);
	CHECK(d == NULL);
	/* A name that only starts with dots is a name. */
	CHECK_ERR(lec_diff_pages(base_dir, head_dir, "..hidden", &d),
		  LEC_ENOTFOUND);
	CHECK_ERR(lec_diff_pages(base_dir, "/nonexistent/dir", NULL, &d),
		  LEC_EIO);
	CHECK_ERR(lec_diff_pages(NULL, head_dir, NULL, &d), LEC_EINVALID);
	CHECK_ERR(lec_diff_pages(base_dir, head_dir, NULL, NULL),
		  LEC_EINVALID);
}

TEST(references)
{
	struct lec_store *st = lec_test_store();
	struct lec_diff_ref ref;
	int64_t project = lec_test_project(st, "proj");
	static const char *const bad[] = { "", "build:", "build:x",
					   "build:0", "build:-2", "build:3y",
					   "build:99999999999999999999" };
	char longref[LEC_DIFF_REF_MAX + 2];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_ERR(lec_diff_ref_resolve(st, lec_test_tmpdir(), project,
					       "proj", bad[i], &ref),
			  LEC_EINVALID);
	memset(longref, 'a', sizeof(longref) - 1);
	longref[sizeof(longref) - 1] = '\0';
	CHECK_ERR(lec_diff_ref_resolve(st, lec_test_tmpdir(), project, "proj",
				       longref, &ref),
		  LEC_EINVALID);
	CHECK_ERR(lec_diff_ref_resolve(st, lec_test_tmpdir(), project, "proj",
				       "latest", &ref),
		  LEC_ENOTFOUND);
	CHECK_ERR(lec_diff_ref_resolve(st, lec_test_tmpdir(), project, "proj",
				       "build:7", &ref),
		  LEC_ENOTFOUND);
	CHECK_STR(lec_error_last(), "No build 7 in this project.");
	CHECK(ref.dir == NULL);
	lec_diff_ref_dispose(NULL);
	lec_store_free(st);
}

TEST(allocation_failures)
{
	struct lec_diff *d = NULL;
	long n;
	int rc = LEC_ENOMEM;

	make_trees();
	for (n = 1; rc == LEC_ENOMEM && n < 100000; n++) {
		d = (struct lec_diff *)&d;
		lec__alloc_fail_after(n);
		rc = lec_diff_pages(base_dir, head_dir, NULL, &d);
		lec__alloc_fail_after(0);
		if (rc == LEC_ENOMEM)
			CHECK(d == NULL);
		else if (d)
			CHECK_INT(d->pages_len, 4);
		if (rc != LEC_ENOMEM)
			lec_diff_free(d);
	}
	CHECK_OK(rc);
	CHECK(n > 20);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(sentence_diffs),
	TEST_ENTRY(random_diffs_are_shortest),
	TEST_ENTRY(cell_limit_falls_back),
	TEST_ENTRY(pages_across_trees),
	TEST_ENTRY(generated_ids_pair_by_title),
	TEST_ENTRY(one_page_by_path),
	TEST_ENTRY(references),
	TEST_ENTRY(allocation_failures),
};

LEC_TEST_MAIN(tests)
