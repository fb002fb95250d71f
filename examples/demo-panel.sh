# demo-panel.sh: the engine panel (examples/engine-panel), sourced by
# examples/demo.sh with $COHORT and $DEMO.  Each replication is frozen with
# its games, the candidate manifest and its decision log; then its paired
# endpoints and its joint fit.  The committed data are used as they are: no
# engine runs here.
P=$DEMO/engine-panel
E=$ROOT/examples/engine-panel
rm -rf "$P"
mkdir -p "$P"
cp "$E"/*.json "$E"/*.jsonl "$P/"
for r in r1 r2; do
	gzip -dc "$E/ledger-$r.jsonl.gz" >"$P/ledger-$r.jsonl"
	gzip -dc "$E/decisions-$r.jsonl.gz" >"$P/decisions-$r.jsonl"
done
cd "$P"

banner "engine panel: the candidate manifest"
"$COHORT" candidates verify --format table candidates.jsonl | tail -n 1
printf 'prereg.json names %s\n' \
	"$(sed 's/.*"candidates":"\([^"]*\)".*/\1/' prereg.json)"

for r in r1 r2; do
	banner "engine panel $r: freeze the games, the manifest and the decisions"
	"$COHORT" freeze --spec spec-$r.json --candidates candidates.jsonl \
		--decisions decisions-$r.jsonl --store store-$r -o freeze-$r.json ledger-$r.jsonl
	printf 'freeze-%s.json: %s\n' $r "$("$COHORT" canon --id freeze-$r.json)"
	# the prereg's bootstrap (2,000 replicates by opening, seed 1) and its
	# blunder threshold (300 cp)
	"$COHORT" paired --store store-$r --replicates 2000 --seed 1 --blunder-cp 300 \
		-o paired-$r.json freeze-$r.json
	"$COHORT" fit -o fit-$r.json freeze-$r.json
	"$COHORT" verify --store store-$r --format table freeze-$r.json paired-$r.json \
		fit-$r.json | tail -n 1
	banner "engine panel $r: paired endpoints (regret in cp, 95% block-bootstrap intervals)"
	"$COHORT" paired --store store-$r --replicates 2000 --seed 1 --blunder-cp 300 \
		--format table freeze-$r.json
	banner "engine panel $r: joint Davidson ratings of the games"
	"$COHORT" fit --format table freeze-$r.json
done

# ---- the fingerprint chain goes here ----
# prereg (check prereg.json, its identity), freeze --prereg of each
# replication, fingerprint over freeze-r1.json and freeze-r2.json, the
# distance table, and gates A to D with their verdicts.
