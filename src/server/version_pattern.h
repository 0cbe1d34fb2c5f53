/*
 * Version names read with a bumpver pattern ("vMAJOR.MINOR",
 * "YYYY.0M.0D", "MAJOR.MINOR[.PATCH][-TAG]"), as the hosted service's
 * flyout sorts by a project's custom pattern (and by calver, which is the
 * pattern "YYYY.0M.0D"): version_pattern.c.
 */
#ifndef LECTERN_SRV_VERSION_PATTERN_H
#define LECTERN_SRV_VERSION_PATTERN_H

#include <stdint.h>

#include "lectern/slug.h"

/* The calver order's pattern (the service's sort_versions_calver). */
#define SRV_VPATTERN_CALVER "YYYY.0M.0D"

/* What a name matched, in the order bumpver's version info compares:
 * head, the calendar (year, ISO year, quarter, month, day, day of year,
 * the three week numbers; -1 where the name gives none) then major, minor
 * and patch; the build id, the tag and its PEP 440 form and the git hash,
 * as text; tail, num, inc0 and inc1. */
enum {
	SRV_VKEY_CALENDAR = 9,
	SRV_VKEY_HEAD = SRV_VKEY_CALENDAR + 3,
	SRV_VKEY_TAIL = 3,
	SRV_VKEY_TEXT_MAX = LEC_VERSION_SLUG_MAX + 1
};
struct srv_vkey {
	int64_t head[SRV_VKEY_HEAD];
	char bid[SRV_VKEY_TEXT_MAX], tag[16], pytag[8];
	char githash[SRV_VKEY_TEXT_MAX];
	int64_t tail[SRV_VKEY_TAIL];
};

struct srv_vpattern;

/* Compile a pattern; NULL when it is none (unbalanced brackets, too
 * long) or out of memory. */
struct srv_vpattern *srv_vpattern_new(const char *pattern);
void srv_vpattern_free(struct srv_vpattern *p);
/* Read name with p into key: 1, or 0 when the whole name does not match
 * (bumpver's PatternError: the service puts such names last). */
int srv_vpattern_read(const struct srv_vpattern *p, const char *name,
		      struct srv_vkey *key);
/* <0, 0, >0 as a is below, equal to or above b. */
int srv_vkey_compare(const struct srv_vkey *a, const struct srv_vkey *b);

#endif
