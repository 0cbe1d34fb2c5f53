/*
 * A per-thread memory of documentation requests that served a page, so a
 * page asked for again runs no SQL and begins no transaction: the request
 * (Host and raw URI) at a commit stamp (lec_store_commit_stamp, read from
 * SQLite's shared memory without a lock) maps to the published directory
 * and the file inside it that the full resolution chose (project,
 * translation or subproject, version, privacy, forced redirects: all of it
 * database state, so a commit anywhere, in any process, moves the stamp
 * and the entry stops matching).
 *
 * The file system is not covered by the stamp, so it is checked on
 * every hit: the directory's path must still name the directory held open
 * (a new build swaps the published symlink before it writes the build's
 * row), and the file is opened and stat'ed afresh by the caller, so a page
 * rewritten or deleted on disk is seen at once. Only decisions that did
 * not depend on who is asking are remembered (docs_ctx.user_known unset):
 * a private page is resolved in full each time.
 *
 * Each thread has its own table (direct-mapped, no locks); directories are
 * kept open in a second, smaller table that pages point into by index and
 * generation, so many pages of one version share one descriptor.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "docs.h"

/* Pages remembered per thread: the hot pages of a few sites; a colliding
 * page replaces the older one. */
#define DOCS_CACHE_PAGES 256
/* Published directories held open per thread: descriptors are shared by
 * the process, and 16 per server thread stays far below the usual limit of
 * 1024 while covering the versions a reader moves between. */
#define DOCS_CACHE_DIRS 16

struct dir_slot {
	char *root;   /* the path as built (not resolved); NULL: empty */
	int fd;       /* O_PATH descriptor of the directory */
	dev_t dev;    /* identity of what root named when opened */
	ino_t ino;
	uint64_t gen; /* changes whenever the slot is refilled */
};

struct page_slot {
	char *key;        /* "<host>\n<raw uri>"; NULL: empty */
	uint64_t hash;    /* of key */
	uint64_t version; /* the commit stamp the decision was filed at */
	char *rel;        /* the file, relative to the directory */
	size_t dir;       /* index into dirs */
	uint64_t dir_gen; /* dirs[dir].gen when remembered */
	int addons;       /* the page got the addons' script */
};

struct docs_cache {
	struct page_slot pages[DOCS_CACHE_PAGES];
	struct dir_slot dirs[DOCS_CACHE_DIRS];
	uint64_t clock; /* source of dir_slot generations */
};

static pthread_key_t cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static int cache_key_ok;

static uint64_t hash_text(const char *s)
{
	return srv_fnv1a(s, strlen(s), 0);
}

static void page_clear(struct page_slot *p)
{
	free(p->key);
	free(p->rel);
	memset(p, 0, sizeof(*p));
}

static void dir_clear(struct docs_cache *cache, struct dir_slot *d)
{
	if (d->root)
		close(d->fd);
	free(d->root);
	memset(d, 0, sizeof(*d));
	d->gen = ++cache->clock;
}

static void cache_free(void *p)
{
	struct docs_cache *cache = p;
	size_t i;

	for (i = 0; i < DOCS_CACHE_PAGES; i++)
		page_clear(&cache->pages[i]);
	for (i = 0; i < DOCS_CACHE_DIRS; i++)
		dir_clear(cache, &cache->dirs[i]);
	free(cache);
}

/* The key lives as long as the process: server threads come and go with a
 * server, and each one's table is freed by the destructor as it exits. */
static void make_key(void)
{
	cache_key_ok = pthread_key_create(&cache_key, cache_free) == 0;
}

struct docs_cache *docs_cache_thread(void)
{
	struct docs_cache *cache;

	pthread_once(&cache_once, make_key);
	if (!cache_key_ok)
		return NULL;
	if ((cache = pthread_getspecific(cache_key)) != NULL)
		return cache;
	if ((cache = calloc(1, sizeof(*cache))) == NULL)
		return NULL;
	if (pthread_setspecific(cache_key, cache) != 0) {
		free(cache);
		return NULL;
	}
	return cache;
}

/* Whether root still names the directory d holds open. */
static int dir_current(const struct dir_slot *d)
{
	struct stat st;

	return stat(d->root, &st) == 0 && st.st_dev == d->dev &&
	       st.st_ino == d->ino;
}

int docs_cache_find(struct docs_cache *cache, const char *key,
		    uint64_t version, int *dirfd, const char **rel,
		    int *addons)
{
	uint64_t h = hash_text(key);
	struct page_slot *p = &cache->pages[h % DOCS_CACHE_PAGES];
	struct dir_slot *d;

	if (p->key == NULL || p->hash != h || p->version != version ||
	    strcmp(p->key, key) != 0)
		return 0;
	d = &cache->dirs[p->dir];
	if (d->root == NULL || d->gen != p->dir_gen)
		return 0;
	if (!dir_current(d)) {
		dir_clear(cache, d);
		return 0;
	}
	*dirfd = d->fd;
	*rel = p->rel;
	*addons = p->addons;
	return 1;
}

/* The slot holding root open as dirfd's directory, filled now if needed;
 * NULL when it cannot be. */
static struct dir_slot *dir_slot_for(struct docs_cache *cache,
				     const char *root, int dirfd)
{
	struct dir_slot *d = &cache->dirs[hash_text(root) % DOCS_CACHE_DIRS];
	struct stat st;

	if (fstat(dirfd, &st) < 0)
		return NULL;
	if (d->root && strcmp(d->root, root) == 0 && d->dev == st.st_dev &&
	    d->ino == st.st_ino)
		return d;
	dir_clear(cache, d);
	if ((d->root = strdup(root)) == NULL)
		return NULL;
	if ((d->fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0)) < 0) {
		free(d->root);
		d->root = NULL;
		return NULL;
	}
	d->dev = st.st_dev;
	d->ino = st.st_ino;
	return d;
}

void docs_cache_put(struct docs_cache *cache, const char *key,
		    uint64_t version, const char *root, int dirfd,
		    const char *rel, int addons)
{
	uint64_t h = hash_text(key);
	struct page_slot *p = &cache->pages[h % DOCS_CACHE_PAGES];
	struct dir_slot *d = dir_slot_for(cache, root, dirfd);

	page_clear(p);
	if (d == NULL)
		return;
	p->key = strdup(key);
	p->rel = strdup(rel);
	if (p->key == NULL || p->rel == NULL) {
		page_clear(p);
		return;
	}
	p->hash = h;
	p->version = version;
	p->dir = (size_t)(d - cache->dirs);
	p->dir_gen = d->gen;
	p->addons = addons;
}
