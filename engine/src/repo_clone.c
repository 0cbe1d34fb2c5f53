/*
 * The .git of a build's checkout, as the service's clone has it. The
 * service runs `git clone --depth 1 URL .`, then `git fetch origin --force
 * --prune --prune-tags --depth 50 REFSPEC` and `git checkout --force` of
 * the version (readthedocs/vcs_support/backends/git.py); builds then run
 * git in the tree: setuptools-scm and `git describe` for a version, `git
 * log` for "last updated" dates, `git fetch --unshallow` or `--tags` in
 * post_checkout. Lectern writes the state those commands leave instead of
 * running them, in time that does not grow with the repository:
 *
 * - objects: none of its own. objects/info/alternates names the engine's
 *   repo cache, which every build command sees read-only at its own path
 *   (job.c), so nothing is copied.
 * - history: the shallow file the two fetches leave, computed as git's
 *   upload-pack computes it (get_shallow_commits): the commits
 *   LEC_REPO_CLONE_DEPTH - 1 parents from the fetched commit, and the
 *   default branch's tip of the --depth 1 clone unless the fetch went
 *   past it.
 * - refs (packed-refs): the default branch, locally and as origin's with
 *   origin/HEAD; the fetched branch (refs/remotes/origin/<b>) or tag; and
 *   the tags git's auto-following brings, those whose commit is in the
 *   fetched history (only the clone's for a fetch of a commit or of HEAD:
 *   git follows tags for a refspec with a destination only).
 * - HEAD detached at the commit, with the reflog line `git checkout`
 *   writes, so that `git branch` says "(HEAD detached at origin/main)" as
 *   there; on the default branch for a fetch of HEAD (no checkout).
 * - config: remote.origin.url is the project's URL without credentials,
 *   which `git remote -v` shows (conf.py files read it), and the fetch
 *   refspec of a single-branch clone. remote.origin.vcs names a remote
 *   helper that this config defines as an alias, a few lines of sh that
 *   connect git's fetch to `git upload-pack` of the repo cache: so `git fetch`
 *   works offline and never reaches the network, and pushing fails. An
 *   url.<repo cache>.insteadOf would have done the fetching, but git shows
 *   the rewritten URL as the remote's.
 * - index: the commit's tree with the stat of each file as the checkout
 *   wrote it, so `git status` and `git describe --dirty` find the tree
 *   clean without reading every file.
 *
 * One difference remains: the alternates make every object of the repo cache
 * present, so a later fetch that follows tags (`git fetch --unshallow`)
 * also brings tags of other branches, which `git describe` never picks.
 *
 * Safety: the build owns the checkout, .git included (its config may name
 * hooks or an fsmonitor). This is written by the sandboxed helper into a
 * .git it creates (mkdirat, every file O_EXCL|O_NOFOLLOW); the engine
 * never runs git or libgit2 in a checkout, and removes the .git before the
 * next checkout like any byproduct (build_tree.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "files.h"
#include "repo_internal.h"

/* Objects a walk visits at most: the commits within 50 parents of a tip
 * are tens of thousands in the widest public histories, their trees and
 * files a few hundred thousand; this bounds a hostile graph's time and
 * memory. */
#define CLONE_WALK_MAX ((size_t)1 << 22)
/* git's shortest abbreviation of an object id (FALLBACK_DEFAULT_ABBREV). */
#define CLONE_ABBREV_MIN 7
/* The remote helper git runs for origin: `git remote-lectern`, which the
 * config's alias of that name is. */
#define CLONE_HELPER "lectern"
/* Whom the reflog's checkout line names (git records one; `git branch`
 * reads only its message). */
#define CLONE_IDENT "Lectern <lectern@localhost>"

/* Walks ------------------------------------------------------------------------ */

/* Objects in the order a breadth-first walk met them, each with a number
 * (a commit's distance from the fetched commit, the shortest; whether an
 * object of a tree walk is a tree), and an open-addressing index over
 * them (index + 1; 0 empty). */
struct walk {
	struct walked {
		git_oid id;
		unsigned depth;
	} *items;
	size_t len, cap;
	size_t *slots, nslots;
};

static void walk_dispose(struct walk *w)
{
	lec__free(w->items);
	lec__free(w->slots);
	memset(w, 0, sizeof(*w));
}

