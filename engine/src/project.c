/*
 * Projects, maintainers, subprojects and translations over the store.
 *
 * Validation mirrors the hosted service's v3 serializers so that the HTTP API
 * can pass the engine's message and field straight to the client: strings
 * are trimmed as the service's CharField trims them, lengths are counted in
 * characters, choices answer '"x" is not a valid choice.', and the
 * repository URL goes through the service's RepositoryURLValidator rules.
 * Import and update share one path: an import is a patch applied to the
 * defaults of a new project.
 */
#include <string.h>
#include <strings.h>

#include "lectern/language.h"
#include "lectern/localrepo.h"
#include "lectern/project.h"
#include "lectern/slug.h"
#include "store_internal.h"

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

#define SCHEME_WITH_TRANSLATIONS "multiple_versions_with_translations"
#define SCHEME_WITHOUT_TRANSLATIONS "multiple_versions_without_translations"
#define SCHEME_SINGLE "single_version_without_translations"

/* The service's own length limit for DNS host names (RFC 1034). */
#define HOSTNAME_MAX 253
/* Longest DNS label. */
#define LABEL_MAX 63
/* Longest port: five digits. */
#define PORT_DIGITS_MAX 5

static const char *const privacy_levels[] = { "public", "private", NULL };
static const char *const versioning_schemes[] = {
	SCHEME_WITH_TRANSLATIONS, SCHEME_WITHOUT_TRANSLATIONS, SCHEME_SINGLE,
	NULL
};
static const char *const repo_types[] = { "git", NULL };
static const char *const documentation_types[] = {
	"sphinx", "mkdocs", "sphinx_htmldir", "sphinx_singlehtml", NULL
};

/* Reading rows ------------------------------------------------------------ */

/* A project row: the id, the text columns in project_read's order, then the
 * integers. m is the main-language project, pr the link to a superproject
 * and sp that superproject. */
#define PROJECT_COLUMNS                                                      \
	"p.id, p.name, p.slug, p.description, p.language, "                  \
	"p.programming_language, p.repo_url, p.repo_type, p.homepage, "      \
	"p.default_version, p.default_branch, p.privacy_level, "             \
	"p.external_builds_privacy_level, p.versioning_scheme, "             \
	"p.analytics_code, p.readthedocs_yaml_path, p.documentation_type, "  \
	"m.slug, sp.slug, pr.alias, "                                        \
	"p.external_builds_enabled, p.show_version_warning, "                \
	"p.analytics_disabled, p.main_language_project_id, p.created, "      \
	"p.modified, p.watch_commits, p.poll_interval, "                     \
	"p.mirror_source, p.mirror_project, p.mirror_updated"
#define PROJECT_JOINS                                                        \
	" LEFT JOIN projects m ON m.id = p.main_language_project_id"         \
	" LEFT JOIN subprojects pr ON pr.child_id = p.id"                    \
	" LEFT JOIN projects sp ON sp.id = pr.parent_id"
#define PROJECT_FROM "projects p" PROJECT_JOINS

static void strings_free(char **strings, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		lec__free(strings[i]);
	lec__free(strings);
}

static void project_dispose(void *item)
{
	struct lec_project *p = item;
	char **texts[] = {
		&p->name, &p->slug, &p->description, &p->language,
		&p->programming_language, &p->repo_url, &p->repo_type,
		&p->homepage, &p->default_version, &p->default_branch,
		&p->privacy_level, &p->external_builds_privacy_level,
		&p->versioning_scheme, &p->analytics_code,
		&p->readthedocs_yaml_path, &p->documentation_type,
		&p->translation_of, &p->superproject_slug,
		&p->superproject_alias, &p->mirror_source, &p->mirror_project,
	};
	size_t i;

	for (i = 0; i < COUNT_OF(texts); i++)
		lec__free(*texts[i]);
	strings_free(p->tags, p->ntags);
	strings_free(p->users, p->nusers);
	memset(p, 0, sizeof(*p));
}

/* Read the PROJECT_COLUMNS that start at column col. */
static int project_read(sqlite3_stmt *stmt, int col, struct lec_project *p)
{
	char **texts[] = {
		&p->name, &p->slug, &p->description, &p->language,
		&p->programming_language, &p->repo_url, &p->repo_type,
		&p->homepage, &p->default_version, &p->default_branch,
		&p->privacy_level, &p->external_builds_privacy_level,
		&p->versioning_scheme, &p->analytics_code,
		&p->readthedocs_yaml_path, &p->documentation_type,
		&p->translation_of, &p->superproject_slug,
		&p->superproject_alias,
	};
	size_t i;
	int error;

	p->id = sqlite3_column_int64(stmt, col++);
	for (i = 0; i < COUNT_OF(texts); i++)
		if ((error = lec_store__col_text(stmt, col++, texts[i])) < 0)
			return error;
	p->external_builds_enabled = sqlite3_column_int(stmt, col++);
	p->show_version_warning = sqlite3_column_int(stmt, col++);
	p->analytics_disabled = sqlite3_column_int(stmt, col++);
	p->main_language_project_id = sqlite3_column_int64(stmt, col++);
	p->created = sqlite3_column_int64(stmt, col++);
	p->modified = sqlite3_column_int64(stmt, col++);
	p->watch_commits = sqlite3_column_int(stmt, col++);
	p->poll_interval = (unsigned)sqlite3_column_int(stmt, col++);
	if ((error = lec_store__col_text(stmt, col++, &p->mirror_source)) < 0 ||
	    (error = lec_store__col_text(stmt, col++, &p->mirror_project)) < 0)
		return error;
	p->mirror_updated = sqlite3_column_int64(stmt, col);
	p->single_version = p->versioning_scheme &&
			    strcmp(p->versioning_scheme, SCHEME_SINGLE) == 0;
	return LEC_OK;
}

static int project_row(sqlite3_stmt *stmt, void *item)
{
	return project_read(stmt, 0, item);
}

static int name_row(sqlite3_stmt *stmt, void *item)
{
	return lec_store__col_text(stmt, 0, item);
}

static void name_dispose(void *item)
{
	lec__free(*(char **)item);
}

/* The first column of every row of a query over one id, in order. */
static int names_load(struct lec_store *st, const char *columns,
		      const char *from, const char *where, const char *order,
		      int64_t id, char ***out, size_t *n)
{
	struct lec__query q;
	int error;

	lec__query_init(&q, columns, from);
	lec__query_where_int(&q, where, id);
	error = lec__query_list(st, &q, order, NULL, sizeof(char *), name_row,
				name_dispose, (void **)out, n, NULL);
	lec__query_dispose(&q);
	return error;
}

/* Tags and maintainers live in their own tables. */
static int project_load_members(struct lec_store *st, struct lec_project *p)
{
	int error;

	error = names_load(st, "name", "project_tags", "project_id = ?",
			   "name", p->id, &p->tags, &p->ntags);
	if (error == LEC_OK)
		error = names_load(st, "u.username",
				   "project_users pu JOIN users u "
				   "ON u.id = pu.user_id",
				   "pu.project_id = ?", "u.username", p->id,
				   &p->users, &p->nusers);
	return error;
}

/* Run a project query into a list and load each project's members. */
static int project_query_list(struct lec_store *st, struct lec__query *q,
			      const char *order, const struct lec_page *page,
			      struct lec_project_list *out)
{
	size_t i;
	int error;

	error = lec__query_list(st, q, order, page, sizeof(*out->items),
				project_row, project_dispose,
				(void **)&out->items, &out->len, &out->total);
	for (i = 0; error == LEC_OK && i < out->len; i++)
		error = project_load_members(st, &out->items[i]);
	if (error < 0) {
		lec__items_free(out->items, out->len, sizeof(*out->items),
				project_dispose);
		memset(out, 0, sizeof(*out));
	}
	return error;
}

/* The one project matching `where` (one '?': text when text is non-NULL,
 * else id); LEC_ENOTFOUND without a message of its own when none. */
static int project_fetch(struct lec_store *st, const char *where,
			 const char *text, int64_t id,
			 struct lec_project **out)
{
	struct lec_project_list list = { NULL, 0, 0 };
	struct lec__query q;
	int error;

	*out = NULL;
	lec__query_init(&q, PROJECT_COLUMNS, PROJECT_FROM);
	if (text)
		lec__query_where_text(&q, where, text);
	else
		lec__query_where_int(&q, where, id);
	error = project_query_list(st, &q, NULL, NULL, &list);
	lec__query_dispose(&q);
	if (error < 0)
		return error;
	if (list.len == 0) {
		lec__free(list.items);
		return text ? lec__error(LEC_ENOTFOUND, "no project '%s'", text)
			    : lec__error(LEC_ENOTFOUND,
					 "no project with id %lld",
					 (long long)id);
	}
	*out = list.items;
	return LEC_OK;
}

void lec_project_free(struct lec_project *project)
{
	if (project == NULL)
		return;
	project_dispose(project);
	lec__free(project);
}

void lec_project_list_dispose(struct lec_project_list *list)
{
	if (list == NULL)
		return;
	lec__items_free(list->items, list->len, sizeof(*list->items),
			project_dispose);
	memset(list, 0, sizeof(*list));
}

