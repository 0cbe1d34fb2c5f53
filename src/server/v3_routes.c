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

/* A row under a project (its admins' permission decides the methods the
 * path does not serve), one for any authenticated user, and one of the
 * business edition's organizations (absent, 404, in the community
 * edition): the path below their prefix, the view's name and about for
 * OPTIONS, then the methods. */
#define ROUTE(path, fallback, business, view, about, ...)                   \
	{ path, SRV_API_V3, fallback, business, { __VA_ARGS__ }, view, about }
#define UNDER_PROJECT(rest, view, about, ...) \
	ROUTE(P rest, SRV_PERM_ADMIN, 0, view, about, __VA_ARGS__)
#define FOR_USERS(rest, view, about, ...) \
	ROUTE("/api/v3/" rest, SRV_PERM_AUTH, 0, view, about, __VA_ARGS__)
#define BUSINESS(rest, view, about, ...)                                  \
	ROUTE("/api/v3/organizations/" rest, SRV_PERM_AUTH, 1, view, about, \
	      __VA_ARGS__)

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
	{ P "addons/", SRV_API_V3, SRV_PERM_READ_ONLY, 0,
	  { GET(srv_v3_project_addons),
	    ADMIN_UPDATE(srv_v3_project_addons_update) },
	  "Addons",
	  "The reader's addons of the project's docs pages (Lectern's "
	  "extension)." },
	{ P "sync-versions/", SRV_API_V3, SRV_PERM_READ_ONLY, 0,
	  { ADMIN(SRV_POST, srv_v3_project_sync_versions) },
	  "Sync versions",
	  "Sync the project's versions with its repository's branches "
	  "and tags." },
	UNDER_PROJECT("versions/", "Versions List", NULL,
		      GET(srv_v3_versions_list)),
	UNDER_PROJECT("versions/{}/", "Versions Instance", NULL,
		      GET(srv_v3_version_detail),
		      ADMIN_UPDATE(srv_v3_version_update)),
	UNDER_PROJECT("versions/{}/pages/", "Pages List", NULL,
		      GET(srv_v3_version_pages_list)),
	UNDER_PROJECT("versions/{}/builds/", "Builds Create List", NULL,
		      GET(srv_v3_version_builds_list),
		      ADMIN(SRV_POST, srv_v3_build_trigger)),
	UNDER_PROJECT("versions/{}/builds/{}/", "Builds Create Instance", NULL,
		      GET(srv_v3_version_build_detail)),
	/* Lectern's addition: build a branch as a preview (docs/api.md). */
	UNDER_PROJECT("previews/", "Previews Create",
		      "Build a branch that is not an active version as a "
		      "preview on its own host (Lectern's extension).",
		      ADMIN(SRV_POST, srv_v3_preview_create)),
	UNDER_PROJECT("builds/", "Builds List", NULL, GET(srv_v3_builds_list)),
	UNDER_PROJECT("builds/{}/", "Builds Instance", NULL,
		      GET(srv_v3_build_detail)),
	/* Lectern's addition: cancel a build (docs/api.md). */
	UNDER_PROJECT("builds/{}/cancel/", "Cancel",
		      "Cancel a queued or running build (Lectern's "
		      "extension).", ADMIN(SRV_POST, srv_v3_build_cancel)),
	UNDER_PROJECT("subprojects/", "Subproject Relationship List", NULL,
		      GET(srv_v3_subprojects_list),
		      ADMIN(SRV_POST, srv_v3_subprojects_create)),
	/* An alias may hold slashes. */
	UNDER_PROJECT("subprojects/{+}/", "Subproject Relationship Instance",
		      NULL, GET(srv_v3_subproject_detail),
		      ADMIN(SRV_DELETE, srv_v3_subproject_delete)),
	UNDER_PROJECT("translations/", "Translation Relationship List", NULL,
		      GET(srv_v3_translations_list)),
	/* Redirects and variables: admins only, reads included. */
	UNDER_PROJECT("redirects/", "Redirects List", NULL,
		      ADMIN(SRV_GET, srv_v3_redirects_list),
		      ADMIN(SRV_POST, srv_v3_redirects_create)),
	UNDER_PROJECT("redirects/{}/", "Redirects Instance", NULL,
		      ADMIN(SRV_GET, srv_v3_redirect_detail),
		      ADMIN(SRV_PUT, srv_v3_redirect_put),
		      ADMIN(SRV_PATCH, srv_v3_redirect_patch),
		      ADMIN(SRV_DELETE, srv_v3_redirect_delete)),
	UNDER_PROJECT("environmentvariables/", "Environment Variables List",
		      NULL, ADMIN(SRV_GET, srv_v3_envvars_list),
		      ADMIN(SRV_POST, srv_v3_envvars_create)),
	UNDER_PROJECT("environmentvariables/{}/",
		      "Environment Variables Instance", NULL,
		      ADMIN(SRV_GET, srv_v3_envvar_detail),
		      ADMIN(SRV_DELETE, srv_v3_envvar_delete)),
	/* Lectern's extension: incoming webhooks (docs/api.md). */
	UNDER_PROJECT("integrations/", "Integrations List", ABOUT_INTEGRATIONS,
		      ADMIN(SRV_GET, srv_v3_integrations_list),
		      ADMIN(SRV_POST, srv_v3_integrations_create)),
	UNDER_PROJECT("integrations/{}/", "Integrations Instance",
		      ABOUT_INTEGRATIONS,
		      ADMIN(SRV_GET, srv_v3_integration_detail),
		      ADMIN(SRV_DELETE, srv_v3_integration_delete)),
	/* Lectern's extension: page diffs between versions or builds
	 * (docs/api.md); seen as the builds are. */
	UNDER_PROJECT("diff/", "Diff",
		      "What changed between two versions or builds (Lectern's "
		      "extension).", GET(srv_v3_diff)),
	/* Lectern's extension: builds across the requester's projects, where
	 * their waiting builds stand in the queue, and the instance's build
	 * activity (docs/api.md). */
	FOR_USERS("builds/", "Builds List",
		  "Builds of every project you administer, newest first "
		  "(Lectern's extension).",
		  AUTH(SRV_GET, srv_v3_all_builds_list)),
	FOR_USERS("builds/queue/", "Build Queue",
		  "Where the waiting builds stand in the queue (Lectern's "
		  "extension).", AUTH(SRV_GET, srv_v3_build_queue)),
	FOR_USERS("builds/activity/", "Build Activity",
		  "The newest build and the builds not finished, to ask "
		  "before asking for lists again (Lectern's extension).",
		  AUTH(SRV_GET, srv_v3_build_activity)),
	FOR_USERS("status/", "Status",
		  "The engine's version, its build workers, and the builds "
		  "waiting and running (Lectern's extension).",
		  AUTH(SRV_GET, srv_v3_status)),
	/* Lectern's extension: offline mirrors of another instance's docs
	 * (docs/api.md). */
	FOR_USERS("mirrors/", "Mirrors List", ABOUT_MIRRORS,
		  AUTH(SRV_POST, srv_v3_mirrors_create)),
	UNDER_PROJECT("mirror/{}/", "Mirror Instance", ABOUT_MIRRORS,
		      ADMIN(SRV_GET, srv_v3_mirror_pages),
		      ADMIN(SRV_POST, srv_v3_mirror_publish)),
	UNDER_PROJECT("mirror/{}/pages/", "Mirror Pages", ABOUT_MIRRORS,
		      ADMIN(SRV_PUT, srv_v3_mirror_stage)),
	/* Business edition (absent, 404, in the community edition); any
	 * authenticated user, so other methods are 405. */
	BUSINESS("", "Organizations List", NULL,
		 AUTH(SRV_GET, srv_v3_orgs_list)),
	BUSINESS("{}/", "Organizations Instance", NULL,
		 AUTH(SRV_GET, srv_v3_org_detail)),
	BUSINESS("{}/projects/", "Organizations Projects List", NULL,
		 AUTH(SRV_GET, srv_v3_org_projects)),
	BUSINESS("{}/teams/", "Organizations Teams List", NULL,
		 AUTH(SRV_GET, srv_v3_org_teams)),
	/* The user's connected accounts' repositories and organizations:
	 * none on Lectern, an empty page for any authenticated user. */
	FOR_USERS("remote/repositories/", "Remote Repository List", NULL,
		  AUTH(SRV_GET, srv_v3_remote_empty)),
	FOR_USERS("remote/organizations/", "Remote Organization List", NULL,
		  AUTH(SRV_GET, srv_v3_remote_empty)),
	/* Notifications: the feed and an organization's for any
	 * authenticated user (the handler checks the organization), a
	 * project's for its admins, a build's for whoever sees the build;
	 * PATCH and PUT change a notification's state. */
	FOR_USERS("notifications/", "Notifications For User List", ABOUT_FEED,
		  AUTH(SRV_GET, srv_v3_notifications_list)),
	FOR_USERS("notifications/{}/", "Notifications For User Instance",
		  ABOUT_FEED, AUTH(SRV_GET, srv_v3_notification_detail),
		  AUTH_UPDATE(srv_v3_notification_detail)),
	UNDER_PROJECT("notifications/", "Notifications Project List", NULL,
		      ADMIN(SRV_GET, srv_v3_project_notifications_list)),
	UNDER_PROJECT("notifications/{}/", "Notifications Project Instance",
		      NULL, ADMIN(SRV_GET, srv_v3_project_notification_detail),
		      ADMIN_UPDATE(srv_v3_project_notification_detail)),
	UNDER_PROJECT("builds/{}/notifications/", "Notifications Build List",
		      NULL, GET(srv_v3_build_notifications_list)),
	/* Lectern's extension: a build's warnings, seen as the build is
	 * (docs/api.md). */
	UNDER_PROJECT("builds/{}/warnings/", "Warnings List",
		      "A build's warnings and broken links (Lectern's "
		      "extension).", GET(srv_v3_build_warnings_list)),
	UNDER_PROJECT("builds/{}/notifications/{}/",
		      "Notifications Build Instance", NULL,
		      GET(srv_v3_build_notification_detail),
		      ADMIN_UPDATE(srv_v3_build_notification_detail)),
	BUSINESS("{}/notifications/", "Notifications Organization List", NULL,
		 AUTH(SRV_GET, srv_v3_org_notifications_list)),
	BUSINESS("{}/notifications/{}/", "Notifications Organization Instance",
		 NULL, AUTH(SRV_GET, srv_v3_org_notification_detail),
		 AUTH_UPDATE(srv_v3_org_notification_detail)),
	FOR_USERS("users/{}/notifications/", "Notifications User List", NULL,
		  AUTH(SRV_GET, srv_v3_user_notifications_list)),
	FOR_USERS("users/{}/notifications/{}/", "Notifications User Instance",
		  NULL, AUTH(SRV_GET, srv_v3_user_notification_detail),
		  AUTH_UPDATE(srv_v3_user_notification_detail)),
	/* Lectern's extension: outgoing webhooks (docs/api.md). */
	UNDER_PROJECT("webhooks/", "Webhooks List", ABOUT_HOOKS,
		      ADMIN(SRV_GET, srv_v3_webhooks_list),
		      ADMIN(SRV_POST, srv_v3_webhooks_create)),
	UNDER_PROJECT("webhooks/{}/", "Webhooks Instance", ABOUT_HOOKS,
		      ADMIN(SRV_GET, srv_v3_webhook_detail),
		      ADMIN(SRV_PATCH, srv_v3_webhook_update),
		      ADMIN(SRV_DELETE, srv_v3_webhook_delete)),
	UNDER_PROJECT("webhooks/{}/deliveries/", "Webhook Deliveries",
		      ABOUT_HOOKS, ADMIN(SRV_GET, srv_v3_webhook_deliveries)),
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