static size_t *walk_slot(const struct walk *w, const git_oid *id)
{
	size_t h, i;

	memcpy(&h, id->id, sizeof(h));
	for (i = h & (w->nslots - 1); w->slots[i];
	     i = (i + 1) & (w->nslots - 1))
		if (git_oid_equal(&w->items[w->slots[i] - 1].id, id))
			break;
	return &w->slots[i];
}

static const struct walked *walk_find(const struct walk *w, const git_oid *id)
{
	size_t *slot = w->nslots ? walk_slot(w, id) : NULL;

	return slot && *slot ? &w->items[*slot - 1] : NULL;
}

static int walk_rehash(struct walk *w)
{
	size_t n = w->nslots ? w->nslots * 2 : 1024, i;
	size_t *slots = lec__calloc(n, sizeof(*slots));

	LEC__CHECK_ALLOC(slots);
	lec__free(w->slots);
	w->slots = slots;
	w->nslots = n;
	for (i = 0; i < w->len; i++)
		*walk_slot(w, &w->items[i].id) = i + 1;
	return LEC_OK;
}

static int walk_add(struct walk *w, const git_oid *id, unsigned depth)
{
	int error;

	if (w->len >= CLONE_WALK_MAX)
		return lec__error(LEC_ELIMIT,
				  "the history within %d commits has more "
				  "than %zu objects",
				  LEC_REPO_CLONE_DEPTH, CLONE_WALK_MAX);
	if (lec__grow((void **)&w->items, &w->cap, w->len, sizeof(*w->items),
		      256) < 0)
		return LEC_ENOMEM;
	if ((w->len + 1) * 2 > w->nslots && (error = walk_rehash(w)) < 0)
		return error;
	git_oid_cpy(&w->items[w->len].id, id);
	w->items[w->len].depth = depth;
	*walk_slot(w, id) = ++w->len;
	return LEC_OK;
}

/* What `git fetch --depth D` of tip receives: every commit fewer than D
 * parents away, those D - 1 away without their parents (the shallow
 * boundary). */
static int walk_history(git_repository *repo, const git_oid *tip,
			struct walk *w)
{
	size_t i;
	int error = walk_add(w, tip, 0);

	for (i = 0; error == LEC_OK && i < w->len; i++) {
		git_commit *commit = NULL;
		git_oid id = w->items[i].id;
		unsigned depth = w->items[i].depth, n, p;
		int rc;

		if (depth + 1 >= LEC_REPO_CLONE_DEPTH)
			continue;
		if ((rc = git_commit_lookup(&commit, repo, &id)) < 0) {
			error = lec_repo__fail(rc, NULL, "cannot read commit "
							 "%s",
					       git_oid_tostr_s(&id));
			break;
		}
		n = git_commit_parentcount(commit);
		for (p = 0; error == LEC_OK && p < n; p++) {
			const git_oid *parent = git_commit_parent_id(commit, p);

			if (walk_find(w, parent) == NULL)
				error = walk_add(w, parent, depth + 1);
		}
		git_commit_free(commit);
	}
	return error;
}

/* The length git abbreviates object ids to in a repository of count
 * objects (core.abbrev's "auto"): hex digits for half the bits of the
 * count, rounded up. */
static unsigned abbrev_length(size_t count)
{
	unsigned bits = 0;

	while (count >> bits)
		bits++;
	return (bits + 1) / 2 > CLONE_ABBREV_MIN ? (bits + 1) / 2
						 : CLONE_ABBREV_MIN;
}

/* The clone's state --------------------------------------------------------- */

/* One ref of packed-refs: what it points at and, for an annotated tag,
 * the commit it peels to. */
struct packed {
	char *name;
	git_oid target, peeled;
	int annotated;
};

struct clone_state {
	git_repository *repo;
	const struct lec_repo_clone *spec;
	git_oid commit;
	char *branch;  /* the default branch (the repo cache's HEAD), or NULL */
	git_oid tip;   /* what the --depth 1 clone got */
	struct walk fetched;
	unsigned abbrev; /* git's abbreviation length in the service's clone */
	struct packed *refs;
	size_t nrefs, refs_cap;
};

static const size_t packed_texts[] = { offsetof(struct packed, name) };

static void state_dispose(struct clone_state *s)
{
	LEC__ITEMS_TEXTS_FREE(s->refs, s->nrefs, packed_texts);
	lec__free(s->branch);
	walk_dispose(&s->fetched);
	git_repository_free(s->repo);
}

