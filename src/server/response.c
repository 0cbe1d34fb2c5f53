/*
 * A response's body and extra headers (handler.h): a body is owned, or a
 * blob, immutable bytes shared by reference between a cache and the
 * responses sending them, so that a cache hit costs a reference and not a
 * copy, or a reader that makes it as it is sent (a build's log). The
 * response cache (cache.c) and the docs host keep blobs; the daemon
 * (server.c) hands them to libmicrohttpd. Below every other file but the
 * log: it calls nothing else of the server's.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "handler.h"
#include "log.h"

struct srv_blob {
	atomic_size_t refs;
	size_t len;
	char *data; /* owned */
};

/* Blobs ------------------------------------------------------------------ */

struct srv_blob *srv_blob_adopt(char *data, size_t len)
{
	struct srv_blob *b = malloc(sizeof(*b));

	if (b == NULL)
		return NULL;
	atomic_init(&b->refs, 1);
	b->len = len;
	b->data = data;
	return b;
}

char *srv_blob_data(struct srv_blob *blob)
{
	return blob->data;
}

size_t srv_blob_len(const struct srv_blob *blob)
{
	return blob->len;
}

struct srv_blob *srv_blob_hold(struct srv_blob *blob)
{
	atomic_fetch_add_explicit(&blob->refs, 1, memory_order_relaxed);
	return blob;
}

void srv_blob_release(struct srv_blob *blob)
{
	/* acq_rel: the last holder must see every other holder's reads
	 * done before it frees the bytes. */
	if (blob && atomic_fetch_sub_explicit(&blob->refs, 1,
					      memory_order_acq_rel) == 1) {
		free(blob->data);
		free(blob);
	}
}

/* Responses -------------------------------------------------------------- */

int srv_response_header(struct srv_response *res, const char *name,
			const char *value)
{
	char *copy;

	if (res->nextra >= SRV_MAX_EXTRA_HEADERS) {
		srv_log("too many headers on a response (%s)", name);
		return -1;
	}
	if ((copy = strdup(value)) == NULL)
		return -1;
	res->extra[res->nextra].name = name;
	res->extra[res->nextra++].value = copy;
	return 0;
}

void srv_response_set_blob(struct srv_response *res, struct srv_blob *blob)
{
	srv_response_drop_body(res);
	res->blob = srv_blob_hold(blob);
	res->body = srv_blob_data(blob);
	res->body_len = srv_blob_len(blob);
}

struct srv_blob *srv_response_share_body(struct srv_response *res)
{
	struct srv_blob *blob;

	if (res->blob)
		return srv_blob_hold(res->blob);
	if (res->body == NULL ||
	    (blob = srv_blob_adopt(res->body, res->body_len)) == NULL)
		return NULL;
	res->blob = blob; /* res's reference; body points into it */
	return srv_blob_hold(blob);
}

void srv_response_drop_body(struct srv_response *res)
{
	if (res->blob)
		srv_blob_release(res->blob);
	else
		free(res->body);
	if (res->reader.done)
		res->reader.done(res->reader.state);
	memset(&res->reader, 0, sizeof(res->reader));
	res->blob = NULL;
	res->body = NULL;
	res->body_len = 0;
}
