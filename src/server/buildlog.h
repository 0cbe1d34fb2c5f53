/*
 * A response body holding build logs (buildlog.c): text and commands'
 * outputs in order, each output read from the store a piece at a time as
 * the body is written, so that no request holds a whole log (up to the
 * engine's LEC_BUILD_LOG_MAX a build, and a page of v2 builds has one
 * each). A body whose outputs are small (SRV_BUILDLOG_INLINE) is written
 * out at once and answered like any other, bytes, entity tag and response
 * cache alike; a larger one is sent as it is read (srv_response.reader),
 * tagged from what it is made of.
 *
 * An output is written as the service shows it: NUL bytes removed and
 * bytes that are not UTF-8 shown as U+FFFD (output is stored as the
 * command wrote it), and in a JSON body as a JSON string escaped as
 * srv_json_print escapes, so the bytes are those of the document rendered
 * whole.
 */
#ifndef LECTERN_SRV_BUILDLOG_H
#define LECTERN_SRV_BUILDLOG_H

#include <cjson/cJSON.h>

#include "lectern/build.h"
#include "handler.h"

struct srv_buildlog;

/* A new, empty body reading outputs from store (the thread's handle:
 * the body is sent on the thread that made it), or NULL when out of
 * memory. */
struct srv_buildlog *srv_buildlog_new(struct lec_store *store);
/* Accepts NULL. */
void srv_buildlog_free(struct srv_buildlog *log);

/* Text as it is (copied). */
void srv_buildlog_text(struct srv_buildlog *log, const char *s, size_t n);
void srv_buildlog_puts(struct srv_buildlog *log, const char *s);
/* Command c's output, its first c->output_len bytes (c as
 * lec_build_command_list gave it; nothing of it is kept but what names
 * it), as text. */
void srv_buildlog_output(struct srv_buildlog *log,
			 const struct lec_build_command *c);

/* A JSON document with outputs in it: a JSON tree holds, where each
 * output goes, a raw value made by srv_buildlog_json_output, and is
 * answered with srv_buildlog_respond_json. The raw value is a control
 * byte, which srv_json_print writes nowhere else (its strings escape
 * them). NULL when out of memory. */
cJSON *srv_buildlog_json_output(struct srv_buildlog *log,
				const struct lec_build_command *c);

/* Make log (consumed) res's body with status and content type. Returns
 * status, or 500 when anything failed (out of memory, the store). */
int srv_buildlog_respond(struct srv_response *res, int status,
			 const char *type, struct srv_buildlog *log);
/* The same with json (consumed) printed as srv_respond_json prints it
 * (keys as built), its outputs' raw values replaced by their JSON
 * strings. */
int srv_buildlog_respond_json(struct srv_response *res, int status,
			      cJSON *json, struct srv_buildlog *log);

#endif
