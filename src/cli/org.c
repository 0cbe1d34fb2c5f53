/*
 * Engine-direct organization commands of the business edition: create
 * organizations, give them owners, teams, team members and projects, and
 * list them. Like `token create` they open the store themselves: the HTTP
 * API only reads organizations, so these are how an instance gets any.
 *
 * Every command names what it could not find or do in one line on stderr
 * and exits 1; a malformed command line prints the usage and exits 2.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lectern/errors.h"
#include "lectern/org.h"
#include "lectern/project.h"
#include "lectern/store.h"
#include "lectern/timefmt.h"
#include "lectern/user.h"

/* Command lines ----------------------------------------------------------- */

/* An option taking a value ("--owner USER" or "--owner=USER"). */
struct opt {
	const char *name;
	const char **value;
};

static int usage(const char *name, const char *args)
{
	const struct cli_command cmd = { name, args, "", NULL, NULL, NULL };

	return cli_usage(&cmd);
}

/* Option value of argv[*i] when it is the option opt, advancing *i past a
 * separate value: 1 taken, 0 not this option, -1 the value is missing. */
static int take_option(const struct opt *opt, int argc, char **argv, int *i)
{
	size_t n = strlen(opt->name);

	if (strcmp(argv[*i], opt->name) == 0) {
		if (*i + 1 >= argc)
			return -1;
		*opt->value = argv[++*i];
		return 1;
	}
	if (strncmp(argv[*i], opt->name, n) == 0 && argv[*i][n] == '=') {
		*opt->value = argv[*i] + n + 1;
		return 1;
	}
	return 0;
}

/* Split argv into exactly npos positional arguments and the options of
 * opts (each at most once, any order). 0, or -1 for a malformed line. */
static int parse_args(int argc, char **argv, const struct opt *opts,
		      size_t nopts, const char **pos, size_t npos)
{
	size_t got = 0, k;
	int i, taken;

	for (i = 0; i < argc; i++) {
		if (argv[i][0] != '-') {
			if (got == npos)
				return -1;
			pos[got++] = argv[i];
			continue;
		}
		for (k = 0, taken = 0; k < nopts && taken == 0; k++)
			taken = take_option(&opts[k], argc, argv, &i);
		if (taken != 1)
			return -1;
	}
	return got == npos ? 0 : -1;
}

/* Lookups: each reports what it did not find. ----------------------------- */

/* What a lookup's code says: found, not there (naming what was asked for
 * as kind and name say it), or the engine failed. */
static int looked_up(int rc, const char *kind, const char *name)
{
	char what[64]; /* "cannot read the organization", the longest kind */

	if (rc == LEC_ENOTFOUND)
		return cli_fail("no %s '%s'", kind, name);
	if (rc >= 0)
		return CLI_EXIT_OK;
	snprintf(what, sizeof(what), "cannot read the %s", kind);
	return cli_fail_engine(what);
}

static int get_org(struct lec_store *store, const char *slug,
		   struct lec_org **out)
{
	return looked_up(lec_org_get(store, slug, out), "organization", slug);
}

static int get_user(struct lec_store *store, const char *name,
		    struct lec_user **out)
{
	return looked_up(lec_user_get(store, name, out), "user", name);
}

static int get_project(struct lec_store *store, const char *slug,
		       struct lec_project **out)
{
	return looked_up(lec_project_get(store, slug, out), "project", slug);
}

static int get_team(struct lec_store *store, const struct lec_org *org,
		    const char *slug, struct lec_team **out)
{
	int rc = lec_team_get(store, org->id, slug, out);

	if (rc == LEC_ENOTFOUND)
		return cli_fail("no team '%s' in organization '%s'", slug,
				org->slug);
	return looked_up(rc, "team", slug);
}

/* An engine validation error with the field it concerns, so "name: Ensure
 * this field has no more than 32 characters." says which value was wrong. */
static int fail_validation(const char *what)
{
	const char *field = lec_error_last_field();

	if (lec_error_last_code() == LEC_EINVALID && field)
		return cli_fail("%s: %s: %s", what, field, lec_error_last());
	return cli_fail_engine(what);
}

