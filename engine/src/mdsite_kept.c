/*
 * The Markdown site generator's incremental builds: the state directory
 * kept between builds (lectern/mdsite.h, state_dir), opened only where it
 * overlaps neither the source nor the output; whether this build may take
 * pages from it (the same generator, the same frame: site title, page
 * list and titles, and every kept page intact); each reused page checked
 * against its SHA-256 and linked (else copied) into the output, each page
 * written kept for the next build; and the manifest (its format is
 * mdsite_state.c's) removed before the state changes and written whole at
 * the end, so that a build stopped half-way leaves nothing to trust. No
 * failure of the state fails the build but running out of memory: the
 * pages are then rendered, and the reason says why.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "mdsite_site.h"

/* Largest manifest read or written: a line per page of a few hundred
 * bytes (its paths and title), so 64 MiB holds far more pages than a site
 * that is built in seconds; a bigger one is damaged or not ours, and the
 * site is built without it. */
#define MANIFEST_MAX ((size_t)64 << 20)

/* What the state directory holds (mdsite_state.c). */
#define STATE_MANIFEST "manifest"
#define STATE_MANIFEST_TMP "manifest.tmp"
#define STATE_PAGES "pages"

/* Why pages were rendered rather than reused (stats.rebuild_reason);
 * mdsite.c adds "pages changed" when none of these holds. */
static const char REASON_OFF[] = "incremental builds are off";
static const char REASON_FIRST[] = "first build";
static const char REASON_UNREADABLE[] = "the state was unreadable";
static const char REASON_UNUSABLE[] = "the state directory could not be used";
static const char REASON_NO_STAMP[] = "Lectern's build has no build id";
static const char REASON_GENERATOR[] = "Lectern's generator changed";
static const char REASON_SPOILED[] = "a kept page was changed or deleted";
static const char REASON_PAGE_LIST[] = "the page list changed";
static const char REASON_TITLE[] = "a title changed";

/* Stop keeping state after failing to write it (a full disk, say): this
 * build's output is right without it, and with the manifest gone the next
 * build starts afresh. Running out of memory is still an error. */
int lec_mdsite__kept_drop(struct lec_mdsite__site *s, int error)
{
	if (error == LEC_ENOMEM)
		return error;
	lec_mdsite__warn(s, "not keeping the state of this build in %s: %s",
			 s->opts->state_dir, lec_error_last());
	if (s->state_fd >= 0) {
		unlinkat(s->state_fd, STATE_MANIFEST, 0);
		close(s->state_fd);
	}
	s->state_fd = -1;
	lec_mdsite__tree_close(&s->kept);
	return LEC_OK;
}

/* Build without state when its directory cannot be used; nothing in it is
 * touched, as it may not be ours. */
static int refuse_state_dir(struct lec_mdsite__site *s, int error)
{
	if (error == LEC_ENOMEM)
		return error;
	lec_mdsite__warn(s, "not keeping state in %s: %s", s->opts->state_dir,
			 lec_error_last());
	if (s->state_fd >= 0)
		close(s->state_fd);
	s->state_fd = -1;
	s->reason = REASON_UNUSABLE;
	return LEC_OK;
}

/* Whether the state directory dir lies in the source or the output, or
 * holds either, checked before anything is made: a missing one is where
 * its deepest existing ancestor really is (nothing below that can be a
 * link yet). 1 yes, 0 no, < 0 when that cannot be told. */
static int state_overlaps(const struct lec_mdsite__site *s, const char *dir)
{
	char path[PATH_MAX], real[PATH_MAX];
	char *slash;

	if ((size_t)snprintf(path, sizeof(path), "%s", dir) >= sizeof(path))
		return lec__error(LEC_EINVALID, "path too long");
	while (realpath(path[0] ? path : "/", real) == NULL) {
		if (errno != ENOENT)
			return lec__error(LEC_EIO, "%s", strerror(errno));
		if ((slash = strrchr(path, '/')) != NULL)
			*slash = '\0';
		else
			memcpy(path, ".", 2);
	}
	return lec_mdsite__path_within(real, s->src_real) ||
	       lec_mdsite__path_within(real, s->out_real) ||
	       (strcmp(path, dir) == 0 &&
		(lec_mdsite__path_within(s->src_real, real) ||
		 lec_mdsite__path_within(s->out_real, real)));
}

/* Open the state directory, made when missing; a file in its way is
 * replaced. One that overlaps the source or the output is not used: its
 * pages would be published, or read as the site's files. */
