/*
 * The publishing (uploading) step: the output a build wrote under its
 * checkout is made safe, moved out of the checkout, and made the version's
 * published docs with one rename() of a symbolic link; the new HTML is
 * indexed for search. Earlier outputs stay under <data>/outputs/<build>
 * for page diffs (diff.h) until the version has more than keep_builds of
 * them, counting the new one; the oldest go first.
 *
 * The output was written by untrusted code, so before anything is moved
 * it is walked without following links: only regular files and
 * directories stay (a link to /etc/shadow or to another project's docs,
 * a device, a fifo are removed), set-id bits are dropped, and everything
 * becomes the server's own (not the build user's, who could otherwise
 * change published docs later). The docs server opens files beneath the
 * version's directory only, as a second guard.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_publish.h"
#include "build_steps.h"
#include "lectern/build.h"
#include "lectern/diff.h"
#include "lectern/search.h"

/* The service's message when a build has no index page. */
#define NO_INDEX_ERROR                                                       \
	"Your documentation did not generate an 'index.html' at its root "  \
	"directory. This is required for documentation serving at the "     \
	"root URL for this version."

/* Deepest directory of an output kept: deeper ones are removed (a real
 * site is a dozen levels at most; this bounds the walk's recursion). */
#define PUBLISH_MAX_DEPTH 64
/* Broken links and lost pages listed in the log; all are records. */
#define LINKS_LOGGED 20

/* Sanitizing --------------------------------------------------------------- */

/* Keep each entry only as a regular file or a directory, owned by us,
 * without set-id bits; remove anything else (a directory too deep: all
 * of it). The top, the output directory itself, is the pipeline's. */
static int sanitize_visit(const struct lec__walk_at *at,
			  enum lec__walk_event event, void *payload)
{
	const struct stat *sb = at->st;
	int rc;

	(void)payload;
	if (event == LEC__WALK_LEAVE || at->depth == 0)
		return 0;
	if (event == LEC__WALK_ENTER && at->depth > PUBLISH_MAX_DEPTH) {
		rc = lec__remove_tree_at(at->dirfd, at->name);
		return rc < 0 ? rc : LEC__WALK_SKIP;
	}
	if (event == LEC__WALK_ENTRY && !S_ISREG(sb->st_mode))
		return unlinkat(at->dirfd, at->name, 0) == 0
			       ? 0
			       : lec__error(LEC_EIO, "%s: %s", at->name,
					    strerror(errno));
	if ((sb->st_uid != geteuid() &&
	     fchownat(at->dirfd, at->name, geteuid(), getegid(),
		      AT_SYMLINK_NOFOLLOW) != 0) ||
	    fchmodat(at->dirfd, at->name,
		     (sb->st_mode & 0777) |
			     (S_ISDIR(sb->st_mode) ? 0700 : 0600),
		     0) != 0)
		return lec__error(LEC_EIO, "%s: %s", at->name, strerror(errno));
	return 0;
}

