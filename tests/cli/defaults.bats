#!/usr/bin/env bats
# Per-device defaults (configs/defaults.yaml): which entry applies, that
# runs and tuning take it, that the user's values win, and that a bad
# file is refused at FILE:LINE:COL.  The only device here is lavapipe, so
# the other classes are exercised by entries written for lavapipe's own
# ids in a private config folder (AXBENCH_CONFIG_DIR).
load helper

setup() {
	ax_setup
	CFG="$BATS_TEST_TMPDIR/configs"
	mkdir -p "$CFG"
	cp configs/*.yaml "$CFG/"
}

GEMM=(-p m=64 -p n=64 -p k=64)

# An entry for lavapipe's vendor and type (two keys: it beats the
# file's `device_type: cpu` entry) with tiles unlike gemm's own.
add_lavapipe_entry() {
	cat >>"$CFG/defaults.yaml" <<'EOF'
  - suite: gemm
    match: {vendor: 0x10005, device_type: cpu}
    basis: written by tests/cli/defaults.bats
    params: {bm: 64, bn: 64, bk: 16, tm: 8, tn: 8, wg_x: 8, wg_y: 8,
             share: smem, dbuf: true}
EOF
}

@test "suites gemm names the entry the device takes, and why" {
	run "$AX" suites gemm
	assert_success
	assert_output --regexp "Defaults on llvmpipe.*: .*configs/defaults.yaml:[0-9]+, matched by device type cpu"
	assert_output --partial "basis:  measured on lavapipe"
	assert_output --partial "other class: vendor 0x10de"
	assert_output --partial "other class: any device (the generic fallback)"
	run "$AX" suites gemm --json
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)["device_defaults"]
assert d["device"].startswith("llvmpipe"), d
e = d["entry"]
assert e["match"] == "device type cpu" and e["applies"] is True, e
assert e["params"]["share"] == "subgroup" and e["params"]["tm"] == 16, e
assert e["params"]["tex"] is True and e["params"]["mr"] == 1, e
'
}

@test "run takes the device's entry; -p values stay the user's" {
	add_lavapipe_entry
	export AXBENCH_CONFIG_DIR="$CFG"
	run "$AX" suites gemm
	assert_output --partial "matched by vendor 0x10005, device type cpu"
	run "$AX" -v --db "$DB" run gemm "${GEMM[@]}" -p dbuf=false "${FAST[@]}"
	assert_success
	assert_output --regexp "gemm defaults from .*defaults.yaml:[0-9]+ \(vendor 0x10005, device type cpu\)"
	sql "select params_json from result" | python3 -c '
import json, sys
p = json.loads(sys.stdin.read())
assert p["dbuf"] == "false", p                # the user gave it
assert p["share"] == "smem" and p["tm"] == 8 and p["bk"] == 16, p
'
}

@test "a profile's tunables win over the device's entry" {
	add_lavapipe_entry
	export AXBENCH_CONFIG_DIR="$CFG"
	cat >"$BATS_TEST_TMPDIR/p.yaml" <<'EOF'
schema: axbench.profile/v1
suites:
  gemm:
    params: {m: 64, n: 64, k: 64, share: subgroup, tm: 8, tn: 8, bm: 64, bn: 64, bk: 8}
EOF
	run "$AX" --db "$DB" run --config "$BATS_TEST_TMPDIR/p.yaml" "${FAST[@]}"
	assert_success
	sql "select params_json from result" | python3 -c '
import json, sys
p = json.loads(sys.stdin.read())
assert p["share"] == "subgroup" and p["bk"] == 8, p   # the profile
assert p["dbuf"] == "true", p                           # the entry
'
}

@test "an entry the device cannot run falls back to the suite's own defaults" {
	# share=subgroup with wg_x=4: lavapipe needs wg_x a multiple of 8.
	cat >>"$CFG/defaults.yaml" <<'EOF'
  - suite: gemm
    match: {vendor: 0x10005, device_type: cpu}
    basis: written by tests/cli/defaults.bats
    params: {wg_x: 4, wg_y: 16}
EOF
	export AXBENCH_CONFIG_DIR="$CFG"
	run "$AX" --db "$DB" run gemm "${GEMM[@]}" "${FAST[@]}"
	assert_success
	assert_output --partial "gemm: the per-device defaults do not fit this device"
	assert_output --partial "keeping the suite's own defaults"
	sql "select params_json from result" | python3 -c '
import json, sys
p = json.loads(sys.stdin.read())
assert p["wg_x"] == 8 and p["wg_y"] == 8, p
'
	run "$AX" suites gemm --json
	echo "$output" | python3 -c '
import json, sys
e = json.load(sys.stdin)["device_defaults"]["entry"]
assert e["applies"] is False and "wg_x" in e["why_not"], e
'
}

@test "tune measures the device's defaults as its reference" {
	add_lavapipe_entry
	export AXBENCH_CONFIG_DIR="$CFG"
	run "$AX" --db "$DB" tune gemm "${GEMM[@]}" --strategy random \
		--budget 2 --retime 0 --cpu-baseline off
	assert_success
	assert_output --regexp "defaults: .*defaults.yaml:[0-9]+ \(vendor 0x10005, device type cpu\)"
	# The entry as the tool reads it is the one written above ...
	run "$AX" suites gemm --json
	assert_success
	entry=$(echo "$output" | python3 -c '
import json, sys
e = json.load(sys.stdin)["device_defaults"]["entry"]
assert e["match"] == "vendor 0x10005, device type cpu", e
assert e["params"] == {"bm": 64, "bn": 64, "bk": 16, "tm": 8, "tn": 8,
                       "wg_x": 8, "wg_y": 8, "share": "smem",
                       "dbuf": True}, e
print(json.dumps(e["params"]))')
	# ... and the reference, the session's first result with the role
	# "default" (measured before trial 1), ran with every value of it,
	# as did the defaults re-timed at the end; the rest of the point is
	# the shape given and the suite's own defaults.
	sql "select json_object('id', x.id,
		'role', json_extract(x.extra_json, '$.role'),
		'session', json_extract(x.extra_json, '$.tune_session'),
		'params', json(x.params_json))
		from result x order by x.id" | ENTRY="$entry" python3 -c '
import json, os, sys
entry = json.loads(os.environ["ENTRY"])
rows = [json.loads(l) for l in sys.stdin.read().split("\n") if l]
assert len(rows) == 4, rows            # default, 2 trials, default again
defs = [r for r in rows if r["role"] == "default"]
assert [r["id"] for r in defs] == [rows[0]["id"], rows[-1]["id"]], rows
for r in defs:
    p = r["params"]
    assert r["session"] == 1, r
    for k, v in entry.items():
        want = str(v).lower() if isinstance(v, bool) else v
        assert p[k] == want, (k, p[k], want, p)
    assert (p["m"], p["n"], p["k"]) == (64, 64, 64), p
    assert p["vec"] == 4 and p["tex"] == "true", p  # from the suite table
'
	[ "$(sql "select count(*) from trial t join result x
		on x.id = t.result_id where t.session_id = 1
		and json_extract(x.extra_json, '$.role') = 'trial'")" = 2 ]
}

@test "a malformed defaults file is refused at FILE:LINE:COL, exit 2" {
	cat >>"$CFG/defaults.yaml" <<'EOF'
  - suite: gemm
    match: {vendor: 0x10005}
    basis: written by tests/cli/defaults.bats
    params: {m: 64}
EOF
	export AXBENCH_CONFIG_DIR="$CFG"
	line=$(grep -n 'params: {m: 64}' "$CFG/defaults.yaml" | cut -d: -f1)
	run "$AX" --db "$DB" run gemm "${GEMM[@]}" "${FAST[@]}"
	assert_failure 2
	assert_output --partial "defaults.yaml:$line:14: 'm' is not a tunable of suite gemm"
	assert_output --partial "AXBENCH_CONFIG_DIR"
	[ ! -e "$DB" ] || [ "$(sql 'select count(*) from result')" = 0 ]
	run "$AX" suites gemm
	assert_failure 2
}

@test "without a defaults file every suite keeps its own defaults" {
	rm "$CFG/defaults.yaml"
	export AXBENCH_CONFIG_DIR="$CFG"
	run "$AX" suites gemm
	assert_success
	assert_output --partial "the table's (no defaults file)"
	run "$AX" suites gemm --json
	assert_success
	table=$(echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["device_defaults"]["entry"] is None, d["device_defaults"]
print(json.dumps({p["name"]: p["default"] for p in d["params"]
                  if p["kind"] == "tunable"}))')
	# A missing file is no error: -v says so, naming the file looked
	# for, and no entry (of this folder or any other) is taken ...
	run "$AX" -v --db "$DB" run gemm "${GEMM[@]}" "${FAST[@]}" --cpu-baseline off
	assert_success
	assert_output --partial "axbench: no $CFG/defaults.yaml: every suite keeps its own defaults"
	refute_output --partial "defaults from"
	refute_output --partial "per-device defaults"
	# ... and the result ran with every tunable at the suite's own
	# default (the table `suites gemm` prints).
	sql "select params_json from result" | TABLE="$table" python3 -c '
import json, os, sys
table = json.loads(os.environ["TABLE"])
p = json.loads(sys.stdin.read())
assert len(table) >= 10, table
for k, v in table.items():
    want = str(v).lower() if isinstance(v, bool) else v
    assert p[k] == want, (k, p[k], want, p)
'
	# Without -v nothing is said about it.
	run "$AX" --db "$DB" run gemm "${GEMM[@]}" "${FAST[@]}" --cpu-baseline off
	assert_success
	refute_output --partial "defaults.yaml"
}
