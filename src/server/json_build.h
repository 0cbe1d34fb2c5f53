/*
 * Small builders of JSON answers that every serializer needs: a string or
 * null, a datetime or null. The v2 and v3 serializers and the preview
 * daemon's status write their nullable fields through them, so that one
 * rule says when a field is null.
 */
#ifndef LECTERN_SRV_JSON_BUILD_H
#define LECTERN_SRV_JSON_BUILD_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "lectern/timefmt.h"

/* key: s, or null when s is NULL. */
void srv_json_str_or_null(cJSON *obj, const char *key, const char *s);
/* key: the datetime us as format writes it (lec_time_iso8601, or its
 * naive form for v2), or null when us is not positive (never set). */
void srv_json_time_or_null(cJSON *obj, const char *key, int64_t us,
			       void (*format)(int64_t us,
					      char out[LEC_TIME_ISO_MAX]));

#endif
