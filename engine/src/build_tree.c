/*
 * A version's kept working tree (<data>/checkouts/<project>/<version>/),
 * between the fetch and the steps: what makes a commit's rebuild touch
 * only what changed. After each checkout the engine records a manifest
 * beside the tree (<version>.manifest, the engine's own: no build sees
 * it) of every path the commit has, with its type, mode, size and
 * modification time. Before the next checkout the tree is checked against
 * it: a path changed or missing (the previous build edited its sources,
 * or someone did) means a fresh checkout, with the reason; otherwise what
 * the commit does not have is removed (the previous build's byproducts)
 * except the generators' kept state (directories named _build, and
 * _readthedocs/html, Sphinx's doctrees and pages), and the tree is then
 * updated from the tree diff by the helper (build_fetch.c). The .git the
 * helper writes after each checkout (repo_clone.c) is not in the
 * manifest: whatever the build did to it, it goes like any byproduct and
 * the helper writes it anew.
 *
 * Only the engine walks the tree here, after every process of the
 * previous build has ended, never following a link (files.h's walk).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_steps.h"
#include "hash.h"
#include "lectern/repo.h"

/* The manifest's first line; a file starting otherwise is not one. */
#define MANIFEST_MAGIC "lectern-tree 1\n"
/* Largest manifest read: a million paths of a hundred bytes. */
#define MANIFEST_MAX ((size_t)128 * 1024 * 1024)

/* One path of the manifest. */
struct tree_entry {
	char *path;
	char type; /* 'f' file, 'x' executable, 'l' link, 'd' submodule */
	long long size;
	long long mtime_ns;
	int seen;
};

struct manifest {
	char *commit;
	struct tree_entry *items;
	size_t len, cap;
	/* Open addressing over items (index + 1; 0 empty): paths, then the
	 * directories paths lie in (dirs, same scheme). */
	size_t *slots, nslots;
	char **dirs;
	size_t ndirs, dirs_cap;
	size_t *dir_slots, ndir_slots;
};

static void manifest_dispose(struct manifest *m)
{
	size_t i;

	for (i = 0; i < m->len; i++)
		lec__free(m->items[i].path);
	for (i = 0; i < m->ndirs; i++)
		lec__free(m->dirs[i]);
	lec__free(m->items);
	lec__free(m->dirs);
	lec__free(m->slots);
	lec__free(m->dir_slots);
	lec__free(m->commit);
	memset(m, 0, sizeof(*m));
}

/* Index set: slots hold index + 1 of the string found by key(i). */
static size_t *slot_find(size_t *slots, size_t nslots, const char *s,
			 const char *(*key)(const struct manifest *, size_t),
			 const struct manifest *m)
{
	size_t i = (size_t)lec__fnv1a(s, strlen(s)) & (nslots - 1);

	while (slots[i] && strcmp(key(m, slots[i] - 1), s) != 0)
		i = (i + 1) & (nslots - 1);
	return &slots[i];
}

static const char *item_key(const struct manifest *m, size_t i)
{
	return m->items[i].path;
}

static const char *dir_key(const struct manifest *m, size_t i)
{
	return m->dirs[i];
}

static size_t table_size(size_t n)
{
	size_t size = 64;

	while (size < n * 2)
		size *= 2;
	return size;
}

/* Index the paths and every directory they lie in. */
static int manifest_index(struct manifest *m)
{
	size_t i;

	m->nslots = table_size(m->len);
	LEC__CHECK_ALLOC(m->slots = lec__calloc(m->nslots, sizeof(size_t)));
	for (i = 0; i < m->len; i++)
		*slot_find(m->slots, m->nslots, m->items[i].path, item_key, m) =
			i + 1;
	m->ndir_slots = table_size(m->len);
	LEC__CHECK_ALLOC(m->dir_slots =
				 lec__calloc(m->ndir_slots, sizeof(size_t)));
	for (i = 0; i < m->len; i++) {
		char *dir = lec__strdup(m->items[i].path), *slash;

		LEC__CHECK_ALLOC(dir);
		while ((slash = strrchr(dir, '/')) != NULL) {
			size_t *slot;

			*slash = '\0';
			slot = slot_find(m->dir_slots, m->ndir_slots, dir,
					 dir_key, m);
			if (*slot)
				break; /* its parents are in already */
			if (m->ndirs == m->dirs_cap) {
				char **grown;

				m->dirs_cap = m->dirs_cap ? m->dirs_cap * 2 : 64;
				grown = lec__realloc(m->dirs, m->dirs_cap *
								      sizeof(char *));
				if (grown == NULL) {
					lec__free(dir);
					return lec__error_oom();
				}
				m->dirs = grown;
			}
			if (m->ndirs + 1 > m->ndir_slots / 2) {
				lec__free(dir);
				return lec__error(LEC_ELIMIT, "too many "
						  "directories");
			}
			if ((m->dirs[m->ndirs] = lec__strdup(dir)) == NULL) {
				lec__free(dir);
				return lec__error_oom();
			}
			*slot = ++m->ndirs;
		}
		lec__free(dir);
	}
	return LEC_OK;
}

