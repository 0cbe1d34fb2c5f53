/*
 * A commit's submodules, from its .gitmodules: each submodule.<name> with
 * a path that is a gitlink of the commit's tree and a URL, and the commit
 * the gitlink pins. The build fetches them (build_fetch.c, through
 * `lectern __repo`); this only reads the file, as git reads it: no
 * include is followed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "repo_internal.h"

static const size_t submodule_texts[] = {
	offsetof(struct lec_repo_submodule, name),
	offsetof(struct lec_repo_submodule, path),
	offsetof(struct lec_repo_submodule, url),
	offsetof(struct lec_repo_submodule, commit),
};

void lec_repo_submodules_dispose(struct lec_repo_submodules *subs)
{
	if (subs == NULL)
		return;
	LEC__ITEMS_TEXTS_FREE(subs->items, subs->len, submodule_texts);
	memset(subs, 0, sizeof(*subs));
}

/* A .gitmodules being read: the tree its paths are looked up in. */
struct gitmodules_read {
	git_config *cfg;
	git_tree *tree;
	struct lec_repo_submodules *out;
	int error;
};

/* One "submodule.<name>.path" entry: add the submodule when its path is a
 * gitlink of the tree and it has a URL. */
static int gitmodules_entry(const git_config_entry *e, void *payload)
{
	struct gitmodules_read *r = payload;
	size_t len = strlen(e->name);
	const char *name = e->name + strlen("submodule.");
	size_t n = len > strlen("submodule..path")
			   ? len - strlen("submodule.") - strlen(".path")
			   : 0;
	struct lec__buf key = LEC__BUF_INIT;
	git_tree_entry *te = NULL;
	git_buf url = { 0 };
	struct lec_repo_submodule *grown, *s;
	char hex[LEC_REPO_COMMIT_HEX + 1];
	char *k;

	/* Only submodule.<name>.path entries of the file itself: git
	 * follows no include in .gitmodules, and neither does Lectern. */
	if (n == 0 || e->include_depth > 0 ||
	    strncmp(e->name, "submodule.", 10) != 0 ||
	    strcmp(e->name + len - 5, ".path") != 0 ||
	    r->out->len >= LEC_REPO_MAX_SUBMODULES)
		return 0;
	lec__buf_printf(&key, "submodule.%.*s.url", (int)n, name);
	if ((k = lec__buf_take(&key)) == NULL) {
		r->error = lec__error_oom();
		return -1;
	}
	if (git_config_get_string_buf(&url, r->cfg, k) == 0 &&
	    git_tree_entry_bypath(&te, r->tree, e->value) == 0 &&
	    git_tree_entry_filemode(te) == GIT_FILEMODE_COMMIT) {
		grown = lec__realloc(r->out->items,
				     (r->out->len + 1) * sizeof(*grown));
		if (grown == NULL) {
			r->error = lec__error_oom();
		} else {
			r->out->items = grown;
			s = &grown[r->out->len++];
			git_oid_tostr(hex, sizeof(hex), git_tree_entry_id(te));
			s->name = lec__strndup(name, n);
			s->path = lec__strdup(e->value);
			s->url = lec__strdup(url.ptr);
			s->commit = lec__strdup(hex);
			if (!s->name || !s->path || !s->url || !s->commit)
				r->error = lec__error_oom();
		}
	}
	git_tree_entry_free(te);
	git_buf_dispose(&url);
	lec__free(k);
	return r->error < 0 ? -1 : 0;
}

/* The commit's .gitmodules blob written to a private temporary file
 * (libgit2 1.5 parses configuration from files only); *file is NULL when
 * the tree has none. */
static int gitmodules_file(git_repository *repo, git_tree *tree, char **file)
{
	const char *tmp = getenv("TMPDIR");
	struct lec__buf b = LEC__BUF_INIT;
	git_tree_entry *te = NULL;
	git_blob *blob = NULL;
	int fd = -1, error = LEC_OK;

	*file = NULL;
	if (git_tree_entry_bypath(&te, tree, ".gitmodules") < 0 ||
	    git_tree_entry_type(te) != GIT_OBJECT_BLOB) {
		git_tree_entry_free(te);
		return LEC_OK;
	}
	if (git_blob_lookup(&blob, repo, git_tree_entry_id(te)) < 0) {
		error = lec_repo__fail_as(LEC_ECORRUPT,
					  "cannot read .gitmodules");
		goto done;
	}
	lec__buf_printf(&b, "%s/lectern-gitmodules-XXXXXX",
			tmp && *tmp == '/' ? tmp : "/tmp");
	if ((*file = lec__buf_take(&b)) == NULL) {
		error = lec__error_oom();
		goto done;
	}
	if ((fd = mkstemp(*file)) < 0 ||
	    lec__write_all(fd, (const char *)git_blob_rawcontent(blob),
				(size_t)git_blob_rawsize(blob)) < 0) {
		error = lec__error(LEC_EIO, "cannot write .gitmodules: %s",
				   strerror(errno));
		if (fd >= 0)
			unlink(*file);
		lec__free(*file);
		*file = NULL;
	}
done:
	if (fd >= 0)
		close(fd);
	git_blob_free(blob);
	git_tree_entry_free(te);
	return error;
}

int lec_repo_submodules(const char *cache_dir, const char *commit,
			struct lec_repo_submodules *out)
{
	struct gitmodules_read r = { NULL, NULL, out, LEC_OK };
	git_repository *repo = NULL;
	char *file = NULL;
	int error;

	lec_error_clear();
	memset(out, 0, sizeof(*out));
	if ((error = lec_repo__open_cache(cache_dir, &repo)) < 0)
		return error;
	if ((error = lec_repo__lookup_tree(repo, commit, &r.tree)) < 0 ||
	    (error = gitmodules_file(repo, r.tree, &file)) < 0 || file == NULL)
		goto done;
	if (git_config_open_ondisk(&r.cfg, file) < 0) {
		error = lec_repo__fail_as(LEC_ECORRUPT,
					  "cannot read .gitmodules");
		goto done;
	}
	/* Every entry, filtered by hand: libgit2 1.5's regex matching
	 * (pcre2) leaks its match data. */
	if (git_config_foreach(r.cfg, gitmodules_entry, &r) < 0)
		error = r.error < 0
				? r.error
				: lec_repo__fail_as(LEC_ECORRUPT,
						    "cannot read .gitmodules");
done:
	if (error < 0)
		lec_repo_submodules_dispose(out);
	if (file)
		unlink(file);
	git_config_free(r.cfg);
	git_tree_free(r.tree);
	git_repository_free(repo);
	lec__free(file);
	return error;
}