int lec__sanitize_tree(const char *dir)
{
	struct stat sb;

	if (lstat(dir, &sb) != 0)
		return errno == ENOENT ? LEC_OK
				       : lec__error(LEC_EIO, "%s: %s", dir,
						    strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return lec__error(LEC_EIO, "%s: not a directory", dir);
	return lec__walk(AT_FDCWD, dir, sanitize_visit, NULL);
}

/* Publishing ----------------------------------------------------------------- */

static int has_file(const char *dir, const char *name)
{
	char *path = lec__path_join(dir, name);
	struct stat sb;
	int ok = path && stat(path, &sb) == 0 && S_ISREG(sb.st_mode);

	lec__free(path);
	return ok;
}

/* A non-empty directory: the format was built. */
static int has_dir_entries(const char *dir, const char *sub)
{
	char *path = lec__path_join(dir, sub);
	DIR *d = path ? opendir(path) : NULL;
	struct dirent *e;
	int found = 0;

	while (d && !found && (e = readdir(d)) != NULL)
		found = e->d_name[0] != '.';
	if (d)
		closedir(d);
	lec__free(path);
	return found;
}

/* The one file of a download format's directory, renamed
 * <project>.<extension> as the service renames it; a directory that is
 * not one, or holds no file or several, fails the build as there. 0, or
 * -1 (the job failed). */
static int single_file(struct lec__job *job, const char *stage,
		       const char *kind)
{
	char *dir = lec__path_join(stage, kind), name[NAME_MAX + 1] = "";
	struct lec__buf b = LEC__BUF_INIT;
	struct dirent *e;
	struct stat sb;
	char *target, *from, *to;
	size_t files = 0;
	const char *dot;
	DIR *d;
	int rc = LEC_OK;

	if (dir == NULL)
		return lec__job_fail(job, "out of memory");
	if (lstat(dir, &sb) != 0) {
		lec__free(dir);
		return LEC_OK; /* not built */
	}
	if (!S_ISDIR(sb.st_mode) || (d = opendir(dir)) == NULL) {
		lec__free(dir);
		return lec__job_fail_as(job, LEC_BUILD_FAILURE_OUTPUT_NOT_DIR,
					"Build output directory for format "
					"\"%s\" is not a directory.",
					kind);
	}
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
		    files++ == 0)
			snprintf(name, sizeof(name), "%s", e->d_name);
	closedir(d);
	if (files != 1) {
		lec__free(dir);
		return lec__job_fail_as(
			job,
			files ? LEC_BUILD_FAILURE_OUTPUT_MULTIPLE
			      : LEC_BUILD_FAILURE_OUTPUT_EMPTY,
			files ? "Build output directory for format \"%s\" "
				"contains multiple files and it is not "
				"currently supported."
			      : "Build output directory for format \"%s\" does "
				"not contain any files.",
			kind);
	}
	dot = strrchr(name, '.');
	lec__buf_printf(&b, "%s%s", job->project->slug, dot ? dot : "");
	target = lec__buf_take(&b);
	from = lec__path_join(dir, name);
	to = target ? lec__path_join(dir, target) : NULL;
	if (from == NULL || to == NULL ||
	    (strcmp(from, to) != 0 && rename(from, to) != 0))
		rc = lec__job_fail(job, "Publishing the %s file failed.", kind);
	lec__free(from);
	lec__free(to);
	lec__free(target);
	lec__free(dir);
	return rc;
}

/* The version's download flags from an output directory. */
static void downloads_patch(struct lec_version_patch *patch, const char *dir)
{
	patch->set |= LEC_VERSION_SET_HAS_HTMLZIP | LEC_VERSION_SET_HAS_PDF |
		      LEC_VERSION_SET_HAS_EPUB;
	patch->has_htmlzip = has_dir_entries(dir, "htmlzip");
	patch->has_pdf = has_dir_entries(dir, "pdf");
	patch->has_epub = has_dir_entries(dir, "epub");
}

/* Index the published HTML for search (behaviour notes §4.3), recorded as
 * the command `lectern reindex` would run. Pages that fail to parse are
 * indexed empty and listed in its output; nothing here fails the build. */
static void step_index(struct lec__job *job, const char *html_dir)
{
	struct lec_search_index_report r;
	struct lec__buf b = LEC__BUF_INIT;
	char *display, *text;
	int64_t id;
	size_t i;
	int rc;

	lec__buf_printf(&b, "lectern reindex %s %s", job->project->slug,
			job->version->slug);
	if ((display = lec__buf_take(&b)) == NULL ||
	    lec__job_record_start(job, display, &id) < 0) {
		lec__free(display);
		return;
	}
	rc = lec_search_index_dir(job->st, job->version->id, html_dir,
				  job->config, &r);
	if (rc < 0)
		lec__buf_printf(&b, "Indexing for search failed: %s\n",
				lec_error_last());
	else
		lec__buf_printf(&b,
				"Indexed %zu pages (%zu sections and domain "
				"entries); %zu ignored by search.ignore; %zu "
				"could not be parsed.\n",
				r.pages, r.entries, r.ignored, r.failed);
	for (i = 0; rc == LEC_OK && i < r.failures_len; i++)
		lec__buf_printf(&b, "  %s\n", r.failures[i]);
	if ((text = lec__buf_take(&b)) != NULL)
		lec__job_record_text(job, id, text);
	lec__job_record_finish(job, id, rc < 0 ? 1 : 0);
	lec_search_index_report_dispose(&r);
	lec__free(text);
	lec__free(display);
}

