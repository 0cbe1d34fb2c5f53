/*
 * Page diffs (diff.h): two kept outputs of a project compared page by
 * page, section by section, sentence by sentence.
 *
 * One comparison serves all three levels: a longest common subsequence of
 * two lists of strings (lcs_edits), run over section keys to pair a page's
 * sections and over sentences to compare a pair's text. Pages are listed
 * from both trees with the indexer's own walk (lec__html_pages), so a diff
 * sees exactly the pages search sees; a page whose bytes are identical on
 * both sides is not parsed at all.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "internal.h"
#include "lectern/build.h"
#include "lectern/diff.h"
#include "lectern/pageparse.h"
#include "lectern/version.h"
#include "search_internal.h"

/* References ---------------------------------------------------------------- */

#define BUILD_PREFIX "build:"

void lec_diff_ref_dispose(struct lec_diff_ref *ref)
{
	if (ref == NULL)
		return;
	lec__free(ref->dir);
	memset(ref, 0, sizeof(*ref));
}

/* outputs/<id>/html of the data directory, if that directory exists. */
static int output_dir(const char *data_dir, int64_t build_id, char **out)
{
	struct lec__buf b = LEC__BUF_INIT;
	struct stat sb;

	lec__buf_printf(&b, "%s/outputs/%lld/html", data_dir,
			(long long)build_id);
	if ((*out = lec__buf_take(&b)) == NULL)
		return LEC_ENOMEM;
	if (stat(*out, &sb) == 0 && S_ISDIR(sb.st_mode))
		return LEC_OK;
	lec__free(*out);
	*out = NULL;
	return lec__error(LEC_ENOTFOUND,
			  "The output of build %lld is no longer kept.",
			  (long long)build_id);
}

/* The build a version's published link points at (../../outputs/<id>). */
static int published_build(const char *data_dir, const char *project_slug,
			   const struct lec_version *v, int64_t *build_id)
{
	struct lec__buf b = LEC__BUF_INIT;
	char target[PATH_MAX], *link, *end;
	ssize_t len;

	lec__buf_printf(&b, "%s/published/%s/%s", data_dir, project_slug,
			v->slug);
	if ((link = lec__buf_take(&b)) == NULL)
		return LEC_ENOMEM;
	len = readlink(link, target, sizeof(target) - 1);
	lec__free(link);
	target[len > 0 ? len : 0] = '\0';
	if (len <= 0 || strncmp(target, "../../outputs/", 14) != 0 ||
	    (*build_id = strtoll(target + 14, &end, 10)) <= 0 || *end != '\0')
		return lec__error(LEC_ENOTFOUND,
				  "Version %s has no published documentation.",
				  v->slug);
	return LEC_OK;
}

static int resolve_build(struct lec_store *st, const char *data_dir,
			 int64_t project_id, const char *id_text,
			 struct lec_diff_ref *out)
{
	struct lec_build *b = NULL;
	char *end;
	long long id;
	int rc;

	errno = 0;
	id = strtoll(id_text, &end, 10);
	if (id_text[0] < '0' || id_text[0] > '9' || *end != '\0' ||
	    errno != 0 || id <= 0)
		return lec__error(LEC_EINVALID,
				  "A build reference is build:<id>, with a "
				  "positive integer id.");
	if ((rc = lec_build_get_in_project(st, project_id, id, &b)) < 0) {
		if (rc == LEC_ENOTFOUND)
			rc = lec__error(LEC_ENOTFOUND,
					"No build %lld in this project.", id);
		return rc;
	}
	if (b->state != LEC_BUILD_STATE_FINISHED || !b->success)
		rc = lec__error(LEC_ENOTFOUND,
				"Build %lld did not pass: it has no output.",
				id);
	else
		rc = output_dir(data_dir, id, &out->dir);
	out->build_id = id;
	out->version_id = b->version_id;
	lec_build_free(b);
	return rc;
}

