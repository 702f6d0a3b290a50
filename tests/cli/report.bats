#!/usr/bin/env bats
# axbench report: one offline HTML file from real runs of two device
# configurations; valid HTML, escaped database strings, and it renders in
# headless Chromium with no console message and no network request.
load helper
bats_require_minimum_version 1.5.0

EVIL='<script>alert(1)</script>'

setup() {
	ax_setup
	AX="${AXBENCH_BIN:-$AX}"
	T="$BATS_TEST_TMPDIR"
}

# Two runs; the second is moved to a second device row (a copy of the
# first with another fingerprint and a hostile name), as a database merged
# from two machines would hold.
two_devices() {
	run "$AX" --db "$DB" run bandwidth -p op=copy -p size=16K,64K,256K \
		"${FAST[@]}"
	assert_success
	run "$AX" --db "$DB" run bandwidth transfer -p op=copy \
		-p size=16K,64K,256K -p chunk=64K,256K -p total=1M "${FAST[@]}"
	assert_success
	sql "INSERT INTO device (uuid, fingerprint, name, vendor, type,
		driver_name, driver_info, api_version, properties_json,
		created_at, updated_at)
	     SELECT uuid || '-2', fingerprint || '-2', '$EVIL', vendor, type,
		driver_name, driver_info, api_version, properties_json,
		created_at, updated_at FROM device WHERE id = 1;
	     UPDATE run SET device_id = (SELECT max(id) FROM device)
		WHERE id = 2;"
}

@test "report from two device configurations: escaped, data scripts only" {
	two_devices
	run "$AX" --db "$DB" report -o "$T/r.html"
	assert_success
	[ -s "$T/r.html" ]
	run ! grep -qF "$EVIL" "$T/r.html"
	grep -qF '&lt;script&gt;alert(1)&lt;/script&gt;' "$T/r.html"
	grep -qF '\u003cscript\u003ealert(1)\u003c/script\u003e' "$T/r.html"
	# Two data blocks, never a script that runs.
	[ "$(grep -o '<script' "$T/r.html" | wc -l)" = 2 ]
	[ "$(grep -o '<script type="application/json" id="axbench-[a-z]*">' \
		"$T/r.html" | wc -l)" = 2 ]
	grep -qF "default-src 'none'" "$T/r.html"
	# Nothing is loaded from anywhere: no src, no external link.
	run ! grep -qE ' src=|href="(https?:)?//|@import|url\(' "$T/r.html"
	# Both devices are in the system table; sections with data drawn.
	grep -qF 'Bandwidth against working-set size' "$T/r.html"
	grep -qF 'Transfer rate against chunk size' "$T/r.html"
	grep -qF '(higher is better)' "$T/r.html"
	grep -qF 'No tuning sessions' "$T/r.html"
	# The embedded data is JSON holding every result.
	run python3 - "$T/r.html" <<-'EOF'
	import json, re, sys
	html = open(sys.argv[1]).read()
	m = re.search(r'<script type="application/json" id="axbench-data">'
	              r'(.*?)</script>', html, re.S)
	d = json.loads(m.group(1))
	names = {r["device"]["name"] for r in d["results"]}
	print(len(d["results"]), sorted(names)[0])
	EOF
	assert_success
	assert_output "8 $EVIL"
}

@test "the HTML passes tidy with no errors or warnings" {
	command -v tidy >/dev/null || skip "tidy is not installed (Debian package tidy)"
	two_devices
	run "$AX" --db "$DB" report -o "$T/r.html"
	assert_success
	run tidy -errors -q "$T/r.html"
	assert_success
	assert_output ""
}