/* Add a ref (each name once: the callers see to it). */
static int ref_put(struct clone_state *s, const char *prefix, const char *name,
		   const git_oid *target, const git_oid *peeled)
{
	struct lec__buf b = LEC__BUF_INIT;
	struct packed *r;

	if (lec__grow((void **)&s->refs, &s->refs_cap, s->nrefs,
		      sizeof(*s->refs), 16) < 0)
		return LEC_ENOMEM;
	r = &s->refs[s->nrefs];
	lec__buf_printf(&b, "%s%s", prefix, name);
	LEC__CHECK_ALLOC(r->name = lec__buf_take(&b));
	s->nrefs++;
	git_oid_cpy(&r->target, target);
	r->annotated = peeled && !git_oid_equal(peeled, target);
	git_oid_cpy(&r->peeled, peeled ? peeled : target);
	return LEC_OK;
}

/* Whether prefix + name is a ref name git accepts. */
static int valid_ref(const char *prefix, const char *name)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *full;
	int valid = 0;

	if (name == NULL || *name == '\0')
		return 0;
	lec__buf_printf(&b, "%s%s", prefix, name);
	if ((full = lec__buf_take(&b)) == NULL)
		return 0;
	if (git_reference_name_is_valid(&valid, full) < 0)
		valid = 0;
	lec__free(full);
	return valid;
}

/* The default branch and the tip the --depth 1 clone checked out: the
 * repo cache's HEAD (detached there when it names no branch); the commit
 * built when that is the branch fetched, so the two agree. */
static int read_origin(struct clone_state *s)
{
	const struct lec_repo_clone *c = s->spec;
	git_reference *head = NULL, *resolved = NULL;
	const char *target = NULL;
	int error = LEC_OK;

	git_oid_cpy(&s->tip, &s->commit);
	if (git_reference_lookup(&head, s->repo, "HEAD") < 0)
		head = NULL;
	else if (git_reference_type(head) == GIT_REFERENCE_SYMBOLIC)
		target = git_reference_symbolic_target(head);
	if (target &&
	    strncmp(target, LEC_REPO__HEADS, strlen(LEC_REPO__HEADS)) == 0 &&
	    valid_ref("", target) &&
	    git_reference_resolve(&resolved, head) == 0 &&
	    git_reference_target(resolved) != NULL) {
		if ((s->branch = lec__strdup(target + strlen(LEC_REPO__HEADS))) ==
		    NULL)
			error = lec__error_oom();
		else if (c->kind != LEC_REPO_FETCH_HEAD &&
			 !(c->kind == LEC_REPO_FETCH_BRANCH &&
			   strcmp(c->name, s->branch) == 0))
			git_oid_cpy(&s->tip, git_reference_target(resolved));
	} else if (head && git_reference_type(head) == GIT_REFERENCE_DIRECT &&
		   c->kind != LEC_REPO_FETCH_HEAD) {
		git_oid_cpy(&s->tip, git_reference_target(head));
	}
	git_error_clear();
	git_reference_free(resolved);
	git_reference_free(head);
	return error;
}

/* Whether git's tag following brings a tag of this commit. */
static int tag_followed(const struct clone_state *s, const git_oid *commit)
{
	int follows = s->spec->kind == LEC_REPO_FETCH_BRANCH ||
		      s->spec->kind == LEC_REPO_FETCH_TAG ||
		      s->spec->kind == LEC_REPO_FETCH_EXTERNAL;

	return git_oid_equal(commit, &s->tip) ||
	       (follows && walk_find(&s->fetched, commit) != NULL);
}

/* The repo cache's tags the clone has (the fetched tag is put already). */
static int collect_tags(struct clone_state *s)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	int rc, error = LEC_OK;

	if ((rc = git_reference_iterator_glob_new(&it, s->repo,
						  LEC_REPO__TAGS "*")) < 0)
		return lec_repo__fail(rc, NULL, "cannot list the tags");
	while (error == LEC_OK && (rc = git_reference_next(&ref, it)) == 0) {
		git_object *peeled = NULL;
		const git_oid *target = git_reference_target(ref);
		const char *name = git_reference_name(ref) + strlen(LEC_REPO__TAGS);

		if (target &&
		    !(s->spec->kind == LEC_REPO_FETCH_TAG &&
		      strcmp(name, s->spec->name) == 0) &&
		    git_reference_peel(&peeled, ref, GIT_OBJECT_COMMIT) == 0 &&
		    tag_followed(s, git_object_id(peeled)))
			error = ref_put(s, LEC_REPO__TAGS, name, target,
					git_object_id(peeled));
		git_error_clear();
		git_object_free(peeled);
		git_reference_free(ref);
	}
	if (error == LEC_OK && rc != GIT_ITEROVER)
		error = lec_repo__fail(rc, NULL, "cannot list the tags");
	git_reference_iterator_free(it);
	return error;
}

