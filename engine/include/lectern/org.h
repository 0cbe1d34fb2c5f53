/*
 * Organizations of the business edition: their owners, teams, team members,
 * the projects they hold, and the permissions these give.
 *
 * An organization has owners (who administer all of it) and teams. A team
 * has members and projects and an access level: "admin" teams administer
 * their projects, "readonly" teams may only read them. A project belongs to
 * at most one organization, and a team can only hold projects of its own
 * organization. Organization and team slugs follow the project slug rules
 * (lectern/slug.h): the slug of an organization is unique, a team's slug is
 * unique inside its organization.
 *
 * The permission helpers answer only for what organizations grant; a
 * project's own maintainers and superusers are checked by their modules.
 */
#ifndef LECTERN_ORG_H
#define LECTERN_ORG_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The service's field lengths, in characters. */
#define LEC_ORG_NAME_MAX 32
#define LEC_TEAM_NAME_MAX 100

/* Team access levels. */
#define LEC_TEAM_ACCESS_READONLY "readonly"
#define LEC_TEAM_ACCESS_ADMIN "admin"

struct lec_org {
	int64_t id;
	char *slug;
	char *name;
	char *email;
	char *description;
	char *url;
	int disabled; /* a disabled organization's projects do not build */
	int64_t created; /* microseconds since the epoch, UTC */
	int64_t modified;
};

LEC_PAGE_LIST(lec_org);

/* The fields of a new organization; strings are borrowed, NULL email,
 * description and url mean "". */
struct lec_org_fields {
	const char *name; /* required, at most LEC_ORG_NAME_MAX characters */
	const char *slug; /* NULL: made from name; else must already be one */
	const char *email;
	const char *description;
	const char *url;
};

struct lec_team {
	int64_t id;
	int64_t organization_id;
	char *slug;
	char *name;
	char *access; /* LEC_TEAM_ACCESS_READONLY or LEC_TEAM_ACCESS_ADMIN */
	int64_t created;
	int64_t modified;
};

LEC_PAGE_LIST(lec_team);

/* Usernames, sorted. */
struct lec_org_usernames {
	char **items; /* len strings, owned */
	size_t len;
};

/* Project ids of an organization, ordered by project slug. */
struct lec_org_project_ids {
	int64_t *items; /* len ids, owned */
	size_t len;
	size_t total;
};

/* Organizations ------------------------------------------------------------ */

/**
 * Create an organization owned by one user.
 * @param owner_id the first owner
 * @param out      the new organization (owned by caller, lec_org_free), or
 *                 NULL
 * @return LEC_OK; LEC_EINVALID with field "name" ("This field is
 *         required.", "This field may not be blank.", "Ensure this field has
 *         no more than 32 characters.", "Invalid organization name \"x\": no
 *         slug generated.") or "slug" (not a valid slug); LEC_EEXISTS (slug
 *         taken; field "slug" when given, else "name"); LEC_ENOTFOUND (no
 *         such owner)
 */
int lec_org_create(struct lec_store *store, const struct lec_org_fields *in,
		   int64_t owner_id, struct lec_org **out);

/** An organization by slug. @return LEC_OK or LEC_ENOTFOUND */
int lec_org_get(struct lec_store *store, const char *slug,
		struct lec_org **out);

/**
 * The organizations a user owns or is in a team of, ordered by name.
 * @param page NULL for all
 * @param out  filled; release with lec_org_list_dispose
 */
int lec_org_list_for_user(struct lec_store *store, int64_t user_id,
			  const struct lec_page *page,
			  struct lec_org_list *out);

/** Disable or enable an organization. @return LEC_OK or LEC_ENOTFOUND */
int lec_org_set_disabled(struct lec_store *store, int64_t org_id,
			 int disabled);

/* Owners ------------------------------------------------------------------- */

/** Make a user an owner. @return LEC_OK; LEC_EEXISTS; LEC_ENOTFOUND */
int lec_org_owner_add(struct lec_store *store, int64_t org_id,
		      int64_t user_id);

/**
 * Remove an owner.
 * @return LEC_OK; LEC_ENOTFOUND (not an owner); LEC_EINVALID (the last
 *         owner: an organization always keeps one)
 */
int lec_org_owner_remove(struct lec_store *store, int64_t org_id,
			 int64_t user_id);

/** The owners' usernames, sorted; release with lec_org_usernames_dispose. */
int lec_org_owner_list(struct lec_store *store, int64_t org_id,
		       struct lec_org_usernames *out);

/* Projects ----------------------------------------------------------------- */

