// boxes.js: run by headless Chromium on a page holding cohort figures
// inline (tests/browser.test.sh): what a reader would see wrong.  For each
// <svg class="cohort-plot">: every drawn element's box, as the browser lays
// it out, inside the viewBox; no two texts overlapping; no text under 11
// units; each bound arrow drawn (its box at least 20 units long) and no
// point marker for its condition.  Writes "ok N" (N elements checked), or
// one line per fault, into a pre element of id "boxes" at the end of the
// body.
(function () {
	var out = [], n = 0;
	var figs = document.querySelectorAll('svg.cohort-plot');
	figs.forEach(function (svg, fi) {
		var vb = svg.viewBox.baseVal, r = svg.getBoundingClientRect();
		var sx = vb.width / r.width, sy = vb.height / r.height;
		var kind = svg.getAttribute('data-kind') + '#' + fi;
		function box(el) {
			var b = el.getBoundingClientRect();
			return { x0: (b.left - r.left) * sx, y0: (b.top - r.top) * sy,
				x1: (b.right - r.left) * sx, y1: (b.bottom - r.top) * sy };
		}
		function name(el) {
			return (el.getAttribute('class') || el.tagName) + ' "' + (el.textContent || '').slice(0, 40) + '"';
		}
		var texts = [];
		svg.querySelectorAll('text, path, circle, rect, line, polyline, polygon').forEach(function (el) {
			var b = box(el);
			n++;
			if (b.x0 < -0.5 || b.y0 < -0.5 || b.x1 > vb.width + 0.5 || b.y1 > vb.height + 0.5)
				out.push(kind + ': ' + name(el) + ' outside the canvas: ' +
					[b.x0, b.y0, b.x1, b.y1].map(function (v) { return v.toFixed(1); }).join(' '));
			if (el.tagName === 'text') {
				var fs = parseFloat(getComputedStyle(el).fontSize) * sy;
				if (fs < 10.99)
					out.push(kind + ': ' + name(el) + ' font size ' + fs.toFixed(2));
				texts.push([el, b]);
			}
		});
		svg.querySelectorAll('.bound-arrow').forEach(function (a) {
			var b = box(a), c = a.getAttribute('data-condition'), f = a.getAttribute('data-family');
			if (b.y1 - b.y0 < 20)
				out.push(kind + ': the arrow of ' + c + ' is ' + (b.y1 - b.y0).toFixed(1) + ' units long');
			svg.querySelectorAll('.point').forEach(function (p) {
				if (p.getAttribute('data-condition') === c && p.getAttribute('data-family') === f)
					out.push(kind + ': ' + (f ? f + ' ' : '') + c + ' is saturated but has a point marker');
			});
		});
		for (var i = 0; i < texts.length; i++)
			for (var j = i + 1; j < texts.length; j++) {
				var a = texts[i][1], b = texts[j][1];
				var w = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
				var h = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
				// glyph boxes include the line's leading: only a real overlap counts
				if (w > 1 && h > 3)
					out.push(kind + ': ' + name(texts[i][0]) + ' overlaps ' + name(texts[j][0]));
			}
	});
	if (figs.length === 0)
		out.push('no figure on the page');
	var pre = document.createElement('pre');
	pre.id = 'boxes';
	pre.textContent = out.length ? out.join('\n') : 'ok ' + n;
	document.body.appendChild(pre);
})();