/* The tag fetched by name, as the repo cache has it when it still leads to
 * the commit, else as a tag of the commit. */
static int put_fetched_tag(struct clone_state *s)
{
	const char *name = s->spec->name;
	git_reference *ref = NULL;
	git_object *peeled = NULL;
	struct lec__buf b = LEC__BUF_INIT;
	char *full;
	int error;

	lec__buf_printf(&b, LEC_REPO__TAGS "%s", name);
	LEC__CHECK_ALLOC(full = lec__buf_take(&b));
	if (git_reference_lookup(&ref, s->repo, full) == 0 &&
	    git_reference_target(ref) != NULL &&
	    git_reference_peel(&peeled, ref, GIT_OBJECT_COMMIT) == 0 &&
	    git_oid_equal(git_object_id(peeled), &s->commit))
		error = ref_put(s, LEC_REPO__TAGS, name,
				git_reference_target(ref), &s->commit);
	else
		error = ref_put(s, LEC_REPO__TAGS, name, &s->commit, NULL);
	git_error_clear();
	git_object_free(peeled);
	git_reference_free(ref);
	lec__free(full);
	return error;
}

/* A pull request's head as the service's refspec names it locally. */
static int put_external_branch(struct clone_state *s)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *name;
	int error;

	lec__buf_printf(&b, LEC_REPO__EXTERNAL_PREFIX "%s", s->spec->name);
	LEC__CHECK_ALLOC(name = lec__buf_take(&b));
	error = ref_put(s, LEC_REPO__HEADS, name, &s->commit, NULL);
	lec__free(name);
	return error;
}

static int collect_refs(struct clone_state *s)
{
	int error = LEC_OK;

	if (s->branch &&
	    ((error = ref_put(s, LEC_REPO__HEADS, s->branch, &s->tip, NULL)) <
		     0 ||
	     (error = ref_put(s, "refs/remotes/origin/", s->branch, &s->tip,
			      NULL)) < 0))
		return error;
	if (s->spec->kind == LEC_REPO_FETCH_BRANCH &&
	    (s->branch == NULL || strcmp(s->spec->name, s->branch) != 0))
		error = ref_put(s, "refs/remotes/origin/", s->spec->name,
				&s->commit, NULL);
	if (error == LEC_OK && s->spec->kind == LEC_REPO_FETCH_TAG)
		error = put_fetched_tag(s);
	if (error == LEC_OK && s->spec->kind == LEC_REPO_FETCH_EXTERNAL)
		error = put_external_branch(s);
	return error < 0 ? error : collect_tags(s);
}

static int packed_cmp(const void *a, const void *b)
{
	return strcmp(((const struct packed *)a)->name,
		      ((const struct packed *)b)->name);
}

/* Add commit's tree to objects, the tree walk's start, once. */
static int count_commit(git_repository *repo, const git_oid *id,
			struct walk *objects)
{
	git_commit *commit = NULL;
	int rc = git_commit_lookup(&commit, repo, id), error = LEC_OK;

	if (rc < 0)
		error = lec_repo__fail(rc, NULL, "cannot read commit %s",
				       git_oid_tostr_s(id));
	else if (walk_find(objects, git_commit_tree_id(commit)) == NULL)
		error = walk_add(objects, git_commit_tree_id(commit), 1);
	git_commit_free(commit);
	return error;
}

/* The objects of trees of objects (numbered 1; files 0), each once. */
static int count_trees(git_repository *repo, struct walk *objects)
{
	size_t i, n, e;
	int error = LEC_OK;

	for (i = 0; error == LEC_OK && i < objects->len; i++) {
		git_tree *tree = NULL;
		git_oid id = objects->items[i].id;
		int rc;

		if (objects->items[i].depth == 0)
			continue;
		if ((rc = git_tree_lookup(&tree, repo, &id)) < 0)
			return lec_repo__fail(rc, NULL, "cannot read tree %s",
					      git_oid_tostr_s(&id));
		n = git_tree_entrycount(tree);
		for (e = 0; error == LEC_OK && e < n; e++) {
			const git_tree_entry *entry =
				git_tree_entry_byindex(tree, e);
			git_object_t type = git_tree_entry_type(entry);

			if ((type == GIT_OBJECT_TREE ||
			     type == GIT_OBJECT_BLOB) &&
			    walk_find(objects, git_tree_entry_id(entry)) == NULL)
				error = walk_add(objects,
						 git_tree_entry_id(entry),
						 type == GIT_OBJECT_TREE);
		}
		git_tree_free(tree);
	}
	return error;
}