/* org create -------------------------------------------------------------- */

int cli_cmd_org_create(struct cli_ctx *ctx, int argc, char **argv)
{
	struct lec_org_fields fields = { 0 };
	const char *slug = NULL, *owner_name = NULL;
	const struct opt opts[] = {
		{ "--owner", &owner_name },
		{ "--name", &fields.name },
		{ "--email", &fields.email },
	};
	struct lec_store *store;
	struct lec_user *owner = NULL;
	struct lec_org *org = NULL;
	int status, created_owner = 0;

	if (parse_args(argc, argv, opts, 3, &slug, 1) < 0 ||
	    owner_name == NULL)
		return usage("org create", CLI_ORG_CREATE_ARGS);
	if ((store = cli_store(ctx)) == NULL)
		return CLI_EXIT_FAIL;
	/* A taken slug is refused before the owner is created. */
	if (lec_org_get(store, slug, &org) == LEC_OK) {
		status = cli_fail("organization '%s' already exists", slug);
		goto done;
	}
	if (lec_user_get(store, owner_name, &owner) == LEC_ENOTFOUND) {
		if (lec_user_create(store, owner_name, &owner) < 0) {
			status = cli_fail_engine("cannot create the owner");
			goto done;
		}
		created_owner = 1;
	} else if (owner == NULL) {
		status = cli_fail_engine("cannot read the owner");
		goto done;
	}
	fields.slug = slug;
	if (fields.name == NULL)
		fields.name = slug;
	if (lec_org_create(store, &fields, owner->id, &org) < 0) {
		status = fail_validation("cannot create the organization");
		/* Leave the store as it was: no owner without its
		 * organization. */
		if (created_owner)
			lec_user_delete(store, owner->id);
		goto done;
	}
	printf("%s\n", org->slug);
	status = CLI_EXIT_OK;
done:
	lec_org_free(org);
	lec_user_free(owner);
	return status;
}

/* org list ---------------------------------------------------------------- */

/* Every organization, ordered by name then slug. */
struct all_orgs {
	struct lec_org *items; /* len items, owned */
	size_t len;
};

static void all_orgs_dispose(struct all_orgs *all)
{
	size_t i;

	for (i = 0; i < all->len; i++) {
		free(all->items[i].slug);
		free(all->items[i].name);
		free(all->items[i].email);
		free(all->items[i].description);
		free(all->items[i].url);
	}
	free(all->items);
}

static int by_name(const void *a, const void *b)
{
	const struct lec_org *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->slug, y->slug);
}

/* Move the organizations of list that all lacks into all. */
static int merge_orgs(struct all_orgs *all, struct lec_org_list *list)
{
	struct lec_org *grown;
	size_t i, k;

	grown = realloc(all->items, (all->len + list->len + 1) * sizeof(*grown));
	if (grown == NULL)
		return LEC_ENOMEM;
	all->items = grown;
	for (i = 0; i < list->len; i++) {
		for (k = 0; k < all->len; k++)
			if (all->items[k].id == list->items[i].id)
				break;
		if (k < all->len)
			continue;
		all->items[all->len++] = list->items[i];
		memset(&list->items[i], 0, sizeof(list->items[i]));
	}
	return LEC_OK;
}

/* The engine lists organizations per user; every organization keeps at
 * least one owner, so the union over all users holds every one. */
static int collect_orgs(struct lec_store *store, struct all_orgs *out)
{
	struct lec_user_list users = { 0 };
	struct lec_org_list list = { 0 };
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = lec_user_list(store, NULL, &users);
	for (i = 0; rc == LEC_OK && i < users.len; i++) {
		rc = lec_org_list_for_user(store, users.items[i].id, NULL,
					   &list);
		if (rc == LEC_OK)
			rc = merge_orgs(out, &list);
		lec_org_list_dispose(&list);
	}
	lec_user_list_dispose(&users);
	if (rc < 0) {
		all_orgs_dispose(out);
		memset(out, 0, sizeof(*out));
		return rc;
	}
	if (out->len)
		qsort(out->items, out->len, sizeof(*out->items), by_name);
	return LEC_OK;
}

