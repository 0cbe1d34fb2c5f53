/*
 * Versions of a project, and the rules that keep the machine versions
 * `latest` and `stable` pointing where the service would point them.
 * Choosing `stable` needs PEP 440 ordering (behaviour notes §6.2), which
 * is pep440.c's.
 */
#include <string.h>

#include "lectern/project.h"
#include "lectern/slug.h"
#include "lectern/version.h"
#include "pep440.h"
#include "store_internal.h"

/* The service's list order; id breaks ties so that pages are stable. */
#define VERSION_ORDER "verbose_name DESC, id DESC"

/* The service's "internal" versions: all but pull-request versions. */
#define NOT_EXTERNAL "type <> 'external'"

static const char *const type_codes[] = { "branch", "tag", "external",
					  "unknown" };
#define TYPE_COUNT (sizeof(type_codes) / sizeof(type_codes[0]))

static const char *const privacy_levels[] = { "public", "private" };

/* The documentation types the service knows (DOCUMENTATION_CHOICES). */
static const char *const documentation_types[] = {
	"sphinx", "sphinx_htmldir", "sphinx_singlehtml",
	"mkdocs", "mkdocs_html",    "generic",
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static int in_list(const char *s, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; s && i < n; i++)
		if (strcmp(s, list[i]) == 0)
			return 1;
	return 0;
}

static int is_empty(const char *s)
{
	return s == NULL || *s == '\0';
}

/* Types ------------------------------------------------------------------- */

const char *lec_version_type_code(enum lec_version_type type)
{
	if ((unsigned)type >= TYPE_COUNT)
		return "unknown";
	return type_codes[type];
}

int lec_version_type_parse(const char *code, enum lec_version_type *out)
{
	size_t i;

	lec_error_clear();
	for (i = 0; code && i < TYPE_COUNT; i++) {
		if (strcmp(code, type_codes[i]) == 0) {
			*out = (enum lec_version_type)i;
			return LEC_OK;
		}
	}
	return lec__error_field(LEC_EINVALID, "type",
				"Select a valid choice. %s is not one of the "
				"available choices.",
				code ? code : "");
}

/* Rows -------------------------------------------------------------------- */

static const struct lec__column version_columns[] = {
	LEC__INT64(lec_version, id, "id"),
	LEC__INT64(lec_version, project_id, "project_id"),
	LEC__TEXT(lec_version, slug, "slug"),
	LEC__TEXT(lec_version, verbose_name, "verbose_name"),
	LEC__TEXT_OPT(lec_version, identifier, "identifier"),
	LEC__CODE(lec_version, type, "type", type_codes,
		  LEC_VERSION_UNKNOWN),
	LEC__INT(lec_version, active, "active"),
	LEC__INT(lec_version, hidden, "hidden"),
	LEC__INT(lec_version, built, "built"),
	LEC__INT(lec_version, uploaded, "uploaded"),
	LEC__TEXT(lec_version, privacy_level, "privacy_level"),
	LEC__INT(lec_version, machine, "machine"),
	LEC__INT(lec_version, has_pdf, "has_pdf"),
	LEC__INT(lec_version, has_epub, "has_epub"),
	LEC__INT(lec_version, has_htmlzip, "has_htmlzip"),
	LEC__TEXT(lec_version, documentation_type,
		  "documentation_type"),
	LEC__TIME(lec_version, created, "created"),
	LEC__TIME(lec_version, modified, "modified"),
};
static const struct lec__row version_row =
	LEC__ROW(lec_version, version_columns, NULL, NULL);
const struct lec__table lec__versions = {
	.row = &version_row, .from = "versions",
	.order = VERSION_ORDER,
	.not_found = "No Version matches the given query.",
};

LEC__DEFINE_FREES(lec_version, &version_row)

/* Run a version query (ordered like lists) into out. */
static int version_query(struct lec_store *st, struct lec__query *q,
			 const struct lec_page *page,
			 struct lec_version_list *out)
{
	memset(out, 0, sizeof(*out));
	return lec__query_list(st, q, VERSION_ORDER, page, (void **)&out->items,
			       &out->len, &out->total);
}

/* Move item i out of a list into its own allocation, then dispose the
 * list. */
static int version_take(struct lec_version_list *list, size_t i,
			struct lec_version **out)
{
	*out = lec__malloc(sizeof(**out));
	if (*out == NULL) {
		lec_version_list_dispose(list);
		return lec__error_oom();
	}
	**out = list->items[i];
	memset(&list->items[i], 0, sizeof(list->items[i]));
	lec_version_list_dispose(list);
	return LEC_OK;
}

