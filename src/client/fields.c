/*
 * The parser and the releaser of field tables (fields.h): each row of a
 * model is read from the JSON object by its kind into the member at its
 * offset, and released by its kind again. This is the one place that
 * decides what a missing, null or differently typed field becomes, for
 * every model the client has.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"

void lc__parse_nomem(struct lc__parse *p)
{
	/* A required field's LC_EJSON stays the answer. */
	if (p->rc == LC_OK)
		p->rc = LC_ENOMEM;
}

char *lc__parse_dup(struct lc__parse *p, const char *s)
{
	char *d;

	if (p->rc != LC_OK)
		return NULL;
	if ((d = strdup(s)) == NULL)
		lc__parse_nomem(p);
	return d;
}

static const cJSON *field(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* A JSON number as an integer; out-of-range values (which a cast would
 * make undefined) count as missing. */
static bool json_int(const cJSON *v, long long *out)
{
	if (!cJSON_IsNumber(v) || !(v->valuedouble > -9.2e18) ||
	    !(v->valuedouble < 9.2e18))
		return false;
	*out = (long long)v->valuedouble;
	return true;
}

long long lc__json_int(const cJSON *v, long long def)
{
	long long n = def;

	json_int(v, &n);
	return n;
}

static void *at(void *rec, size_t offset)
{
	return (char *)rec + offset;
}

/* calloc of an array's length of items of size (NULL for an empty or no
 * array). */
static void *items_for(struct lc__parse *p, const cJSON *arr, size_t size)
{
	void *out;

	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0 ||
	    p->rc != LC_OK)
		return NULL;
	if ((out = calloc((size_t)cJSON_GetArraySize(arr), size)) == NULL)
		lc__parse_nomem(p);
	return out;
}

static bool read_str(struct lc__parse *p, const struct lc__field *f,
		     const cJSON *v, char **out)
{
	bool found = cJSON_IsString(v);

	*out = NULL;
	if (found)
		*out = lc__parse_dup(p, v->valuestring);
	else if (f->text != NULL)
		*out = lc__parse_dup(p, f->text);
	if ((f->flags & LC__EMPTY_IS_NULL) && *out != NULL && **out == '\0') {
		free(*out);
		*out = NULL;
	}
	return found;
}

static bool read_strings(struct lc__parse *p, const struct lc__field *f,
			 const cJSON *arr, char ***out, size_t *len)
{
	const cJSON *item;

	*len = 0;
	if ((*out = items_for(p, arr, sizeof(**out))) == NULL)
		return cJSON_IsArray(arr);
	cJSON_ArrayForEach(item, arr) {
		const cJSON *s = f->text ? field(item, f->text) : item;

		if (cJSON_IsString(s) &&
		    ((*out)[*len] = lc__parse_dup(p, s->valuestring)) != NULL)
			(*len)++;
	}
	return true;
}

static void read_fields(struct lc__parse *p, const struct lc__model *m,
			const cJSON *json, void *rec);

static bool read_list(struct lc__parse *p, const struct lc__field *f,
		      const cJSON *arr, void **out, size_t *len)
{
	const cJSON *item;

	*len = 0;
	if ((*out = items_for(p, arr, f->model->size)) == NULL)
		return cJSON_IsArray(arr);
	cJSON_ArrayForEach(item, arr) {
		if (!cJSON_IsObject(item))
			continue;
		read_fields(p, f->model, item, at(*out, *len * f->model->size));
		(*len)++;
	}
	return true;
}

static bool read_model(struct lc__parse *p, const struct lc__field *f,
		       const cJSON *v, void **out)
{
	*out = NULL;
	if (!cJSON_IsObject(v))
		return false;
	/* An object's parse can only run out of memory. */
	if (lc__model_parse(f->model, v, out, NULL) != LC_OK)
		lc__parse_nomem(p);
	return true;
}

/* Reads one row into rec; returns whether its value was found. */
static bool read_field(struct lc__parse *p, const struct lc__field *f,
		       const cJSON *json, void *rec)
{
	const cJSON *v = field(json, f->key);
	void *member = at(rec, f->offset);

	if (f->sub != NULL)
		v = field(v, f->sub);
	if (f->convert != NULL)
		return f->convert(p, v, member);
	switch (f->kind) {
	case LC__STR:
		return read_str(p, f, v, member);
	case LC__INT:
		*(long long *)member = f->def;
		return json_int(v, member);
	case LC__BOOL:
		*(int *)member = cJSON_IsBool(v) ? cJSON_IsTrue(v) != 0
						 : LC_UNKNOWN;
		return cJSON_IsBool(v);
	case LC__STRINGS:
		return read_strings(p, f, v, member, at(rec, f->len));
	case LC__LIST:
		return read_list(p, f, v, member, at(rec, f->len));
	case LC__MODEL:
		return read_model(p, f, v, member);
	}
	return false;
}

static void read_fields(struct lc__parse *p, const struct lc__model *m,
			const cJSON *json, void *rec)
{
	bool found = false;
	size_t i;

	for (i = 0; i < m->count; i++) {
		const struct lc__field *f = &m->fields[i];

		if ((f->flags & LC__ELSE) && found)
			continue;
		found = read_field(p, f, json, rec);
		if (f->flags & LC__SETTLES)
			found = cJSON_IsObject(field(json, f->key));
		if (!found && (f->flags & LC__REQUIRED)) {
			p->rc = LC_EJSON;
			p->message = f->text;
		}
	}
}

static void free_strings(char **s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		free(s[i]);
	free(s);
}

static void free_fields(const struct lc__model *m, void *rec)
{
	size_t i, j;

	for (i = 0; i < m->count; i++) {
		const struct lc__field *f = &m->fields[i];
		void *member = at(rec, f->offset);

		if (f->flags & LC__ELSE)
			continue;
		switch (f->kind) {
		case LC__STR:
			free(*(char **)member);
			break;
		case LC__INT:
		case LC__BOOL:
			break;
		case LC__STRINGS:
			free_strings(*(char ***)member,
				     *(size_t *)at(rec, f->len));
			break;
		case LC__LIST:
			for (j = 0; j < *(size_t *)at(rec, f->len); j++)
				free_fields(f->model,
					    at(*(void **)member,
					       j * f->model->size));
			free(*(void **)member);
			break;
		case LC__MODEL:
			lc__model_free(f->model, *(void **)member);
			break;
		}
	}
}

void lc__model_free(const struct lc__model *m, void *rec)
{
	if (rec == NULL)
		return;
	free_fields(m, rec);
	if (m->raw != LC__NO_RAW)
		cJSON_Delete(*(cJSON **)at(rec, m->raw));
	free(rec);
}

int lc__model_parse(const struct lc__model *m, const cJSON *json, void **out,
		    struct lc_error *err)
{
	struct lc__parse p = { LC_OK, NULL };
	void *rec;

	*out = NULL;
	if (!cJSON_IsObject(json))
		return lc__fail(err, LC_EJSON, 0,
				"expected a JSON object for %s", m->what);
	if ((rec = calloc(1, m->size)) == NULL)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	read_fields(&p, m, json, rec);
	if (p.rc == LC_OK && m->raw != LC__NO_RAW &&
	    (*(cJSON **)at(rec, m->raw) = cJSON_Duplicate(json, 1)) == NULL)
		p.rc = LC_ENOMEM;
	if (p.rc != LC_OK) {
		lc__model_free(m, rec);
		if (p.rc == LC_EJSON)
			return lc__fail(err, LC_EJSON, 0, "%s", p.message);
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	}
	*out = rec;
	return LC_OK;
}
