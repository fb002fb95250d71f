# flat-blocks.awk: a blocks document of 990,000 games whose results do not
# follow their anchors: 5 conditions of 9,900 blocks of 20 games, 45% wins
# and 10% draws from one linear congruential stream at every anchor a
# ladder from 1320 to 3190 visits.  Far from every anchor, each block's
# terms are large and cancel, and the gradient's rounding floor lies above
# 1e-14 a game (what a million generated games showed).
BEGIN {
	x = 12345; printf "{\"kind\":\"cohort.blocks/1\",\"blocks\":["
	split("none top10 top5 top3 top2", cn, " ")
	for (c = 1; c <= 5; c++) for (b = 0; b < 9900; b++) {
		w = d = 0
		for (g = 0; g < 20; g++) {
			x = (x * 1103515245 + 12345) % 2147483648; u = x / 2147483648
			if (u < 0.45) w++; else if (u < 0.55) d++
		}
		a = int(b / 900); anchor = a < 10 ? 1320 + 200 * a : 3190
		printf "%s{\"condition\":\"%s\",\"anchor\":%d,\"color\":\"%s\",\"w\":%d,\"d\":%d,\"l\":%d}", \
		    (c > 1 || b) ? "," : "", cn[c], anchor, "black", w, d, 20 - w - d
	}
	printf "]}\n"
}