static cJSON *names_json(const struct lec_org_usernames *names)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; a && i < names->len; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(names->items[i]));
	return a;
}

/* [{"slug","name","access","members":[...]}] of the organization. */
static int teams_json(struct lec_store *store, const struct lec_org *org,
		      cJSON *out)
{
	struct lec_team_list teams = { 0 };
	struct lec_org_usernames members = { 0 };
	size_t i;
	int rc;

	if (out == NULL)
		return LEC_ENOMEM;
	rc = lec_team_list(store, org->id, NULL, &teams);
	for (i = 0; rc == LEC_OK && i < teams.len; i++) {
		cJSON *t = cJSON_CreateObject();

		if ((rc = lec_team_member_list(store, teams.items[i].id,
					       &members)) < 0) {
			cJSON_Delete(t);
			break;
		}
		cJSON_AddStringToObject(t, "slug", teams.items[i].slug);
		cJSON_AddStringToObject(t, "name", teams.items[i].name);
		cJSON_AddStringToObject(t, "access", teams.items[i].access);
		cJSON_AddItemToObject(t, "members", names_json(&members));
		cJSON_AddItemToArray(out, t);
		lec_org_usernames_dispose(&members);
	}
	lec_team_list_dispose(&teams);
	return rc;
}

/* The slugs of the organization's projects, ordered by slug. */
static int projects_json(struct lec_store *store, const struct lec_org *org,
			 cJSON *out)
{
	struct lec_org_project_ids ids = { 0 };
	struct lec_project *p;
	size_t i;
	int rc;

	if (out == NULL)
		return LEC_ENOMEM;
	rc = lec_org_project_ids(store, org->id, NULL, &ids);
	for (i = 0; rc == LEC_OK && i < ids.len; i++) {
		if ((rc = lec_project_get_by_id(store, ids.items[i], &p)) < 0)
			break;
		cJSON_AddItemToArray(out, cJSON_CreateString(p->slug));
		lec_project_free(p);
	}
	lec_org_project_ids_dispose(&ids);
	return rc;
}

static int org_json(struct lec_store *store, const struct lec_org *org,
		    cJSON **out)
{
	struct lec_org_usernames owners = { 0 };
	char when[LEC_TIME_ISO_MAX];
	cJSON *o = cJSON_CreateObject();
	int rc;

	*out = NULL;
	if (o == NULL)
		return LEC_ENOMEM;
	if ((rc = lec_org_owner_list(store, org->id, &owners)) < 0) {
		cJSON_Delete(o);
		return rc;
	}
	lec_time_iso8601(org->created, when);
	cJSON_AddStringToObject(o, "slug", org->slug);
	cJSON_AddStringToObject(o, "name", org->name);
	cJSON_AddStringToObject(o, "email", org->email);
	cJSON_AddBoolToObject(o, "disabled", org->disabled);
	cJSON_AddItemToObject(o, "owners", names_json(&owners));
	lec_org_usernames_dispose(&owners);
	if ((rc = teams_json(store, org,
			     cJSON_AddArrayToObject(o, "teams"))) < 0 ||
	    (rc = projects_json(store, org,
				cJSON_AddArrayToObject(o, "projects"))) < 0) {
		cJSON_Delete(o);
		return rc;
	}
	cJSON_AddStringToObject(o, "created", when);
	*out = o;
	return LEC_OK;
}

static int print_orgs_json(struct lec_store *store, const struct all_orgs *all)
{
	cJSON *root = cJSON_CreateArray();
	char *text = NULL;
	size_t i;
	int status = CLI_EXIT_OK;

	for (i = 0; root && i < all->len; i++) {
		cJSON *o;

		if (org_json(store, &all->items[i], &o) < 0) {
			status = cli_fail_engine("cannot read an organization");
			goto done;
		}
		cJSON_AddItemToArray(root, o);
	}
	if (root == NULL || (text = cJSON_PrintUnformatted(root)) == NULL) {
		status = cli_fail("out of memory");
		goto done;
	}
	printf("%s\n", text);
done:
	cJSON_free(text);
	cJSON_Delete(root);
	return status;
}

