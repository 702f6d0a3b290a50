/*
 * core/config_schema.c - the schema walker every YAML reader of axbench
 * shares (core/config_schema.h): keys described as data are checked and
 * stored here, so that the four readers word their messages alike.
 */
#include "core/config_schema.h"

#include "core/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KEYS 32 /* per mapping; the tables are ours */

/* A key's name in messages: its own, or WHERE.KEY under AX_YM_PATH. */
static const char *key_what(const struct ax_ykey *k, const char *where,
			    unsigned mflags, char *buf, size_t len)
{
	if (k->what)
		return k->what;
	if (!(mflags & AX_YM_PATH))
		return k->name;
	snprintf(buf, len, "%s.%s", where, k->name);
	return buf;
}

/* What a value of k must be, for messages. */
static void want_text(const struct ax_ykey *k, char *buf, size_t len)
{
	buf[0] = '\0';
	if (k->want)
		snprintf(buf, len, "%s", k->want);
	else if (k->type == AX_Y_STRING)
		snprintf(buf, len, "a string%s",
			 k->flags & AX_YK_NULLABLE ? " or null" : "");
	else if (k->type == AX_Y_INT)
		snprintf(buf, len, "an integer from %lld to %lld",
			 (long long)k->lo, (long long)k->hi);
	else if (k->type == AX_Y_NUMBER)
		snprintf(buf, len,
			 k->flags & AX_YK_MIN_OPEN
			     ? "a number above %g and at most %g"
			     : "a number from %g to %g",
			 k->dlo, k->dhi);
	else if (k->type == AX_Y_BOOL)
		snprintf(buf, len, "true or false");
	else if (k->type == AX_Y_CHOICE) {
		snprintf(buf, len, "one of ");
		char list[256] = "";
		for (int i = 0; k->choices[i]; i++)
			ax_yaml_join(list, sizeof(list), k->choices[i]);
		snprintf(buf + strlen(buf), len - strlen(buf), "%s", list);
	} else if (k->type == AX_Y_MAP)
		snprintf(buf, len, "%s",
			 k->map->want ? k->map->want : "a mapping");
	else if (k->type == AX_Y_SEQ)
		snprintf(buf, len, "a sequence");
	else
		snprintf(buf, len, "a value");
}

static int type_error(struct ax_yaml *y, yaml_node_t *n,
		      const struct ax_ykey *k, const char *what)
{
	char want[320];
	want_text(k, want, sizeof(want));
	return ax_yaml_fail(y, n, "%s must be %s, not %s%s%s", what, want,
			    ax_yaml_kind(n), k->hint ? "; " : "",
			    k->hint ? k->hint : "");
}

static int value_error(struct ax_yaml *y, yaml_node_t *n,
		       const struct ax_ykey *k, const char *what)
{
	char want[320];
	want_text(k, want, sizeof(want));
	return ax_yaml_fail(y, n, "%s must be %s (got %s)%s%s", what, want,
			    ax_yaml_text(n), k->hint ? "; " : "",
			    k->hint ? k->hint : "");
}

/* An integer into a member of 1, 4 or 8 bytes (bool, int, uint32_t,
 * an enum; int64_t, uint64_t). */
static void store_int(void *obj, const struct ax_ykey *k, int64_t v)
{
	char *at = (char *)obj + k->off;
	if (k->size == 8)
		memcpy(at, &v, 8);
	else if (k->size == 4) {
		uint32_t u = (uint32_t)v;
		memcpy(at, &u, 4);
	} else if (k->size == 1)
		*(unsigned char *)at = (unsigned char)v;
}

static int read_int(const struct ax_ykey *k, const char *t, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(t, &end, k->flags & AX_YK_HEX ? 0 : 10);
	/* strtoll takes "-0"; an id that cannot be negative never does */
	if (end == t || *end || errno || v < k->lo || v > k->hi ||
	    (k->lo >= 0 && t[0] == '-'))
		return -1;
	*out = v;
	return 0;
}

static int read_number(const struct ax_ykey *k, const char *t, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(t, &end);
	if (end == t || *end || errno || !(v >= k->dlo) || v > k->dhi ||
	    ((k->flags & AX_YK_MIN_OPEN) && v == k->dlo))
		return -1;
	*out = v;
	return 0;
}

