/*
 * The field tables' parser and releaser (src/client/fields.c) on a test
 * model of their own that has a row of every kind and flag: what each
 * reads from a good value, and from one missing, null or of another type;
 * how rows for the same member give way to each other (F_ELSE, F_SETTLES);
 * a required nested model; a conversion; and, under ASan, that
 * lc__model_free releases whatever a parse filled, also when a required
 * field fails the parse halfway.
 */
#include <stddef.h>
#include <stdlib.h>

#include "client_harness.h"
#include "fields.h"

struct item {
	char *name;
	long long n;
};

struct thing {
	char *s;
	cJSON *raw;
};

struct rec {
	char *s, *s_def, *t, *in, *alt, *shape, *empty, *conv;
	long long n, n_in, n_alt;
	int b;
	char **strs, **hl, **names;
	size_t strs_len, hl_len, names_len;
	struct item *items;
	size_t items_len;
	struct thing *thing;
	cJSON *raw;
};

#define F_REC struct item
static const struct lc__field item_fields[] = {
	F_STR("name", name),
	F_INT("n", n, 7),
};
#undef F_REC
static const struct lc__model item_model =
	LC__MODEL(NULL, struct item, item_fields, LC__NO_RAW);

#define F_REC struct thing
static const struct lc__field thing_fields[] = {
	F_STR("s", s),
};
#undef F_REC
static const struct lc__model thing_model =
	LC__MODEL("a thing", struct thing, thing_fields, offsetof(struct thing, raw));

/* What the conversion saw: "missing", or the JSON type's name. */
static int conv(struct lc__parse *p, const cJSON *v, void *member)
{
	*(char **)member = lc__parse_dup(p, v == NULL	      ? "missing"
					     : cJSON_IsNull(v) ? "null"
							       : "value");
	return v != NULL;
}

#define F_REC struct rec
static const struct lc__field rec_fields[] = {
	F_STR("s", s),
	F_STR_OR("s_def", s_def, "dflt"),
	F_TIME("t", t),
	F_STR_IN("o", "in", in),
	/* Three names for one member: the first found wins. */
	F_STR_OR_IN("alt", "code", alt),
	F_STR("alt2", alt, F_ELSE),
	/* v3's object settles it; v2's name only without that object. */
	F_STR_IN("shape", "url", shape, F_SETTLES),
	F_STR("shape_v2", shape, F_ELSE),
	F_STR("empty", empty, F_EMPTY_IS_NULL),
	F_INT("n", n, -1),
	F_INT_IN("o", "n", n_in, 0),
	F_INT("n_alt", n_alt, -1),
	F_INT("n_alt2", n_alt, -2, F_ELSE),
	F_BOOL("b", b),
	F_STRINGS("strs", strs, strs_len),
	F_STRINGS_IN("o", "hl", hl, hl_len),
	F_STRINGS_OF("names", "username", names, names_len),
	F_LIST("items", items, items_len, &item_model),
	F_CONVERT("conv", LC__STR, conv, conv),
	/* Last, so a parse it fails has filled every other row. */
	F_MODEL_REQUIRED("thing", thing, &thing_model, "a rec without its thing"),
};
#undef F_REC
static const struct lc__model rec_model =
	LC__MODEL("a rec", struct rec, rec_fields, offsetof(struct rec, raw));

/* Every row filled from a good value (and a leak check of each). */
static const char full[] =
	"{\"thing\":{\"s\":\"th\",\"x\":1},\"s\":\"S\",\"s_def\":\"D\","
	"\"t\":\"2024-01-02T03:04:05Z\",\"o\":{\"in\":\"I\",\"n\":5,"
	"\"hl\":[\"<b>a</b>\",1]},\"alt\":{\"code\":\"en\"},\"alt2\":\"no\","
	"\"shape\":{\"url\":\"u\"},\"shape_v2\":\"no\",\"empty\":\"e\","
	"\"n\":-3.7,\"n_alt\":4,\"n_alt2\":9,\"b\":false,"
	"\"strs\":[\"a\",null,\"b\",{}],\"names\":[{\"username\":\"al\"},"
	"\"bo\",{\"username\":2},{\"username\":\"cy\"}],"
	"\"items\":[{\"name\":\"i1\",\"n\":1},3,{\"x\":0}],\"conv\":null,"
	"\"unknown\":[1,2]}";

static struct rec *parse_ok(const char *text)
{
	cJSON *doc = cJSON_Parse(text);
	struct lc_error err;
	void *r = NULL;