/* git abbreviates object ids by the number of objects a repository has,
 * which the alternates make the repo cache's: the clone's config fixes the
 * length at what the service's clone counts (its commits, their trees
 * and files, its annotated tags), so `git describe` and setuptools-scm's
 * versions name commits as there. */
static int count_abbrev(struct clone_state *s)
{
	struct walk objects = { 0 };
	size_t i, count;
	int error = LEC_OK;

	for (i = 0; error == LEC_OK && i < s->fetched.len; i++)
		error = count_commit(s->repo, &s->fetched.items[i].id, &objects);
	if (error == LEC_OK && walk_find(&s->fetched, &s->tip) == NULL)
		error = count_commit(s->repo, &s->tip, &objects);
	if (error == LEC_OK)
		error = count_trees(s->repo, &objects);
	count = s->fetched.len + objects.len +
		(walk_find(&s->fetched, &s->tip) == NULL);
	for (i = 0; i < s->nrefs; i++)
		count += s->refs[i].annotated != 0;
	/* Past the walk's limit the length is long enough anyway. */
	if (error == LEC_ELIMIT) {
		lec_error_clear();
		error = LEC_OK;
	}
	s->abbrev = abbrev_length(count);
	walk_dispose(&objects);
	return error;
}

/* Writing ------------------------------------------------------------------- */

/* s as a quoted git config value (or subsection name), git's escapes. */
static void config_quoted(struct lec__buf *b, const char *s)
{
	lec__buf_puts(b, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			lec__buf_printf(b, "\\%c", *s);
		else if (*s == '\n')
			lec__buf_puts(b, "\\n");
		else if (*s == '\t')
			lec__buf_puts(b, "\\t");
		else
			lec__buf_putn(b, s, 1);
	}
	lec__buf_puts(b, "\"");
}

/* The remote helper: git writes "capabilities", then "connect SERVICE";
 * it answers that it connects, then becomes upload-pack of the repo cache
 * (sh's read takes a byte at a time from a pipe, so what follows is
 * upload-pack's). Any other service (receive-pack: a push) is refused.
 * Reachable commits may be fetched by id, as the forges allow. */
static void helper_alias(struct lec__buf *b, const char *repo_cache)
{
	struct lec__buf sh = LEC__BUF_INIT;
	const char *p;
	char *text;

	lec__buf_puts(&sh, "!f() { read -r _; printf 'connect\\n\\n'; "
			   "read -r _ s; if [ \"$s\" != git-upload-pack ]; "
			   "then echo 'fatal: a build can only fetch from its "
			   "own repository' >&2; exit 128; fi; printf '\\n'; "
			   "exec git -c uploadpack.allowReachableSHA1InWant=true "
			   "upload-pack '");
	for (p = repo_cache; *p; p++) {
		if (*p == '\'')
			lec__buf_puts(&sh, "'\\''");
		else
			lec__buf_putn(&sh, p, 1);
	}
	lec__buf_puts(&sh, "'; }; f");
	if ((text = lec__buf_take(&sh)) == NULL) {
		b->oom = 1;
		return;
	}
	config_quoted(b, text);
	lec__free(text);
}

static char *config_text(const struct clone_state *s, const char *repo_cache)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *url = lec_repo_redact_url(s->spec->url);

	if (url == NULL)
		return NULL;
	lec__buf_printf(&b, "[core]\n\trepositoryformatversion = 0\n"
			    "\tfilemode = true\n\tbare = false\n"
			    "\tlogallrefupdates = true\n\tabbrev = %u\n"
			    "[remote \"origin\"]\n\turl = ",
			s->abbrev);
	config_quoted(&b, url);
	lec__free(url);
	/* A --depth clone is a single-branch one. */
	if (s->branch)
		lec__buf_printf(&b, "\n\tfetch = +refs/heads/%s:"
				    "refs/remotes/origin/%s",
				s->branch, s->branch);
	lec__buf_puts(&b, "\n\tvcs = " CLONE_HELPER "\n");
	if (s->branch) {
		lec__buf_puts(&b, "[branch ");
		config_quoted(&b, s->branch);
		lec__buf_printf(&b, "]\n\tremote = origin\n"
				    "\tmerge = refs/heads/%s\n",
				s->branch);
	}
	lec__buf_puts(&b, "[alias]\n\tremote-" CLONE_HELPER " = ");
	helper_alias(&b, repo_cache);
	lec__buf_puts(&b, "\n");
	return lec__buf_take(&b);
}

