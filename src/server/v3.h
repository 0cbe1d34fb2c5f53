/*
 * The v3 API's handlers and serializers, shared across the v3_*.c files.
 * Serializers build the service's exact objects (behaviour notes §1.5);
 * handlers implement the endpoints of contract §4.1–4.9 with the status
 * codes and rules of notes §1.6–§2.
 */
#ifndef LECTERN_SRV_V3_H
#define LECTERN_SRV_V3_H

#include "lectern/version.h"
#include "handler.h"

struct lec_project;
struct lec_version;
struct lec_build;
struct lec_org;

/* Serializers (v3_serialize.c) ----------------------------------------- */

/* Project _links (relative /api/v3/ paths). */
cJSON *srv_v3_project_links(const char *slug);
/* {"_links": {...}, "slug": slug}: how subproject_of/translation_of show. */
cJSON *srv_v3_project_ref(const char *slug);
/* A full Project. flex may be NULL (no fields/omit/expand: responses built
 * without a request); it decides expansions only: the handler applies
 * fields/omit to the root object (srv_flex_apply). */
cJSON *srv_v3_project(struct srv_request *req, const struct lec_project *p,
		      const struct srv_flex *flex, int list_context);
/* A Version of project p; flex's expand=last_build[.config] adds its
 * newest build. */
cJSON *srv_v3_version(struct srv_request *req, const struct lec_project *p,
		      const struct lec_version *v, const struct srv_flex *flex);
/* A Build; project and version give the slugs (version may be NULL). */
cJSON *srv_v3_build(struct srv_request *req, const struct lec_project *p,
		    const struct lec_build *b, const char *version_slug,
		    const struct srv_flex *flex);

/* A datetime as the v3 serializers write it; null when us is 0. */
void srv_v3_add_time(cJSON *obj, const char *key, int64_t us);
/* Organization _links (absolute URLs from the public origin). */
cJSON *srv_v3_org_links(struct srv_request *req, const char *slug);
/* A datetime always with six fraction digits (organizations and teams). */
void srv_v3_add_time_us(cJSON *obj, const char *key, int64_t us);
struct lec_team;
/* A Team (business): access, created, modified, name, slug. */
cJSON *srv_v3_team(const struct lec_team *team);

/* The documentation URL of a project's version ("http://slug.domain/en/
 * latest/"), following subprojects, translations and versioning schemes.
 * Owned by the caller (free). */
char *srv_docs_url(struct srv_request *req, const struct lec_project *p,
		   const char *version_slug);

/* Common handler steps (v3_common.c) ---------------------------------- */

/* A nested route's parent: the project of params[0] and, for routes
 * under a version, its version params[1]. */
enum srv_parent_kind {
	SRV_PARENT_PROJECT,
	/* The versions endpoint: pull-request versions never show there. */
	SRV_PARENT_VERSION,
	/* A version whose builds are listed or triggered: pull-request
	 * versions included, visible as their builds are. */
	SRV_PARENT_BUILDS_VERSION,
};

struct srv_parent {
	struct lec_project *project; /* owned */
	struct lec_version *version; /* owned; NULL for SRV_PARENT_PROJECT */
	int admin;                   /* the requester administers project */
};

/* Look the parent up as the requester may see it. A project that does not
 * exist and one they cannot see both fill res with the same 404 ("No
 * Project matches the given query."); likewise a version ("No Version
 * ..."). Returns 0, or -1 after filling res (out is then empty). */
int srv_v3_parent_load(struct srv_request *req, struct srv_response *res,
		       enum srv_parent_kind kind, struct srv_parent *out);
/* Accepts NULL. */
void srv_v3_parent_dispose(struct srv_parent *parent);
/* Whether the requester, who can see parent's project, sees version v of
 * it and its builds (lec_version_can_view, with the project's external
 * builds privacy for pull-request versions). v NULL is a deleted version,
 * whose builds are the admins' only. */
int srv_v3_version_visible(struct lec_store *store,
			   const struct srv_parent *parent,
			   const struct lec_version *v);

/* A nested list: the parent it hangs from and how to fill a page. */
struct srv_v3_list {
	enum srv_parent_kind parent;
	int flex; /* reads fields/omit/expand (400 on a bad expand) */
	/* Add the page's items to results and set *total to the count of
	 * all. Returns 0, or -1 after filling res. */
	int (*fill)(struct srv_request *req, struct srv_response *res,
		    const struct srv_parent *parent,
		    const struct lec_page *page, const struct srv_flex *flex,
		    cJSON *results, size_t *total);
};

/* Answer a nested list: the parent looked up first (its 404), then the
 * page in the paginated envelope. Returns res->status. */
int srv_v3_respond_list(struct srv_request *req, struct srv_response *res,
			const struct srv_v3_list *list);
/* A nested detail (GET of one object): the parent it hangs from and how
 * to show the object the rest of the path names. */
