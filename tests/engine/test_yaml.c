/*
 * The engine's YAML reader (engine/src/yaml.c): plain scalars typed as
 * PyYAML's safe_load types them, one case a row; the values of integers
 * and booleans; the lines of keys and values; a strict read's refusals with
 * their messages; and a lenient read's tolerance (tags, aliases, repeated
 * keys, deep nesting, a second document, the pairs read before an error).
 */
#include <stdint.h>

#include "harness.h"
#include "yaml_reader.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define NAME "f.yaml"

static const struct lec__yaml_rules strict = { NAME, 1, 16, 50000, 1000 };
static const struct lec__yaml_rules lenient = { NAME, 0, 2, 0, 0 };

/* Read text; the tree (or NULL) in *root, the caller frees it. */
static int read_text(const char *text, const struct lec__yaml_rules *rules,
		     struct lec__yaml_node **root)
{
	return lec__yaml_read(text, strlen(text), rules, root);
}

/* The value of key in the top-level map, or NULL. */
static const struct lec__yaml_node *value_of(const struct lec__yaml_node *map,
					     const char *key)
{
	const struct lec__yaml_entry *e = lec__yaml_find(map, key);

	return e ? e->value : NULL;
}

/* The type of the plain scalar text, as the value of a key. */
static int type_of(const char *text)
{
	char doc[128];
	struct lec__yaml_node *root = NULL;
	const struct lec__yaml_node *v;
	int type = -1;

	snprintf(doc, sizeof(doc), "k: %s\n", text);
	if (read_text(doc, &strict, &root) == LEC_OK &&
	    (v = value_of(root, "k")) && v->kind == LEC__YAML_SCALAR)
		type = (int)v->type;
	lec__yaml_free(root);
	return type;
}

TEST(plain_scalar_types)
{
	static const struct {
		const char *text;
		enum lec__yaml_type type;
	} cases[] = {
		{ "", LEC__YAML_NULL },
		{ "~", LEC__YAML_NULL },
		{ "null", LEC__YAML_NULL },
		{ "Null", LEC__YAML_NULL },
		{ "NULL", LEC__YAML_NULL },
		{ "nULL", LEC__YAML_STR },
		{ "yes", LEC__YAML_BOOL },
		{ "No", LEC__YAML_BOOL },
		{ "ON", LEC__YAML_BOOL },
		{ "off", LEC__YAML_BOOL },
		{ "True", LEC__YAML_BOOL },
		{ "y", LEC__YAML_STR }, /* YAML 1.1 lists it; PyYAML does not */
		{ "0", LEC__YAML_INT },
		{ "-17", LEC__YAML_INT },
		{ "+3", LEC__YAML_INT },
		{ "0b101", LEC__YAML_INT },
		{ "0x1F", LEC__YAML_INT },
		{ "017", LEC__YAML_INT },
		{ "1_000", LEC__YAML_INT },
		{ "190:20:30", LEC__YAML_INT },
		{ "0x", LEC__YAML_STR },
		{ "08", LEC__YAML_STR }, /* not octal, and no float either */
		{ "3.10", LEC__YAML_FLOAT },
		{ ".5", LEC__YAML_FLOAT },
		{ "1.", LEC__YAML_FLOAT },
		{ "1.0e+3", LEC__YAML_FLOAT },
		{ "1.0e3", LEC__YAML_STR }, /* 1.1 wants the exponent's sign */
		{ "1e3", LEC__YAML_STR },
		{ ".inf", LEC__YAML_FLOAT },
		{ "-.Inf", LEC__YAML_FLOAT },
		{ ".NaN", LEC__YAML_FLOAT },
		{ "190:20:30.15", LEC__YAML_FLOAT },
		{ "2001-12-14", LEC__YAML_TIMESTAMP },
		{ "2001-12-14t21:59:43.10-05:00", LEC__YAML_TIMESTAMP },
		{ "2001-12-14 21:59:43.10 -5", LEC__YAML_TIMESTAMP },
		{ "2001-12-14T21:59:43Z", LEC__YAML_TIMESTAMP },
		{ "2002-1-1", LEC__YAML_STR }, /* a date alone has two digits */
		{ "3.1O", LEC__YAML_STR },
		{ "latest", LEC__YAML_STR },
		{ "'yes'", LEC__YAML_STR },
		{ "\"3.10\"", LEC__YAML_STR },
		{ "!!str 3", LEC__YAML_STR },
	};
	size_t i;

	for (i = 0; i < COUNT(cases); i++)
		if (type_of(cases[i].text) != (int)cases[i].type)
			FAIL_AT("'%s' is type %d, expected %d", cases[i].text,
				type_of(cases[i].text), (int)cases[i].type);
}

