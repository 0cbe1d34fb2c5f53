/*
 * Offline mirrors (mirror.h): the local side of `lectern mirror`. Pages
 * arrive one by one into <data>/mirror-staging/<project>/<version>/ and a
 * publish assembles the version's next output beside it, from the staged
 * pages and the pages the version serves now, then hands it to the same
 * publishing step builds use (lec__publish_tree: sanitize first, one
 * rename() of the link, old outputs kept for diffs) and indexes it.
 *
 * The pages came from another instance and are untrusted exactly as a
 * build's output is: paths are checked before anything is written, files
 * are created without following links, and the assembled tree is
 * sanitized before it is published.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_publish.h"
#include "files.h"
#include "internal.h"
#include "lectern/mirror.h"
#include "lectern/pageparse.h"
#include "lectern/search.h"
#include "lectern/slug.h"
#include "lectern/version.h"
#include "search_internal.h"
#include "store_internal.h"

/* The file beside a refresh's html/ that lists its pages and their tags. */
#define MIRROR_MANIFEST "mirror.json"
/* Bytes copied per read when a page is kept from the previous refresh. */
#define COPY_CHUNK 65536

/* A page path as mirror.h allows it. */
static int check_path(const char *path)
{
	size_t len = path ? strlen(path) : 0, name;
	const char *p;

	if (len == 0 || len > LEC_MIRROR_PATH_MAX || path[0] == '/' ||
	    len < 6 || strcmp(path + len - 5, ".html") != 0)
		return lec__error_field(LEC_EINVALID, "path",
					"A page path is relative, ends in "
					".html and has at most %d bytes.",
					LEC_MIRROR_PATH_MAX);
	for (p = path; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '\\' ||
		    (*p == '/' && p[1] == '/') ||
		    ((p == path || p[-1] == '/') && p[0] == '.' &&
		     (p[1] == '/' || (p[1] == '.' && (p[2] == '/' ||
						      p[2] == '\0')))))
			return lec__error_field(LEC_EINVALID, "path",
						"A page path may not hold '..', "
						"'.', '//', backslashes or "
						"control characters.");
	for (p = path; *p; p += name + (p[name] == '/'))
		if ((name = strcspn(p, "/")) > LEC_MIRROR_NAME_MAX)
			return lec__error_field(LEC_EINVALID, "path",
						"A name in a page path has at "
						"most %d bytes.",
						LEC_MIRROR_NAME_MAX);
	return LEC_OK;
}

static int check_version(const char *version)
{
	if (!lec_slug_version_valid(version))
		return lec__error(LEC_EINVALID, "Not a version slug.");
	return LEC_OK;
}

/* Creating ------------------------------------------------------------------ */

static int find_mirror(struct lec_store *st, const char *source,
		       const char *project, struct lec_project **out)
{
	sqlite3_stmt *stmt = NULL;
	char *slug = NULL;
	int rc;

	if ((rc = lec_store__prepare(st, &stmt,
				     "SELECT slug FROM projects WHERE "
				     "mirror_source = ? AND mirror_project = ?"
				     )) < 0)
		return rc;
	if ((rc = lec_store__bind_text(stmt, 1, source)) == LEC_OK &&
	    (rc = lec_store__bind_text(stmt, 2, project)) == LEC_OK) {
		int step = sqlite3_step(stmt);

		if (step == SQLITE_ROW)
			rc = lec_store__col_text(stmt, 0, &slug);
		else if (step == SQLITE_DONE)
			rc = LEC_ENOTFOUND;
		else
			rc = lec_store__sqlerr(st, step, "finding a mirror");
	}
	lec_store__finalize(st, stmt);
	if (rc == LEC_OK)
		rc = lec_project_get(st, slug, out);
	lec__free(slug);
	return rc;
}