struct srv_v3_detail {
	enum srv_parent_kind parent;
	/* params[1] is an integer id, read into show's id (404 "Not
	 * found." for one that is not, notes §0.4); else id is 0. */
	int by_id;
	int flex; /* reads fields/omit/expand (400 on a bad expand) */
	/* Put the object as JSON into *out: LEC_OK, LEC_ENOTFOUND (no such
	 * object, or one the requester may not see), or another engine
	 * code. */
	int (*show)(struct srv_request *req, const struct srv_parent *parent,
		    int64_t id, const struct srv_flex *flex, cJSON **out);
	/* The 404's detail for LEC_ENOTFOUND; NULL: the engine's message. */
	const char *not_found;
};

/* Answer a nested detail: the parent looked up first (its 404), then the
 * id, then fields/omit/expand, then the object with 200. Returns
 * res->status. */
int srv_v3_respond_detail(struct srv_request *req, struct srv_response *res,
			  const struct srv_v3_detail *detail);
/* DELETE of an object of the project in the path, by the id in
 * params[1] (the project's 404 first, then the id's): 204, a 404 with
 * not_found when the engine finds no such object (NULL: the engine's
 * message), or the engine's error. Returns res->status. */
int srv_v3_respond_delete(struct srv_request *req, struct srv_response *res,
			  int (*del)(struct lec_store *store,
				     int64_t project_id, int64_t id),
			  const char *not_found);
/* The requester's user id, or 0 when anonymous. */
int64_t srv_viewer_id(const struct srv_request *req);
/* A query boolean as django-filter reads it: "true"/"1", "false"/"0"
 * (case-insensitive); absent or anything else does not filter. */
enum lec_filter_bool srv_query_filter(const struct srv_request *req,
				      const char *key);
/* A non-negative integer path parameter into *id: 0, or -1 after filling
 * res with the 404 "Not found." of a lookup value of the wrong type (notes
 * §0.4). */
int srv_param_id(const char *text, struct srv_response *res, int64_t *id);

/* Handlers -------------------------------------------------------------- */

int srv_v3_root(struct srv_request *req, struct srv_response *res);

int srv_v3_projects_list(struct srv_request *req, struct srv_response *res);
int srv_v3_projects_create(struct srv_request *req, struct srv_response *res);
/* A new project's organization in the business edition, the same rights
 * for an import and a mirror (v3_projects.c): the body's "organization",
 * required and owned by the user, and its optional "teams", all checked
 * before anything is created. 0 with *org (owned by the caller) and
 * *teams (the array owned, its strings the body's), or -1 with res
 * filled. */
int srv_v3_org_read(struct srv_request *req, const cJSON *body,
		    struct lec_org **org, const char ***teams, size_t *nteams,
		    struct srv_response *res);
/* Put a new project into its organization and teams; -1 with res filled. */
int srv_v3_org_join(struct srv_request *req, struct lec_org *org,
		    int64_t project_id, const char **teams, size_t nteams,
		    struct srv_response *res);
int srv_v3_project_detail(struct srv_request *req, struct srv_response *res);
int srv_v3_project_update(struct srv_request *req, struct srv_response *res);
/* Lectern's builds across the requester's projects, where their waiting
 * builds stand in the queue, and the instance's build activity
 * (v3_queue.c, docs/api.md). */
int srv_v3_all_builds_list(struct srv_request *req, struct srv_response *res);
int srv_v3_build_queue(struct srv_request *req, struct srv_response *res);
int srv_v3_build_activity(struct srv_request *req, struct srv_response *res);
/* Lectern's DELETE of a project with everything of it (docs/api.md). */
int srv_v3_project_delete(struct srv_request *req, struct srv_response *res);
int srv_v3_project_superproject(struct srv_request *req,
				struct srv_response *res);
int srv_v3_project_sync_versions(struct srv_request *req,
				 struct srv_response *res);

int srv_v3_versions_list(struct srv_request *req, struct srv_response *res);
int srv_v3_version_detail(struct srv_request *req, struct srv_response *res);
int srv_v3_version_update(struct srv_request *req, struct srv_response *res);
/* v3_pages.c: a version's pages (a Lectern extension). */
int srv_v3_version_pages_list(struct srv_request *req,
			      struct srv_response *res);

int srv_v3_builds_list(struct srv_request *req, struct srv_response *res);
int srv_v3_build_detail(struct srv_request *req, struct srv_response *res);
int srv_v3_version_builds_list(struct srv_request *req,
			       struct srv_response *res);
int srv_v3_version_build_detail(struct srv_request *req,
				struct srv_response *res);
/* The build id_text of the project params[0], visible to the requester
 * (its version's visibility): *parent filled (dispose it) and *build_id
 * set; or -1 after filling res with the project's or build's 404. */
int srv_v3_build_find(struct srv_request *req, struct srv_response *res,
		      const char *id_text, struct srv_parent *parent,
		      int64_t *build_id);
int srv_v3_build_trigger(struct srv_request *req, struct srv_response *res);
int srv_v3_build_cancel(struct srv_request *req, struct srv_response *res);

