#!/usr/bin/env bats
# Issue 11, "what a new user following the README hit": sweeps past a
# device's limits, --dry-run that checks what the run would, one rule for
# ranges, a size question for big plans, duplicate -p keys, and help.
load helper

setup() { ax_setup; }

# lavapipe's maxStorageBufferRange is 128 MiB: size=256M is beyond it.
@test "a sweep's points beyond the device's limits are skipped with the reason" {
	run "$AX" --db "$DB" run bandwidth -p op=read -p size=64K,256M "${FAST[@]}"
	assert_success
	assert_output --partial "skipping bandwidth op=read size=256M"
	assert_output --partial "maxStorageBufferRange"
	[ "$(sql "select count(*) from result where status='ok'")" -eq 1 ]
}

@test "a single explicit point beyond the device's limits stays an error" {
	run "$AX" --db "$DB" run bandwidth -p op=read -p size=256M "${FAST[@]}"
	assert_failure 2
	assert_output --partial "maxStorageBufferRange"
	assert_output --partial "asked for alone"
	[ ! -e "$DB" ]
}

@test "--skip-invalid is still accepted (the default now)" {
	run "$AX" --db "$DB" run bandwidth -p op=read -p size=64K,256M --skip-invalid --dry-run
	assert_success
	assert_output --partial "1 case on"
}

@test "--dry-run --profile full lists what is skipped and why, measures nothing" {
	run "$AX" --db "$DB" run --profile full --dry-run
	assert_success
	assert_output --regexp 'bandwidth +op=read size=256M  skip: .*configs/full.yaml:[0-9]+:[0-9]+: .*maxStorageBufferRange'
	assert_output --regexp '[0-9]+ cases on .*, [0-9]+ skipped'
	[ ! -e "$DB" ]
}

@test "--dry-run runs the suite's check: an impossible gemm point, exit 2" {
	run "$AX" --db "$DB" run gemm -p bm=64 --dry-run
	assert_failure 2
	assert_output --partial "(bm/tm)*(bn/tn)"
	assert_output --partial "wg_x*wg_y"
	[ ! -e "$DB" ]
}

@test "--dry-run names FILE:LINE:COL of a profile's impossible case" {
	f="$BATS_TEST_TMPDIR/bad.yaml"
	printf 'schema: axbench.profile/v1\nsuites:\n  gemm:\n    cases:\n      - {m: 64}\n      - {m: 64, bm: 64}\n' >"$f"
	run "$AX" --db "$DB" run --config "$f" --dry-run
	assert_failure 2
	assert_output --partial "$f:6:9: gemm m=64"
	assert_output --partial "must be equal"
	# A rule no device meets is an error even inside a sweep.
	printf 'schema: axbench.profile/v1\nsuites:\n  gemm:\n    params: {bm: 64, m: [64, 128]}\n' >"$f"
	run "$AX" --db "$DB" run --config "$f" --dry-run
	assert_failure 2
	assert_output --partial "$f:4:13: gemm m=64"
}

@test "suites gemm documents the blocking constraint" {
	run "$AX" suites gemm
	assert_success
	assert_output --partial "(bm/tm)*(bn/tn) = wg_x*wg_y"
}

@test "--dry-run --tuned shows the tuned parameters that would be used" {
	"$AX" --db "$DB" run bandwidth -p op=copy -p size=64K -p wg=64,256 "${FAST[@]}" >/dev/null
	"$AX" --db "$DB" export -o "$BATS_TEST_TMPDIR/tuned.yaml"
	run "$AX" --db "$DB" run bandwidth -p op=copy -p size=64K --tuned "$BATS_TEST_TMPDIR/tuned.yaml" --dry-run
	assert_success
	# whether wg=64 beat the defaults is this machine's noise: either
	# way the label says which (hardening_export.bats makes it certain)
	assert_output --regexp 'bandwidth +op=copy size=64K.*  (tuned: .*wg=64|defaults \(no tuned point beat them\): .*wg=256)'
	assert_output --regexp ', (1 with tuned parameters|0 with tuned parameters, 1 with the defaults)'
}

@test "a range doubles for every integer parameter; :STEP and :xF step it" {
	run "$AX" --db "$DB" run gemm -p m=64..1024 --dry-run
	assert_success
	assert_output --partial "5 cases"
	run "$AX" --db "$DB" run gemm -p m=64..1024:64 --dry-run
	assert_success
	assert_output --partial "16 cases"
	assert_output --partial "m=192 "
	run "$AX" --db "$DB" run gemm -p m=64..1024:x4 --dry-run
	assert_success
	assert_output --partial "3 cases"
	run "$AX" --db "$DB" run bandwidth -p op=read -p size=4K..64M --dry-run
	assert_success
	assert_output --partial "15 cases"
}

@test "bad ranges name the rule and the fix" {
	run "$AX" --db "$DB" run gemm -p bm=4..256:4 --dry-run
	assert_failure 2
	assert_output --partial "bm must be a power of two"
	assert_output --partial "got 12"
	run "$AX" --db "$DB" run gemm -p m=64..1024:x1 --dry-run
	assert_failure 2
	assert_output --partial "factor"
	run "$AX" --db "$DB" run gemm -p m=64..1024:0 --dry-run
	assert_failure 2
	assert_output --partial "step"
	run "$AX" --db "$DB" run gemm -p m=1024..64 --dry-run
	assert_failure 2
	assert_output --partial "low end first"
}