/* The first row of a query, or LEC_ENOTFOUND with the service's text. */
static int version_first(struct lec_store *st, struct lec__query *q,
			 struct lec_version **out)
{
	struct lec_version_list list;
	struct lec_page one = { 1, 0 };
	int error = version_query(st, q, &one, &list);

	lec__query_dispose(q);
	if (error < 0)
		return error;
	if (list.len == 0) {
		lec_version_list_dispose(&list);
		return lec__error(LEC_ENOTFOUND,
				  "No Version matches the given query.");
	}
	return version_take(&list, 0, out);
}

static int version_by_slug(struct lec_store *st, int64_t project_id,
			   const char *slug, struct lec_version **out)
{
	struct lec__query q;

	lec__query_init(&q, &version_row, "versions");
	lec__query_where_int(&q, "project_id = ?", project_id);
	lec__query_where_text(&q, "slug = ?", slug);
	return version_first(st, &q, out);
}

int lec_version_get(struct lec_store *st, int64_t project_id,
		    const char *slug, struct lec_version **out)
{
	lec_error_clear();
	*out = NULL;
	if (slug == NULL)
		return lec__error(LEC_EINVALID, "no version slug given");
	return version_by_slug(st, project_id, slug, out);
}

int lec_version_get_by_id(struct lec_store *st, int64_t id,
			  struct lec_version **out)
{
	struct lec__query q;

	lec_error_clear();
	*out = NULL;
	lec__query_init(&q, &version_row, "versions");
	lec__query_where_int(&q, "id = ?", id);
	return version_first(st, &q, out);
}

/* Small statements -------------------------------------------------------- */

/* Whether `sql` (binding an integer and optionally a text) returns a row. */
static int row_exists(struct lec_store *st, const char *sql, int64_t num,
		      const char *text, int *found)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	*found = 0;
	if ((error = lec_store__prepare(st, &stmt, sql)) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, num);
	if (text && (error = lec_store__bind_text(stmt, 2, text)) < 0)
		goto done;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		*found = 1;
	else if (rc != SQLITE_DONE)
		error = lec_store__sqlerr(st, rc, "looking a version up");
done:
	lec_store__finalize(st, stmt);
	return error;
}

int lec_version_is_external(struct lec_store *st, int64_t id, int *external)
{
	lec_error_clear();
	return row_exists(st,
			  "SELECT 1 FROM versions WHERE id = ? AND "
			  "type = 'external'",
			  id, NULL, external);
}

/* LEC_ENOTFOUND: no version has this id. */
static int no_version(int64_t id)
{
	return lec__error(LEC_ENOTFOUND, "no version with id %lld",
			  (long long)id);
}

/* Run an UPDATE/DELETE that must touch exactly one version. */
static int step_one(struct lec_store *st, sqlite3_stmt *stmt, int64_t id,
		    const char *what)
{
	int error = lec_store__step_done(st, stmt, what);

	return error == LEC_OK && sqlite3_changes(st->db) == 0 ? no_version(id)
							       : error;
}

/* Creating ---------------------------------------------------------------- */

static int check_name(const char *name)
{
	if (is_empty(name))
		return lec__error_blank("verbose_name");
	if (strlen(name) > LEC_VERSION_NAME_MAX)
		return lec__error_too_long("verbose_name", LEC_VERSION_NAME_MAX);
	return LEC_OK;
}

static int check_identifier(const char *identifier)
{
	if (identifier && strlen(identifier) > LEC_VERSION_IDENTIFIER_MAX)
		return lec__error_too_long("identifier", LEC_VERSION_IDENTIFIER_MAX);
	return LEC_OK;
}

static int check_type(enum lec_version_type type)
{
	if ((unsigned)type >= TYPE_COUNT)
		return lec__error_field(LEC_EINVALID, "type",
					"\"%d\" is not a valid choice.",
					(int)type);
	return LEC_OK;
}

/* base, cut so that suffix still fits the slug limit, plus suffix. */
static char *slug_candidate(const char *base, const char *suffix)
{
	struct lec__buf b = LEC__BUF_INIT;
	size_t keep = strlen(base);
	size_t room = LEC_VERSION_SLUG_MAX - strlen(suffix);

	lec__buf_printf(&b, "%.*s%s", (int)(keep < room ? keep : room), base,
			suffix);
	return lec__buf_take(&b);
}

