/*
 * What of a source tree the Markdown site generator builds: its pages
 * (.md files; a directory's index.md or README.md is its index page), the
 * other files copied as assets, and the navigation in the order the pages
 * are shown. The walk enters every directory through a descriptor with
 * O_NOFOLLOW, so it never leaves the source through a symbolic link,
 * whatever the repository contains: a link is resolved by the kernel
 * beneath the source and followed only to a file inside it. Dot
 * directories, build outputs (_build, node_modules, a top-level site or
 * _readthedocs) and HTML files are left out.
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

/* "dir/name", or name when dir is empty. Owned by caller. */
static char *join(const char *dir, const char *name)
{
	struct lec__buf b = LEC__BUF_INIT;

	if (dir[0] != '\0') {
		lec__buf_puts(&b, dir);
		lec__buf_putc(&b, '/');
	}
	lec__buf_puts(&b, name);
	return lec__buf_take(&b);
}

static int has_md_suffix(const char *name)
{
	size_t n = strlen(name);

	return n > 3 && strcasecmp(name + n - 3, ".md") == 0;
}

/* HTML in the source is left out: it would be served and indexed for
 * search as pages of the site (a repository's test fixtures, say) and can
 * collide with the pages made from Markdown. */
static int has_html_suffix(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && strcasecmp(name + n - 5, ".html") == 0) ||
	       (n > 4 && strcasecmp(name + n - 4, ".htm") == 0);
}

/* HTML files left out that are named one warning each; the rest are one
 * more warning's count. A tree of built HTML (a site's output) would
 * otherwise fill a log with a line per page. */
#define HTML_SKIPPED_NAMED 3

/* Whether the walk leaves out a directory of this name. */
static int skipped_dir(const char *name, int top)
{
	return name[0] == '.' || strcmp(name, "_build") == 0 ||
	       strcmp(name, "node_modules") == 0 ||
	       (top && (strcmp(name, "_readthedocs") == 0 ||
			strcmp(name, "site") == 0));
}

enum entry_kind { ENTRY_PAGE, ENTRY_ASSET, ENTRY_DIR };

struct entry {
	char *name;
	enum entry_kind kind;
	char *read_path;
};

static int compare_entries(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcasecmp(x->name, y->name);

	return c ? c : strcmp(x->name, y->name);
}

/* Whether a symbolic link's target (inside the source, relative to it)
 * passes through something the walk skips. */
static int target_skipped(const char *rel)
{
	int top = 1;

	while (*rel != '\0') {
		size_t n = strcspn(rel, "/");
		char name[NAME_MAX + 1];

		if (n > NAME_MAX)
			return 1;
		memcpy(name, rel, n);
		name[n] = '\0';
		if (rel[n] == '/' ? skipped_dir(name, top) : name[0] == '.')
			return 1;
		rel += n + (rel[n] == '/');
		top = 0;
	}
	return 0;
}

/* The path of the file open at fd, as the kernel resolved it, into real
 * (PATH_MAX bytes); -1 when it cannot be told. */
static int opened_path(int fd, char *real)
{
	char proc[64];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if ((n = readlink(proc, real, PATH_MAX - 1)) <= 0 || real[0] != '/')
		return -1;
	real[n] = '\0';
	return 0;
}

/* Where a symbolic link leads, when that is a file of the source the site
 * may use: returns 1 with *read_path (owned by caller) and *st set, 0 when
 * it is skipped (with a warning), < 0 on error. The link is resolved by
 * the kernel beneath the source directory (lec__open_beneath): a link out
 * of it is never followed on the host, so nothing outside the checkout is
 * looked at as the engine's user, and its target is never printed (the
 * warnings are public). */
static int follow_link(struct lec_mdsite__site *s, const char *rel,
		       char **read_path, struct stat *st)
{
	char real[PATH_MAX];
	size_t root = strlen(s->src_real);
	int fd = -1, dir = -1, error, rc = 0;

	error = lec__open_beneath(s->src_fd, rel, LEC__OPEN_FILE, &fd);
	if (error == LEC_ENOTFOUND) {
		lec_mdsite__warn(s, "skipping %s: broken symbolic link", rel);
		goto done;
	}
	if (error == LEC_EINVALID &&
	    lec__open_beneath(s->src_fd, rel, LEC__OPEN_DIR, &dir) == LEC_OK) {
		lec_mdsite__warn(s, "skipping %s: symbolic links are only "
				 "followed to files", rel);
		goto done;
	}
	if (error < 0 || opened_path(fd, real) < 0 ||
	    !lec_mdsite__path_within(real, s->src_real)) {
		lec_mdsite__warn(s, "skipping %s: symbolic link that leads "
				 "outside the source directory", rel);
		goto done;
	}
	if (lec_mdsite__path_within(real, s->out_real) ||
	    target_skipped(real + root + (root > 1))) {
		lec_mdsite__warn(s, "skipping %s: symbolic link into a skipped "
				 "directory", rel);
		goto done;
	}
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
		lec_mdsite__warn(s, "skipping %s: symbolic links are only "
				 "followed to files", rel);
		goto done;
	}
	*read_path = lec__strdup(real);
	rc = *read_path ? 1 : lec__error_oom();
