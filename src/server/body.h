/*
 * Typed readers for JSON request bodies with the service's validation
 * messages. Each returns SRV_FIELD_PRESENT when the key was given (and
 * valid), 0 when it was absent (and allowed to be), or -1 after filling the
 * response with a 400 naming the field. The body came from srv_parse_body,
 * so its strings have passed the boundary's character rules already
 * (input.c: no NUL anywhere, no control character in a single-line
 * field).
 */
#ifndef LECTERN_SRV_BODY_H
#define LECTERN_SRV_BODY_H

#include <stdlib.h>

#include "server.h"

#define SRV_FIELD_REQUIRED 1u /* absent → "This field is required." */
#define SRV_FIELD_NULLABLE 2u /* null allowed (*out stays NULL) */
#define SRV_FIELD_BLANK 4u    /* "" allowed */

#define SRV_FIELD_PRESENT 1

/* field is the name shown in the error, dotted for nested objects
 * ("repository.url"); strings are borrowed from the parsed body. */
int srv_body_string(const cJSON *obj, const char *key, const char *field,
		    unsigned flags, const char **out, struct srv_response *res);
int srv_body_bool(const cJSON *obj, const char *key, const char *field,
		  unsigned flags, int *out, struct srv_response *res);
int srv_body_int(const cJSON *obj, const char *key, const char *field,
		 unsigned flags, long long min, long long max, long long *out,
		 struct srv_response *res);
int srv_body_object(const cJSON *obj, const char *key, const char *field,
		    unsigned flags, const cJSON **out,
		    struct srv_response *res);
/* A list of strings; *out is owned by the caller (free), its strings are
 * borrowed from the body. */
int srv_body_string_list(const cJSON *obj, const char *key, const char *field,
			 const char ***out, size_t *count,
			 struct srv_response *res);

#endif
