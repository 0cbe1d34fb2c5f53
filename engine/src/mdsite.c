/*
 * The Markdown site generator (lectern/mdsite.h): walks the source tree
 * (mdsite_walk.c), renders every page, then writes each page inside the
 * site's frame (title, navigation, previous/next) and copies the other
 * files.
 *
 * Pages are rendered before any is written because every page's navigation
 * shows every page's title, which is the page's first h1. Reads and writes
 * go through directory descriptors (openat) with O_NOFOLLOW so that the walk
 * never leaves the source tree through a symbolic link, whatever the
 * repository contains; links are only taken after realpath() shows where
 * they lead.
 *
 * With a state directory, each page's source is read and hashed first; a
 * page the previous build made from the same bytes gets its title from the
 * manifest and waits, text in hand, until the frame of the site is known:
 * when the frame is the previous build's too, the page's old HTML is taken
 * from the state, else it is rendered after all. Every page carries the
 * whole navigation (about 88 KB a page on a 1,000-page site), so writing
 * pages costs more than rendering their Markdown: the state holds hard
 * links to the pages written, and reused pages are linked back into the
 * output, each checked against its SHA-256 first, as the output's files
 * are the state's. Keeping the state and deciding what it may give is
 * mdsite_kept.c's; the manifest's format is mdsite_state.c's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "mdsite_site.h"

/* Above this many pages the navigation on each page opens only the
 * directories on the way to that page: the full list costs pages squared
 * bytes (about 90 MB at 1,000 pages, 360 MB at 2,000). */
#define NAV_FULL_MAX 2000
/* Why pages were rendered when no other reason was given. */
static const char REASON_PAGES[] = "pages changed";

/* Small helpers ----------------------------------------------------------- */

/* s escaped for an href. Owned by caller. */
static char *escape_url(const char *s)
{
	struct lec__buf out = LEC__BUF_INIT;

	lec_mdsite__url_escape(&out, s, strlen(s));
	return lec__buf_take(&out);
}

/* s made valid UTF-8. Owned by caller. */
static char *repaired_strndup(const char *s, size_t n)
{
	struct lec__buf fixed = LEC__BUF_INIT;

	if (lec_mdsite__utf8_repair(s, n, &fixed) == 0)
		return lec__strndup(s, n);
	return lec__buf_take(&fixed);
}

/* Rendering --------------------------------------------------------------- */

static const char *resolve_page(const char *src_rel, void *payload)
{
	const struct lec_mdsite__site *s = payload;
	size_t *i = lec_mdsite__map_get(&s->by_src, src_rel, strlen(src_rel));

	return i ? s->pages[*i].out_rel : NULL;
}

