/*
 * core/config_yaml.c - what every YAML reader of axbench shares: the
 * event pre-pass (syntax errors, aliases, depth, extra documents) and
 * the node helpers whose messages cite FILE:LINE:COL, under the schema
 * walker (config_schema.c) that every reader uses.
 */
#include "core/config_yaml.h"

#include "core/config.h"
#include "core/error.h"
#include "core/suggest.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

yaml_node_t *ax_yaml_node(struct ax_yaml *y, int i)
{
	return yaml_document_get_node(&y->doc, i);
}

const char *ax_yaml_text(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

int ax_yaml_fail(struct ax_yaml *y, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	ax_vfmt_fit(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ax_errf(y->err, y->errlen, AX_ECONFIG, "%s:%zu:%zu: %s", y->name,
		       n->start_mark.line + 1, n->start_mark.column + 1, msg);
}

/* A plain `null`, `~` or nothing at all. */
bool ax_yaml_is_null(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE ||
	    n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *s = ax_yaml_text(n);
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") ||
	       !strcmp(s, "Null") || !strcmp(s, "NULL");
}

const char *ax_yaml_kind(const yaml_node_t *n)
{
	if (n->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (n->type == YAML_SEQUENCE_NODE)
		return "a sequence";
	return ax_yaml_is_null(n) ? "null" : "a scalar";
}

/* Append ", name" (or "name" first) to buf, truncating quietly. */
void ax_yaml_join(char *buf, size_t len, const char *name)
{
	size_t used = strlen(buf);
	if (used < len)
		snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
			 name);
}

/*
 * Every key of map must be a scalar, appear once, and (when allowed is
 * not NULL) be one of allowed[], else the message lists what is.
 */
int ax_yaml_check_keys(struct ax_yaml *y, yaml_node_t *map, const char *where,
		       const char *const *allowed)
{
	AX_YAML_PAIRS_FOREACH(p, map)
	{
		yaml_node_t *k = ax_yaml_node(y, p->key);
		if (k->type != YAML_SCALAR_NODE)
			return ax_yaml_fail(y, k,
					    "keys in %s must be plain names, "
					    "not %s",
					    where, ax_yaml_kind(k));
		bool known = !allowed;
		char list[512] = "", hint[128];
		struct ax_suggest sg;
		ax_suggest_init(&sg, ax_yaml_text(k));
		for (int i = 0; allowed && allowed[i]; i++) {
			known |= !strcmp(allowed[i], ax_yaml_text(k));
			ax_yaml_join(list, sizeof(list), allowed[i]);
			ax_suggest_add(&sg, allowed[i]);
		}
		hint[0] = '\0';
		if (sg.best)
			snprintf(hint, sizeof(hint), " (did you mean '%s'?)",
				 sg.best);
		if (!known)
			return ax_yaml_fail(y, k,
					    "unknown key '%s' in %s%s; allowed "
					    "keys: %s",
					    ax_yaml_text(k), where, hint, list);
		for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p;
		     q++) {
			yaml_node_t *first = ax_yaml_node(y, q->key);
			if (first->type == YAML_SCALAR_NODE &&
			    !strcmp(ax_yaml_text(first), ax_yaml_text(k)))
				return ax_yaml_fail(
				    y, k,
				    "duplicate key '%s' in %s "
				    "(first at line %zu); keep one",
				    ax_yaml_text(k), where,
				    first->start_mark.line + 1);
		}
	}
	return 0;
}

/* The value of key in map (keys already checked), or NULL. */
yaml_node_t *ax_yaml_get(struct ax_yaml *y, yaml_node_t *map, const char *key)
{
	AX_YAML_PAIRS_FOREACH(p, map)
	{
		if (!strcmp(ax_yaml_text(ax_yaml_node(y, p->key)), key))
			return ax_yaml_node(y, p->value);
	}
	return NULL;
}

/* Event pass: syntax errors, aliases, nesting depth, extra documents. */
int ax_yaml_prescan(const char *name, const char *what, int needs,
		    const char *text, size_t len, char *err, size_t errlen)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int docs = 0, rc = 0, depth = 0;
	if (!yaml_parser_initialize(&p))
		return AX_ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	for (;;) {
		if (!yaml_parser_parse(&p, &ev)) {
			rc = ax_config_syntax_error(&p, name, text, len, err,
						    errlen);
			break;
		}
		yaml_event_type_t type = ev.type;
		size_t line = ev.start_mark.line + 1;
		size_t col = ev.start_mark.column + 1;
		if (type == YAML_ALIAS_EVENT)
			rc = ax_errf(err, errlen, AX_ECONFIG,
				     "%s:%zu:%zu: "
				     "YAML alias *%s is not allowed in a "
				     "%s (aliases can expand "
				     "exponentially); write the value out",
				     name, line, col,
				     (const char *)ev.data.alias.anchor, what);
		else if ((type == YAML_MAPPING_START_EVENT ||
			  type == YAML_SEQUENCE_START_EVENT) &&
			 ++depth > AX_YAML_MAX_DEPTH)
			rc = ax_errf(err, errlen, AX_ECONFIG,
				     "%s:%zu:%zu: "
				     "nested more than %d levels deep; a "
				     "%s needs %d",
				     name, line, col, AX_YAML_MAX_DEPTH, what,
				     needs);
		else if (type == YAML_MAPPING_END_EVENT ||
			 type == YAML_SEQUENCE_END_EVENT)
			depth--;
		else if (type == YAML_DOCUMENT_START_EVENT && ++docs > 1)
			rc = ax_errf(err, errlen, AX_ECONFIG,
				     "%s:%zu:%zu: a "
				     "%s is one YAML document; remove "
				     "this second one",
				     name, line, col, what);
		yaml_event_delete(&ev);
		if (rc || type == YAML_STREAM_END_EVENT)
			break;
	}
	yaml_parser_delete(&p);
	return rc;
}