static int mark_mirror(struct lec_store *st, int64_t id,
		       const struct lec_mirror_new *in)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	if ((rc = lec_store__prepare(st, &stmt,
				     "UPDATE projects SET mirror_source = ?, "
				     "mirror_project = ?, repo_url = ?, "
				     "watch_commits = 0, poll_interval = 0 "
				     "WHERE id = ?")) < 0)
		return rc;
	if ((rc = lec_store__bind_text(stmt, 1, in->source)) == LEC_OK &&
	    (rc = lec_store__bind_text(stmt, 2, in->project)) == LEC_OK &&
	    (rc = lec_store__bind_text(stmt, 3, in->source)) == LEC_OK) {
		sqlite3_bind_int64(stmt, 4, id);
		rc = lec_store__step_done(st, stmt, "marking a mirror");
	}
	lec_store__finalize(st, stmt);
	return rc;
}

int lec_mirror_ensure(struct lec_store *st, const struct lec_mirror_new *in,
		      int64_t user_id, struct lec_project **out, int *created)
{
	struct lec_project_new pn = { 0 };
	struct lec_project *p = NULL;
	int rc;

	lec_error_clear();
	if (created)
		*created = 0;
	if (out == NULL || in == NULL)
		return lec__error(LEC_EINVALID, "no mirror to make");
	*out = NULL;
	/* ssh://[USER@]HOST[:PORT]: an ssh context's remote engine, whose
	 * API URL (the forwarded socket's) names no machine. */
	if (in->source == NULL ||
	    (strncmp(in->source, "http://", 7) != 0 &&
	     strncmp(in->source, "https://", 8) != 0 &&
	     strncmp(in->source, "ssh://", 6) != 0))
		return lec__error_field(LEC_EINVALID, "source",
					"The source is the remote's API URL "
					"(http or https), or ssh://HOST for "
					"an ssh context.");
	if (!lec_slug_version_valid(in->project))
		return lec__error_field(LEC_EINVALID, "project",
					"Not a project slug.");
	rc = find_mirror(st, in->source, in->project, &p);
	if (rc != LEC_ENOTFOUND) {
		*out = p;
		return rc;
	}
	lec_error_clear();
	pn.name = in->name;
	/* A mirror has no repository: the address shown is where it came
	 * from, which is never cloned (builds are refused). It is set when
	 * the project is marked, as an ssh:// source is no repository URL
	 * the project rules take. */
	pn.repo_url = "https://localhost/";
	pn.language = in->language;
	/* Made then marked: a project left unmarked by a failure here is
	 * deleted again, so no half-made mirror is ever built. */
	if ((rc = lec_project_create(st, &pn, user_id, &p)) == LEC_OK &&
	    (rc = mark_mirror(st, p->id, in)) < 0)
		lec_project_delete(st, p->id);
	lec_project_free(p);
	p = NULL;
	if (rc == LEC_OK)
		rc = find_mirror(st, in->source, in->project, &p);
	if (rc == LEC_OK && created)
		*created = 1;
	*out = p;
	return rc;
}

/* Staging -------------------------------------------------------------------- */

/* <data>/mirror-staging/<project>/<version>, owned. */
static char *staging_dir(const char *data_dir, const char *project,
			 const char *version)
{
	struct lec__buf b = LEC__BUF_INIT;

	lec__buf_printf(&b, "%s/mirror-staging/%s/%s", data_dir, project,
			version);
	return lec__buf_take(&b);
}

/* Write data to root/rel, making its directories; nothing on the way is
 * followed if it is a link (the tree is ours, but a check costs nothing). */
static int write_below(const char *root, const char *rel, const void *data,
		       size_t len)
{
	char *file = lec__path_join(root, rel), *slash;
	int fd, rc = LEC_OK;

	if (file == NULL)
		return lec__error_oom();
	slash = strrchr(file, '/');
	*slash = '\0';
	rc = lec__mkdirs(file);
	*slash = '/';
	if (rc < 0)
		goto done;
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0) {
		rc = lec__error(LEC_EIO, "cannot write %s: %s", rel,
				strerror(errno));
		goto done;
	}
	if (lec__write_all(fd, data, len) < 0)
		rc = lec__error(LEC_EIO, "cannot write %s: %s", rel,
				strerror(errno));
	if (close(fd) < 0 && rc == LEC_OK)
		rc = lec__error(LEC_EIO, "cannot write %s: %s", rel,
				strerror(errno));
