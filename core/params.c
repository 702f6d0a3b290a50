/* core/params.c - parsing, checking and canonical JSON of suite parameters. */
#include "core/params.h"

#include "core/error.h"
#include "core/roles.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

_Static_assert(AX_MAX_PARAMS <= 32, "ax_params.given has a bit each");

void ax_params_init(struct ax_params *p, const struct ax_param_def *defs, int n)
{
	if (n > AX_MAX_PARAMS)
		abort(); /* a suite table bug, caught by the first test run */
	memset(p, 0, sizeof(*p));
	p->defs = defs;
	p->n = n;
	for (int i = 0; i < n; i++)
		p->v[i] = defs[i].def;
}

/* The parameter a `when` names (its text before '='), or -1. */
static int when_param(const struct ax_param_def *defs, int n, const char *when,
		      const char **choice)
{
	const char *eq = strchr(when, '=');
	if (!eq)
		return -1;
	*choice = eq + 1;
	for (int i = 0; i < n; i++)
		if (strlen(defs[i].name) == (size_t)(eq - when) &&
		    !strncmp(defs[i].name, when, (size_t)(eq - when)))
			return i;
	return -1;
}

/* The index of choice in row d's values (enum choices, or false/true),
 * or -1. */
static int64_t choice_value(const struct ax_param_def *d, const char *choice)
{
	if (d->type == AX_PT_BOOL)
		return !strcmp(choice, "true")	  ? 1
		       : !strcmp(choice, "false") ? 0
						  : -1;
	for (int64_t i = 0; d->type == AX_PT_ENUM && d->choices[i]; i++)
		if (!strcmp(d->choices[i], choice))
			return i;
	return -1;
}

bool ax_param_active(const struct ax_params *p, int k)
{
	const struct ax_param_def *d = &p->defs[k];
	if (!(d->flags & AX_PARAM_TUNABLE))
		return false;
	if (!d->when)
		return true;
	const char *choice = NULL;
	int j = when_param(p->defs, p->n, d->when, &choice);
	return j >= 0 && p->v[j] == choice_value(&p->defs[j], choice);
}

int ax_params_find(const struct ax_params *p, const char *name)
{
	for (int i = 0; i < p->n; i++)
		if (strcmp(p->defs[i].name, name) == 0)
			return i;
	return -1;
}

int64_t ax_params_get(const struct ax_params *p, const char *name)
{
	int i = ax_params_find(p, name);
	if (i < 0) {
		fprintf(stderr, "axbench: internal error: no parameter %s\n",
			name);
		abort();
	}
	return p->v[i];
}

static bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/* AX_PT_TEXT values, interned: value k > 0 is interned[k - 1].  Kept for
 * the life of the process (a handful of paths per run); parsing happens
 * on the main thread only. */
static char **interned;
static int64_t n_interned;
/* A bound on what is never freed: a run names a handful of files; only
 * a fuzzer names millions. */
#define TEXTS_MAX 65536

static int intern_text(const struct ax_param_def *d, const char *text,
		       int64_t *out)
{
	if (strcmp(text, d->choices[0]) == 0) {
		*out = 0;
		return 0;
	}
	for (int64_t i = 0; i < n_interned; i++)
		if (strcmp(interned[i], text) == 0) {
			*out = i + 1;
			return 0;
		}
	if (n_interned >= TEXTS_MAX)
		return AX_EINVAL;
	char **grown =
	    realloc(interned, sizeof(*interned) * (size_t)(n_interned + 1));
	if (!grown)
		return AX_ENOMEM;
	interned = grown;
	if (!(interned[n_interned] = strdup(text)))
		return AX_ENOMEM;
	*out = ++n_interned;
	return 0;
}

const char *ax_param_text(const struct ax_param_def *d, int64_t v)
{
	if (v > 0 && v <= n_interned)
		return interned[v - 1];
	return d->choices[0];
}

/* Text that can be stored and shown: 1 to AX_PARAM_TEXT_MAX bytes of
 * valid UTF-8 (jansson's check: the canonical JSON must hold it) with no
 * control characters (a newline in a path would break every printer). */