TEST(integer_and_boolean_values)
{
	static const struct {
		const char *text;
		int fits;
		long long value;
	} ints[] = {
		{ "0", 1, 0 },
		{ "-17", 1, -17 },
		{ "+3", 1, 3 },
		{ "0b101", 1, 5 },
		{ "0x1F", 1, 31 },
		{ "-0x10", 1, -16 },
		{ "017", 1, 15 },
		{ "1_000", 1, 1000 },
		{ "190:20:30", 1, 685230 },
		{ "99999999999999999999", 0, 0 },
	};
	long long v;
	size_t i;

	for (i = 0; i < COUNT(ints); i++) {
		v = 0;
		CHECK_INT(lec__yaml_int_value(ints[i].text, &v),
			  ints[i].fits ? LEC_OK : LEC_ERROR);
		if (ints[i].fits && v != ints[i].value)
			FAIL_AT("'%s' is %lld, expected %lld", ints[i].text, v,
				ints[i].value);
	}
	CHECK_INT(lec__yaml_bool_value("Yes"), 1);
	CHECK_INT(lec__yaml_bool_value("on"), 1);
	CHECK_INT(lec__yaml_bool_value("FALSE"), 0);
	CHECK_INT(lec__yaml_bool_value("Off"), 0);
}

TEST(lines_of_keys_and_values)
{
	struct lec__yaml_node *root = NULL;
	const struct lec__yaml_node *build, *list;

	CHECK_OK(read_text("# a comment\n"
			   "version: 2\n"
			   "build:\n"
			   "  os: ubuntu-24.04\n"
			   "  list:\n"
			   "    - a\n"
			   "\n"
			   "    - b\n",
			   &strict, &root));
	CHECK(root && root->kind == LEC__YAML_MAP && root->line == 2);
	CHECK_INT(root->len, 2);
	CHECK_INT(root->entries[0].line, 2);
	CHECK_INT(root->entries[1].line, 3);
	build = value_of(root, "build");
	CHECK(build && build->kind == LEC__YAML_MAP && build->line == 4);
	list = value_of(build, "list");
	CHECK(list && list->kind == LEC__YAML_SEQ && list->len == 2);
	if (list && list->len == 2) {
		CHECK_INT(list->entries[0].line, 6);
		CHECK_INT(list->entries[1].line, 8);
		CHECK(list->entries[1].key == NULL);
		CHECK_STR(list->entries[1].value->text, "b");
	}
	lec__yaml_free(root);
}

TEST(no_document)
{
	struct lec__yaml_node *root = NULL;

	CHECK_OK(read_text("", &strict, &root));
	CHECK(root == NULL);
	CHECK_OK(read_text("# only a comment\n", &lenient, &root));
	CHECK(root == NULL);
}

/* What a strict read says of each thing it refuses. */
TEST(strict_refusals)
{
	static const struct {
		const char *text, *message;
	} cases[] = {
		{ "a: 1\nb: 2\na: 3\n",
		  NAME ":3: a: duplicate key (first on line 1)" },
		{ "a: &x 1\n", NAME ":1: a: anchors and aliases are not "
				    "supported" },
		{ "a: 1\nb: *x\n", NAME ":2: b: anchors and aliases are not "
					"supported" },
		{ "a:\n  b: !!python/name:x.y\n",
		  NAME ":2: a.b: the YAML tag tag:yaml.org,2002:python/name:x.y "
		       "is not supported" },
		{ "? [a]\n: 1\n", NAME ":1: a key must be a plain value, not "
				       "a map or a list" },
		{ "a: \"x\\0y\"\n", NAME ":1: a: a value contains a NUL "
					 "character" },
		{ "a: 1\n---\nb: 2\n", NAME ":2: the file holds more than one "
					    "YAML document" },
		{ "a: 1\nb: \xff\n", NAME ":2: the file is not valid UTF-8" },
		{ "a: [1, 2\n", NAME ":2: invalid YAML: did not find expected "
				     "',' or ']' (while parsing a flow "
				     "sequence)" },
		{ "a: [[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]\n",
		  NAME ":1: a.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0: nested too deeply "
		       "(more than 16 levels)" },
	};
	struct lec__yaml_node *root;
	size_t i;

	for (i = 0; i < COUNT(cases); i++) {
		root = NULL;
		if (read_text(cases[i].text, &strict, &root) != LEC_EINVALID)
			FAIL_AT("case %zu is not refused", i);
		else if (strcmp(lec_error_last(), cases[i].message) != 0)
			FAIL_AT("case %zu: \"%s\", expected \"%s\"", i,
				lec_error_last(), cases[i].message);
		lec__yaml_free(root);
	}
}