int lec_project_get(struct lec_store *st, const char *slug,
		    struct lec_project **out)
{
	lec_error_clear();
	*out = NULL;
	if (slug == NULL)
		return lec__error(LEC_EINVALID, "no project slug given");
	return project_fetch(st, "p.slug = ?", slug, 0, out);
}

int lec_project_get_by_id(struct lec_store *st, int64_t id,
			  struct lec_project **out)
{
	lec_error_clear();
	*out = NULL;
	return project_fetch(st, "p.id = ?", NULL, id, out);
}

/* Small statements --------------------------------------------------------- */

/* Prepare sql and bind ids to ?1..?n. */
static int prepare_ids(struct lec_store *st, sqlite3_stmt **stmt,
		       const char *sql, const int64_t *ids, int nids)
{
	int error, i;

	if ((error = lec_store__prepare(st, stmt, sql)) < 0)
		return error;
	for (i = 0; i < nids; i++)
		sqlite3_bind_int64(*stmt, i + 1, ids[i]);
	return LEC_OK;
}

/* Run a write over ids; *changes (may be NULL) gets the rows touched. */
static int run_ids(struct lec_store *st, const char *sql, const char *what,
		   const int64_t *ids, int nids, int *changes)
{
	return lec_store__exec_ints(st, sql, ids, nids, what, changes);
}

/* The integer in the first column of the first row; *found is 0 when
 * there is no row. */
static int query_int_ids(struct lec_store *st, const char *sql,
			 const int64_t *ids, int nids, int64_t *value,
			 int *found)
{
	return lec_store__query_int(st, sql, ids, nids, "reading", value, found);
}

static int row_exists(struct lec_store *st, const char *sql, int64_t id,
		      int *found)
{
	int64_t value;

	return query_int_ids(st, sql, &id, 1, &value, found);
}

int lec__project_exists(struct lec_store *st, int64_t id)
{
	int found = 0;
	int error = row_exists(st, "SELECT 1 FROM projects WHERE id = ?", id,
			       &found);

	if (error == LEC_OK && !found)
		error = lec__error(LEC_ENOTFOUND, "no project with id %lld",
				   (long long)id);
	return error;
}

static int require_user(struct lec_store *st, int64_t id)
{
	int found = 0;
	int error = row_exists(st, "SELECT 1 FROM users WHERE id = ?", id,
			       &found);

	if (error == LEC_OK && !found)
		error = lec__error(LEC_ENOTFOUND, "no user with id %lld",
				   (long long)id);
	return error;
}

static int user_is_superuser(struct lec_store *st, int64_t user_id,
			     int *is_superuser)
{
	int64_t value = 0;
	int found = 0;
	int error = query_int_ids(st,
				  "SELECT is_superuser FROM users WHERE id = ?",
				  &user_id, 1, &value, &found);

	*is_superuser = found && value;
	return error;
}

/* Access ------------------------------------------------------------------ */

/* What user_id may do with the project: bit 2 admin, bit 1 reader (admins,
 * organization teams holding it), bit 0 public. Superusers are admins. */
static int project_access(struct lec_store *st, int64_t project_id,
			  int64_t user_id, int *is_admin, int *is_reader,
			  int *is_public)
{
	static const char sql[] =
		"SELECT (coalesce((SELECT is_superuser FROM users "
		"                  WHERE id = ?2), 0) <> 0"
		"        OR EXISTS (SELECT 1 FROM project_admins"
		"                   WHERE project_id = p.id AND user_id = ?2))"
		"       * 4"
		"     + EXISTS (SELECT 1 FROM project_readers"
		"               WHERE project_id = p.id AND user_id = ?2) * 2"
		"     + (p.privacy_level = 'public')"
		"  FROM projects p WHERE p.id = ?1";
	int64_t ids[2] = { project_id, user_id };
	int64_t bits = 0;
	int found = 0;
	int error = query_int_ids(st, sql, ids, 2, &bits, &found);

	if (error < 0)
		return error;
	if (!found)
		return lec__error(LEC_ENOTFOUND, "no project with id %lld",
				  (long long)project_id);
	*is_admin = (bits & 4) != 0;
	*is_reader = (bits & 6) != 0;
	*is_public = (bits & 1) != 0;
	return LEC_OK;
}

int lec_project_is_admin(struct lec_store *st, int64_t project_id,
			 int64_t user_id)
{
	int is_admin = 0, is_reader = 0, is_public = 0;
	int error;

	lec_error_clear();
	error = project_access(st, project_id, user_id, &is_admin, &is_reader,
			       &is_public);
	return error < 0 ? error : is_admin;
}

int lec_project_can_view(struct lec_store *st, int64_t project_id,
			 int64_t viewer_id)
{
	int is_admin = 0, is_reader = 0, is_public = 0;
	int error;

	lec_error_clear();
	error = project_access(st, project_id, viewer_id, &is_admin,
			       &is_reader, &is_public);
	if (error < 0)
		return error;
	return is_public || is_reader || viewer_id == LEC_VIEWER_ALL;
}

/* Keep the projects (alias p) viewer may see: public ones, and all of them
 * for their admins. */
static int query_visible_to(struct lec_store *st, struct lec__query *q,
			    int64_t viewer)
{
	int is_superuser = 0;
	int error;

	if (viewer == LEC_VIEWER_ALL)
		return LEC_OK;
	if ((error = user_is_superuser(st, viewer, &is_superuser)) < 0)
		return error;
	if (!is_superuser)
		lec__query_where_int(q,
				     "p.privacy_level = 'public' OR EXISTS "
				     "(SELECT 1 FROM project_readers r WHERE "
				     "r.project_id = p.id AND r.user_id = ?)",
				     viewer);
	return LEC_OK;
}

int lec__project_refuse_mirrored(struct lec_store *st, int64_t project_id,
				 const char *what)
{
	int64_t v[1] = { project_id };
	int64_t found = 0;
	int rc;

	rc = lec_store__query_int(st,
				  "SELECT 1 FROM projects WHERE id = ? AND "
				  "mirror_source IS NOT NULL",
				  v, 1, "reading the project", &found, NULL);
	if (rc < 0)
		return rc;
	return found ? lec__error(LEC_EINVALID,
				  "This project is a mirror of another "
				  "instance's docs: it is never %s here "
				  "(`lectern mirror update` refreshes it).",
				  what)
		     : LEC_OK;
}

/* Listing ----------------------------------------------------------------- */

static int query_admin_of(struct lec_store *st, struct lec__query *q,
			  int64_t user_id)
{
	int is_superuser = 0;
	int error;

	if ((error = user_is_superuser(st, user_id, &is_superuser)) < 0)
		return error;
	if (!is_superuser)
		lec__query_where_int(q,
				     "EXISTS (SELECT 1 FROM project_admins a "
				     "WHERE a.project_id = p.id AND "
				     "a.user_id = ?)",
				     user_id);
	return LEC_OK;
}

static int nonempty(const char *s)
{
	return s && *s;
}

int lec_project_list(struct lec_store *st,
		     const struct lec_project_filter *filter,
		     const struct lec_page *page, struct lec_project_list *out)
{
	struct lec__query q;
	int error = LEC_OK;

	lec_error_clear();
	memset(out, 0, sizeof(*out));
	lec__query_init(&q, PROJECT_COLUMNS, PROJECT_FROM);
	if (filter && filter->admin_user_id)
		error = query_admin_of(st, &q, filter->admin_user_id);
	if (filter && nonempty(filter->name))
		lec__query_where_text(&q, "instr(lower(p.name), lower(?)) > 0",
				      filter->name);
	if (filter && nonempty(filter->slug))
		lec__query_where_text(&q, "instr(lower(p.slug), lower(?)) > 0",
				      filter->slug);
	if (filter && nonempty(filter->language))
		lec__query_where_text(&q, "p.language = ?", filter->language);
	if (filter && nonempty(filter->programming_language))
		lec__query_where_text(&q, "p.programming_language = ?",
				      filter->programming_language);
	if (error == LEC_OK)
		error = project_query_list(st, &q, "p.slug", page, out);
	lec__query_dispose(&q);
	return error;
}

/* Field validation -------------------------------------------------------- */

/* How text_field treats a value. */
enum {
	TF_NULL_OK = 1 << 0,     /* NULL stores NULL */
	TF_NULL_EMPTY = 1 << 1,  /* NULL stores "" */
	TF_BLANK_OK = 1 << 2,    /* "" is accepted */
	TF_BLANK_NULL = 1 << 3,  /* "" (after trimming) stores NULL */
	TF_NO_TRIM = 1 << 4      /* keep surrounding white space */
};