static char *packed_refs_text(struct clone_state *s)
{
	struct lec__buf b = LEC__BUF_INIT;
	size_t i;

	if (s->nrefs > 1)
		qsort(s->refs, s->nrefs, sizeof(*s->refs), packed_cmp);
	lec__buf_puts(&b, "# pack-refs with: peeled fully-peeled sorted \n");
	for (i = 0; i < s->nrefs; i++) {
		lec__buf_printf(&b, "%s %s\n", git_oid_tostr_s(&s->refs[i].target),
				s->refs[i].name);
		if (s->refs[i].annotated)
			lec__buf_printf(&b, "^%s\n",
					git_oid_tostr_s(&s->refs[i].peeled));
	}
	return lec__buf_take(&b);
}

/* The commits the shallow file names: the fetch's boundary, and the
 * clone's tip unless the fetch reached past it (upload-pack's
 * "unshallow"). "" when the whole history is there: git then has no
 * shallow file. */
static char *shallow_text(const struct clone_state *s)
{
	struct lec__buf b = LEC__BUF_INIT;
	const struct walked *tip = walk_find(&s->fetched, &s->tip);
	size_t i;

	for (i = 0; i < s->fetched.len; i++)
		if (s->fetched.items[i].depth + 1 == LEC_REPO_CLONE_DEPTH)
			lec__buf_printf(&b, "%s\n",
					git_oid_tostr_s(&s->fetched.items[i].id));
	if (tip == NULL)
		lec__buf_printf(&b, "%s\n", git_oid_tostr_s(&s->tip));
	return lec__buf_take(&b);
}

static char *head_text(const struct clone_state *s)
{
	struct lec__buf b = LEC__BUF_INIT;

	if (s->spec->kind == LEC_REPO_FETCH_HEAD && s->branch)
		lec__buf_printf(&b, "ref: " LEC_REPO__HEADS "%s\n", s->branch);
	else
		lec__buf_printf(&b, "%s\n", git_oid_tostr_s(&s->commit));
	return lec__buf_take(&b);
}

/* The reflog line of the service's `git checkout --force`: from the
 * clone's branch (or commit) to origin/<branch> or the commit. */
static char *reflog_text(const struct clone_state *s)
{
	struct lec__buf b = LEC__BUF_INIT;
	char tip[GIT_OID_HEXSZ + 1], commit[GIT_OID_HEXSZ + 1];

	git_oid_tostr(tip, sizeof(tip), &s->tip);
	git_oid_tostr(commit, sizeof(commit), &s->commit);
	lec__buf_printf(&b, "%s %s " CLONE_IDENT " %lld +0000\tcheckout: "
			    "moving from %s to ",
			tip, commit, (long long)time(NULL),
			s->branch ? s->branch : tip);
	if (s->spec->kind == LEC_REPO_FETCH_BRANCH)
		lec__buf_printf(&b, "origin/%s\n", s->spec->name);
	else
		lec__buf_printf(&b, "%s\n", commit);
	return lec__buf_take(&b);
}

/* Write text (owned, NULL when memory ran out) as a new file name in
 * gitfd. */
static int put_file(int gitfd, const char *target, const char *name,
		    char *text)
{
	int fd, error = LEC_OK;

	if (text == NULL)
		return lec__error_oom();
	fd = openat(gitfd, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0 || lec__write_all(fd, text, strlen(text)) < 0)
		error = lec__error(LEC_EIO, "cannot write '%s/.git/%s': %s",
				   target, name, strerror(errno));
	if (fd >= 0 && close(fd) != 0 && error == LEC_OK)
		error = lec__error(LEC_EIO, "cannot write '%s/.git/%s': %s",
				   target, name, strerror(errno));
	lec__free(text);
	return error;
}

