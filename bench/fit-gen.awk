# fit-gen.awk: a synthetic cohort.blocks/1 document for the fit benchmark.
# awk -v conds=1000 -v blocks=20 [-v colors=both] -f fit-gen.awk: each
# condition has a true rating, blocks of 10 games (Black, or with
# colors=both every other block White) at anchors near it, drawn from the
# Davidson model (nu 1, penalty 35) with a Park-Miller generator, so every
# awk writes the same document.
function rnd() { seed = (seed * 16807) % 2147483647; return seed / 2147483647 }
BEGIN {
	seed = 12345
	if (conds == "") conds = 1000
	if (blocks == "") blocks = 20
	printf "{\"kind\":\"cohort.blocks/1\",\"black_penalty\":35,\"blocks\":["
	sep = ""
	for (c = 0; c < conds; c++) {
		R = 1200 + 1600 * rnd()
		for (b = 0; b < blocks; b++) {
			a = 100 * int((R - 35 - 400 + 800 * rnd()) / 100)
			white = colors == "both" && b % 2 == 1
			x = 10 ^ ((R + (white ? 35 : -35) - a) / 400)
			den = x + 1 + sqrt(x)
			w = d = l = 0
			for (g = 0; g < 10; g++) {
				u = rnd()
				if (u < x / den) w++
				else if (u < (x + sqrt(x)) / den) d++
				else l++
			}
			printf "%s\n{\"condition\":\"c%04d\",\"anchor\":%d,\"color\":\"%s\",\"w\":%d,\"d\":%d,\"l\":%d}", sep, c, a, white ? "white" : "black", w, d, l
			sep = ","
		}
	}
	printf "]}\n"
}