done:
	if (fd >= 0)
		close(fd);
	if (dir >= 0)
		close(dir);
	return rc;
}

/* Classify a directory entry: 1 to keep (kind set), 0 to skip. */
static int classify(struct lec_mdsite__site *s, int dir_fd, const char *rel,
		    struct entry *e, int top)
{
	struct stat st;
	int rc;

	if (fstatat(dir_fd, e->name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		lec_mdsite__warn(s, "skipping %s: %s", rel, strerror(errno));
		return 0;
	}
	if (S_ISDIR(st.st_mode)) {
		if (skipped_dir(e->name, top) ||
		    (st.st_dev == s->out_st.st_dev &&
		     st.st_ino == s->out_st.st_ino))
			return 0;
		e->kind = ENTRY_DIR;
		return 1;
	}
	if (S_ISLNK(st.st_mode) &&
	    (rc = follow_link(s, rel, &e->read_path, &st)) <= 0)
		return rc;
	if (!S_ISREG(st.st_mode)) {
		lec_mdsite__warn(s, "skipping %s: not a regular file", rel);
		return 0;
	}
	e->kind = ENTRY_ASSET;
	if (has_md_suffix(e->name)) {
		if (st.st_size <= LEC_MDSITE__PAGE_MAX)
			e->kind = ENTRY_PAGE;
		else
			lec_mdsite__warn(s, "%s is too large to render (over "
					 "%lld MiB); copied as it is", rel,
					 (long long)(LEC_MDSITE__PAGE_MAX >> 20));
	}
	return 1;
}

/* The directory's entries, sorted, without skipped ones. */
static int read_entries(struct lec_mdsite__site *s, const char *rel, int top,
			struct entry **out, size_t *len)
{
	struct entry *items = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *dir = NULL;
	int fd, error = LEC_OK;

	*out = NULL;
	*len = 0;
	fd = openat(s->src_fd, top ? "." : rel,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || (dir = fdopendir(fd)) == NULL) {
		if (top)
			error = lec__error(LEC_EIO,
					   "cannot read the source directory "
					   "%s: %s",
					   s->src_real, strerror(errno));
		else
			lec_mdsite__warn(s, "skipping %s: %s", rel,
					 strerror(errno));
		if (fd >= 0)
			close(fd);
		return error;
	}
	while ((de = readdir(dir)) != NULL) {
		struct entry e = { NULL, ENTRY_ASSET, NULL };
		char *path;
		int keep;

		if (de->d_name[0] == '.')
			continue;
		e.name = lec__strdup(de->d_name);
		path = join(rel, de->d_name);
		if (e.name == NULL || path == NULL) {
			lec__free(e.name);
			lec__free(path);
			error = lec__error_oom();
			break;
		}
		keep = classify(s, dirfd(dir), path, &e, top);
		lec__free(path);
		if (keep > 0 &&
		    (error = lec__grow((void **)&items, &cap, n,
					      sizeof(*items), 16)) == LEC_OK) {
			items[n++] = e;
			continue;
		}
		lec__free(e.name);
		lec__free(e.read_path);
		if (keep < 0 || error < 0) {
			error = keep < 0 ? keep : error;
			break;
		}
	}
	closedir(dir);
	if (n > 1)
		qsort(items, n, sizeof(*items), compare_entries);
	*out = items;
	*len = n;
	return error;
}

static const size_t entry_texts[] = {
	offsetof(struct entry, name),
	offsetof(struct entry, read_path),
};

static void entries_free(struct entry *items, size_t n)
{
	LEC__ITEMS_TEXTS_FREE(items, n, entry_texts);
}

int lec_mdsite__nav_push(struct lec_mdsite__site *s,
			 enum lec_mdsite__nav_kind kind, size_t page,
			 char *label)
{
	int error = lec__grow((void **)&s->nav, &s->nav_cap, s->nnav,
				     sizeof(*s->nav), 16);

	if (error < 0) {
		lec__free(label);
		return error;
	}
	s->nav[s->nnav].kind = kind;
	s->nav[s->nnav].page = page;
	s->nav[s->nnav].label = label;
	s->nav[s->nnav].end = LEC_MDSITE__NO_PAGE;
	s->nnav++;
	return LEC_OK;
}

/* Drop navigation items from `mark` on. */
void lec_mdsite__nav_truncate(struct lec_mdsite__site *s, size_t mark)
{
	while (s->nnav > mark)
		lec__free(s->nav[--s->nnav].label);
}

/* Where the page made from rel/name goes. Owned by caller. */
static char *page_out_rel(const char *rel, const char *name, int is_index)
{
	struct lec__buf out = LEC__BUF_INIT;

	if (rel[0] != '\0') {
		lec__buf_puts(&out, rel);
		lec__buf_putc(&out, '/');
	}
	if (is_index)
		lec__buf_puts(&out, "index");
	else
		lec__buf_putn(&out, name, strlen(name) - 3);
	lec__buf_puts(&out, ".html");
	return lec__buf_take(&out);
}

/* Record a page made from rel/name; *added is 0 when its output path is
 * taken by another page (warned). */
static int add_page(struct lec_mdsite__site *s, const char *rel,
		    struct entry *e, int is_index, int *added)
{
	struct lec_mdsite__page *p;
	size_t i;
	int error;