done:
	lec__free(file);
	return rc;
}

int lec_mirror_stage(const char *data_dir, const struct lec_project *mirror,
		     const char *version, const char *path, const void *data,
		     size_t len)
{
	char *dir = NULL, *html = NULL;
	int rc;

	lec_error_clear();
	if (data_dir == NULL || mirror == NULL || (data == NULL && len > 0))
		return lec__error(LEC_EINVALID, "nothing to stage");
	if (mirror->mirror_source == NULL)
		return lec__error(LEC_EINVALID, "This project is not a mirror.");
	if ((rc = check_version(version)) < 0 || (rc = check_path(path)) < 0)
		return rc;
	if (len > LEC_PAGE_HTML_MAX)
		return lec__error(LEC_ELIMIT, "A page is at most %u bytes.",
				  LEC_PAGE_HTML_MAX);
	if ((dir = staging_dir(data_dir, mirror->slug, version)) == NULL ||
	    (html = lec__path_join(dir, "html")) == NULL)
		rc = lec__error_oom();
	else
		rc = write_below(html, path, data, len);
	lec__free(dir);
	lec__free(html);
	return rc;
}

/* Publishing ------------------------------------------------------------- */

/* Copy the file src to root/rel (src lies in a published tree, which was
 * sanitized: no links below its root). */
static int copy_below(const char *src, const char *root, const char *rel)
{
	char *data = NULL;
	size_t len = 0;
	int rc;

	if ((rc = lec__page_read(src, &data, &len)) == LEC_OK)
		rc = write_below(root, rel, data, len);
	lec__free(data);
	return rc;
}

/* Put each page into tree/html: staged, else served now. */
static int assemble(const char *staged, const char *served, const char *tree,
		    const struct lec_mirror_page *pages, size_t n,
		    struct lec_mirror_report *r)
{
	char *html = lec__path_join(tree, "html");
	size_t i;
	int rc = html ? LEC_OK : lec__error_oom();

	for (i = 0; rc == LEC_OK && i < n; i++) {
		char *from = lec__path_join(staged, pages[i].path), *to;
		struct stat sb;

		if (from == NULL) {
			rc = lec__error_oom();
			break;
		}
		if (lstat(from, &sb) == 0 && S_ISREG(sb.st_mode)) {
			if ((to = lec__path_join(html, pages[i].path)) == NULL) {
				rc = lec__error_oom();
			} else {
				char *slash = strrchr(to, '/');

				*slash = '\0';
				rc = lec__mkdirs(to);
				*slash = '/';
				/* Linked, not moved: a publish that fails
				 * leaves the staged pages for the next. */
				if (rc == LEC_OK && link(from, to) < 0)
					rc = lec__error(LEC_EIO, "%s: %s",
							pages[i].path,
							strerror(errno));
				lec__free(to);
			}
			r->uploaded++;
		} else {
			char *old = served ? lec__path_join(served,
							    pages[i].path)
					   : NULL;

			if (old == NULL || lstat(old, &sb) != 0 ||
			    !S_ISREG(sb.st_mode))
				rc = lec__error_field(
					LEC_EINVALID, "pages",
					"Page %s was neither uploaded nor "
					"served before.",
					pages[i].path);
			else
				rc = copy_below(old, html, pages[i].path);
			lec__free(old);
			r->unchanged++;
		}
		lec__free(from);
	}
	lec__free(html);
	return rc;
}

static int write_manifest(const char *tree, const struct lec_mirror_page *p,
			  size_t n)
{
	cJSON *o = cJSON_CreateObject();
	char *text = NULL;
	size_t i;
	int rc;

	for (i = 0; o && i < n; i++)
		if (cJSON_AddStringToObject(o, p[i].path, p[i].etag) == NULL)
			break;
	if (o == NULL || i < n || (text = cJSON_PrintUnformatted(o)) == NULL)
		rc = lec__error_oom();
	else
		rc = write_below(tree, MIRROR_MANIFEST, text, strlen(text));
	cJSON_free(text);
	cJSON_Delete(o);
	return rc;
}

