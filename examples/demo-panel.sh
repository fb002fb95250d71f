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
"$COHORT" prereg --format table prereg.json | sed -n '/^candidates/p'

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

# The first seed's chain: the preregistration, each replication frozen
# under it (one folder each, its store beside its freeze, as fingerprint
# reads them), the fingerprint of both, the distances, and the four gates
# on the documents each rests on.  A deviation or a gate that does not
# pass is exit 1: printed, never hidden, and the demo goes on.
banner "engine panel: the preregistration"
"$COHORT" prereg --format table prereg.json
for r in r1 r2; do
	mkdir -p $r
	"$COHORT" freeze --prereg prereg.json --spec spec-$r.json --candidates candidates.jsonl \
		--decisions decisions-$r.jsonl --store $r/store -o $r/freeze.json ledger-$r.jsonl ||
		[ $? = 1 ]
	"$COHORT" paired --prereg prereg.json --store $r/store \
		-o $r/paired.json $r/freeze.json
	"$COHORT" fit -o $r/fit.json $r/freeze.json
	gzip -dc "$E/requests-$r.jsonl.gz" | grep -v '"game_id":null' >$r/requests.jsonl
	gzip -dc "$E/billing-$r.csv.gz" >$r/billing-all.csv
	python3 "$E/check.py" --billing-subset $r/requests.jsonl $r/billing-all.csv $r/billing.csv
	"$COHORT" reconcile --freeze $r/freeze.json --ledger ledger-$r.jsonl \
		--requests $r/requests.jsonl --billing $r/billing.csv -o $r/reconcile.json || [ $? = 1 ]
done
banner "engine panel: fingerprints (both replications, 2,000 replicates by opening)"
"$COHORT" fingerprint --prereg prereg.json -o fingerprint.json r1/freeze.json r2/freeze.json
"$COHORT" fingerprint --prereg prereg.json --format table r1/freeze.json r2/freeze.json |
	awk 'NR == 1 || $3 ~ /^(unaided|delta_r\[5\]|recall_unaided|coverage|order_change)$/'
banner "engine panel: distances (d2), test-retest and separation"
"$COHORT" distance -o distance.json fingerprint.json
"$COHORT" distance --format table fingerprint.json
# the prereg registers a heldout split: the fingerprints of the explore
# and of the heldout openings apart (gate C scores p1 across them, gate D
# checks p5 and p6 on the heldout one), and their distances, where one
# family and replication across the two splits is a pair
banner "engine panel: fingerprints of the explore and the heldout openings"
for s in explore heldout; do
	"$COHORT" fingerprint --prereg prereg.json --split $s -o fingerprint-$s.json \
		r1/freeze.json r2/freeze.json
done
"$COHORT" fingerprint --prereg prereg.json --split heldout --format table \
	r1/freeze.json r2/freeze.json | awk 'NR == 1 || $3 ~ /^(delta_r\[5\]|engine_selects)$/'
"$COHORT" distance -o distance-splits.json fingerprint-explore.json fingerprint-heldout.json
"$COHORT" distance --format table fingerprint-explore.json fingerprint-heldout.json |
	sed -n '/^test-retest/,$p'
"$COHORT" candidates verify -o candidates-verify.json candidates.jsonl
banner "engine panel: gates A to D"
for g in A B C D; do
	case $g in
	A) set -- r1/freeze.json r2/freeze.json r1/reconcile.json r2/reconcile.json r1/fit.json r2/fit.json ;;
	B) set -- r1/paired.json r2/paired.json candidates-verify.json ;;
	C) set -- fingerprint-explore.json fingerprint-heldout.json distance.json distance-splits.json ;;
	D) set -- fingerprint-heldout.json ;;
	esac
	"$COHORT" gate $g --prereg prereg.json -o gate-$g.json "$@" 2>/dev/null || [ $? = 1 ]
	"$COHORT" gate $g --prereg prereg.json --format table "$@" 2>/dev/null || [ $? = 1 ]
	echo
done
