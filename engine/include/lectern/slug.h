/*
 * The service's slug rules.
 *
 * Project slugs (behaviour notes §6.5) are DNS-safe: ASCII letters, digits
 * and '-', at most 63 characters, never auto-suffixed. Version slugs (§6.4)
 * keep '.', '_' and '-', transliterate to ASCII, fall back to "unknown", and
 * are made unique within a project with "_a", "_b", ... "_z", "_ba", ...
 */
#ifndef LECTERN_SLUG_H
#define LECTERN_SLUG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LEC_PROJECT_SLUG_MAX 63
#define LEC_VERSION_SLUG_MAX 255

/**
 * The project slug of a name: Django's slugify made DNS-safe. Accents are
 * removed, other non-ASCII characters and punctuation dropped, runs of
 * spaces, '-' and '_' become one '-', and the result is cut to
 * LEC_PROJECT_SLUG_MAX characters without a trailing '-'. Invalid UTF-8
 * bytes are dropped.
 * @param name the project name (UTF-8)
 * @param out the slug, owned by the caller (free()); "" when the name has no
 *            usable character (the caller reports "no slug generated")
 * @return LEC_OK; LEC_EINVALID when name or out is NULL; LEC_ENOMEM
 */
int lec_slug_project(const char *name, char **out);

/**
 * The base version slug of a ref name (before uniqueness suffixes):
 * unicode-slugify transliterated to ASCII, keeping '-', '.' and '_',
 * lowercase, without leading punctuation, at most LEC_VERSION_SLUG_MAX
 * characters. Invalid UTF-8 bytes are dropped. A caller that appends a
 * suffix trims the base so that the whole stays within LEC_VERSION_SLUG_MAX.
 * @param name the branch or tag name (UTF-8)
 * @param out owned by the caller (free()); never empty ("unknown")
 * @return LEC_OK; LEC_EINVALID when name or out is NULL; LEC_ENOMEM
 */
int lec_slug_version(const char *name, char **out);

/**
 * The uniqueness suffix for the n-th retry: 0 -> "_a", 25 -> "_z",
 * 26 -> "_ba", 52 -> "_ca". out must hold at least 16 bytes.
 */
void lec_slug_suffix(unsigned long n, char out[16]);

/**
 * Whether s matches the service's manual version-slug rule
 * ^[a-z0-9][-._a-z0-9]*$ (and its length limit).
 * @return 1 if it does, 0 if not (also for NULL)
 */
int lec_slug_version_valid(const char *s);

#ifdef __cplusplus
}
#endif
#endif
