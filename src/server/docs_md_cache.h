/*
 * Pages as Markdown, kept (docs_md_cache.c): converting a large page costs
 * tens of milliseconds (libxml2's parse is most of it), and agents read
 * the same pages again and again. An entry is known by the file's
 * identity (device, inode, size, modification time), the URL its links
 * were made absolute against and the options, so a page published anew is
 * another entry; shared by the server's threads, within a byte budget.
 */
#ifndef LECTERN_SRV_DOCS_MD_CACHE_H
#define LECTERN_SRV_DOCS_MD_CACHE_H

#include <stddef.h>
#include <sys/stat.h>

/* Entries at most: direct-mapped, a colliding entry replaces the older. */
#define DOCS_MD_CACHE_SLOTS 1024
/* Bytes of Markdown kept in all: CPython's 530 pages are about 25 MB. */
#define DOCS_MD_CACHE_BYTES (32 * 1024 * 1024)
/* A page's Markdown larger than this is not kept. */
#define DOCS_MD_CACHE_MAX_ENTRY (4 * 1024 * 1024)

/* The cached Markdown of the page (st its stat) for url and options, as a
 * new string (the caller's: free) with its length; NULL when not kept. */
char *docs_md_cache_get(const struct stat *st, const char *url,
			const char *options, size_t *len);
/* Keep a copy of md (len bytes) for the page, url and options. */
void docs_md_cache_put(const struct stat *st, const char *url,
		       const char *options, const char *md, size_t len);

#endif