# Distinct colours and the share of non-white pixels of a PNG (RGB/RGBA,
# 8 bit), decoded with zlib alone.
png_stats() {
	python3 - "$1" <<-'EOF'
	import struct, sys, zlib
	d = open(sys.argv[1], "rb").read()
	assert d[:8] == b"\x89PNG\r\n\x1a\n"
	pos, idat = 8, b""
	while pos < len(d):
	    n, t = struct.unpack(">I4s", d[pos:pos + 8])
	    if t == b"IHDR":
	        w, h, depth, ct = struct.unpack(">IIBB", d[pos + 8:pos + 18])
	    elif t == b"IDAT":
	        idat += d[pos + 8:pos + 8 + n]
	    pos += 12 + n
	assert depth == 8 and ct in (2, 6)
	bpp = 3 if ct == 2 else 4
	raw, stride = zlib.decompress(idat), w * bpp
	prev, colours, ink, i = bytearray(stride), set(), 0, 0
	for y in range(h):
	    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
	    i += 1 + stride
	    for x in range(stride):
	        a = line[x - bpp] if x >= bpp else 0
	        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
	        if f == 1: line[x] = (line[x] + a) & 255
	        elif f == 2: line[x] = (line[x] + b) & 255
	        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
	        elif f == 4:
	            p = a + b - c
	            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
	            line[x] = (line[x] + (a if pa <= pb and pa <= pc
	                                  else b if pb <= pc else c)) & 255
	    if y % 4 == 0:
	        for x in range(0, stride, bpp * 2):
	            px = bytes(line[x:x + 3])
	            colours.add(px)
	            ink += px != b"\xff\xff\xff"
	    prev = line
	print(len(colours), round(100.0 * ink / (h // 4 * w // 2), 2))
	EOF
}

@test "it renders in headless Chromium: no console message, no request" {
	command -v chromium >/dev/null ||
		skip "chromium is not installed (Debian package chromium)"
	two_devices
	run "$AX" --db "$DB" report -o "$T/r.html"
	assert_success
	run timeout 600 chromium --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update \
		--disable-sync --no-first-run --user-data-dir="$T/profile" \
		--enable-logging=stderr --v=0 --screenshot="$T/shot.png" \
		--window-size=1200,2000 "file://$T/r.html"
	assert_success
	# Page console messages (CSP violations included) are logged as
	# CONSOLE; a blocked or failed load as net:: / ERR_ / Refused.
	refute_output --partial "CONSOLE"
	refute_output --regexp 'net::|ERR_[A-Z_]+|Refused to|blocked'
	[ -s "$T/shot.png" ]
	run png_stats "$T/shot.png"
	assert_success
	read -r colours ink <<<"$output"
	echo "colours=$colours ink%=$ink" >&3
	# Text, table rules and Okabe-Ito bars: many colours, some ink.
	[ "$colours" -ge 8 ]
	python3 -c "import sys; sys.exit(not 1.0 < $ink < 60.0)"
}

@test "--device and --since select; an empty selection says so per section" {
	two_devices
	run "$AX" --db "$DB" report --device llvmpipe -o "$T/one.html"
	assert_success
	run ! grep -qF '&lt;script&gt;' "$T/one.html"
	# A selector that matches nothing is a usage error (issue 11)...
	run "$AX" --db "$DB" report --since 2999-01-01 -o "$T/none.html"
	assert_failure 2
	assert_output --partial "no run or tuning session"
	[ ! -e "$T/none.html" ]
	# ...while a database with nothing in it reports its empty sections.
	cp "$DB" "$T/empty.db"
	sqlite3 "$T/empty.db" "delete from sample; delete from trial;
		delete from tune_session; delete from result;
		delete from baseline; delete from run"
	run "$AX" --db "$T/empty.db" report -o "$T/none.html"
	assert_success
	grep -qF 'No devices in the selected data.' "$T/none.html"
	grep -qF 'No successful results' "$T/none.html"
	grep -qF 'no roofline' "$T/none.html"
	run "$AX" --db "$DB" report --run 1 -o - --title 'A & B'
	assert_success
	assert_output --partial '<title>A &amp; B</title>'
}

@test "bad input exits 2 and leaves no file" {
	run "$AX" --db "$T/none.db" report -o "$T/r.html"
	assert_failure 2
	[ ! -e "$T/r.html" ]
	two_devices
	run "$AX" --db "$DB" report --run soon -o "$T/r.html"
	assert_failure 2
	run "$AX" --db "$DB" report extra -o "$T/r.html"
	assert_failure 2
	[ ! -e "$T/r.html" ]
	run "$AX" --db "$DB" report -o "$T/no/such/dir/r.html"
	assert_failure 5
}

@test "report: % of spec beside each bar; lavapipe is spec unknown, and a specs entry with its PCI ids gives a percentage (product and source escaped)" {
	run "$AX" --db "$DB" run bandwidth -p op=copy -p size=16K "${FAST[@]}"
	assert_success
	run "$AX" --db "$DB" report -o "$T/unknown.html"
	assert_success
	# The bar's tooltip gives the reason; the page says it once for the
	# system, not on every bar.
	grep -q "spec unknown: device not in the specs file" "$T/unknown.html"
	[ "$(grep -o 'Spec unknown for' "$T/unknown.html" | wc -l)" -eq 1 ]
	run ! grep -q "· spec unknown" "$T/unknown.html"
	run ! grep -q "[0-9]% of spec" "$T/unknown.html"
	# A copy of configs/ that lists this device by its own ids (made-up
	# figures: only that a number comes out is checked).
	# -L: in scripts/asan.sh's tree configs/ is a link to the real one
	cp -rL configs "$T/configs"
	"$AX" devices --json | python3 -c '
import json, sys
d = json.load(sys.stdin)[0]
print("""  - name: "test <b>device</b> & co"
    vendor_id: %d
    device_ids: [%d]
    memory_gbps: 100
    source: "made up <i>here</i>"
""" % (d["vendor_id"], d["device_id"]))' >>"$T/configs/specs.yaml"
	AXBENCH_CONFIG_DIR="$T/configs" run "$AX" --db "$DB" report -o "$T/known.html"
	assert_success
	grep -Eq "[0-9]+% of spec" "$T/known.html"
	run ! grep -q "spec unknown:" "$T/known.html"
	grep -q "test &lt;b&gt;device&lt;/b&gt; &amp; co" "$T/known.html"
	run ! grep -q "<b>device</b>" "$T/known.html"
	run ! grep -q "<i>here</i>" "$T/known.html"
}