/* The first of base, base_a, base_b, ... free in the project. */
static int unique_slug(struct lec_store *st, int64_t project_id,
		       const char *name, char **out)
{
	char *base = NULL, *slug = NULL;
	char suffix[16] = "";
	unsigned long n = 0;
	int error, found = 1;

	*out = NULL;
	if ((error = lec_slug_version(name, &base)) < 0)
		return error;
	slug = lec__strdup(base);
	while (slug != NULL) {
		if ((error = row_exists(st,
					"SELECT 1 FROM versions WHERE "
					"project_id = ? AND slug = ?",
					project_id, slug, &found)) < 0 ||
		    !found)
			break;
		lec__free(slug);
		slug = NULL;
		if (n == LEC_VERSION_SLUG_ATTEMPTS) {
			error = lec__error(LEC_ELIMIT,
					   "too many versions share the slug "
					   "'%s'", base);
			break;
		}
		lec_slug_suffix(n++, suffix);
		slug = slug_candidate(base, suffix);
	}
	if (slug == NULL && error == LEC_OK)
		error = lec__error_oom();
	lec__free(base);
	if (error < 0) {
		lec__free(slug);
		return error;
	}
	*out = slug;
	return LEC_OK;
}

/* What version_insert writes. */
struct version_new {
	int64_t project_id;
	const char *slug; /* NULL: derived from verbose_name */
	const char *verbose_name;
	const char *identifier;
	enum lec_version_type type;
	int active;
	int machine;
};

