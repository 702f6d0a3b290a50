/* core/expr.c - the integer expression language of core/expr.h: a
 * precedence-climbing parser into an array of nodes, and a recursive
 * evaluator whose every step is checked. */
#include "core/expr.h"

#include "core/error.h"
#include "core/text.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum tok {
	T_END,
	T_NUM,
	T_NAME,
	T_LP,
	T_RP,
	T_COMMA,
	T_QUEST,
	T_COLON,
	T_NOT,
	T_TILDE,
	T_MUL,
	T_DIV,
	T_MOD,
	T_ADD,
	T_SUB,
	T_SHL,
	T_SHR,
	T_LT,
	T_LE,
	T_GT,
	T_GE,
	T_EQ,
	T_NE,
	T_BAND,
	T_XOR,
	T_BOR,
	T_LAND,
	T_LOR,
	T_COUNT
};

/* Spellings, the two-character ones first so that "<<" is not "<" "<". */
static const struct {
	char text[3];
	enum tok tok;
} ops[] = {
    {"<<", T_SHL},  {">>", T_SHR}, {"<=", T_LE},   {">=", T_GE},
    {"==", T_EQ},   {"!=", T_NE},  {"&&", T_LAND}, {"||", T_LOR},
    {"(", T_LP},    {")", T_RP},   {",", T_COMMA}, {"?", T_QUEST},
    {":", T_COLON}, {"!", T_NOT},  {"~", T_TILDE}, {"*", T_MUL},
    {"/", T_DIV},   {"%", T_MOD},  {"+", T_ADD},   {"-", T_SUB},
    {"<", T_LT},    {">", T_GT},   {"&", T_BAND},  {"^", T_XOR},
    {"|", T_BOR},
};

/* How tightly a binary operator binds (C's order); 0: not binary. */
static const unsigned char prec_of[T_COUNT] = {
    [T_MUL] = 10, [T_DIV] = 10, [T_MOD] = 10, [T_ADD] = 9,  [T_SUB] = 9,
    [T_SHL] = 8,  [T_SHR] = 8,	[T_LT] = 7,   [T_LE] = 7,   [T_GT] = 7,
    [T_GE] = 7,	  [T_EQ] = 6,	[T_NE] = 6,   [T_BAND] = 5, [T_XOR] = 4,
    [T_BOR] = 3,  [T_LAND] = 2, [T_LOR] = 1,
};

enum fn { F_MIN, F_MAX, F_CEIL_DIV, F_ROUND_UP, F_ABS, F_LOG2, F_IS_POW2 };
static const char *const fn_names[] = {"min", "max",  "ceil_div", "round_up",
				       "abs", "log2", "is_pow2",  NULL};
static const int fn_args[] = {2, 2, 2, 2, 1, 1, 1};

enum kind { K_NUM, K_VAR, K_UNARY, K_BINARY, K_COND, K_CALL };

struct node {
	int64_t v; /* K_NUM: the value; K_VAR: index in var; K_CALL: fn */
	int kid[3];
	uint16_t start, end; /* its text: bytes [start, end) */
	uint8_t kind, op;    /* op: the enum tok of K_UNARY and K_BINARY */
};

struct ax_expr {
	char *text;
	struct node *node; /* node[root] is the whole expression */
	int n_node, cap_node, root;
	char (*var)[AX_EXPR_MAX_NAME + 1]; /* distinct, in order of first use */
	int n_var, cap_var;
};

/* ---- messages ---------------------------------------------------------- */

#define EXCERPT 648 /* 160 bytes cut from a text, each escaped in <= 4 */

/* s[0..n) for a message: cut in the middle when long (ax_vfmt_fit's rule,
 * so the column still finds it) and with control characters escaped. */
static const char *excerpt(const char *s, size_t n, char *buf)
{
	char cut[161];
	ax_errf(cut, sizeof(cut), 0, "%.*s", (int)n, s);
	const char *t = ax_text_term(cut, buf, EXCERPT);
	if (t != buf)
		snprintf(buf, EXCERPT, "%s", t);
	return buf;
}