static int is_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Characters, not bytes, as the service counts them. */
static size_t utf8_length(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static char *trimmed_copy(const char *s, int trim)
{
	size_t len = strlen(s);

	while (trim && len && is_space((unsigned char)*s)) {
		s++;
		len--;
	}
	while (trim && len && is_space((unsigned char)s[len - 1]))
		len--;
	return lec__strndup(s, len);
}

/* Replace *slot with an owned copy of s (NULL stays NULL). */
static int slot_set(char **slot, const char *s)
{
	char *copy = NULL;

	if (s && (copy = lec__strdup(s)) == NULL)
		return lec__error_oom();
	lec__free(*slot);
	*slot = copy;
	return LEC_OK;
}

/* Validate a string field like the service's CharField and store it. */
static int text_field(const char *field, const char *in, size_t max,
		      int flags, char **slot)
{
	char *value;

	if (in == NULL && (flags & (TF_NULL_OK | TF_NULL_EMPTY)))
		return slot_set(slot, (flags & TF_NULL_EMPTY) ? "" : NULL);
	if (in == NULL)
		return lec__error_field(LEC_EINVALID, field,
					"This field may not be null.");
	value = trimmed_copy(in, !(flags & TF_NO_TRIM));
	LEC__CHECK_ALLOC(value);
	if (*value == '\0' && !(flags & TF_BLANK_OK)) {
		lec__free(value);
		return lec__error_field(LEC_EINVALID, field,
					"This field may not be blank.");
	}
	if (max && utf8_length(value) > max) {
		lec__free(value);
		return lec__error_field(LEC_EINVALID, field,
					"Ensure this field has no more than "
					"%zu characters.", max);
	}
	if (*value == '\0' && (flags & TF_BLANK_NULL)) {
		lec__free(value);
		value = NULL;
	}
	lec__free(*slot);
	*slot = value;
	return LEC_OK;
}

static int in_list(const char *value, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(value, *list) == 0)
			return 1;
	return 0;
}

/* A choice field: valid says whether value is one of the choices. */
static int choice_field(const char *field, const char *value, int valid,
			char **slot)
{
	if (value == NULL)
		return lec__error_field(LEC_EINVALID, field,
					"This field may not be null.");
	if (!valid)
		return lec__error_field(LEC_EINVALID, field,
					"\"%s\" is not a valid choice.", value);
	return slot_set(slot, value);
}

static int list_choice(const char *field, const char *value,
		       const char *const *choices, char **slot)
{
	return choice_field(field, value, value && in_list(value, choices),
			    slot);
}

/* Repository URLs (the service's RepositoryURLValidator) ------------------ */

static int is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int is_alnum(unsigned char c)
{
	return is_alpha(c) || is_digit(c);
}

/* Python's \w over UTF-8: any non-ASCII byte counts as a word character. */
static int is_word(unsigned char c)
{
	return is_alnum(c) || c == '_' || c >= 0x80;
}

/* Length of the URL's scheme as Python's urlparse finds it (0: none). */
static size_t scheme_length(const char *url)
{
	size_t i;

	if (!is_alpha((unsigned char)url[0]))
		return 0;
	for (i = 0; url[i] && url[i] != ':'; i++)
		if (!is_alnum((unsigned char)url[i]) && !strchr("+-.", url[i]))
			return 0;
	return url[i] == ':' ? i : 0;
}

static int scheme_in(const char *url, size_t n, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == n && strncasecmp(url, *list, n) == 0)
			return 1;
	return 0;
}

/* The service's "user@host:path" pattern: ^\w+@.+ */
static int looks_like_scp(const char *url)
{
	size_t i = 0;

	while (is_word((unsigned char)url[i]))
		i++;
	return i > 0 && url[i] == '@' && url[i + 1] && url[i + 1] != '\n';
}

static int repo_url_check(const char *url)
{
	/* file:// is Lectern's addition: it builds local repositories, from
	 * the server's directories only (field_repo_url). */
	static const char *const accepted[] = { "https", "http", "git", "file",
						NULL };
	static const char *const ssh[] = { "ssh", "ssh+git", NULL };
	static const char field[] = "repository.url";
	size_t n = scheme_length(url);

	if (strstr(url, "&&") || strchr(url, '|'))
		return lec__error_field(LEC_EINVALID, field,
					"Invalid character in the URL");
	if (n && scheme_in(url, n, accepted))
		return LEC_OK;
	if (strncmp(url, "lp:", 3) == 0)
		return LEC_OK;
	if (looks_like_scp(url) || (n && scheme_in(url, n, ssh)))
		return lec__error_field(LEC_EINVALID, field,
					"Manual cloning via SSH is not "
					"supported");
	return lec__error_field(LEC_EINVALID, field, "Invalid scheme for URL");
}

/* Homepages (Django's URLValidator) --------------------------------------- */

/* Django's "ul" range: any non-ASCII character may appear in a host. */
static int is_host_char(unsigned char c)
{
	return is_alnum(c) || c >= 0x80;
}

/* An IPv4 address as Django spells it: no leading zeros, each <= 255. */
static int valid_ipv4(const char *s, size_t n)
{
	size_t i = 0;
	int part;

	for (part = 0; part < 4; part++) {
		size_t start;
		unsigned value = 0;

		if (part && (i >= n || s[i++] != '.'))
			return 0;
		start = i;
		while (i < n && is_digit((unsigned char)s[i]) &&
		       i - start < 3)
			value = value * 10 + (unsigned)(s[i++] - '0');
		if (i == start || value > 255 ||
		    (s[start] == '0' && i - start > 1))
			return 0;
	}
	return i == n;
}

/* One label of a host name: 1..63 characters, no '-' at either end; a top
 * level label has no digits (or is punycode). */
static int valid_label(const char *s, size_t n, int top)
{
	size_t i;

	if (n == 0 || n > LABEL_MAX || s[0] == '-' || s[n - 1] == '-')
		return 0;
	if (top && n >= 4 && strncasecmp(s, "xn--", 4) == 0)
		top = 0;
	else if (top && n < 2)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!(is_host_char(c) || c == '-') || (top && is_digit(c)))
			return 0;
	}
	return 1;
}

static int valid_hostname(const char *s, size_t n)
{
	size_t start = 0, i, labels = 0;

	if (n && s[n - 1] == '.')
		n--; /* a fully qualified name */
	if (n == 0 || n > HOSTNAME_MAX)
		return 0;
	for (i = 0; i <= n; i++) {
		if (i < n && s[i] != '.')
			continue;
		if (!valid_label(s + start, i - start, i == n))
			return 0;
		labels++;
		start = i + 1;
	}
	return labels >= 2;
}

static int valid_host(const char *s, size_t n)
{
	size_t i;

	if (n == 9 && strncasecmp(s, "localhost", 9) == 0)
		return 1;
	if (n >= 3 && s[0] == '[' && s[n - 1] == ']') {
		for (i = 1; i < n - 1; i++)
			if (!strchr("0123456789abcdefABCDEF:.", s[i]))
				return 0;
		return memchr(s, ':', n) != NULL;
	}
	return valid_ipv4(s, n) || valid_hostname(s, n);
}

/* user[:password]@ before the host: no white space, '/', '@' or extra ':'. */
static int valid_userinfo(const char *s, size_t n)
{
	size_t i, colons = 0;

	if (n == 0 || s[0] == ':')
		return 0;
	for (i = 0; i < n; i++) {
		if (is_space((unsigned char)s[i]) || s[i] == '/' || s[i] == '@')
			return 0;
		colons += s[i] == ':';
	}
	return colons <= 1;
}

/* host[:port] */
static int valid_hostport(const char *s, size_t n)
{
	const char *colon = NULL;
	size_t i;

	if (n && s[0] == '[') {
		const char *end = memchr(s, ']', n);

		if (end && (size_t)(end - s) + 1 < n)
			colon = end + 1;
	} else {
		colon = memchr(s, ':', n);
	}
	if (colon == NULL)
		return valid_host(s, n);
	if (*colon != ':')
		return 0;
	for (i = 1; (size_t)(colon - s) + i < n; i++)
		if (!is_digit((unsigned char)colon[i]) || i > PORT_DIGITS_MAX)
			return 0;
	return i > 1 && valid_host(s, (size_t)(colon - s));
}

static int valid_web_url(const char *url)
{
	static const char *const schemes[] = { "http", "https", "ftp", "ftps",
					       NULL };
	const char *sep = strstr(url, "://");
	const char *authority, *end, *at, *p;

	if (sep == NULL || !scheme_in(url, (size_t)(sep - url), schemes))
		return 0;
	authority = sep + 3;
	end = authority + strcspn(authority, "/?#");
	for (p = end; *p; p++)
		if (is_space((unsigned char)*p))
			return 0;
	at = memchr(authority, '@', (size_t)(end - authority));
	if (at) {
		if (!valid_userinfo(authority, (size_t)(at - authority)))
			return 0;
		authority = at + 1;
	}
	return valid_hostport(authority, (size_t)(end - authority));
}

/* .readthedocs.yaml paths (the service's validate_build_config_file) ----- */

#define YAML_FILE ".readthedocs.yaml"

static int yaml_path_check(const char *path)
{
	static const char field[] = "readthedocs_yaml_path";
	/* The service's message, HTML-escaped as it sends it. */
	static const char bad_chars[] =
		"Found invalid character. Avoid these characters: "
		"<code>[]{}()`&#x27;&quot;\\%&amp;&lt;&gt;|,</code>";
	size_t n = strlen(path), m = strlen(YAML_FILE);

	if (path[0] == '/')
		return lec__error_field(LEC_EINVALID, field,
					"Use a relative path. It should not "
					"begin with '/'. The path is relative "
					"to the root of your repository.");
	if (n && path[n - 1] == '/')
		return lec__error_field(LEC_EINVALID, field,
					"The path cannot end with '/', as it "
					"cannot be a directory.");
	if (strstr(path, ".."))
		return lec__error_field(LEC_EINVALID, field,
					"Found invalid sequence in path: '..'");
	if (strpbrk(path, "[]{}()`'\"\\%&<>|,"))
		return lec__error_field(LEC_EINVALID, field, "%s", bad_chars);
	if (!(strcmp(path, YAML_FILE) == 0 ||
	      (n > m && path[n - m - 1] == '/' &&
	       strcmp(path + n - m, YAML_FILE) == 0)))
		return lec__error_field(LEC_EINVALID, field,
					"The only allowed filename is "
					"<code>" YAML_FILE "</code>.");
	return LEC_OK;
}