static int open_state_dir(struct lec_mdsite__site *s, const char *dir)
{
	struct stat st;
	int error;

	if ((error = state_overlaps(s, dir)) != 0)
		return refuse_state_dir(
			s, error < 0 ? error
				     : lec__error(LEC_EINVALID,
						  "it overlaps the source or "
						  "the output "
						  "directory"));
	if (lstat(dir, &st) != 0 && errno == ENOENT &&
	    (error = lec__mkdirs_mode(dir, 0700)) < 0)
		return refuse_state_dir(s, error);
	s->state_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->state_fd < 0 && errno == ENOTDIR && unlink(dir) == 0 &&
	    mkdir(dir, 0700) == 0) {
		s->reason = REASON_UNREADABLE;
		s->state_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (s->state_fd < 0)
		return refuse_state_dir(
			s, lec__error(LEC_EIO, "%s", strerror(errno)));
	return LEC_OK;
}

/* Read what the previous build kept, when there is a state directory.
 * Nothing here fails the build but running out of memory: state that
 * cannot be used means rendering every page, and s->reason says why. */
int lec_mdsite__kept_open(struct lec_mdsite__site *s)
{
	const char *dir = s->opts->state_dir;
	char *text = NULL;
	size_t len = 0;
	int error;

	if (dir == NULL || dir[0] == '\0') {
		s->reason = REASON_OFF;
		return LEC_OK;
	}
	if ((s->stamp = lec_mdsite__generator_stamp()) == NULL) {
		s->reason = REASON_NO_STAMP;
		return LEC_OK;
	}
	if ((error = open_state_dir(s, dir)) < 0 || s->state_fd < 0)
		return error;
	s->kept_name = lec__path_join(dir, STATE_PAGES);
	LEC__CHECK_ALLOC(s->kept_name);
	s->kept.name = s->kept_name;
	s->kept.fd = openat(s->state_fd, STATE_PAGES,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	error = lec__read_in(dir, STATE_MANIFEST, MANIFEST_MAX, &text, &len);
	if (error == LEC_OK && lec_mdsite__state_foreign(text, len))
		s->reason = REASON_GENERATOR;
	else if (error == LEC_OK)
		error = lec_mdsite__state_parse(text, len, &s->prev);
	lec__free(text);
	if (error == LEC_ENOMEM)
		return error;
	if (s->reason == NULL && error == LEC_ENOTFOUND)
		s->reason = REASON_FIRST;
	else if (s->reason == NULL && error < 0)
		s->reason = REASON_UNREADABLE;
	else if (s->reason == NULL && strcmp(s->prev.generator, s->stamp) != 0)
		s->reason = REASON_GENERATOR;
	if (s->reason != NULL)
		lec_mdsite__state_dispose(&s->prev);
	return LEC_OK;
}

/* The digest of the site's frame: everything put_page (and the generated
 * index) writes besides the page's own body, and the page list that
 * decides where links to .md files lead. A page whose source and frame
 * are both unchanged has the HTML it had. */
static int frame_digest(struct lec_mdsite__site *s)
{
	struct lec__buf b = LEC__BUF_INIT;
	size_t i;
	int error;

	lec_mdsite__state_put_string(&b, s->title);
	for (i = 0; i < s->nnav; i++) {
		const struct lec_mdsite__nav_item *item = &s->nav[i];
		char head[64];

		snprintf(head, sizeof(head), "\n%d %zu ", (int)item->kind,
			 item->end);
		lec__buf_puts(&b, head);
		lec_mdsite__state_put_string(&b,
					     item->label ? item->label : "");
		if (item->page != LEC_MDSITE__NO_PAGE) {
			const struct lec_mdsite__page *p =
				&s->pages[item->page];

			lec_mdsite__state_put_string(&b, p->src_rel ? p->src_rel
								    : "");
			lec_mdsite__state_put_string(&b, p->out_rel);
			lec_mdsite__state_put_string(&b, p->title);
			lec__buf_putc(&b, p->is_dir_index ? 'i' : 'p');
		}
	}
	if (b.oom)
		error = lec__error_oom();
	else
		error = lec__sha256_hex(b.ptr, b.len, s->site_hash);
	lec__buf_dispose(&b);
	return error;
}

/* Whether the page list is not the previous build's (else a title
 * changed). */
static int page_list_changed(const struct lec_mdsite__site *s)
{
	size_t i;

	if (s->npages != s->prev.npages)
		return 1;
	for (i = 0; i < s->npages; i++) {
		const struct lec_mdsite__page *p = &s->pages[i];
		const struct lec_mdsite__kept_page *k =
			lec_mdsite__state_find(&s->prev, p->out_rel);

		if (k == NULL ||
		    strcmp(k->src_rel, p->src_rel ? p->src_rel : "") != 0)
			return 1;
	}
	return 0;
}

/* Whether every page to reuse is in the state, of the size the manifest
 * says (its bytes are checked as it is copied: lec_mdsite__kept_reuse). */
static int kept_pages_intact(const struct lec_mdsite__site *s)
{
	size_t i;

	for (i = 0; i < s->npages; i++) {
		const struct lec_mdsite__page *p = &s->pages[i];
		struct stat st;

		if (p->kept != NULL && (s->kept.fd < 0 ||
					fstatat(s->kept.fd, p->out_rel, &st,
						AT_SYMLINK_NOFOLLOW) != 0 ||
					!S_ISREG(st.st_mode) ||
					(uint64_t)st.st_size != p->kept->size))
			return 0;
	}
	return 1;
}

/* Decide which pages are copied from the state: none unless the frame is
 * the previous build's and every page to copy is intact, and then the
 * generated index too. Pages held for reuse that will not be are the
 * caller's to render. */
int lec_mdsite__kept_decide(struct lec_mdsite__site *s)
{
	size_t i;
	int error = LEC_OK;

	if (s->state_fd >= 0 && (error = frame_digest(s)) < 0)
		return error;
	if (s->reason == NULL && strcmp(s->site_hash, s->prev.site) != 0)
		s->reason = page_list_changed(s) ? REASON_PAGE_LIST
						 : REASON_TITLE;
	for (i = 0; i < s->npages && s->reason == NULL; i++) {
		struct lec_mdsite__page *p = &s->pages[i];
		const struct lec_mdsite__kept_page *k =
			lec_mdsite__state_find(&s->prev, p->out_rel);

		if (p->src_rel == NULL && k != NULL && k->src_rel[0] == '\0')
			p->kept = k;
	}
	if (s->reason == NULL && !kept_pages_intact(s))
		s->reason = REASON_SPOILED;
	for (i = 0; i < s->npages && s->reason != NULL; i++)
		s->pages[i].kept = NULL;
	return error;
}

/* Ready the state for this build's pages. The manifest goes first: from
 * here until the new one is written, nothing in the state is trusted.
 * Pages of a manifest that could not be read are unknown, and go too; so
 * does anything in the way of the state's own names. */
int lec_mdsite__kept_begin(struct lec_mdsite__site *s)
{
	int error;

	if (s->state_fd < 0)
		return LEC_OK;
	if ((error = lec__remove_tree_at(s->state_fd, STATE_MANIFEST)) < 0 ||
	    (error = lec__remove_tree_at(s->state_fd, STATE_MANIFEST_TMP)) < 0)
		return lec_mdsite__kept_drop(s, error);
	if (s->prev.generator != NULL && s->kept.fd >= 0)
		return LEC_OK;
	lec_mdsite__tree_close(&s->kept);
	if ((error = lec__remove_tree_at(s->state_fd, STATE_PAGES)) < 0)
		return lec_mdsite__kept_drop(s, error);
	if (mkdirat(s->state_fd, STATE_PAGES, 0700) != 0 ||
	    (s->kept.fd = openat(s->state_fd, STATE_PAGES,
				 O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					 O_CLOEXEC)) < 0)
		return lec_mdsite__kept_drop(
			s, lec__error(LEC_EIO, "cannot create %s: %s",
				      s->kept.name, strerror(errno)));
	return LEC_OK;
}

/* Write the manifest whole under a temporary name, then rename it over:
 * a reader finds all of it or none. */
static int write_manifest(struct lec_mdsite__site *s, const char *data,
			  size_t len)
{
	struct lec_mdsite__tree t = { s->state_fd, s->opts->state_dir,
				      LEC_MDSITE__MAP_INIT };
	int error = lec_mdsite__write_file(&t, STATE_MANIFEST_TMP, data, len);

	if (error == LEC_OK && renameat(s->state_fd, STATE_MANIFEST_TMP,
					s->state_fd, STATE_MANIFEST) != 0)
		error = lec__error(LEC_EIO, "cannot rename %s: %s",
				   STATE_MANIFEST_TMP, strerror(errno));
	return error;
}

/* Record this build for the next one, and remove the kept pages that are
 * no longer in the site. */
int lec_mdsite__kept_commit(struct lec_mdsite__site *s)
{
	static char none[] = "";
	struct lec__buf m = LEC__BUF_INIT;
	size_t i;
	int error = LEC_OK;

	if (s->state_fd < 0)
		return LEC_OK;
	for (i = 0; i < s->prev.npages; i++) {
		const char *rel = s->prev.pages[i].out_rel;
		size_t *page =
			lec_mdsite__map_get(&s->outputs, rel, strlen(rel));

		if (page == NULL || *page == LEC_MDSITE__NO_PAGE)
			unlinkat(s->kept.fd, rel, 0); /* gone already: fine */
	}
	lec_mdsite__state_put_header(&m, s->stamp, s->site_hash);
	for (i = 0; i < s->npages; i++) {
		struct lec_mdsite__page *p = &s->pages[i];
		struct lec_mdsite__kept_page k;

		k.out_rel = p->out_rel;
		k.src_rel = p->src_rel ? p->src_rel : none;
		k.title = p->has_h1 ? p->title : NULL;
		memcpy(k.hash, p->hash, sizeof(k.hash));
		memcpy(k.html, p->html_hash, sizeof(k.html));
		k.size = p->html_size;
		lec_mdsite__state_put_page(&m, &k);
	}
	lec_mdsite__state_put_end(&m, s->npages);
	if (m.oom)
		error = lec__error_oom();
	else if (m.len > MANIFEST_MAX)
		error = lec_mdsite__kept_drop(
			s, lec__error(LEC_ELIMIT,
				      "its manifest would be over %zu MiB",
				      MANIFEST_MAX >> 20));
	else if ((error = write_manifest(s, m.ptr, m.len)) < 0)
		error = lec_mdsite__kept_drop(s, error);
	lec__buf_dispose(&m);
	return error;
}

/* Pages ------------------------------------------------------------------ */

/* Read the n bytes of fd into b: LEC_OK, or LEC_ERROR (no message set)
 * when it holds fewer or more, or when b ran out of memory (b->oom). */
static int read_exactly(int fd, size_t n, struct lec__buf *b)
{
	b->len = 0;
	if (lec__buf_reserve(b, n + 1) < 0)
		return LEC_ERROR;
	while (b->len <= n) {
		ssize_t got = read(fd, b->ptr + b->len, n + 1 - b->len);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		b->len += (size_t)got;
	}
	return b->len == n ? LEC_OK : LEC_ERROR;
}

/* Put the page's old HTML from the state into the output (*reused 1): a
 * hard link when both are on one file system, else a copy. The bytes are
 * checked against the manifest's digest first, as the files are shared
 * with the published site, which later steps of the build touch. A page
 * that fails the check is rendered instead (*reused 0). */
int lec_mdsite__kept_reuse(struct lec_mdsite__site *s,
			   struct lec_mdsite__page *p, int *reused)
{
	const struct lec_mdsite__kept_page *k = p->kept;
	char digest[LEC__SHA256_HEX_LEN + 1];
	struct stat st;
	int in, error = LEC_OK, linked;

	*reused = 0;
	if (s->kept.fd < 0)
		return LEC_OK;
	in = openat(s->kept.fd, p->out_rel,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (in < 0 || fstat(in, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size != k->size ||
	    read_exactly(in, (size_t)k->size, &s->html) < 0) {
		if (s->html.oom)
			error = lec__error_oom();
		goto done;
	}
	if ((error = lec__sha256_hex(s->html.ptr, s->html.len, digest)) < 0 ||
	    strcmp(digest, k->html) != 0 ||
	    (error = lec_mdsite__link_open_file(&s->out, p->out_rel, in,
						&linked)) < 0 ||
	    (!linked &&
	     (error = lec_mdsite__write_file(&s->out, p->out_rel, s->html.ptr,
					     s->html.len)) < 0))
		goto done;
	memcpy(p->html_hash, digest, sizeof(digest));
	p->html_size = k->size;
	s->stats->bytes_out += s->html.len;
	s->stats->pages_reused++;
	*reused = 1;
done:
	if (in >= 0)
		close(in);
	if (!*reused && error == LEC_OK)
		s->reason = REASON_SPOILED;
	return error;
}

/* Keep the page just written for the next build: its digest, and the file
 * under the state, a hard link to the output's (else a copy). */
int lec_mdsite__kept_add(struct lec_mdsite__site *s, struct lec_mdsite__page *p)
{
	int error, linked;

	if ((error = lec__sha256_hex(s->html.ptr, s->html.len, p->html_hash)) <
		    0 ||
	    (error = lec_mdsite__link_into(&s->kept, p->out_rel, s->out.fd,
					   p->out_rel, 0, &linked)) < 0 ||
	    (!linked &&
	     (error = lec_mdsite__write_file(&s->kept, p->out_rel, s->html.ptr,
					     s->html.len)) < 0))
		return lec_mdsite__kept_drop(s, error);
	p->html_size = s->html.len;
	return LEC_OK;
}