/* "expression "TEXT": " and what fmt says, as AX_EINVAL. */
static int vfail(const char *text, char *err, size_t errlen, const char *fmt,
		 va_list ap)
{
	char what[1024], quoted[EXCERPT];
	ax_vfmt_fit(what, sizeof(what), fmt, ap);
	return ax_errf(err, errlen, AX_EINVAL, "expression \"%s\": %s",
		       excerpt(text, strlen(text), quoted), what);
}

/* ---- the lexer --------------------------------------------------------- */

struct parser {
	struct ax_expr *e;
	const char *s; /* the text parsed */
	size_t pos;    /* where the next token is looked for */
	enum tok tok;  /* the current token, bytes [at, end) */
	size_t at, end;
	int64_t num; /* T_NUM's value */
	int depth;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 3, 4))) static int
syntax(struct parser *p, size_t at, const char *fmt, ...)
{
	char what[1024];
	va_list ap;
	va_start(ap, fmt);
	ax_vfmt_fit(what, sizeof(what), fmt, ap);
	va_end(ap);
	char quoted[EXCERPT];
	return ax_errf(p->err, p->errlen, AX_EINVAL,
		       "expression \"%s\": column %zu: %s",
		       excerpt(p->s, strlen(p->s), quoted), at + 1, what);
}