static int read_choice(const struct ax_ykey *k, const char *t, int64_t *out)
{
	for (int i = 0; k->choices[i]; i++)
		if (!strcmp(k->choices[i], t)) {
			*out = k->values ? k->values[i] : i;
			return 0;
		}
	return -1;
}

/* A scalar key: checked, converted and stored (size 0: checked only). */
static int scalar(struct ax_yaml *y, yaml_node_t *n, const struct ax_ykey *k,
		  const char *what, void *obj)
{
	if (n->type != YAML_SCALAR_NODE || ax_yaml_is_null(n))
		return type_error(y, n, k, what);
	const char *t = ax_yaml_text(n);
	int64_t v = 0;
	double d;
	int bad = 0;
	if (k->type == AX_Y_STRING) {
		if ((k->flags & AX_YK_NONEMPTY) && !*t)
			return ax_yaml_fail(y, n, "%s is empty; %s", what,
					    k->empty ? k->empty : "give one");
		char *s = k->size ? strdup(t) : NULL;
		if (k->size && !s)
			return AX_ENOMEM;
		if (k->size)
			memcpy((char *)obj + k->off, &s, sizeof(s));
		return 0;
	}
	if (k->type == AX_Y_NUMBER) {
		if (read_number(k, t, &d))
			return value_error(y, n, k, what);
		if (k->size)
			memcpy((char *)obj + k->off, &d, sizeof(d));
		return 0;
	}
	if (k->type == AX_Y_INT)
		bad = read_int(k, t, &v);
	else if (k->type == AX_Y_BOOL)
		bad = strcmp(t, "true") && strcmp(t, "false")
			  ? -1
			  : (v = *t == 't', 0);
	else if (k->type == AX_Y_CHOICE)
		bad = read_choice(k, t, &v);
	else
		return 0; /* AX_Y_VALUE: the handler reads it */
	if (bad)
		return value_error(y, n, k, what);
	if (k->size)
		store_int(obj, k, v);
	return 0;
}

static int walk_seq(struct ax_yaml *y, yaml_node_t *n, const struct ax_ykey *k,
		    const char *what, void *obj)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return type_error(y, n, k, what);
	yaml_node_item_t *it = n->data.sequence.items.start;
	int count = (int)(n->data.sequence.items.top - it);
	if (k->max && count > k->max)
		return ax_yaml_fail(y, n, "%s has %d entries; at most %d", what,
				    count, k->max);
	if ((k->flags & AX_YK_NONEMPTY) && !count)
		return ax_yaml_fail(y, n, "%s is empty; %s", what,
				    k->empty ? k->empty : "give at least one");
	if (k->slot && !k->slot(y, obj, -1, count))
		return AX_ENOMEM;
	for (int i = 0; i < count; i++) {
		yaml_node_t *item = ax_yaml_node(y, it[i]);
		void *o = k->slot ? k->slot(y, obj, i, count) : obj;
		int rc = k->map ? ax_ywalk_map(y, item, k->map, o, NULL) : 0;
		if (!rc && k->fn)
			rc = k->fn(y, item, o, what);
		if (rc)
			return rc;
	}
	return 0;
}

int ax_ywalk_value(struct ax_yaml *y, yaml_node_t *n, const struct ax_ykey *k,
		   const char *what, void *obj)
{
	what = what ? what : k->what ? k->what : k->name;
	if ((k->flags & AX_YK_NULLABLE) && ax_yaml_is_null(n))
		return 0;
	int rc = 0;
	if (k->type == AX_Y_MAP)
		rc = ax_ywalk_map(y, n, k->map, (char *)obj + k->off, what);
	else if (k->type == AX_Y_SEQ)
		return walk_seq(y, n, k, what, obj);
	else if (k->type != AX_Y_ANY)
		rc = scalar(y, n, k, what, obj);
	return rc || !k->fn ? rc : k->fn(y, n, (char *)obj + k->off, what);
}