/* Insert inside the caller's transaction. */
static int version_insert(struct lec_store *st, const struct version_new *n,
			  int64_t *id)
{
	sqlite3_stmt *stmt = NULL;
	char *slug = NULL;
	int64_t now = lec__now_us();
	int error;

	if (n->slug)
		slug = lec__strdup(n->slug);
	else if ((error = unique_slug(st, n->project_id, n->verbose_name,
				      &slug)) < 0)
		return error;
	LEC__CHECK_ALLOC(slug);
	if ((error = lec_store__prepare(
		     st, &stmt,
		     "INSERT INTO versions (project_id, slug, verbose_name, "
		     "identifier, type, active, machine, created, modified) "
		     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) < 0)
		goto done;
	sqlite3_bind_int64(stmt, 1, n->project_id);
	if ((error = lec_store__bind_text(stmt, 2, slug)) < 0 ||
	    (error = lec_store__bind_text(stmt, 3, n->verbose_name)) < 0 ||
	    (error = lec_store__bind_text(stmt, 4, n->identifier)) < 0 ||
	    (error = lec_store__bind_text(stmt, 5,
					  lec_version_type_code(n->type))) < 0)
		goto done;
	sqlite3_bind_int(stmt, 6, n->active ? 1 : 0);
	sqlite3_bind_int(stmt, 7, n->machine ? 1 : 0);
	sqlite3_bind_int64(stmt, 8, now);
	sqlite3_bind_int64(stmt, 9, now);
	if ((error = lec_store__step_done(st, stmt, "creating a version")) ==
	    LEC_OK)
		*id = sqlite3_last_insert_rowid(st->db);
done:
	lec_store__finalize(st, stmt);
	lec__free(slug);
	return error;
}

int lec_version_create(struct lec_store *st, int64_t project_id,
		       const char *verbose_name, const char *identifier,
		       enum lec_version_type type, int active,
		       struct lec_version **out)
{
	struct version_new n = {
		.project_id = project_id,
		.verbose_name = verbose_name,
		.identifier = identifier,
		.type = type,
		.active = active,
	};
	struct lec_version *created = NULL;
	int64_t id = 0;
	int error;

	lec_error_clear();
	if (out)
		*out = NULL;
	if ((error = check_name(verbose_name)) < 0 ||
	    (error = check_identifier(identifier)) < 0 ||
	    (error = check_type(type)) < 0)
		return error;
	if ((error = lec_store__begin(st)) < 0)
		return error;
	/* Read back before committing: a failure then creates nothing. */
	if ((error = lec__project_exists(st, project_id)) == LEC_OK &&
	    (error = version_insert(st, &n, &id)) == LEC_OK && out)
		error = lec_version_get_by_id(st, id, &created);
	if ((error = lec_store__end(st, error)) < 0) {
		lec_version_free(created);
		return error;
	}
	if (out)
		*out = created;
	return LEC_OK;
}

/* Listing ----------------------------------------------------------------- */

static void where_bool(struct lec__query *q, const char *cond,
		       enum lec_filter_bool f)
{
	if (f == LEC_FILTER_TRUE || f == LEC_FILTER_FALSE)
		lec__query_where_int(q, cond, f == LEC_FILTER_TRUE);
}

static int choice_error(const char *field, const char *value)
{
	return lec__error_field(LEC_EINVALID, field,
				"Select a valid choice. %s is not one of the "
				"available choices.",
				value);
}

static int version_filter(struct lec__query *q,
			  const struct lec_version_filter *f)
{
	enum lec_version_type type = LEC_VERSION_BRANCH;
	int error;

	where_bool(q, "active = ?", f->active);
	where_bool(q, "built = ?", f->built);
	where_bool(q, "uploaded = ?", f->uploaded);
	if (f->external == LEC_FILTER_TRUE)
		lec__query_where(q, "type = 'external'");
	else if (f->external == LEC_FILTER_FALSE)
		lec__query_where(q, NOT_EXTERNAL);
	if (!is_empty(f->privacy_level)) {
		if (!in_list(f->privacy_level, privacy_levels,
			     COUNT_OF(privacy_levels)))
			return choice_error("privacy_level", f->privacy_level);
		lec__query_where_text(q, "privacy_level = ?",
				      f->privacy_level);
	}
	if (!is_empty(f->type)) {
		if ((error = lec_version_type_parse(f->type, &type)) < 0)
			return error;
		lec__query_where_text(q, "type = ?",
				      lec_version_type_code(type));
	}
	if (!is_empty(f->slug))
		lec__query_where_text(q, "instr(lower(slug), lower(?)) > 0",
				      f->slug);
	if (!is_empty(f->verbose_name))
		lec__query_where_text(
			q, "instr(lower(verbose_name), lower(?)) > 0",
			f->verbose_name);
	return LEC_OK;
}

int lec_version_list(struct lec_store *st, int64_t project_id,
		     const struct lec_version_filter *filter,
		     const struct lec_page *page, struct lec_version_list *out)
{
	struct lec__query q;
	int error = LEC_OK;

	lec_error_clear();
	memset(out, 0, sizeof(*out));
	lec__query_init(&q, &version_row, "versions");
	lec__query_where_int(&q, "project_id = ?", project_id);
	if (filter)
		error = version_filter(&q, filter);
	if (error == LEC_OK)
		error = version_query(st, &q, page, out);
	lec__query_dispose(&q);
	return error;
}

/* Updating ---------------------------------------------------------------- */

static int check_patch(const struct lec_version_patch *p)
{
	int error;

	if ((p->set & LEC_VERSION_SET_VERBOSE_NAME) &&
	    (error = check_name(p->verbose_name)) < 0)
		return error;
	if ((p->set & LEC_VERSION_SET_IDENTIFIER) &&
	    (error = check_identifier(p->identifier)) < 0)
		return error;
	if ((p->set & LEC_VERSION_SET_TYPE) &&
	    (error = check_type(p->type)) < 0)
		return error;
	if ((p->set & LEC_VERSION_SET_PRIVACY_LEVEL) &&
	    !in_list(p->privacy_level, privacy_levels,
		     COUNT_OF(privacy_levels)))
		return lec__error_field(LEC_EINVALID, "privacy_level",
					"\"%s\" is not a valid choice.",
					p->privacy_level ? p->privacy_level
							 : "");
	if ((p->set & LEC_VERSION_SET_DOCUMENTATION_TYPE) &&
	    !in_list(p->documentation_type, documentation_types,
		     COUNT_OF(documentation_types)))
		return lec__error_field(LEC_EINVALID, "documentation_type",
					"\"%s\" is not a valid choice.",
					p->documentation_type
						? p->documentation_type
						: "");
	return LEC_OK;
}

/* The UPDATE's bound values, in the order of its placeholders. */
struct patch_sql {
	struct lec__buf sql;
	int n;
	struct lec__query_bind binds[LEC__QUERY_MAX_BINDS];
};

static void patch_int(struct patch_sql *ps, unsigned int set,
		      unsigned int bit, const char *column, int value)
{
	if (!(set & bit))
		return;
	lec__buf_printf(&ps->sql, ", %s = ?", column);
	ps->binds[ps->n].is_text = 0;
	ps->binds[ps->n++].num = value ? 1 : 0;
}

static void patch_text(struct patch_sql *ps, unsigned int set,
		       unsigned int bit, const char *column,
		       const char *value)
{
	if (!(set & bit))
		return;
	lec__buf_printf(&ps->sql, ", %s = ?", column);
	ps->binds[ps->n].is_text = 1;
	ps->binds[ps->n++].text = value;
}

static char *patch_build(struct patch_sql *ps,
			 const struct lec_version_patch *p)
{
	unsigned int s = p->set;

	lec__buf_puts(&ps->sql, "UPDATE versions SET modified = ?");
	patch_int(ps, s, LEC_VERSION_SET_ACTIVE, "active", p->active);
	patch_int(ps, s, LEC_VERSION_SET_HIDDEN, "hidden", p->hidden);
	patch_int(ps, s, LEC_VERSION_SET_BUILT, "built", p->built);
	patch_int(ps, s, LEC_VERSION_SET_UPLOADED, "uploaded", p->uploaded);
	patch_text(ps, s, LEC_VERSION_SET_IDENTIFIER, "identifier",
		   p->identifier);
	patch_text(ps, s, LEC_VERSION_SET_TYPE, "type",
		   lec_version_type_code(p->type));
	patch_text(ps, s, LEC_VERSION_SET_VERBOSE_NAME, "verbose_name",
		   p->verbose_name);
	patch_text(ps, s, LEC_VERSION_SET_PRIVACY_LEVEL, "privacy_level",
		   p->privacy_level);
	patch_int(ps, s, LEC_VERSION_SET_HAS_PDF, "has_pdf", p->has_pdf);
	patch_int(ps, s, LEC_VERSION_SET_HAS_EPUB, "has_epub", p->has_epub);
	patch_int(ps, s, LEC_VERSION_SET_HAS_HTMLZIP, "has_htmlzip",
		  p->has_htmlzip);
	patch_text(ps, s, LEC_VERSION_SET_DOCUMENTATION_TYPE,
		   "documentation_type", p->documentation_type);
	patch_int(ps, s, LEC_VERSION_SET_MACHINE, "machine", p->machine);
	/* Deactivating removes the artefacts, so the version is no longer
	 * built; the old `active` is what SQLite reads on the right. */
	if ((s & LEC_VERSION_SET_ACTIVE) && !p->active &&
	    !(s & LEC_VERSION_SET_BUILT))
		lec__buf_puts(&ps->sql, ", built = CASE WHEN active THEN 0 "
					"ELSE built END");
	lec__buf_puts(&ps->sql, " WHERE id = ?");
	return lec__buf_take(&ps->sql);
}

int lec_version_update(struct lec_store *st, int64_t id,
		       const struct lec_version_patch *patch)
{
	struct patch_sql ps;
	sqlite3_stmt *stmt = NULL;
	char *sql;
	int error, i;

	lec_error_clear();
	if ((error = check_patch(patch)) < 0)
		return error;
	memset(&ps, 0, sizeof(ps));
	sql = patch_build(&ps, patch);
	LEC__CHECK_ALLOC(sql);
	error = lec_store__prepare(st, &stmt, sql);
	lec__free(sql);
	if (error < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, lec__now_us());
	for (i = 0; i < ps.n && error == LEC_OK; i++) {
		if (ps.binds[i].is_text)
			error = lec_store__bind_text(stmt, i + 2,
						     ps.binds[i].text);
		else
			sqlite3_bind_int64(stmt, i + 2, ps.binds[i].num);
	}
	sqlite3_bind_int64(stmt, ps.n + 2, id);
	if (error == LEC_OK)
		error = step_one(st, stmt, id, "updating a version");
	lec_store__finalize(st, stmt);
	return error;
}

int lec_version_delete(struct lec_store *st, int64_t id)
{
	int changes = 0, error;

	lec_error_clear();
	error = lec_store__exec_ints(st, "DELETE FROM versions WHERE id = ?",
				     &id, 1, "deleting a version", &changes);
	return error == LEC_OK && changes == 0 ? no_version(id) : error;
}

/* stable ------------------------------------------------------------------ */

/* The best version seen so far of one kind (tags, or any type). */
struct stable_pick {
	struct lec__pep440 v;
	size_t index;
	int found;
};

/* Keep cand (parsed from name) if it beats the pick; ties keep the earlier
 * one, as the service's stable sort does. */
static int pick_consider(struct stable_pick *pick,
			 const struct lec__pep440 *cand, const char *name,
			 size_t index)
{
	int rc;

	if (pick->found && lec__pep440_cmp(cand, &pick->v) <= 0)
		return LEC_OK;
	lec__pep440_dispose(&pick->v);
	pick->found = 0;
	if ((rc = lec__pep440_read(name, &pick->v)) < 0)
		return rc;
	pick->found = rc == 1;
	pick->index = index;
	return LEC_OK;
}

/* Choose among list (already in list order) per determine_stable. */
static int stable_choose(const struct lec_version_list *list, size_t *index,
			 int *found)
{
	struct stable_pick tag = { 0 }, any = { 0 };
	struct lec__pep440 cand;
	size_t i;
	int rc, error = LEC_OK;

	for (i = 0; i < list->len && error == LEC_OK; i++) {
		const struct lec_version *v = &list->items[i];

		if ((rc = lec__pep440_read(v->verbose_name, &cand)) <= 0) {
			error = rc;
			continue;
		}
		if (lec__pep440_is_final(&cand)) {
			error = pick_consider(&any, &cand, v->verbose_name, i);
			if (error == LEC_OK && v->type == LEC_VERSION_TAG)
				error = pick_consider(&tag, &cand,
						      v->verbose_name, i);
		}
		lec__pep440_dispose(&cand);
	}
	*found = tag.found || any.found;
	*index = tag.found ? tag.index : any.index;
	lec__pep440_dispose(&tag.v);
	lec__pep440_dispose(&any.v);
	return error;
}

/* The stable pick among the rows of q (which this disposes). */
static int stable_among(struct lec_store *st, struct lec__query *q,
			struct lec_version **out)
{
	struct lec_version_list list;
	size_t index = 0;
	int error, found = 0;

	*out = NULL;
	error = version_query(st, q, NULL, &list);
	lec__query_dispose(q);
	if (error < 0)
		return error;
	if ((error = stable_choose(&list, &index, &found)) < 0) {
		lec_version_list_dispose(&list);
		return error;
	}
	if (!found) {
		lec_version_list_dispose(&list);
		return lec__error(LEC_ENOTFOUND,
				  "no version qualifies as stable");
	}
	return version_take(&list, index, out);
}

static int determine_stable(struct lec_store *st, int64_t project_id,
			    struct lec_version **out)
{
	struct lec__query q;

	lec__query_init(&q, &version_row, "versions");
	lec__query_where_int(&q, "project_id = ?", project_id);
	lec__query_where(&q, NOT_EXTERNAL);
	return stable_among(st, &q, out);
}

int lec_version_determine_stable(struct lec_store *st, int64_t project_id,
				 struct lec_version **out)
{
	lec_error_clear();
	return determine_stable(st, project_id, out);
}

static int same_text(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

/* Point a machine version at identifier and type. */
static int machine_point(struct lec_store *st, int64_t id,
			 const char *identifier, enum lec_version_type type)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	if ((error = lec_store__prepare(
		     st, &stmt,
		     "UPDATE versions SET identifier = ?, type = ?, "
		     "modified = ? WHERE id = ?")) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 1, identifier)) == LEC_OK &&
	    (error = lec_store__bind_text(stmt, 2,
					  lec_version_type_code(type))) ==
		    LEC_OK) {
		sqlite3_bind_int64(stmt, 3, lec__now_us());
		sqlite3_bind_int64(stmt, 4, id);
		error = step_one(st, stmt, id, "updating a machine version");
	}
	lec_store__finalize(st, stmt);
	return error;
}