int lec_diff_ref_resolve(struct lec_store *st, const char *data_dir,
			 int64_t project_id, const char *project_slug,
			 const char *text, struct lec_diff_ref *out)
{
	struct lec_version *v = NULL;
	size_t len;
	int rc;

	lec_error_clear();
	if (out == NULL)
		return lec__error(LEC_EINVALID, "no reference to fill");
	memset(out, 0, sizeof(*out));
	if (st == NULL || data_dir == NULL || project_slug == NULL ||
	    text == NULL || (len = strlen(text)) == 0)
		return lec__error(LEC_EINVALID,
				  "A reference is a version slug or "
				  "build:<id>.");
	if (len > LEC_DIFF_REF_MAX)
		return lec__error(LEC_EINVALID,
				  "A reference is at most %d characters.",
				  LEC_DIFF_REF_MAX);
	if (strncmp(text, BUILD_PREFIX, strlen(BUILD_PREFIX)) == 0)
		rc = resolve_build(st, data_dir, project_id,
				   text + strlen(BUILD_PREFIX), out);
	else if ((rc = lec_version_get(st, project_id, text, &v)) == LEC_OK) {
		out->version_id = v->id;
		if (!v->active)
			rc = lec__error(LEC_ENOTFOUND,
					"Version %s is not active.", v->slug);
		else if ((rc = published_build(data_dir, project_slug, v,
					       &out->build_id)) == LEC_OK)
			rc = output_dir(data_dir, out->build_id, &out->dir);
	}
	lec_version_free(v);
	if (rc < 0)
		lec_diff_ref_dispose(out);
	return rc;
}

int lec_diff_usage(const char *data_dir, struct lec_diff_usage *out)
{
	struct lec__tree_size size;
	char *outputs, *path;
	struct dirent *e;
	DIR *d;

	lec_error_clear();
	if (data_dir == NULL || out == NULL)
		return lec__error(LEC_EINVALID, "no data directory to measure");
	memset(out, 0, sizeof(*out));
	if ((outputs = lec__path_join(data_dir, "outputs")) == NULL)
		return LEC_ENOMEM;
	if ((d = opendir(outputs)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (e->d_name[0] < '0' || e->d_name[0] > '9' ||
			    (path = lec__path_join(outputs, e->d_name)) == NULL)
				continue;
			out->outputs++;
			lec__tree_measure(path, &size);
			out->bytes += size.bytes;
			lec__free(path);
		}
		closedir(d);
	}
	lec__free(outputs);
	return LEC_OK;
}

/* The comparison ------------------------------------------------------------ */

/* One step of an edit script: ' ' pairs a[ai] with b[bi], '-' drops a[ai],
 * '+' inserts b[bi]. */
struct edit {
	char op;
	size_t ai, bi;
};

/*
 * The edits turning a into b with the fewest insertions and deletions: the
 * common start and end are paired first, the middle by a table of longest
 * common subsequences of suffixes when it fits in LEC_DIFF_CELLS_MAX
 * cells, else all removed then all added. *out holds na + nb edits at most.
 */
static int lcs_edits(const char *const *a, size_t na, const char *const *b,
		     size_t nb, struct edit **out, size_t *nout)
{
	struct edit *e = lec__calloc(na + nb + 1, sizeof(*e));
	uint32_t *t = NULL;
	size_t pre = 0, suf = 0, n, m, i, j, k = 0, w;

	if (e == NULL)
		return lec__error_oom();
	while (pre < na && pre < nb && strcmp(a[pre], b[pre]) == 0)
		pre++;
	while (suf < na - pre && suf < nb - pre &&
	       strcmp(a[na - 1 - suf], b[nb - 1 - suf]) == 0)
		suf++;
	n = na - pre - suf;
	m = nb - pre - suf;
	w = m + 1;
	for (i = 0; i < pre; i++)
		e[k++] = (struct edit){ ' ', i, i };
	if (n > 0 && m > 0 && (n + 1) <= LEC_DIFF_CELLS_MAX / w &&
	    (t = lec__calloc((n + 1) * w, sizeof(*t))) != NULL) {
		/* t[i][j]: the common subsequence of a[pre+i..] and b[pre+j..]
		 * of the middle, so the walk below goes forwards. */
		for (i = n; i-- > 0;)
			for (j = m; j-- > 0;)
				t[i * w + j] =
					strcmp(a[pre + i], b[pre + j]) == 0
						? t[(i + 1) * w + j + 1] + 1
					: t[(i + 1) * w + j] >= t[i * w + j + 1]
						? t[(i + 1) * w + j]
						: t[i * w + j + 1];
		for (i = 0, j = 0; i < n || j < m;) {
			if (i < n && j < m &&
			    strcmp(a[pre + i], b[pre + j]) == 0) {
				e[k++] = (struct edit){ ' ', pre + i, pre + j };
				i++, j++;
			} else if (j == m ||
				   (i < n &&
				    t[(i + 1) * w + j] >= t[i * w + j + 1])) {
				e[k++] = (struct edit){ '-', pre + i, 0 };
				i++;
			} else {
				e[k++] = (struct edit){ '+', 0, pre + j };
				j++;
			}
		}
		lec__free(t);
	} else {
		for (i = 0; i < n; i++)
			e[k++] = (struct edit){ '-', pre + i, 0 };
		for (j = 0; j < m; j++)
			e[k++] = (struct edit){ '+', 0, pre + j };
	}
	for (i = 0; i < suf; i++)
		e[k++] = (struct edit){ ' ', na - suf + i, nb - suf + i };
	*out = e;
	*nout = k;
	return LEC_OK;
}

