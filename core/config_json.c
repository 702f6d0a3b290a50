/*
 * core/config_json.c - the generic bridge between YAML text and jansson
 * documents, so that reports/ build one JSON document and write it as
 * YAML or JSON, and tests read YAML without touching libyaml.  Also the
 * file reading and syntax-error formatting core/config.c shares.
 */
#include "core/config.h"
#include "core/config_yaml.h"

#include "core/error.h"
#include "core/infile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_DEPTH 256

int ax_config_read_file(const char *path, char **text, size_t *len, char *err,
			size_t errlen)
{
	/* core/infile.h: a FIFO or a device is refused, never waited on. */
	return ax_infile_read(path, "YAML file", AX_CONFIG_MAX_BYTES, text, len,
			      err, errlen);
}

/* Line and column (0-based) of a byte offset, for reader errors, which
 * libyaml reports as an offset only. */
static void offset_mark(const char *text, size_t len, size_t off, size_t *line,
			size_t *col)
{
	*line = *col = 0;
	for (size_t i = 0; i < off && i < len; i++) {
		if (text[i] == '\n')
			(*line)++, *col = 0;
		else if (((unsigned char)text[i] & 0xC0) != 0x80)
			(*col)++;
	}
}

int ax_config_syntax_error(const yaml_parser_t *p, const char *name,
			   const char *text, size_t len, char *err,
			   size_t errlen)
{
	size_t line = p->problem_mark.line, col = p->problem_mark.column;
	const char *problem = p->problem ? p->problem : "malformed YAML";
	if (p->error == YAML_MEMORY_ERROR)
		return AX_ENOMEM;
	if (p->error == YAML_READER_ERROR)
		offset_mark(text, len, p->problem_offset, &line, &col);
	if (p->context)
		return ax_errf(err, errlen, AX_ECONFIG,
			       "%s:%zu:%zu: YAML syntax error: %s (%s that "
			       "started at line %zu)",
			       name, line + 1, col + 1, problem, p->context,
			       p->context_mark.line + 1);
	return ax_errf(err, errlen, AX_ECONFIG,
		       "%s:%zu:%zu: YAML syntax error: %s", name, line + 1,
		       col + 1, problem);
}

/* ---- JSON -> YAML ----------------------------------------------------- */

/*
 * Would a YAML 1.1 or 1.2 reader take the plain scalar s for something
 * other than a string?  Conservative: anything that starts like a
 * number, date or version is quoted too.
 */
static bool needs_quotes(const char *s, size_t len)
{
	static const char *const words[] = {
	    "null", "~",    "true",  "false", "yes",  "no", "on", "off", "y",
	    "n",    ".inf", "-.inf", "+.inf", ".nan", "<<", "=",  NULL};
	if (!len || strlen(s) != len)
		return true;
	for (int i = 0; words[i]; i++)
		if (!strcasecmp(s, words[i]))
			return true;
	const char *d = s + (*s == '-' || *s == '+');
	if (*d == '.')
		d++;
	return *d >= '0' && *d <= '9';
}

static int emit(yaml_emitter_t *em, yaml_event_t *ev, int ok)
{
	if (!ok)
		return AX_ENOMEM;
	return yaml_emitter_emit(em, ev) ? 0 : AX_EIO;
}

static int emit_scalar(yaml_emitter_t *em, const char *s, size_t len,
		       yaml_scalar_style_t style)
{
	yaml_event_t ev;
	int ok = yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s,
					      (int)len, 1, 1, style);
	return emit(em, &ev, ok);
}

/* Multi-line text reads best as a literal block; libyaml falls back to
 * a quoted style where a block cannot hold the text exactly. */
static int emit_string(yaml_emitter_t *em, const char *s, size_t len)
{
	yaml_scalar_style_t style = YAML_ANY_SCALAR_STYLE;
	if (needs_quotes(s, len))
		style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
	else if (memchr(s, '\n', len))
		style = YAML_LITERAL_SCALAR_STYLE;
	return emit_scalar(em, s, len, style);
}

/* Shortest text that reads back as exactly v, always with a '.' in the
 * mantissa so that YAML 1.1 readers (PyYAML) see a float. */
