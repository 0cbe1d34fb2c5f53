/*
 * Who sees a version (lec_version_can_view), the one rule behind the v3
 * and v2 APIs, docs serving, search and embed: public versions for whoever
 * sees the project, private ones for its admins (maintainers, superusers,
 * organization admin teams, not read-only teams), each flag's difference,
 * and that the special viewers and public answers ask the database nothing.
 */
#include <string.h>

#include "harness.h"
#include "lectern/org.h"
#include "lectern/project.h"
#include "lectern/user.h"
#include "lectern/version.h"
#include "store_internal.h"

/* A project of maint's with a public version "pub", a private one "priv",
 * a pull-request version "42" and a hidden one "old", and the users that
 * see it differently. */
struct fixture {
	struct lec_store *st;
	int64_t maint, root, admin, reader, outsider;
	int64_t project;
	struct lec_project *p;
	struct lec_version *pub, *priv, *pull, *hidden;
	struct lec_org *org;
	struct lec_team *admins, *readers;
};

static int64_t mkuser(struct lec_store *st, const char *name)
{
	struct lec_user *u = NULL;
	int64_t id;

	CHECK_OK(lec_user_create(st, name, &u));
	id = u ? u->id : 0;
	lec_user_free(u);
	return id;
}

static struct lec_version *mkversion(struct lec_store *st, int64_t project,
				     const char *name,
				     enum lec_version_type type,
				     unsigned int set)
{
	struct lec_version_patch patch = { 0 };
	struct lec_version *v = NULL;

	CHECK_OK(lec_version_create(st, project, name, name, type, 1, &v));
	if (v == NULL || set == 0)
		return v;
	patch.set = set;
	patch.privacy_level = "private";
	patch.hidden = 1;
	CHECK_OK(lec_version_update(st, v->id, &patch));
	lec_version_free(v);
	v = NULL;
	CHECK_OK(lec_version_get(st, project, name, &v));
	return v;
}

/* Reload f->p after a change to the project's row. */
static void reload(struct fixture *f)
{
	lec_project_free(f->p);
	f->p = NULL;
	CHECK_OK(lec_project_get_by_id(f->st, f->project, &f->p));
}

static void set_project_levels(struct fixture *f, const char *level,
			       const char *external)
{
	struct lec_project_patch patch;

	memset(&patch, 0, sizeof(patch));
	patch.fields = LEC_PROJECT_F_PRIVACY_LEVEL |
		       LEC_PROJECT_F_EXTERNAL_BUILDS_PRIVACY_LEVEL;
	patch.privacy_level = level;
	patch.external_builds_privacy_level = external;
	CHECK_OK(lec_project_update(f->st, f->project, &patch));
	reload(f);
}

static void setup(struct fixture *f)
{
	struct lec_org_fields of = { "Acme", NULL, NULL, NULL, NULL };
	struct lec_project_new in;

	memset(f, 0, sizeof(*f));
	f->st = lec_test_store();
	f->maint = mkuser(f->st, "maint");
	f->root = mkuser(f->st, "root");
	f->admin = mkuser(f->st, "teamadmin");
	f->reader = mkuser(f->st, "reader");
	f->outsider = mkuser(f->st, "outsider");
	CHECK_OK(lec_store__exec(f->st, "UPDATE users SET is_superuser = 1 "
					"WHERE username = 'root'"));
	memset(&in, 0, sizeof(in));
	in.name = "Docs";
	in.repo_url = "https://github.com/example/docs";
	CHECK_OK(lec_project_create(f->st, &in, f->maint, &f->p));
	f->project = f->p ? f->p->id : 0;
	CHECK_OK(lec_org_create(f->st, &of, f->maint, &f->org));
	if (f->org == NULL || f->project == 0)
		return;
	CHECK_OK(lec_org_project_add(f->st, f->org->id, f->project));
	CHECK_OK(lec_team_create(f->st, f->org->id, "Admins", "admin",
				 &f->admins));
	CHECK_OK(lec_team_create(f->st, f->org->id, "Readers", "readonly",
				 &f->readers));
	if (f->admins == NULL || f->readers == NULL)
		return;
	CHECK_OK(lec_team_member_add(f->st, f->admins->id, f->admin));
	CHECK_OK(lec_team_member_add(f->st, f->readers->id, f->reader));
	CHECK_OK(lec_team_project_add(f->st, f->admins->id, f->project));
	CHECK_OK(lec_team_project_add(f->st, f->readers->id, f->project));
	f->pub = mkversion(f->st, f->project, "pub", LEC_VERSION_BRANCH, 0);
	f->priv = mkversion(f->st, f->project, "priv", LEC_VERSION_BRANCH,
			    LEC_VERSION_SET_PRIVACY_LEVEL);
	f->pull = mkversion(f->st, f->project, "42", LEC_VERSION_EXTERNAL, 0);
	f->hidden = mkversion(f->st, f->project, "old", LEC_VERSION_BRANCH,
			      LEC_VERSION_SET_HIDDEN);
}

static void teardown(struct fixture *f)
{
	lec_version_free(f->pub);
	lec_version_free(f->priv);
	lec_version_free(f->pull);
	lec_version_free(f->hidden);
	lec_project_free(f->p);
	lec_team_free(f->admins);
	lec_team_free(f->readers);
	lec_org_free(f->org);
	lec_store_free(f->st);
}