/* Check the links of the HTML about to be published (build_warnings.h),
 * against the pages and anchors of the version's last good build: the
 * records go into the build's warnings, a summary and the first of them
 * into its log, and *inventory (owned) is what the next build compares
 * with once this one is published. Nothing here fails the build. */
static void step_links(struct lec__job *job, const char *html_dir,
		       char **inventory, size_t *inventory_len)
{
	struct lec__linkcheck_stats stats;
	struct lec__buf b = LEC__BUF_INIT;
	char *prev = NULL, *text;
	size_t prev_len = 0, first = job->warnings.len, i;
	int rc;

	if (job->warnings_off)
		return;
	job->warnings.secrets = (const char *const *)job->secrets;
	lec_warning_inventory_get(job->st, job->version->id, job->build->id,
				  &prev, &prev_len);
	rc = lec__linkcheck(html_dir, &job->warnings, prev, prev_len,
			    inventory, inventory_len, &stats);
	lec_warning_text_free(prev);
	if (rc < 0)
		lec__buf_printf(&b, "Checking links failed: %s\n",
				lec_error_last());
	else
		lec__buf_printf(&b,
				"Checked %zu internal links in %zu pages: %zu "
				"broken. %zu pages or anchors of the last good "
				"build are gone.\n",
				stats.links, stats.pages, stats.broken,
				stats.removed);
	for (i = first; i < job->warnings.len && i < first + LINKS_LOGGED; i++) {
		const struct lec_warning *w = &job->warnings.items[i];

		lec__buf_printf(&b, "%s:", w->file);
		if (w->line)
			lec__buf_printf(&b, "%u:", w->line);
		lec__buf_printf(&b, " %s: %s\n", lec_warning_kind_code(w->kind),
				w->message);
	}
	if ((text = lec__buf_take(&b)) != NULL)
		lec__job_note(job, "link check $READTHEDOCS_OUTPUT/html",
			      text);
	lec__free(text);
}

/* Remove the outputs of the version's passed builds beyond the newest
 * keep (the one just published, whatever its state, counted first).
 * Failing to list them only keeps them longer. */
static void prune_outputs(const struct lec__publish *p, const char *outputs)
{
	struct lec_build_list list = { 0 };
	unsigned keep = p->keep ? p->keep : LEC_DIFF_KEEP_BUILDS_DEFAULT;
	unsigned kept = 0;
	size_t i;

	if (lec_build_list(p->st, p->project_id, p->version_id, NULL, NULL,
			   &list) < 0)
		return;
	for (i = 0; i < list.len; i++) {
		const struct lec_build *b = &list.items[i];
		char name[24], *dir;
		struct stat sb;

		if (b->id != p->build_id &&
		    (b->state != LEC_BUILD_STATE_FINISHED || !b->success))
			continue;
		snprintf(name, sizeof(name), "%lld", (long long)b->id);
		if ((dir = lec__path_join(outputs, name)) == NULL)
			break;
		if (lstat(dir, &sb) == 0 && S_ISDIR(sb.st_mode) &&
		    ++kept > keep)
			lec__remove_tree(dir);
		lec__free(dir);
	}
	lec_build_list_dispose(&list);
}