static void format_real(double v, char *buf, size_t len)
{
	int prec = 1;
	for (; prec < 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	int exp10 = v != 0 ? (int)floor(log10(fabs(v))) : 0;
	if (exp10 >= prec && exp10 < 16)
		prec = exp10 + 1; /* 100 rather than 1e+02 */
	snprintf(buf, len, "%.*g", prec, v);
	if (strchr(buf, '.'))
		return;
	char *e = strchr(buf, 'e');
	size_t at = e ? (size_t)(e - buf) : strlen(buf);
	if (strlen(buf) + 3 > len)
		return;
	memmove(buf + at + 2, buf + at, strlen(buf) - at + 1);
	memcpy(buf + at, ".0", 2);
}

static int emit_node(yaml_emitter_t *em, const json_t *v, int depth);

static int emit_object(yaml_emitter_t *em, const json_t *v, int depth)
{
	yaml_event_t ev;
	int rc = emit(em, &ev,
		      yaml_mapping_start_event_initialize(
			  &ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE));
	for (void *it = json_object_iter((json_t *)v); it && !rc;
	     it = json_object_iter_next((json_t *)v, it)) {
		const char *key = json_object_iter_key(it);
		rc = emit_string(em, key, strlen(key));
		if (!rc)
			rc = emit_node(em, json_object_iter_value(it),
				       depth + 1);
	}
	return rc ? rc : emit(em, &ev, yaml_mapping_end_event_initialize(&ev));
}

static int emit_array(yaml_emitter_t *em, const json_t *v, int depth)
{
	yaml_event_t ev;
	int rc = emit(em, &ev,
		      yaml_sequence_start_event_initialize(
			  &ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE));
	for (size_t i = 0; i < json_array_size(v) && !rc; i++)
		rc = emit_node(em, json_array_get(v, i), depth + 1);
	return rc ? rc : emit(em, &ev, yaml_sequence_end_event_initialize(&ev));
}

static int emit_node(yaml_emitter_t *em, const json_t *v, int depth)
{
	char buf[64];
	if (depth > MAX_DEPTH)
		return AX_EINVAL;
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return emit_object(em, v, depth);
	case JSON_ARRAY:
		return emit_array(em, v, depth);
	case JSON_STRING:
		return emit_string(em, json_string_value(v),
				   json_string_length(v));
	case JSON_INTEGER:
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(v));
		break;
	case JSON_REAL:
		format_real(json_real_value(v), buf, sizeof(buf));
		break;
	case JSON_TRUE:
		snprintf(buf, sizeof(buf), "true");
		break;
	case JSON_FALSE:
		snprintf(buf, sizeof(buf), "false");
		break;
	default:
		snprintf(buf, sizeof(buf), "null");
		break;
	}
	return emit_scalar(em, buf, strlen(buf), YAML_PLAIN_SCALAR_STYLE);
}