/* Read a whole file into buf; < 0 with errno set on failure. */
static int read_file(struct lec_mdsite__site *s,
		     const struct lec_mdsite__page *p,
		     struct lec__buf *buf)
{
	const char *path = p->read_path ? p->read_path : p->src_rel;
	struct stat st;
	int fd = openat(s->src_fd, path,
			 O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	int rc = -1;

	buf->len = 0;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0)
		goto done;
	if (!S_ISREG(st.st_mode) || st.st_size > LEC_MDSITE__PAGE_MAX) {
		errno = EINVAL;
		goto done;
	}
	if (lec__buf_reserve(buf, (size_t)st.st_size + 1) < 0) {
		errno = ENOMEM;
		goto done;
	}
	for (;;) {
		ssize_t got;

		if (buf->cap - buf->len < 2 &&
		    lec__buf_reserve(buf, buf->len) < 0) {
			errno = ENOMEM;
			goto done;
		}
		got = read(fd, buf->ptr + buf->len, buf->cap - buf->len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto done;
		if (got == 0)
			break;
		buf->len += (size_t)got;
	}
	rc = buf->len > (size_t)LEC_MDSITE__PAGE_MAX ? -1 : 0;
	if (rc < 0)
		errno = EFBIG;
done:
	close(fd);
	return rc;
}

/* NUL after the text: md4c 0.4.8 runs strcspn() over its input, which
 * would read past a buffer that is not terminated. */
static void terminate(struct lec__buf *b)
{
	if (lec__buf_reserve(b, 1) == LEC_OK)
		b->ptr[b->len] = '\0';
}

/* The Markdown of a page as md4c must get it: valid UTF-8, no BOM, and
 * NUL-terminated. */
static void prepare_text(struct lec__buf *raw,
			 struct lec__buf *fixed, const char **md,
			 size_t *n)
{
	fixed->len = 0;
	terminate(raw);
	*md = raw->ptr ? raw->ptr : "";
	*n = raw->len;
	if (lec_mdsite__utf8_repair(*md, *n, fixed) > 0) {
		terminate(fixed);
		*md = fixed->ptr;
		*n = fixed->len;
	}
	if (*n >= 3 && memcmp(*md, "\xEF\xBB\xBF", 3) == 0) {
		*md += 3;
		*n -= 3;
	}
}

/* Render the page's Markdown (raw: its bytes as read) into p->body; *title
 * gets the title of its front matter, else its first h1, else NULL. */
static int render_text(struct lec_mdsite__site *s, struct lec_mdsite__page *p,
		       struct lec__buf *raw,
		       struct lec__buf *fixed, char **title)
{
	struct lec__buf body = LEC__BUF_INIT;
	struct lec_mdsite__links links;
	char *meta_title = NULL;
	const char *md;
	size_t n, skip;
	int error;

	prepare_text(raw, fixed, &md, &n);
	if (fixed->oom)
		return lec__error_oom();
	if ((error = lec_mdsite__front_matter(md, n, &skip, &meta_title)) < 0)
		return error;
	links.page_dir = p->dir;
	links.resolve = resolve_page;
	links.payload = s;
	error = lec_mdsite__render(md + skip, n - skip, &links, &body, title);
	if (error == LEC_OK && meta_title != NULL) {
		lec__free(*title);
		*title = meta_title;
		meta_title = NULL;
	}
	lec__free(meta_title);
	if (error == LEC_OK && (p->body = lec__buf_take(&body)) == NULL)
		error = LEC_ENOMEM;
	lec__buf_dispose(&body);
	if (error < 0 && error != LEC_ENOMEM) {
		char why[LEC_MDSITE__WARNING_MAX];

		snprintf(why, sizeof(why), "%s", lec_error_last());
		return lec__error(error, "%s: %s", p->src_rel, why);
	}
	return error;
}

/* Render a page whose source was held for reuse that did not happen. Its
 * title stays the one the manifest gave, which this same generator made
 * from these same bytes. */
static int render_held(struct lec_mdsite__site *s, struct lec_mdsite__page *p)
{
	struct lec__buf fixed = LEC__BUF_INIT;
	char *title = NULL;
	int error = render_text(s, p, &p->source, &fixed, &title);

	lec__free(title);
	lec__buf_dispose(&fixed);
	lec__buf_dispose(&p->source);
	return error;
}

/* Render the pages held for a reuse lec_mdsite__kept_decide refused. */
static int render_refused(struct lec_mdsite__site *s)
{
	size_t i;
	int error = LEC_OK;

	for (i = 0; i < s->npages && s->reason != NULL && error == LEC_OK;
	     i++) {
		struct lec_mdsite__page *p = &s->pages[i];

		if (p->body == NULL && p->source.ptr != NULL)
			error = render_held(s, p);
	}
	return error;
}

/* Read a page's source and render it; or, when the previous build made the
 * same page from the same bytes, take the title it had and hold the text:
 * whether the old HTML can be reused is known only once every page has its
 * title (decide_reuse). */
static int scan_page(struct lec_mdsite__site *s, struct lec_mdsite__page *p,
		     struct lec__buf *raw, struct lec__buf *fixed)
{
	const struct lec_mdsite__kept_page *k;
	int error;

