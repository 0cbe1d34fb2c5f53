/*
 * The v3 route table (behaviour notes §1.6): each path with the methods it
 * serves, who may call each, and the permission that decides between 401,
 * 403 and 405 for methods the path does not serve (§1.9).
 */
#include "embed.h"
#include "v3.h"

#define GET(h) { SRV_GET, SRV_PERM_READ_ONLY, h }
#define ADMIN(m, h) { m, SRV_PERM_ADMIN, h }
#define AUTH(m, h) { m, SRV_PERM_AUTH, h }

#define P "/api/v3/projects/{}/"

const struct srv_route srv_v3_routes[] = {
	{ "/api/v3/", SRV_API_OTHER, SRV_PERM_ANYONE, 0,
	  { { SRV_GET, SRV_PERM_ANYONE, srv_v3_root } } },
	{ "/api/v3/projects/", SRV_API_V3, SRV_PERM_READ_ONLY, 0,
	  { AUTH(SRV_GET, srv_v3_projects_list),
	    AUTH(SRV_POST, srv_v3_projects_create) } },
	/* Projects: unmapped methods are read-only, so DELETE is 401/403,
	 * never 405 (§1.9). */
	{ P, SRV_API_V3, SRV_PERM_READ_ONLY, 0,
	  { GET(srv_v3_project_detail),
	    ADMIN(SRV_PATCH, srv_v3_project_update),
	    ADMIN(SRV_PUT, srv_v3_project_update) } },
	{ P "superproject/", SRV_API_V3, SRV_PERM_READ_ONLY, 0,
	  { GET(srv_v3_project_superproject) } },
	{ P "sync-versions/", SRV_API_V3, SRV_PERM_READ_ONLY, 0,
	  { ADMIN(SRV_POST, srv_v3_project_sync_versions) } },
	{ P "versions/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_versions_list) } },
	{ P "versions/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_version_detail),
	    ADMIN(SRV_PATCH, srv_v3_version_update),
	    ADMIN(SRV_PUT, srv_v3_version_update) } },
	{ P "versions/{}/builds/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_version_builds_list),
	    ADMIN(SRV_POST, srv_v3_build_trigger) } },
	{ P "versions/{}/builds/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_version_build_detail) } },
	{ P "builds/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_builds_list) } },
	{ P "builds/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_build_detail) } },
	/* Lectern's addition: cancel a build (docs/api.md). */
	{ P "builds/{}/cancel/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_POST, srv_v3_build_cancel) } },
	{ P "subprojects/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_subprojects_list),
	    ADMIN(SRV_POST, srv_v3_subprojects_create) } },
	{ P "subprojects/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_subproject_detail),
	    ADMIN(SRV_DELETE, srv_v3_subproject_delete) } },
	{ P "translations/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_translations_list) } },
	/* Redirects and variables: admins only, reads included. */
	{ P "redirects/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_redirects_list),
	    ADMIN(SRV_POST, srv_v3_redirects_create) } },
	{ P "redirects/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_redirect_detail),
	    ADMIN(SRV_PUT, srv_v3_redirect_put),
	    ADMIN(SRV_PATCH, srv_v3_redirect_patch),
	    ADMIN(SRV_DELETE, srv_v3_redirect_delete) } },
	{ P "environmentvariables/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_envvars_list),
	    ADMIN(SRV_POST, srv_v3_envvars_create) } },
	{ P "environmentvariables/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_envvar_detail),
	    ADMIN(SRV_DELETE, srv_v3_envvar_delete) } },
	/* Lectern's extension: incoming webhooks (docs/api.md). */
	{ P "integrations/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_integrations_list),
	    ADMIN(SRV_POST, srv_v3_integrations_create) } },
	{ P "integrations/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_integration_detail),
	    ADMIN(SRV_DELETE, srv_v3_integration_delete) } },
	/* Lectern's extension: page diffs between versions or builds
	 * (docs/api.md); seen as the builds are. */
	{ P "diff/", SRV_API_V3, SRV_PERM_ADMIN, 0, { GET(srv_v3_diff) } },
	/* Lectern's extension: offline mirrors of another instance's docs
	 * (docs/api.md). */
	{ "/api/v3/mirrors/", SRV_API_V3, SRV_PERM_AUTH, 0,
	  { AUTH(SRV_POST, srv_v3_mirrors_create) } },
	{ P "mirror/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_mirror_pages),
	    ADMIN(SRV_POST, srv_v3_mirror_publish) } },
	{ P "mirror/{}/pages/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_PUT, srv_v3_mirror_stage) } },
	/* Business edition (absent, 404, in the community edition); any
	 * authenticated user, so other methods are 405. */
	{ "/api/v3/organizations/", SRV_API_V3, SRV_PERM_AUTH, 1,
	  { AUTH(SRV_GET, srv_v3_orgs_list) } },
	{ "/api/v3/organizations/{}/", SRV_API_V3, SRV_PERM_AUTH, 1,
	  { AUTH(SRV_GET, srv_v3_org_detail) } },
	{ "/api/v3/organizations/{}/projects/", SRV_API_V3, SRV_PERM_AUTH, 1,
	  { AUTH(SRV_GET, srv_v3_org_projects) } },
	/* Notifications: the feed and an organization's for any
	 * authenticated user (the handler checks the organization), a
	 * project's for its admins, a build's for whoever sees the build;
	 * PATCH and PUT change a notification's state. */
	{ "/api/v3/notifications/", SRV_API_V3, SRV_PERM_AUTH, 0,
	  { AUTH(SRV_GET, srv_v3_notifications_list) } },
	{ "/api/v3/notifications/{}/", SRV_API_V3, SRV_PERM_AUTH, 0,
	  { AUTH(SRV_GET, srv_v3_notification_detail),
	    AUTH(SRV_PATCH, srv_v3_notification_detail),
	    AUTH(SRV_PUT, srv_v3_notification_detail) } },
	{ P "notifications/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_project_notifications_list) } },
	{ P "notifications/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_project_notification_detail),
	    ADMIN(SRV_PATCH, srv_v3_project_notification_detail),
	    ADMIN(SRV_PUT, srv_v3_project_notification_detail) } },
	{ P "builds/{}/notifications/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_build_notifications_list) } },
	/* Lectern's extension: a build's warnings, seen as the build is
	 * (docs/api.md). */
	{ P "builds/{}/warnings/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_build_warnings_list) } },
	{ P "builds/{}/notifications/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_build_notification_detail),
	    ADMIN(SRV_PATCH, srv_v3_build_notification_detail),
	    ADMIN(SRV_PUT, srv_v3_build_notification_detail) } },
	{ "/api/v3/organizations/{}/notifications/", SRV_API_V3,
	  SRV_PERM_AUTH, 1,
	  { AUTH(SRV_GET, srv_v3_org_notifications_list) } },
	{ "/api/v3/organizations/{}/notifications/{}/", SRV_API_V3,
	  SRV_PERM_AUTH, 1,
	  { AUTH(SRV_GET, srv_v3_org_notification_detail),
	    AUTH(SRV_PATCH, srv_v3_org_notification_detail),
	    AUTH(SRV_PUT, srv_v3_org_notification_detail) } },
	{ "/api/v3/users/{}/notifications/", SRV_API_V3, SRV_PERM_AUTH, 0,
	  { AUTH(SRV_GET, srv_v3_user_notifications_list) } },
	{ "/api/v3/users/{}/notifications/{}/", SRV_API_V3, SRV_PERM_AUTH, 0,
	  { AUTH(SRV_GET, srv_v3_user_notification_detail),
	    AUTH(SRV_PATCH, srv_v3_user_notification_detail),
	    AUTH(SRV_PUT, srv_v3_user_notification_detail) } },
	/* Lectern's extension: outgoing webhooks (docs/api.md). */
	{ P "webhooks/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_webhooks_list),
	    ADMIN(SRV_POST, srv_v3_webhooks_create) } },
	{ P "webhooks/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_webhook_detail),
	    ADMIN(SRV_PATCH, srv_v3_webhook_update),
	    ADMIN(SRV_DELETE, srv_v3_webhook_delete) } },
	{ P "webhooks/{}/deliveries/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_webhook_deliveries) } },
	/* Embed: anyone; what a page shows follows its version (embed.c). */
	{ "/api/v3/embed/", SRV_API_V3, SRV_PERM_ANYONE, 0,
	  { { SRV_GET, SRV_PERM_ANYONE, srv_embed_v3 } } },
	/* The same on docs hosts, where the service proxies its API. */
	{ "/_/api/v3/embed/", SRV_API_V3, SRV_PERM_ANYONE, 0,
	  { { SRV_GET, SRV_PERM_ANYONE, srv_embed_v3 } } },
};

const size_t srv_v3_route_count =
	sizeof(srv_v3_routes) / sizeof(srv_v3_routes[0]);