/* Sentences -------------------------------------------------------------- */

/* A text cut into sentences: the pointers point into copy. */
struct sentences {
	char *copy;
	const char **items;
	size_t len;
};

static void sentences_dispose(struct sentences *s)
{
	lec__free(s->copy);
	lec__free(s->items);
	memset(s, 0, sizeof(*s));
}

static int sentences_split(const char *text, struct sentences *s)
{
	size_t i, n = 1;
	char *p;

	memset(s, 0, sizeof(*s));
	if (text[0] == '\0')
		return LEC_OK;
	if ((s->copy = lec__strdup(text)) == NULL)
		return lec__error_oom();
	for (p = s->copy; *p; p++)
		n += (*p == '.' || *p == '!' || *p == '?') && p[1] == ' ';
	if ((s->items = lec__calloc(n, sizeof(char *))) == NULL) {
		sentences_dispose(s);
		return lec__error_oom();
	}
	s->items[s->len++] = s->copy;
	for (i = 0, p = s->copy; p[i]; i++)
		if ((p[i] == '.' || p[i] == '!' || p[i] == '?') &&
		    p[i + 1] == ' ') {
			p[i + 1] = '\0';
			/* A trailing space ends the text, not a sentence. */
			if (p[i + 2] != '\0')
				s->items[s->len++] = p + i + 2;
			i++;
		}
	return LEC_OK;
}

void lec_diff_lines_free(struct lec_diff_line *lines, size_t len)
{
	size_t i;

	for (i = 0; lines && i < len; i++)
		lec__free(lines[i].text);
	lec__free(lines);
}

int lec_diff_text(const char *base, const char *head,
		  struct lec_diff_line **lines, size_t *len)
{
	struct sentences a = { 0 }, b = { 0 };
	struct lec_diff_line *l = NULL;
	struct edit *e = NULL;
	size_t ne = 0, i;
	int rc;

	lec_error_clear();
	if (lines == NULL || len == NULL)
		return lec__error(LEC_EINVALID, "nowhere to put the lines");
	*lines = NULL;
	*len = 0;
	if (base == NULL || head == NULL)
		return lec__error(LEC_EINVALID, "no text to compare");
	if ((rc = sentences_split(base, &a)) < 0 ||
	    (rc = sentences_split(head, &b)) < 0 ||
	    (rc = lcs_edits(a.items, a.len, b.items, b.len, &e, &ne)) < 0)
		goto done;
	if (ne > 0 && (l = lec__calloc(ne, sizeof(*l))) == NULL) {
		rc = lec__error_oom();
		goto done;
	}
	for (i = 0; i < ne; i++) {
		l[i].op = e[i].op;
		l[i].text = lec__strdup(e[i].op == '+' ? b.items[e[i].bi]
						       : a.items[e[i].ai]);
		if (l[i].text == NULL) {
			lec_diff_lines_free(l, i);
			l = NULL;
			rc = lec__error_oom();
			goto done;
		}
	}
	*lines = l;
	*len = ne;
done:
	lec__free(e);
	sentences_dispose(&a);
	sentences_dispose(&b);
	return rc;
}

/* Sections ------------------------------------------------------------- */

static void section_dispose(struct lec_diff_section *s)
{
	lec__free(s->id);
	lec__free(s->title);
	lec__free(s->base_title);
	lec_diff_lines_free(s->lines, s->lines_len);
}

