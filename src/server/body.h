/*
 * Typed readers for request bodies, JSON or forms (srv_parse_body), with
 * the service's validation messages and DRF's rules for form input (body.c
 * says which). Each returns SRV_FIELD_PRESENT when the key was given (and
 * valid), 0 when it was absent (and allowed to be), or -1 after filling the
 * response with a 400 naming the field. The body came from srv_parse_body,
 * so its strings have passed the boundary's character rules already
 * (input.c: no NUL anywhere, no control character in a single-line
 * field).
 */
#ifndef LECTERN_SRV_BODY_H
#define LECTERN_SRV_BODY_H

#include <stdlib.h>

#include "handler.h"

#define SRV_FIELD_REQUIRED 1u /* absent → "This field is required." */
#define SRV_FIELD_NULLABLE 2u /* null allowed (*out stays NULL) */
#define SRV_FIELD_BLANK 4u    /* "" allowed */
/* A boolean DRF reads from a form as false when a create or full update
 * leaves it out (a form's unchecked box: the service's serializer
 * booleans). */
#define SRV_FIELD_FORM_FALSE 8u

#define SRV_FIELD_PRESENT 1

/* The value a field reads for key: a JSON body's member, or the last value
 * a form gave the key (NULL when absent). For handlers that read a field's
 * type themselves. */
const cJSON *srv_body_get(const cJSON *obj, const char *key);

/* The value a field with flags reads for key, NULL when absent, and
 * whether it is null (JSON null, or a form's "" on a nullable field; a
 * form's "" on a field neither required nor blank is absent). */
const cJSON *srv_body_value(const cJSON *obj, const char *key,
			    unsigned flags, int *null);
/* Wipe every value of key in a parsed body (a secret's copies), so that
 * freed memory holds none. */
void srv_body_wipe(cJSON *obj, const char *key);

/* field is the name shown in the error, dotted for nested objects
 * ("repository.url"); strings are borrowed from the parsed body. */
int srv_body_string(const cJSON *obj, const char *key, const char *field,
		    unsigned flags, const char **out, struct srv_response *res);
int srv_body_bool(const cJSON *obj, const char *key, const char *field,
		  unsigned flags, int *out, struct srv_response *res);
int srv_body_int(const cJSON *obj, const char *key, const char *field,
		 unsigned flags, long long min, long long max, long long *out,
		 struct srv_response *res);
/* A nested object; in a form, the "key.sub" fields, always present (DRF
 * reads an empty dictionary when there are none). */
int srv_body_object(const cJSON *obj, const char *key, const char *field,
		    unsigned flags, const cJSON **out,
		    struct srv_response *res);
/* A list of strings; *out is owned by the caller (free), its strings are
 * borrowed from the body. */
int srv_body_string_list(const cJSON *obj, const char *key, const char *field,
			 const char ***out, size_t *count,
			 struct srv_response *res);

#endif