static bool text_ok(const char *text)
{
	size_t n = strlen(text);
	if (n == 0 || n > AX_PARAM_TEXT_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
			return false;
	json_t *j = json_string(text);
	json_decref(j);
	return j != NULL;
}

static int choice_count(const struct ax_param_def *d)
{
	int n = 0;
	while (d->choices && d->choices[n])
		n++;
	return n;
}

/* "read, write or copy" */
static void choices_text(const struct ax_param_def *d, char *buf, size_t len)
{
	int n = choice_count(d);
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < n && used < len; i++) {
		const char *sep = i == 0 ? "" : (i == n - 1 ? " or " : ", ");
		int w = snprintf(buf + used, len - used, "%s%s", sep,
				 d->choices[i]);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* "one of 8, 16, 48" */
static void values_text(const struct ax_param_def *d, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "one of ");
	for (int i = 0; i < d->n_values && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%" PRId64,
					 i ? ", " : "", d->values[i]);
}

static bool in_values(const struct ax_param_def *d, int64_t v)
{
	if (!d->values)
		return true;
	for (int i = 0; i < d->n_values; i++)
		if (d->values[i] == v)
			return true;
	return false;
}

static void range_text(const struct ax_param_def *d, char *buf, size_t len)
{
	char lo[32], hi[32];
	ax_param_format(d, d->min, lo, sizeof(lo));
	ax_param_format(d, d->max, hi, sizeof(hi));
	if (d->type == AX_PT_ENUM) {
		choices_text(d, buf, len);
		return;
	}
	if (d->type == AX_PT_BOOL) {
		snprintf(buf, len, "true or false");
		return;
	}
	if (d->type == AX_PT_TEXT) {
		snprintf(buf, len,
			 "a text of 1 to %d bytes of UTF-8 without control "
			 "characters",
			 AX_PARAM_TEXT_MAX);
		return;
	}
	if (d->values) {
		values_text(d, buf, len);
		return;
	}
	snprintf(buf, len, "%san integer from %s to %s",
		 (d->flags & AX_PARAM_POW2) ? "a power of two, " : "", lo, hi);
}

static int check_value(const struct ax_param_def *d, int64_t v,
		       const char *text, char *err, size_t errlen)
{
	char allowed[256];
	bool ok;
	switch (d->type) {
	case AX_PT_INT:
		ok = v >= d->min && v <= d->max &&
		     (!(d->flags & AX_PARAM_POW2) || is_pow2(v)) &&
		     in_values(d, v);
		break;
	case AX_PT_ENUM:
		ok = v >= 0 && v < choice_count(d);
		break;
	case AX_PT_TEXT:
		ok = v >= 0 && v <= n_interned;
		break;
	default:
		ok = v == 0 || v == 1;
		break;
	}
	if (ok)
		return 0;
	range_text(d, allowed, sizeof(allowed));
	if (text)
		return ax_errf(err, errlen, AX_EINVAL, "%s must be %s (got %s)",
			       d->name, allowed, text);
	return ax_errf(err, errlen, AX_EINVAL,
		       "%s must be %s (got %" PRId64 ")", d->name, allowed, v);
}

static int parse_int(const struct ax_param_def *d, const char *text,
		     int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(text, &end, 10);
	if (end == text || errno)
		return -1;
	int64_t mult = 1;
	if ((d->flags & AX_PARAM_BYTES) && *end) {
		switch (toupper((unsigned char)*end)) {
		case 'K':
			mult = 1LL << 10;
			break;
		case 'M':
			mult = 1LL << 20;
			break;
		case 'G':
			mult = 1LL << 30;
			break;
		default:
			return -1;
		}
		end++;
		if (*end == 'i' || *end == 'I')
			end++;
		if (*end == 'B' || *end == 'b')
			end++;
	}
	if (*end)
		return -1;
	if (v > INT64_MAX / mult || v < INT64_MIN / mult)
		return -1;
	*out = (int64_t)v * mult;
	return 0;
}

int ax_param_parse(const struct ax_param_def *d, const char *text, int64_t *out,
		   char *err, size_t errlen)
{
	char allowed[256];
	int64_t v = -1;
	bool parsed = false;

	if (d->type == AX_PT_TEXT) {
		parsed = text_ok(text);
		int rc = parsed ? intern_text(d, text, &v) : 0;
		if (rc)
			return ax_errf(err, errlen, rc,
				       rc == AX_ENOMEM
					   ? "%s: out of memory"
					   : "%s: more than %d distinct texts "
					     "in one process",
				       d->name, TEXTS_MAX);
	} else if (d->type == AX_PT_INT) {
		parsed = parse_int(d, text, &v) == 0;
	} else if (d->type == AX_PT_ENUM) {
		for (int i = 0; d->choices[i]; i++)
			if (strcasecmp(d->choices[i], text) == 0) {
				v = i;
				parsed = true;
			}
	} else {
		static const char *const yes[] = {"true", "1", "yes", "on"};
		static const char *const no[] = {"false", "0", "no", "off"};
		for (int i = 0; i < 4; i++) {
			if (strcasecmp(text, yes[i]) == 0)
				v = 1, parsed = true;
			if (strcasecmp(text, no[i]) == 0)
				v = 0, parsed = true;
		}
	}
	if (!parsed) {
		range_text(d, allowed, sizeof(allowed));
		return ax_errf(err, errlen, AX_EINVAL, "%s must be %s (got %s)",
			       d->name, allowed, text);
	}
	int rc = check_value(d, v, text, err, errlen);
	if (rc == 0)
		*out = v;
	return rc;
}

static int append_value(int64_t **vals, int *count, int64_t v)
{
	int64_t *grown = realloc(*vals, sizeof(**vals) * (size_t)(*count + 1));
	if (!grown)
		return AX_ENOMEM;
	*vals = grown;
	(*vals)[(*count)++] = v;
	return 0;
}

/* The ":STEP" or ":xF" part of a range: a linear step (a byte count for
 * byte parameters) or a geometric factor; none means "x2". */
static int parse_stride(const struct ax_param_def *d, const char *range,
			const char *text, int64_t *step, int64_t *factor,
			char *err, size_t errlen)
{
	*step = 0;
	*factor = 2;
	if (!text)
		return 0;
	if (*text == 'x' || *text == 'X') {
		char *end;
		errno = 0;
		long long f = strtoll(text + 1, &end, 10);
		if (end == text + 1 || *end || errno || f < 2 || f > 1024)
			return ax_errf(err, errlen, AX_EINVAL,
				       "%s: range %s: the factor after ':x' "
				       "must be an integer from 2 to 1024 "
				       "(e.g. 64..1024:x2)",
				       d->name, range);
		*factor = f;
		return 0;
	}
	if (parse_int(d, text, step) || *step <= 0)
		return ax_errf(err, errlen, AX_EINVAL,
			       "%s: range %s: the step after ':' must be a "
			       "positive integer (e.g. 64..1024:64) or a "
			       "factor xF (e.g. 64..1024:x2)",
			       d->name, range);
	return 0;
}

/* Split "LO..HI[:STRIDE]" and parse both ends as values of d. */
static int parse_range_ends(const struct ax_param_def *d, const char *text,
			    const char *dots, int64_t *lo, int64_t *hi,
			    const char **stride, char *err, size_t errlen)
{
	char lo_text[64], hi_text[64];
	const char *colon = strchr(dots + 2, ':');
	size_t lo_len = (size_t)(dots - text);
	size_t hi_len = colon ? (size_t)(colon - dots - 2) : strlen(dots + 2);
	if (lo_len >= sizeof(lo_text) || hi_len >= sizeof(hi_text))
		return ax_errf(err, errlen, AX_EINVAL, "%s: bad range %s",
			       d->name, text);
	memcpy(lo_text, text, lo_len);
	lo_text[lo_len] = '\0';
	memcpy(hi_text, dots + 2, hi_len);
	hi_text[hi_len] = '\0';
	*stride = colon ? colon + 1 : NULL;
	if (d->type != AX_PT_INT)
		return ax_errf(err, errlen, AX_EINVAL,
			       "%s: range %s: only integer parameters take "
			       "ranges; list the values instead (a,b,c)",
			       d->name, text);
	int rc = ax_param_parse(d, lo_text, lo, err, errlen);
	if (rc == 0)
		rc = ax_param_parse(d, hi_text, hi, err, errlen);
	if (rc == 0 && *hi < *lo)
		rc = ax_errf(err, errlen, AX_EINVAL,
			     "%s: range %s must be LOW..HIGH (low end first)",
			     d->name, text);
	return rc;
}

/*
 * One rule for every integer parameter: LO..HI doubles from LO (LO, 2LO,
 * 4LO, ... up to HI), LO..HI:xF multiplies by F, LO..HI:STEP adds STEP.
 * Each value must still be a valid value of d (a power of two where d
 * asks for one), so 64..1024:64 over a power-of-two knob is refused.
 */
static int parse_range(const struct ax_param_def *d, const char *text,
		       const char *dots, int64_t **vals, int *count, char *err,
		       size_t errlen)
{
	int64_t lo, hi, step, factor;
	const char *stride = NULL;
	int rc =
	    parse_range_ends(d, text, dots, &lo, &hi, &stride, err, errlen);
	if (rc == 0)
		rc = parse_stride(d, text, stride, &step, &factor, err, errlen);
	if (rc)
		return rc;
	if (!step && lo <= 0)
		return ax_errf(err, errlen, AX_EINVAL,
			       "%s: range %s multiplies from its low end, "
			       "which must be positive; give a step instead "
			       "(e.g. %s:1)",
			       d->name, text, text);
	for (int64_t v = lo; v <= hi;) {
		if (*count >= AX_SWEEP_MAX)
			return ax_errf(err, errlen, AX_EINVAL,
				       "%s: range %s has more than %d values; "
				       "use a larger step or factor",
				       d->name, text, AX_SWEEP_MAX);
		char why[512];
		if (check_value(d, v, NULL, why, sizeof(why)))
			return ax_errf(err, errlen, AX_EINVAL,
				       "%s (in range %s)", why, text);
		if ((rc = append_value(vals, count, v)))
			return rc;
		if (step ? v > INT64_MAX - step : v > INT64_MAX / factor)
			break;
		v = step ? v + step : v * factor;
	}
	return 0;
}

int ax_param_parse_list(const struct ax_param_def *d, const char *text,
			int64_t **vals, int *count, char *err, size_t errlen)
{
	*vals = NULL;
	*count = 0;
	const char *dots = strstr(text, "..");
	int rc;
	if (dots && !strchr(text, ',')) {
		rc = parse_range(d, text, dots, vals, count, err, errlen);
	} else {
		char *copy = strdup(text), *save = NULL;
		if (!copy)
			return AX_ENOMEM;
		rc = 0;
		for (char *tok = strtok_r(copy, ",", &save); tok && !rc;
		     tok = strtok_r(NULL, ",", &save)) {
			int64_t v;
			while (isspace((unsigned char)*tok))
				tok++;
			rc = ax_param_parse(d, tok, &v, err, errlen);
			if (!rc && *count >= AX_SWEEP_MAX)
				rc = ax_errf(err, errlen, AX_EINVAL,
					     "%s: more than %d values", d->name,
					     AX_SWEEP_MAX);
			if (!rc)
				rc = append_value(vals, count, v);
		}
		free(copy);
		if (!rc && *count == 0)
			rc = ax_errf(err, errlen, AX_EINVAL,
				     "%s: empty value list", d->name);
	}
	if (rc) {
		free(*vals);
		*vals = NULL;
		*count = 0;
	}
	return rc;
}

void ax_param_format(const struct ax_param_def *d, int64_t v, char *buf,
		     size_t len)
{
	if (d->type == AX_PT_ENUM && v >= 0 && v < choice_count(d)) {
		snprintf(buf, len, "%s", d->choices[v]);
	} else if (d->type == AX_PT_TEXT) {
		snprintf(buf, len, "%s", ax_param_text(d, v));
	} else if (d->type == AX_PT_BOOL) {
		snprintf(buf, len, "%s", v ? "true" : "false");
	} else if ((d->flags & AX_PARAM_BYTES) && v > 0) {
		static const char suffix[] = "GMK";
		for (int s = 0; s < 3; s++) {
			int64_t unit = 1LL << (10 * (3 - s));
			if (v % unit == 0) {
				snprintf(buf, len, "%" PRId64 "%c", v / unit,
					 suffix[s]);
				return;
			}
		}
		snprintf(buf, len, "%" PRId64, v);
	} else {
		snprintf(buf, len, "%" PRId64, v);
	}
}

int ax_params_check(const struct ax_params *p, char *err, size_t errlen)
{
	for (int i = 0; i < p->n; i++) {
		int rc = check_value(&p->defs[i], p->v[i], NULL, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

int ax_params_check_unique(const char *const *texts, int n, char *err,
			   size_t errlen)
{
	for (int i = 0; i < n; i++) {
		size_t len = strcspn(texts[i], "=");
		for (int j = 0; j < i && texts[i][len] == '='; j++) {
			if (strncmp(texts[j], texts[i], len + 1) != 0)
				continue;
			const char *a = texts[j] + len + 1;
			const char *b = texts[i] + len + 1;
			return ax_errf(err, errlen, AX_EINVAL,
				       "-p %.*s is given twice (%s and %s); "
				       "give it once: a list (-p %.*s=A,B) or "
				       "a range (-p %.*s=LO..HI) sweeps "
				       "several values",
				       (int)len, texts[i], a, b, (int)len,
				       texts[i], (int)len, texts[i]);
		}
	}
	return 0;
}

int ax_params_set(struct ax_params *p, const char *name, const char *text,
		  char *err, size_t errlen)
{
	int i = ax_params_find(p, name);
	if (i < 0) {
		char known[512];
		size_t used = 0;
		known[0] = '\0';
		for (int j = 0; j < p->n && used < sizeof(known); j++) {
			int w =
			    snprintf(known + used, sizeof(known) - used, "%s%s",
				     j ? ", " : "", p->defs[j].name);
			if (w < 0)
				break;
			used += (size_t)w;
		}
		return ax_errf(err, errlen, AX_ENOTFOUND,
			       "unknown parameter '%s' (known: %s)", name,
			       known);
	}
	int rc = ax_param_parse(&p->defs[i], text, &p->v[i], err, errlen);
	if (rc == 0)
		p->given |= 1u << i;
	return rc;
}

char *ax_params_to_json(const struct ax_params *p)
{
	json_t *obj = json_object();
	if (!obj)
		return NULL;
	for (int i = 0; i < p->n; i++) {
		const struct ax_param_def *d = &p->defs[i];
		json_t *val;
		if (d->type == AX_PT_INT) {
			val = json_integer(p->v[i]);
		} else if (d->type == AX_PT_TEXT) {
			val = json_string(ax_param_text(d, p->v[i]));
		} else {
			char text[64];
			ax_param_format(d, p->v[i], text, sizeof(text));
			val = json_string(text);
		}
		json_object_set_new(obj, d->name, val);
	}
	char *out = json_dumps(obj, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(obj);
	return out;
}

json_t *ax_param_json(const struct ax_param_def *d, int64_t v)
{
	char text[64];
	switch (d->type) {
	case AX_PT_INT:
		return json_integer(v);
	case AX_PT_BOOL:
		return json_boolean(v);
	case AX_PT_TEXT:
		return json_string(ax_param_text(d, v));
	default:
		ax_param_format(d, v, text, sizeof(text));
		return json_string(text);
	}
}

json_t *ax_params_json(const struct ax_params *p)
{
	json_t *obj = json_object();
	for (int i = 0; obj && i < p->n; i++)
		json_object_set_new(obj, p->defs[i].name,
				    ax_param_json(&p->defs[i], p->v[i]));
	return obj;
}

void ax_params_json_retype(json_t *params, const struct ax_param_def *defs,
			   int n)
{
	for (int i = 0; json_is_object(params) && i < n; i++) {
		if (defs[i].type != AX_PT_BOOL)
			continue;
		const char *s =
		    json_string_value(json_object_get(params, defs[i].name));
		if (s && (!strcmp(s, "true") || !strcmp(s, "false")))
			json_object_set_new(params, defs[i].name,
					    json_boolean(!strcmp(s, "true")));
	}
}

int ax_params_from_json(struct ax_params *p, const struct ax_param_def *defs,
			int n, const char *json, char *err, size_t errlen)
{
	json_error_t jerr;
	ax_params_init(p, defs, n);
	json_t *obj = json_loads(json, 0, &jerr);
	if (!obj || !json_is_object(obj)) {
		json_decref(obj);
		return ax_errf(err, errlen, AX_EINVAL,
			       "parameters are not a JSON object: %s",
			       jerr.text);
	}
	const char *key;
	json_t *val;
	int rc = 0;
	json_object_foreach(obj, key, val)
	{
		char text[AX_PARAM_TEXT_MAX + 1];
		if (json_is_integer(val))
			snprintf(text, sizeof(text), "%" JSON_INTEGER_FORMAT,
				 json_integer_value(val));
		else if (json_is_string(val))
			snprintf(text, sizeof(text), "%s",
				 json_string_value(val));
		else if (json_is_boolean(val))
			snprintf(text, sizeof(text), "%s",
				 json_is_true(val) ? "true" : "false");
		else
			text[0] = '\0';
		rc = ax_params_set(p, key, text, err, errlen);
		if (rc)
			break;
	}
	json_decref(obj);
	return rc;
}

void ax_params_label(const struct ax_params *p, unsigned only, char *buf,
		     size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < p->n && used < len; i++) {
		const struct ax_param_def *d = &p->defs[i];
		char text[AX_PARAM_TEXT_MAX + 1];
		if ((d->flags & only) != only)
			continue;
		ax_param_format(d, p->v[i], text, sizeof(text));
		int w = snprintf(buf + used, len - used, "%s%s=%s",
				 used ? " " : "", d->name, text);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

void ax_params_store(const struct ax_params *p, void *cfg)
{
	for (int i = 0; i < p->n; i++) {
		const struct ax_param_def *d = &p->defs[i];
		char *at = (char *)cfg + d->field.offset;
		int64_t v = p->v[i];
		if (d->type == AX_PT_TEXT && d->field.size == sizeof(char *)) {
			const char *text = ax_param_text(d, v);
			memcpy(at, &text, sizeof(text));
		} else if (d->field.size == 1) {
			bool b = v != 0;
			memcpy(at, &b, 1);
		} else if (d->field.size == 4) {
			uint32_t u = (uint32_t)v;
			memcpy(at, &u, 4);
		} else if (d->field.size == 8) {
			memcpy(at, &v, 8);
		}
	}
}

/* One row's own rules: a name, help, an ordered range, a valid default. */
static int check_row(const struct ax_param_def *d, int i, char *err,
		     size_t errlen)
{
	char why[512];
	if (!d->name || !*d->name || !d->help || !*d->help)
		return ax_errf(err, errlen, AX_EINVAL,
			       "parameter %d (%s) needs a name and help text",
			       i, d->name ? d->name : "unnamed");
	if (d->type == AX_PT_INT && d->min > d->max)
		return ax_errf(err, errlen, AX_EINVAL,
			       "%s: min %" PRId64 " is above max %" PRId64,
			       d->name, d->min, d->max);
	if ((d->type == AX_PT_ENUM || d->type == AX_PT_TEXT) &&
	    (!d->choices || !d->choices[0]))
		return ax_errf(err, errlen, AX_EINVAL,
			       "%s: an enum or text parameter needs choices "
			       "(a text's default is choices[0])",
			       d->name);
	if (check_value(d, d->def, NULL, why, sizeof(why)))
		return ax_errf(err, errlen, AX_EINVAL,
			       "%s: the default is not a valid value: %s",
			       d->name, why);
	return 0;
}

/* Where a row's value goes: a field of a size it can take, inside the
 * config struct. */
static int check_field(const struct ax_param_def *d, size_t cfg_size, char *err,
		       size_t errlen)
{
	size_t sz = d->field.size;
	if (!sz)
		return 0;
	bool ok = sz == 4 || sz == 8 || (sz == 1 && d->type == AX_PT_BOOL);
	if (d->type == AX_PT_TEXT)
		ok = sz == sizeof(char *);
	if (!ok)
		return ax_errf(err, errlen, AX_EINVAL,
			       "%s: bound to a %zu-byte field; use a bool "
			       "(booleans only), a 4- or 8-byte integer, or "
			       "a const char * for text",
			       d->name, sz);
	if (d->field.offset + sz > cfg_size)
		return ax_errf(err, errlen, AX_EINVAL,
			       "%s: field at offset %zu (%zu bytes) is outside "
			       "the %zu-byte config struct; give the suite's "
			       "config_size",
			       d->name, d->field.offset, sz, cfg_size);
	return 0;
}

/* Rows i and j must not share a name, a spec id or a field. */
static int check_pair(const struct ax_param_def *a,
		      const struct ax_param_def *b, char *err, size_t errlen)
{
	if (!strcmp(a->name, b->name))
		return ax_errf(err, errlen, AX_EINVAL,
			       "%s: two parameters have this name", a->name);
	if (a->spec.set && b->spec.set && a->spec.id == b->spec.id)
		return ax_errf(err, errlen, AX_EINVAL,
			       "%s and %s: both set specialization constant "
			       "%u; give each its own constant_id",
			       a->name, b->name, a->spec.id);
	if (a->field.size && b->field.size &&
	    a->field.offset < b->field.offset + b->field.size &&
	    b->field.offset < a->field.offset + a->field.size)
		return ax_errf(err, errlen, AX_EINVAL,
			       "%s and %s: bound to overlapping fields of the "
			       "config struct",
			       a->name, b->name);
	return 0;
}

/* A `when` names a tunable row's condition: an enum or bool row of the
 * table that is not itself tunable, and one of its values. */
static int check_when(const struct ax_param_def *defs, int n,
		      const struct ax_param_def *d, char *err, size_t errlen)
{
	if (!d->when)
		return 0;
	const char *choice = NULL;
	int j = when_param(defs, n, d->when, &choice);
	if (!(d->flags & AX_PARAM_TUNABLE))
		return ax_errf(err, errlen, AX_EINVAL,
			       "%s: when=\"%s\" on a row that is not tunable "
			       "(a condition says when a knob is a knob)",
			       d->name, d->when);
	if (j < 0 || (defs[j].type != AX_PT_ENUM && defs[j].type != AX_PT_BOOL))
		return ax_errf(err, errlen, AX_EINVAL,
			       "%s: when=\"%s\" must name an enum or bool "
			       "parameter of the table, as NAME=CHOICE",
			       d->name, d->when);
	if (defs[j].flags & AX_PARAM_TUNABLE)
		return ax_errf(err, errlen, AX_EINVAL,
			       "%s: when=\"%s\": %s is tunable, so the space "
			       "would change under the tuner; condition on a "
			       "shape or fixed parameter",
			       d->name, d->when, defs[j].name);
	if (choice_value(&defs[j], choice) < 0)
		return ax_errf(err, errlen, AX_EINVAL,
			       "%s: when=\"%s\": %s has no value '%s'", d->name,
			       d->when, defs[j].name, choice);
	return 0;
}

int ax_param_table_check(const struct ax_param_def *defs, int n,
			 size_t cfg_size, char *err, size_t errlen)
{
	if (n < 0 || n > AX_MAX_PARAMS || (n && !defs))
		return ax_errf(err, errlen, AX_EINVAL,
			       "%d parameters; a table holds 0 to %d", n,
			       AX_MAX_PARAMS);
	for (int i = 0; i < n; i++) {
		const struct ax_param_def *d = &defs[i];
		int rc = check_row(d, i, err, errlen);
		if (!rc)
			rc = check_when(defs, n, d, err, errlen);
		if (!rc)
			rc = check_field(d, cfg_size, err, errlen);
		for (int j = 0; !rc && j < i; j++)
			rc = check_pair(&defs[j], d, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- role contracts ----------------------------------------------------- */

#define ROLE_INT(T, F)                                                         \
	{                                                                      \
#F, AX_PT_INT, offsetof(T, F)                                  \
	}
#define ROLE_ENUM(T, F)                                                        \
	{                                                                      \
#F, AX_PT_ENUM, offsetof(T, F)                                 \
	}

/* What recommend's upload rules read (reports/recommend.c). */
static const struct ax_role_param transfer_params[] = {
    ROLE_ENUM(struct ax_transfer_point, direction),
    ROLE_ENUM(struct ax_transfer_point, path),
    ROLE_ENUM(struct ax_transfer_point, source),
    ROLE_INT(struct ax_transfer_point, chunk),
    ROLE_INT(struct ax_transfer_point, inflight),
    ROLE_INT(struct ax_transfer_point, total),
};

/* What recommend's loading rules read (reports/recommend_ingest.c). */
static const struct ax_role_param ingest_params[] = {
    ROLE_ENUM(struct ax_ingest_point, cache),
    ROLE_ENUM(struct ax_ingest_point, io),
    ROLE_INT(struct ax_ingest_point, readers),
    ROLE_INT(struct ax_ingest_point, inflight),
    ROLE_INT(struct ax_ingest_point, chunk),
};

/* What recommend's zero-copy rule reads (reports/recommend.c). */
static const struct ax_role_param zerocopy_params[] = {
    ROLE_ENUM(struct ax_zerocopy_point, pattern),
    ROLE_ENUM(struct ax_zerocopy_point, path),
    ROLE_INT(struct ax_zerocopy_point, size),
};

/* What the report's device x device matrix reads (reports/html_d2d.c). */
static const struct ax_role_param d2d_params[] = {
    ROLE_ENUM(struct ax_d2d_point, path),
    ROLE_INT(struct ax_d2d_point, peer),
    ROLE_INT(struct ax_d2d_point, size),
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

const struct ax_role_param *ax_role_params(unsigned role, int *n)
{
	*n = 0;
	if (role == AX_ROLE_TRANSFER) {
		*n = COUNT(transfer_params);
		return transfer_params;
	}
	if (role == AX_ROLE_INGEST) {
		*n = COUNT(ingest_params);
		return ingest_params;
	}
	if (role == AX_ROLE_D2D) {
		*n = COUNT(d2d_params);
		return d2d_params;
	}
	if (role == AX_ROLE_ZEROCOPY) {
		*n = COUNT(zerocopy_params);
		return zerocopy_params;
	}
	return NULL;
}

/* Does a parameter of type t read as the contract's type want (enums and
 * texts are both names in a stored result)? */
static bool reads_as(enum ax_param_type t, enum ax_param_type want)
{
	if (want == AX_PT_ENUM)
		return t == AX_PT_ENUM || t == AX_PT_TEXT;
	return t == want;
}

int ax_role_check(unsigned role, const struct ax_param_def *defs, int n,
		  char *err, size_t errlen)
{
	int nc;
	const struct ax_role_param *c = ax_role_params(role, &nc);
	for (int i = 0; i < nc; i++) {
		int j = 0;
		while (j < n && strcmp(defs[j].name, c[i].name))
			j++;
		if (j == n || !reads_as(defs[j].type, c[i].type))
			return ax_errf(err, errlen, AX_EINVAL,
				       "role %s requires %s parameter %s, "
				       "which recommend reads; add it to the "
				       "table or drop the role",
				       ax_role_name((enum ax_role)role),
				       c[i].type == AX_PT_INT ? "an integer"
							      : "an enum",
				       c[i].name);
	}
	return 0;
}

void ax_role_point(unsigned role, const json_t *params, void *out)
{
	int nc;
	const struct ax_role_param *c = ax_role_params(role, &nc);
	for (int i = 0; i < nc; i++) {
		const json_t *v = json_object_get(params, c[i].name);
		char *at = (char *)out + c[i].offset;
		if (c[i].type == AX_PT_INT) {
			int64_t x = json_integer_value(v);
			memcpy(at, &x, sizeof(x));
		} else {
			const char *t = json_string_value(v);
			memcpy(at, &t, sizeof(t));
		}
	}
}