static void page_dispose(struct lec_diff_page *p)
{
	size_t i;

	for (i = 0; i < p->sections_len; i++)
		section_dispose(&p->sections[i]);
	lec__free(p->sections);
	lec__free(p->path);
	lec__free(p->title);
	lec__free(p->base_title);
}

void lec_diff_free(struct lec_diff *d)
{
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < d->pages_len; i++)
		page_dispose(&d->pages[i]);
	lec__free(d->pages);
	lec__free(d);
}

/* Whether id is one docutils numbers itself ("id1", "id2", ...) for a
 * heading whose own name is taken: numbered in page order, so a section
 * added above shifts every later one, and the title pairs them better. */
static int generated_id(const char *id)
{
	return id[0] == 'i' && id[1] == 'd' && id[2] &&
	       strspn(id + 2, "0123456789") == strlen(id + 2);
}

/* What pairs sections: the anchor, or for a section without one (or
 * with a generated one) its title behind a byte no anchor holds. Owned
 * by the caller. */
static char **section_keys(const struct lec_page_doc *doc)
{
	struct lec__buf b = LEC__BUF_INIT;
	char **keys = lec__calloc(doc->sections_len + 1, sizeof(char *));
	size_t i;

	for (i = 0; keys && i < doc->sections_len; i++) {
		const struct lec_page_section *s = &doc->sections[i];

		if (s->id[0] && !generated_id(s->id))
			lec__buf_puts(&b, s->id);
		else
			lec__buf_printf(&b, "\001%s", s->title);
		if ((keys[i] = lec__buf_take(&b)) == NULL) {
			while (i-- > 0)
				lec__free(keys[i]);
			lec__free(keys);
			return NULL;
		}
	}
	return keys;
}

static void keys_free(char **keys, size_t n)
{
	size_t i;

	for (i = 0; keys && i < n; i++)
		lec__free(keys[i]);
	lec__free(keys);
}

/* Add a section of status to page p, its lines from base to head text. */
static int add_section(struct lec_diff_page *p, enum lec_diff_status status,
		       const struct lec_page_section *base,
		       const struct lec_page_section *head)
{
	const struct lec_page_section *s = head ? head : base;
	struct lec_diff_section *d = &p->sections[p->sections_len];
	int rc;

	memset(d, 0, sizeof(*d));
	d->status = status;
	d->id = lec__strdup(s->id);
	d->title = lec__strdup(s->title);
	if (base && head && strcmp(base->title, head->title) != 0)
		d->base_title = lec__strdup(base->title);
	if (d->id == NULL || d->title == NULL ||
	    (base && head && strcmp(base->title, head->title) != 0 &&
	     d->base_title == NULL)) {
		section_dispose(d);
		return lec__error_oom();
	}
	if ((rc = lec_diff_text(base ? base->content : "",
				head ? head->content : "", &d->lines,
				&d->lines_len)) < 0) {
		section_dispose(d);
		return rc;
	}
	p->sections_len++;
	return LEC_OK;
}

/* The sections of a changed page that differ; none when the two parse
 * the same. */
static int compare_sections(struct lec_diff_page *p,
			    const struct lec_page_doc *a,
			    const struct lec_page_doc *b)
{
	char **ka = section_keys(a), **kb = section_keys(b);
	struct edit *e = NULL;
	size_t ne = 0, i;
	int rc;

	if (ka == NULL || kb == NULL) {
		rc = lec__error_oom();
		goto done;
	}
	if ((rc = lcs_edits((const char *const *)ka, a->sections_len,
			    (const char *const *)kb, b->sections_len, &e,
			    &ne)) < 0)
		goto done;
	if (ne > 0 && (p->sections = lec__calloc(ne, sizeof(*p->sections))) ==
			      NULL) {
		rc = lec__error_oom();
		goto done;
	}
	for (i = 0; rc == LEC_OK && i < ne; i++) {
		const struct lec_page_section *sa = &a->sections[e[i].ai];
		const struct lec_page_section *sb = &b->sections[e[i].bi];

		if (e[i].op == '-')
			rc = add_section(p, LEC_DIFF_REMOVED, sa, NULL);
		else if (e[i].op == '+')
			rc = add_section(p, LEC_DIFF_ADDED, NULL, sb);
		else if (strcmp(sa->title, sb->title) != 0 ||
			 strcmp(sa->content, sb->content) != 0)
			rc = add_section(p, LEC_DIFF_CHANGED, sa, sb);
	}
done:
	lec__free(e);
	keys_free(ka, a->sections_len);
	keys_free(kb, b->sections_len);
	return rc;
}

