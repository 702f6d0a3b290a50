# bench/goal.sh - sourced by bench/*.sh: one line per goal, which
# bench/run.sh (make bench) gathers into its summary table.
#
#   bench_goal NAME MEASURED OP LIMIT [UNIT]
#
# OP is >= or <=.  Prints
#   bench_goal|NAME|MEASURED UNIT|OP LIMIT UNIT|VERDICT
# where VERDICT is "met", "short by D UNIT (P %)" (>=), "over by D UNIT
# (P %)" (<=), or "not measured" when MEASURED is empty or not a number.
# Compared unrounded: 0.946 is short of 0.95.  NAME holds no "|".  A goal is printed, never
# asserted: the scripts' exit status stays theirs.
bench_goal() {
	python3 - "$@" <<'PY'
import sys
name, got, op, limit = sys.argv[1:5]
unit = sys.argv[5] if len(sys.argv) > 5 else ""
u = " " + unit if unit else ""
try:
    g = float(got)
except ValueError:
    g = None
lim = float(limit)
if g is None or g != g:
    verdict, shown = "not measured", "n/a"
else:
    shown = "%.4g%s" % (g, u)
    ok = g >= lim if op == ">=" else g <= lim
    d = abs(g - lim)
    pct = " (%.1f %%)" % (100 * d / abs(lim)) if lim else ""
    verdict = "met" if ok else "%s by %.3g%s%s" % (
        "short" if op == ">=" else "over", d, u, pct)
print("bench_goal|%s|%s|%s %s%s|%s" % (name, shown, op, limit, u, verdict))
PY
}