	*added = 0;
	if ((error = lec__grow((void **)&s->pages, &s->pages_cap,
				      s->npages, sizeof(*s->pages), 16)) < 0)
		return error;
	p = &s->pages[s->npages];
	memset(p, 0, sizeof(*p));
	p->src_rel = join(rel, e->name);
	p->dir = lec__strdup(rel);
	p->out_rel = page_out_rel(rel, e->name, is_index);
	if (p->src_rel == NULL || p->dir == NULL || p->out_rel == NULL) {
		error = lec__error_oom();
		goto fail;
	}
	if (lec_mdsite__map_get(&s->outputs, p->out_rel, strlen(p->out_rel)) !=
	    NULL) {
		lec_mdsite__warn(s, "skipping %s: %s is already made from "
				 "another file", p->src_rel, p->out_rel);
		goto fail;
	}
	p->is_dir_index = is_index;
	for (i = 0; p->out_rel[i] != '\0'; i++)
		p->depth += p->out_rel[i] == '/';
	if ((error = lec_mdsite__map_put(&s->by_src, p->src_rel,
					 strlen(p->src_rel), s->npages)) < 0 ||
	    (error = lec_mdsite__map_put(&s->outputs, p->out_rel,
					 strlen(p->out_rel), s->npages)) < 0)
		goto fail;
	p->read_path = e->read_path;
	e->read_path = NULL;
	s->npages++;
	*added = 1;
	return LEC_OK;
fail:
	lec__free(p->src_rel);
	lec__free(p->dir);
	lec__free(p->out_rel);
	memset(p, 0, sizeof(*p));
	return error;
}

/* The directory's index page among its entries: index.md, else README.md
 * (either in any letter case), or LEC_MDSITE__NO_PAGE. */
static size_t find_index(const struct entry *items, size_t n)
{
	static const char *const names[] = { "index.md", "readme.md" };
	size_t i, k;

	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		for (i = 0; i < n; i++)
			if (items[i].kind == ENTRY_PAGE &&
			    strcasecmp(items[i].name, names[k]) == 0)
				return i;
	return LEC_MDSITE__NO_PAGE;
}

static int add_asset(struct lec_mdsite__site *s, const char *rel,
		     struct entry *e)
{
	struct lec_mdsite__asset *a;
	int error;

