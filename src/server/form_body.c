/*
 * Form request bodies (application/x-www-form-urlencoded and
 * multipart/form-data), which the service's framework accepts on every
 * write as well as JSON: libmicrohttpd's post processor decodes the body
 * (percent escapes, '+', multipart boundaries and part headers), and each
 * field it hands over, in pieces when long, is put into the form tree of
 * input.c, which the body readers (body.c) read with DRF's form rules.
 * A body of more than SRV_MAX_FORM_FIELDS fields is refused at the first
 * one too many: the post processor stops there, so a long form costs no
 * more than the fields it may have.
 */
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "form_body.h"

/* The post processor's buffer: a longer value comes in several pieces
 * (gathered below); libmicrohttpd needs at least 256 bytes. */
#define FORM_BUFFER 4096

/* The field being read and what the iterator has seen. */
struct form_reader {
	struct srv_form_builder form;
	struct srv_input_error *err;
	char *key;       /* owned; NULL before the first field */
	int is_file;
	char *value;     /* owned, len bytes of cap */
	size_t len, cap;
	int failed;      /* err is filled */
};

/* Put the field read so far into the form. */
static int flush(struct form_reader *r)
{
	int rc = 0;

	if (r->key && !r->failed &&
	    srv_input_form_add(&r->form, r->key, strlen(r->key),
			       r->value ? r->value : "", r->len, r->is_file,
			       r->err) != 0) {
		r->failed = 1;
		rc = -1;
	}
	free(r->key);
	if (r->value)
		explicit_bzero(r->value, r->len);
	r->key = NULL;
	r->len = 0;
	return rc;
}

static int append(struct form_reader *r, const char *data, size_t n)
{
	char *grown;

	if (r->is_file || n == 0)
		return 0; /* a file's bytes are not kept: no field takes one */
	if (r->len + n > r->cap) {
		size_t cap = r->cap ? r->cap : 64;

		while (cap < r->len + n)
			cap *= 2;
		if ((grown = malloc(cap)) == NULL)
			return -1;
		if (r->value) {
			memcpy(grown, r->value, r->len);
			explicit_bzero(r->value, r->len);
			free(r->value);
		}
		r->value = grown;
		r->cap = cap;
	}
	memcpy(r->value + r->len, data, n);
	r->len += n;
	return 0;
}

/* libmicrohttpd's post processor calls this for each piece of each field:
 * off 0 starts a field (a key given twice starts twice). */
static enum MHD_Result on_field(void *cls, enum MHD_ValueKind kind,
				const char *key, const char *filename,
				const char *content_type,
				const char *transfer_encoding,
				const char *data, uint64_t off, size_t size)
{
	struct form_reader *r = cls;

	(void)kind;
	(void)content_type;
	(void)transfer_encoding;
	if (r->failed)
		return MHD_NO;
	if (off == 0 || r->key == NULL) {
		if (flush(r) < 0)
			return MHD_NO;
		if ((r->key = strdup(key ? key : "")) == NULL)
			goto oom;
		r->is_file = filename != NULL;
	}
	if (append(r, data, size) < 0)
		goto oom;
	return MHD_YES;
oom:
	r->err->status = 400;
	r->err->field[0] = '\0';
	snprintf(r->err->message, sizeof(r->err->message), "Out of memory.");
	r->failed = 1;
	return MHD_NO;
}

static void parse_error(struct srv_input_error *err, const char *what)
{
	err->status = 400;
	err->field[0] = '\0';
	snprintf(err->message, sizeof(err->message),
		 "Multipart form parse error - %s", what);
}

int srv_form_is_content_type(const char *ct)
{
	static const char *const types[] = {
		MHD_HTTP_POST_ENCODING_FORM_URLENCODED,
		MHD_HTTP_POST_ENCODING_MULTIPART_FORMDATA,
	};
	size_t i, n;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		n = strlen(types[i]);
		if (strncasecmp(ct, types[i], n) == 0 &&
		    (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' '))
			return 1;
	}
	return 0;
}

cJSON *srv_form_parse(struct srv_request *req, enum srv_form_kind kind,
		      struct srv_input_error *err)
{
	const char *ct = srv_header(req, MHD_HTTP_HEADER_CONTENT_TYPE);
	int multipart = ct && strncasecmp(ct, "multipart/", 10) == 0;
	struct form_reader r = { 0 };
	struct MHD_PostProcessor *pp = NULL;
	enum MHD_Result ok;

	r.err = err;
	if (srv_input_form_begin(&r.form, kind) < 0) {
		parse_error(err, "out of memory");
		return NULL;
	}
	if (req->body_len == 0)
		return srv_input_form_finish(&r.form);
	pp = MHD_create_post_processor(req->conn, FORM_BUFFER, on_field, &r);
	if (pp == NULL) {
		/* The one case libmicrohttpd refuses up front. */
		parse_error(err, multipart ? "Invalid boundary in multipart: "
					     "None"
					   : "out of memory");
		goto fail;
	}
	ok = MHD_post_process(pp, req->body, req->body_len);
	if (MHD_destroy_post_processor(pp) != MHD_YES && !r.failed && multipart)
		ok = MHD_NO;
	if (!r.failed && flush(&r) < 0)
		goto fail;
	if (r.failed)
		goto fail;
	if (ok != MHD_YES) {
		parse_error(err, "the body does not follow its boundaries");
		goto fail;
	}
	free(r.value);
	return srv_input_form_finish(&r.form);
fail:
	flush(&r);
	free(r.value);
	cJSON_Delete(srv_input_form_finish(&r.form));
	return NULL;
}
