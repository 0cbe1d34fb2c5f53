/*
 * What a notification is about, as people read it: "guide/latest #12"
 * rather than the service's "project 5" (issue 43, item 4). A Lectern says
 * it in its answer's "project" and "build" (docs/api.md, "Notifications");
 * another instance gives only attached_to_content_type and attached_to_id,
 * which are shown as they are. The CLI's `notifications` and the TUI's
 * notifications screen both write it with this, and open the build it
 * names with lc_notification_build.
 */
#include <stdio.h>

#include "client.h"

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

long long lc_notification_build(const cJSON *n, const char **project,
				const char **version)
{
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(n, "build");
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(b, "id");

	*project = str(n, "project");
	*version = str(b, "version");
	if (*project == NULL || !cJSON_IsNumber(id) || id->valuedouble < 1)
		return 0;
	return (long long)id->valuedouble;
}

const char *lc_notification_about(const cJSON *n, char *buf, size_t size)
{
	const char *project, *version;
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(n, "attached_to_id");
	long long build = lc_notification_build(n, &project, &version);

	if (build > 0 && version)
		snprintf(buf, size, "%s/%s #%lld", project, version, build);
	else if (build > 0)
		snprintf(buf, size, "%s #%lld", project, build);
	else if (project)
		snprintf(buf, size, "%s", project);
	else if (cJSON_IsNumber(id))
		snprintf(buf, size, "%s %.0f",
			 str(n, "attached_to_content_type")
				 ? str(n, "attached_to_content_type")
				 : "?",
			 id->valuedouble);
	else
		snprintf(buf, size, "?");
	return buf;
}
