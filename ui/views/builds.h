/*
 * A project's builds as a live list, shared by the Builds screen and the
 * project screen's builds tab: newest first, the first page polled with
 * its ETag every tick (unchanged answers cost a 304), further pages
 * fetched as the cursor nears the end, and an optional running-only
 * filter done by the server.
 */
#ifndef LECTERN_UI_VIEWS_BUILDS_H
#define LECTERN_UI_VIEWS_BUILDS_H

#include <stddef.h>

#include "../table.h"

struct ui_view;
struct lc_build;
struct lc_response;
struct lc_error;

/* Request tags the model uses; the views' own tags stay below. */
enum { UI_BUILDS_TAG_FIRST = 100, UI_BUILDS_TAG_MORE };

struct ui_builds {
	char *project;           /* slug; owned */
	int running_only;
	struct lc_build **items; /* newest (highest id) first; owned */
	size_t len, cap;
	long long count;         /* the server's total, -1 before the first */
	char *etag;              /* of the first page; owned */
	struct ui_table table;   /* what is drawn */
};

void ui_builds_init(struct ui_builds *b, const char *project);
void ui_builds_dispose(struct ui_builds *b);
/* Ask for the first page again (conditionally) unless already asking,
 * and for the next page when v's cursor is near the end. */
void ui_builds_poll(struct ui_builds *b, struct ui_view *v);
/* Switch the running-only filter and start over. */
void ui_builds_toggle_running(struct ui_builds *b, struct ui_view *v);
/* An answer for one of the tags above; 1 when it was one. Sets v->lines
 * and keeps the cursor on the same build. */
int ui_builds_on_data(struct ui_builds *b, struct ui_view *v, int tag,
		      struct lc_response *resp, const struct lc_error *err);
/* Rebuild the rows (ages and elapsed times move on) and v->lines. */
void ui_builds_refresh(struct ui_builds *b, struct ui_view *v);
/* The id of the build on shown row n, or -1. */
long long ui_builds_id(const struct ui_builds *b, size_t n);

/* How every screen shows one build's outcome. */
/* Whether it has ended (finished or cancelled). */
int ui_build_final(const struct lc_build *b);
/* "passed", "failed", or "" while the outcome is unknown (running). */
const char *ui_build_result(const struct lc_build *b);
/* The slot for its result: state-ok, state-fail, or state-running. */
enum ui_slot ui_build_slot(const struct lc_build *b);

#endif
