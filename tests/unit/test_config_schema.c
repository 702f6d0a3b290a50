/*
 * tests/unit/test_config_schema.c - the schema walker of the YAML readers
 * (core/config_schema.h) on a schema of its own that has every kind of
 * key: each value stored where its table says, and each error with its
 * FILE:LINE:COL and wording.
 */
#include "core/config_schema.h"
#include "core/error.h"

#include "ax_test.h"

#include <stdint.h>

struct item {
	char *name;
	int64_t size;
};

struct inner {
	unsigned set;
	uint32_t id;
	bool on;
};

struct doc {
	char *title, *note;
	int count;
	double ratio;
	int colour;
	int64_t seed;
	struct inner inner;
	struct item items[4];
	int n_items;
	int n_extra, extra_sum;
	int checks; /* how often the CHECK key ran */
	bool done;
};

static const char *const colours[] = {"red", "green", "blue", NULL};
static const int colour_values[] = {10, 20, 30};

static const struct ax_ykey inner_keys[] = {
    {"id", AX_Y_INT, AX_YK_HEX, AX_YAT(struct inner, id), .lo = 0,
     .hi = UINT32_MAX, .want = "an id such as 0x10de", .bit = 1},
    {"on", AX_Y_BOOL, 0, AX_YAT(struct inner, on), .bit = 2},
};
static const struct ax_ymap inner_map = {
    .where = "inner",
    AX_YKEYS(inner_keys),
    .flags = AX_YM_PATH,
    .label_off = -1,
    .set_off = offsetof(struct inner, set),
};

static const struct ax_ykey item_keys[] = {
    {"name", AX_Y_STRING, AX_YK_REQUIRED | AX_YK_NONEMPTY,
     AX_YAT(struct item, name), .empty = "name the item"},
    {"size", AX_Y_INT, AX_YK_REQUIRED, AX_YAT(struct item, size), .lo = 1,
     .hi = 100, .missing = "item %s needs size: its size"},
};
static const struct ax_ymap item_map = {
    .where = "an item",
    AX_YKEYS(item_keys),
    .label_off = offsetof(struct item, name),
    .set_off = -1,
};

static void *item_slot(struct ax_yaml *y, void *obj, int i, int count)
{
	struct doc *d = obj;
	return i < 0 ? (void *)d : &d->items[d->n_items++];
}

/* An open mapping: any key, each given to pair. */
static int extra_pair(struct ax_yaml *y, yaml_node_t *k, yaml_node_t *v,
		      void *obj)
{
	static const struct ax_ykey n = {NULL,	    AX_Y_INT, 0,
					 .size = 4, .lo = 0,  .hi = 9};
	struct doc *d = obj;
	int got = 0;
	int rc = ax_ywalk_value(y, v, &n, ax_yaml_text(k), &got);
	d->extra_sum += got;
	d->n_extra++;
	return rc;
}

static int extra_done(struct ax_yaml *y, yaml_node_t *map, void *obj)
{
	((struct doc *)obj)->done = true;
	return 0;
}

static const struct ax_ymap extra_map = {AX_YNONE, .max = 3, .pair = extra_pair,
					 .done = extra_done};

static int count_check(struct ax_yaml *y, yaml_node_t *n, void *at,
		       const char *what)
{
	((struct doc *)at)->checks++;
	return 0;
}

/* A handler after a stored value: an even count only. */
static int even(struct ax_yaml *y, yaml_node_t *n, void *at, const char *what)
{
	if (*(int *)at % 2)
		return ax_yaml_fail(y, n, "%s must be even (got %s)", what,
				    ax_yaml_text(n));
	return 0;
}

/* ANY: the handler sees the node, whatever it is. */
static int any_kind(struct ax_yaml *y, yaml_node_t *n, void *at,
		    const char *what)
{
	return n->type == YAML_SEQUENCE_NODE
		   ? ax_yaml_fail(y, n, "%s: no sequences here", what)
		   : 0;
}

