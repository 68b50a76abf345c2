#!/usr/bin/env bats
# The pictures of lib/plot.h as a browser shows them: svg-demo draws the
# roofline and two heat maps from its sample numbers, python3's XML parser
# reads them, headless Chromium renders them, and the screenshots must show
# the pictures' colours on more than a blank page.  Without chromium (make
# deps installs it) the rendering tests are skipped and say so.

bats_require_minimum_version 1.5.0

setup() {
	tmp="$BATS_TEST_TMPDIR"
	tools="$BATS_TEST_DIRNAME/../tools"
	demo=svg-demo
	[ ! -x "$OPTRACE_TOP/${OPTRACE_VARIANT:-build}/bin/svg-demo" ] || demo="$OPTRACE_TOP/${OPTRACE_VARIANT:-build}/bin/svg-demo"
	mkdir -p "$tmp/out"
	"$demo" "$tmp/out"
}

# render FILE.svg: a screenshot of it in headless Chromium, FILE.png
render() {
	command -v chromium >/dev/null 2>&1 ||
		skip "chromium is not installed (make deps installs it): the pictures are not rendered"
	# its own profile directory, so runs side by side do not meet
	HOME="$tmp" timeout -k 10 600 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$tmp/profile" --window-size=900,1200 --screenshot="${1%.svg}.png" "file://$1" \
		>"$tmp/chromium.log" 2>&1
	[ -s "${1%.svg}.png" ]
}

# shown FILE.png COLOUR...: more than one colour, a share of non-white
# pixels, and each colour given
shown() {
	run python3 "$tools/png-colours" "$@"
	echo "$output"
	[ "$status" -eq 0 ]
	set -- $output
	[ "$2" -gt 1 ]
	[ "$4" -gt $(($6 / 100)) ]
}

@test "the three pictures are well-formed XML with the expected parts" {
	[ "$(ls "$tmp/out")" = "$(printf 'heatmap.svg\nl2.svg\nroofline.svg')" ]
	run python3 - "$tmp/out" <<-'PY'
		import sys, xml.etree.ElementTree as E
		ns = "{http://www.w3.org/2000/svg}"
		d = sys.argv[1]
		r = E.parse(d + "/roofline.svg").getroot()
		texts = [t.text for t in r.iter(ns + "text")]
		print(r.find(ns + "title").text)
		print(len(r.findall(".//" + ns + "circle[@class='point']")))
		print([t for t in texts if t and t.startswith(("memory bound", "compute bound", "latency bound"))][0])
		h = E.parse(d + "/heatmap.svg").getroot()
		print([t.text for t in h.iter(ns + "title")][1:3])
		print(len(E.parse(d + "/l2.svg").getroot().findall(".//" + ns + "rect")))
	PY
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "Roofline, Ascend910B4" ]
	[ "${lines[1]}" -ge 10 ]
	[[ "${lines[2]}" == *"% of "*" peak at "*" ops/byte" ]]
	[ "${lines[3]}" = "['0 cube0, MTE1: 0%', '0 cube0, MTE2: 35.9%']" ]
	# background, 16 x 32 cells, legend bar
	[ "${lines[4]}" -eq $((1 + 16 * 32 + 1)) ]
	grep -q 'a&lt;b&amp;&quot;c&quot;' "$tmp/out/heatmap.svg"
}

@test "the roofline renders in Chromium: roofs and points in their colours" {
	render "$tmp/out/roofline.svg"
	# the first two lines' colours, the compute roof's black
	shown "$tmp/out/roofline.png" 1f77b4 ff7f0e 000000
}

@test "the heat map renders in Chromium: the scale's ends and a missing value" {
	render "$tmp/out/heatmap.svg"
	shown "$tmp/out/heatmap.png" ffffcc 800026 e0e0e0
}

@test "the L2 cache-set map renders in Chromium" {
	render "$tmp/out/l2.svg"
	shown "$tmp/out/l2.png" 800026
}

@test "a blank page is not taken for a picture" {
	render "$tmp/out/roofline.svg"
	printf '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>\n' >"$tmp/blank.svg"
	render "$tmp/blank.svg"
	run -1 shown "$tmp/blank.png"
}

@test "svg-demo: an unwritable directory is an I/O error, nothing written" {
	run -4 "$demo" "$tmp/none/such"
	[[ "$output" == "svg-demo: $tmp/none/such/roofline.svg: "* ]]
	[ ! -e "$tmp/none" ]
	run -2 "$demo"
	[[ "$output" == usage:* ]]
}

# memory.svg of a 310P and an Ascend950 mix run (board-metrics on
# board-synth's dumps): their own memory paths as columns, parsed and
# rendered
@test "memory.svg of 310P and Ascend950: their memory paths, rendered in Chromium" {
	bin="$OPTRACE_TOP/${OPTRACE_VARIANT:-build}/bin"
	synth="$OPTRACE_TOP/build/bin/board-synth"     # a test helper of build/bin only
	"$synth" -b 4 310P "$tmp/p"
	"$synth" -b 2 A5 "$tmp/a"
	"$bin/dump-split" "$tmp/p" | "$bin/board-metrics" -q -o "$tmp/mp"
	"$bin/dump-split" "$tmp/a" | "$bin/board-metrics" -q -o "$tmp/ma"
	python3 - "$tmp/mp/memory.svg" "$tmp/ma/memory.svg" <<'PY'
import sys, xml.etree.ElementTree as E
ns = '{http://www.w3.org/2000/svg}'
def texts(f):
    s = E.parse(f).getroot()
    return [t.text for t in s.iter(ns + 'text')], [t.text for t in s.iter(ns + 'title') if t.text and ', ' in t.text]
l, tips = texts(sys.argv[1])
for x in ('AiCore', 'L2/UB -> L1', 'L2/L1 -> L0B', 'Vector -> L0C', 'L0C -> Vector', 'L2/L1 -> UB'):
    assert x in l, (x, l)
assert 'AiCore, GM -> L2: 40.8 GB/s' in tips, tips
l, tips = texts(sys.argv[2])
for x in ('0 cube0', '1 vector1', 'L0C -> FIXP', 'FIXP -> UB', 'L1 -> UB', 'UB -> L1', 'L2 -> DCache', 'DCache -> Vector'):
    assert x in l, (x, l)
# vector1's paths in vector0's columns, on vector1's row
assert '1 vector1, FIXP -> UB: 12 GB/s' in tips and '0 cube0, FIXP -> UB: no value' in tips, tips
PY
	render "$tmp/mp/memory.svg"
	shown "$tmp/mp/memory.png" ffffcc 800026
	render "$tmp/ma/memory.svg"
	shown "$tmp/ma/memory.png" ffffcc 800026 e0e0e0
}
