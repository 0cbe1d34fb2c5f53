/*
 * The refs of a repo cache, as a version sync reads them: every branch and
 * every tag that leads to a commit, with the commit, sorted, and the
 * default branch the repo cache's HEAD names; and one branch, tag or commit
 * resolved to its commit for a build.
 */
#include <stdlib.h>
#include <string.h>

#include "repo_internal.h"

static const size_t ref_texts[] = {
	offsetof(struct lec_repo_ref, name),
	offsetof(struct lec_repo_ref, commit),
};

void lec_repo_refs_dispose(struct lec_repo_refs *refs)
{
	if (refs == NULL)
		return;
	LEC__ITEMS_TEXTS_FREE(refs->items, refs->len, ref_texts);
	lec__free(refs->default_branch);
	memset(refs, 0, sizeof(*refs));
}

static int refs_push(struct lec_repo_refs *refs, size_t *cap, const char *name,
		     enum lec_repo_ref_type type, const git_oid *oid)
{
	char hex[LEC_REPO_COMMIT_HEX + 1];
	struct lec_repo_ref *ref;

	if (refs->len == *cap) {
		size_t n = *cap ? *cap * 2 : 16;
		void *grown = lec__realloc(refs->items, n * sizeof(*ref));

		LEC__CHECK_ALLOC(grown);
		refs->items = grown;
		*cap = n;
	}
	git_oid_tostr(hex, sizeof(hex), oid);
	ref = &refs->items[refs->len];
	ref->type = type;
	ref->name = lec__strdup(name);
	ref->commit = lec__strdup(hex);
	refs->len++; /* counted now so that dispose frees a partial entry */
	if (ref->name == NULL || ref->commit == NULL)
		return lec__error_oom();
	return LEC_OK;
}

/* Add one reference if it is a branch or tag that leads to a commit. */
static int ref_add(struct lec_repo_refs *refs, size_t *cap, git_reference *ref)
{
	const char *full = git_reference_name(ref);
	enum lec_repo_ref_type type;
	git_object *commit = NULL;
	int rc, error;

	if (strncmp(full, LEC_REPO__HEADS, strlen(LEC_REPO__HEADS)) == 0)
		type = LEC_REPO_BRANCH;
	else if (strncmp(full, LEC_REPO__TAGS, strlen(LEC_REPO__TAGS)) == 0)
		type = LEC_REPO_TAG;
	else
		return LEC_OK;
	rc = git_reference_peel(&commit, ref, GIT_OBJECT_COMMIT);
	if (rc == GIT_EPEEL || rc == GIT_EINVALIDSPEC)
		return LEC_OK; /* a tag of a tree or blob */
	if (rc < 0)
		return lec_repo__fail(rc, NULL, "cannot read %s", full);
	error = refs_push(refs, cap,
			  full + strlen(type == LEC_REPO_BRANCH
						? LEC_REPO__HEADS
						: LEC_REPO__TAGS),
			  type, git_object_id(commit));
	git_object_free(commit);
	return error;
}

static int ref_cmp(const void *a, const void *b)
{
	const struct lec_repo_ref *x = a, *y = b;

	if (x->type != y->type)
		return x->type == LEC_REPO_BRANCH ? -1 : 1;
	return strcmp(x->name, y->name);
}

static const struct lec_repo_ref *find_ref(const struct lec_repo_refs *refs,
					   const char *name,
					   enum lec_repo_ref_type type)
{
	size_t i;

	for (i = 0; i < refs->len; i++)
		if (refs->items[i].type == type &&
		    strcmp(refs->items[i].name, name) == 0)
			return &refs->items[i];
	return NULL;
}

/* The branch the repo cache's HEAD names, when that branch exists. */
static int read_default(git_repository *repo, struct lec_repo_refs *refs)
{
	git_reference *head = NULL;
	const char *target = NULL, *branch;
	int rc, error = LEC_OK;

	rc = git_reference_lookup(&head, repo, "HEAD");
	if (rc == GIT_ENOTFOUND)
		return LEC_OK;
	if (rc < 0)
		return lec_repo__fail(rc, NULL, "cannot read HEAD");
	if (git_reference_type(head) == GIT_REFERENCE_SYMBOLIC)
		target = git_reference_symbolic_target(head);
	if (target &&
	    strncmp(target, LEC_REPO__HEADS, strlen(LEC_REPO__HEADS)) == 0) {
		branch = target + strlen(LEC_REPO__HEADS);
		if (find_ref(refs, branch, LEC_REPO_BRANCH) &&
		    (refs->default_branch = lec__strdup(branch)) == NULL)
			error = lec__error_oom();
	}
	git_reference_free(head);
	return error;
}