#define DAT(f) AX_YAT(struct doc, f)
static const struct ax_ykey doc_keys[] = {
    {"title", AX_Y_STRING, AX_YK_REQUIRED, DAT(title),
     .missing = "the test file has no 'title' key; add one"},
    {"note", AX_Y_STRING, AX_YK_NULLABLE, DAT(note)},
    {"count", AX_Y_INT, 0, DAT(count), .lo = 0, .hi = 64, .fn = even},
    {"ratio", AX_Y_NUMBER, AX_YK_MIN_OPEN, DAT(ratio), .dlo = 0, .dhi = 1,
     .hint = "a fraction"},
    {"colour", AX_Y_CHOICE, 0, DAT(colour), .choices = colours,
     .values = colour_values},
    {"seed", AX_Y_INT, AX_YK_HEX, DAT(seed), .lo = 0, .hi = INT64_MAX},
    {NULL, AX_Y_CHECK, .fn = count_check},
    {"inner", AX_Y_MAP, AX_YK_NULLABLE, DAT(inner), .map = &inner_map},
    {"items", AX_Y_SEQ, AX_YK_NONEMPTY, .max = 4, .map = &item_map,
     .slot = item_slot, .empty = "list at least one item"},
    {"extra", AX_Y_MAP, 0, .map = &extra_map},
    {"any", AX_Y_ANY, 0, .fn = any_kind},
    {"plain", AX_Y_VALUE},
};
static const struct ax_ymap doc_map = {
    .where = "the test file", AX_YKEYS(doc_keys), AX_YNONE};

static struct doc got;

static int walk_root(struct ax_yaml *y, yaml_node_t *root)
{
	return root ? ax_ywalk_map(y, root, &doc_map, &got, NULL) : AX_EINVAL;
}

static void clear(void)
{
	free(got.title);
	free(got.note);
	for (int i = 0; i < got.n_items; i++)
		free(got.items[i].name);
	memset(&got, 0, sizeof(got));
}

static int walk(const char *text, char *err, size_t len)
{
	struct ax_yaml y = {.name = "t.yaml", .err = err, .errlen = len};
	clear();
	err[0] = '\0';
	return ax_yaml_parse(&y, text, strlen(text), "test file", 3, walk_root);
}

static void test_every_kind_stored(void)
{
	char err[512];
	int rc = walk("title: T\nnote: null\ncount: 6\nratio: 0.25\n"
		      "colour: green\nseed: 0x10\ninner: {id: 0x10de, on: "
		      "true}\nitems:\n  - {name: a, size: 3}\n"
		      "  - {name: b, size: 100}\nextra: {x: 1, y: 2}\n"
		      "any: {k: v}\nplain: 7\n",
		      err, sizeof(err));
	AX_CHECK_INT(rc, 0);
	if (rc)
		printf("#   %s\n", err);
	AX_CHECK_STR(got.title, "T");
	AX_CHECK(got.note == NULL);
	AX_CHECK_INT(got.count, 6);
	AX_CHECK_NEAR(got.ratio, 0.25, 1e-12);
	AX_CHECK_INT(got.colour, 20);
	AX_CHECK_INT(got.seed, 16);
	AX_CHECK_INT(got.checks, 1);
	AX_CHECK_INT(got.inner.id, 0x10de);
	AX_CHECK(got.inner.on);
	AX_CHECK_INT(got.inner.set, 3);
	AX_CHECK_INT(got.n_items, 2);
	AX_CHECK_STR(got.items[1].name, "b");
	AX_CHECK_INT(got.items[1].size, 100);
	AX_CHECK_INT(got.n_extra, 2);
	AX_CHECK_INT(got.extra_sum, 3);
	AX_CHECK(got.done);
	/* optional keys absent: nothing stored, bits clear */
	rc = walk("title: T\ninner: null\n", err, sizeof(err));
	AX_CHECK_INT(rc, 0);
	AX_CHECK_INT(got.inner.set, 0);
	AX_CHECK_INT(got.n_items, 0);
	AX_CHECK(!got.done);
	clear();
}