static int manifest_add(struct manifest *m, const char *path, char type,
			long long size, long long mtime_ns)
{
	struct tree_entry *e;

	if (lec__grow((void **)&m->items, &m->cap, m->len, sizeof(*m->items),
		      256) < 0)
		return LEC_ENOMEM;
	e = &m->items[m->len];
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->size = size;
	e->mtime_ns = mtime_ns;
	LEC__CHECK_ALLOC(e->path = lec__strdup(path));
	m->len++;
	return LEC_OK;
}

/* Parse "T SIZE MTIME PATH\0" records after the magic and the commit. */
static int manifest_parse(struct manifest *m, char *data, size_t len)
{
	char *p, *end = data + len, *nl;
	int error = LEC_OK;

	if (len < strlen(MANIFEST_MAGIC) ||
	    memcmp(data, MANIFEST_MAGIC, strlen(MANIFEST_MAGIC)) != 0 ||
	    (nl = memchr(data + strlen(MANIFEST_MAGIC), '\n',
			 len - strlen(MANIFEST_MAGIC))) == NULL)
		return lec__error(LEC_ECORRUPT, "not a tree manifest");
	p = data + strlen(MANIFEST_MAGIC);
	*nl = '\0';
	if (!lec_repo_is_commit_id(p))
		return lec__error(LEC_ECORRUPT, "the manifest names no commit");
	LEC__CHECK_ALLOC(m->commit = lec__strdup(p));
	for (p = nl + 1; error == LEC_OK && p < end;) {
		char *rec_end = memchr(p, '\0', (size_t)(end - p));
		char type;
		long long size, mtime;
		int off = 0;

		if (rec_end == NULL ||
		    sscanf(p, "%c %lld %lld %n", &type, &size, &mtime, &off) <
			    3 ||
		    off == 0 || !strchr("fxld", type) || p[off] == '\0')
			return lec__error(LEC_ECORRUPT, "a manifest record is "
							"damaged");
		error = manifest_add(m, p + off, type, size, mtime);
		p = rec_end + 1;
	}
	return error == LEC_OK ? manifest_index(m) : error;
}

static int manifest_read(const char *path, struct manifest *m)
{
	char *dir = lec__strdup(path), *name, *data = NULL;
	size_t len = 0;
	int error;

	memset(m, 0, sizeof(*m));
	LEC__CHECK_ALLOC(dir);
	name = strrchr(dir, '/');
	*name++ = '\0';
	error = lec__read_in(dir, name, MANIFEST_MAX, &data, &len);
	if (error == LEC_OK)
		error = manifest_parse(m, data, len);
	if (error < 0)
		manifest_dispose(m);
	lec__free(data);
	lec__free(dir);
	return error;
}

/* What a path is now, as the manifest writes it. */
static char type_of(const struct stat *sb)
{
	if (S_ISREG(sb->st_mode))
		return sb->st_mode & 0100 ? 'x' : 'f';
	if (S_ISLNK(sb->st_mode))
		return 'l';
	return S_ISDIR(sb->st_mode) ? 'd' : '?';
}

static long long mtime_ns(const struct stat *sb)
{
	return (long long)sb->st_mtim.tv_sec * 1000000000LL +
	       sb->st_mtim.tv_nsec;
}

/* Checking and cleaning ---------------------------------------------------- */

struct check {
	struct manifest *m;
	char *changed; /* the first path found changed, or NULL */
};

/* Kept although the commit does not have it: the generators' state,
 * anything in a directory named _build and Sphinx's kept pages. */
static int kept_state(const char *path)
{
	const char *p = path;

	if (strcmp(path, "_readthedocs/html") == 0)
		return 1;
	while ((p = strstr(p, "_build")) != NULL) {
		if ((p == path || p[-1] == '/') && (p[6] == '\0' || p[6] == '/'))
			return 1;
		p += 6;
	}
	return 0;
}

static int changed(struct check *c, const char *path)
{
	LEC__CHECK_ALLOC(c->changed = lec__strdup(path));
	return LEC_ELIMIT; /* stops the walk: the tree is made afresh */
}