/* The machine-made version slug (stable, latest) as it stands: *current
 * NULL when there is none. A user's own version of that slug is returned
 * too; the callers leave it alone. */
static int machine_current(struct lec_store *st, int64_t project_id,
			   const char *slug, struct lec_version **current)
{
	int error = version_by_slug(st, project_id, slug, current);

	return error == LEC_ENOTFOUND ? LEC_OK : error;
}

/* Make the machine version slug, pointing at identifier. */
static int machine_insert(struct lec_store *st, int64_t project_id,
			  const char *slug, const char *identifier,
			  enum lec_version_type type)
{
	const struct version_new n = {
		.project_id = project_id,
		.slug = slug,
		.verbose_name = slug,
		.identifier = identifier,
		.type = type,
		.active = 1,
		.machine = 1,
	};
	int64_t id = 0;

	return version_insert(st, &n, &id);
}

/* Inside a transaction: the new winner when stable was created or moved. */
static int stable_sync(struct lec_store *st, int64_t project_id,
		       struct lec_version **promoted)
{
	struct lec_version *current = NULL, *winner = NULL;
	int error = machine_current(st, project_id, LEC_VERSION_STABLE,
				    &current);

	if (error < 0 || (current && !current->machine))
		goto done;
	if ((error = determine_stable(st, project_id, &winner)) < 0) {
		if (error == LEC_ENOTFOUND)
			error = LEC_OK;
		goto done;
	}
	if (current == NULL) {
		error = machine_insert(st, project_id, LEC_VERSION_STABLE,
				       winner->identifier, winner->type);
	} else if (!same_text(current->identifier, winner->identifier) ||
		   current->type != winner->type) {
		error = machine_point(st, current->id, winner->identifier,
				      winner->type);
	} else {
		goto done; /* already there */
	}
	if (error == LEC_OK) {
		*promoted = winner;
		winner = NULL;
	}
done:
	lec_version_free(current);
	lec_version_free(winner);
	return error;
}

