/*
 * core/config_yaml.h - the YAML node helpers the readers in core/config*.c
 * share (internal to them: this header brings yaml.h along).
 *
 * A reader pre-scans the text (ax_yaml_prescan), loads the document into
 * y->doc (both: ax_yaml_parse, core/config_schema.h), then walks it with
 * the schema walker, which uses these helpers; every message is
 * "FILE:LINE:COL: what is wrong; what is allowed", 1-based.
 */
#ifndef AX_CONFIG_YAML_H
#define AX_CONFIG_YAML_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

/* The deepest nesting a reader takes: libyaml's cost grows with the
 * square of the depth, so deep nesting is refused before it costs
 * minutes. */
#define AX_YAML_MAX_DEPTH 64

struct ax_yaml {
	const char *name; /* the path, for messages */
	yaml_document_t doc;
	char *err;
	size_t errlen;
	void *ctx; /* the reader's own state, for its handlers */
};

#define AX_YAML_PAIRS_FOREACH(p, map)                                          \
	for (yaml_node_pair_t *p = (map)->data.mapping.pairs.start;            \
	     p < (map)->data.mapping.pairs.top; p++)

#define AX_YAML_ITEMS_FOREACH(it, seq)                                         \
	for (yaml_node_item_t *it = (seq)->data.sequence.items.start;          \
	     it < (seq)->data.sequence.items.top; it++)

/* Event pass: syntax errors, aliases (refused: they can expand
 * exponentially), nesting beyond AX_YAML_MAX_DEPTH, extra documents.
 * what names the file's kind in messages ("profile"), needs the depth it
 * really takes. */
int ax_yaml_prescan(const char *name, const char *what, int needs,
		    const char *text, size_t len, char *err, size_t errlen);

yaml_node_t *ax_yaml_node(struct ax_yaml *y, int i);
const char *ax_yaml_text(const yaml_node_t *n);
/* AX_ECONFIG with "NAME:LINE:COL: message" at n's start. */
int ax_yaml_fail(struct ax_yaml *y, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A plain `null`, `~` or nothing at all. */
bool ax_yaml_is_null(const yaml_node_t *n);
/* "a mapping", "a sequence", "null" or "a scalar", for messages. */
const char *ax_yaml_kind(const yaml_node_t *n);
/* Append ", name" (or "name" first) to buf, truncating quietly. */
void ax_yaml_join(char *buf, size_t len, const char *name);
/* Every key of map must be a scalar, appear once, and (when allowed is
 * not NULL) be one of allowed[], else the message lists what is. */
int ax_yaml_check_keys(struct ax_yaml *y, yaml_node_t *map, const char *where,
		       const char *const *allowed);
/* The value of key in map (keys already checked), or NULL. */
yaml_node_t *ax_yaml_get(struct ax_yaml *y, yaml_node_t *map, const char *key);
/* Format a libyaml parser's error as "NAME:LINE:COL: YAML syntax error:
 * ..." (1-based) into err.  Returns AX_ECONFIG, or AX_ENOMEM when the
 * parser ran out of memory (core/config_json.c). */
int ax_config_syntax_error(const yaml_parser_t *p, const char *name,
			   const char *text, size_t len, char *err,
			   size_t errlen);

#endif