static int check_visit(const struct lec__walk_at *at,
		       enum lec__walk_event event, void *payload)
{
	struct check *c = payload;
	struct manifest *m = c->m;
	const char *path = at->path;
	size_t *slot;
	int error;

	if (at->depth == 0 || event == LEC__WALK_LEAVE)
		return 0;
	slot = slot_find(m->slots, m->nslots, path, item_key, m);
	if (event == LEC__WALK_ENTER) {
		if (*slot && m->items[*slot - 1].type == 'd') {
			m->items[*slot - 1].seen = 1;
			return 0; /* a submodule: its contents go */
		}
		if (*slot)
			return changed(c, path);
		if (*slot_find(m->dir_slots, m->ndir_slots, path, dir_key,
			       m) ||
		    strcmp(path, "_readthedocs") == 0)
			return 0;
		if (kept_state(path))
			return LEC__WALK_SKIP;
		error = lec__remove_tree_at(at->dirfd, at->name);
		return error < 0 ? error : LEC__WALK_SKIP;
	}
	if (*slot == 0 && kept_state(path))
		return 0;
	if (*slot == 0)
		return unlinkat(at->dirfd, at->name, 0) == 0 || errno == ENOENT
			       ? 0
			       : lec__error(LEC_EIO, "%s: cannot remove: %s",
					    path, strerror(errno));
	m->items[*slot - 1].seen = 1;
	if (type_of(at->st) != m->items[*slot - 1].type ||
	    (long long)at->st->st_size != m->items[*slot - 1].size ||
	    mtime_ns(at->st) != m->items[*slot - 1].mtime_ns)
		return changed(c, path);
	return 0;
}

int lec__tree_prepare(struct lec__job *job, int fresh, char **from)
{
	struct manifest m;
	struct check check = { NULL, NULL }, *c = &check;
	size_t i;
	int error;

	*from = NULL;
	if (fresh)
		return lec__job_cache_note(job, "checkout", 0,
					   "a fresh build was asked for");
	if (manifest_read(job->tree_manifest, &m) < 0) {
		lec_error_clear();
		return lec__job_cache_note(job, "checkout", 0,
					   "no earlier checkout was kept");
	}
	c->m = &m;
	error = lec__walk(AT_FDCWD, job->checkout, check_visit, c);
	for (i = 0; error == LEC_OK && i < m.len; i++)
		if (!m.items[i].seen)
			error = changed(c, m.items[i].path);
	if (error == LEC_OK) {
		*from = m.commit;
		m.commit = NULL;
	} else if (c->changed) {
		lec__job_cache_note(job, "checkout", 0,
				    "%s was changed since the last checkout",
				    c->changed);
		error = LEC_OK;
	} else {
		lec__job_cache_note(job, "checkout", 0,
				    "the kept tree could not be read: %s",
				    lec_error_last());
		error = LEC_OK;
	}
	lec__free(c->changed);
	manifest_dispose(&m);
	return error;
}

/* Recording ------------------------------------------------------------------- */

struct record {
	struct lec__job *job;
	int rootfd;
	struct lec__buf out;
};

static int record_entry(const char *path, unsigned mode, void *payload)
{
	struct record *r = payload;
	char *copy = lec__strdup(path), *slash;
	struct stat sb;
	int dirfd = -1, ok;

	LEC__CHECK_ALLOC(copy);
	slash = strrchr(copy, '/');
	if (slash) {
		*slash = '\0';
		if (lec__open_beneath(r->rootfd, copy, LEC__OPEN_DIR, &dirfd) < 0)
			dirfd = -1;
	}
	ok = (slash == NULL || dirfd >= 0) &&
	     fstatat(slash ? dirfd : r->rootfd, slash ? slash + 1 : copy, &sb,
		     AT_SYMLINK_NOFOLLOW) == 0;
	if (dirfd >= 0)
		close(dirfd);
	lec__free(copy);
	/* A path the checkout did not write (a submodule's directory made
	 * by another step) is recorded as absent: checking finds it missing
	 * and the next checkout is fresh. */
	if (!ok)
		return LEC_OK;
	lec__buf_printf(&r->out, "%c %lld %lld %s", (unsigned)mode == 0160000
							    ? 'd'
							    : type_of(&sb),
			(long long)(S_ISDIR(sb.st_mode) ? 0 : sb.st_size),
			S_ISDIR(sb.st_mode) ? 0LL : mtime_ns(&sb), path);
	lec__buf_putn(&r->out, "", 1);
	return r->out.oom ? lec__error_oom() : LEC_OK;
}