	if ((error = lec__grow((void **)&s->assets, &s->assets_cap,
				      s->nassets, sizeof(*s->assets), 16)) < 0)
		return error;
	a = &s->assets[s->nassets];
	a->src_rel = join(rel, e->name);
	LEC__CHECK_ALLOC(a->src_rel);
	a->read_path = e->read_path;
	e->read_path = NULL;
	s->nassets++;
	return LEC_OK;
}

static int walk_dir(struct lec_mdsite__site *s, const char *rel,
		    unsigned depth);

/* Add the directory's pages (index first), assets and subdirectories;
 * `open` is the directory's LEC_MDSITE__NAV_DIR_OPEN item (LEC_MDSITE__NO_PAGE at the top). */
static int walk_entries(struct lec_mdsite__site *s, const char *rel,
			unsigned depth, size_t open, struct entry *items,
			size_t n)
{
	size_t index = find_index(items, n), i;
	int error = LEC_OK, added = 0;

	if (index != LEC_MDSITE__NO_PAGE &&
	    (error = add_page(s, rel, &items[index], 1, &added)) < 0)
		return error;
	if (added && open != LEC_MDSITE__NO_PAGE)
		s->nav[open].page = s->npages - 1;
	else if (added &&
		 (error = lec_mdsite__nav_push(s, LEC_MDSITE__NAV_PAGE,
					       s->npages - 1, NULL)) < 0)
		return error;
	for (i = 0; i < n && error == LEC_OK; i++) {
		if (i == index || items[i].kind == ENTRY_DIR)
			continue;
		if (items[i].kind == ENTRY_ASSET &&
		    has_html_suffix(items[i].name)) {
			if (++s->stats->html_skipped <= HTML_SKIPPED_NAMED)
				lec_mdsite__warn(s, "skipping %s%s%s: HTML "
						 "files are not published (the "
						 "site's pages are made from "
						 "Markdown)", rel,
						 *rel ? "/" : "", items[i].name);
			continue;
		}
		if (items[i].kind == ENTRY_ASSET) {
			error = add_asset(s, rel, &items[i]);
			continue;
		}
		error = add_page(s, rel, &items[i], 0, &added);
		if (error == LEC_OK && added)
			error = lec_mdsite__nav_push(s, LEC_MDSITE__NAV_PAGE,
						     s->npages - 1, NULL);
	}
	for (i = 0; i < n && error == LEC_OK; i++) {
		char *sub;

		if (items[i].kind != ENTRY_DIR)
			continue;
		if ((sub = join(rel, items[i].name)) == NULL)
			return lec__error_oom();
		error = walk_dir(s, sub, depth + 1);
		lec__free(sub);
	}
	return error;
}

/* A subdirectory shows in the navigation as an item holding its pages,
 * labelled with its index page (or its name); one without pages does not
 * show, one with only an index page shows as that page. */
static int walk_dir(struct lec_mdsite__site *s, const char *rel, unsigned depth)
{
	struct entry *items = NULL;
	size_t n = 0, mark = s->nnav, first = s->npages;
	int error;

	if (depth > LEC_MDSITE__DEPTH_MAX) {
		lec_mdsite__warn(s,
				 "skipping %s: more than %d directories deep",
				 rel, LEC_MDSITE__DEPTH_MAX);
		return LEC_OK;
	}
	if ((error = read_entries(s, rel, depth == 0, &items, &n)) < 0)
		goto done;
	if (depth > 0) {
		const char *name = strrchr(rel, '/');
		char *label = lec_mdsite__escape_text(name ? name + 1 : rel);

		if (label == NULL) {
			error = LEC_ENOMEM;
			goto done;
		}
		if ((error = lec_mdsite__nav_push(s, LEC_MDSITE__NAV_DIR_OPEN,
						  LEC_MDSITE__NO_PAGE, label)) <
		    0)
			goto done;
	}
	if ((error = walk_entries(s, rel, depth,
				  depth ? mark : LEC_MDSITE__NO_PAGE, items,
				  n)) < 0 ||
	    depth == 0)
		goto done;
	if (s->npages == first) {
		lec_mdsite__nav_truncate(s, mark);
	} else if (s->nnav == mark + 1 &&
		   s->nav[mark].page != LEC_MDSITE__NO_PAGE) {
		lec__free(s->nav[mark].label);
		s->nav[mark].label = NULL;
		s->nav[mark].kind = LEC_MDSITE__NAV_PAGE;
	} else {
		error = lec_mdsite__nav_push(s, LEC_MDSITE__NAV_DIR_CLOSE,
					     LEC_MDSITE__NO_PAGE, NULL);
	}
done:
	entries_free(items, n);
	return error;
}

int lec_mdsite__walk(struct lec_mdsite__site *s)
{
	int error = walk_dir(s, "", 0);

	if (error == LEC_OK && s->stats->html_skipped > HTML_SKIPPED_NAMED)
		lec_mdsite__warn(s, "%zu more HTML files were left out, as "
				 "the ones above",
				 s->stats->html_skipped - HTML_SKIPPED_NAMED);
	return error;
}