int lec__publish_tree(const struct lec__publish *p, const char *src)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *outputs = lec__path_join(p->data_dir, "outputs");
	char *dest = NULL, *pubdir = NULL, *link = NULL, *tmp = NULL;
	char target[PATH_MAX];
	int rc = LEC_OK;

	lec__buf_printf(&b, "%s/%lld", outputs ? outputs : "",
			(long long)p->build_id);
	dest = lec__buf_take(&b);
	lec__buf_printf(&b, "%s/published/%s", p->data_dir, p->project_slug);
	pubdir = lec__buf_take(&b);
	if (outputs == NULL || dest == NULL || pubdir == NULL) {
		rc = lec__error_oom();
		goto done;
	}
	if (lec__mkdirs(outputs) < 0 || lec__mkdirs(pubdir) < 0 ||
	    rename(src, dest) < 0) {
		rc = lec__error(LEC_EIO, "%s", strerror(errno));
		goto done;
	}
	lec__buf_printf(&b, "%s/%s", pubdir, p->version_slug);
	link = lec__buf_take(&b);
	lec__buf_printf(&b, "%s/.%s.%lld.tmp", pubdir, p->version_slug,
			(long long)p->build_id);
	tmp = lec__buf_take(&b);
	snprintf(target, sizeof(target), "../../outputs/%lld",
		 (long long)p->build_id);
	if (tmp)
		unlink(tmp); /* left by a publisher that died here */
	if (link == NULL || tmp == NULL || symlink(target, tmp) < 0 ||
	    rename(tmp, link) < 0) {
		rc = lec__error(LEC_EIO, "%s", strerror(errno));
		lec__remove_tree(dest);
		goto done;
	}
	/* The previous output is no longer served; it stays for diffs while
	 * the version's newest keep hold it. */
	prune_outputs(p, outputs);
done:
	lec__free(outputs);
	lec__free(dest);
	lec__free(pubdir);
	lec__free(link);
	lec__free(tmp);
	return rc;
}

/* The output, out of the kept tree into <build>/publish: each format
 * moved, but the pages Sphinx keeps for its next build copied. */
static int stage_output(struct lec__job *job, const char *stage)
{
	DIR *d = opendir(job->output);
	struct dirent *e;
	int error = LEC_OK;

	if (d == NULL)
		return lec__error(LEC_EIO, "%s", strerror(errno));
	lec__remove_tree(stage);
	if (mkdir(stage, 0700) != 0)
		error = lec__error(LEC_EIO, "%s", strerror(errno));
	while (error == LEC_OK && (e = readdir(d)) != NULL) {
		char *from, *to;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		from = lec__path_join(job->output, e->d_name);
		to = lec__path_join(stage, e->d_name);
		if (from == NULL || to == NULL)
			error = lec__error_oom();
		else if (job->keep_html && strcmp(e->d_name, "html") == 0)
			error = lec__copy_tree(from, to);
		else if (rename(from, to) != 0)
			error = lec__error(LEC_EIO, "%s", strerror(errno));
		lec__free(from);
		lec__free(to);
	}
	closedir(d);
	return error;
}

/* Move the output out of the checkout, point the version's published link
 * at it with one rename(), then drop outputs beyond the version's kept
 * ones. */