/* "unexpected 'TOKEN' (expected ...)" at the current token. */
__attribute__((format(printf, 2, 3))) static int
unexpected(struct parser *p, const char *fmt, ...)
{
	char expected[512], tok[64];
	va_list ap;
	va_start(ap, fmt);
	ax_vfmt_fit(expected, sizeof(expected), fmt, ap);
	va_end(ap);
	size_t n = p->end - p->at;
	if (p->tok == T_END)
		snprintf(tok, sizeof(tok), "end");
	else
		snprintf(tok, sizeof(tok), "'%.*s%s'", (int)(n > 40 ? 40 : n),
			 p->s + p->at, n > 40 ? "..." : "");
	return syntax(p, p->at, "unexpected %s (expected %s)", tok, expected);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

static int digit_value(char c, int base)
{
	if (is_digit(c))
		return c - '0';
	if (base == 16 && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (base == 16 && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* K, M, G (either case) as a shift; 0 for none. */
static int suffix_shift(char c)
{
	switch (c) {
	case 'K':
	case 'k':
		return 10;
	case 'M':
	case 'm':
		return 20;
	case 'G':
	case 'g':
		return 30;
	}
	return 0;
}

static int lex_number(struct parser *p, size_t i)
{
	const char *s = p->s;
	size_t start = i;
	int base = 10, d;
	if (s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		base = 16;
		i += 2;
		if (digit_value(s[i], 16) < 0)
			return syntax(p, i,
				      "0x without hexadecimal digits "
				      "(expected 0-9, a-f or A-F)");
	} else if (s[i] == '0' && is_digit(s[i + 1])) {
		/* C reads 010 as octal 8: refused rather than guessed. */
		return syntax(p, start,
			      "a number starts with 0 (write it "
			      "without the leading zero; 0x starts "
			      "a hexadecimal number)");
	}
	bool over = false;
	int64_t v = 0;
	for (; (d = digit_value(s[i], base)) >= 0; i++) {
		over = over || v > (INT64_MAX - d) / base;
		v = over ? 0 : v * base + d;
	}
	int shift = suffix_shift(s[i]);
	i += shift != 0;
	over = over || v > (INT64_MAX >> shift);
	if (is_name_char(s[i]))
		return syntax(p, i,
			      "'%c' right after a number (the suffixes "
			      "are K, M and G; an operator goes between "
			      "a number and a name)",
			      s[i]);
	if (over)
		return syntax(p, start,
			      "number too large (at most 2^63 - 1 "
			      "= 9223372036854775807)");
	p->num = v << shift;
	p->tok = T_NUM;
	p->end = p->pos = i;
	return 0;
}

static int lex_name(struct parser *p, size_t i)
{
	size_t start = i;
	while (is_name_char(p->s[i]))
		i++;
	if (i - start > AX_EXPR_MAX_NAME)
		return syntax(p, start, "a name of %zu characters (at most %d)",
			      i - start, AX_EXPR_MAX_NAME);
	p->tok = T_NAME;
	p->end = p->pos = i;
	return 0;
}

static int bad_char(struct parser *p, size_t i)
{
	unsigned char c = (unsigned char)p->s[i];
	if (c == '=')
		return syntax(p, i, "'=' is not an operator (== compares)");
	if (c > ' ' && c < 0x7f)
		return syntax(p, i,
			      "unexpected character '%c' (expected "
			      "numbers, names, operators, parentheses "
			      "or commas)",
			      c);
	return syntax(p, i, "unexpected byte 0x%02x (expressions are ASCII)",
		      c);
}

/* The next token into p->tok, or a message. */
static int lex(struct parser *p)
{
	const char *s = p->s;
	size_t i = p->pos;
	while (is_space(s[i]))
		i++;
	p->at = p->end = p->pos = i;
	if (!s[i]) {
		p->tok = T_END;
		return 0;
	}
	if (is_digit(s[i]))
		return lex_number(p, i);
	if (is_name_start(s[i]))
		return lex_name(p, i);
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		size_t n = strlen(ops[k].text);
		if (strncmp(s + i, ops[k].text, n) == 0) {
			p->tok = ops[k].tok;
			p->end = p->pos = i + n;
			return 0;
		}
	}
	return bad_char(p, i);
}

/* ---- the parser -------------------------------------------------------- */

/* A new node; room is certain: every node takes a token of its own (a
 * number, a name, an operator, a '?') and each token at least a byte. */
static int add_node(struct parser *p, enum kind kind, int op, int64_t v,
		    size_t start, size_t end)
{
	struct ax_expr *e = p->e;
	if (e->n_node >= e->cap_node)
		abort(); /* a parser bug, see above */
	struct node *n = &e->node[e->n_node];
	*n = (struct node){.v = v, .kid = {-1, -1, -1}};
	n->kind = (uint8_t)kind;
	n->op = (uint8_t)op;
	n->start = (uint16_t)start;
	n->end = (uint16_t)end;
	return e->n_node++;
}

/* Index of the variable called s[0..n), added when new; -1: no memory. */
static int var_index(struct ax_expr *e, const char *s, size_t n)
{
	for (int i = 0; i < e->n_var; i++)
		if (strlen(e->var[i]) == n && memcmp(e->var[i], s, n) == 0)
			return i;
	if (e->n_var == e->cap_var) {
		int cap = e->cap_var ? 2 * e->cap_var : 8;
		void *grown = realloc(e->var, sizeof(*e->var) * (size_t)cap);
		if (!grown)
			return -1;
		e->var = grown;
		e->cap_var = cap;
	}
	memcpy(e->var[e->n_var], s, n);
	e->var[e->n_var][n] = '\0';
	return e->n_var++;
}

static int fn_index(const char *s, size_t n)
{
	for (int i = 0; fn_names[i]; i++)
		if (strlen(fn_names[i]) == n && memcmp(fn_names[i], s, n) == 0)
			return i;
	return -1;
}

/* "min(a, b)" */
static const char *fn_usage(int f)
{
	static const char *const usage[] = {
	    "min(a, b)", "max(a, b)", "ceil_div(a, b)", "round_up(a, b)",
	    "abs(a)",	 "log2(a)",   "is_pow2(a)"};
	return usage[f];
}

/* One more level of nesting; a bounded stack whatever the input. */
static int enter(struct parser *p, size_t at)
{
	if (++p->depth <= AX_EXPR_MAX_DEPTH)
		return 0;
	return syntax(p, at,
		      "nested more than %d levels deep (parentheses, calls, "
		      "unary operators and ?: count; split the expression)",
		      AX_EXPR_MAX_DEPTH);
}

static int parse_cond(struct parser *p, int *out);

static int unknown_fn(struct parser *p, size_t at, size_t len)
{
	char known[128];
	ax_join_names(fn_names, known, sizeof(known));
	return syntax(p, at, "unknown function \"%.*s\" (known: %s)", (int)len,
		      p->s + at, known);
}

/* NAME ( arguments ): any count is parsed, then checked, so that the
 * message can say how many there were. */
static int parse_call(struct parser *p, size_t at, size_t len, int *out)
{
	int f = fn_index(p->s + at, len), rc, n = 0, arg[2] = {-1, -1}, a;
	size_t extra = 0; /* where the first argument too many starts */
	if (f < 0)
		return unknown_fn(p, at, len);
	if ((rc = enter(p, at)) || (rc = lex(p)))
		return rc;
	while (n == 0 ? p->tok != T_RP : p->tok == T_COMMA) {
		if (n > 0 && (rc = lex(p)))
			return rc;
		if (n == fn_args[f])
			extra = p->at;
		if ((rc = parse_cond(p, &a)))
			return rc;
		if (n < 2)
			arg[n] = a;
		n++;
	}
	if (p->tok != T_RP)
		return unexpected(p, "',' or ')' of the call at column %zu",
				  at + 1);
	if (n != fn_args[f])
		return syntax(p, n > fn_args[f] ? extra : p->at,
			      "%s takes %d argument%s, not %d (expected %s)",
			      fn_names[f], fn_args[f],
			      fn_args[f] == 1 ? "" : "s", n, fn_usage(f));
	p->depth--;
	*out = add_node(p, K_CALL, 0, f, at, p->end);
	memcpy(p->e->node[*out].kid, arg, sizeof(arg));
	return lex(p);
}

/* A variable, or a call when '(' follows the name. */
static int parse_name(struct parser *p, int *out)
{
	size_t at = p->at, len = p->end - p->at;
	int rc = lex(p), f = fn_index(p->s + at, len);
	if (rc || p->tok == T_LP)
		return rc ? rc : parse_call(p, at, len, out);
	if (f >= 0)
		return syntax(p, at,
			      "%s is a function, not a variable "
			      "(expected %s)",
			      fn_names[f], fn_usage(f));
	int v = var_index(p->e, p->s + at, len);
	if (v < 0)
		return AX_ENOMEM;
	*out = add_node(p, K_VAR, 0, v, at, at + len);
	return 0;
}

/* ( expression ): the inner node's text takes the parentheses in, so
 * that every node's text is well formed for messages. */
static int parse_paren(struct parser *p, int *out)
{
	size_t at = p->at;
	int rc;
	if ((rc = enter(p, at)) || (rc = lex(p)) || (rc = parse_cond(p, out)))
		return rc;
	if (p->tok != T_RP)
		return unexpected(p, "')' closing the '(' at column %zu",
				  at + 1);
	p->depth--;
	p->e->node[*out].start = (uint16_t)at;
	p->e->node[*out].end = (uint16_t)p->end;
	return lex(p);
}

static int parse_primary(struct parser *p, int *out)
{
	switch (p->tok) {
	case T_NUM:
		*out = add_node(p, K_NUM, 0, p->num, p->at, p->end);
		return lex(p);
	case T_NAME:
		return parse_name(p, out);
	case T_LP:
		return parse_paren(p, out);
	default:
		return unexpected(p, "a number, a name, '(' or a unary "
				     "operator");
	}
}

static int parse_unary(struct parser *p, int *out)
{
	enum tok op = p->tok;
	if (op != T_SUB && op != T_ADD && op != T_NOT && op != T_TILDE)
		return parse_primary(p, out);
	size_t at = p->at;
	int rc, kid;
	if ((rc = enter(p, at)) || (rc = lex(p)) || (rc = parse_unary(p, &kid)))
		return rc;
	p->depth--;
	*out = add_node(p, K_UNARY, op, 0, at, p->e->node[kid].end);
	p->e->node[*out].kid[0] = kid;
	return 0;
}

/* Precedence climbing: operands bind to operators of at least min. */
static int parse_binary(struct parser *p, int min, int *out)
{
	int lhs, rhs, rc = parse_unary(p, &lhs);
	while (!rc && prec_of[p->tok] >= min) {
		enum tok op = p->tok;
		if ((rc = lex(p)) ||
		    (rc = parse_binary(p, prec_of[op] + 1, &rhs)))
			break;
		const struct node *l = &p->e->node[lhs], *r = &p->e->node[rhs];
		int n = add_node(p, K_BINARY, op, 0, l->start, r->end);
		p->e->node[n].kid[0] = lhs;
		p->e->node[n].kid[1] = rhs;
		lhs = n;
	}
	*out = lhs;
	return rc;
}

/* c ? a : b (right to left), the top of the grammar. */
static int parse_cond(struct parser *p, int *out)
{
	int c, a, b, rc;
	if ((rc = parse_binary(p, 1, &c)))
		return rc;
	size_t at = p->at;
	if (p->tok == T_QUEST) {
		if ((rc = enter(p, at)) || (rc = lex(p)) ||
		    (rc = parse_cond(p, &a)))
			return rc;
		if (p->tok != T_COLON)
			return unexpected(p, "':' of the '?' at column %zu",
					  at + 1);
		if ((rc = lex(p)) || (rc = parse_cond(p, &b)))
			return rc;
		int n = add_node(p, K_COND, T_QUEST, 0, p->e->node[c].start,
				 p->e->node[b].end);
		memcpy(p->e->node[n].kid, (int[3]){c, a, b}, sizeof(int[3]));
		c = n;
		p->depth--;
	}
	*out = c;
	return 0;
}

static struct ax_expr *expr_new(const char *text, size_t len)
{
	struct ax_expr *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->text = strdup(text);
	e->cap_node = (int)len + 1;
	e->node = calloc((size_t)e->cap_node, sizeof(*e->node));
	if (!e->text || !e->node) {
		ax_expr_free(e);
		return NULL;
	}
	return e;
}

int ax_expr_parse(const char *text, struct ax_expr **out, char *err,
		  size_t errlen)
{
	*out = NULL;
	if (!text)
		return ax_errf(err, errlen, AX_EINVAL,
			       "expression: none given (expected text such "
			       "as \"n / tile\")");
	size_t len = strnlen(text, AX_EXPR_MAX_TEXT + 1);
	char quoted[EXCERPT];
	if (len > AX_EXPR_MAX_TEXT)
		return ax_errf(err, errlen, AX_EINVAL,
			       "expression \"%s\": longer than %d bytes "
			       "(split it up)",
			       excerpt(text, len, quoted), AX_EXPR_MAX_TEXT);
	struct ax_expr *e = expr_new(text, len);
	struct parser p = {.e = e, .s = text, .err = err, .errlen = errlen};
	int rc = e ? lex(&p) : AX_ENOMEM;
	if (!rc)
		rc = parse_cond(&p, &e->root);
	if (!rc && p.tok != T_END)
		rc = unexpected(&p, "an operator or the end");
	if (rc == AX_ENOMEM)
		ax_errf(err, errlen, rc, "expression \"%s\": out of memory",
			excerpt(text, len, quoted));
	if (rc) {
		ax_expr_free(e);
		return rc;
	}
	*out = e;
	return 0;
}

/* ---- the evaluator ----------------------------------------------------- */

/* What an arithmetic step says. */
enum status { S_OK, S_OVERFLOW, S_DIVZERO, S_SHIFT, S_DOMAIN };

struct eval {
	const struct ax_expr *e;
	ax_expr_lookup_fn lookup;
	void *ctx;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3))) static int fail(struct eval *ev,
						      const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vfail(ev->e->text, ev->err, ev->errlen, fmt, ap);
	va_end(ap);
	return rc;
}

/* Index of the ')' matching the '(' at s[at] (the text parsed). */
static size_t closing(const char *s, size_t at)
{
	int depth = 0;
	for (size_t i = at;; i++) {
		depth += (s[i] == '(') - (s[i] == ')');
		if (depth == 0)
			return i;
	}
}

/* Node i's text without parentheses around the whole of it. */
static const char *node_text(const struct ax_expr *e, int i, char *buf)
{
	size_t a = e->node[i].start, b = e->node[i].end;
	while (e->text[a] == '(' && closing(e->text, a) == b - 1) {
		for (a++, b--; is_space(e->text[a]); a++)
			;
		while (is_space(e->text[b - 1]))
			b--;
	}
	return excerpt(e->text + a, b - a, buf);
}

/* "tile is 0", "the divisor is 0" (a number), ""b - b" is 0". */
static const char *describe(const struct eval *ev, int i, const char *role,
			    int64_t v, char *buf, size_t len)
{
	const struct node *n = &ev->e->node[i];
	char text[EXCERPT];
	if (n->kind == K_VAR)
		snprintf(buf, len, "%s is %lld", ev->e->var[n->v],
			 (long long)v);
	else if (n->kind == K_NUM)
		snprintf(buf, len, "%s is %lld", role, (long long)v);
	else
		snprintf(buf, len, "\"%s\" is %lld", node_text(ev->e, i, text),
			 (long long)v);
	return buf;
}

/* The message of status s at node n, whose operand kid had value v. */
static int fail_status(struct eval *ev, const struct node *n, int s, int kid,
		       int64_t v)
{
	char what[EXCERPT + 64];
	if (s == S_OVERFLOW)
		return fail(ev,
			    "integer overflow in \"%s\" (values are 64-bit: "
			    "-2^63 to 2^63 - 1)",
			    node_text(ev->e, (int)(n - ev->e->node), what));
	if (s == S_DIVZERO)
		return fail(
		    ev, "division by zero (%s)",
		    describe(ev, kid, "the divisor", v, what, sizeof(what)));
	if (s == S_SHIFT)
		return fail(
		    ev,
		    "shift count out of range (%s; it must be 0 "
		    "to 62)",
		    describe(ev, kid, "the count", v, what, sizeof(what)));
	return fail(ev, "%s needs a positive %s (%s)", fn_names[n->v],
		    n->v == F_LOG2 ? "argument" : "multiple",
		    describe(ev, kid, "it", v, what, sizeof(what)));
}

static int divide(enum tok op, int64_t a, int64_t b, int64_t *r)
{
	if (b == 0)
		return S_DIVZERO;
	if (b == -1) { /* INT64_MIN / -1 overflows; INT64_MIN % -1 is 0 */
		*r = 0;
		return op == T_MOD || !__builtin_sub_overflow(0, a, r)
			   ? S_OK
			   : S_OVERFLOW;
	}
	*r = op == T_DIV ? a / b : a % b;
	return S_OK;
}

static int shift(enum tok op, int64_t a, int64_t b, int64_t *r)
{
	if (b < 0 || b > 62)
		return S_SHIFT;
	if (op == T_SHR) {
		*r = a >> b; /* arithmetic with GCC and clang */
		return S_OK;
	}
	return __builtin_mul_overflow(a, (int64_t)1 << b, r) ? S_OVERFLOW
							     : S_OK;
}

/* The operators that never fail. */
static int64_t relate(enum tok op, int64_t a, int64_t b)
{
	switch (op) {
	case T_LT:
		return a < b;
	case T_LE:
		return a <= b;
	case T_GT:
		return a > b;
	case T_GE:
		return a >= b;
	case T_EQ:
		return a == b;
	case T_NE:
		return a != b;
	case T_BAND:
		return a & b;
	case T_XOR:
		return a ^ b;
	default:
		return a | b;
	}
}

static int arith(enum tok op, int64_t a, int64_t b, int64_t *r)
{
	switch (op) {
	case T_MUL:
		return __builtin_mul_overflow(a, b, r) ? S_OVERFLOW : S_OK;
	case T_ADD:
		return __builtin_add_overflow(a, b, r) ? S_OVERFLOW : S_OK;
	case T_SUB:
		return __builtin_sub_overflow(a, b, r) ? S_OVERFLOW : S_OK;
	case T_DIV:
	case T_MOD:
		return divide(op, a, b, r);
	case T_SHL:
	case T_SHR:
		return shift(op, a, b, r);
	default:
		*r = relate(op, a, b);
		return S_OK;
	}
}

/* a / b rounded toward plus infinity. */
static int ceil_div(int64_t a, int64_t b, int64_t *r)
{
	int s = divide(T_DIV, a, b, r);
	if (s == S_OK && b != -1)
		*r += a % b != 0 && (a % b < 0) == (b < 0);
	return s;
}

/* The smallest multiple of b (> 0) that is >= a. */
static int round_up(int64_t a, int64_t b, int64_t *r)
{
	int64_t q;
	if (b <= 0)
		return S_DOMAIN;
	ceil_div(a, b, &q);
	return __builtin_mul_overflow(q, b, r) ? S_OVERFLOW : S_OK;
}

/* Function f of a; *bad gets the index of the argument at fault. */
static int call(int f, const int64_t *a, int64_t *r, int *bad)
{
	*bad = f == F_CEIL_DIV || f == F_ROUND_UP;
	switch (f) {
	case F_MIN:
		*r = a[0] < a[1] ? a[0] : a[1];
		return S_OK;
	case F_MAX:
		*r = a[0] > a[1] ? a[0] : a[1];
		return S_OK;
	case F_CEIL_DIV:
		return ceil_div(a[0], a[1], r);
	case F_ROUND_UP:
		return round_up(a[0], a[1], r);
	case F_ABS:
		*r = a[0] == INT64_MIN ? 0 : a[0] < 0 ? -a[0] : a[0];
		return a[0] == INT64_MIN ? S_OVERFLOW : S_OK;
	case F_LOG2:
		*r = a[0] > 0 ? 63 - __builtin_clzll((uint64_t)a[0]) : 0;
		return a[0] > 0 ? S_OK : S_DOMAIN;
	default:
		*r = a[0] > 0 && (a[0] & (a[0] - 1)) == 0;
		return S_OK;
	}
}

static int eval(struct eval *ev, int i, int64_t *out);

static int eval_var(struct eval *ev, const struct node *n, int64_t *out)
{
	const char *name = ev->e->var[n->v];
	if (!ev->lookup || ev->lookup(ev->ctx, name, out))
		return fail(ev, "unknown variable \"%s\"", name);
	return 0;
}

static int eval_unary(struct eval *ev, const struct node *n, int64_t *out)
{
	int64_t a;
	int rc = eval(ev, n->kid[0], &a);
	if (rc)
		return rc;
	*out = n->op == T_NOT ? !a : n->op == T_TILDE ? ~a : a;
	if (n->op == T_SUB && __builtin_sub_overflow(0, a, out))
		return fail_status(ev, n, S_OVERFLOW, n->kid[0], a);
	return 0;
}

/* && and || evaluate their right side only when the left one leaves the
 * answer open: `b != 0 && a / b > 1` is 0, not an error, when b is 0. */
static int eval_binary(struct eval *ev, const struct node *n, int64_t *out)
{
	int64_t a, b;
	bool logic = n->op == T_LAND || n->op == T_LOR;
	int rc = eval(ev, n->kid[0], &a);
	if (rc)
		return rc;
	if (logic && (a != 0) == (n->op == T_LOR)) {
		*out = a != 0;
		return 0;
	}
	if ((rc = eval(ev, n->kid[1], &b)))
		return rc;
	if (logic) {
		*out = b != 0;
		return 0;
	}
	int s = arith(n->op, a, b, out);
	return s ? fail_status(ev, n, s, n->kid[1], b) : 0;
}

static int eval_cond(struct eval *ev, const struct node *n, int64_t *out)
{
	int64_t c;
	int rc = eval(ev, n->kid[0], &c);
	return rc ? rc : eval(ev, n->kid[c ? 1 : 2], out);
}

static int eval_call(struct eval *ev, const struct node *n, int64_t *out)
{
	int64_t a[2] = {0, 0};
	int rc, bad, f = (int)n->v;
	for (int k = 0; k < fn_args[f]; k++)
		if ((rc = eval(ev, n->kid[k], &a[k])))
			return rc;
	int s = call(f, a, out, &bad);
	return s ? fail_status(ev, n, s, n->kid[bad], a[bad]) : 0;
}

static int eval(struct eval *ev, int i, int64_t *out)
{
	const struct node *n = &ev->e->node[i];
	switch (n->kind) {
	case K_NUM:
		*out = n->v;
		return 0;
	case K_VAR:
		return eval_var(ev, n, out);
	case K_UNARY:
		return eval_unary(ev, n, out);
	case K_BINARY:
		return eval_binary(ev, n, out);
	case K_COND:
		return eval_cond(ev, n, out);
	default:
		return eval_call(ev, n, out);
	}
}

int ax_expr_eval(const struct ax_expr *e, ax_expr_lookup_fn lookup, void *ctx,
		 int64_t *out, char *err, size_t errlen)
{
	struct eval ev = {e, lookup, ctx, err, errlen};
	int64_t v;
	int rc = eval(&ev, e->root, &v);
	if (!rc)
		*out = v;
	return rc;
}

const char *ax_expr_text(const struct ax_expr *e) { return e->text; }

int ax_expr_each_var(const struct ax_expr *e,
		     int (*fn)(void *ctx, const char *name), void *ctx)
{
	for (int i = 0; i < e->n_var; i++) {
		int rc = fn(ctx, e->var[i]);
		if (rc)
			return rc;
	}
	return 0;
}

void ax_expr_free(struct ax_expr *e)
{
	if (!e)
		return;
	free(e->text);
	free(e->node);
	free(e->var);
	free(e);
}