static int check_pages(const struct lec_mirror_page *pages, size_t n)
{
	size_t i;
	int rc;

	if (n == 0 || n > LEC_MIRROR_PAGES_MAX)
		return lec__error_field(LEC_EINVALID, "pages",
					"A refresh lists 1 to %d pages.",
					LEC_MIRROR_PAGES_MAX);
	for (i = 0; i < n; i++) {
		if ((rc = check_path(pages[i].path)) < 0)
			return rc;
		if (pages[i].etag == NULL ||
		    strlen(pages[i].etag) > LEC_MIRROR_ETAG_MAX)
			return lec__error_field(LEC_EINVALID, "pages",
						"An entity tag has at most %d "
						"bytes.",
						LEC_MIRROR_ETAG_MAX);
	}
	return LEC_OK;
}

/* The version to publish into, created active when missing. */
static int ensure_version(struct lec_store *st, const struct lec_project *p,
			  const char *slug, struct lec_version **out)
{
	int rc = lec_version_get(st, p->id, slug, out);
	struct lec_version_patch patch = { 0 };

	if (rc == LEC_ENOTFOUND) {
		lec_error_clear();
		rc = lec_version_create(st, p->id, slug, slug,
					LEC_VERSION_BRANCH, 1, out);
		if (rc == LEC_OK && strcmp((*out)->slug, slug) != 0) {
			rc = lec__error(LEC_EINVALID,
					"Version %s would be named %s here.",
					slug, (*out)->slug);
			lec_version_delete(st, (*out)->id);
		}
	} else if (rc == LEC_OK && !(*out)->active) {
		patch.set = LEC_VERSION_SET_ACTIVE;
		patch.active = 1;
		rc = lec_version_update(st, (*out)->id, &patch);
	}
	if (rc < 0) {
		lec_version_free(*out);
		*out = NULL;
	}
	return rc;
}

/* The build row recording a refresh, finished and passed. */
static int record_refresh(struct lec_store *st, int64_t project_id,
			  int64_t version_id, int64_t *id)
{
	int64_t now = lec__now_us();
	int64_t v[5] = { project_id, version_id, now, now, now };
	int rc;

	rc = lec_store__exec_ints(
		st,
		"INSERT INTO builds (project_id, version_id, type, state, "
		"success, created, started, finished, duration, triggered_by) "
		"VALUES (?, ?, 'html', 'finished', 1, ?, ?, ?, 0, 'mirror')",
		v, 5, "recording a mirror refresh", NULL);
	if (rc == LEC_OK)
		*id = sqlite3_last_insert_rowid(st->db);
	return rc;
}