	CHECK(doc != NULL);
	CHECK_OK(lc__model_parse(&rec_model, doc, &r, &err), &err);
	if (r != NULL)
		CHECK(cJSON_Compare(((struct rec *)r)->raw, doc, 1));
	cJSON_Delete(doc);
	return r;
}

TEST(every_kind_from_a_good_value)
{
	struct rec *r = parse_ok(full);

	if (r == NULL)
		return;
	CHECK_STR(r->thing->s, "th");
	CHECK(cJSON_GetObjectItem(r->thing->raw, "x") != NULL);
	CHECK_STR(r->s, "S");
	CHECK_STR(r->s_def, "D");
	CHECK_STR(r->t, "2024-01-02T03:04:05Z");
	CHECK_STR(r->in, "I");
	CHECK_STR(r->alt, "en");
	CHECK_STR(r->shape, "u");
	CHECK_STR(r->empty, "e");
	CHECK_INT(r->n, -3);
	CHECK_INT(r->n_in, 5);
	CHECK_INT(r->n_alt, 4);
	CHECK_INT(r->b, 0);
	CHECK_INT(r->strs_len, 2);
	CHECK_STR(r->strs[1], "b");
	CHECK_INT(r->hl_len, 1);
	CHECK_STR(r->hl[0], "<b>a</b>");
	CHECK_INT(r->names_len, 2);
	CHECK_STR(r->names[1], "cy");
	CHECK_INT(r->items_len, 2);
	CHECK_STR(r->items[0].name, "i1");
	CHECK_INT(r->items[0].n, 1);
	CHECK(r->items[1].name == NULL);
	CHECK_INT(r->items[1].n, 7);
	CHECK_STR(r->conv, "null");
	lc__model_free(&rec_model, r);
	lc__model_free(&rec_model, NULL);
}

/* A document and what one string or integer member is after parsing it. */
struct row_case {
	const char *json;
	size_t offset;
	int is_int;
	const char *want_s;
	long long want_i;
};

#define S_(json, m, want) { json, offsetof(struct rec, m), 0, want, 0 }
#define I_(json, m, want) { json, offsetof(struct rec, m), 1, NULL, want }
#define T_ "{\"thing\":{}"  /* every case's required part, then more */

static const struct row_case cases[] = {
	/* Missing, null, another type: the kind's default. */
	S_(T_ "}", s, NULL),
	S_(T_ ",\"s\":null}", s, NULL),
	S_(T_ ",\"s\":1}", s, NULL),
	S_(T_ ",\"s\":[\"x\"]}", s, NULL),
	S_(T_ ",\"s\":\"\"}", s, ""),
	S_(T_ "}", s_def, "dflt"),
	S_(T_ ",\"s_def\":null}", s_def, "dflt"),
	S_(T_ ",\"s_def\":{}}", s_def, "dflt"),
	S_(T_ ",\"o\":\"in\"}", in, NULL),
	S_(T_ ",\"o\":[{\"in\":\"x\"}]}", in, NULL),
	S_(T_ ",\"o\":{\"in\":false}}", in, NULL),
	I_(T_ "}", n, -1),
	I_(T_ ",\"n\":null}", n, -1),
	I_(T_ ",\"n\":\"4\"}", n, -1),
	I_(T_ ",\"n\":true}", n, -1),
	I_(T_ ",\"n\":1e19}", n, -1),
	I_(T_ ",\"n\":-1e19}", n, -1),
	I_(T_ ",\"n\":9e18}", n, 9000000000000000000LL),
	I_(T_ ",\"o\":{}}", n_in, 0),
	I_(T_ ",\"o\":7}", n_in, 0),
	I_(T_ "}", b, LC_UNKNOWN),
	I_(T_ ",\"b\":null}", b, LC_UNKNOWN),
	I_(T_ ",\"b\":1}", b, LC_UNKNOWN),
	I_(T_ ",\"b\":\"true\"}", b, LC_UNKNOWN),
	I_(T_ ",\"b\":true}", b, 1),
	/* Rows for one member: the first that finds a value wins. */
	S_(T_ ",\"alt\":\"s\",\"alt2\":\"x\"}", alt, "s"),
	S_(T_ ",\"alt\":{\"code\":\"c\"},\"alt2\":\"x\"}", alt, "c"),
	S_(T_ ",\"alt\":{\"name\":\"c\"},\"alt2\":\"x\"}", alt, "x"),
	S_(T_ ",\"alt\":7,\"alt2\":\"x\"}", alt, "x"),
	S_(T_ ",\"alt2\":7}", alt, NULL),
	I_(T_ ",\"n_alt\":-1,\"n_alt2\":3}", n_alt, -1),
	I_(T_ ",\"n_alt\":\"1\",\"n_alt2\":3}", n_alt, 3),
	I_(T_ ",\"n_alt2\":null}", n_alt, -2),
	/* A settling object keeps the other name out, even when empty. */
	S_(T_ ",\"shape\":{},\"shape_v2\":\"v2\"}", shape, NULL),
	S_(T_ ",\"shape\":\"u\",\"shape_v2\":\"v2\"}", shape, "v2"),
	S_(T_ ",\"shape_v2\":\"v2\"}", shape, "v2"),
	S_(T_ ",\"empty\":\"\"}", empty, NULL),
	S_(T_ ",\"empty\":\" \"}", empty, " "),
	/* A conversion sees the value, or NULL when missing. */
	S_(T_ "}", conv, "missing"),
	S_(T_ ",\"conv\":[1]}", conv, "value"),
};