/* The new .git and its directories. */
static int make_gitdir(int rootfd, const char *target, int *gitfd)
{
	static const char *const dirs[] = { "objects",	    "objects/info",
					    "objects/pack", "refs",
					    "refs/heads",   "refs/tags",
					    "refs/remotes", "refs/remotes/origin",
					    "logs" };
	size_t i;

	*gitfd = -1;
	if (mkdirat(rootfd, ".git", 0777) != 0)
		return lec__error(errno == EEXIST ? LEC_EEXISTS : LEC_EIO,
				  "cannot create '%s/.git': %s", target,
				  strerror(errno));
	*gitfd = openat(rootfd, ".git",
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*gitfd < 0)
		return lec__error(LEC_EIO, "cannot open '%s/.git': %s", target,
				  strerror(errno));
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (mkdirat(*gitfd, dirs[i], 0777) != 0)
			return lec__error(LEC_EIO,
					  "cannot create '%s/.git/%s': %s",
					  target, dirs[i], strerror(errno));
	return LEC_OK;
}

/* The index ------------------------------------------------------------------- */

struct index_fill {
	git_index *index;
	int rootfd;
	struct lec__buf path;
	int error;
};

/* One entry of the tree, with the stat of what the checkout wrote (a
 * submodule's stays empty: git looks at its directory instead). */