static int can(struct fixture *f, const struct lec_version *v, int64_t who,
	       unsigned int flags)
{
	return lec_version_can_view(f->st, f->p, v, who, flags);
}

TEST(private_versions_are_their_admins)
{
	struct fixture f;

	setup(&f);
	if (f.priv == NULL)
		goto done;
	CHECK_INT(can(&f, f.pub, LEC_VIEWER_ANONYMOUS, 0), 1);
	CHECK_INT(can(&f, f.pub, f.outsider, 0), 1);
	CHECK_INT(can(&f, f.priv, LEC_VIEWER_ANONYMOUS, 0), 0);
	CHECK_INT(can(&f, f.priv, f.outsider, 0), 0);
	CHECK_INT(can(&f, f.priv, f.reader, 0), 0);
	CHECK_INT(can(&f, f.priv, f.maint, 0), 1);
	CHECK_INT(can(&f, f.priv, f.root, 0), 1);
	CHECK_INT(can(&f, f.priv, f.admin, 0), 1);
	CHECK_INT(can(&f, f.priv, LEC_VIEWER_ALL, 0), 1);
done:
	teardown(&f);
}

/* The project is checked only when asked: v3, search and embed have
 * looked it up already. */
TEST(project_flag_checks_the_project)
{
	struct fixture f;

	setup(&f);
	if (f.pub == NULL)
		goto done;
	set_project_levels(&f, "private", "public");
	CHECK_INT(can(&f, f.pub, LEC_VIEWER_ANONYMOUS, 0), 1);
	CHECK_INT(can(&f, f.pub, LEC_VIEWER_ANONYMOUS,
		      LEC_VERSION_VIEW_PROJECT), 0);
	CHECK_INT(can(&f, f.pub, f.outsider, LEC_VERSION_VIEW_PROJECT), 0);
	CHECK_INT(can(&f, f.pub, f.reader, LEC_VERSION_VIEW_PROJECT), 1);
	CHECK_INT(can(&f, f.priv, f.reader, LEC_VERSION_VIEW_PROJECT), 0);
	CHECK_INT(can(&f, f.priv, f.maint, LEC_VERSION_VIEW_PROJECT), 1);
	CHECK_INT(can(&f, f.priv, LEC_VIEWER_ALL, LEC_VERSION_VIEW_PROJECT),
		  1);
done:
	teardown(&f);
}

/* A pull-request version follows the project's external builds privacy on
 * the APIs, its own level elsewhere. */
TEST(external_builds_flag)
{
	struct fixture f;
	unsigned int api = LEC_VERSION_VIEW_EXTERNAL_BUILDS;

	setup(&f);
	if (f.pull == NULL)
		goto done;
	CHECK_INT(can(&f, f.pull, LEC_VIEWER_ANONYMOUS, api), 1);
	set_project_levels(&f, "public", "private");
	CHECK_INT(can(&f, f.pull, LEC_VIEWER_ANONYMOUS, api), 0);
	CHECK_INT(can(&f, f.pull, f.reader, api), 0);
	CHECK_INT(can(&f, f.pull, f.admin, api), 1);
	CHECK_INT(can(&f, f.pull, LEC_VIEWER_ANONYMOUS, 0), 1);
	/* Branches and tags keep their own level either way. */
	CHECK_INT(can(&f, f.pub, LEC_VIEWER_ANONYMOUS, api), 1);
	set_project_levels(&f, "public", "public");
	CHECK_INT(can(&f, f.priv, LEC_VIEWER_ANONYMOUS, api), 0);
done:
	teardown(&f);
}

TEST(listed_flag_leaves_hidden_versions_out)
{
	struct fixture f;

	setup(&f);
	if (f.hidden == NULL)
		goto done;
	CHECK_INT(can(&f, f.hidden, LEC_VIEWER_ANONYMOUS, 0), 1);
	CHECK_INT(can(&f, f.hidden, LEC_VIEWER_ANONYMOUS,
		      LEC_VERSION_VIEW_LISTED), 0);
	CHECK_INT(can(&f, f.hidden, LEC_VIEWER_ALL, LEC_VERSION_VIEW_LISTED),
		  0);
	CHECK_INT(can(&f, f.pub, LEC_VIEWER_ANONYMOUS,
		      LEC_VERSION_VIEW_LISTED), 1);
done:
	teardown(&f);
}

/* What the structs answer needs no row: a project that is gone still
 * gives those answers, and an error only where a user's rights count. */
TEST(database_asked_only_when_needed)
{
	struct fixture f;

	setup(&f);
	if (f.priv == NULL || f.p == NULL)
		goto done;
	CHECK_OK(lec_store__exec(f.st, "DELETE FROM projects"));
	CHECK_INT(can(&f, f.pub, f.outsider, LEC_VERSION_VIEW_PROJECT), 1);
	CHECK_INT(can(&f, f.priv, LEC_VIEWER_ANONYMOUS, 0), 0);
	CHECK_INT(can(&f, f.priv, LEC_VIEWER_ALL, 0), 1);
	CHECK_ERR(can(&f, f.priv, f.maint, 0), LEC_ENOTFOUND);
done:
	teardown(&f);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(private_versions_are_their_admins),
	TEST_ENTRY(project_flag_checks_the_project),
	TEST_ENTRY(external_builds_flag),
	TEST_ENTRY(listed_flag_leaves_hidden_versions_out),
	TEST_ENTRY(database_asked_only_when_needed),
};

LEC_TEST_MAIN(tests)