/**
 * Put a project into an organization.
 * @return LEC_OK; LEC_EEXISTS (the project is already in an organization,
 *         this one or another); LEC_ENOTFOUND (no such organization or
 *         project)
 */
int lec_org_project_add(struct lec_store *store, int64_t org_id,
			int64_t project_id);

/**
 * The organization a project belongs to.
 * @param out owned by caller (lec_org_free)
 * @return LEC_OK or LEC_ENOTFOUND (the project is in none)
 */
int lec_org_of_project(struct lec_store *store, int64_t project_id,
		       struct lec_org **out);

/**
 * The ids of an organization's projects, ordered by project slug.
 * @param page NULL for all
 * @param out  filled; release with lec_org_project_ids_dispose
 */
int lec_org_project_ids(struct lec_store *store, int64_t org_id,
			const struct lec_page *page,
			struct lec_org_project_ids *out);

/* Teams -------------------------------------------------------------------- */

/**
 * Create a team; its slug is made from the name.
 * @param access LEC_TEAM_ACCESS_READONLY, LEC_TEAM_ACCESS_ADMIN, or NULL for
 *               readonly
 * @param out    the new team (owned by caller, lec_team_free), or NULL
 * @return LEC_OK; LEC_EINVALID (field "name" as for organizations, at most
 *         LEC_TEAM_NAME_MAX characters; field "access" "\"x\" is not a valid
 *         choice."); LEC_EEXISTS (slug taken in the organization, field
 *         "name"); LEC_ENOTFOUND (no such organization)
 */
int lec_team_create(struct lec_store *store, int64_t org_id, const char *name,
		    const char *access, struct lec_team **out);

/** A team of an organization by slug. @return LEC_OK or LEC_ENOTFOUND */
int lec_team_get(struct lec_store *store, int64_t org_id, const char *slug,
		 struct lec_team **out);

/**
 * The teams that hold a project, ordered by name.
 * @param out filled; release with lec_team_list_dispose
 */
int lec_team_list_for_project(struct lec_store *store, int64_t project_id,
			      struct lec_team_list *out);

/** An organization's teams ordered by name. @param page NULL for all */
int lec_team_list(struct lec_store *store, int64_t org_id,
		  const struct lec_page *page, struct lec_team_list *out);

/** Add a member. @return LEC_OK; LEC_EEXISTS; LEC_ENOTFOUND */
int lec_team_member_add(struct lec_store *store, int64_t team_id,
			int64_t user_id);

/** Remove a member. @return LEC_OK or LEC_ENOTFOUND (not a member) */
int lec_team_member_remove(struct lec_store *store, int64_t team_id,
			   int64_t user_id);

/** The members' usernames, sorted; release with lec_org_usernames_dispose. */
int lec_team_member_list(struct lec_store *store, int64_t team_id,
			 struct lec_org_usernames *out);

/**
 * Give a team a project of its organization.
 * @return LEC_OK; LEC_EEXISTS; LEC_ENOTFOUND (no such team or project);
 *         LEC_EINVALID (the project is not in the team's organization)
 */
int lec_team_project_add(struct lec_store *store, int64_t team_id,
			 int64_t project_id);

/** Take a project from a team. @return LEC_OK or LEC_ENOTFOUND */
int lec_team_project_remove(struct lec_store *store, int64_t team_id,
			    int64_t project_id);

/* Permissions -------------------------------------------------------------- */

/** *out = whether the user owns the organization. */
int lec_org_is_owner(struct lec_store *store, int64_t org_id, int64_t user_id,
		     int *out);

/**
 * *out = whether the user administers the project through its
 * organization: an owner of it, or a member of an admin team holding the
 * project.
 */
int lec_org_is_project_admin(struct lec_store *store, int64_t project_id,
			     int64_t user_id, int *out);

/**
 * *out = whether the user may read the project through its organization:
 * an owner of it, or a member of any team holding the project.
 */
int lec_org_can_read_project(struct lec_store *store, int64_t project_id,
			     int64_t user_id, int *out);

/* Freeing ------------------------------------------------------------------ */

/** Free an organization. Accepts NULL. */
void lec_org_free(struct lec_org *org);
/** Free what a list holds (not the list struct). Accepts NULL. */
void lec_org_list_dispose(struct lec_org_list *list);
/** Free a team. Accepts NULL. */
void lec_team_free(struct lec_team *team);
void lec_team_list_dispose(struct lec_team_list *list);
void lec_org_usernames_dispose(struct lec_org_usernames *names);
void lec_org_project_ids_dispose(struct lec_org_project_ids *ids);

#ifdef __cplusplus
}
#endif
#endif