	if (read_file(s, p, raw) < 0) {
		if (errno == ENOMEM)
			return lec__error_oom();
		lec_mdsite__warn(s, "cannot read %s: %s", p->src_rel,
				 strerror(errno));
		p->body = lec__strdup("<p>The source of this page could not "
				      "be read.</p>\n");
		LEC__CHECK_ALLOC(p->body);
		return LEC_OK;
	}
	s->stats->bytes_in += raw->len;
	if (s->state_fd >= 0 &&
	    (error = lec__sha256_hex(raw->ptr, raw->len, p->hash)) < 0 &&
	    (error = lec_mdsite__kept_drop(s, error)) < 0)
		return error;
	k = s->state_fd >= 0 ? lec_mdsite__state_find(&s->prev, p->out_rel)
			     : NULL;
	if (k == NULL || k->hash[0] == '\0' || strcmp(k->hash, p->hash) != 0 ||
	    strcmp(k->src_rel, p->src_rel) != 0) {
		error = render_text(s, p, raw, fixed, &p->title);
		p->has_h1 = p->title != NULL;
		return error;
	}
	if (k->title != NULL && (p->title = lec__strdup(k->title)) == NULL)
		return lec__error_oom();
	p->has_h1 = k->title != NULL;
	p->kept = k;
	p->source = *raw;
	*raw = (struct lec__buf)LEC__BUF_INIT;
	return LEC_OK;
}

static int scan_pages(struct lec_mdsite__site *s)
{
	struct lec__buf raw = LEC__BUF_INIT;
	struct lec__buf fixed = LEC__BUF_INIT;
	size_t i;
	int error = LEC_OK;

	for (i = 0; i < s->npages && error == LEC_OK; i++)
		error = scan_page(s, &s->pages[i], &raw, &fixed);
	lec__buf_dispose(&raw);
	lec__buf_dispose(&fixed);
	return error;
}

/* Titles ------------------------------------------------------------------ */

/* The site's title: the option, else the top index page's h1, else the
 * source directory's name. */
static int site_title(struct lec_mdsite__site *s)
{
	size_t *top = lec_mdsite__map_get(&s->outputs, "index.html", 10);
	const char *name = strrchr(s->src_real, '/');

	if (s->opts->title != NULL && s->opts->title[0] != '\0')
		s->title = repaired_strndup(s->opts->title,
					    strlen(s->opts->title));
	else if (top != NULL && s->pages[*top].title != NULL)
		s->title = lec__strdup(s->pages[*top].title);
	else
		s->title = lec__strdup(name && name[1] ? name + 1
						       : "Documentation");
	LEC__CHECK_ALLOC(s->title);
	s->title_html = lec_mdsite__escape_text(s->title);
	LEC__CHECK_ALLOC(s->title_html);
	return LEC_OK;
}

/* A page without an h1 is named after its file (a directory's index page
 * after the directory; the top one after the site). */
static int page_titles(struct lec_mdsite__site *s)
{
	size_t i;
	int error;

	if ((error = site_title(s)) < 0)
		return error;
	for (i = 0; i < s->npages; i++) {
		struct lec_mdsite__page *p = &s->pages[i];
		const char *name;

		if (p->title == NULL && p->is_dir_index && p->dir[0] == '\0') {
			p->title = lec__strdup(s->title);
		} else if (p->title == NULL && p->is_dir_index) {
			name = strrchr(p->dir, '/');
			name = name ? name + 1 : p->dir;
			p->title = repaired_strndup(name, strlen(name));
		} else if (p->title == NULL) {
			name = strrchr(p->src_rel, '/');
			name = name ? name + 1 : p->src_rel;
			p->title = repaired_strndup(name, strlen(name) - 3);
		}
		LEC__CHECK_ALLOC(p->title);
		if ((p->title_html = lec_mdsite__escape_text(p->title)) ==
			    NULL ||
		    (p->href = escape_url(p->out_rel)) == NULL)
			return LEC_ENOMEM;
	}
	return LEC_OK;
}

/* Navigation -------------------------------------------------------------- */

/* A link to page; its title as the text unless `text` is given. */
static void put_link(struct lec_mdsite__site *s, struct lec__buf *out,
		     size_t page, size_t current, const char *prefix,
		     const char *text)
{
	const struct lec_mdsite__page *p = &s->pages[page];

	lec__buf_puts(out, "<a href=\"");
	lec__buf_puts(out, prefix);
	lec__buf_puts(out, p->href);
	lec__buf_puts(out, page == current ? "\" aria-current=\"page\">"
					   : "\">");
	lec__buf_puts(out, text ? text : p->title_html);
	lec__buf_puts(out, "</a>");
}

/* A directory's item, closed: a link to its index page, else to its first
 * page under the directory's name. Returns the item after it. */
static size_t put_closed_dir(struct lec_mdsite__site *s,
			     struct lec__buf *out, size_t i,
			     const char *prefix)
{
	const struct lec_mdsite__nav_item *item = &s->nav[i];
	size_t first = i + 1;

	while (s->nav[first].page == LEC_MDSITE__NO_PAGE)
		first++;
	lec__buf_puts(out, "<li class=\"nav-dir\">");
	if (item->page != LEC_MDSITE__NO_PAGE)
		put_link(s, out, item->page, LEC_MDSITE__NO_PAGE, prefix, NULL);
	else
		put_link(s, out, s->nav[first].page, LEC_MDSITE__NO_PAGE,
			 prefix, item->label);
	lec__buf_puts(out, "</li>\n");
	return item->end + 1;
}

/* Whether the navigation shows the directory item i open for `current`. */
static int dir_open(const struct lec_mdsite__site *s, size_t i, size_t current,
		    int full)
{
	size_t at;

	if (full || !s->collapse_nav)
		return 1;
	if (current == LEC_MDSITE__NO_PAGE)
		return 0;
	at = s->pages[current].nav_at;
	return i <= at && at <= s->nav[i].end;
}

/* The navigation as a nested list; links start with prefix (the way back
 * to the root), `current` is marked, `omit` left out (LEC_MDSITE__NO_PAGE: none).
 * `full`: every directory open, even on a big site. */
static void put_nav(struct lec_mdsite__site *s, struct lec__buf *out,
		    size_t current, const char *prefix, size_t omit, int full)
{
	size_t i = 0;

	lec__buf_puts(out, "<ul>\n");
	while (i < s->nnav) {
		const struct lec_mdsite__nav_item *item = &s->nav[i];

		if (item->kind == LEC_MDSITE__NAV_DIR_OPEN &&
		    !dir_open(s, i, current, full)) {
			i = put_closed_dir(s, out, i, prefix);
			continue;
		}
		switch (item->kind) {
		case LEC_MDSITE__NAV_PAGE:
			if (item->page == omit)
				break;
			lec__buf_puts(out, "<li>");
			put_link(s, out, item->page, current, prefix, NULL);
			lec__buf_puts(out, "</li>\n");
			break;
		case LEC_MDSITE__NAV_DIR_OPEN:
			lec__buf_puts(out, "<li class=\"nav-dir\">");
			if (item->page != LEC_MDSITE__NO_PAGE) {
				put_link(s, out, item->page, current, prefix,
					 NULL);
			} else {
				lec__buf_puts(out, "<span>");
				lec__buf_puts(out, item->label);
				lec__buf_puts(out, "</span>");
			}
			lec__buf_puts(out, "\n<ul>\n");
			break;
		case LEC_MDSITE__NAV_DIR_CLOSE:
			lec__buf_puts(out, "</ul>\n</li>\n");
			break;
		}
		i++;
	}
	lec__buf_puts(out, "</ul>\n");
}

/* The pages in navigation order (for previous/next), where each page sits
 * in it and where each directory's item ends. */
static int nav_order(struct lec_mdsite__site *s)
{
	size_t open[LEC_MDSITE__DEPTH_MAX + 2];
	size_t i, depth = 0;

	s->order = lec__calloc(s->npages ? s->npages : 1, sizeof(*s->order));
	LEC__CHECK_ALLOC(s->order);
	s->collapse_nav = s->npages > NAV_FULL_MAX;
	for (i = 0; i < s->nnav; i++) {
		if (s->nav[i].kind == LEC_MDSITE__NAV_DIR_OPEN)
			open[depth++] = i;
		else if (s->nav[i].kind == LEC_MDSITE__NAV_DIR_CLOSE)
			s->nav[open[--depth]].end = i;
		if (s->nav[i].page == LEC_MDSITE__NO_PAGE)
			continue;
		s->pages[s->nav[i].page].nav_at = i;
		s->order[s->norder++] = s->nav[i].page;
	}
	return LEC_OK;
}

/* The top index.html when the source has neither index.md nor README.md:
 * the site's title and a list of every page. */
static int generate_index(struct lec_mdsite__site *s)
{
	struct lec__buf body = LEC__BUF_INIT;
	struct lec__buf id = LEC__BUF_INIT;
	struct lec_mdsite__page *p;
	size_t index = s->npages;
	int error;

	if (lec_mdsite__map_get(&s->outputs, "index.html", 10) != NULL)
		return LEC_OK;
	if ((error = lec__grow((void **)&s->pages, &s->pages_cap,
				      s->npages, sizeof(*s->pages), 16)) < 0 ||
	    (error = lec_mdsite__nav_push(s, LEC_MDSITE__NAV_PAGE, index,
					  NULL)) < 0)
		return error;
	/* First in the navigation. */
	memmove(s->nav + 1, s->nav, (s->nnav - 1) * sizeof(*s->nav));
	s->nav[0].kind = LEC_MDSITE__NAV_PAGE;
	s->nav[0].page = index;
	s->nav[0].label = NULL;
	p = &s->pages[index];
	memset(p, 0, sizeof(*p));
	s->npages++;
	p->is_dir_index = 1;
	p->dir = lec__strdup("");
	p->out_rel = lec__strdup("index.html");
	p->href = lec__strdup("index.html");
	p->title = lec__strdup(s->title);
	p->title_html = lec__strdup(s->title_html);
	lec_mdsite__slugify(&id, s->title, strlen(s->title));
	lec__buf_puts(&body, "<h1 id=\"");
	lec__buf_puts(&body, id.ptr ? id.ptr : "");
	lec__buf_puts(&body, "\">");
	lec__buf_puts(&body, s->title_html);
	lec__buf_puts(&body, "<a class=\"headerlink\" href=\"#");
	lec__buf_puts(&body, id.ptr ? id.ptr : "");
	lec__buf_puts(&body, "\" title=\"Link to this heading\">"
			     "\xC2\xB6</a></h1>\n");
	if (s->npages > 1)
		put_nav(s, &body, LEC_MDSITE__NO_PAGE, "", index, 1);
	else
		lec__buf_puts(&body, "<p>This site has no pages.</p>\n");
	p->body = lec__buf_take(&body);
	lec__buf_dispose(&id);
	if (!p->dir || !p->out_rel || !p->href || !p->title ||
	    !p->title_html || !p->body)
		return lec__error_oom();
	return lec_mdsite__map_put(&s->outputs, "index.html", 10, index);
}

/* Writing ----------------------------------------------------------------- */

static void put_neighbour(struct lec_mdsite__site *s,
			  struct lec__buf *out, size_t page,
			  const char *prefix, int next)
{
	lec__buf_puts(out, next ? "<a class=\"next\" rel=\"next\""
				: "<a class=\"prev\" rel=\"prev\"");
	lec__buf_puts(out, " href=\"");
	lec__buf_puts(out, prefix);
	lec__buf_puts(out, s->pages[page].href);
	lec__buf_puts(out, next ? "\"><span>Next</span>"
				: "\"><span>Previous</span>");
	lec__buf_puts(out, s->pages[page].title_html);
	lec__buf_puts(out, "</a>\n");
}

/* The whole document of the page at position `at` of the order. */
static void put_page(struct lec_mdsite__site *s, size_t at)
{
	struct lec__buf *out = &s->html;
	size_t page = s->order[at];
	const struct lec_mdsite__page *p = &s->pages[page];
	char prefix[3 * LEC_MDSITE__DEPTH_MAX + 4];
	unsigned i;

	for (i = 0; i < p->depth && i < LEC_MDSITE__DEPTH_MAX + 1; i++)
		memcpy(prefix + 3 * i, "../", 3);
	prefix[3 * i] = '\0';
	out->len = 0;
	lec__buf_puts(out, "<!DOCTYPE html>\n<html>\n<head>\n"
		"<meta charset=\"utf-8\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, "
		"initial-scale=1\">\n"
		"<meta name=\"generator\" content=\"Lectern\">\n<title>");
	lec__buf_puts(out, p->title_html);
	if (strcmp(p->title, s->title) != 0) {
		lec__buf_puts(out, " \xE2\x80\x94 ");
		lec__buf_puts(out, s->title_html);
	}
	lec__buf_puts(out, "</title>\n<link rel=\"stylesheet\" href=\"");
	lec__buf_puts(out, prefix);
	lec__buf_puts(out, LEC_MDSITE_STYLESHEET "\">\n</head>\n<body>\n"
			   "<header class=\"site-header\">"
			   "<a class=\"site-title\" href=\"");
	lec__buf_puts(out, prefix);
	lec__buf_puts(out, "index.html\">");
	lec__buf_puts(out, s->title_html);
	lec__buf_puts(out, "</a></header>\n<div class=\"site\">\n"
			   "<nav class=\"site-nav\" "
			   "aria-label=\"Pages\">\n");
	put_nav(s, out, page, prefix, LEC_MDSITE__NO_PAGE, 0);
	lec__buf_puts(out, "</nav>\n<div class=\"page\">\n<main>\n");
	lec__buf_puts(out, p->body);
	lec__buf_puts(out, "</main>\n<footer class=\"page-footer\">\n");
	if (at > 0)
		put_neighbour(s, out, s->order[at - 1], prefix, 0);
	if (at + 1 < s->norder)
		put_neighbour(s, out, s->order[at + 1], prefix, 1);
	lec__buf_puts(out, "</footer>\n</div>\n</div>\n"
			   "</body>\n</html>\n");
}

/* Render the page at position `at` of the order and write it (and keep it,
 * when state is kept). */
static int render_into_site(struct lec_mdsite__site *s, size_t at)
{
	struct lec_mdsite__page *p = &s->pages[s->order[at]];
	int error;

	if (p->body == NULL && (error = render_held(s, p)) < 0)
		return error;
	put_page(s, at);
	if (s->html.oom)
		return lec__error_oom();
	if ((error = lec_mdsite__write_file(&s->out, p->out_rel, s->html.ptr,
					    s->html.len)) < 0)
		return error;
	s->stats->bytes_out += s->html.len;
	s->stats->pages_rendered++;
	return s->state_fd >= 0 ? lec_mdsite__kept_add(s, p) : LEC_OK;
}

static int write_pages(struct lec_mdsite__site *s)
{
	size_t at;
	int error, reused;

	for (at = 0; at < s->norder; at++) {
		struct lec_mdsite__page *p = &s->pages[s->order[at]];

		reused = 0;
		if (p->kept != NULL &&
		    (error = lec_mdsite__kept_reuse(s, p, &reused)) < 0)
			return error;
		if (!reused && (error = render_into_site(s, at)) < 0)
			return error;
		lec__buf_dispose(&p->source);
		s->stats->pages++;
	}
	if ((error = lec_mdsite__write_file(&s->out, LEC_MDSITE_STYLESHEET,
					    lec_mdsite__css,
					    lec_mdsite__css_len)) < 0)
		return error;
	s->stats->bytes_out += lec_mdsite__css_len;
	return LEC_OK;
}

/* Assets ------------------------------------------------------------------ */

/* Hard-link the asset into the output when both are on one file system,
 * else copy it; from the descriptor opened without following links. */
static int copy_asset(struct lec_mdsite__site *s,
		      const struct lec_mdsite__asset *a)
{
	const char *path = a->read_path ? a->read_path : a->src_rel;
	struct stat st;
	int in, error, linked;

	if (lec_mdsite__map_get(&s->outputs, a->src_rel, strlen(a->src_rel))) {
		lec_mdsite__warn(s, "skipping %s: a generated file has the "
				 "same name", a->src_rel);
		return LEC_OK;
	}
	in = openat(s->src_fd, path,
			 O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (in < 0 || fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
		lec_mdsite__warn(s, "cannot read %s: %s", a->src_rel,
				 in < 0 ? strerror(errno)
					: "not a regular file");
		if (in >= 0)
			close(in);
		return LEC_OK;
	}
	if ((error = lec_mdsite__link_open_file(&s->out, a->src_rel, in,
						&linked)) < 0 ||
	    (!linked &&
	     (error = lec_mdsite__copy_data(&s->out, in, a->src_rel)) < 0))
		goto done;
	s->stats->assets++;
done:
	close(in);
	return error;
}

static int copy_assets(struct lec_mdsite__site *s)
{
	size_t i;
	int error;

	for (i = 0; i < s->nassets; i++)
		if ((error = copy_asset(s, &s->assets[i])) < 0)
			return error;
	return LEC_OK;
}

/* The build --------------------------------------------------------------- */

static int open_source(struct lec_mdsite__site *s, const char *src_dir)
{
	struct stat st;

	if (stat(src_dir, &st) != 0 && (errno == ENOENT || errno == ENOTDIR))
		return lec__error(LEC_ENOTFOUND,
				  "the source directory %s does not exist",
				  src_dir);
	if (realpath(src_dir, s->src_real) == NULL ||
	    (s->src_fd = open(s->src_real, O_RDONLY | O_DIRECTORY |
						   O_CLOEXEC)) < 0)
		return lec__error(LEC_EIO,
				  "cannot read the source directory %s: %s",
				  src_dir, strerror(errno));
	return LEC_OK;
}

static int open_output(struct lec_mdsite__site *s, const char *out_dir)
{
	int error;

	if ((error = lec__mkdirs_mode(out_dir, 0755)) < 0)
		return error;
	if (realpath(out_dir, s->out_real) == NULL ||
	    (s->out.fd = open(s->out_real, O_RDONLY | O_DIRECTORY |
						   O_CLOEXEC)) < 0 ||
	    fstat(s->out.fd, &s->out_st) != 0)
		return lec__error(LEC_EIO,
				  "cannot use the output directory %s: %s",
				  out_dir, strerror(errno));
	if (lec_mdsite__path_within(s->src_real, s->out_real))
		return lec__error(LEC_EINVALID,
				  "the output directory %s must not contain "
				  "the source directory", out_dir);
	if (faccessat(s->out.fd, ".", W_OK | X_OK, AT_EACCESS) != 0)
		return lec__error(LEC_EIO,
				  "cannot write to the output directory %s: %s",
				  out_dir, strerror(errno));
	return LEC_OK;
}

static const size_t asset_texts[] = {
	offsetof(struct lec_mdsite__asset, src_rel),
	offsetof(struct lec_mdsite__asset, read_path),
};

static void site_dispose(struct lec_mdsite__site *s)
{
	size_t i;

	for (i = 0; i < s->npages; i++) {
		struct lec_mdsite__page *p = &s->pages[i];

		lec__free(p->src_rel);
		lec__free(p->read_path);
		lec__free(p->out_rel);
		lec__free(p->dir);
		lec__free(p->title);
		lec__free(p->title_html);
		lec__free(p->href);
		lec__free(p->body);
		lec__buf_dispose(&p->source);
	}
	lec__free(s->pages);
	LEC__ITEMS_TEXTS_FREE(s->assets, s->nassets, asset_texts);
	lec_mdsite__nav_truncate(s, 0);
	lec__free(s->nav);
	lec__free(s->order);
	lec_mdsite__map_dispose(&s->by_src);
	lec_mdsite__map_dispose(&s->outputs);
	lec__free(s->title);
	lec__free(s->title_html);
	lec__buf_dispose(&s->html);
	if (s->src_fd >= 0)
		close(s->src_fd);
	lec_mdsite__tree_close(&s->out);
	lec_mdsite__tree_close(&s->kept);
	lec__free(s->kept_name);
	if (s->state_fd >= 0)
		close(s->state_fd);
	lec_mdsite__state_dispose(&s->prev);
}

int lec_mdsite_build(const char *src_dir, const char *out_dir,
		     const struct lec_mdsite_options *opts,
		     struct lec_mdsite_stats *stats)
{
	static const struct lec_mdsite_options defaults =
		LEC_MDSITE_OPTIONS_INIT;
	struct lec_mdsite_stats unused;
	struct lec_mdsite__site *s;
	int error;

	lec_error_clear();
	if (stats == NULL)
		stats = &unused;
	memset(stats, 0, sizeof(*stats));
	if (src_dir == NULL || src_dir[0] == '\0' || out_dir == NULL ||
	    out_dir[0] == '\0')
		return lec__error(LEC_EINVALID,
				  "a source and an output directory are "
				  "needed");
	if (opts != NULL && opts->version != LEC_MDSITE_OPTIONS_VERSION)
		return lec__error(LEC_EINVALID,
				  "unknown mdsite options version %u",
				  opts->version);
	s = lec__calloc(1, sizeof(*s));
	LEC__CHECK_ALLOC(s);
	s->src_fd = s->out.fd = s->kept.fd = s->state_fd = -1;
	s->opts = opts ? opts : &defaults;
	s->stats = stats;
	s->out.name = out_dir;
	if ((error = open_source(s, src_dir)) < 0 ||
	    (error = open_output(s, out_dir)) < 0 ||
	    (error = lec_mdsite__kept_open(s)) < 0 ||
	    (error = lec_mdsite__walk(s)) < 0 || (error = scan_pages(s)) < 0 ||
	    (error = page_titles(s)) < 0 || (error = generate_index(s)) < 0 ||
	    (error = lec_mdsite__map_put(&s->outputs, LEC_MDSITE_STYLESHEET,
					 strlen(LEC_MDSITE_STYLESHEET),
					 LEC_MDSITE__NO_PAGE)) < 0 ||
	    (error = nav_order(s)) < 0 ||
	    (error = lec_mdsite__kept_decide(s)) < 0 ||
	    (error = render_refused(s)) < 0 ||
	    (error = lec_mdsite__kept_begin(s)) < 0 ||
	    (error = write_pages(s)) < 0 || (error = copy_assets(s)) < 0)
		goto done;
	error = lec_mdsite__kept_commit(s);
done:
	stats->rebuild_reason = s->reason;
	if (s->reason == NULL && stats->pages_rendered > 0)
		stats->rebuild_reason = REASON_PAGES;
	site_dispose(s);
	lec__free(s);
	return error;
}
