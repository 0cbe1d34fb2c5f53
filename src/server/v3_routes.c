/*
 * The v3 route table (behaviour notes §1.6): each path with the methods it
 * serves, who may call each, and the permission that decides between 401,
 * 403 and 405 for methods the path does not serve (§1.9).
 */
#include "embed_api.h"
#include "v3.h"

#define GET(h) { SRV_GET, SRV_PERM_READ_ONLY, h }
#define ADMIN(m, h) { m, SRV_PERM_ADMIN, h }
#define AUTH(m, h) { m, SRV_PERM_AUTH, h }
/* PATCH and PUT answered alike by one handler. */
#define AUTH_UPDATE(h) AUTH(SRV_PATCH, h), AUTH(SRV_PUT, h)
#define ADMIN_UPDATE(h) ADMIN(SRV_PATCH, h), ADMIN(SRV_PUT, h)

/* What OPTIONS says of the views of Lectern's extensions, several routes
 * each. */
#define ABOUT_MIRRORS \
	"Offline mirrors of another instance's docs (Lectern's extension)."
#define ABOUT_HOOKS "Outgoing webhooks (Lectern's extension)."
#define ABOUT_INTEGRATIONS "Incoming webhooks (Lectern's extension)."
#define ABOUT_FEED                                                      \
	"The notifications of the user, of the projects they administer " \
	"and of the organizations they own."
#define ABOUT_EMBED "A section of a documentation page, as HTML."

#define P "/api/v3/projects/{}/"