/* Project values being validated ------------------------------------------ */

/* A project's writable columns, owned, in the order of VALUE_COLUMNS. */
struct values {
	char *name;
	char *description;
	char *language;
	char *programming_language;
	char *repo_url;
	char *repo_type;
	char *homepage;
	char *default_version;
	char *default_branch;
	char *privacy_level;
	char *external_builds_privacy_level;
	char *versioning_scheme;
	char *analytics_code;
	char *readthedocs_yaml_path;
	char *documentation_type;
	int external_builds_enabled;
	int show_version_warning;
	int analytics_disabled;
	int watch_commits;
	unsigned poll_interval;
	char **tags;
	size_t ntags;
};

#define VALUE_COLUMNS                                                        \
	"name, description, language, programming_language, repo_url, "      \
	"repo_type, homepage, default_version, default_branch, "             \
	"privacy_level, external_builds_privacy_level, versioning_scheme, "  \
	"analytics_code, readthedocs_yaml_path, documentation_type, "        \
	"external_builds_enabled, show_version_warning, analytics_disabled, " \
	"watch_commits, poll_interval"
#define VALUE_TEXTS 15
#define VALUE_COUNT 20

static void values_texts(struct values *v, char **texts[VALUE_TEXTS])
{
	char **all[VALUE_TEXTS] = {
		&v->name, &v->description, &v->language,
		&v->programming_language, &v->repo_url, &v->repo_type,
		&v->homepage, &v->default_version, &v->default_branch,
		&v->privacy_level, &v->external_builds_privacy_level,
		&v->versioning_scheme, &v->analytics_code,
		&v->readthedocs_yaml_path, &v->documentation_type,
	};

	memcpy(texts, all, sizeof(all));
}

static void values_dispose(struct values *v)
{
	char **texts[VALUE_TEXTS];
	size_t i;

	values_texts(v, texts);
	for (i = 0; i < VALUE_TEXTS; i++)
		lec__free(*texts[i]);
	strings_free(v->tags, v->ntags);
	memset(v, 0, sizeof(*v));
}

/* Fill v with the texts given in VALUE_COLUMNS order (NULL allowed). */
static int values_fill(struct values *v, const char *const src[VALUE_TEXTS])
{
	char **texts[VALUE_TEXTS];
	size_t i;
	int error;

	values_texts(v, texts);
	for (i = 0; i < VALUE_TEXTS; i++)
		if ((error = slot_set(texts[i], src[i])) < 0)
			return error;
	return LEC_OK;
}

/* The values of a project nobody has configured yet. */
static int values_defaults(struct values *v)
{
	static const char *const defaults[VALUE_TEXTS] = {
		NULL, "", LEC_LANGUAGE_DEFAULT,
		LEC_PROGRAMMING_LANGUAGE_DEFAULT, NULL, "git", "", "latest",
		NULL, "public", "public", SCHEME_WITH_TRANSLATIONS, "", NULL,
		"sphinx",
	};

	memset(v, 0, sizeof(*v));
	v->watch_commits = 1;
	return values_fill(v, defaults);
}

static int values_from_project(struct values *v, const struct lec_project *p)
{
	const char *const src[VALUE_TEXTS] = {
		p->name, p->description, p->language, p->programming_language,
		p->repo_url, p->repo_type, p->homepage, p->default_version,
		p->default_branch, p->privacy_level,
		p->external_builds_privacy_level, p->versioning_scheme,
		p->analytics_code, p->readthedocs_yaml_path,
		p->documentation_type,
	};

	memset(v, 0, sizeof(*v));
	v->external_builds_enabled = p->external_builds_enabled;
	v->show_version_warning = p->show_version_warning;
	v->analytics_disabled = p->analytics_disabled;
	v->watch_commits = p->watch_commits;
	v->poll_interval = p->poll_interval;
	return values_fill(v, src);
}

static int tag_seen(char **tags, size_t n, const char *tag)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(tags[i], tag) == 0)
			return 1;
	return 0;
}

/* Trimmed, de-duplicated tag names; empty names are dropped. */
static int tags_field(const char *const *in, size_t n, struct values *v)
{
	char **tags = NULL, *tag = NULL;
	size_t ntags = 0, i;
	int error = LEC_OK;

	if (n && in == NULL)
		return lec__error_field(LEC_EINVALID, "tags",
					"This field may not be null.");
	if (n && (tags = lec__calloc(n, sizeof(*tags))) == NULL)
		return lec__error_oom();
	for (i = 0; i < n && error == LEC_OK; i++) {
		tag = NULL;
		error = text_field("tags", in[i], LEC_PROJECT_TAG_MAX,
				   TF_BLANK_OK, &tag);
		if (error == LEC_OK && *tag && !tag_seen(tags, ntags, tag))
			tags[ntags++] = tag;
		else
			lec__free(tag);
	}
	if (error < 0) {
		strings_free(tags, ntags);
		return error;
	}
	strings_free(v->tags, v->ntags);
	v->tags = tags;
	v->ntags = ntags;
	return LEC_OK;
}

static int field_name(const struct lec_project_patch *p, struct values *v)
{
	return text_field("name", p->name, LEC_PROJECT_NAME_MAX, 0, &v->name);
}

static int field_repo_url(const struct lec_project_patch *p,
			  struct values *v)
{
	int error = text_field("repository.url", p->repo_url,
			       LEC_PROJECT_REPO_URL_MAX, 0, &v->repo_url);

	if (error == LEC_OK)
		error = repo_url_check(v->repo_url);
	return error < 0 ? error
			 : lec_localrepo_check_repository(v->repo_url,
							  p->local_roots);
}

static int field_repo_type(const struct lec_project_patch *p,
			   struct values *v)
{
	return list_choice("repository.type", p->repo_type, repo_types,
			   &v->repo_type);
}

static int field_language(const struct lec_project_patch *p,
			  struct values *v)
{
	return choice_field("language", p->language,
			    lec_language_valid(p->language), &v->language);
}

/* The service allows a blank programming language. */
static int field_programming_language(const struct lec_project_patch *p,
				      struct values *v)
{
	const char *code = p->programming_language;

	return choice_field("programming_language", code,
			    code && (*code == '\0' ||
				     lec_programming_language_valid(code)),
			    &v->programming_language);
}

static int field_homepage(const struct lec_project_patch *p,
			  struct values *v)
{
	int error = text_field("homepage", p->homepage,
			       LEC_PROJECT_HOMEPAGE_MAX,
			       TF_NULL_EMPTY | TF_BLANK_OK, &v->homepage);

	if (error == LEC_OK && *v->homepage && !valid_web_url(v->homepage))
		error = lec__error_field(LEC_EINVALID, "homepage",
					 "Enter a valid URL.");
	return error;
}

static int field_tags(const struct lec_project_patch *p, struct values *v)
{
	return tags_field(p->tags, p->ntags, v);
}

static int field_default_version(const struct lec_project_patch *p,
				 struct values *v)
{
	return text_field("default_version", p->default_version,
			  LEC_PROJECT_REF_MAX, 0, &v->default_version);
}

static int field_default_branch(const struct lec_project_patch *p,
				struct values *v)
{
	return text_field("default_branch", p->default_branch,
			  LEC_PROJECT_REF_MAX,
			  TF_NULL_OK | TF_BLANK_OK | TF_BLANK_NULL,
			  &v->default_branch);
}

static int field_analytics_code(const struct lec_project_patch *p,
				struct values *v)
{
	return text_field("analytics_code", p->analytics_code,
			  LEC_PROJECT_ANALYTICS_CODE_MAX,
			  TF_NULL_EMPTY | TF_BLANK_OK, &v->analytics_code);
}

static int field_analytics_disabled(const struct lec_project_patch *p,
				    struct values *v)
{
	v->analytics_disabled = p->analytics_disabled != 0;
	return LEC_OK;
}

static int field_show_version_warning(const struct lec_project_patch *p,
				      struct values *v)
{
	v->show_version_warning = p->show_version_warning != 0;
	return LEC_OK;
}

static int field_watch_commits(const struct lec_project_patch *p,
			       struct values *v)
{
	v->watch_commits = p->watch_commits != 0;
	return LEC_OK;
}

static int field_poll_interval(const struct lec_project_patch *p,
			       struct values *v)
{
	if (p->poll_interval != 0 &&
	    (p->poll_interval < LEC_PROJECT_POLL_MIN_S ||
	     p->poll_interval > LEC_PROJECT_POLL_MAX_S))
		return lec__error_field(LEC_EINVALID, "poll_interval",
					"Use 0 (off) or %d to %d seconds.",
					LEC_PROJECT_POLL_MIN_S,
					LEC_PROJECT_POLL_MAX_S);
	v->poll_interval = p->poll_interval;
	return LEC_OK;
}

