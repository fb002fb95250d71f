// es-numbers.js: ECMAScript's own answers, for canon.test.sh to compare
// cohort's with (node is an implementation independent of ours).
//   node es-numbers.js doubles N    "hex,text" lines: N finite doubles from
//                                   random bit patterns (a fixed xorshift64
//                                   stream), then every power of two
//   node es-numbers.js texts N      the same doubles and as many in plain
//                                   notation's range, one a line, as String,
//                                   toPrecision(15) and (17) write them
//   node es-numbers.js hex FILE     the text of each hex in a "hex,..." file
//   node es-numbers.js canon FILE   RFC 8785 bytes of a JSON file: keys in
//                                   UTF-16 order (sort()'s own), strings
//                                   and numbers as JSON.stringify writes them
'use strict';
const fs = require('fs');
const dv = new DataView(new ArrayBuffer(8));
const M64 = (1n << 64n) - 1n;

function line(bits) {
	dv.setBigUint64(0, bits);
	return bits.toString(16) + ',' + String(dv.getFloat64(0));
}

// The bit patterns: n finite ones from the stream, then 2^-1074 .. 2^1023.
function patterns(n) {
	const out = [];
	let s = 0x9e3779b97f4a7c15n;
	while (out.length < n) {
		s ^= (s << 13n) & M64;
		s ^= s >> 7n;
		s ^= (s << 17n) & M64;
		if (((s >> 52n) & 0x7ffn) !== 0x7ffn)
			out.push(s);
	}
	for (let e = -1074; e <= 1023; e++) {
		dv.setFloat64(0, Math.pow(2, e));
		out.push(dv.getBigUint64(0));
	}
	return out;
}

function doubles(n) {
	return patterns(n).map(line).join('\n') + '\n';
}

// Each double, and the one with its sign and fraction but an exponent
// moved into 2^-20 .. 2^69, where Number::toString writes no exponent.
function texts(n) {
	const out = [];
	for (const b of patterns(n)) {
		const plain = (b & 0x800fffffffffffffn) | ((1003n + ((b >> 52n) & 0x7ffn) % 90n) << 52n);
		for (const c of [b, plain]) {
			dv.setBigUint64(0, c);
			const x = dv.getFloat64(0);
			out.push(String(x), x.toPrecision(15), x.toPrecision(17));
		}
	}
	return out.join('\n') + '\n';
}

function hex(file) {
	return fs.readFileSync(file, 'latin1').split('\n').filter((l) => l.includes(','))
		.map((l) => line(BigInt('0x' + l.split(',')[0]))).join('\n') + '\n';
}

function canon(v) {
	if (v === null || typeof v !== 'object')
		return JSON.stringify(v);
	if (Array.isArray(v))
		return '[' + v.map(canon).join(',') + ']';
	return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}';
}

const [mode, arg] = process.argv.slice(2);
if (mode === 'doubles')
	process.stdout.write(doubles(Number(arg)));
else if (mode === 'texts')
	process.stdout.write(texts(Number(arg)));
else if (mode === 'hex')
	process.stdout.write(hex(arg));
else if (mode === 'canon')
	process.stdout.write(canon(JSON.parse(fs.readFileSync(arg, 'utf8'))));
else {
	process.stderr.write('usage: node es-numbers.js doubles N | texts N | hex FILE | canon FILE\n');
	process.exit(2);
}