TEST(each_row_missing_null_wrong_and_alternatives)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct row_case *c = &cases[i];
		struct rec *r = parse_ok(c->json);
		void *m;

		if (r == NULL)
			continue;
		m = (char *)r + c->offset;
		if (c->is_int) {
			long long got = c->offset == offsetof(struct rec, b)
						? *(int *)m
						: *(long long *)m;

			if (got != c->want_i)
				FAIL_AT("%s: %lld, expected %lld", c->json, got,
					c->want_i);
		} else {
			const char *got = *(char **)m;

			if ((got == NULL) != (c->want_s == NULL) ||
			    (got && strcmp(got, c->want_s) != 0))
				FAIL_AT("%s: \"%s\", expected \"%s\"", c->json,
					got ? got : "(null)",
					c->want_s ? c->want_s : "(null)");
		}
		lc__model_free(&rec_model, r);
	}
}

TEST(arrays_empty_missing_or_wrong_are_null)
{
	const char *docs[] = {
		T_ "}",
		T_ ",\"strs\":[],\"names\":[],\"items\":[],\"o\":{\"hl\":[]}}",
		T_ ",\"strs\":null,\"names\":{},\"items\":\"x\",\"o\":{\"hl\":7}}",
	};
	struct rec *r;
	size_t i;

	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		r = parse_ok(docs[i]);

		if (r == NULL)
			continue;
		CHECK(r->strs == NULL && r->strs_len == 0);
		CHECK(r->hl == NULL && r->hl_len == 0);
		CHECK(r->names == NULL && r->names_len == 0);
		CHECK(r->items == NULL && r->items_len == 0);
		lc__model_free(&rec_model, r);
	}
	/* Items of no use still leave an (empty) array to release. */
	if ((r = parse_ok(T_ ",\"strs\":[1],\"items\":[7]}")) != NULL) {
		CHECK_INT(r->strs_len, 0);
		CHECK_INT(r->items_len, 0);
		lc__model_free(&rec_model, r);
	}
}

TEST(required_and_not_an_object)
{
	/* What the rows before it filled is released. */
	const char *bad[] = { "{\"s\":\"x\",\"strs\":[\"a\"],\"conv\":1}",
			      "{\"thing\":null,\"items\":[{\"name\":\"n\"}]}",
			      "{\"thing\":\"t\"}", "{\"thing\":[{}]}" };
	const char *not_objects[] = { "[]", "\"x\"", "1", "null" };
	struct lc_error err;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cJSON *doc = cJSON_Parse(bad[i]);
		void *r = (void *)1;

		CHECK_RC(lc__model_parse(&rec_model, doc, &r, &err), LC_EJSON,
			 &err);
		CHECK_STR(err.message, "a rec without its thing");
		CHECK(r == NULL);
		cJSON_Delete(doc);
	}
	for (i = 0; i <= sizeof(not_objects) / sizeof(not_objects[0]); i++) {
		cJSON *doc = i < sizeof(not_objects) / sizeof(not_objects[0])
				     ? cJSON_Parse(not_objects[i])
				     : NULL;
		void *r = (void *)1;

		CHECK_RC(lc__model_parse(&rec_model, doc, &r, &err), LC_EJSON,
			 &err);
		CHECK_STR(err.message, "expected a JSON object for a rec");
		CHECK_INT(err.status, 0);
		CHECK(r == NULL);
		cJSON_Delete(doc);
	}
	CHECK_INT(lc__json_int(NULL, 5), 5);
}

int main(int argc, char **argv)
{
	static const struct lec_test tests[] = {
		TEST_ENTRY(every_kind_from_a_good_value),
		TEST_ENTRY(each_row_missing_null_wrong_and_alternatives),
		TEST_ENTRY(arrays_empty_missing_or_wrong_are_null),
		TEST_ENTRY(required_and_not_an_object),
	};

	return lct_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
