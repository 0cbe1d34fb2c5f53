/*
 * The v3 API's handlers and serializers, shared across the v3_*.c files.
 * Serializers build the service's exact objects (behaviour notes §1.5);
 * handlers implement the endpoints of contract §4.1–4.9 with the status
 * codes and rules of notes §1.6–§2.
 */
#ifndef LECTERN_SRV_V3_H
#define LECTERN_SRV_V3_H

#include "lectern/addons.h"
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
/* A Build; project and version give the slugs (version may be NULL: a
 * deleted one), the version its type too. */
cJSON *srv_v3_build(struct srv_request *req, const struct lec_project *p,
		    const struct lec_build *b, const struct lec_version *v,
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
/* The documentation URL of version v of p: srv_docs_url's, or for a pull
 * request's version the URL on its own host (lec_resolve_external_url). */
char *srv_version_docs_url(struct srv_request *req,
			   const struct lec_project *p,
			   const struct lec_version *v);

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

/* A page of a nested list being filled: what a list's fill reads, and
 * where it puts what it finds. */
struct srv_v3_fill {
	struct srv_request *req;
	struct srv_response *res; /* filled by a fill that fails */
	const struct srv_parent *parent;
	const struct lec_page *page;
	const struct srv_flex *flex;
	cJSON *results; /* the page's items, added in order */
	size_t total;   /* set by the fill: the count of all the items */
};

/* A nested list: the parent it hangs from and how to fill a page. */
struct srv_v3_list {
	enum srv_parent_kind parent;
	int flex; /* reads fields/omit/expand (400 on a bad expand) */
	/* Add the page's items to f->results and set f->total. Returns 0,
	 * or -1 after filling f->res. */
	int (*fill)(struct srv_v3_fill *f);
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
/* A DELETE of an object of the project in the path, by the id in
 * params[1]. */
struct srv_v3_delete {
	int (*del)(struct lec_store *store, int64_t project_id, int64_t id);
	/* The 404's detail when del finds no such object; NULL: the
	 * engine's message. */
	const char *not_found;
};

/* Answer a DELETE: the project's 404 first, then the id's; 204, the 404
 * or the engine's error. Returns res->status. */
int srv_v3_respond_delete(struct srv_request *req, struct srv_response *res,
			  const struct srv_v3_delete *delete);
/* What a write's apply returns when it has filled res itself (a body's
 * 400, say): positive, so no engine code. */
#define SRV_V3_ANSWERED 1

/* A nested write (POST, PATCH, PUT): the parent it hangs from, the object
 * the path names if any, and how the body changes it. */
struct srv_v3_write {
	enum srv_parent_kind parent;
	/* params[1] is an integer id, read into find's and apply's id (404
	 * "Not found." for one that is not, notes §0.4); else id is 0. */
	int by_id;
	/* The object's lookup before the body is read, so that a missing
	 * one is a 404 whatever the body: LEC_OK, LEC_ENOTFOUND or another
	 * engine code. NULL: nothing to look up (a create). */
	int (*find)(struct srv_request *req, const struct srv_parent *parent,
		    int64_t id);
	/* Read body and write: LEC_OK with the answer in *out (none for a
	 * 204), SRV_V3_ANSWERED after filling res, or an engine code. */
	int (*apply)(struct srv_request *req, struct srv_response *res,
		     const struct srv_parent *parent, int64_t id, cJSON *body,
		     cJSON **out);
	int status;            /* of the answer: 201, 200 or 204 (no body) */
	const char *not_found; /* the 404's detail; NULL: the engine's */
	/* A body key holding a secret, its copy wiped before the body is
	 * freed; or NULL. */
	const char *secret;
};

/* Answer a nested write: the parent looked up first (its 404), then the
 * id and the object (its 404), then the body (its 400) and the change.
 * Returns res->status. */
int srv_v3_respond_write(struct srv_request *req, struct srv_response *res,
			 const struct srv_v3_write *write);
/* Handlers that are one call of a helper above, each with its
 * description as the initializer's fields (designated). */
#define SRV_V3_HANDLER(handler, kind, respond, ...)                        \
	int handler(struct srv_request *req, struct srv_response *res)     \
	{                                                                  \
		static const struct kind what = { __VA_ARGS__ };           \
		return respond(req, res, &what);                           \
	}
#define SRV_V3_LIST(handler, ...) \
	SRV_V3_HANDLER(handler, srv_v3_list, srv_v3_respond_list, __VA_ARGS__)
#define SRV_V3_DETAIL(handler, ...)                                 \
	SRV_V3_HANDLER(handler, srv_v3_detail, srv_v3_respond_detail, \
		       __VA_ARGS__)
#define SRV_V3_WRITE(handler, ...)                                \
	SRV_V3_HANDLER(handler, srv_v3_write, srv_v3_respond_write, \
		       __VA_ARGS__)
#define SRV_V3_DELETE(handler, ...)                                 \
	SRV_V3_HANDLER(handler, srv_v3_delete, srv_v3_respond_delete, \
		       __VA_ARGS__)

/* The usual fill of a list (struct srv_v3_list) as a static function
 * name: call, the engine's list of lec_<type>s into `list` (a struct
 * lec_<type>_list), then each of its items, `item`, as object. Both
 * expressions may use the fill's req, parent, page and flex. */
#define SRV_V3_FILL(name, type, call, object)                              \
	static int name(struct srv_v3_fill *f)                             \
	{                                                                  \
		struct srv_request *req = f->req;                          \
		const struct srv_parent *parent = f->parent;               \
		const struct lec_page *page = f->page;                     \
		const struct srv_flex *flex = f->flex;                     \
		struct type##_list list = { 0 };                           \
		size_t i;                                                  \
		int rc;                                                    \
									   \
		(void)parent;                                              \
		(void)page;                                                \
		(void)flex;                                                \
		if ((rc = (call)) < 0)                                     \
			return srv_respond_engine_error(f->res, rc), -1;   \
		for (i = 0; i < list.len; i++) {                           \
			const struct type *item = &list.items[i];          \
									   \
			cJSON_AddItemToArray(f->results, (object));        \
		}                                                          \
		f->total = list.total;                                     \
		type##_list_dispose(&list);                                \
		return 0;                                                  \
	}

/* The usual show of a detail (struct srv_v3_detail) as a static function
 * name: get, the engine's lookup of a lec_<type> into `item` (freed with
 * lec_<type>_free), then item as object. Both expressions may use the
 * show's parameters (req, parent, id, flex). */
#define SRV_V3_SHOW(name, type, get, object)                               \
	static int name(struct srv_request *req,                           \
			const struct srv_parent *parent, int64_t id,       \
			const struct srv_flex *flex, cJSON **out)          \
	{                                                                  \
		struct type *item = NULL;                                  \
		int rc = (get);                                            \
									   \
		(void)id;                                                  \
		(void)flex;                                                \
		if (rc == LEC_OK)                                          \
			*out = (object);                                   \
		type##_free(item);                                         \
		return rc;                                                 \
	}

/* The usual find of a write (struct srv_v3_write) as a static function
 * name: get, the engine's lookup of a lec_<type> into `item`, whose
 * answer it returns (the item freed). */
#define SRV_V3_FIND(name, type, get)                                       \
	static int name(struct srv_request *req,                           \
			const struct srv_parent *parent, int64_t id)       \
	{                                                                  \
		struct type *item = NULL;                                  \
		int rc = (get);                                            \
									   \
		type##_free(item);                                         \
		return rc;                                                 \
	}

/* A secret the engine generated for a new object: shown once, as "secret"
 * in the 201's object o (NULL: a failed create, shown nowhere), then
 * wiped and freed. Accepts a NULL secret. */
void srv_v3_secret_once(cJSON *o, char *secret);
/* Answer the engine's code rc of a failed step: the 404 with not_found
 * for LEC_ENOTFOUND (NULL: the engine's "Not found."), else the engine's
 * error. Returns res->status. */
int srv_v3_respond_error(struct srv_response *res, int rc,
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

srv_handler_fn srv_v3_root;

srv_handler_fn srv_v3_projects_list;
srv_handler_fn srv_v3_projects_create;
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
srv_handler_fn srv_v3_project_detail;
srv_handler_fn srv_v3_project_update;
/* Lectern's builds across the requester's projects, where their waiting
 * builds stand in the queue, and the instance's build activity
 * (v3_queue.c, docs/api.md). */
srv_handler_fn srv_v3_all_builds_list;
srv_handler_fn srv_v3_build_queue;
srv_handler_fn srv_v3_build_activity;
/* Lectern's status of the instance: version, workers, builds waiting and
 * running (v3_status.c, docs/api.md). */
srv_handler_fn srv_v3_status;
/* Lectern's DELETE of a project with everything of it (docs/api.md). */
srv_handler_fn srv_v3_project_delete;
srv_handler_fn srv_v3_project_superproject;
srv_handler_fn srv_v3_project_sync_versions;

srv_handler_fn srv_v3_versions_list;
srv_handler_fn srv_v3_version_detail;
srv_handler_fn srv_v3_version_update;
/* v3_pages.c: a version's pages (a Lectern extension). */
srv_handler_fn srv_v3_version_pages_list;

srv_handler_fn srv_v3_builds_list;
srv_handler_fn srv_v3_build_detail;
srv_handler_fn srv_v3_version_builds_list;
srv_handler_fn srv_v3_version_build_detail;
/* The build id_text of the project params[0], visible to the requester
 * (its version's visibility): *parent filled (dispose it) and *build_id
 * set; or -1 after filling res with the project's or build's 404. */
int srv_v3_build_find(struct srv_request *req, struct srv_response *res,
		      const char *id_text, struct srv_parent *parent,
		      int64_t *build_id);
srv_handler_fn srv_v3_build_trigger;
/* POST /api/v3/projects/<p>/previews/ {"branch"} (v3_previews.c). */
srv_handler_fn srv_v3_preview_create;
srv_handler_fn srv_v3_build_cancel;

srv_handler_fn srv_v3_subprojects_list;
srv_handler_fn srv_v3_subprojects_create;
srv_handler_fn srv_v3_subproject_detail;
srv_handler_fn srv_v3_subproject_delete;
srv_handler_fn srv_v3_translations_list;

/* Lectern's offline mirrors (v3_mirrors.c, docs/api.md). */
srv_handler_fn srv_v3_mirrors_create;
srv_handler_fn srv_v3_mirror_pages;
srv_handler_fn srv_v3_mirror_stage;
srv_handler_fn srv_v3_mirror_publish;

/* Lectern's addon settings of a project (v3_addons.c, docs/api.md). */
int srv_v3_project_addons(struct srv_request *req, struct srv_response *res);
int srv_v3_project_addons_update(struct srv_request *req,
				 struct srv_response *res);
/* Change the settings of project_id that body (a parsed request body,
 * srv_parse_body) names, as the v3 PATCH does: patch gets what was read
 * (its texts borrowed from body), checked and applied by
 * lec_addons_update. html_form reads a dashboard form as a browser sends
 * it (an unchecked box is off, an empty field none). 0, or -1 with res
 * filled: a 400 naming the setting, or another error. */
int srv_v3_addons_apply(struct srv_request *req, struct srv_response *res,
			int64_t project_id, const cJSON *body, int html_form,
			struct lec_addons_patch *patch);
/* Lectern's page diff (v3_diff.c, docs/api.md). */
srv_handler_fn srv_v3_diff;

srv_handler_fn srv_v3_redirects_list;
srv_handler_fn srv_v3_redirects_create;
srv_handler_fn srv_v3_redirect_detail;
srv_handler_fn srv_v3_redirect_put;
srv_handler_fn srv_v3_redirect_patch;
srv_handler_fn srv_v3_redirect_delete;

srv_handler_fn srv_v3_envvars_list;
srv_handler_fn srv_v3_envvars_create;
srv_handler_fn srv_v3_envvar_detail;
srv_handler_fn srv_v3_envvar_delete;

/* Integrations (v3_integrations.c): a Lectern extension holding incoming
 * webhooks' secrets. */
srv_handler_fn srv_v3_integrations_list;
srv_handler_fn srv_v3_integrations_create;
srv_handler_fn srv_v3_integration_detail;
srv_handler_fn srv_v3_integration_delete;
/* An incoming webhook's delivery (integrations_in.c): POST
 * /api/v2/webhook/{github,gitlab,bitbucket,generic}/<project>/ and
 * /api/v2/webhook/<project>/<integration id>/. */
srv_handler_fn srv_incoming_webhook;

/* Notifications (v3_notifications.c): the user's feed, and those of a
 * project, a build, an organization; a detail handler answers GET, PATCH
 * and PUT. */
srv_handler_fn srv_v3_notifications_list;
srv_handler_fn srv_v3_notification_detail;
srv_handler_fn srv_v3_project_notifications_list;
srv_handler_fn srv_v3_project_notification_detail;
srv_handler_fn srv_v3_build_notifications_list;
/* v3_warnings.c: a build's warnings, and one as JSON. */
struct lec_warning;
srv_handler_fn srv_v3_build_warnings_list;
cJSON *srv_v3_warning(const struct lec_warning *w);
srv_handler_fn srv_v3_build_notification_detail;
srv_handler_fn srv_v3_org_notifications_list;
srv_handler_fn srv_v3_org_notification_detail;
srv_handler_fn srv_v3_user_notifications_list;
srv_handler_fn srv_v3_user_notification_detail;

/* Outgoing webhooks (v3_webhooks.c): a Lectern extension. */
srv_handler_fn srv_v3_webhooks_list;
srv_handler_fn srv_v3_webhooks_create;
srv_handler_fn srv_v3_webhook_detail;
srv_handler_fn srv_v3_webhook_update;
srv_handler_fn srv_v3_webhook_delete;
srv_handler_fn srv_v3_webhook_deliveries;

srv_handler_fn srv_v3_orgs_list;
srv_handler_fn srv_v3_org_detail;
srv_handler_fn srv_v3_org_projects;
srv_handler_fn srv_v3_org_teams;
/* remote/repositories/ and remote/organizations/: the service's lists of
 * the user's connected accounts; Lectern has none, so an empty page. */
srv_handler_fn srv_v3_remote_empty;

#endif
