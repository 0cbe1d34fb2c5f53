/*
 * PEP 440 versions (pep440.c), as the hosted service reads a version's
 * name to choose `stable` (behaviour notes §6.2): `packaging`'s Version
 * after NFKD to ASCII, with ".x" read as ".999999". Public through
 * lec_version_pep440_compare and lec_version_pep440_final (version.h);
 * version.c's choice of stable uses the parsed form below.
 */
#ifndef LECTERN_PEP440_H
#define LECTERN_PEP440_H

#include <stddef.h>

/* Release or local parts beyond which a name is not taken for a version:
 * no real version has this many, and the parse needs no allocation. */
#define LEC__PEP440_MAX_PARTS 32

/* A number as its digits without leading zeros (n == 0 is zero). */
struct lec__pep440_num {
	const char *p;
	size_t n;
};

struct lec__pep440_local {
	/* digits without leading zeros if numeric */
	struct lec__pep440_num text;
	int numeric;
};

/* Pre-release kinds, in their sort order ("a" < "b" < "rc"). */
enum {
	LEC__PEP440_PRE_NONE,
	LEC__PEP440_PRE_A,
	LEC__PEP440_PRE_B,
	LEC__PEP440_PRE_RC
};

/* A parsed version; its parts point into text. */
struct lec__pep440 {
	char *text; /* lowercase ASCII the parts point into; owned */
	struct lec__pep440_num epoch;
	struct lec__pep440_num release[LEC__PEP440_MAX_PARTS];
	size_t nrelease;
	int pre; /* LEC__PEP440_PRE_* */
	struct lec__pep440_num pre_n;
	int has_post;
	struct lec__pep440_num post;
	int has_dev;
	struct lec__pep440_num dev;
	struct lec__pep440_local local[LEC__PEP440_MAX_PARTS];
	size_t nlocal; /* 0: no local label */
};

/* Parse a version name as the service does: 1 when it is a version, 0
 * when not, < 0 on error. On 1, dispose v with lec__pep440_dispose. */
int lec__pep440_read(const char *name, struct lec__pep440 *v);
void lec__pep440_dispose(struct lec__pep440 *v);
/* Negative, zero or positive as a sorts before, with or after b. */
int lec__pep440_cmp(const struct lec__pep440 *a, const struct lec__pep440 *b);
/* Neither a pre-release nor a dev release: a candidate for `stable`. */
int lec__pep440_is_final(const struct lec__pep440 *v);

#endif