/* A required key's absence, in its own words ("%s": the label). */
static int missing(struct ax_yaml *y, yaml_node_t *map, const struct ax_ymap *m,
		   const struct ax_ykey *k, const char *where, void *obj)
{
	if (!k->missing)
		return ax_yaml_fail(y, map, "%s needs `%s`", where, k->name);
	const char *label = "";
	if (m->label_off >= 0)
		memcpy(&label, (char *)obj + m->label_off, sizeof(label));
	const char *at = strstr(k->missing, "%s");
	if (!at)
		return ax_yaml_fail(y, map, "%s", k->missing);
	return ax_yaml_fail(y, map, "%.*s%s%s", (int)(at - k->missing),
			    k->missing, label ? label : "", at + 2);
}

static int walk_key(struct ax_yaml *y, yaml_node_t *map,
		    const struct ax_ymap *m, const struct ax_ykey *k,
		    const char *where, void *obj)
{
	char buf[160];
	if (k->type == AX_Y_CHECK)
		return k->fn(y, map, obj, where);
	yaml_node_t *v = ax_yaml_get(y, map, k->name);
	if (!v)
		return k->flags & AX_YK_REQUIRED
			   ? missing(y, map, m, k, where, obj)
			   : 0;
	if (m->set_off >= 0)
		*(unsigned *)((char *)obj + m->set_off) |= k->bit;
	return ax_ywalk_value(
	    y, v, k, key_what(k, where, m->flags, buf, sizeof(buf)), obj);
}

/* Keys of map: scalars, once each, among m's (any, for open maps). */
static int check_keys(struct ax_yaml *y, yaml_node_t *n,
		      const struct ax_ymap *m, const char *where)
{
	const char *names[MAX_KEYS + 1];
	int k = 0;
	for (int i = 0; m->keys && i < m->n_keys && k < MAX_KEYS; i++)
		if (m->keys[i].type != AX_Y_CHECK)
			names[k++] = m->keys[i].name;
	names[k] = NULL;
	int rc = ax_yaml_check_keys(y, n, where, m->keys ? names : NULL);
	long count = n->data.mapping.pairs.top - n->data.mapping.pairs.start;
	if (!rc && m->max && count > m->max)
		return ax_yaml_fail(y, n, "%s has %ld entries; at most %d",
				    where, count, m->max);
	return rc;
}

int ax_ywalk_map(struct ax_yaml *y, yaml_node_t *n, const struct ax_ymap *m,
		 void *obj, const char *where)
{
	where = where ? where : m->where;
	if (n->type != YAML_MAPPING_NODE)
		return ax_yaml_fail(y, n, "%s must be %s, not %s", where,
				    m->want ? m->want : "a mapping",
				    ax_yaml_kind(n));
	int rc = check_keys(y, n, m, where);
	for (int i = 0; !rc && (m->flags & AX_YM_NEED_FIRST) && i < m->n_keys;
	     i++) {
		const struct ax_ykey *k = &m->keys[i];
		if ((k->flags & AX_YK_REQUIRED) && !ax_yaml_get(y, n, k->name))
			rc = missing(y, n, m, k, where, obj);
	}
	for (int i = 0; !rc && i < m->n_keys; i++)
		rc = walk_key(y, n, m, &m->keys[i], where, obj);
	AX_YAML_PAIRS_FOREACH(p, n)
	{
		if (rc || !m->pair)
			break;
		rc = m->pair(y, ax_yaml_node(y, p->key),
			     ax_yaml_node(y, p->value), obj);
	}
	return rc || !m->done ? rc : m->done(y, n, obj);
}

int ax_yaml_parse(struct ax_yaml *y, const char *text, size_t len,
		  const char *what, int needs,
		  int (*fn)(struct ax_yaml *y, yaml_node_t *root))
{
	yaml_parser_t p;
	int rc =
	    ax_yaml_prescan(y->name, what, needs, text, len, y->err, y->errlen);
	if (rc)
		return rc;
	if (!yaml_parser_initialize(&p))
		return AX_ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, &y->doc))
		rc = ax_config_syntax_error(&p, y->name, text, len, y->err,
					    y->errlen);
	yaml_parser_delete(&p);
	if (rc)
		return rc;
	rc = fn(y, yaml_document_get_root_node(&y->doc));
	yaml_document_delete(&y->doc);
	return rc;
}
