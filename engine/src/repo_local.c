/*
 * The fast path of caching (repo_fetch.c) for a source on this machine.
 *
 * libgit2 1.5's local transport builds a pack object by object, minutes
 * for a long history. A local source is instead cached the way `git
 * clone --local` does it: its pack and loose object files are copied (not
 * linked: the repo cache is given to the build user, and a link would change
 * the owner of the source's own files), only those the repo cache lacks, then
 * its branches and tags are set. A source whose objects live partly
 * elsewhere (alternates) or that is shallow, or whose refs then name an
 * object the copies did not bring, is fetched through libgit2 instead.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "repo_internal.h"

struct copy_run {
	struct lec_repo__transfer *t;
	int counting;	     /* a first pass: count what is missing */
	size_t total;	     /* files missing, as counted */
	size_t files, bytes; /* copied so far */
};

static int copy_report(struct copy_run *c)
{
	struct lec_repo_progress p = { 0 };

	if (c->t->cb == NULL)
		return 0;
	p.received_objects = p.indexed_objects = c->files;
	p.total_objects = c->total;
	p.received_bytes = c->bytes;
	if (c->t->cb(&p, c->t->payload) != 0) {
		c->t->cancelled = 1;
		return lec__error(LEC_ERROR, LEC_REPO_CANCELLED);
	}
	return 0;
}

/* Copy the regular file name of from into to, under a temporary name
 * renamed into place, unless to has it already. */
static int copy_object_file(int from, int to, const char *name,
			    struct copy_run *c)
{
	char tmp[NAME_MAX + 16];
	struct stat sb;
	int in, out, error;