int lec_version_update_stable(struct lec_store *st, int64_t project_id,
			      struct lec_version **promoted)
{
	struct lec_version *winner = NULL;
	int error;

	lec_error_clear();
	if (promoted)
		*promoted = NULL;
	if ((error = lec_store__begin(st)) < 0)
		return error;
	if ((error = lec__project_exists(st, project_id)) == LEC_OK)
		error = stable_sync(st, project_id, &winner);
	if ((error = lec_store__end(st, error)) < 0) {
		lec_version_free(winner);
		return error;
	}
	if (promoted)
		*promoted = winner;
	else
		lec_version_free(winner);
	return LEC_OK;
}

/* latest ------------------------------------------------------------------ */

/* The project's own version named name (not latest, not external). */
static int version_named(struct lec_store *st, int64_t project_id,
			 const char *name, struct lec_version **out)
{
	struct lec__query q;

	lec__query_init(&q, &version_row, "versions");
	lec__query_where_int(&q, "project_id = ?", project_id);
	lec__query_where(&q, NOT_EXTERNAL);
	lec__query_where(&q, "slug <> '" LEC_VERSION_LATEST "'");
	lec__query_where_text(&q, "verbose_name = ?", name);
	return version_first(st, &q, out);
}

/* Inside a transaction. */
static int latest_sync(struct lec_store *st, int64_t project_id,
		       const char *default_branch)
{
	struct lec_version *current = NULL, *original = NULL;
	enum lec_version_type type = LEC_VERSION_BRANCH;
	int error = machine_current(st, project_id, LEC_VERSION_LATEST,
				    &current);

	if (error < 0 || (current && !current->machine))
		goto done;
	if (default_branch) {
		error = version_named(st, project_id, default_branch,
				      &original);
		if (error == LEC_OK)
			type = original->type;
		else if (error != LEC_ENOTFOUND)
			goto done;
	}
	if (current == NULL)
		error = machine_insert(st, project_id, LEC_VERSION_LATEST,
				       default_branch, type);
	else
		error = machine_point(st, current->id, default_branch, type);
done:
	lec_version_free(current);
	lec_version_free(original);
	return error;
}