/* SLUG, NAME and the owners, comma-separated. */
static int print_orgs_table(struct lec_store *store,
			    const struct all_orgs *all)
{
	struct lec_org_usernames owners = { 0 };
	size_t i, k;

	printf("%-24s %-32s %s\n", "SLUG", "NAME", "OWNERS");
	for (i = 0; i < all->len; i++) {
		if (lec_org_owner_list(store, all->items[i].id, &owners) < 0)
			return cli_fail_engine("cannot read the owners");
		cli_print(stdout, "%-24s %-32s ", all->items[i].slug,
			  all->items[i].name);
		for (k = 0; k < owners.len; k++)
			cli_print(stdout, "%s%s", k ? "," : "", owners.items[k]);
		putchar('\n');
		lec_org_usernames_dispose(&owners);
	}
	return CLI_EXIT_OK;
}

int cli_cmd_org_list(struct cli_ctx *ctx, int argc, char **argv)
{
	struct lec_store *store;
	struct all_orgs all;
	int status;

	if (argc > 1 || (argc == 1 && strcmp(argv[0], "--json") != 0))
		return usage("org list", CLI_ORG_LIST_ARGS);
	if ((store = cli_store(ctx)) == NULL)
		return CLI_EXIT_FAIL;
	if (collect_orgs(store, &all) < 0)
		return cli_fail_engine("cannot list organizations");
	status = argc == 1 ? print_orgs_json(store, &all)
			   : print_orgs_table(store, &all);
	all_orgs_dispose(&all);
	return status;
}

/* Memberships -------------------------------------------------------------- */

/* The refusal of a project that already has an organization, naming it. */
static int fail_project_taken(struct lec_store *store,
			      const struct lec_project *p)
{
	struct lec_org *owner_org = NULL;
	int status;

	if (lec_org_of_project(store, p->id, &owner_org) == LEC_OK)
		status = cli_fail("project '%s' already belongs to "
				  "organization '%s'",
				  p->slug, owner_org->slug);
	else
		status = cli_fail("project '%s' already belongs to an "
				  "organization",
				  p->slug);
	lec_org_free(owner_org);
	return status;
}

/* A command that adds a user or a project to an organization or to one
 * of its teams: `name ORG [TEAM] USER|PROJECT`. */
struct membership {
	const char *name, *args;       /* the command line and its usage */
	int with_team;                 /* the group is TEAM of ORG */
	int of_project;                /* the member is a PROJECT, not a USER */
	int (*add)(struct lec_store *store, int64_t group_id,
		   int64_t member_id);
	const char *already;           /* "user 'u' <already> 'group'"; NULL:
					* fail_project_taken */
	const char *not_in_org;        /* "project 'p' <not_in_org> 'org'"
					* for LEC_EINVALID; NULL: none */
	const char *cannot;            /* what an engine failure says */
};

/* What a membership command names, looked up. */
struct named {
	struct lec_store *store;
	struct lec_org *org;
	struct lec_team *team;       /* with_team */
	struct lec_user *user;       /* or project */
	struct lec_project *project;
};

/* Read the command line into n, each name looked up in turn and reported
 * if missing. CLI_EXIT_OK, or the status to exit with (dispose n either
 * way). */
static int named_load(struct cli_ctx *ctx, int argc, char **argv,
		      const struct membership *m, struct named *n)
{
	const char *pos[3];
	size_t npos = m->with_team ? 3 : 2;
	int status;

	memset(n, 0, sizeof(*n));
	if (parse_args(argc, argv, NULL, 0, pos, npos) < 0)
		return usage(m->name, m->args);
	if ((n->store = cli_store(ctx)) == NULL)
		return CLI_EXIT_FAIL;
	if ((status = get_org(n->store, pos[0], &n->org)) != CLI_EXIT_OK ||
	    (m->with_team && (status = get_team(n->store, n->org, pos[1],
						&n->team)) != CLI_EXIT_OK))
		return status;
	if (m->of_project)
		return get_project(n->store, pos[npos - 1], &n->project);
	return get_user(n->store, pos[npos - 1], &n->user);
}

