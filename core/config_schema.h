/*
 * core/config_schema.h - the one schema walker of the YAML readers in
 * core/config*.c (internal to them: it brings yaml.h along through
 * core/config_yaml.h).
 *
 * A reader describes each mapping as data, a struct ax_ymap whose keys
 * (struct ax_ykey) give the key's name, its type, whether it is
 * required, its allowed values or range, a nested mapping or sequence,
 * and where the value goes (AX_YAT: an offsetof into the object the
 * mapping fills) or a handler for what data cannot say.  The walker
 * checks keys (unknown, duplicate, missing), types and values in the
 * order the table lists them, and words every message alike,
 * "FILE:LINE:COL: " then:
 *
 *   WHAT must be WANT, not KIND[; HINT]          wrong type
 *   WHAT must be WANT (got TEXT)[; HINT]         value not allowed
 *   unknown key 'K' in WHERE; allowed keys: ...  (core/config_yaml.c)
 *   WHAT is empty; EMPTY                         empty list or text
 *   WHAT has N entries; at most M                too long a list
 *
 * and a missing required key gives the key's own `missing` text (a "%s"
 * in it is the mapping's label, e.g. the entry's name).
 */
#ifndef AX_CONFIG_SCHEMA_H
#define AX_CONFIG_SCHEMA_H

#include "core/config_yaml.h"

#include <stdint.h>

enum ax_ytype {
	AX_Y_CHECK,  /* no key: fn(y, map, obj) runs at this place */
	AX_Y_ANY,    /* any node, given to fn */
	AX_Y_VALUE,  /* a scalar that is not null; fn checks it */
	AX_Y_STRING, /* a scalar, strdup'd into a char * */
	AX_Y_INT,    /* an integer from lo to hi */
	AX_Y_NUMBER, /* a number from dlo to dhi */
	AX_Y_BOOL,   /* true or false */
	AX_Y_CHOICE, /* one of choices[]: its index, or values[index] */
	AX_Y_MAP,    /* a mapping described by map */
	AX_Y_SEQ,    /* a sequence: each item walked by map and/or each */
};

enum ax_ykey_flag {
	AX_YK_REQUIRED = 1u << 0, /* absent: the missing message */
	AX_YK_NULLABLE = 1u << 1, /* null is allowed and leaves the value */
	AX_YK_HEX = 1u << 2,	  /* INT: 0x and 0 prefixes read (strtoll 0) */
	AX_YK_MIN_OPEN = 1u << 3, /* NUMBER: dlo itself is not allowed */
	AX_YK_NONEMPTY = 1u << 4, /* STRING, SEQ: empty is refused */
};

struct ax_ymap;

/* Where a value goes: offset and size of a member of the object. */
#define AX_YAT(type, member)                                                   \
	.off = offsetof(type, member), .size = sizeof(((type *)0)->member)

struct ax_ykey {
	const char *name;
	enum ax_ytype type;
	unsigned flags;	     /* enum ax_ykey_flag */
	size_t off, size;    /* AX_YAT; size 0: the value is only checked */
	const char *what;    /* its name in messages; NULL: the key (with the
				mapping's prefix under AX_YM_PATH) */
	const char *want;    /* what it must be; NULL: said from the type */
	const char *hint;    /* "; hint" after type and value errors */
	const char *missing; /* when required and absent */
	const char *empty;   /* after "WHAT is empty; " */
	int64_t lo, hi;	     /* INT */
	double dlo, dhi;     /* NUMBER */
	const char *const *choices; /* CHOICE, NULL-terminated */
	const int *values;	    /* CHOICE: stored instead of the index */
	const struct ax_ymap *map;  /* MAP; SEQ: each item's */
	int max;		    /* SEQ: most items (0: any) */
	unsigned bit; /* or'd into the mapping's set bits when present */
	/* SEQ: the object item i fills (NULL: the mapping's); called
	 * once first with i = -1 and the count, to make room. */
	void *(*slot)(struct ax_yaml *y, void *obj, int i, int count);
	/* After the value is stored: its node, where it is stored (obj +
	 * off) and its name in messages.  CHECK: the mapping's node, obj
	 * and where.  SEQ: each item (after map), its slot (else obj)
	 * and the sequence's name. */
	int (*fn)(struct ax_yaml *y, yaml_node_t *n, void *at,
		  const char *what);
};

enum ax_ymap_flag {
	AX_YM_PATH = 1u << 0,	    /* keys are named WHERE.KEY */
	AX_YM_NEED_FIRST = 1u << 1, /* every missing key before any value */
};

struct ax_ymap {
	const char *where; /* "measure", "a buffer": in messages */
	const char *want;  /* "a mapping of settings"; NULL "a mapping" */
	const struct ax_ykey *keys; /* NULL: any keys, each given to pair */
	int n_keys;
	unsigned flags; /* enum ax_ymap_flag */
	int max;	/* most pairs (0: any) */
	/* The object's `char *` that labels it in missing messages. */
	long label_off; /* -1: none */
	long set_off;	/* the object's `unsigned` of key bits; -1: none */
	int (*pair)(struct ax_yaml *y, yaml_node_t *key, yaml_node_t *value,
		    void *obj);
	int (*done)(struct ax_yaml *y, yaml_node_t *map, void *obj);
};

#define AX_YKEYS(k) .keys = (k), .n_keys = (int)(sizeof(k) / sizeof((k)[0]))
#define AX_YNONE .label_off = -1, .set_off = -1

/* Walk the mapping n with m into obj; where (NULL: m->where) names it. */
int ax_ywalk_map(struct ax_yaml *y, yaml_node_t *n, const struct ax_ymap *m,
		 void *obj, const char *where);

/* Check and store the one node n as k says (what NULL: k's own), into
 * obj at k->off; for handlers that walk items themselves. */
int ax_ywalk_value(struct ax_yaml *y, yaml_node_t *n, const struct ax_ykey *k,
		   const char *what, void *obj);

/* The document's root (NULL when empty) after the common first steps:
 * the pre-scan (what, needs: ax_yaml_prescan), then libyaml's load into
 * y->doc.  On success the caller runs fn and deletes y->doc; this does
 * both: the return is fn's, or the pre-scan's or the loader's error. */
int ax_yaml_parse(struct ax_yaml *y, const char *text, size_t len,
		  const char *what, int needs,
		  int (*fn)(struct ax_yaml *y, yaml_node_t *root));

#endif