TEST(strict_limits)
{
	const struct lec__yaml_rules small = { NAME, 1, 16, 3, 0 };
	const struct lec__yaml_rules few_keys = { NAME, 1, 16, 0, 2 };
	struct lec__yaml_node *root = NULL;

	CHECK_INT(read_text("[1, 2, 3]\n", &small, &root), LEC_EINVALID);
	CHECK_STR(lec_error_last(),
		  NAME ":1: .2: too many values (more than 3)");
	lec__yaml_free(root);
	root = NULL;
	CHECK_INT(read_text("a: 1\nb: 2\nc: 3\n", &few_keys, &root),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last(), NAME ":3: too many keys (more than 2)");
	lec__yaml_free(root);
}

/* A file written for another program: MkDocs' tags, anchors and aliases,
 * a key given twice, a key that is a list. */
TEST(lenient_tolerates)
{
	struct lec__yaml_node *root = NULL;
	const struct lec__yaml_node *v;

	CHECK_OK(read_text("base: &b {x: 1}\n"
			   "copy: *b\n"
			   "emoji: !!python/name:material.extensions.emoji\n"
			   "env: !ENV [DOCS, docs]\n"
			   "? [complex, key]\n"
			   ": dropped\n"
			   "title: first\n"
			   "title: second\n",
			   &lenient, &root));
	CHECK(root && root->kind == LEC__YAML_MAP);
	if (root == NULL)
		return;
	CHECK_INT(root->len, 6);
	v = value_of(root, "copy");
	CHECK(v && v->kind == LEC__YAML_ALIAS && v->line == 2);
	/* The tag is the whole "!!python/name:..."; the value is empty. */
	v = value_of(root, "emoji");
	CHECK(v && v->type == LEC__YAML_STR);
	CHECK_STR(v ? v->text : NULL, "");
	v = value_of(root, "env");
	CHECK(v && v->kind == LEC__YAML_SEQ && v->len == 2);
	CHECK_STR(value_of(root, "title")->text, "first");
	CHECK_STR(root->entries[5].key, "title");
	CHECK_STR(root->entries[5].value->text, "second");
	lec__yaml_free(root);
}

/* Past its depth a lenient read keeps collections empty, however deep they
 * go, and reads on. */
TEST(lenient_skips_deep)
{
	enum { DEEP = 20000 };
	const struct lec__yaml_rules top = { NAME, 0, 1, 0, 0 };
	struct lec__yaml_node *root = NULL;
	const struct lec__yaml_node *v;
	char *doc = malloc(2 * DEEP + 64);
	size_t i, n = 0;

	if (doc == NULL)
		return;
	n += (size_t)snprintf(doc, 20, "deep: ");
	for (i = 0; i < DEEP; i++)
		doc[n++] = '[';
	for (i = 0; i < DEEP; i++)
		doc[n++] = ']';
	memcpy(doc + n, "\ntitle: T\n", 11);
	CHECK_OK(read_text(doc, &top, &root));
	v = value_of(root, "deep");
	CHECK(v && v->kind == LEC__YAML_SEQ && v->len == 0);
	v = value_of(root, "title");
	CHECK_STR(v ? v->text : NULL, "T");
	lec__yaml_free(root);
	free(doc);
}

/* The first document only; and on an error, the pairs read before it. */
TEST(lenient_first_document_and_partial_tree)
{
	struct lec__yaml_node *root = NULL;

	CHECK_OK(read_text("a: 1\n--- x\nb: [\n", &lenient, &root));
	CHECK(root && root->len == 1 && value_of(root, "a"));
	lec__yaml_free(root);
	root = NULL;
	CHECK_INT(read_text("a: 1\nb: 2\nc: [1,\n", &lenient, &root),
		  LEC_EINVALID);
	CHECK(root && root->kind == LEC__YAML_MAP && root->len == 2);
	CHECK_STR(value_of(root, "b") ? value_of(root, "b")->text : NULL, "2");
	lec__yaml_free(root);
}

/* Every allocation failing in turn: an error, never a crash or a leak. */
TEST(out_of_memory)
{
	struct lec__yaml_node *root;
	long n;
	int rc;

	for (n = 1; n < 200; n++) {
		root = NULL;
		lec__alloc_fail_after(n);
		rc = read_text("a: {b: [1, 2], c: x}\nd: e\n", &strict, &root);
		lec__alloc_fail_after(0);
		lec__yaml_free(root);
		if (rc == LEC_OK)
			break;
		CHECK_INT(rc, LEC_ENOMEM);
	}
	CHECK(n < 200);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(plain_scalar_types),
	TEST_ENTRY(integer_and_boolean_values),
	TEST_ENTRY(lines_of_keys_and_values),
	TEST_ENTRY(no_document),
	TEST_ENTRY(strict_refusals),
	TEST_ENTRY(strict_limits),
	TEST_ENTRY(lenient_tolerates),
	TEST_ENTRY(lenient_skips_deep),
	TEST_ENTRY(lenient_first_document_and_partial_tree),
	TEST_ENTRY(out_of_memory),
};

LEC_TEST_MAIN(tests)