/* Pages ---------------------------------------------------------------- */

/* Read root/rel into *data; a page that cannot be read counts as empty
 * (it parses to no sections), as for the indexer. */
static int read_side(const char *root, const char *rel, char **data,
		     size_t *len)
{
	char *file = lec__path_join(root, rel);
	int rc;

	*data = NULL;
	*len = 0;
	if (file == NULL)
		return lec__error_oom();
	rc = lec__page_read(file, data, len);
	lec__free(file);
	return rc == LEC_ENOMEM ? rc : LEC_OK;
}

/* Compare page rel of both roots (present on both sides) into p; p's
 * status stays CHANGED with no sections and no base_title when they are
 * the same. */
static int compare_page(const char *base_dir, const char *head_dir,
			const char *rel, struct lec_diff_page *p)
{
	struct lec_page_doc *a = NULL, *b = NULL;
	char *da = NULL, *db = NULL;
	size_t la = 0, lb = 0;
	int rc;

	if ((rc = read_side(base_dir, rel, &da, &la)) < 0 ||
	    (rc = read_side(head_dir, rel, &db, &lb)) < 0)
		goto done;
	if (la == lb && (la == 0 || memcmp(da, db, la) == 0))
		goto done;
	if ((rc = lec_page_parse_html(da, la, rel, &a)) < 0 ||
	    (rc = lec_page_parse_html(db, lb, rel, &b)) < 0)
		goto done;
	if ((p->title = lec__strdup(b->title)) == NULL ||
	    (strcmp(a->title, b->title) != 0 &&
	     (p->base_title = lec__strdup(a->title)) == NULL)) {
		rc = lec__error_oom();
		goto done;
	}
	rc = compare_sections(p, a, b);
done:
	lec_page_doc_free(a);
	lec_page_doc_free(b);
	lec__free(da);
	lec__free(db);
	return rc;
}

/* The title of a page on one side only. */
static int lone_title(const char *root, const char *rel, char **title)
{
	struct lec_page_doc *doc = NULL;
	char *data = NULL;
	size_t len = 0;
	int rc;

	if ((rc = read_side(root, rel, &data, &len)) == LEC_OK &&
	    (rc = lec_page_parse_html(data, len, rel, &doc)) == LEC_OK &&
	    (*title = lec__strdup(doc->title)) == NULL)
		rc = lec__error_oom();
	lec_page_doc_free(doc);
	lec__free(data);
	return rc;
}

/* Add page rel (status op of a page edit) to d, unless it did not change. */
static int add_page(struct lec_diff *d, const char *base_dir,
		    const char *head_dir, char op, const char *rel)
{
	struct lec_diff_page *p = &d->pages[d->pages_len];
	int rc;

	memset(p, 0, sizeof(*p));
	if ((p->path = lec__strdup(rel)) == NULL)
		return lec__error_oom();
	if (op == ' ') {
		p->status = LEC_DIFF_CHANGED;
		rc = compare_page(base_dir, head_dir, rel, p);
	} else {
		p->status = op == '+' ? LEC_DIFF_ADDED : LEC_DIFF_REMOVED;
		rc = lone_title(op == '+' ? head_dir : base_dir, rel,
				&p->title);
	}
	if (rc == LEC_OK && op == ' ' && p->sections_len == 0 &&
	    p->base_title == NULL) {
		d->unchanged++;
		page_dispose(p);
		return LEC_OK;
	}
	if (rc < 0) {
		page_dispose(p);
		return rc;
	}
	d->pages_len++;
	return LEC_OK;
}