@test "more than 1000 cases off a terminal: refused, naming count, cap and fix" {
	run "$AX" --db "$DB" run gemm -p m=1..1100:1 "${FAST[@]}" </dev/null
	assert_failure 2
	assert_output --partial "1100 cases"
	assert_output --partial "1000"
	assert_output --partial "--yes"
	[ ! -e "$DB" ]
	# --dry-run measures nothing, so it lists them without asking.
	run "$AX" --db "$DB" run gemm -p m=1..1100:1 --dry-run </dev/null
	assert_success
	assert_output --partial "1100 cases"
}

@test "past the hard cap of 10000 cases even --yes is refused" {
	run "$AX" --db "$DB" run gemm -p m=1..4000:1 -p n=1..4:1 --yes "${FAST[@]}"
	assert_failure 2
	assert_output --partial "10000 cases"
	[ ! -e "$DB" ]
}

@test "a -p key given twice is refused, naming the key and both values" {
	run "$AX" --db "$DB" run bandwidth -p size=64K -p op=read -p size=128K --dry-run
	assert_failure 2
	assert_output --partial "-p size is given twice (64K and 128K)"
	[ ! -e "$DB" ]
	# tune too, and it never drops a -p past its limit
	run "$AX" --db "$DB" tune bandwidth -p size=64K -p size=128K --budget 2
	assert_failure 2
	assert_output --partial "-p size is given twice (64K and 128K)"
	many=()
	for i in $(seq 33); do many+=(-p "op=copy"); done
	run "$AX" --db "$DB" tune bandwidth "${many[@]}" --budget 2
	assert_failure 2
	assert_output --partial "at most 32 -p options"
	[ ! -e "$DB" ]
}

# Commands listed by --help (help itself included).
commands() { "$AX" --help | awk '/^Commands:/{f=1;next} /^$/{f=0} f{print $1}'; }

@test "every command's help shows at least two examples of itself" {
	for c in $(commands); do
		run "$AX" help "$c"
		assert_success
		n=$(printf '%s\n' "$output" | awk '/^Examples:/{f=1;next} /^$/{f=0} f' |
			grep -c "^  axbench $c\b" || true)
		[ "$n" -ge 2 ] || { echo "help $c shows $n examples"; return 1; }
	done
}

@test "every option that takes a value says its default, or that it is required" {
	for c in $(commands); do
		run "$AX" help "$c"
		missing=$(printf '%s\n' "$output" | awk '/^(Options|Global options):/{f=1;next} /^$/{f=0} f' |
			grep -E '^  (-., )?    --|^  -., --' | grep -E -- '--[a-z-]+ [A-Z|a-z]' | grep -vE 'default|required' || true)
		[ -z "$missing" ] || { echo "help $c: no default in: $missing"; return 1; }
	done
}

@test "help help works" {
	run "$AX" help help
	assert_success
	assert_output --partial "usage: axbench help [COMMAND]"
	assert_output --partial "Examples:"
}

@test "did you mean: mistyped commands, suites, options and values" {
	run "$AX" rnu
	assert_failure 2
	assert_output --partial "no command 'rnu'; did you mean 'run'?"
	run "$AX" help hlep
	assert_failure 2
	assert_output --partial "did you mean 'help'?"
	run "$AX" suites bandwith
	assert_failure 2
	assert_output --partial "did you mean 'bandwidth'?"
	run "$AX" --db "$DB" run gemmm --dry-run
	assert_failure 2
	assert_output --partial "did you mean 'gemm'?"
	run "$AX" run --dryrun
	assert_failure 2
	assert_output --partial "did you mean '--dry-run'?"
	run "$AX" --db "$DB" run bandwidth -p sise=4K --dry-run
	assert_failure 2
	assert_output --partial "did you mean 'size'?"
	run "$AX" tune gemm --strategy rando
	assert_failure 2
	assert_output --partial "did you mean 'random'?"
	# Nothing near: no guess.
	run "$AX" frobnicate
	assert_failure 2
	refute_output --partial "did you mean"
}

@test "make run says 'report written' once: the report command says it" {
	run make -n run
	assert_success
	refute_output --partial 'echo "report written'
	assert_output --partial "./axbench report -o axbench-report.html"
	"$AX" --db "$DB" run bandwidth -p op=read -p size=4K "${FAST[@]}" >/dev/null
	run "$AX" --db "$DB" report -o "$BATS_TEST_TMPDIR/r.html"
	assert_success
	[ "$(grep -c 'written to' <<<"$output")" -eq 1 ]
}

@test "more than 1000 cases on a terminal: asked, and 'n' starts nothing" {
	command -v script >/dev/null || skip "script(1) is needed for a terminal"
	run bash -c "printf 'n\n' | script -qec '$AX --db $DB run gemm -p m=1..1100:1' /dev/null"
	assert_output --partial "the plan has 1100 cases (more than 1000); run them all? [y/N]"
	assert_output --partial "not started"
	[ ! -e "$DB" ]
}

@test "--dry-run also names what the run will store as skipped (a missing feature)" {
	# dtype=f16: kernel=coopmat refuses f32 as a rule on any device
	run "$AX" --db "$DB" run gemm -p m=64 -p dtype=f16 -p kernel=tiled,coopmat --dry-run
	assert_success
	assert_output --regexp 'kernel=coopmat  skip \(stored as skipped\): .*cooperative'
	assert_output --partial "2 cases on"
	assert_output --partial "1 to be stored as skipped"
}

@test "bare run -p (no suite, no profile) is refused, naming both ways to say it; nothing is created" {
	run "$AX" --db "$DB" run -p m=5
	assert_failure 2
	assert_output --partial "-p m=5 names no suite"
	assert_output --partial "axbench run SUITE -p m=5"
	assert_output --partial "--profile quick -p m=5"
	[ ! -e "$DB" ]
	run "$AX" --db "$DB" run --profile quick -p m=5 --dry-run
	assert_success
}
