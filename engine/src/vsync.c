/*
 * Version sync: the service's sync_versions (behaviour notes §6.1) over the
 * version module's API, followed by its update_latest_version and
 * update_stable_version (§6.2). The order of the steps is the service's:
 * tags, then branches, then deletes, then latest, then stable; it matters,
 * because a tag named `stable` is handed over before the branches are seen.
 *
 * Why the steps are separate transactions, and why that is safe, is told
 * at lec_vsync_apply in vsync.h.
 */
#include <string.h>

#include "lectern/build.h"
#include "lectern/project.h"
#include "lectern/version.h"
#include "lectern/vsync.h"
#include "store_internal.h"

/* One sync in progress. */
struct vsync {
	struct lec_store *st;
	int64_t project_id;
	const struct lec_repo_refs *refs;
	struct lec_vsync_result *res;
};

static enum lec_version_type version_type(enum lec_repo_ref_type type)
{
	return type == LEC_REPO_TAG ? LEC_VERSION_TAG : LEC_VERSION_BRANCH;
}

/* A branch is identified by its name, a tag by its commit. */
static const char *ref_identifier(const struct lec_repo_ref *ref)
{
	return ref->type == LEC_REPO_TAG ? ref->commit : ref->name;
}

static int ref_usable(const struct lec_repo_ref *ref)
{
	return ref->name && ref->commit && *ref->name &&
	       strlen(ref->name) <= LEC_VERSION_NAME_MAX &&
	       strlen(ref_identifier(ref)) <= LEC_VERSION_IDENTIFIER_MAX;
}