/* <data>/published/<project>/<version>/html when it is served, owned. */
static char *served_dir(const char *data_dir, const char *project,
			const char *version)
{
	struct lec__buf b = LEC__BUF_INIT;
	struct stat sb;
	char *dir;

	lec__buf_printf(&b, "%s/published/%s/%s/html", data_dir, project,
			version);
	dir = lec__buf_take(&b);
	if (dir && (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
		lec__free(dir);
		dir = NULL;
	}
	return dir;
}

int lec_mirror_publish(struct lec_store *st, const char *data_dir,
		       const struct lec_project *p, const char *version,
		       const struct lec_mirror_page *pages, size_t n,
		       unsigned keep, struct lec_mirror_report *report)
{
	struct lec_mirror_report own = { 0 };
	struct lec_mirror_report *r = report ? report : &own;
	struct lec_version *v = NULL;
	struct lec_version_patch patch = { 0 };
	struct lec__buf b = LEC__BUF_INIT;
	struct lec_search_index_report ir = { 0 };
	char *stage = NULL, *staged = NULL, *served = NULL, *tree = NULL;
	char *html = NULL;
	int64_t upd[2];
	int rc;

	lec_error_clear();
	memset(r, 0, sizeof(*r));
	if (st == NULL || data_dir == NULL || p == NULL)
		return lec__error(LEC_EINVALID, "nothing to publish");
	if (p->mirror_source == NULL)
		return lec__error(LEC_EINVALID, "This project is not a mirror.");
	if ((rc = check_version(version)) < 0 ||
	    (rc = check_pages(pages, n)) < 0)
		return rc;
	if ((stage = staging_dir(data_dir, p->slug, version)) == NULL ||
	    (staged = lec__path_join(stage, "html")) == NULL) {
		rc = lec__error_oom();
		goto done;
	}
	served = served_dir(data_dir, p->slug, version);
	lec__buf_printf(&b, "%s/mirror-staging/%s/.%s.next", data_dir,
			p->slug, version);
	if ((tree = lec__buf_take(&b)) == NULL) {
		rc = lec__error_oom();
		goto done;
	}
	lec__remove_tree(tree); /* left by a refresh that died */
	if ((rc = lec__mkdirs(tree)) < 0 ||
	    (rc = assemble(staged, served, tree, pages, n, r)) < 0 ||
	    (rc = write_manifest(tree, pages, n)) < 0 ||
	    (rc = lec__sanitize_tree(tree)) < 0 ||
	    (rc = ensure_version(st, p, version, &v)) < 0 ||
	    (rc = record_refresh(st, p->id, v->id, &r->build_id)) < 0)
		goto done;
	{
		struct lec__publish pub = { st,    data_dir,    p->slug,
					    p->id, v->id,       v->slug,
					    r->build_id, keep };

		if ((rc = lec__publish_tree(&pub, tree)) < 0)
			goto done;
	}
	patch.set = LEC_VERSION_SET_BUILT | LEC_VERSION_SET_UPLOADED |
		    LEC_VERSION_SET_DOCUMENTATION_TYPE;
	patch.built = patch.uploaded = 1;
	patch.documentation_type = "generic";
	upd[0] = lec__now_us();
	upd[1] = p->id;
	if ((rc = lec_version_update(st, v->id, &patch)) < 0 ||
	    (rc = lec_store__exec_ints(st,
				       "UPDATE projects SET mirror_updated = ? "
				       "WHERE id = ?",
				       upd, 2, "recording a mirror refresh",
				       NULL)) < 0)
		goto done;
	lec__buf_printf(&b, "%s/outputs/%lld/html", data_dir,
			(long long)r->build_id);
	if ((html = lec__buf_take(&b)) == NULL) {
		rc = lec__error_oom();
		goto done;
	}
	/* Search follows; a page that does not parse indexes empty. */
	if ((rc = lec_search_index_dir(st, v->id, html, NULL, &ir)) == LEC_OK)
		r->indexed = ir.pages;
done:
	/* Published: the staged pages are done with. Failed: they stay for
	 * another try, and the half-made tree goes. */
	if (stage && rc == LEC_OK)
		lec__remove_tree(stage);
	if (tree && rc < 0)
		lec__remove_tree(tree);
	lec_search_index_report_dispose(&ir);
	lec_version_free(v);
	lec__free(stage);
	lec__free(staged);
	lec__free(served);
	lec__free(tree);
	lec__free(html);
	return rc;
}

int lec_mirror_etags(const char *data_dir, const struct lec_project *p,
		     const char *version, char **json)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *file, *data = NULL;
	size_t len = 0;
	int rc;

	lec_error_clear();
	if (json == NULL || data_dir == NULL || p == NULL)
		return lec__error(LEC_EINVALID, "no mirror to read");
	*json = NULL;
	if ((rc = check_version(version)) < 0)
		return rc;
	lec__buf_printf(&b, "%s/published/%s/%s/" MIRROR_MANIFEST, data_dir,
			p->slug, version);
	if ((file = lec__buf_take(&b)) == NULL)
		return lec__error_oom();
	rc = lec__page_read(file, &data, &len);
	lec__free(file);
	if (rc == LEC_ENOMEM)
		return rc;
	lec__free(*json);
	*json = rc == LEC_OK ? lec__strndup(data, len) : lec__strdup("{}");
	lec__free(data);
	return *json ? LEC_OK : lec__error_oom();
}

void lec_mirror_free_string(char *s)
{
	lec__free(s);
}
