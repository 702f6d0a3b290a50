/*
 * core/expr.h - integer expressions in user kernel description files.
 *
 * A user kernel's YAML writes buffer sizes, dispatch grids, constraints
 * and work models as expressions over its parameter names and the device
 * limits: "n / tile", "ceil_div(n, tile * rows)", "2 * n * n * 4",
 * "tile % rows == 0 && tile * (tile + 1) * 4 <= max_shared_memory".  They
 * need 64-bit integer arithmetic with C's `/` and `%`, comparisons and
 * logic.  No Debian library does that cleanly: libmatheval computes in
 * floating point and has neither `%` nor comparisons, and tinyexpr (also
 * floating point) is not packaged.  So this is our own small parser,
 * fuzzed like the other readers (tests/fuzz/fuzz_expr.c).
 *
 * The language (docs: what users write):
 *
 * - Numbers: decimal (`4096`) or hexadecimal (`0x1000`), optionally
 *   followed by a binary suffix K, M or G (x 1024, 1024^2, 1024^3; either
 *   case), since sizes are written like `64K`.  A number is 0 to
 *   2^63 - 1 once its suffix is applied; a larger one is an error.  A
 *   decimal number other than 0 does not start with 0 (C would read
 *   `010` as octal 8; here it is refused rather than guessed).
 * - Names `[A-Za-z_][A-Za-z0-9_]*`, at most 63 characters: parameters
 *   and device limits, looked up when the expression is evaluated.  A
 *   function's name is not a variable.
 * - Operators, with C's precedence and associativity, from tightest:
 *     unary  - + ! ~            (right to left)
 *     * / %                     / and % truncate toward zero as in C
 *     + -
 *     << >>                     count 0 to 62; << is multiplication by
 *                               2^count (overflow checked), >> rounds
 *                               toward minus infinity
 *     < <= > >=
 *     == !=
 *     &
 *     ^
 *     |
 *     &&                        short-circuit: `b != 0 && a / b > 1`
 *     ||                        short-circuit
 *     c ? a : b                 (right to left) only the chosen branch
 *                               is evaluated
 *   and parentheses.  Comparisons, `!`, `&&` and `||` give 0 or 1.
 * - Functions: min(a, b), max(a, b), ceil_div(a, b) (a / b rounded toward
 *   plus infinity), round_up(a, b) (the smallest multiple of b that is
 *   >= a; b > 0), abs(a), log2(a) (rounded down; a > 0), is_pow2(a)
 *   (1 when a is a power of two, else 0).
 * - Whitespace (space, tab, newline) anywhere between tokens.
 *
 * All arithmetic is on signed 64-bit integers, checked: a result out of
 * range (INT64_MIN / -1 included) is an error, never a wrapped value;
 * so are division or remainder by zero and a shift count outside 0..62.
 * INT64_MIN % -1 is 0.  Nesting (parentheses, calls, unary operators and
 * ?:) is limited to AX_EXPR_MAX_DEPTH levels so that no input can
 * exhaust the stack.
 */
#ifndef AX_EXPR_H
#define AX_EXPR_H

#include <stddef.h>
#include <stdint.h>

#define AX_EXPR_MAX_TEXT 4096 /* bytes of one expression */
#define AX_EXPR_MAX_NAME 63   /* characters of one name */
#define AX_EXPR_MAX_DEPTH 64  /* nesting levels */

struct ax_expr; /* opaque, immutable after parse */

/*
 * Parse text (at most AX_EXPR_MAX_TEXT bytes) into *out.  A syntax error
 * is AX_EINVAL with err = `expression "TEXT": column C: what is wrong
 * (what was expected)`, C counting bytes from 1; a long TEXT is cut in
 * the middle and control characters are escaped.  AX_ENOMEM when memory
 * runs out.  Unknown functions and wrong argument counts are syntax
 * errors; unknown variables are found by ax_expr_eval.
 */
int ax_expr_parse(const char *text, struct ax_expr **out, char *err,
		  size_t errlen);

/* Look a variable up: return 0 and set *value, or non-zero when the
 * name is unknown. */
typedef int (*ax_expr_lookup_fn)(void *ctx, const char *name, int64_t *value);

/*
 * Evaluate e in int64 into *out, looking variables up through lookup
 * (called once per use).  AX_EINVAL, naming the expression, when a
 * variable is unknown (`expression "n / tilee": unknown variable
 * "tilee"`; the caller may append the known names), on division or
 * remainder by zero (`division by zero (tile is 0)`, or the divisor's
 * text when it is not a plain variable), integer overflow, a shift count
 * out of range, or a function's argument out of its domain.
 */
int ax_expr_eval(const struct ax_expr *e, ax_expr_lookup_fn lookup, void *ctx,
		 int64_t *out, char *err, size_t errlen);

/* The text it was parsed from. */
const char *ax_expr_text(const struct ax_expr *e);

/* Call fn once per distinct variable name the expression uses, in order
 * of first use; stop and return fn's value when it is non-zero (else 0).
 * Function names are not variables. */
int ax_expr_each_var(const struct ax_expr *e,
		     int (*fn)(void *ctx, const char *name), void *ctx);

/* NULL allowed. */
void ax_expr_free(struct ax_expr *e);

#endif