	if (fstatat(to, name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
		return LEC_OK;
	if (c->counting) {
		c->total++;
		return LEC_OK;
	}
	in = openat(from, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (in < 0 || fstat(in, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		if (in >= 0)
			close(in);
		return lec__error(LEC_ENOTFOUND, "cannot read %s", name);
	}
	snprintf(tmp, sizeof(tmp), ".%s.lectern-tmp", name);
	unlinkat(to, tmp, 0);
	out = openat(to, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (out < 0) {
		close(in);
		return lec__error(LEC_EIO, "cannot write %s: %s", name,
				  strerror(errno));
	}
	error = lec__copy_fd(in, out, &c->bytes);
	close(in);
	close(out);
	if (error == LEC_OK && renameat(to, tmp, to, name) != 0)
		error = lec__error(LEC_EIO, "cannot write %s: %s", name,
				   strerror(errno));
	if (error < 0)
		unlinkat(to, tmp, 0);
	c->files++;
	return error == LEC_OK ? copy_report(c) : error;
}

/* Whether name is "pack-<hex>.pack". */
static int is_pack_name(const char *name)
{
	size_t n = strlen(name);

	return n > 10 && strncmp(name, "pack-", 5) == 0 &&
	       strcmp(name + n - 5, ".pack") == 0;
}

/* Each pack of from/pack the repo cache lacks: the pack, then its index
 * (which makes it visible). */
static int copy_packs(int from, int to, struct copy_run *c)
{
	int src = openat(from, "pack", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int dst = -1, error = LEC_OK;
	DIR *d = src >= 0 ? fdopendir(src) : NULL;
	struct dirent *e;
	char idx[NAME_MAX + 1];

	if (d == NULL) {
		if (src >= 0)
			close(src);
		return LEC_OK; /* no packs */
	}
	mkdirat(to, "pack", 0777);
	dst = openat(to, "pack", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dst < 0)
		error = lec__error(LEC_EIO, "cannot open the repo cache's packs");
	while (error == LEC_OK && (e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);

		if (!is_pack_name(e->d_name) || n >= sizeof(idx))
			continue;
		snprintf(idx, sizeof(idx), "%.*s.idx", (int)(n - 5), e->d_name);
		if ((error = copy_object_file(dirfd(d), dst, e->d_name, c)) ==
		    LEC_OK)
			error = copy_object_file(dirfd(d), dst, idx, c);
	}
	if (dst >= 0)
		close(dst);
	closedir(d);
	return error;
}

/* Whether name is two hex digits (a loose object fan-out directory). */
static int is_fanout(const char *name)
{
	return strlen(name) == 2 && isxdigit((unsigned char)name[0]) &&
	       isxdigit((unsigned char)name[1]);
}

/* Each loose object of from the repo cache lacks. */
static int copy_loose(int from, int to, struct copy_run *c)
{
	int dup_from = dup(from), error = LEC_OK;
	DIR *top = dup_from >= 0 ? fdopendir(dup_from) : NULL;
	struct dirent *e, *o;

	if (top == NULL) {
		if (dup_from >= 0)
			close(dup_from);
		return lec__error(LEC_EIO, "cannot list the objects");
	}
	rewinddir(top); /* the copy shares from's offset: start over */
	while (error == LEC_OK && (e = readdir(top)) != NULL) {
		int src, dst;
		DIR *fan;

		if (!is_fanout(e->d_name))
			continue;
		src = openat(from, e->d_name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		mkdirat(to, e->d_name, 0777);
		dst = openat(to, e->d_name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		fan = src >= 0 ? fdopendir(src) : NULL;
		if (fan == NULL || dst < 0)
			error = lec__error(LEC_EIO, "cannot copy objects/%s",
					   e->d_name);
		while (error == LEC_OK && fan && (o = readdir(fan)) != NULL)
			if (o->d_name[0] != '.')
				error = copy_object_file(src, dst, o->d_name,
							 c);
		if (fan)
			closedir(fan);
		else if (src >= 0)
			close(src);
		if (dst >= 0)
			close(dst);
	}
	closedir(top);
	return error;
}

/* Set repo's branches and tags to src's (each a direct ref, as a repo cache
 * fetch leaves them; and the pull request's head asked for), remove those src no longer has, and point HEAD at
 * src's default branch. LEC_ENOTFOUND when a ref names an object repo
 * lacks: nothing is changed then. */
struct ref_copy {
	char *name;
	git_oid oid;
};

/* Room for one more ref in *refs. */
static int refs_reserve(struct ref_copy **refs, size_t n, size_t *cap)
{
	struct ref_copy *grown;

	if (n < *cap)
		return LEC_OK;
	*cap = *cap ? *cap * 2 : 64;
	LEC__CHECK_ALLOC(grown = lec__realloc(*refs, *cap * sizeof(**refs)));
	*refs = grown;
	return LEC_OK;
}

/* Whether the repo cache takes the source's ref name: a branch, a tag, or the
 * pull request's head asked for. */
static int cache_holds(const char *name, const char *request_ref)
{
	return strncmp(name, LEC_REPO__HEADS, strlen(LEC_REPO__HEADS)) == 0 ||
	       strncmp(name, LEC_REPO__TAGS, strlen(LEC_REPO__TAGS)) == 0 ||
	       (request_ref && strcmp(name, request_ref) == 0);
}

static int read_source_refs(git_repository *src, git_odb *odb,
			    const char *request_ref, struct ref_copy **out,
			    size_t *n)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL, *direct = NULL;
	size_t cap = 0;
	int error = LEC_OK;

	*out = NULL;
	*n = 0;
	if (git_reference_iterator_new(&it, src) < 0)
		return lec_repo__fail_as(LEC_EIO,
					 "cannot list the source's refs");
	while (error == LEC_OK && git_reference_next(&ref, it) == 0) {
		const char *name = git_reference_name(ref);

		if (cache_holds(name, request_ref) &&
		    git_reference_resolve(&direct, ref) == 0) {
			if (!git_odb_exists(odb, git_reference_target(direct)))
				error = lec__error(LEC_ENOTFOUND,
						   "%s is not in the copies",
						   name);
			else if ((error = refs_reserve(out, *n, &cap)) ==
				 LEC_OK) {
				(*out)[*n].oid = *git_reference_target(direct);
				(*out)[*n].name = lec__strdup(name);
				error = (*out)[(*n)++].name ? LEC_OK
							    : lec__error_oom();
			}
			git_reference_free(direct);
			direct = NULL;
		}
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	return error;
}

static int set_cache_refs(git_repository *repo, const struct ref_copy *refs,
			   size_t n)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL, *made = NULL;
	size_t i;
	int rc, error = LEC_OK;

	for (i = 0; error == LEC_OK && i < n; i++) {
		rc = git_reference_create(&made, repo, refs[i].name,
					  &refs[i].oid, 1, "lectern: repo cache");
		git_reference_free(made);
		made = NULL;
		if (rc < 0)
			error = lec_repo__fail(rc, NULL, "cannot set %s",
					       refs[i].name);
	}
	if (error < 0 || git_reference_iterator_new(&it, repo) < 0)
		return error < 0
			       ? error
			       : lec_repo__fail_as(LEC_EIO, "cannot list refs");
	/* Prune: what the source no longer has goes. */
	while (error == LEC_OK && git_reference_next(&ref, it) == 0) {
		const char *name = git_reference_name(ref);
		int keep = strncmp(name, LEC_REPO__HEADS,
				   strlen(LEC_REPO__HEADS)) != 0 &&
			   strncmp(name, LEC_REPO__TAGS,
				   strlen(LEC_REPO__TAGS)) != 0;

		for (i = 0; !keep && i < n; i++)
			keep = strcmp(refs[i].name, name) == 0;
		if (!keep && (rc = git_reference_delete(ref)) < 0)
			error = lec_repo__fail(rc, NULL, "cannot remove %s",
					       name);
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	return error;
}

/* The source repository at path, when it can be copied: its own objects
 * directory holds all its objects. NULL when it must be fetched. */
static git_repository *copyable_source(const char *path)
{
	git_repository *src = NULL;
	struct lec__buf b = LEC__BUF_INIT;
	char *probe;
	struct stat sb;
	int plain = 0;

	if (git_repository_open_ext(&src, path, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL) < 0)
		return NULL;
	lec__buf_printf(&b, "%s/objects/info/alternates",
			git_repository_commondir(src));
	if ((probe = lec__buf_take(&b)) != NULL)
		plain = stat(probe, &sb) != 0 &&
			!git_repository_is_shallow(src);
	lec__free(probe);
	if (!plain) {
		git_repository_free(src);
		return NULL;
	}
	return src;
}

int lec_repo__copy_local(git_repository *repo, const char *repo_dir,
			 const char *path, struct lec_repo__transfer *t,
			 char **default_ref)
{
	struct copy_run c = { t, 1, 0, 0, 0 };
	struct lec__buf b = LEC__BUF_INIT;
	git_repository *src = copyable_source(path);
	struct ref_copy *refs = NULL;
	git_reference *head = NULL;
	git_odb *odb = NULL;
	char *objects = NULL;
	int from = -1, to = -1, error = LEC_OK;
	size_t n = 0, i;

	*default_ref = NULL;
	if (src == NULL)
		return LEC_ENOTFOUND;
	lec__buf_printf(&b, "%s/objects", git_repository_commondir(src));
	objects = lec__buf_take(&b);
	lec__buf_printf(&b, "%s/objects", repo_dir);
	from = objects ? open(objects, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	lec__free(objects);
	objects = lec__buf_take(&b);
	to = objects ? open(objects, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (from < 0 || to < 0) {
		error = LEC_ENOTFOUND; /* fetched instead */
		goto done;
	}
	/* Counted first, so that progress has a total. */
	for (; error == LEC_OK && c.counting >= 0; c.counting--)
		if ((error = copy_packs(from, to, &c)) == LEC_OK)
			error = copy_loose(from, to, &c);
	if (error < 0)
		goto done;
	if (git_repository_odb(&odb, repo) < 0 || git_odb_refresh(odb) < 0) {
		error = lec_repo__fail_as(LEC_EIO,
					  "cannot read the repo cache's objects");
		goto done;
	}
	if ((error = read_source_refs(src, odb, t->request_ref, &refs, &n)) < 0 ||
	    (error = set_cache_refs(repo, refs, n)) < 0)
		goto done;
	/* The source's default branch, for the caller to record. */
	if (git_reference_lookup(&head, src, "HEAD") == 0 &&
	    git_reference_type(head) == GIT_REFERENCE_SYMBOLIC &&
	    (*default_ref = lec__strdup(git_reference_symbolic_target(head))) ==
		    NULL)
		error = lec__error_oom();
done:
	if (error == LEC_ENOTFOUND)
		lec_error_clear();
	for (i = 0; i < n; i++)
		lec__free(refs[i].name);
	lec__free(refs);
	lec__free(objects);
	git_reference_free(head);
	git_odb_free(odb);
	git_repository_free(src);
	if (from >= 0)
		close(from);
	if (to >= 0)
		close(to);
	return error;
}