static int index_entry(const char *root, const git_tree_entry *e,
		       void *payload)
{
	struct index_fill *f = payload;
	git_filemode_t mode = git_tree_entry_filemode(e);
	git_index_entry entry;
	struct stat sb;
	char *path;
	int rc;

	if (mode == GIT_FILEMODE_TREE)
		return 0;
	lec__buf_printf(&f->path, "%s%s", root, git_tree_entry_name(e));
	if ((path = lec__buf_take(&f->path)) == NULL) {
		f->error = lec__error_oom();
		return -1;
	}
	memset(&entry, 0, sizeof(entry));
	entry.mode = (uint32_t)mode;
	entry.path = path;
	git_oid_cpy(&entry.id, git_tree_entry_id(e));
	if (mode != GIT_FILEMODE_COMMIT &&
	    fstatat(f->rootfd, path, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
		entry.ctime.seconds = (int32_t)sb.st_ctim.tv_sec;
		entry.ctime.nanoseconds = (uint32_t)sb.st_ctim.tv_nsec;
		entry.mtime.seconds = (int32_t)sb.st_mtim.tv_sec;
		entry.mtime.nanoseconds = (uint32_t)sb.st_mtim.tv_nsec;
		entry.dev = (uint32_t)sb.st_dev;
		entry.ino = (uint32_t)sb.st_ino;
		entry.uid = (uint32_t)sb.st_uid;
		entry.gid = (uint32_t)sb.st_gid;
		entry.file_size = (uint32_t)sb.st_size;
	}
	rc = git_index_add(f->index, &entry);
	if (rc < 0)
		f->error = lec_repo__fail(rc, NULL, "cannot index '%s'", path);
	lec__free(path);
	return rc < 0 ? -1 : 0;
}

static int write_index(const struct clone_state *s, int rootfd,
		       const char *target)
{
	struct index_fill f = { NULL, rootfd, LEC__BUF_INIT, LEC_OK };
	struct lec__buf b = LEC__BUF_INIT;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	char *path;
	int rc;

	lec__buf_printf(&b, "%s/.git/index", target);
	LEC__CHECK_ALLOC(path = lec__buf_take(&b));
	if ((rc = git_index_open(&f.index, path)) < 0 ||
	    (rc = git_commit_lookup(&commit, s->repo, &s->commit)) < 0 ||
	    (rc = git_commit_tree(&tree, commit)) < 0)
		f.error = lec_repo__fail(rc, NULL, "cannot make the index");
	else if (git_tree_walk(tree, GIT_TREEWALK_PRE, index_entry, &f) < 0 &&
		 f.error == LEC_OK)
		f.error = lec_repo__fail(-1, NULL, "cannot make the index");
	if (f.error == LEC_OK && (rc = git_index_write(f.index)) < 0)
		f.error = lec_repo__fail(rc, NULL, "cannot write the index");
	git_tree_free(tree);
	git_commit_free(commit);
	git_index_free(f.index);
	lec__free(path);
	return f.error;
}

/* The clone --------------------------------------------------------------- */

static int check_spec(const char *cache_dir, const char *commit,
		      const char *target_dir, const struct lec_repo_clone *c)
{
	int named = c && (c->kind == LEC_REPO_FETCH_BRANCH ||
			  c->kind == LEC_REPO_FETCH_TAG ||
			  c->kind == LEC_REPO_FETCH_EXTERNAL);

	if (c == NULL || c->url == NULL || target_dir == NULL ||
	    *target_dir == '\0' || cache_dir == NULL || cache_dir[0] != '/')
		return lec__error(LEC_EINVALID, "no URL, target or absolute "
						"repo cache path given");
	if (!lec_repo_is_commit_id(commit))
		return lec__error(LEC_EINVALID, "'%s' is not a commit id",
				  commit ? commit : "");
	if (c->kind < LEC_REPO_FETCH_BRANCH || c->kind > LEC_REPO_FETCH_HEAD ||
	    (named && !valid_ref(c->kind == LEC_REPO_FETCH_TAG ? LEC_REPO__TAGS
				 : c->kind == LEC_REPO_FETCH_EXTERNAL
				   ? LEC_REPO__HEADS LEC_REPO__EXTERNAL_PREFIX
				   : LEC_REPO__HEADS,
				 c->name)))
		return lec__error(LEC_EINVALID, "'%s' is not a valid %s name",
				  named && c->name ? c->name : "",
				  c->kind == LEC_REPO_FETCH_TAG ? "tag"
								: "branch");
	return LEC_OK;
}

/* What the clone has: its default branch, history and refs. */
static int read_state(struct clone_state *s, const char *cache_dir,
		      const char *commit)
{
	git_commit *c = NULL;
	int rc, error;

	if ((error = lec_repo__open_cache(cache_dir, &s->repo)) < 0)
		return error;
	if (git_oid_fromstr(&s->commit, commit) < 0 ||
	    (rc = git_commit_lookup(&c, s->repo, &s->commit)) < 0)
		return lec_repo__fail_as(LEC_ENOTFOUND,
					 "no commit %s in the repo cache", commit);
	git_commit_free(c);
	if ((error = read_origin(s)) < 0 ||
	    (error = walk_history(s->repo, &s->commit, &s->fetched)) < 0 ||
	    (error = collect_refs(s)) < 0)
		return error;
	return count_abbrev(s);
}

static int write_gitdir(struct clone_state *s, const char *cache_dir,
			const char *target, int rootfd)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *shallow;
	int gitfd = -1, error;

	lec__buf_printf(&b, "%s/objects\n", cache_dir);
	if ((error = make_gitdir(rootfd, target, &gitfd)) < 0 ||
	    (error = put_file(gitfd, target, "objects/info/alternates",
			      lec__buf_take(&b))) < 0 ||
	    (error = put_file(gitfd, target, "config",
			      config_text(s, cache_dir))) < 0 ||
	    (error = put_file(gitfd, target, "packed-refs",
			      packed_refs_text(s))) < 0)
		goto done;
	if ((shallow = shallow_text(s)) != NULL && *shallow == '\0')
		lec__free(shallow);
	else if ((error = put_file(gitfd, target, "shallow", shallow)) < 0)
		goto done;
	if (s->branch) {
		lec__buf_printf(&b, "ref: refs/remotes/origin/%s\n", s->branch);
		if ((error = put_file(gitfd, target, "refs/remotes/origin/HEAD",
				      lec__buf_take(&b))) < 0)
			goto done;
	}
	if (!(s->spec->kind == LEC_REPO_FETCH_HEAD && s->branch) &&
	    (error = put_file(gitfd, target, "logs/HEAD", reflog_text(s))) < 0)
		goto done;
	/* HEAD last: until it is there, git sees no repository. */
	if ((error = write_index(s, rootfd, target)) == LEC_OK)
		error = put_file(gitfd, target, "HEAD", head_text(s));
done:
	lec__buf_dispose(&b);
	if (gitfd >= 0)
		close(gitfd);
	return error;
}

int lec_repo_clone_write(const char *cache_dir, const char *commit,
			 const char *target_dir,
			 const struct lec_repo_clone *clone)
{
	struct clone_state s;
	int rootfd = -1, error;

	lec_error_clear();
	memset(&s, 0, sizeof(s));
	s.spec = clone;
	if ((error = check_spec(cache_dir, commit, target_dir, clone)) < 0 ||
	    (error = read_state(&s, cache_dir, commit)) < 0)
		goto done;
	rootfd = open(target_dir,
		      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (rootfd < 0)
		error = lec__error(LEC_ENOTFOUND, "cannot open '%s': %s",
				   target_dir, strerror(errno));
	else
		error = write_gitdir(&s, cache_dir, target_dir, rootfd);
done:
	if (rootfd >= 0)
		close(rootfd);
	state_dispose(&s);
	return error;
}
