/*
 * Form request bodies through libmicrohttpd's post processor (form_body.c),
 * into the form tree of input.h that the body readers read.
 */
#ifndef LECTERN_SRV_FORM_BODY_H
#define LECTERN_SRV_FORM_BODY_H

#include "handler.h"
#include "input.h"

/* Whether a Content-Type is one of the two form types DRF parses. */
int srv_form_is_content_type(const char *ct);
/* The form tree of req's body (a form Content-Type), of kind; NULL with
 * err filled (400): a multipart body without a boundary or that does not
 * follow it, or a field input.c refuses. The caller's (cJSON_Delete). */
cJSON *srv_form_parse(struct srv_request *req, enum srv_form_kind kind,
		      struct srv_input_error *err);

#endif
