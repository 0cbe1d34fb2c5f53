/*
 * What the reader takes from a docs host's /_/addons/ (issue 39): the
 * line the browser's notice shows ("latest: development version"), the
 * same page in the stable version (`s`), and the versions of the page,
 * each at the same page (`v`), as the addons' flyout lists them. A pure
 * module (no curses), tested in tests/ui/test_addons.c.
 */
#ifndef LECTERN_UI_ADDONS_H
#define LECTERN_UI_ADDONS_H

#include <stddef.h>

struct ui_addons {
	char *notice;     /* the notice line, or NULL when there is none */
	char *stable_url; /* the page in stable, or NULL */
	char **titles;    /* nversions version slugs, owned */
	char **urls;      /* the page in each, owned */
	size_t nversions;
	size_t current;   /* index of the version read; nversions: none */
};

/* Read an /_/addons/ answer (len bytes of JSON) into out (zeroed by the
 * caller; dispose it). 0, or -1 when it is not one (out stays empty). */
int ui_addons_read(const char *body, size_t len, struct ui_addons *out);
/* Accepts NULL. */
void ui_addons_dispose(struct ui_addons *a);

#endif
