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
 * The project slug of a name.
 * @param out the slug, owned by the caller (free()); "" when the name has no
 *            usable character (the caller reports "no slug generated")
 */
int lec_slug_project(const char *name, char **out);

/**
 * The base version slug of a ref name (before uniqueness suffixes).
 * @param out owned by the caller (free()); never empty ("unknown")
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
 */
int lec_slug_version_valid(const char *s);

#ifdef __cplusplus
}
#endif
#endif