static int same_text(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

/* Whether a ref of type still stands for a version: tags are matched by
 * name (several tags may share a commit), branches by identifier. */
static int has_ref(const struct lec_repo_refs *refs,
		   enum lec_repo_ref_type type, const char *value)
{
	size_t i;

	for (i = 0; value && i < refs->len; i++) {
		const struct lec_repo_ref *r = &refs->items[i];

		if (r->type == type && ref_usable(r) &&
		    strcmp(type == LEC_REPO_TAG ? r->name : ref_identifier(r),
			   value) == 0)
			return 1;
	}
	return 0;
}

/* The version holding slug, or NULL (not an error) when there is none. */
static int version_at(struct vsync *s, const char *slug,
		      struct lec_version **out)
{
	int error = lec_version_get(s->st, s->project_id, slug, out);

	return error == LEC_ENOTFOUND ? LEC_OK : error;
}

static int create_version(struct vsync *s, const struct lec_repo_ref *ref)
{
	int error = lec_version_create(s->st, s->project_id, ref->name,
				       ref_identifier(ref),
				       version_type(ref->type), 0, NULL);

	if (error == LEC_OK)
		s->res->added++;
	return error;
}

/* A ref named `latest` or `stable` owns the version with that slug. */
static int take_over(struct vsync *s, const char *slug,
		     const struct lec_repo_ref *ref)
{
	struct lec_version *v = NULL;
	struct lec_version_patch p = { 0 };
	int error;

	if ((error = version_at(s, slug, &v)) < 0)
		return error;
	if (v == NULL)
		return create_version(s, ref);
	if (v->machine || v->type != version_type(ref->type) ||
	    !same_text(v->identifier, ref_identifier(ref))) {
		p.set = LEC_VERSION_SET_IDENTIFIER | LEC_VERSION_SET_TYPE |
			LEC_VERSION_SET_MACHINE;
		p.identifier = ref_identifier(ref);
		p.type = version_type(ref->type);
		p.machine = 0;
		if ((error = lec_version_update(s->st, v->id, &p)) == LEC_OK)
			s->res->updated++;
	}
	lec_version_free(v);
	return error;
}

/* No ref of this type holds slug any more: the engine manages it again
 * (and update_latest / update_stable re-point it). */
static int give_back(struct vsync *s, const char *slug,
		     enum lec_repo_ref_type type)
{
	struct lec_version *v = NULL;
	struct lec_version_patch p = { 0 };
	int error;

	if ((error = version_at(s, slug, &v)) < 0 || v == NULL)
		return error;
	if (!v->machine && v->type == version_type(type)) {
		p.set = LEC_VERSION_SET_MACHINE;
		p.machine = 1;
		if ((error = lec_version_update(s->st, v->id, &p)) == LEC_OK)
			s->res->updated++;
	}
	lec_version_free(v);
	return error;
}

/* An ordinary ref: re-point the versions of its name and type (as they
 * were before this pass), or create one. */
static int sync_ref(struct vsync *s, const struct lec_version_list *old,
		    const struct lec_repo_ref *ref)
{
	struct lec_version_patch p = { 0 };
	size_t i;
	int found = 0, error = LEC_OK;

	p.set = LEC_VERSION_SET_IDENTIFIER;
	p.identifier = ref_identifier(ref);
	for (i = 0; i < old->len && error == LEC_OK; i++) {
		const struct lec_version *v = &old->items[i];

		if (strcmp(v->verbose_name, ref->name) != 0)
			continue;
		found = 1;
		if (same_text(v->identifier, p.identifier))
			continue;
		if ((error = lec_version_update(s->st, v->id, &p)) == LEC_OK)
			s->res->updated++;
	}
	if (error == LEC_OK && !found)
		error = create_version(s, ref);
	return error;
}

static int sync_refs(struct vsync *s, const struct lec_version_list *old,
		     enum lec_repo_ref_type type, int *has_stable,
		     int *has_latest)
{
	size_t i;
	int error = LEC_OK;

	for (i = 0; i < s->refs->len && error == LEC_OK; i++) {
		const struct lec_repo_ref *ref = &s->refs->items[i];

		if (ref->type != type || !ref_usable(ref))
			continue;
		if (strcmp(ref->name, LEC_VERSION_STABLE) == 0) {
			*has_stable = 1;
			error = take_over(s, LEC_VERSION_STABLE, ref);
		} else if (strcmp(ref->name, LEC_VERSION_LATEST) == 0) {
			*has_latest = 1;
			error = take_over(s, LEC_VERSION_LATEST, ref);
		} else {
			error = sync_ref(s, old, ref);
		}
	}
	return error;
}

/* One pass of the service's sync_versions_to_db, for one ref type. */
static int sync_type(struct vsync *s, enum lec_repo_ref_type type)
{
	struct lec_version_filter filter = { 0 };
	struct lec_version_list old = { 0 };
	int has_stable = 0, has_latest = 0, error;

	filter.type = lec_version_type_code(version_type(type));
	if ((error = lec_version_list(s->st, s->project_id, &filter, NULL,
				      &old)) < 0)
		return error;
	error = sync_refs(s, &old, type, &has_stable, &has_latest);
	lec_version_list_dispose(&old);
	if (error == LEC_OK && !has_stable)
		error = give_back(s, LEC_VERSION_STABLE, type);
	if (error == LEC_OK && !has_latest)
		error = give_back(s, LEC_VERSION_LATEST, type);
	return error;
}

static int vanished(const struct vsync *s, const struct lec_version *v)
{
	if (v->type == LEC_VERSION_EXTERNAL || v->active || v->uploaded ||
	    v->machine || strcmp(v->slug, LEC_VERSION_LATEST) == 0 ||
	    strcmp(v->slug, LEC_VERSION_STABLE) == 0)
		return 0;
	if (v->type == LEC_VERSION_TAG)
		return !has_ref(s->refs, LEC_REPO_TAG, v->verbose_name);
	if (v->type == LEC_VERSION_BRANCH)
		return !has_ref(s->refs, LEC_REPO_BRANCH, v->identifier);
	return 1; /* "unknown": no ref stands for it, as the service sees */
}

/* Delete a version unless it became active, uploaded or machine-managed
 * since it was read: the condition is checked by the DELETE itself, so a
 * concurrent change through the API wins. */
static int delete_unused(struct vsync *s, int64_t id)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	if ((error = lec_store__prepare(
		     s->st, &stmt,
		     "DELETE FROM versions WHERE id = ? AND active = 0 AND "
		     "uploaded = 0 AND machine = 0")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, id);
	if ((error = lec_store__step_done(s->st, stmt,
					  "deleting a version")) == LEC_OK)
		s->res->removed += (size_t)sqlite3_changes(s->st->db);
	lec_store__finalize(s->st, stmt);
	return error;
}

static int remove_vanished(struct vsync *s)
{
	struct lec_version_list all = { 0 };
	size_t i;
	int error;

	if ((error = lec_version_list(s->st, s->project_id, NULL, NULL,
				      &all)) < 0)
		return error;
	for (i = 0; i < all.len && error == LEC_OK; i++)
		if (vanished(s, &all.items[i]))
			error = delete_unused(s, all.items[i].id);
	lec_version_list_dispose(&all);
	return error;
}

/* latest follows the project's own default branch, else the remote's;
 * when neither is known it keeps the branch it has (a build may have
 * found it by checking out HEAD). */
static int sync_latest(struct vsync *s, const struct lec_project *p)
{
	struct lec_version *latest = NULL;
	const char *branch = p->default_branch;
	int error;

	if (branch == NULL || *branch == '\0')
		branch = s->refs->default_branch;
	if (branch && strlen(branch) > LEC_VERSION_IDENTIFIER_MAX)
		branch = NULL; /* no version can stand for it */
	if (branch == NULL) {
		if ((error = version_at(s, LEC_VERSION_LATEST, &latest)) < 0)
			return error;
		if (latest && latest->machine)
			branch = latest->identifier;
	}
	error = lec_version_update_latest(s->st, s->project_id, branch);
	lec_version_free(latest);
	return error;
}

static int sync_stable(struct vsync *s)
{
	struct lec_version *promoted = NULL;
	int error = lec_version_update_stable(s->st, s->project_id, &promoted);

	if (error == LEC_OK && promoted)
		s->res->promoted_stable_id = promoted->id;
	lec_version_free(promoted);
	return error;
}

/* The service builds stable after a sync that created or moved it, when it
 * is active (sync_versions_task): otherwise /en/stable/ stays a 404. A build
 * of it already queued or running builds the new commit anyway (a build
 * reads its version after this sync), and a trigger would cancel it. */
static int build_stable(struct vsync *s)
{
	struct lec_build_filter unfinished = { .running = LEC_FILTER_TRUE };
	struct lec_page one = { 1, 0 };
	struct lec_build_list pending = { 0 };
	struct lec_version *stable = NULL;
	struct lec_build *b = NULL;
	int error;

	if (s->res->promoted_stable_id == 0)
		return LEC_OK;
	if ((error = version_at(s, LEC_VERSION_STABLE, &stable)) < 0 ||
	    stable == NULL || !stable->active)
		goto done;
	if ((error = lec_build_list(s->st, s->project_id, stable->id,
				    &unfinished, &one, &pending)) < 0 ||
	    pending.total > 0)
		goto done;
	if ((error = lec_build_trigger(s->st, s->project_id, stable->id, NULL,
				       &b, NULL)) == LEC_OK)
		s->res->stable_build_id = b->id;
done:
	lec_build_list_dispose(&pending);
	lec_build_free(b);
	lec_version_free(stable);
	return error;
}

int lec_vsync_apply(struct lec_store *store, int64_t project_id,
		    const struct lec_repo_refs *refs,
		    struct lec_vsync_result *out)
{
	struct vsync s = { store, project_id, refs, out };
	struct lec_project *p = NULL;
	int error;

	lec_error_clear();
	if (out == NULL || refs == NULL)
		return lec__error(LEC_EINVALID, "no refs or result given");
	memset(out, 0, sizeof(*out));
	/* The project first: a missing one must fail before any write. */
	if ((error = lec_project_get_by_id(store, project_id, &p)) < 0)
		return error;
	if ((error = sync_type(&s, LEC_REPO_TAG)) == LEC_OK &&
	    (error = sync_type(&s, LEC_REPO_BRANCH)) == LEC_OK &&
	    (error = remove_vanished(&s)) == LEC_OK &&
	    (error = sync_latest(&s, p)) == LEC_OK &&
	    (error = sync_stable(&s)) == LEC_OK)
		error = build_stable(&s);
	lec_project_free(p);
	return error;
}
