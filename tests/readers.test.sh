# readers.test.sh: one reader per format.  The same edge cases go to every
# command that reads the format, and each gets one answer: accepted by all
# (exit 0 or 1, never 2) or refused by all (exit 2, the same message), and
# where a schema describes the format, the independent validator agrees.
PY=/usr/bin/python3
D=$ROOT/tests/data/reconcile

# verdict NAME WANT PATTERN CMD...: WANT is "takes" (exit 0 or 1, stderr
# without PATTERN) or "refuses" (exit 2, stderr matching PATTERN).
verdict() {
	_name=$1 _want=$2 _pat=$3
	shift 3
	"$@" >"$TMP/v.out" 2>"$TMP/v.err"
	_rc=$?
	if [ "$_want" = takes ] && [ $_rc != 2 ] && ! grep -Eq -- "$_pat" "$TMP/v.err"; then ok "$_name"
	elif [ "$_want" = refuses ] && [ $_rc = 2 ] && grep -Eq -- "$_pat" "$TMP/v.err"; then ok "$_name"
	else notok "$_name" "want $_want, exit $_rc: $(head -c 300 "$TMP/v.err")"; fi
}

# ---- W-D-L blocks: fit, bound, ladder next, and schemas/blocks.schema.json
cat >spec.json <<'J'
{"kind":"cohort.spec/1","name":"t","as_of":"2026-07-20T00:00:00Z","families":["f"],"conditions":["a"],
 "color":"black","black_penalty":35,
 "ladder":{"block_games":10,"start":1320,"max":3190,"promote":[[0.9,400]],"stop_below":0.35,"max_repeats":1}}
J
blocks() { # blocks NAME BLOCK: a blocks document holding one good block and BLOCK
	printf '{"kind":"cohort.blocks/1","blocks":[{"condition":"a","anchor":1320,"color":"black","w":3,"d":4,"l":3},%s]}' "$2" >"$1.json"
}
row() { # row NAME WANT PATTERN BLOCK
	blocks "$1" "$4"
	verdict "blocks: $1: fit" "$2" "$3" "$COHORT" fit "$1.json"
	verdict "blocks: $1: bound" "$2" "$3" "$COHORT" bound "$1.json"
	verdict "blocks: $1: ladder next" "$2" "$3" "$COHORT" ladder next --spec spec.json --condition a "$1.json"
	if $PY "$ROOT/tests/validate.py" "$ROOT/schemas/blocks.schema.json" "$1.json" >/dev/null 2>&1; then _s=takes; else _s=refuses; fi
	[ "$_s" = "$2" ] && ok "blocks: $1: the schema agrees" || notok "blocks: $1: the schema agrees" "the schema $_s it"
}
row "a good block" takes '"blocks"' '{"condition":"a","anchor":1720,"color":"black","w":5,"d":0,"l":5}'
row "a zero-game block" refuses '"blocks"\[1\]: "w", "d", "l": a block needs at least one game' \
	'{"condition":"a","anchor":1720,"color":"black","w":0,"d":0,"l":0}'
row "an anchor of 1e7" refuses '"blocks"\[1\]: "anchor": expected a number from -100000 to 100000' \
	'{"condition":"a","anchor":1e7,"color":"black","w":1,"d":0,"l":0}'
row "a negative count" refuses '"blocks"\[1\]: "l": expected a whole number' \
	'{"condition":"a","anchor":1720,"color":"black","w":1,"d":0,"l":-1}'
row "a fractional count" refuses '"blocks"\[1\]: "d": expected a whole number' \
	'{"condition":"a","anchor":1720,"color":"black","w":1,"d":0.5,"l":1}'
row "a penalty of 1e308" refuses '"black_penalty": expected a number from -1000 to 1000' \
	'{"condition":"a","anchor":1720,"color":"black","w":1,"d":0,"l":1}],"black_penalty":1e308,"x":[0'

# the spec's penalty: freeze and ladder next read the spec as fit reads a
# blocks document's, with one rule and one message
sed 's/"black_penalty":35/"black_penalty":1e308/' spec.json >pen-spec.json
: >empty.jsonl
verdict "spec: a penalty of 1e308: freeze" refuses '"black_penalty": expected a number from -1000 to 1000' \
	"$COHORT" freeze --spec pen-spec.json empty.jsonl
blocks pen '{"condition":"a","anchor":1720,"color":"black","w":5,"d":0,"l":5}'
verdict "spec: a penalty of 1e308: ladder next" refuses '"black_penalty": expected a number from -1000 to 1000' \
	"$COHORT" ladder next --spec pen-spec.json --condition a pen.json
