/*
 * Small builders of JSON answers shared by the serializers (json_build.h):
 * the nullable string and the nullable datetime.
 */
#include "json_build.h"

void srv_json_str_or_null(cJSON *obj, const char *key, const char *s)
{
	if (s)
		cJSON_AddStringToObject(obj, key, s);
	else
		cJSON_AddNullToObject(obj, key);
}

void srv_json_time_or_null(cJSON *obj, const char *key, int64_t us,
			       void (*format)(int64_t us,
					      char out[LEC_TIME_ISO_MAX]))
{
	char text[LEC_TIME_ISO_MAX];

	if (us <= 0) {
		cJSON_AddNullToObject(obj, key);
		return;
	}
	format(us, text);
	cJSON_AddStringToObject(obj, key, text);
}