int lec__tree_record(struct lec__job *job)
{
	struct record r = { job, -1, LEC__BUF_INIT };
	char *tmp = NULL, *text;
	size_t len;
	int fd = -1, error;

	lec__buf_printf(&r.out, "%s%s\n", MANIFEST_MAGIC, job->commit);
	if ((r.rootfd = open(job->checkout, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
						    O_CLOEXEC)) < 0)
		return lec__error(LEC_EIO, "cannot open the checkout: %s",
				  strerror(errno));
	error = lec_repo_tree_list(job->repo_cache, job->commit, record_entry, &r);
	close(r.rootfd);
	len = r.out.len;
	text = lec__buf_take(&r.out);
	if (error == LEC_OK && text == NULL)
		error = lec__error_oom();
	if (error == LEC_OK) {
		struct lec__buf b = LEC__BUF_INIT;

		lec__buf_printf(&b, "%s.tmp", job->tree_manifest);
		if ((tmp = lec__buf_take(&b)) == NULL)
			error = lec__error_oom();
	}
	if (error == LEC_OK) {
		unlink(tmp);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 || write(fd, text, len) != (ssize_t)len ||
		    fsync(fd) != 0 || rename(tmp, job->tree_manifest) != 0)
			error = lec__error(LEC_EIO, "cannot write the tree's "
						    "manifest: %s",
					   strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	if (error < 0 && tmp)
		unlink(tmp);
	lec__free(tmp);
	lec__free(text);
	return error;
}

void lec__tree_forget(struct lec__job *job)
{
	unlink(job->tree_manifest);
}

void lec__tree_drop(struct lec__job *job)
{
	/* What lies beside the tree: its manifest and the generators'
	 * state records (build_steps.c's state_path). */
	static const char *const beside[] = { "manifest", "sphinx",
					      "sphinx-warnings", "mdsite" };
	struct lec__buf b = LEC__BUF_INIT;
	char *path;
	size_t i;

	for (i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
		lec__buf_printf(&b, "%s.%s", job->checkout, beside[i]);
		if ((path = lec__buf_take(&b)) != NULL)
			lec__remove_tree(path);
		lec__free(path);
	}
	lec__remove_tree(job->checkout);
}

/* Pruning ----------------------------------------------------------------------- */

/* The name of a version's tree or of what lies beside it (<v>,
 * <v>.manifest, <v>.sphinx, <v>.mdsite...): the version's slug. Slugs
 * have no dot. */
static int version_of(const char *name, char *slug, size_t cap)
{
	size_t n = strcspn(name, ".");

	if (n == 0 || n >= cap)
		return 0;
	memcpy(slug, name, n);
	slug[n] = '\0';
	return 1;
}

/* Whether the project's version of that slug is active (a deleted or
 * deactivated one's caches go). */
static int version_active(struct lec_store *st, int64_t project_id,
			  const char *slug)
{
	struct lec_version *v = NULL;
	int active = lec_version_get(st, project_id, slug, &v) == LEC_OK &&
		     v->active;

	lec_version_free(v);
	lec_error_clear();
	return active;
}

/* Remove what root/rel holds for versions that are no longer active.
 * python/<project>/venvs is the builds' to write: it is opened beneath
 * the data directory, never through a link a build put there. */
static void prune_dir(struct lec_store *st, int64_t project_id,
		      const char *root, const char *rel)
{
	DIR *d = NULL;
	struct dirent *e;
	char slug[128];
	int fd;

	if (lec__open_in(root, rel, LEC__OPEN_DIR, &fd) < 0) {
		lec_error_clear();
		return;
	}
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' &&
		    version_of(e->d_name, slug, sizeof(slug)) &&
		    !version_active(st, project_id, slug))
			lec__remove_tree_at(dirfd(d), e->d_name);
	closedir(d);
}

void lec__prune_caches(const struct lec__build_env *env, struct lec_store *st,
		       const struct lec_project *p)
{
	/* Where a version's caches are, around the project's slug. */
	static const struct {
		const char *before, *after;
	} places[] = { { "checkouts/", "" },
		       { "python/", "/venvs" },
		       { "python/.stamps/", "" } };
	struct lec__buf b = LEC__BUF_INIT;
	char *rel;
	size_t i;

	for (i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
		lec__buf_printf(&b, "%s%s%s", places[i].before, p->slug,
				places[i].after);
		if ((rel = lec__buf_take(&b)) != NULL)
			prune_dir(st, p->id, env->data_dir, rel);
		lec__free(rel);
	}
}
