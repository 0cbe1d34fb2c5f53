/*
 * The forges an engine's integrations (incoming webhooks) serve, as people
 * name them (`lectern integrations P add github`, the TUI's picker) and as
 * the API does (the service's integration types). One table, so the CLI and
 * the TUI cannot disagree.
 */
#include <string.h>

#include "client.h"

const struct lc_forge lc_forges[LC_FORGE_COUNT] = {
	{ "github", "github_webhook" },
	{ "gitlab", "gitlab_webhook" },
	{ "bitbucket", "bitbucket_webhook" },
	{ "generic", "api_webhook" },
};

const char *lc_forge_type(const char *forge)
{
	size_t i;

	for (i = 0; forge && i < LC_FORGE_COUNT; i++)
		if (strcmp(forge, lc_forges[i].forge) == 0)
			return lc_forges[i].type;
	return NULL;
}

const char *lc_forge_name(const char *type)
{
	size_t i;

	for (i = 0; type && i < LC_FORGE_COUNT; i++)
		if (strcmp(type, lc_forges[i].type) == 0)
			return lc_forges[i].forge;
	return NULL;
}