/* A request's page path as the walk names pages; NULL after an error. */
static char *page_path(const char *path)
{
	struct lec__buf b = LEC__BUF_INIT;
	const char *p;
	size_t len;

	while (*path == '/')
		path++;
	len = strlen(path);
	if (len >= PATH_MAX) {
		lec__error_field(LEC_EINVALID, "path", "The page path is too long.");
		return NULL;
	}
	for (p = path; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f ||
		    ((p == path || p[-1] == '/') && p[0] == '.' &&
		     p[1] == '.' && (p[2] == '/' || p[2] == '\0'))) {
			lec__error_field(LEC_EINVALID, "path",
					 "The page path may not hold control "
					 "characters or '..'.");
			return NULL;
		}
	if (len == 0 || path[len - 1] == '/')
		lec__buf_printf(&b, "%sindex.html", path);
	else if (len > 5 && strcmp(path + len - 5, ".html") == 0)
		lec__buf_puts(&b, path);
	else
		lec__buf_printf(&b, "%s.html", path);
	return lec__buf_take(&b);
}

static int has_path(const struct lec__paths *ps, const char *rel)
{
	size_t i;

	for (i = 0; i < ps->len; i++)
		if (strcmp(ps->items[i], rel) == 0)
			return 1;
	return 0;
}

/* The edits between two sorted page lists: a merge, each path once. */
static int merge_edits(const struct lec__paths *a, const struct lec__paths *b,
		       struct edit **out, size_t *nout)
{
	struct edit *e = lec__calloc(a->len + b->len + 1, sizeof(*e));
	size_t i = 0, j = 0, k = 0;

	if (e == NULL)
		return lec__error_oom();
	while (i < a->len || j < b->len) {
		int c = i == a->len   ? 1
			: j == b->len ? -1
				      : strcmp(a->items[i], b->items[j]);

		if (c == 0)
			e[k++] = (struct edit){ ' ', i++, j++ };
		else if (c < 0)
			e[k++] = (struct edit){ '-', i++, 0 };
		else
			e[k++] = (struct edit){ '+', 0, j++ };
	}
	*out = e;
	*nout = k;
	return LEC_OK;
}

int lec_diff_pages(const char *base_dir, const char *head_dir,
		   const char *path, struct lec_diff **out)
{
	struct lec__paths a = { 0 }, b = { 0 };
	struct lec_diff *d = NULL;
	struct edit *e = NULL;
	char *rel = NULL;
	size_t ne = 0, i;
	int rc;

	lec_error_clear();
	if (out == NULL)
		return lec__error(LEC_EINVALID, "nowhere to put the diff");
	*out = NULL;
	if (base_dir == NULL || head_dir == NULL)
		return lec__error(LEC_EINVALID, "no outputs to compare");
	if (path && (rel = page_path(path)) == NULL)
		return lec_error_last_code();
	if ((rc = lec__html_pages(base_dir, &a)) < 0 ||
	    (rc = lec__html_pages(head_dir, &b)) < 0)
		goto done;
	if (rel) {
		/* One page: one edit, whichever sides have it. */
		int in_a = has_path(&a, rel), in_b = has_path(&b, rel);

		if (!in_a && !in_b) {
			rc = lec__error(LEC_ENOTFOUND,
					"No page %s on either side.", rel);
			goto done;
		}
		if ((e = lec__calloc(1, sizeof(*e))) == NULL) {
			rc = lec__error_oom();
			goto done;
		}
		e->op = in_a && in_b ? ' ' : in_a ? '-' : '+';
		ne = 1;
	} else if ((rc = merge_edits(&a, &b, &e, &ne)) < 0) {
		goto done;
	}
	if ((d = lec__calloc(1, sizeof(*d))) == NULL ||
	    (ne > 0 && (d->pages = lec__calloc(ne, sizeof(*d->pages))) ==
			       NULL)) {
		rc = lec__error_oom();
		goto done;
	}
	for (i = 0; rc == LEC_OK && i < ne; i++) {
		if (d->pages_len == LEC_DIFF_PAGES_MAX) {
			d->truncated = 1;
			break;
		}
		rc = add_page(d, base_dir, head_dir, e[i].op,
			      rel			? rel
			      : e[i].op == '+' ? b.items[e[i].bi]
					       : a.items[e[i].ai]);
	}
	if (rc == LEC_OK) {
		*out = d;
		d = NULL;
	}
done:
	lec_diff_free(d);
	lec__free(e);
	lec__free(rel);
	lec__paths_dispose(&a);
	lec__paths_dispose(&b);
	return rc;
}