static void named_dispose(struct named *n)
{
	lec_project_free(n->project);
	lec_user_free(n->user);
	lec_team_free(n->team);
	lec_org_free(n->org);
}

static int membership_add(struct cli_ctx *ctx, int argc, char **argv,
			  const struct membership *m)
{
	const char *kind = m->of_project ? "project" : "user", *who;
	struct named n;
	int status, rc;

	if ((status = named_load(ctx, argc, argv, m, &n)) != CLI_EXIT_OK)
		goto done;
	who = m->of_project ? n.project->slug : n.user->username;
	rc = m->add(n.store, m->with_team ? n.team->id : n.org->id,
		    m->of_project ? n.project->id : n.user->id);
	if (rc == LEC_EINVALID && m->not_in_org)
		status = cli_fail("%s '%s' %s '%s'", kind, who, m->not_in_org,
				  n.org->slug);
	else if (rc == LEC_EEXISTS && m->already == NULL)
		status = fail_project_taken(n.store, n.project);
	else if (rc == LEC_EEXISTS)
		status = cli_fail("%s '%s' %s '%s'", kind, who, m->already,
				  m->with_team ? n.team->slug : n.org->slug);
	else if (rc < 0)
		status = cli_fail_engine(m->cannot);
done:
	named_dispose(&n);
	return status;
}

#define MEMBERSHIP_COMMAND(fn, ...)                                        \
	int fn(struct cli_ctx *ctx, int argc, char **argv)                 \
	{                                                                  \
		static const struct membership m = { __VA_ARGS__ };        \
		return membership_add(ctx, argc, argv, &m);                \
	}

MEMBERSHIP_COMMAND(cli_cmd_org_owner_add, .name = "org owner add",
		   .args = CLI_ORG_OWNER_ADD_ARGS, .add = lec_org_owner_add,
		   .already = "is already an owner of",
		   .cannot = "cannot add the owner")
MEMBERSHIP_COMMAND(cli_cmd_org_team_add, .name = "org team add",
		   .args = CLI_ORG_TEAM_ADD_ARGS, .with_team = 1,
		   .add = lec_team_member_add,
		   .already = "is already a member of team",
		   .cannot = "cannot add the member")
MEMBERSHIP_COMMAND(cli_cmd_org_project_add, .name = "org project add",
		   .args = CLI_ORG_PROJECT_ADD_ARGS, .of_project = 1,
		   .add = lec_org_project_add,
		   .cannot = "cannot add the project")
MEMBERSHIP_COMMAND(cli_cmd_org_team_project_add,
		   .name = "org team project add",
		   .args = CLI_ORG_TEAM_PROJECT_ADD_ARGS, .with_team = 1,
		   .of_project = 1, .add = lec_team_project_add,
		   .already = "is already in team",
		   .not_in_org = "is not in organization",
		   .cannot = "cannot add the project to the team")

/* Teams -------------------------------------------------------------------- */

int cli_cmd_org_team_create(struct cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[2], *access = NULL;
	const struct opt opts[] = { { "--access", &access } };
	struct lec_store *store;
	struct lec_org *org = NULL;
	struct lec_team *team = NULL;
	int status;

	if (parse_args(argc, argv, opts, 1, pos, 2) < 0)
		return usage("org team create", CLI_ORG_TEAM_CREATE_ARGS);
	if ((store = cli_store(ctx)) == NULL)
		return CLI_EXIT_FAIL;
	if ((status = get_org(store, pos[0], &org)) != CLI_EXIT_OK)
		goto done;
	if (lec_team_create(store, org->id, pos[1], access, &team) < 0) {
		status = fail_validation("cannot create the team");
		goto done;
	}
	/* The slug made from the name is what the other commands take. */
	printf("%s\n", team->slug);
done:
	lec_team_free(team);
	lec_org_free(org);
	return status;
}