/* The deprecated flag maps onto the scheme. */
static int field_single_version(const struct lec_project_patch *p,
				struct values *v)
{
	if (p->single_version)
		return slot_set(&v->versioning_scheme, SCHEME_SINGLE);
	if (strcmp(v->versioning_scheme, SCHEME_SINGLE) == 0)
		return slot_set(&v->versioning_scheme,
				SCHEME_WITH_TRANSLATIONS);
	return LEC_OK;
}

static int field_versioning_scheme(const struct lec_project_patch *p,
				   struct values *v)
{
	return list_choice("versioning_scheme", p->versioning_scheme,
			   versioning_schemes, &v->versioning_scheme);
}

static int field_external_builds_enabled(const struct lec_project_patch *p,
					 struct values *v)
{
	v->external_builds_enabled = p->external_builds_enabled != 0;
	return LEC_OK;
}

static int field_privacy_level(const struct lec_project_patch *p,
			       struct values *v)
{
	return list_choice("privacy_level", p->privacy_level, privacy_levels,
			   &v->privacy_level);
}

static int field_external_privacy(const struct lec_project_patch *p,
				  struct values *v)
{
	return list_choice("external_builds_privacy_level",
			   p->external_builds_privacy_level, privacy_levels,
			   &v->external_builds_privacy_level);
}

static int field_yaml_path(const struct lec_project_patch *p,
			   struct values *v)
{
	int error = text_field("readthedocs_yaml_path",
			       p->readthedocs_yaml_path,
			       LEC_PROJECT_YAML_PATH_MAX,
			       TF_NULL_OK | TF_BLANK_OK | TF_BLANK_NULL,
			       &v->readthedocs_yaml_path);

	if (error == LEC_OK && v->readthedocs_yaml_path)
		error = yaml_path_check(v->readthedocs_yaml_path);
	return error;
}

static int field_description(const struct lec_project_patch *p,
			     struct values *v)
{
	return text_field("description", p->description, 0,
			  TF_BLANK_OK | TF_NO_TRIM, &v->description);
}

static int field_documentation_type(const struct lec_project_patch *p,
				    struct values *v)
{
	return list_choice("documentation_type", p->documentation_type,
			   documentation_types, &v->documentation_type);
}

/* Every patchable field, in the order the service validates (and so
 * reports) them; single_version comes before versioning_scheme so that an
 * explicit scheme wins. */
static const struct {
	unsigned int bit;
	int (*apply)(const struct lec_project_patch *p, struct values *v);
} patch_fields[] = {
	{ LEC_PROJECT_F_NAME, field_name },
	{ LEC_PROJECT_F_REPO_URL, field_repo_url },
	{ LEC_PROJECT_F_REPO_TYPE, field_repo_type },
	{ LEC_PROJECT_F_LANGUAGE, field_language },
	{ LEC_PROJECT_F_PROGRAMMING_LANGUAGE, field_programming_language },
	{ LEC_PROJECT_F_HOMEPAGE, field_homepage },
	{ LEC_PROJECT_F_TAGS, field_tags },
	{ LEC_PROJECT_F_DEFAULT_VERSION, field_default_version },
	{ LEC_PROJECT_F_DEFAULT_BRANCH, field_default_branch },
	{ LEC_PROJECT_F_ANALYTICS_CODE, field_analytics_code },
	{ LEC_PROJECT_F_ANALYTICS_DISABLED, field_analytics_disabled },
	{ LEC_PROJECT_F_SHOW_VERSION_WARNING, field_show_version_warning },
	{ LEC_PROJECT_F_WATCH_COMMITS, field_watch_commits },
	{ LEC_PROJECT_F_POLL_INTERVAL, field_poll_interval },
	{ LEC_PROJECT_F_SINGLE_VERSION, field_single_version },
	{ LEC_PROJECT_F_VERSIONING_SCHEME, field_versioning_scheme },
	{ LEC_PROJECT_F_EXTERNAL_BUILDS_ENABLED,
	  field_external_builds_enabled },
	{ LEC_PROJECT_F_PRIVACY_LEVEL, field_privacy_level },
	{ LEC_PROJECT_F_EXTERNAL_BUILDS_PRIVACY_LEVEL,
	  field_external_privacy },
	{ LEC_PROJECT_F_READTHEDOCS_YAML_PATH, field_yaml_path },
	{ LEC_PROJECT_F_DESCRIPTION, field_description },
	{ LEC_PROJECT_F_DOCUMENTATION_TYPE, field_documentation_type },
};

/* Apply the fields of p that are set and also in mask. */
static int values_apply(struct values *v, const struct lec_project_patch *p,
			unsigned int mask)
{
	size_t i;
	int error;

	for (i = 0; i < COUNT_OF(patch_fields); i++) {
		if (!(p->fields & mask & patch_fields[i].bit))
			continue;
		if ((error = patch_fields[i].apply(p, v)) < 0)
			return error;
	}
	return LEC_OK;
}

/* Bind v to ?first .. ?first+VALUE_COUNT-1 in VALUE_COLUMNS order. */
static int values_bind(sqlite3_stmt *stmt, int first, struct values *v)
{
	char **texts[VALUE_TEXTS];
	int i, error;

	values_texts(v, texts);
	for (i = 0; i < VALUE_TEXTS; i++)
		if ((error = lec_store__bind_text(stmt, first + i,
						  *texts[i])) < 0)
			return error;
	sqlite3_bind_int(stmt, first + VALUE_TEXTS, v->external_builds_enabled);
	sqlite3_bind_int(stmt, first + VALUE_TEXTS + 1,
			 v->show_version_warning);
	sqlite3_bind_int(stmt, first + VALUE_TEXTS + 2, v->analytics_disabled);
	sqlite3_bind_int(stmt, first + VALUE_TEXTS + 3, v->watch_commits);
	sqlite3_bind_int(stmt, first + VALUE_TEXTS + 4, (int)v->poll_interval);
	return LEC_OK;
}

static int tags_write(struct lec_store *st, int64_t id,
		      const struct values *v)
{
	sqlite3_stmt *stmt = NULL;
	size_t i;
	int error;

	if ((error = run_ids(st, "DELETE FROM project_tags WHERE project_id = ?",
			     "replacing tags", &id, 1, NULL)) < 0 ||
	    v->ntags == 0)
		return error;
	if ((error = prepare_ids(st, &stmt,
				 "INSERT INTO project_tags (project_id, name) "
				 "VALUES (?, ?)", &id, 1)) < 0)
		return error;
	for (i = 0; i < v->ntags && error == LEC_OK; i++) {
		sqlite3_reset(stmt);
		if ((error = lec_store__bind_text(stmt, 2, v->tags[i])) == 0)
			error = lec_store__step_done(st, stmt, "adding a tag");
	}
	lec_store__finalize(st, stmt);
	return error;
}

/* Importing --------------------------------------------------------------- */

/* Which parts of an import map onto patch fields. */
#define IMPORT_FIELDS                                                        \
	(LEC_PROJECT_F_NAME | LEC_PROJECT_F_REPO_URL |                       \
	 LEC_PROJECT_F_REPO_TYPE | LEC_PROJECT_F_LANGUAGE |                  \
	 LEC_PROJECT_F_PROGRAMMING_LANGUAGE | LEC_PROJECT_F_HOMEPAGE |       \
	 LEC_PROJECT_F_TAGS | LEC_PROJECT_F_READTHEDOCS_YAML_PATH |          \
	 LEC_PROJECT_F_PRIVACY_LEVEL |                                       \
	 LEC_PROJECT_F_EXTERNAL_BUILDS_PRIVACY_LEVEL)

/* An import as a patch over the defaults: fields left NULL keep them. */
static void patch_from_new(const struct lec_project_new *in,
			   struct lec_project_patch *p)
{
	memset(p, 0, sizeof(*p));
	p->fields = LEC_PROJECT_F_NAME | LEC_PROJECT_F_REPO_URL;
	p->name = in->name;
	p->repo_url = in->repo_url;
	p->repo_type = in->repo_type;
	p->language = in->language;
	p->programming_language = in->programming_language;
	p->homepage = in->homepage;
	p->tags = in->tags;
	p->ntags = in->ntags;
	p->readthedocs_yaml_path = in->readthedocs_yaml_path;
	p->privacy_level = in->privacy_level;
	p->external_builds_privacy_level = in->external_builds_privacy_level;
	p->local_roots = in->local_roots;
	p->fields |= (in->repo_type ? LEC_PROJECT_F_REPO_TYPE : 0u) |
		     (in->language ? LEC_PROJECT_F_LANGUAGE : 0u) |
		     (in->programming_language
			      ? LEC_PROJECT_F_PROGRAMMING_LANGUAGE
			      : 0u) |
		     (in->homepage ? LEC_PROJECT_F_HOMEPAGE : 0u) |
		     (in->ntags ? LEC_PROJECT_F_TAGS : 0u) |
		     (in->readthedocs_yaml_path
			      ? LEC_PROJECT_F_READTHEDOCS_YAML_PATH
			      : 0u) |
		     (in->privacy_level ? LEC_PROJECT_F_PRIVACY_LEVEL : 0u) |
		     (in->external_builds_privacy_level
			      ? LEC_PROJECT_F_EXTERNAL_BUILDS_PRIVACY_LEVEL
			      : 0u);
}