static int collect_refs(git_repository *repo, struct lec_repo_refs *out)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	size_t cap = 0;
	int rc, error = LEC_OK;

	if ((rc = git_reference_iterator_new(&it, repo)) < 0)
		return lec_repo__fail(rc, NULL, "cannot list references");
	while (error == LEC_OK && (rc = git_reference_next(&ref, it)) == 0) {
		error = ref_add(out, &cap, ref);
		git_reference_free(ref);
	}
	if (error == LEC_OK && rc != GIT_ITEROVER)
		error = lec_repo__fail(rc, NULL, "cannot list references");
	git_reference_iterator_free(it);
	if (error == LEC_OK && out->len > 1)
		qsort(out->items, out->len, sizeof(*out->items), ref_cmp);
	return error;
}

int lec_repo_list_refs(const char *cache_dir, struct lec_repo_refs *out)
{
	git_repository *repo = NULL;
	int error;

	lec_error_clear();
	memset(out, 0, sizeof(*out));
	if ((error = lec_repo__open_cache(cache_dir, &repo)) < 0)
		return error;
	if ((error = collect_refs(repo, out)) == LEC_OK)
		error = read_default(repo, out);
	git_repository_free(repo);
	if (error < 0)
		lec_repo_refs_dispose(out);
	return error;
}

static int commit_hex(const git_oid *oid, char **out)
{
	char hex[LEC_REPO_COMMIT_HEX + 1];

	git_oid_tostr(hex, sizeof(hex), oid);
	*out = lec__strdup(hex);
	LEC__CHECK_ALLOC(*out);
	return LEC_OK;
}

/* A tag version's identifier is a commit: accept one the repo cache has. */
static int resolve_commit(git_repository *repo, const char *hex, char **out)
{
	git_oid oid;
	git_commit *commit = NULL;
	int rc;

	if (git_oid_fromstr(&oid, hex) < 0 ||
	    (rc = git_commit_lookup(&commit, repo, &oid)) < 0) {
		git_error_clear();
		return lec__error(LEC_ENOTFOUND,
				  "no tag or commit '%s' in "
				  "the repo cache",
				  hex);
	}
	git_commit_free(commit);
	return commit_hex(&oid, out);
}

static int resolve_ref(git_repository *repo, const char *name,
		       enum lec_repo_ref_type type, char **out)
{
	const char *kind = type == LEC_REPO_TAG ? "tag" : "branch";
	struct lec__buf b = LEC__BUF_INIT;
	git_reference *ref = NULL;
	git_object *commit = NULL;
	char *full;
	int rc, valid = 0, error;

	lec__buf_printf(&b, "%s%s",
			type == LEC_REPO_TAG ? LEC_REPO__TAGS : LEC_REPO__HEADS,
			name);
	if ((full = lec__buf_take(&b)) == NULL)
		return lec__error_oom();
	if (git_reference_name_is_valid(&valid, full) < 0 || !valid) {
		error = lec__error(LEC_EINVALID, "'%s' is not a valid %s name",
				   name, kind);
		goto done;
	}
	rc = git_reference_lookup(&ref, repo, full);
	if (rc == GIT_ENOTFOUND && type == LEC_REPO_TAG &&
	    lec_repo_is_commit_id(name))
		error = resolve_commit(repo, name, out);
	else if (rc == GIT_ENOTFOUND)
		error = lec__error(LEC_ENOTFOUND, "no %s '%s' in the repo cache",
				   kind, name);
	else if (rc < 0)
		error = lec_repo__fail(rc, NULL, "cannot resolve %s '%s'", kind,
				       name);
	else if ((rc = git_reference_peel(&commit, ref, GIT_OBJECT_COMMIT)) ==
			 GIT_EPEEL ||
		 rc == GIT_EINVALIDSPEC)
		error = lec__error(LEC_EINVALID,
				   "%s '%s' does not point at a "
				   "commit",
				   kind, name);
	else if (rc < 0)
		error = lec_repo__fail(rc, NULL, "cannot resolve %s '%s'", kind,
				       name);
	else
		error = commit_hex(git_object_id(commit), out);
done:
	git_object_free(commit);
	git_reference_free(ref);
	lec__free(full);
	return error;
}

int lec_repo_resolve(const char *cache_dir, const char *name,
		     enum lec_repo_ref_type type, char **commit)
{
	git_repository *repo = NULL;
	int error;

	lec_error_clear();
	*commit = NULL;
	if (name == NULL || *name == '\0')
		return lec__error(LEC_EINVALID, "no ref name given");
	if ((error = lec_repo__open_cache(cache_dir, &repo)) < 0)
		return error;
	error = resolve_ref(repo, name, type, commit);
	git_repository_free(repo);
	return error;
}