static void test_errors(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    /* the mapping's own type, unknown and duplicate keys */
	    {"- a\n", "t.yaml:1:1: the test file must be a mapping, not a "
		      "sequence"},
	    {"title: T\ncolor: red\n",
	     "t.yaml:2:1: unknown key 'color' in the test file (did you mean "
	     "'colour'?); allowed keys: title, note, count, ratio, colour, "
	     "seed, inner, items, extra, "
	     "any, plain"},
	    {"title: T\ntitle: U\n", "t.yaml:2:1: duplicate key 'title' in the "
				     "test file (first at line 1); keep one"},
	    {"? [a]\n: 1\n", "t.yaml:1:3: keys in the test file must be plain "
			     "names, not a sequence"},
	    /* missing required keys, with and without the label */
	    {"note: x\n", "t.yaml:1:1: the test file has no 'title' key; add "
			  "one"},
	    {"title: T\nitems:\n  - {name: big}\n",
	     "t.yaml:3:5: item big needs size: its size"},
	    {"title: T\nitems:\n  - {size: 1}\n",
	     "t.yaml:3:5: an item needs `name`"},
	    /* wrong types */
	    {"title: [x]\n", "t.yaml:1:8: title must be a string, not a "
			     "sequence"},
	    {"title: T\nnote: {a: 1}\n", "t.yaml:2:7: note must be a string or "
					 "null, not a mapping"},
	    {"title: T\ncount: ~\n", "t.yaml:2:8: count must be an integer "
				     "from 0 to 64, not null"},
	    {"title: T\ninner: [1]\n", "t.yaml:2:8: inner must be a mapping, "
				       "not a sequence"},
	    {"title: T\nitems: {a: 1}\n", "t.yaml:2:8: items must be a "
					  "sequence, not a mapping"},
	    {"title: T\nratio: [1]\n", "t.yaml:2:8: ratio must be a number "
				       "above 0 and at most 1, not a "
				       "sequence; a fraction"},
	    {"title: T\nplain: {}\n", "t.yaml:2:8: plain must be a value, not "
				      "a mapping"},
	    /* values outside what is allowed */
	    {"title: T\ncount: 65\n", "t.yaml:2:8: count must be an integer "
				      "from 0 to 64 (got 65)"},
	    {"title: T\ncount: 0x10\n", "t.yaml:2:8: count must be an integer "
					"from 0 to 64 (got 0x10)"},
	    {"title: T\ncount: 7\n", "t.yaml:2:8: count must be even (got 7)"},
	    {"title: T\nratio: 0\n", "t.yaml:2:8: ratio must be a number above "
				     "0 and at most 1 (got 0); a fraction"},
	    {"title: T\ncolour: pink\n", "t.yaml:2:9: colour must be one of "
					 "red, green, blue (got pink)"},
	    {"title: T\nseed: -0\n", "t.yaml:2:7: seed must be an integer from "
				     "0 to 9223372036854775807 (got -0)"},
	    {"title: T\ninner: {id: -1}\n", "t.yaml:2:13: inner.id must be an "
					    "id such as 0x10de (got -1)"},
	    {"title: T\ninner: {on: yes}\n", "t.yaml:2:13: inner.on must be "
					     "true or false (got yes)"},
	    /* lists: empty, too long; empty text */
	    {"title: T\nitems: []\n", "t.yaml:2:8: items is empty; list at "
				      "least one item"},
	    {"title: T\nitems: [{name: a, size: 1}, {name: b, size: 1}, "
	     "{name: c, size: 1}, {name: d, size: 1}, {name: e, size: 1}]\n",
	     "t.yaml:2:8: items has 5 entries; at most 4"},
	    {"title: T\nitems:\n  - {name: '', size: 1}\n",
	     "t.yaml:3:12: name is empty; name the item"},
	    {"title: T\nextra: {a: 1, b: 2, c: 3, d: 4}\n",
	     "t.yaml:2:8: extra has 4 entries; at most 3"},
	    {"title: T\nextra: {a: 10}\n", "t.yaml:2:12: a must be an integer "
					   "from 0 to 9 (got 10)"},
	    {"title: T\nany: [1]\n", "t.yaml:2:6: any: no sequences here"},
	    /* the common first steps */
	    {"title: T\nx: *a\n", "t.yaml:2:4: YAML alias *a is not allowed in "
				  "a test file"},
	    {"title: T\n---\ntitle: U\n", "t.yaml:2:1: a test file is one "
					  "YAML document"},
	    {"title: [\n", "t.yaml:2:1: YAML syntax error"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[1024];
		int rc = walk(cases[i].text, err, sizeof(err));
		bool ok = rc == AX_ECONFIG &&
			  !strncmp(err, cases[i].want, strlen(cases[i].want));
		AX_CHECK(ok);
		if (!ok)
			printf("#   case %zu: rc %d\n#   got:  %s\n#   want: "
			       "%s\n",
			       i, rc, err, cases[i].want);
	}
	clear();
}

AX_TEST_MAIN(AX_TEST(test_every_kind_stored), AX_TEST(test_errors))