static int slug_taken_error(const char *slug)
{
	return lec__error_field(LEC_EEXISTS, "name",
				"Project with slug \"%s\" already exists.",
				slug);
}

/* The slug of a validated name, refusing names without one or whose slug
 * another project has (the service checks both while validating). */
static int import_slug(struct lec_store *st, const char *name, char **out)
{
	int found = 0, error;
	sqlite3_stmt *stmt = NULL;

	*out = NULL;
	if ((error = lec_slug_project(name, out)) < 0)
		return error;
	if (**out == '\0')
		return lec__error_field(LEC_EINVALID, "name",
					"Invalid project name \"%s\": no slug "
					"generated.", name);
	if ((error = lec_store__prepare(st, &stmt,
					"SELECT 1 FROM projects "
					"WHERE slug = ?")) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 1, *out)) == LEC_OK) {
		int rc = sqlite3_step(stmt);

		found = rc == SQLITE_ROW;
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			error = lec_store__sqlerr(st, rc, "checking a slug");
	}
	lec_store__finalize(st, stmt);
	if (error == LEC_OK && found)
		error = slug_taken_error(*out);
	return error;
}

static int project_insert_row(struct lec_store *st, struct values *v,
			      const char *slug, int64_t *id)
{
	sqlite3_stmt *stmt = NULL;
	int64_t now = lec__now_us();
	int error;

	if ((error = lec_store__prepare(
		     st, &stmt,
		     "INSERT INTO projects (" VALUE_COLUMNS
		     ", slug, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?, "
		     "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) < 0)
		return error;
	if ((error = values_bind(stmt, 1, v)) < 0 ||
	    (error = lec_store__bind_text(stmt, VALUE_COUNT + 1, slug)) < 0)
		goto done;
	sqlite3_bind_int64(stmt, VALUE_COUNT + 2, now);
	sqlite3_bind_int64(stmt, VALUE_COUNT + 3, now);
	error = lec_store__step_done(st, stmt, "creating a project");
	if (error == LEC_EEXISTS)
		error = slug_taken_error(slug);
	*id = sqlite3_last_insert_rowid(st->db);
done:
	lec_store__finalize(st, stmt);
	return error;
}

/* Every project starts with its machine "latest" version, which follows
 * the default branch (identifier unknown until the first sync). */
static int latest_insert(struct lec_store *st, int64_t project_id)
{
	int64_t now = lec__now_us();
	int64_t ids[3] = { project_id, now, now };

	return run_ids(st,
		       "INSERT INTO versions (project_id, slug, verbose_name, "
		       "identifier, type, active, machine, created, modified) "
		       "VALUES (?1, 'latest', 'latest', NULL, 'branch', 1, 1, "
		       "?2, ?3)",
		       "creating the latest version", ids, 3, NULL);
}

static int maintainer_insert(struct lec_store *st, int64_t project_id,
			     int64_t user_id)
{
	int64_t ids[2] = { project_id, user_id };

	return run_ids(st,
		       "INSERT INTO project_users (project_id, user_id) "
		       "VALUES (?, ?)",
		       "adding a maintainer", ids, 2, NULL);
}

/* A removed project's slug stays taken until its files are gone
 * (project_remove.c): a project of that slug would build into them. */
static int refuse_removing(struct lec_store *st, const char *slug)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	if ((error = lec_store__prepare(st, &stmt,
					"SELECT 1 FROM project_removals "
					"WHERE slug = ?")) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 1, slug)) == LEC_OK) {
		rc = sqlite3_step(stmt);
		if (rc == SQLITE_ROW)
			error = lec__error_field(
				LEC_EEXISTS, "name",
				"Project with slug \"%s\" already exists: "
				"it is being removed. Import it again once "
				"its files are gone.",
				slug);
		else if (rc != SQLITE_DONE)
			error = lec_store__sqlerr(st, rc, "checking a slug");
	}
	lec_store__finalize(st, stmt);
	return error;
}

static int project_insert(struct lec_store *st, struct values *v,
			  const char *slug, int64_t user_id, int64_t *id)
{
	int error;

	if ((error = lec_store__begin(st)) < 0)
		return error;
	/* In the write transaction: a removal recorded meanwhile counts. */
	if ((error = refuse_removing(st, slug)) == LEC_OK &&
	    (error = project_insert_row(st, v, slug, id)) == LEC_OK &&
	    (error = tags_write(st, *id, v)) == LEC_OK &&
	    (!user_id || (error = maintainer_insert(st, *id, user_id)) == 0))
		error = latest_insert(st, *id);
	if (error < 0) {
		lec_store__rollback(st);
		return error;
	}
	return lec_store__commit(st);
}

int lec_project_create(struct lec_store *st,
		       const struct lec_project_new *in, int64_t user_id,
		       struct lec_project **out)
{
	struct lec_project_patch patch;
	struct values v;
	char *slug = NULL;
	int64_t id = 0;
	int error;

	lec_error_clear();
	if (out)
		*out = NULL;
	if (in == NULL)
		return lec__error(LEC_EINVALID, "no project given");
	if ((error = values_defaults(&v)) < 0)
		goto done;
	if (in->name == NULL || in->repo_url == NULL) {
		error = lec__error_field(LEC_EINVALID,
					 in->name ? "repository.url" : "name",
					 "This field is required.");
		goto done;
	}
	if (user_id && (error = require_user(st, user_id)) < 0)
		goto done;
	patch_from_new(in, &patch);
	if ((error = values_apply(&v, &patch, LEC_PROJECT_F_NAME)) < 0 ||
	    (error = import_slug(st, v.name, &slug)) < 0 ||
	    (error = values_apply(&v, &patch,
				  IMPORT_FIELDS & ~LEC_PROJECT_F_NAME)) < 0 ||
	    (error = lec__project_local_repo_check(st, 0, NULL, v.repo_url,
						   user_id)) < 0 ||
	    (error = project_insert(st, &v, slug, user_id, &id)) < 0)
		goto done;
	if (out)
		error = project_fetch(st, "p.id = ?", NULL, id, out);
done:
	values_dispose(&v);
	lec__free(slug);
	return error;
}

/* Updating and deleting --------------------------------------------------- */

static int project_update_row(struct lec_store *st, int64_t id,
			      struct values *v)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	if ((error = lec_store__prepare(
		     st, &stmt,
		     "UPDATE projects SET (" VALUE_COLUMNS ", modified) = "
		     "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
		     "?, ?) WHERE id = ?")) < 0)
		return error;
	if ((error = values_bind(stmt, 1, v)) == LEC_OK) {
		sqlite3_bind_int64(stmt, VALUE_COUNT + 1, lec__now_us());
		sqlite3_bind_int64(stmt, VALUE_COUNT + 2, id);
		error = lec_store__step_done(st, stmt, "updating a project");
	}
	lec_store__finalize(st, stmt);
	return error;
}

/* Load, patch and write back, inside the caller's transaction. */
static int project_patch(struct lec_store *st, int64_t id,
			 const struct lec_project_patch *patch)
{
	struct lec_project *current = NULL;
	struct values v;
	int error;

	memset(&v, 0, sizeof(v));
	if ((error = project_fetch(st, "p.id = ?", NULL, id, &current)) < 0 ||
	    (error = values_from_project(&v, current)) < 0 ||
	    (error = values_apply(&v, patch, ~0u)) < 0 ||
	    ((patch->fields & LEC_PROJECT_F_REPO_URL) &&
	     (error = lec__project_local_repo_check(st, id, current->repo_url,
						    v.repo_url,
						    patch->user_id)) < 0) ||
	    (error = project_update_row(st, id, &v)) < 0)
		goto done;
	if (patch->fields & LEC_PROJECT_F_TAGS)
		error = tags_write(st, id, &v);
done:
	lec_project_free(current);
	values_dispose(&v);
	return error;
}

int lec_project_update(struct lec_store *st, int64_t id,
		       const struct lec_project_patch *patch)
{
	int error;

	lec_error_clear();
	if (patch == NULL)
		return lec__error(LEC_EINVALID, "no changes given");
	if ((error = lec_store__begin(st)) < 0)
		return error;
	if ((error = project_patch(st, id, patch)) < 0) {
		lec_store__rollback(st);
		return error;
	}
	return lec_store__commit(st);
}

int lec_project_delete(struct lec_store *st, int64_t id)
{
	int changes = 0;
	int error;

	lec_error_clear();
	error = run_ids(st, "DELETE FROM projects WHERE id = ?",
			"deleting a project", &id, 1, &changes);
	if (error == LEC_OK && changes == 0)
		error = lec__error(LEC_ENOTFOUND, "no project with id %lld",
				   (long long)id);
	return error;
}

/* Maintainers ------------------------------------------------------------- */

int lec_project_maintainer_add(struct lec_store *st, int64_t project_id,
			       int64_t user_id)
{
	int error;

	lec_error_clear();
	if ((error = lec__project_exists(st, project_id)) < 0 ||
	    (error = require_user(st, user_id)) < 0)
		return error;
	error = maintainer_insert(st, project_id, user_id);
	if (error == LEC_EEXISTS)
		error = lec__error(LEC_EEXISTS,
				   "user %lld already maintains project %lld",
				   (long long)user_id, (long long)project_id);
	return error;
}