int lec_version_update_latest(struct lec_store *st, int64_t project_id,
			      const char *default_branch)
{
	int error;

	lec_error_clear();
	if ((error = check_identifier(default_branch)) < 0 ||
	    (error = lec_store__begin(st)) < 0)
		return error;
	if ((error = lec__project_exists(st, project_id)) == LEC_OK)
		error = latest_sync(st, project_id, default_branch);
	return lec_store__end(st, error);
}

int lec_version_original(struct lec_store *st,
			 const struct lec_version *version,
			 struct lec_version **out)
{
	struct lec__query q;

	lec_error_clear();
	*out = NULL;
	if (!version->machine || version->identifier == NULL)
		return lec__error(LEC_ENOTFOUND,
				  "version '%s' stands for no other version",
				  version->slug);
	if (strcmp(version->slug, LEC_VERSION_LATEST) == 0)
		return version_named(st, version->project_id,
				     version->identifier, out);
	if (strcmp(version->slug, LEC_VERSION_STABLE) != 0)
		return lec__error(LEC_ENOTFOUND,
				  "version '%s' stands for no other version",
				  version->slug);
	lec__query_init(&q, &version_row, "versions");
	lec__query_where_int(&q, "project_id = ?", version->project_id);
	lec__query_where(&q, NOT_EXTERNAL);
	lec__query_where_text(&q, "identifier = ?", version->identifier);
	return stable_among(st, &q, out);
}

/* The default version ----------------------------------------------------- */

static int project_default_version(struct lec_store *st, int64_t project_id,
				   char **out)
{
	int found = 0;
	int error = lec_store__query_text(st,
					  "SELECT default_version FROM "
					  "projects WHERE id = ?",
					  &project_id, 1, "reading a project",
					  out, &found);

	if (error == LEC_OK && !found)
		error = lec__error(LEC_ENOTFOUND, "no project with id %lld",
				   (long long)project_id);
	return error;
}