if $PY "$ROOT/tests/validate.py" "$ROOT/schemas/spec.schema.json" pen-spec.json >/dev/null 2>&1; then
	notok "spec: a penalty of 1e308: the schema agrees" "the schema takes it"
else ok "spec: a penalty of 1e308: the schema agrees"; fi

# ---- RFC 3339 times: a ledger's game (freeze), the spec's cut (freeze),
# a request's time (reconcile), a bundle spec's cut (bundle)
mkdir -p rc && cp "$D"/spec.json "$D"/ledger.jsonl "$D"/requests.jsonl "$D"/billing.csv rc/
"$COHORT" freeze --spec rc/spec.json -o rc/freeze.json rc/ledger.jsonl
timerow() { # timerow NAME WANT TIME
	sed "s/\"started_at\":\"2026-07-20T10:00:00Z\"/\"started_at\":\"$3\"/" rc/ledger.jsonl >t.jsonl
	verdict "time: $1: freeze, a game's start" "$2" 'RFC 3339' "$COHORT" freeze --spec rc/spec.json t.jsonl
	sed "s/\"as_of\": *\"[^\"]*\"/\"as_of\":\"$3\"/" rc/spec.json >t-spec.json
	verdict "time: $1: freeze, the spec's cut" "$2" 'RFC 3339' "$COHORT" freeze --spec t-spec.json rc/ledger.jsonl
	sed "0,/\"ts\":\"[^\"]*\"/s//\"ts\":\"$3\"/" rc/requests.jsonl >t-req.jsonl
	verdict "time: $1: reconcile, a request's time" "$2" 'RFC 3339' "$COHORT" reconcile --freeze rc/freeze.json \
		--ledger rc/ledger.jsonl --requests t-req.jsonl --billing rc/billing.csv
	printf '{"kind":"cohort.bundle-spec/1","name":"t","as_of":"%s","require":["spec"],"items":[{"role":"spec","path":"rc/spec.json"}]}' "$3" >t-bundle.json
	verdict "time: $1: bundle, the bundle's cut" "$2" 'RFC 3339' "$COHORT" bundle --check --spec t-bundle.json
}
timerow "plain UTC" takes 2026-07-20T10:00:00Z
timerow "a leap second" takes 2026-06-30T23:59:60Z
timerow "a +00:00 offset" takes 2026-07-20T10:00:00+00:00
timerow "lowercase t and z" takes 2026-07-20t10:00:00z
timerow "a fraction" takes 2026-07-20T10:00:00.123456Z
timerow "a space for T" refuses '2026-07-20 10:00:00Z'
timerow "no zone" refuses 2026-07-20T10:00:00
timerow "a leap second off the minute's end" refuses 2026-06-30T23:58:60Z

# ---- ledger lines: freeze and reconcile read ledgers with one limit
$PY - rc/ledger.jsonl >long.jsonl <<'P'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
r = json.loads(lines[0]); r["pad"] = "x" * (1 << 20)
print(json.dumps(r, separators=(",", ":")))
print("\n".join(lines[1:]))
P
verdict "lines: a 1 MiB + 1 line: freeze" takes 'line longer' "$COHORT" freeze --spec rc/spec.json long.jsonl
verdict "lines: a 1 MiB + 1 line: reconcile" takes 'line longer' "$COHORT" reconcile --freeze rc/freeze.json \
	--ledger long.jsonl --requests rc/requests.jsonl --billing rc/billing.csv
rm -f long.jsonl

# ---- a confidence level: one rule for fit, bound and ladder simulate
lvl() { # lvl NAME WANT LEVEL
	blocks lv '{"condition":"a","anchor":1720,"color":"black","w":5,"d":0,"l":5}'
	verdict "level: $1: fit" "$2" 'expected a level from 0.001 to 0.999999' "$COHORT" fit --level "$3" lv.json
	verdict "level: $1: bound" "$2" 'expected a level from 0.001 to 0.999999' "$COHORT" bound --level "$3" lv.json
	verdict "level: $1: ladder simulate" "$2" 'expected a level from 0.001 to 0.999999' "$COHORT" ladder simulate \
		--spec spec.json --truth 1500:1500:100 --starts 1320 --reps 2 --seed 1 --level "$3"
}
lvl "0.95" takes 0.95
lvl "0.0001" refuses 0.0001
lvl "1" refuses 1
lvl "0.9999999" refuses 0.9999999