int lec_project_maintainer_remove(struct lec_store *st, int64_t project_id,
				  int64_t user_id)
{
	int64_t ids[2] = { project_id, user_id };
	int changes = 0;
	int error;

	lec_error_clear();
	error = run_ids(st,
			"DELETE FROM project_users "
			"WHERE project_id = ? AND user_id = ?",
			"removing a maintainer", ids, 2, &changes);
	if (error == LEC_OK && changes == 0)
		error = lec__error(LEC_ENOTFOUND,
				   "user %lld is no maintainer of project %lld",
				   (long long)user_id, (long long)project_id);
	return error;
}

static void maintainer_dispose(void *item)
{
	struct lec_user *u = item;

	lec__free(u->username);
	lec__free(u->email);
}

static int maintainer_row(sqlite3_stmt *stmt, void *item)
{
	struct lec_user *u = item;
	int error;

	u->id = sqlite3_column_int64(stmt, 0);
	if ((error = lec_store__col_text(stmt, 1, &u->username)) < 0 ||
	    (error = lec_store__col_text(stmt, 2, &u->email)) < 0)
		return error;
	u->is_active = sqlite3_column_int(stmt, 3);
	u->is_superuser = sqlite3_column_int(stmt, 4);
	u->created = sqlite3_column_int64(stmt, 5);
	return LEC_OK;
}

int lec_project_maintainers(struct lec_store *st, int64_t project_id,
			    const struct lec_page *page,
			    struct lec_user_list *out)
{
	struct lec__query q;
	int error;

	lec_error_clear();
	memset(out, 0, sizeof(*out));
	lec__query_init(&q,
			"u.id, u.username, u.email, u.is_active, "
			"u.is_superuser, u.created",
			"users u JOIN project_users pu ON pu.user_id = u.id");
	lec__query_where_int(&q, "pu.project_id = ?", project_id);
	error = lec__query_list(st, &q, "u.username", page,
				sizeof(*out->items), maintainer_row,
				maintainer_dispose, (void **)&out->items,
				&out->len, &out->total);
	lec__query_dispose(&q);
	return error;
}

/* Subprojects ------------------------------------------------------------- */

/* r is the relationship, par its parent, p the child. */
#define SUBPROJECT_COLUMNS                                                   \
	"r.id, r.alias, r.parent_id, par.slug, r.created, " PROJECT_COLUMNS
#define SUBPROJECT_FROM                                                      \
	"subprojects r JOIN projects par ON par.id = r.parent_id "           \
	"JOIN projects p ON p.id = r.child_id" PROJECT_JOINS

static void subproject_dispose(void *item)
{
	struct lec_subproject *s = item;

	lec__free(s->alias);
	lec__free(s->parent_slug);
	project_dispose(&s->child);
	memset(s, 0, sizeof(*s));
}

static int subproject_row(sqlite3_stmt *stmt, void *item)
{
	struct lec_subproject *s = item;
	int error;

	s->id = sqlite3_column_int64(stmt, 0);
	if ((error = lec_store__col_text(stmt, 1, &s->alias)) < 0)
		return error;
	s->parent_id = sqlite3_column_int64(stmt, 2);
	if ((error = lec_store__col_text(stmt, 3, &s->parent_slug)) < 0)
		return error;
	s->created = sqlite3_column_int64(stmt, 4);
	return project_read(stmt, 5, &s->child);
}

static void subproject_items_free(struct lec_subproject *items, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		subproject_dispose(&items[i]);
	lec__free(items);
}

void lec_subproject_free(struct lec_subproject *sub)
{
	if (sub == NULL)
		return;
	subproject_dispose(sub);
	lec__free(sub);
}

void lec_subproject_list_dispose(struct lec_subproject_list *list)
{
	if (list == NULL)
		return;
	subproject_items_free(list->items, list->len);
	memset(list, 0, sizeof(*list));
}

static int subproject_query_list(struct lec_store *st, struct lec__query *q,
				 const struct lec_page *page,
				 struct lec_subproject_list *out)
{
	size_t i;
	int error;

	/* The service gives relationships no order: creation order here. */
	error = lec__query_list(st, q, "r.id", page, sizeof(*out->items),
				subproject_row, subproject_dispose,
				(void **)&out->items, &out->len, &out->total);
	for (i = 0; error == LEC_OK && i < out->len; i++)
		error = project_load_members(st, &out->items[i].child);
	if (error < 0) {
		subproject_items_free(out->items, out->len);
		memset(out, 0, sizeof(*out));
	}
	return error;
}

static int subproject_fetch(struct lec_store *st, int64_t parent_id,
			    const char *alias, struct lec_subproject **out)
{
	struct lec_subproject_list list = { NULL, 0, 0 };
	struct lec__query q;
	int error;

	*out = NULL;
	lec__query_init(&q, SUBPROJECT_COLUMNS, SUBPROJECT_FROM);
	lec__query_where_int(&q, "r.parent_id = ?", parent_id);
	lec__query_where_text(&q, "r.alias = ?", alias);
	error = subproject_query_list(st, &q, NULL, &list);
	lec__query_dispose(&q);
	if (error < 0)
		return error;
	if (list.len == 0) {
		lec__free(list.items);
		return lec__error(LEC_ENOTFOUND,
				  "project %lld has no subproject '%s'",
				  (long long)parent_id, alias);
	}
	*out = list.items;
	return LEC_OK;
}

int lec_subproject_get(struct lec_store *st, int64_t parent_id,
		       const char *alias, struct lec_subproject **out)
{
	lec_error_clear();
	*out = NULL;
	if (alias == NULL)
		return lec__error(LEC_EINVALID, "no alias given");
	return subproject_fetch(st, parent_id, alias, out);
}

int lec_subproject_list(struct lec_store *st, int64_t parent_id,
			int64_t viewer_id, const struct lec_page *page,
			struct lec_subproject_list *out)
{
	struct lec__query q;
	int error;

	lec_error_clear();
	memset(out, 0, sizeof(*out));
	lec__query_init(&q, SUBPROJECT_COLUMNS, SUBPROJECT_FROM);
	lec__query_where_int(&q, "r.parent_id = ?", parent_id);
	if ((error = query_visible_to(st, &q, viewer_id)) == LEC_OK)
		error = subproject_query_list(st, &q, page, out);
	lec__query_dispose(&q);
	return error;
}

int lec_subproject_delete(struct lec_store *st, int64_t parent_id,
			  const char *alias)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	lec_error_clear();
	if (alias == NULL)
		return lec__error(LEC_EINVALID, "no alias given");
	if ((error = prepare_ids(st, &stmt,
				 "DELETE FROM subprojects "
				 "WHERE parent_id = ?1 AND alias = ?2",
				 &parent_id, 1)) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 2, alias)) == LEC_OK)
		error = lec_store__step_done(st, stmt, "removing a subproject");
	if (error == LEC_OK && sqlite3_changes(st->db) == 0)
		error = lec__error(LEC_ENOTFOUND,
				   "project %lld has no subproject '%s'",
				   (long long)parent_id, alias);
	lec_store__finalize(st, stmt);
	return error;
}

/* The id of the project child_slug if it may become a subproject of
 * parent_id for user_id (the service's get_subproject_candidates), else 0. */
static int subproject_candidate(struct lec_store *st, int64_t parent_id,
				const char *child_slug, int64_t user_id,
				int64_t *child_id)
{
	static const char sql[] =
		"SELECT p.id FROM projects p WHERE p.slug = ?3"
		" AND p.id <> ?1"
		" AND NOT EXISTS (SELECT 1 FROM subprojects WHERE parent_id = p.id)"
		" AND NOT EXISTS (SELECT 1 FROM subprojects WHERE child_id = p.id)"
		" AND (coalesce((SELECT is_superuser FROM users WHERE id = ?2), 0)"
		"      <> 0 OR EXISTS (SELECT 1 FROM project_admins"
		"                      WHERE project_id = p.id AND user_id = ?2))"
		" AND (SELECT organization_id FROM organization_projects"
		"      WHERE project_id = p.id) IS"
		"     (SELECT organization_id FROM organization_projects"
		"      WHERE project_id = ?1)";
	int64_t ids[2] = { parent_id, user_id };
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	*child_id = 0;
	if ((error = prepare_ids(st, &stmt, sql, ids, 2)) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 3, child_slug)) == LEC_OK) {
		rc = sqlite3_step(stmt);
		if (rc == SQLITE_ROW)
			*child_id = sqlite3_column_int64(stmt, 0);
		else if (rc != SQLITE_DONE)
			error = lec_store__sqlerr(st, rc, "checking a child");
	}
	lec_store__finalize(st, stmt);
	return error;
}

/* The service's alias rule: ^[-\w]+(?:/[-\w]+)*$ */
static int valid_alias(const char *alias)
{
	const char *p = alias;

	for (;;) {
		const char *start = p;

		while (is_word((unsigned char)*p) || *p == '-')
			p++;
		if (p == start)
			return 0;
		if (*p == '\0')
			return 1;
		if (*p++ != '/')
			return 0;
	}
}

static int alias_taken(struct lec_store *st, int64_t parent_id,
		       const char *alias, int *taken)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	*taken = 0;
	if ((error = prepare_ids(st, &stmt,
				 "SELECT 1 FROM subprojects "
				 "WHERE parent_id = ?1 AND alias = ?2",
				 &parent_id, 1)) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 2, alias)) == LEC_OK) {
		rc = sqlite3_step(stmt);
		*taken = rc == SQLITE_ROW;
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			error = lec_store__sqlerr(st, rc, "checking an alias");
	}
	lec_store__finalize(st, stmt);
	return error;
}