int lec_version_default_slug(struct lec_store *st, int64_t project_id,
			     char **out)
{
	char *stored = NULL;
	int error, found = 0;

	lec_error_clear();
	*out = NULL;
	if ((error = project_default_version(st, project_id, &stored)) < 0)
		return error;
	if (stored && strcmp(stored, LEC_VERSION_LATEST) != 0)
		error = row_exists(st,
				   "SELECT 1 FROM versions WHERE "
				   "project_id = ? AND slug = ? AND active = 1",
				   project_id, stored, &found);
	if (error == LEC_OK && !found) {
		lec__free(stored);
		stored = lec__strdup(LEC_VERSION_LATEST);
		LEC__CHECK_ALLOC(stored);
	}
	if (error < 0) {
		lec__free(stored);
		return error;
	}
	*out = stored;
	return LEC_OK;
}

/* Version sync requests --------------------------------------------------- */

int lec_version_sync_request(struct lec_store *st, int64_t project_id)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	lec_error_clear();
	if ((error = lec_store__begin(st)) < 0)
		return error;
	/* A pending request keeps its id, and so its place in the queue. */
	if ((error = lec__project_exists(st, project_id)) == LEC_OK &&
	    (error = lec__project_refuse_mirrored(st, project_id,
						  "synced")) == LEC_OK &&
	    (error = lec_store__prepare(
		     st, &stmt,
		     "INSERT INTO version_sync_requests (project_id, "
		     "requested) VALUES (?, ?) "
		     "ON CONFLICT (project_id) DO NOTHING")) == LEC_OK) {
		sqlite3_bind_int64(stmt, 1, project_id);
		sqlite3_bind_int64(stmt, 2, lec__now_us());
		error = lec_store__step_done(st, stmt,
					     "requesting a version sync");
	}
	lec_store__finalize(st, stmt);
	return lec_store__end(st, error);
}

/* Delete the oldest request inside the caller's transaction; *project_id
 * is 0 when none is pending. */
static int take_oldest(struct lec_store *st, int64_t *project_id)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	if ((error = lec_store__prepare(
		     st, &stmt,
		     "DELETE FROM version_sync_requests WHERE id = "
		     "(SELECT min(id) FROM version_sync_requests) "
		     "RETURNING project_id")) < 0)
		return error;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*project_id = sqlite3_column_int64(stmt, 0);
		rc = sqlite3_step(stmt);
	}
	if (rc != SQLITE_DONE)
		error = lec_store__sqlerr(st, rc, "taking a version sync");
	lec_store__finalize(st, stmt);
	return error;
}

int lec_version_sync_take(struct lec_store *st, int64_t *project_id)
{
	int64_t taken = 0;
	int error;

	lec_error_clear();
	*project_id = 0;
	/* BEGIN IMMEDIATE takes the write lock before the SELECT inside the
	 * DELETE reads, so two processes never take the same request. */
	if ((error = lec_store__begin(st)) < 0)
		return error;
	if ((error = take_oldest(st, &taken)) == LEC_OK && taken == 0)
		error = lec__error(LEC_ENOTFOUND, "no version sync is pending");
	if ((error = lec_store__end(st, error)) < 0)
		return error;
	*project_id = taken;
	return LEC_OK;
}

/* Visibility --------------------------------------------------------------- */

static int is_public(const char *privacy_level)
{
	return privacy_level && strcmp(privacy_level, "public") == 0;
}

/* The project part of lec_version_can_view: 1 when the viewer sees it. */
static int project_visible(struct lec_store *st, const struct lec_project *p,
			   int64_t viewer_id)
{
	if (is_public(p->privacy_level) || viewer_id == LEC_VIEWER_ALL)
		return 1;
	if (viewer_id == LEC_VIEWER_ANONYMOUS)
		return 0;
	return lec_project_can_view(st, p->id, viewer_id);
}

int lec_version_can_view(struct lec_store *st, const struct lec_project *p,
			 const struct lec_version *v, int64_t viewer_id,
			 unsigned int flags)
{
	const char *level = v->privacy_level;
	int rc;

	lec_error_clear();
	if ((flags & LEC_VERSION_VIEW_LISTED) && v->hidden)
		return 0;
	if ((flags & LEC_VERSION_VIEW_PROJECT) &&
	    (rc = project_visible(st, p, viewer_id)) != 1)
		return rc;
	if ((flags & LEC_VERSION_VIEW_EXTERNAL_BUILDS) &&
	    v->type == LEC_VERSION_EXTERNAL)
		level = p->external_builds_privacy_level;
	if (is_public(level) || viewer_id == LEC_VIEWER_ALL)
		return 1;
	if (viewer_id == LEC_VIEWER_ANONYMOUS)
		return 0;
	return lec_project_is_admin(st, p->id, viewer_id);
}