int srv_v3_subprojects_list(struct srv_request *req, struct srv_response *res);
int srv_v3_subprojects_create(struct srv_request *req,
			      struct srv_response *res);
int srv_v3_subproject_detail(struct srv_request *req,
			     struct srv_response *res);
int srv_v3_subproject_delete(struct srv_request *req,
			     struct srv_response *res);
int srv_v3_translations_list(struct srv_request *req,
			     struct srv_response *res);

/* Lectern's offline mirrors (v3_mirrors.c, docs/api.md). */
int srv_v3_mirrors_create(struct srv_request *req, struct srv_response *res);
int srv_v3_mirror_pages(struct srv_request *req, struct srv_response *res);
int srv_v3_mirror_stage(struct srv_request *req, struct srv_response *res);
int srv_v3_mirror_publish(struct srv_request *req, struct srv_response *res);

/* Lectern's page diff (v3_diff.c, docs/api.md). */
int srv_v3_diff(struct srv_request *req, struct srv_response *res);

int srv_v3_redirects_list(struct srv_request *req, struct srv_response *res);
int srv_v3_redirects_create(struct srv_request *req, struct srv_response *res);
int srv_v3_redirect_detail(struct srv_request *req, struct srv_response *res);
int srv_v3_redirect_put(struct srv_request *req, struct srv_response *res);
int srv_v3_redirect_patch(struct srv_request *req, struct srv_response *res);
int srv_v3_redirect_delete(struct srv_request *req, struct srv_response *res);

int srv_v3_envvars_list(struct srv_request *req, struct srv_response *res);
int srv_v3_envvars_create(struct srv_request *req, struct srv_response *res);
int srv_v3_envvar_detail(struct srv_request *req, struct srv_response *res);
int srv_v3_envvar_delete(struct srv_request *req, struct srv_response *res);

/* Integrations (v3_integrations.c): a Lectern extension holding incoming
 * webhooks' secrets. */
int srv_v3_integrations_list(struct srv_request *req,
			     struct srv_response *res);
int srv_v3_integrations_create(struct srv_request *req,
			       struct srv_response *res);
int srv_v3_integration_detail(struct srv_request *req,
			      struct srv_response *res);
int srv_v3_integration_delete(struct srv_request *req,
			      struct srv_response *res);
/* An incoming webhook's delivery (integrations_in.c): POST
 * /api/v2/webhook/{github,gitlab,bitbucket,generic}/<project>/ and
 * /api/v2/webhook/<project>/<integration id>/. */
int srv_incoming_webhook(struct srv_request *req, struct srv_response *res);

/* Notifications (v3_notifications.c): the user's feed, and those of a
 * project, a build, an organization; a detail handler answers GET, PATCH
 * and PUT. */
int srv_v3_notifications_list(struct srv_request *req,
			      struct srv_response *res);
int srv_v3_notification_detail(struct srv_request *req,
			       struct srv_response *res);
int srv_v3_project_notifications_list(struct srv_request *req,
				      struct srv_response *res);
int srv_v3_project_notification_detail(struct srv_request *req,
				       struct srv_response *res);
int srv_v3_build_notifications_list(struct srv_request *req,
				    struct srv_response *res);
/* v3_warnings.c: a build's warnings, and one as JSON. */
struct lec_warning;
int srv_v3_build_warnings_list(struct srv_request *req,
			       struct srv_response *res);
cJSON *srv_v3_warning(const struct lec_warning *w);
int srv_v3_build_notification_detail(struct srv_request *req,
				     struct srv_response *res);
int srv_v3_org_notifications_list(struct srv_request *req,
				  struct srv_response *res);
int srv_v3_org_notification_detail(struct srv_request *req,
				   struct srv_response *res);
int srv_v3_user_notifications_list(struct srv_request *req,
				   struct srv_response *res);
int srv_v3_user_notification_detail(struct srv_request *req,
				    struct srv_response *res);

/* Outgoing webhooks (v3_webhooks.c): a Lectern extension. */
int srv_v3_webhooks_list(struct srv_request *req, struct srv_response *res);
int srv_v3_webhooks_create(struct srv_request *req, struct srv_response *res);
int srv_v3_webhook_detail(struct srv_request *req, struct srv_response *res);
int srv_v3_webhook_update(struct srv_request *req, struct srv_response *res);
int srv_v3_webhook_delete(struct srv_request *req, struct srv_response *res);
int srv_v3_webhook_deliveries(struct srv_request *req,
			      struct srv_response *res);

int srv_v3_orgs_list(struct srv_request *req, struct srv_response *res);
int srv_v3_org_detail(struct srv_request *req, struct srv_response *res);
int srv_v3_org_projects(struct srv_request *req, struct srv_response *res);
int srv_v3_org_teams(struct srv_request *req, struct srv_response *res);
/* remote/repositories/ and remote/organizations/: the service's lists of
 * the user's connected accounts; Lectern has none, so an empty page. */
int srv_v3_remote_empty(struct srv_request *req, struct srv_response *res);

#endif