static int alias_taken_error(void)
{
	return lec__error_field(LEC_EEXISTS, "alias",
				"A subproject with this alias already exists");
}

/* Check the alias (given, or else the child's slug), in the service's
 * order: its own rules, uniqueness, then the rules about the request. */
static int subproject_check_alias(struct lec_store *st, int64_t parent_id,
				  const char *alias, int given)
{
	int taken = 0, nested = 0;
	int error;

	if (given && utf8_length(alias) > LEC_SUBPROJECT_ALIAS_MAX)
		return lec__error_field(LEC_EINVALID, "alias",
					"Ensure this field has no more than "
					"%d characters.",
					LEC_SUBPROJECT_ALIAS_MAX);
	if (given && !valid_alias(alias))
		return lec__error_field(LEC_EINVALID, "alias",
					"Aliases can contain letters, numbers, "
					"underscores, and hyphens.");
	if ((error = alias_taken(st, parent_id, alias, &taken)) < 0)
		return error;
	if (taken)
		return alias_taken_error();
	if ((error = row_exists(st,
				"SELECT 1 FROM subprojects WHERE child_id = ?",
				parent_id, &nested)) < 0)
		return error;
	if (nested)
		return lec__error_field(LEC_EINVALID, "non_field_errors",
					"Subproject nesting is not supported");
	/* Aliases with slashes ("api/python") are allowed: the service
	 * allows them behind a per-project feature its staff turn on;
	 * Lectern has no such switches and serves them (docs.c). */
	return LEC_OK;
}

static int subproject_insert(struct lec_store *st, int64_t parent_id,
			     int64_t child_id, const char *alias)
{
	int64_t ids[3] = { parent_id, child_id, lec__now_us() };
	sqlite3_stmt *stmt = NULL;
	int error;

	if ((error = prepare_ids(st, &stmt,
				 "INSERT INTO subprojects (parent_id, child_id, "
				 "created, alias) VALUES (?1, ?2, ?3, ?4)",
				 ids, 3)) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 4, alias)) == LEC_OK)
		error = lec_store__step_done(st, stmt, "adding a subproject");
	if (error == LEC_EEXISTS)
		error = alias_taken_error();
	lec_store__finalize(st, stmt);
	return error;
}

/* Validate and link, inside the caller's transaction. */
static int subproject_link(struct lec_store *st, int64_t parent_id,
			   const char *child_slug, const char *alias,
			   int64_t user_id)
{
	int64_t child_id = 0;
	int given = alias && *alias;
	int error;

	if ((error = lec__project_exists(st, parent_id)) < 0)
		return error;
	if (child_slug == NULL)
		return lec__error_field(LEC_EINVALID, "child",
					"This field is required.");
	if ((error = subproject_candidate(st, parent_id, child_slug, user_id,
					  &child_id)) < 0)
		return error;
	if (child_id == 0)
		return lec__error_field(LEC_EINVALID, "child",
					"Project with slug=%s is not valid as "
					"subproject", child_slug);
	if (!given)
		alias = child_slug; /* the service's default alias */
	if ((error = subproject_check_alias(st, parent_id, alias, given)) < 0)
		return error;
	return subproject_insert(st, parent_id, child_id, alias);
}

int lec_subproject_create(struct lec_store *st, int64_t parent_id,
			  const char *child_slug, const char *alias,
			  int64_t user_id, struct lec_subproject **out)
{
	int error;

	lec_error_clear();
	if (out)
		*out = NULL;
	if ((error = lec_store__begin(st)) < 0)
		return error;
	if ((error = subproject_link(st, parent_id, child_slug, alias,
				     user_id)) < 0) {
		lec_store__rollback(st);
		return error;
	}
	if ((error = lec_store__commit(st)) == LEC_OK && out)
		error = subproject_fetch(st, parent_id,
					 alias && *alias ? alias : child_slug,
					 out);
	return error;
}

int lec_project_superproject(struct lec_store *st, int64_t child_id,
			     struct lec_project **parent, char **alias)
{
	struct lec_project *child = NULL;
	int error;

	lec_error_clear();
	*parent = NULL;
	if (alias)
		*alias = NULL;
	if ((error = project_fetch(st, "p.id = ?", NULL, child_id, &child)) < 0)
		return error;
	if (child->superproject_slug == NULL) {
		error = lec__error(LEC_ENOTFOUND,
				   "project '%s' is no subproject", child->slug);
		goto done;
	}
	if ((error = project_fetch(st, "p.slug = ?", child->superproject_slug,
				   0, parent)) == LEC_OK && alias) {
		*alias = child->superproject_alias;
		child->superproject_alias = NULL;
	}
done:
	lec_project_free(child);
	return error;
}

/* Translations ------------------------------------------------------------ */

/* The service's checks for adding a translation (its TranslationForm). */
static int translation_check(struct lec_store *st,
			     const struct lec_project *t,
			     const struct lec_project *main)
{
	int64_t ids[2] = { main->id, t->id };
	int64_t unused = 0;
	int sibling = 0, has_translations = 0, error;

	if (t->id == main->id)
		return lec__error_field(LEC_EINVALID, "project",
					"Project \"%s\" can not be a "
					"translation of itself.", t->slug);
	if (strcmp(main->versioning_scheme, SCHEME_WITH_TRANSLATIONS) != 0)
		return lec__error_field(LEC_EINVALID, "non_field_errors",
					"This project is configured with a "
					"versioning scheme that doesn't support "
					"translations.");
	if (main->main_language_project_id)
		return lec__error_field(LEC_EINVALID, "project",
					"Project \"%s\" is already a "
					"translation", main->slug);
	if (strcmp(t->language, main->language) == 0)
		return lec__error_field(LEC_EINVALID, "project",
					"Both projects can not have the same "
					"language (%s).",
					lec_language_name(main->language));
	if ((error = query_int_ids(st,
				   "SELECT 1 FROM projects p, projects t"
				   " WHERE t.id = ?2 AND p.id <> ?2"
				   " AND p.main_language_project_id = ?1"
				   " AND p.language = t.language",
				   ids, 2, &unused, &sibling)) < 0)
		return error;
	if (sibling)
		return lec__error_field(LEC_EINVALID, "project",
					"This project already has a "
					"translation for %s.",
					lec_language_name(t->language));
	if ((error = row_exists(st,
				"SELECT 1 FROM projects "
				"WHERE main_language_project_id = ?",
				t->id, &has_translations)) < 0)
		return error;
	if (has_translations)
		return lec__error_field(LEC_EINVALID, "project",
					"A project with existing translations "
					"can not be added as a project "
					"translation.");
	return LEC_OK;
}

static int translation_link(struct lec_store *st, int64_t project_id,
			    int64_t main_id)
{
	struct lec_project *t = NULL, *main = NULL;
	int64_t ids[3] = { main_id, lec__now_us(), project_id };
	int error;

	if ((error = project_fetch(st, "p.id = ?", NULL, project_id, &t)) < 0)
		goto done;
	if (main_id &&
	    ((error = project_fetch(st, "p.id = ?", NULL, main_id, &main)) <
		     0 ||
	     (error = translation_check(st, t, main)) < 0))
		goto done;
	error = run_ids(st,
			"UPDATE projects SET main_language_project_id = "
			"nullif(?1, 0), modified = ?2 WHERE id = ?3",
			"linking a translation", ids, 3, NULL);
done:
	lec_project_free(t);
	lec_project_free(main);
	return error;
}

int lec_project_set_translation_of(struct lec_store *st, int64_t project_id,
				   int64_t main_id)
{
	int error;

	lec_error_clear();
	if ((error = lec_store__begin(st)) < 0)
		return error;
	if ((error = translation_link(st, project_id, main_id)) < 0) {
		lec_store__rollback(st);
		return error;
	}
	return lec_store__commit(st);
}

int lec_project_translations(struct lec_store *st, int64_t main_id,
			     int64_t viewer_id, const struct lec_page *page,
			     struct lec_project_list *out)
{
	struct lec__query q;
	int error;

	lec_error_clear();
	memset(out, 0, sizeof(*out));
	lec__query_init(&q, PROJECT_COLUMNS, PROJECT_FROM);
	lec__query_where_int(&q, "p.main_language_project_id = ?", main_id);
	if ((error = query_visible_to(st, &q, viewer_id)) == LEC_OK)
		error = project_query_list(st, &q, "p.slug", page, out);
	lec__query_dispose(&q);
	return error;
}

int lec_project_translation_of(struct lec_store *st, int64_t project_id,
			       struct lec_project **main)
{
	struct lec_project *t = NULL;
	int error;

	lec_error_clear();
	*main = NULL;
	if ((error = project_fetch(st, "p.id = ?", NULL, project_id, &t)) < 0)
		return error;
	if (t->main_language_project_id == 0)
		error = lec__error(LEC_ENOTFOUND,
				   "project '%s' is no translation", t->slug);
	else
		error = project_fetch(st, "p.id = ?", NULL,
				      t->main_language_project_id, main);
	lec_project_free(t);
	return error;
}