int lec__job_publish(struct lec__job *job)
{
	struct lec_version_patch patch = { 0 };
	struct lec__publish pub = {
		job->st,
		job->env->data_dir,
		job->project->slug,
		job->project->id,
		job->version->id,
		job->version->slug,
		job->build->id,
		job->env->keep_builds,
	};
	char *stage = lec__path_join(job->build_dir, "publish");
	char *html = stage ? lec__path_join(stage, "html") : NULL;
	char *published = NULL, *inventory = NULL;
	size_t inventory_len = 0;
	int rc = LEC_ERROR;

	if (html == NULL)
		goto done;
	/* Every process of the build has ended: nothing changes the tree
	 * between these checks, this walk and the rename. The path down to
	 * the output must not be a link the build made. */
	if (lec__job_real_dirs(job, job->checkout, "_readthedocs") != 1) {
		lec__job_fail_as(job, LEC_BUILD_FAILURE_NO_INDEX, NO_INDEX_ERROR);
		goto done;
	}
	if (stage_output(job, stage) < 0 || lec__sanitize_tree(stage) < 0) {
		lec__job_fail(job, "Publishing the output failed: %s",
			      lec_error_last());
		goto done;
	}
	if (!has_file(html, "index.html")) {
		lec__job_fail_as(job, LEC_BUILD_FAILURE_NO_INDEX, NO_INDEX_ERROR);
		goto done;
	}
	if (single_file(job, stage, "htmlzip") < 0 ||
	    single_file(job, stage, "pdf") < 0 ||
	    single_file(job, stage, "epub") < 0)
		goto done;
	downloads_patch(&patch, stage);
	step_links(job, html, &inventory, &inventory_len);
	if (lec__publish_tree(&pub, stage) < 0) {
		lec__job_fail(job, "Publishing the output failed: %s",
			      lec_error_last());
		goto done;
	}
	if (inventory)
		lec_warning_inventory_save(job->st, job->build->id, inventory,
					   inventory_len);
	patch.set |= LEC_VERSION_SET_DOCUMENTATION_TYPE;
	patch.documentation_type = lec_doctype_code(job->doctype);
	lec_version_update(job->st, job->version->id, &patch);
	{
		struct lec__buf b = LEC__BUF_INIT;

		lec__buf_printf(&b, "%s/outputs/%lld/html", job->env->data_dir,
				(long long)job->build->id);
		if ((published = lec__buf_take(&b)) != NULL)
			step_index(job, published);
	}
	rc = LEC_OK;
done:
	lec__free(stage);
	lec__free(html);
	lec__free(published);
	lec__free(inventory);
	return rc;
}

/* Recovery ------------------------------------------------------------------ */

/* Whether build's output is what the version's published link names: the
 * swap (lec__publish_tree) happened. Fills the link's path. */
static int is_published(const char *data_dir, const struct lec_project *p,
			const struct lec_version *v, int64_t build_id,
			char *link, size_t cap)
{
	char target[PATH_MAX], want[64];
	ssize_t n;

	snprintf(link, cap, "%s/published/%s/%s", data_dir, p->slug, v->slug);
	snprintf(want, sizeof(want), "../../outputs/%lld", (long long)build_id);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return 0;
	target[n] = '\0';
	return strcmp(target, want) == 0;
}

/* The configuration the build had, read again from the version's kept
 * tree (search.ignore and the like); NULL when there is none. */
static struct lec_rtd_config *kept_config(const char *data_dir,
					  const struct lec_project *p,
					  const struct lec_version *v)
{
	struct lec_rtd_config *config = NULL;
	struct lec__buf b = LEC__BUF_INIT;
	char *tree, *rel = NULL;

	lec__buf_printf(&b, "%s/checkouts/%s/%s", data_dir, p->slug, v->slug);
	if ((tree = lec__buf_take(&b)) != NULL &&
	    lec_rtd_config_find(tree, p->readthedocs_yaml_path, &rel) == LEC_OK)
		lec_rtd_config_load(tree, rel, &config);
	lec_error_clear();
	lec__free(rel);
	lec__free(tree);
	return config;
}

int lec__publish_recover(struct lec_store *st, const char *data_dir,
			 const struct lec_build *build)
{
	struct lec_version_patch patch = { 0 };
	struct lec_search_index_report r;
	struct lec_rtd_config *config = NULL;
	struct lec_project *p = NULL;
	struct lec_version *v = NULL;
	char link[PATH_MAX], *html = NULL;
	int published = 0;

	if (build->version_id == 0 ||
	    lec_project_get_by_id(st, build->project_id, &p) < 0 ||
	    lec_version_get_by_id(st, build->version_id, &v) < 0 ||
	    !is_published(data_dir, p, v, build->id, link, sizeof(link)))
		goto done;
	published = 1;
	/* What is served decides: its downloads, and its pages indexed. */
	downloads_patch(&patch, link);
	lec_version_update(st, v->id, &patch);
	if ((html = lec__path_join(link, "html")) != NULL) {
		config = kept_config(data_dir, p, v);
		if (lec_search_index_dir(st, v->id, html, config, &r) == LEC_OK)
			lec_search_index_report_dispose(&r);
	}
done:
	lec_error_clear();
	lec_rtd_config_free(config);
	lec__free(html);
	lec_project_free(p);
	lec_version_free(v);
	return published;
}