static int emit_document(yaml_emitter_t *em, const json_t *doc)
{
	yaml_event_t ev;
	int rc =
	    emit(em, &ev,
		 yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
	if (!rc)
		rc = emit(em, &ev,
			  yaml_document_start_event_initialize(&ev, NULL, NULL,
							       NULL, 1));
	if (!rc)
		rc = emit_node(em, doc, 0);
	if (!rc)
		rc = emit(em, &ev, yaml_document_end_event_initialize(&ev, 1));
	if (!rc)
		rc = emit(em, &ev, yaml_stream_end_event_initialize(&ev));
	if (!rc && !yaml_emitter_flush(em))
		rc = AX_EIO;
	return rc;
}

int ax_config_emit_yaml(const json_t *doc, FILE *out)
{
	yaml_emitter_t em;
	if (!doc)
		return AX_EINVAL;
	if (!yaml_emitter_initialize(&em))
		return AX_ENOMEM;
	yaml_emitter_set_output_file(&em, out);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_indent(&em, 2);
	yaml_emitter_set_width(&em, -1); /* never fold long strings */
	int rc = emit_document(&em, doc);
	yaml_emitter_delete(&em);
	if (!rc && (fflush(out) || ferror(out)))
		rc = AX_EIO;
	return rc;
}

int ax_config_emit_yaml_string(const json_t *doc, char **out)
{
	size_t size;
	*out = NULL;
	FILE *f = open_memstream(out, &size);
	if (!f)
		return AX_ENOMEM;
	int rc = ax_config_emit_yaml(doc, f);
	if (fclose(f) && !rc)
		rc = AX_ENOMEM;
	if (rc) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

/* ---- YAML -> JSON ----------------------------------------------------- */

struct y2j {
	const char *name;
	yaml_document_t doc;
	long budget; /* values still allowed, against alias blow-ups */
	char *err;
	size_t errlen;
};

static int y2j_fail(struct y2j *c, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int y2j_fail(struct y2j *c, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	ax_vfmt_fit(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ax_errf(c->err, c->errlen, AX_ECONFIG, "%s:%zu:%zu: %s", c->name,
		       n->start_mark.line + 1, n->start_mark.column + 1, msg);
}

static size_t digits(const char *s, const char *set) { return strspn(s, set); }

/* YAML 1.2 core schema float: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)
 * ([eE][-+]?[0-9]+)? */
static bool is_core_float(const char *s)
{
	static const char *const dec = "0123456789";
	s += *s == '-' || *s == '+';
	size_t ip = digits(s, dec);
	s += ip;
	if (*s == '.') {
		size_t fp = digits(++s, dec);
		if (!ip && !fp)
			return false;
		s += fp;
	} else if (!ip) {
		return false;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		s += *s == '-' || *s == '+';
		size_t ep = digits(s, dec);
		if (!ep)
			return false;
		s += ep;
	}
	return !*s;
}

/* An integer of the core schema (decimal, 0o octal, 0x hex): 1 and *v
 * set, 0 when s is not one, -1 when it is one but overflows. */
static int core_int(const char *s, json_int_t *v)
{
	const char *d = s + (*s == '-' || *s == '+');
	int base = 10;
	const char *set = "0123456789";
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'o'))
		base = s[1] == 'x' ? 16 : 8, d = s + 2,
		set = base == 16 ? "0123456789abcdefABCDEF" : "01234567";
	if (!*d || d[digits(d, set)])
		return 0;
	errno = 0;
	long long x = strtoll(d, NULL, base);
	if (errno)
		return -1;
	*v = *s == '-' ? -x : x;
	return 1;
}

/* Resolve a plain scalar by the core schema. */
static int plain_scalar(struct y2j *c, const yaml_node_t *n, json_t **out)
{
	const char *s = (const char *)n->data.scalar.value;
	json_int_t iv;
	int ir;
	if (!*s || !strcmp(s, "~") || !strcasecmp(s, "null"))
		*out = json_null();
	else if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"))
		*out = json_true();
	else if (!strcmp(s, "false") || !strcmp(s, "False") ||
		 !strcmp(s, "FALSE"))
		*out = json_false();
	else if ((ir = core_int(s, &iv)) > 0)
		*out = json_integer(iv);
	else if (ir < 0)
		return y2j_fail(c, n,
				"integer %s does not fit in 64 bits; "
				"quote it to keep it as text",
				s);
	else if (is_core_float(s))
		*out = json_real(strtod(s, NULL));
	else if (!strcasecmp(s + (*s == '-' || *s == '+'), ".inf") ||
		 !strcasecmp(s, ".nan"))
		return y2j_fail(c, n,
				"%s cannot be held in JSON; use a "
				"finite number or quote it",
				s);
	else
		*out = json_stringn(s, n->data.scalar.length);
	return *out ? 0 : y2j_fail(c, n, "scalar is not valid UTF-8 text");
}

static int y2j_node(struct y2j *c, yaml_node_t *n, int depth, json_t **out);

static int y2j_mapping(struct y2j *c, yaml_node_t *n, int depth, json_t *obj)
{
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
	     p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(&c->doc, p->key);
		json_t *v;
		if (k->type != YAML_SCALAR_NODE)
			return y2j_fail(c, k,
					"mapping keys must be scalars, "
					"not collections");
		const char *key = (const char *)k->data.scalar.value;
		if (json_object_get(obj, key))
			return y2j_fail(c, k, "duplicate key '%s'; keep one",
					key);
		int rc = y2j_node(c, yaml_document_get_node(&c->doc, p->value),
				  depth + 1, &v);
		if (rc)
			return rc;
		if (json_object_set_new(obj, key, v))
			return y2j_fail(c, k, "key is not valid UTF-8 text");
	}
	return 0;
}

static int y2j_sequence(struct y2j *c, yaml_node_t *n, int depth, json_t *arr)
{
	for (yaml_node_item_t *it = n->data.sequence.items.start;
	     it < n->data.sequence.items.top; it++) {
		json_t *v;
		int rc = y2j_node(c, yaml_document_get_node(&c->doc, *it),
				  depth + 1, &v);
		if (rc)
			return rc;
		if (json_array_append_new(arr, v))
			return AX_ENOMEM;
	}
	return 0;
}

static int y2j_node(struct y2j *c, yaml_node_t *n, int depth, json_t **out)
{
	int rc;
	*out = NULL;
	if (--c->budget < 0)
		return y2j_fail(c, n,
				"the document expands to more than %d "
				"values (through aliases?); refusing it",
				AX_CONFIG_MAX_NODES);
	if (depth > MAX_DEPTH)
		return y2j_fail(c, n,
				"nested deeper than %d levels (a "
				"recursive alias?)",
				MAX_DEPTH);
	if (n->type == YAML_SCALAR_NODE) {
		if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
			return plain_scalar(c, n, out);
		*out = json_stringn((const char *)n->data.scalar.value,
				    n->data.scalar.length);
		return *out ? 0 : y2j_fail(c, n, "scalar is not valid UTF-8");
	}
	*out = n->type == YAML_MAPPING_NODE ? json_object() : json_array();
	if (!*out)
		return AX_ENOMEM;
	rc = n->type == YAML_MAPPING_NODE ? y2j_mapping(c, n, depth, *out)
					  : y2j_sequence(c, n, depth, *out);
	if (rc) {
		json_decref(*out);
		*out = NULL;
	}
	return rc;
}

/* Load the first document into c->doc and make sure no second follows. */
static int y2j_load(struct y2j *c, const char *text, size_t len)
{
	yaml_parser_t p;
	yaml_document_t extra;
	if (!yaml_parser_initialize(&p))
		return AX_ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	int rc = 0;
	if (!yaml_parser_load(&p, &c->doc)) {
		rc = ax_config_syntax_error(&p, c->name, text, len, c->err,
					    c->errlen);
	} else if (!yaml_parser_load(&p, &extra)) {
		rc = ax_config_syntax_error(&p, c->name, text, len, c->err,
					    c->errlen);
	} else {
		yaml_node_t *root = yaml_document_get_root_node(&extra);
		if (root)
			rc = y2j_fail(c, root,
				      "more than one YAML document; "
				      "keep only the first");
		yaml_document_delete(&extra);
	}
	if (rc)
		yaml_document_delete(&c->doc);
	yaml_parser_delete(&p);
	return rc;
}

int ax_config_parse_yaml_json(const char *text, size_t len, const char *name,
			      json_t **out, char *err, size_t errlen)
{
	struct y2j c = {.name = name,
			.budget = AX_CONFIG_MAX_NODES,
			.err = err,
			.errlen = errlen};
	*out = NULL;
	int rc = y2j_load(&c, text, len);
	if (rc)
		return rc;
	yaml_node_t *root = yaml_document_get_root_node(&c.doc);
	if (!root)
		rc = ax_errf(err, errlen, AX_ECONFIG,
			     "%s: empty document; expected YAML content", name);
	else
		rc = y2j_node(&c, root, 0, out);
	yaml_document_delete(&c.doc);
	return rc;
}

int ax_config_load_yaml_json(const char *path, json_t **out, char *err,
			     size_t errlen)
{
	char *text;
	size_t len;
	*out = NULL;
	int rc = ax_config_read_file(path, &text, &len, err, errlen);
	if (rc)
		return rc;
	rc = ax_config_parse_yaml_json(text, len, path, out, err, errlen);
	free(text);
	return rc;
}