const struct srv_route srv_v3_routes[] = {
	{ "/api/v3/", SRV_API_OTHER, SRV_PERM_ANYONE, 0,
	  { { SRV_GET, SRV_PERM_ANYONE, srv_v3_root } },
	  "Lectern API v3", "The resources this instance serves." },
	{ "/api/v3/projects/", SRV_API_V3, SRV_PERM_READ_ONLY, 0,
	  { AUTH(SRV_GET, srv_v3_projects_list),
	    AUTH(SRV_POST, srv_v3_projects_create) },
	  "Projects List", NULL },
	/* Projects. DELETE is Lectern's (the service has none, and answers
	 * 401/403 as for any unmapped method here, §1.9): the project's
	 * admins remove it with everything of it. */
	{ P, SRV_API_V3, SRV_PERM_READ_ONLY, 0,
	  { GET(srv_v3_project_detail),
	    ADMIN_UPDATE(srv_v3_project_update),
	    ADMIN(SRV_DELETE, srv_v3_project_delete) },
	  "Projects Instance", NULL },
	{ P "superproject/", SRV_API_V3, SRV_PERM_READ_ONLY, 0,
	  { GET(srv_v3_project_superproject) },
	  "Superproject", "The superproject of a project." },
	{ P "sync-versions/", SRV_API_V3, SRV_PERM_READ_ONLY, 0,
	  { ADMIN(SRV_POST, srv_v3_project_sync_versions) },
	  "Sync versions",
	  "Sync the project's versions with its repository's branches "
	  "and tags." },
	{ P "versions/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_versions_list) },
	  "Versions List", NULL },
	{ P "versions/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_version_detail),
	    ADMIN_UPDATE(srv_v3_version_update) },
	  "Versions Instance", NULL },
	{ P "versions/{}/pages/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_version_pages_list) },
	  "Pages List", NULL },
	{ P "versions/{}/builds/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_version_builds_list),
	    ADMIN(SRV_POST, srv_v3_build_trigger) },
	  "Builds Create List", NULL },
	{ P "versions/{}/builds/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_version_build_detail) },
	  "Builds Create Instance", NULL },
	{ P "builds/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_builds_list) },
	  "Builds List", NULL },
	{ P "builds/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_build_detail) },
	  "Builds Instance", NULL },
	/* Lectern's addition: cancel a build (docs/api.md). */
	{ P "builds/{}/cancel/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_POST, srv_v3_build_cancel) },
	  "Cancel", "Cancel a queued or running build (Lectern's extension)." },
	{ P "subprojects/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_subprojects_list),
	    ADMIN(SRV_POST, srv_v3_subprojects_create) },
	  "Subproject Relationship List", NULL },
	/* An alias may hold slashes. */
	{ P "subprojects/{+}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_subproject_detail),
	    ADMIN(SRV_DELETE, srv_v3_subproject_delete) },
	  "Subproject Relationship Instance", NULL },
	{ P "translations/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_translations_list) },
	  "Translation Relationship List", NULL },
	/* Redirects and variables: admins only, reads included. */
	{ P "redirects/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_redirects_list),
	    ADMIN(SRV_POST, srv_v3_redirects_create) },
	  "Redirects List", NULL },
	{ P "redirects/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_redirect_detail),
	    ADMIN(SRV_PUT, srv_v3_redirect_put),
	    ADMIN(SRV_PATCH, srv_v3_redirect_patch),
	    ADMIN(SRV_DELETE, srv_v3_redirect_delete) },
	  "Redirects Instance", NULL },
	{ P "environmentvariables/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_envvars_list),
	    ADMIN(SRV_POST, srv_v3_envvars_create) },
	  "Environment Variables List", NULL },
	{ P "environmentvariables/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_envvar_detail),
	    ADMIN(SRV_DELETE, srv_v3_envvar_delete) },
	  "Environment Variables Instance", NULL },
	/* Lectern's extension: incoming webhooks (docs/api.md). */
	{ P "integrations/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_integrations_list),
	    ADMIN(SRV_POST, srv_v3_integrations_create) },
	  "Integrations List", ABOUT_INTEGRATIONS },
	{ P "integrations/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_integration_detail),
	    ADMIN(SRV_DELETE, srv_v3_integration_delete) },
	  "Integrations Instance", ABOUT_INTEGRATIONS },
	/* Lectern's extension: page diffs between versions or builds
	 * (docs/api.md); seen as the builds are. */
	{ P "diff/", SRV_API_V3, SRV_PERM_ADMIN, 0, { GET(srv_v3_diff) },
	  "Diff",
	  "What changed between two versions or builds (Lectern's "
	  "extension)." },
	/* Lectern's extension: builds across the requester's projects, and
	 * where their waiting builds stand in the queue (docs/api.md). */
	{ "/api/v3/builds/", SRV_API_V3, SRV_PERM_AUTH, 0,
	  { AUTH(SRV_GET, srv_v3_all_builds_list) },
	  "Builds List",
	  "Builds of every project you administer, newest first (Lectern's "
	  "extension)." },
	{ "/api/v3/builds/queue/", SRV_API_V3, SRV_PERM_AUTH, 0,
	  { AUTH(SRV_GET, srv_v3_build_queue) },
	  "Build Queue",
	  "Where the waiting builds stand in the queue (Lectern's "
	  "extension)." },
	{ "/api/v3/builds/activity/", SRV_API_V3, SRV_PERM_AUTH, 0,
	  { AUTH(SRV_GET, srv_v3_build_activity) },
	  "Build Activity",
	  "The newest build and the builds not finished, to ask before "
	  "asking for lists again (Lectern's extension)." },
	/* Lectern's extension: offline mirrors of another instance's docs
	 * (docs/api.md). */
	{ "/api/v3/mirrors/", SRV_API_V3, SRV_PERM_AUTH, 0,
	  { AUTH(SRV_POST, srv_v3_mirrors_create) },
	  "Mirrors List",
	  ABOUT_MIRRORS },
	{ P "mirror/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_mirror_pages),
	    ADMIN(SRV_POST, srv_v3_mirror_publish) },
	  "Mirror Instance",
	  ABOUT_MIRRORS },
	{ P "mirror/{}/pages/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_PUT, srv_v3_mirror_stage) },
	  "Mirror Pages",
	  ABOUT_MIRRORS },
	/* Business edition (absent, 404, in the community edition); any
	 * authenticated user, so other methods are 405. */
	{ "/api/v3/organizations/", SRV_API_V3, SRV_PERM_AUTH, 1,
	  { AUTH(SRV_GET, srv_v3_orgs_list) },
	  "Organizations List", NULL },
	{ "/api/v3/organizations/{}/", SRV_API_V3, SRV_PERM_AUTH, 1,
	  { AUTH(SRV_GET, srv_v3_org_detail) },
	  "Organizations Instance", NULL },
	{ "/api/v3/organizations/{}/projects/", SRV_API_V3, SRV_PERM_AUTH, 1,
	  { AUTH(SRV_GET, srv_v3_org_projects) },
	  "Organizations Projects List", NULL },
	{ "/api/v3/organizations/{}/teams/", SRV_API_V3, SRV_PERM_AUTH, 1,
	  { AUTH(SRV_GET, srv_v3_org_teams) },
	  "Organizations Teams List", NULL },
	/* The user's connected accounts' repositories and organizations:
	 * none on Lectern, an empty page for any authenticated user. */
	{ "/api/v3/remote/repositories/", SRV_API_V3, SRV_PERM_AUTH, 0,
	  { AUTH(SRV_GET, srv_v3_remote_empty) },
	  "Remote Repository List", NULL },
	{ "/api/v3/remote/organizations/", SRV_API_V3, SRV_PERM_AUTH, 0,
	  { AUTH(SRV_GET, srv_v3_remote_empty) },
	  "Remote Organization List", NULL },
	/* Notifications: the feed and an organization's for any
	 * authenticated user (the handler checks the organization), a
	 * project's for its admins, a build's for whoever sees the build;
	 * PATCH and PUT change a notification's state. */
	{ "/api/v3/notifications/", SRV_API_V3, SRV_PERM_AUTH, 0,
	  { AUTH(SRV_GET, srv_v3_notifications_list) },
	  "Notifications For User List",
	  ABOUT_FEED },
	{ "/api/v3/notifications/{}/", SRV_API_V3, SRV_PERM_AUTH, 0,
	  { AUTH(SRV_GET, srv_v3_notification_detail),
	    AUTH_UPDATE(srv_v3_notification_detail) },
	  "Notifications For User Instance",
	  ABOUT_FEED },
	{ P "notifications/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_project_notifications_list) },
	  "Notifications Project List", NULL },
	{ P "notifications/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_project_notification_detail),
	    ADMIN_UPDATE(srv_v3_project_notification_detail) },
	  "Notifications Project Instance", NULL },
	{ P "builds/{}/notifications/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_build_notifications_list) },
	  "Notifications Build List", NULL },
	/* Lectern's extension: a build's warnings, seen as the build is
	 * (docs/api.md). */
	{ P "builds/{}/warnings/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_build_warnings_list) },
	  "Warnings List",
	  "A build's warnings and broken links (Lectern's extension)." },
	{ P "builds/{}/notifications/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { GET(srv_v3_build_notification_detail),
	    ADMIN_UPDATE(srv_v3_build_notification_detail) },
	  "Notifications Build Instance", NULL },
	{ "/api/v3/organizations/{}/notifications/", SRV_API_V3,
	  SRV_PERM_AUTH, 1,
	  { AUTH(SRV_GET, srv_v3_org_notifications_list) },
	  "Notifications Organization List", NULL },
	{ "/api/v3/organizations/{}/notifications/{}/", SRV_API_V3,
	  SRV_PERM_AUTH, 1,
	  { AUTH(SRV_GET, srv_v3_org_notification_detail),
	    AUTH_UPDATE(srv_v3_org_notification_detail) },
	  "Notifications Organization Instance", NULL },
	{ "/api/v3/users/{}/notifications/", SRV_API_V3, SRV_PERM_AUTH, 0,
	  { AUTH(SRV_GET, srv_v3_user_notifications_list) },
	  "Notifications User List", NULL },
	{ "/api/v3/users/{}/notifications/{}/", SRV_API_V3, SRV_PERM_AUTH, 0,
	  { AUTH(SRV_GET, srv_v3_user_notification_detail),
	    AUTH_UPDATE(srv_v3_user_notification_detail) },
	  "Notifications User Instance", NULL },
	/* Lectern's extension: outgoing webhooks (docs/api.md). */
	{ P "webhooks/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_webhooks_list),
	    ADMIN(SRV_POST, srv_v3_webhooks_create) },
	  "Webhooks List", ABOUT_HOOKS },
	{ P "webhooks/{}/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_webhook_detail),
	    ADMIN(SRV_PATCH, srv_v3_webhook_update),
	    ADMIN(SRV_DELETE, srv_v3_webhook_delete) },
	  "Webhooks Instance", ABOUT_HOOKS },
	{ P "webhooks/{}/deliveries/", SRV_API_V3, SRV_PERM_ADMIN, 0,
	  { ADMIN(SRV_GET, srv_v3_webhook_deliveries) },
	  "Webhook Deliveries", ABOUT_HOOKS },
	/* Embed: anyone; what a page shows follows its version (embed_api.c). */
	{ "/api/v3/embed/", SRV_API_V3, SRV_PERM_ANYONE, 0,
	  { { SRV_GET, SRV_PERM_ANYONE, srv_embed_v3 } },
	  "Embed API Base", ABOUT_EMBED },
	/* The same on docs hosts, where the service proxies its API. */
	{ "/_/api/v3/embed/", SRV_API_V3, SRV_PERM_ANYONE, 0,
	  { { SRV_GET, SRV_PERM_ANYONE, srv_embed_v3 } },
	  "Embed API Base", ABOUT_EMBED },
};

const size_t srv_v3_route_count =
	sizeof(srv_v3_routes) / sizeof(srv_v3_routes[0]);
