// The live lesson page (docs/live/lesson.html): every control recomputes with the library compiled to
// WebAssembly (web/rope_web.cpp) and redraws the figures as SVG. scripts/live_page.py inlines this file,
// the module and the page's Chinese (from po/zh_CN.po) into one HTML file. Every sentence goes through
// tr() with its English and numbered fields, extracted into po/rope.pot by scripts/pot.sh like the C++
// sources' tr().
"use strict";

const rope = ropeModule();
rope.set_catalog(ROPE_CATALOG);

let lang = "en";
// θ_i and λ_i as the page shows them: i as a subscript (θᵢ), never a raw underscore; the catalog keeps θ_i.
function subscripts(text) {
  return text.replace(/([θλ])_i\b/g, "$1ᵢ");
}
function tr(id, ...values) {
  const zh = lang === "zh" ? ROPE_CATALOG["\u0004" + id] : undefined;
  return subscripts((zh || id).replace(/\{(\d+)\}/g, (_, k) => String(values[Number(k)])));
}

// The page's own sentences (data-tr in web/lesson.html), listed so that scripts/pot.sh extracts them; N_ marks
// a text for translation without translating it here (translate() does, from the element).
const N_ = (id) => id;
const PAGE_TEXT = [
  N_("⋮ {0} pairs"),
  N_("8. a latent grid: which pair reads which axis"), N_("model (panel 8)"), N_("frames"), N_("rows"),
  N_("columns"),
  N_("A text token is one position on every axis; a patch has a frame, a row and a column. Click a patch: its next column, row and frame each differ in one axis, so only that axis's pairs turn them apart (the bar rows under the pairs)."),
  N_("The text reaches the video through cross-attention and carries no position; a patch has a frame, a row and a column. Click a patch: its next column, row and frame each differ in one axis, so only that axis's pairs turn them apart (the bar rows under the pairs)."),
  N_("Say: every pair of the head reads one axis; two patches of one row differ in the column alone. Point at: the marked pairs, all green. Then switch the model: Qwen2-VL's w pairs are one slow block, Qwen3-VL's every third pair from fast to slow."),
  N_("frame {0}"), N_("bars: the pairs whose angle differs"), N_("from the next column, row and frame"),
  N_("kept"), N_("ramped"), N_("interpolated"), N_("unrotated"),
  N_("RoPE, computed live"),
  N_("keys: ← → position n, ↑ ↓ position m, PageUp/PageDown d, [ ] base, L language"),
  N_("P presenter mode: one panel full screen, Space / Backspace the next / previous panel, N speaker notes"),
  N_("Say: each vector turns by its own position times θ_i, and the score only sees n − m. Point at: the score and qᵀRₙ₋ₘk, the same number; the sign slip (dotted), another one. Then move both positions (← and ↑): the score stays."),
  N_("Say: a block diagonal of 2×2 rotations, zero elsewhere. Point at: the first block (the fast pair, turned far) against the last (the slow pair, nearly the identity). Then switch the layout: the half layout spreads each pair over i and i + d/2."),
  N_("Say: an upper bound, not a score; random q and k do not decay. Point at: f(0) and f at the marked distance n − m. Then raise the base ([ and ]): the bound falls more slowly."),
  N_("Say: a pair whose wavelength exceeds the context never completes a turn in training; the first such pair gives the critical dimension. Point at: where the curve crosses the context line. Then choose llama3: the slow pairs stretch by f."),
  N_("Say: RoPE's attention only sees j − i, so moving every token by C changes nothing; the sinusoidal encoding sees i and j apart. Point at: RoPE's max |ΔA| at rounding, sinusoidal's change and its verdict."),
  N_("Say: pair i turns θ_i per position and completes a turn every λ_i = 2π/θ_i positions. Point at: θ_i falling row by row; under YaRN or llama3 the bands, and the attention factor a."),
  N_("Say: the same pair sits in other channels in each layout's table. Point at: the black bars, pair 0's two channels in the half and the interleaved table. A kernel that reads the other layout pairs channels that were never trained together."),
  N_("dimension d"),
  N_("base"),
  N_("position m (q)"),
  N_("position n (k)"),
  N_("layout"),
  N_("interleaved (pairs 2i, 2i + 1)"),
  N_("half (pairs i, i + d/2)"),
  N_("scaling"),
  N_("none"),
  N_("factor f"),
  N_("original context L0"),
  N_("YaRN constants"),
  N_("context"),
  N_("pair i drawn"),
  N_("tokens"),
  N_("shift C"),
  N_("causal mask"),
  N_("Each panel names the command that prints its numbers; click it to copy."),
  N_("copy every command"),
  N_("link to this state"),
  N_("1. q and k turn by their positions"),
  N_("pair"),
  N_("the angle from Rₘq to Rₙk"),
  N_("distance |n − m|"),
  N_("bound f"),
  N_("pair i"),
  N_("wavelength λ_i"),
  N_("the sign slip, both turned the other way (dotted):"),
  N_("not the score"),
  N_("The score of the drawn pair, q = (1, 0.5) at m and k = (0.8, −0.3) at n: it only sees n − m; move both positions by the same amount and it stays."),
  N_("2. the rotation matrix Rₘ"),
  N_("its partner"),
  N_("Red positive, blue negative, white zero: 2×2 blocks, zero elsewhere; the half layout spreads each pair over i and i + d/2."),
  N_("3. the decay bound f(distance)"),
  N_("scaled"),
  N_("An upper bound, not a score: random q and k do not decay (rope decay --kind random)."),
  N_("4. wavelengths against the context"),
  N_("original"),
  N_("5. attention of random tokens: RoPE against sinusoidal"),
  N_("tolerance"),
  N_("sinusoidal"),
  N_("Every position moves by C: RoPE's weights stay, sinusoidal's change."),
  N_("6. every pair"),
  N_("column j"), N_("row i"), N_("key j"), N_("query i"),
  N_("attention factor"),
  N_("band"),
  N_("7. the cos/sin cache as it sits in memory"),
  N_("pair 0's two channels (partners)"),
  N_("half layout"),
  N_("interleaved layout"),
  N_("Rows: positions 0 … 15 downward; columns: channels. HF's cat(freqs, freqs) repeats the table after d/2 (half layout), repeat_interleave(2) doubles each column (interleaved layout), gpt-oss keeps d/2 columns. A kernel that reads one table in the other layout pairs the wrong channels."),
];

// The library's sentences the page shows in its language (web/rope_web.cpp gives them translated, by the catalog
// set_catalog installs): `rope wavelengths`' paragraph on a context (report/wavelengths_report.cpp) and the shift
// test's verdicts (analysis/teaching/attention_run.cpp), listed so that scripts/live_page.py puts their Chinese in
// the page's catalog.
const LIBRARY_TEXT = [
  N_("context {0}, {1}: every pair completes a full turn within it\n"),
  N_("context {0}, {1}: pair {2} (1 of {3}) never completes a turn within it;\n  critical dimension {4}{5} (M16)\n"),
  N_("context {0}, {1}: {2} ({3} of {4}) never complete a turn within it;\n  critical dimension {5}{6} (M16)\n"),
  N_("pairs {0} … {1}"), N_(" of the original frequencies"), N_(" of the scaled frequencies"),
  N_("invariant: rounding only"), N_("CHANGED beyond rounding (a bug)"), N_("unchanged for these q, k"),
  N_("changed: leaks absolute position"), N_("changed, by design: seq_len {0} → {1}"),
  N_("changed, by design: s(p) {0} → {1}"),
  N_("patches ({0}, {1}, {2}) and ({3}, {4}, {5}) lie in one row: {6} of {7} pairs turn them apart, just the w pairs"),
  N_("patches ({0}, {1}, {2}) and ({3}, {4}, {5}) lie in one row: {6} of {7} pairs turn them apart, not only the w pairs"),
  N_("next row ({0}, {1}, {2}): {3} of {4} pairs turn it apart, just the h pairs"),
  N_("next row ({0}, {1}, {2}): {3} of {4} pairs turn it apart, not only the h pairs"),
  N_("next frame ({0}, {1}, {2}): {3} of {4} pairs turn it apart, just the t pairs"),
  N_("next frame ({0}, {1}, {2}): {3} of {4} pairs turn it apart, not only the t pairs"),
];

// Choices a slider steps through: keyboard arrows move one choice, so a class sees round values.
const BASES = [100, 500, 1000, 5000, 10000, 50000, 100000, 500000, 1000000, 5000000, 10000000];
const FACTORS = [1.5, 2, 4, 8, 16, 32];
const CONTEXTS = [256, 512, 1024, 2048, 4096, 8192, 16384, 32768];
const ORIGINALS = [64, 256, 1024, 2048, 4096, 8192];
const SHIFTS = [0, 1, 10, 100, 1000, 10000];
const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

// The controls: id → how its value is read.
const controls = {
  d: () => Number($("d").value),
  base: () => BASES[Number($("base").value)],
  m: () => Number($("m").value),
  n: () => Number($("n").value),
  layout: () => $("layout").value,
  scaling: () => $("scaling").value,
  factor: () => FACTORS[Number($("factor").value)],
  L0: () => ORIGINALS[Number($("L0").value)],
  yarn_variant: () => $("yarn_variant").value,
  context: () => CONTEXTS[Number($("context").value)],
  pair: () => Math.min(Number($("pair").value), controls.d() / 2 - 1),
  tokens: () => Number($("tokens").value),
  shift: () => SHIFTS[Number($("shift").value)],
  causal: () => $("causal").checked,
  grid_model: () => $("grid_model").value,
  grid_frames: () => Number($("grid_frames").value),
  grid_rows: () => Number($("grid_rows").value),
  grid_columns: () => Number($("grid_columns").value),
};

function settings() {
  const s = {qa: 1, qb: 0.5, ka: 0.8, kb: -0.3, lang};
  for (const [key, read] of Object.entries(controls)) s[key] = read();
  // The decay axis as `rope decay` draws it, 0 … 256, widened to the next power of two that holds |n − m|.
  const dist = Math.abs(s.n - s.m);
  s.max_distance = 256;
  while (s.max_distance < dist) s.max_distance *= 2;
  return s;
}

// A number as the page shows it: its text as the library spells it (web/rope_web.cpp answer(): `shown`, `fixed` or
// `compared`), every digit in data-exact (`exact`, as the command's CSV and JSON print it). The page formats none.
function put(id, text, exact) {
  const e = $(id);
  e.textContent = text;
  if (exact !== undefined) e.dataset.exact = exact;
}

function el(parent, name, attrs, text) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  parent.appendChild(e);
  return e;
}
function clear(svg) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
}
// Blue (−1) through white (0) to red (+1): the sign of an entry is its colour.
function colour(v) {
  const t = Math.max(-1, Math.min(1, v));
  const c = (x) => Math.round(255 * x);
  return t >= 0 ? `rgb(255,${c(1 - 0.8 * t)},${c(1 - 0.85 * t)})` : `rgb(${c(1 + 0.85 * t)},${c(1 + 0.6 * t)},255)`;
}
function heat(v) {  // attention weights 0 … 1: white to dark blue
  const t = Math.max(0, Math.min(1, v));
  return `rgb(${Math.round(255 - 230 * t)},${Math.round(255 - 190 * t)},${Math.round(255 - 80 * t)})`;
}

function arrow(svg, x0, y0, x1, y1, stroke, dash) {
  el(svg, "line", {x1: x0, y1: y0, x2: x1, y2: y1, stroke, "stroke-width": 4, "stroke-dasharray": dash || "none",
                   "marker-end": `url(#head-${stroke.replace("#", "")})`});
}
function markers(svg, colours) {
  const defs = el(svg, "defs", {});
  for (const c of colours) {
    const m = el(defs, "marker", {id: `head-${c.replace("#", "")}`, viewBox: "0 0 10 10", refX: 9, refY: 5,
                                   markerWidth: 4, markerHeight: 4, orient: "auto-start-reverse"});
    el(m, "path", {d: "M0,0 L10,5 L0,10 z", fill: c});
  }
}

// Labels at the tips of vectors drawn from (cx, cy), none over another: each label's box (its size estimated from
// its font size, so that a panel drawn while hidden in presenter mode places them the same) goes just beyond its
// tip; where it would overlap a box placed before or leave the picture, it tries positions moved along the
// vector's normal, alternately to each side, one line further each time, then further out along the vector.
// tests/browser/check_live.py measures the drawn boxes (body[data-plane-labels]) and checks that none intersect.
function labels(svg, cx, cy, items) {
  const placed = [];
  const overlaps = (b) => placed.some((o) => b.x < o.x + o.w && o.x < b.x + b.w && b.y < o.y + o.h && o.y < b.y + b.h);
  const size = svg.viewBox.baseVal;
  const inside = (b) => b.x >= 0 && b.y >= 0 && b.x + b.w <= size.width && b.y + b.h <= size.height;
  for (const {at, text, fill, size: fs, opacity} of items) {
    const w = 0.68 * fs * [...text].length + 4, h = 1.25 * fs;
    const dx = at[0] - cx, dy = at[1] - cy, len = Math.hypot(dx, dy) || 1;
    const u = [dx / len, dy / len], nrm = [-u[1], u[0]];
    // The box's centre beyond the tip: far enough along u that the box clears the tip whatever its direction.
    const reach = 6 + 0.5 * Math.abs(u[0]) * w + 0.5 * Math.abs(u[1]) * h;
    let best = null;
    for (let out = 0; out < 4 && !best; ++out) {
      for (let k = 0; k < 13 && !best; ++k) {
        const side = k === 0 ? 0 : (k % 2 ? 1 : -1) * Math.ceil(k / 2) * (h + 2);
        const c = [at[0] + u[0] * (reach + out * h) + nrm[0] * side, at[1] + u[1] * (reach + out * h) + nrm[1] * side];
        const b = {x: c[0] - w / 2, y: c[1] - h / 2, w, h};
        if (!overlaps(b) && inside(b)) best = b;
      }
    }
    if (!best) {  // nowhere free: under the lowest box placed so far
      const y = Math.max(...placed.map((o) => o.y + o.h));
      best = {x: 4, y, w, h};
    }
    placed.push(best);
    const attrs = {x: best.x + best.w / 2, y: best.y + best.h / 2, fill, "font-size": fs, "text-anchor": "middle",
                   "dominant-baseline": "central", class: "vector-label"};
    if (opacity) attrs.opacity = opacity;
    el(svg, "text", attrs, text);
  }
}

const BLUE = "#1f5fbf", ORANGE = "#d9730d", GREEN = "#2e8b3a", GREY = "#777";

// Part 1: pair i of q and k, before and after the rotation, and the pair's score: all of it the walkthrough of
// `rope explain` at θ = θ_i (web/rope_web.cpp pair()), the command named under the picture.
function drawPlane(s, f, answer) {
  const p = {...answer.value, ...answer.drawn};
  const svg = $("plane");
  clear(svg);
  markers(svg, [BLUE, ORANGE]);
  const i = s.pair, R = 150, cx = 200, cy = 200;
  el(svg, "circle", {cx, cy, r: R, fill: "none", stroke: "#ccc", "stroke-width": 2});
  el(svg, "line", {x1: cx - R - 20, y1: cy, x2: cx + R + 20, y2: cy, stroke: "#ddd"});
  el(svg, "line", {x1: cx, y1: cy - R - 20, x2: cx, y2: cy + R + 20, stroke: "#ddd"});
  const scale = R / Math.max(Math.hypot(p.q[0], p.q[1]), Math.hypot(p.k[0], p.k[1]), 1e-9) / 1.05;
  const at = (v) => [cx + scale * v[0], cy - scale * v[1]];
  const q0 = at(p.q), k0 = at(p.k), rq = at(p.rq), rk = at(p.rk);
  arrow(svg, cx, cy, q0[0], q0[1], BLUE, "8 6");
  arrow(svg, cx, cy, k0[0], k0[1], ORANGE, "8 6");
  // The sign slip, thin and grey: each vector turned the other way (R_mᵀq, R_nᵀk).
  const rqr = at(p.rq_reversed), rkr = at(p.rk_reversed);
  el(svg, "line", {x1: cx, y1: cy, x2: rqr[0], y2: rqr[1], stroke: BLUE, "stroke-width": 2, "stroke-dasharray": "2 4",
                   opacity: 0.6});
  el(svg, "line", {x1: cx, y1: cy, x2: rkr[0], y2: rkr[1], stroke: ORANGE, "stroke-width": 2,
                   "stroke-dasharray": "2 4", opacity: 0.6});
  arrow(svg, cx, cy, rq[0], rq[1], BLUE);
  arrow(svg, cx, cy, rk[0], rk[1], ORANGE);
  // The turn of each vector, mθ_i and nθ_i modulo a full turn, as arcs from the unrotated vector.
  const turn = (x) => ((x % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
  const arc = (r, from, sweep, stroke) => {
    const pt = (t) => `${(cx + r * Math.cos(t)).toFixed(2)},${(cy - r * Math.sin(t)).toFixed(2)}`;
    el(svg, "path", {d: `M${pt(from)} A${r},${r} 0 ${sweep > Math.PI ? 1 : 0} 0 ${pt(from + sweep)}`, fill: "none",
                     stroke, "stroke-width": 3});
  };
  arc(45, Math.atan2(p.q[1], p.q[0]), turn(p.angle_q), BLUE);
  arc(62, Math.atan2(p.k[1], p.k[0]), turn(p.angle_k), ORANGE);
  // The labels, the rotated vectors' first: each beyond its vector's tip, moved sideways where it would cover one
  // placed before (two vectors that nearly coincide, as at m = n for the reversed pair or m = 5000, n = 2).
  labels(svg, cx, cy, [
    {at: rq, text: "Rₘq", fill: BLUE, size: 22}, {at: rk, text: "Rₙk", fill: ORANGE, size: 22},
    {at: rqr, text: "Rₘᵀq", fill: BLUE, size: 20, opacity: 0.8}, {at: rkr, text: "Rₙᵀk", fill: ORANGE, size: 20, opacity: 0.8},
    {at: q0, text: "q", fill: BLUE, size: 22, opacity: 0.8}, {at: k0, text: "k", fill: ORANGE, size: 22, opacity: 0.8},
  ]);
  put("pair-no", String(i));
  // θ_i as the tables show it, the walkthrough's numbers as `rope explain` prints them (fx, 6 decimals).
  put("pair-theta", answer.shown.value.theta, answer.exact.value.theta);
  const fixed = answer.fixed;
  put("angle-between", fixed.drawn.angle_between, fixed.drawn.angle_between);
  put("score", fixed.value.score, fixed.value.score);
  put("relative", fixed.value.relative_score, fixed.value.relative_score);
  put("wrong-sign", fixed.drawn.wrong_sign, fixed.drawn.wrong_sign);
  put("distance", String(s.n - s.m));
}

// A heat map's frame as the CLI's PNGs draw it (issue 68): cells in the box (x0, y0, size × size), the column
// index along the top and the row index down the left at the first, middle and last cell, the axis titles, and a
// colour bar at the right from `lo` to `hi` (its three labels, texts: the top, the middle, the bottom). `fill(t)`
// colours t in [0, 1] along the bar.
function heatFrame(svg, {x0, y0, size, n, first, column, row, labels, fill, fs}) {
  const cell = size / n;
  for (const k of [...new Set([0, Math.floor(n / 2), n - 1])]) {
    el(svg, "text", {x: x0 + (k + 0.5) * cell, y: y0 - 8, "font-size": fs, "text-anchor": "middle"}, String(first(k)));
    el(svg, "text", {x: x0 - 8, y: y0 + (k + 0.5) * cell + fs * 0.35, "font-size": fs, "text-anchor": "end"},
       String(first(k)));
  }
  el(svg, "text", {x: x0 + size / 2, y: y0 + size + fs + 6, "font-size": fs, "text-anchor": "middle", fill: "#333"},
     column);
  const ry = y0 + size / 2, rx = fs * 0.8;
  el(svg, "text", {x: rx, y: ry, "font-size": fs, "text-anchor": "middle", fill: "#333", transform: `rotate(-90 ${rx} ${ry})`},
     row);
  const bx = x0 + size + 14, steps = 24, h = size / steps;
  for (let k = 0; k < steps; ++k) {
    el(svg, "rect", {x: bx, y: y0 + k * h, width: 16, height: h + 0.5, fill: fill(1 - (k + 0.5) / steps),
                     "shape-rendering": "crispEdges"});
  }
  el(svg, "rect", {x: bx, y: y0, width: 16, height: size, fill: "none", stroke: "#999"});
  [y0, y0 + size / 2, y0 + size].forEach((y, k) => {
    el(svg, "text", {x: bx + 20, y: y + fs * 0.35, "font-size": fs}, labels[k]);
  });
}

// Part 2: R_m, one square per entry (crisp at any size: rectangles, not a bitmap), with its row and column indices,
// axis titles and colour bar.
function drawMatrix(s, f, answer) {
  const mat = answer.value;
  const svg = $("matrix");
  clear(svg);
  // At most 32 channels, so that a cell stays visible on a projector: the first 32 (interleaved), or the first
  // 16 of each half (half layout), which keeps every drawn pair's two channels.
  const d = mat.dim, n = Math.min(d, 32), x0 = 80, y0 = 34, box = 320, size = box / n;
  const channel = (k) => n === d ? k : s.layout === "interleaved" ? k : k < n / 2 ? k : d / 2 + k - n / 2;
  // The colour bar from −max |entry| to +max |entry|, its ends labelled as rope's figures label their ticks.
  let big = 0;
  for (const row of mat.matrix) for (const v of row) big = Math.max(big, Math.abs(v));
  el(svg, "rect", {x: x0, y: y0, width: box, height: box, fill: "#fff", stroke: "#999"});
  for (let r = 0; r < n; ++r) {
    for (let c = 0; c < n; ++c) {
      const v = mat.matrix[channel(r)][channel(c)];
      if (v === 0) continue;
      el(svg, "rect", {x: x0 + c * size, y: y0 + r * size, width: size, height: size, fill: colour(v / big),
                       "shape-rendering": "crispEdges"});
    }
  }
  heatFrame(svg, {x0, y0, size: box, n, first: channel, column: tr("column j"), row: tr("row i"),
                  labels: [rope.tick_label(big), "0", rope.tick_label(-big)], fill: (t) => colour(2 * t - 1), fs: 20});
  put("matrix-part", n === d ? "" : s.layout === "interleaved" ? tr("channels 0 … {0} of {1} drawn.", n - 1, d)
                                 : tr("channels 0 … {0} and {1} … {2} of {3} drawn.", n / 2 - 1, d / 2, d / 2 + n / 2 - 1, d));
  put("m-value", String(s.m));
  // R₀₀ = a·cos mθ₀ where the attention factor a multiplies the rotation (YaRN), as `rope matrix` says.
  const a = f.value.attention_factor;
  put("r00-form", a === 1 ? "cos mθ₀" : `a·cos mθ₀ (a = ${f.shown.value.attention_factor})`);
  put("r01-form", a === 1 ? "−sin mθ₀" : "−a·sin mθ₀");
  const partner = s.layout === "interleaved" ? 1 : d / 2;
  put("r00", answer.shown.value.matrix[0][0], answer.exact.value.matrix[0][0]);
  put("r01", answer.shown.value.matrix[0][partner], answer.exact.value.matrix[0][partner]);
}

// Ticks at round values (1, 2 or 5 times a power of ten) from lo to hi, about n of them; integers only where
// `whole` (pair numbers).
function roundTicks(lo, hi, n, whole) {
  const raw = (hi - lo) / n, power = 10 ** Math.floor(Math.log10(raw)), m = raw / power;
  const step = Math.max(whole ? 1 : 0, (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * power);
  const out = [];
  for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi * (1 + 1e-9); ++k) out.push(Number((k * step).toPrecision(12)));
  return out;
}

// A line plot in the box [72, 560] × [20, 300]; ys on a log axis when log. Left of the box: the tick labels
// (ending at x = 64, clear of the tick marks) and the axis title (x = 16).
function plot(svg, series, xmax, ymin, ymax, log) {
  const X = (x) => 72 + 488 * x / xmax;
  const Y = (y) => log ? 300 - 280 * (Math.log10(y) - Math.log10(ymin)) / (Math.log10(ymax) - Math.log10(ymin))
                       : 300 - 280 * (y - ymin) / (ymax - ymin);
  el(svg, "rect", {x: 72, y: 20, width: 488, height: 280, fill: "none", stroke: "#999"});
  for (const {xs, ys, stroke, dash, width} of series) {
    let d = "";
    for (let k = 0; k < xs.length; ++k) d += `${k ? "L" : "M"}${X(xs[k]).toFixed(2)},${Y(ys[k]).toFixed(2)}`;
    el(svg, "path", {d, fill: "none", stroke, "stroke-width": width || 3, "stroke-dasharray": dash || "none"});
  }
  return {X, Y};
}

// Axis titles of a plot() figure, under the x axis and along the y axis.
function titles(svg, x, y) {
  el(svg, "text", {x: 316, y: 364, "font-size": 20, "text-anchor": "middle", fill: "#333"}, x);
  el(svg, "text", {x: 16, y: 160, "font-size": 20, "text-anchor": "middle", fill: "#333",
                   transform: "rotate(-90 16 160)"}, y);
}

// Part 6: RoFormer's bound against distance, the distance n − m marked.
function drawDecay(s, f, answer) {
  const svg = $("decay");
  clear(svg);
  // The full grid, `rope decay --csv`'s table: distance, the original curve, with a method the scaled one.
  const columns = answer.table.columns, shown = answer.shown.table.columns, exact = answer.exact.table.columns;
  const dec = {original: columns[1], scaled: columns[2]};
  const xs = dec.original.map((_, k) => k);
  const series = [{xs, ys: dec.original, stroke: BLUE}];
  if (dec.scaled) series.push({xs, ys: dec.scaled, stroke: ORANGE});
  const top = Math.max(...dec.original, ...(dec.scaled || [0]));
  const {X, Y} = plot(svg, series, s.max_distance, 0, top * 1.05, false);
  const dist = Math.abs(s.n - s.m);
  for (const x of roundTicks(0, s.max_distance, 4, true)) {
    el(svg, "line", {x1: X(x), y1: 300, x2: X(x), y2: 308, stroke: "#999"});
    el(svg, "text", {x: X(x), y: 330, "font-size": 20, "text-anchor": "middle"}, String(x));
  }
  // Ticks at round values, labelled as rope's figures label theirs.
  for (const y of roundTicks(0, top * 1.05, 3, false)) {
    el(svg, "line", {x1: 66, y1: Y(y), x2: 72, y2: Y(y), stroke: "#999"});
    el(svg, "text", {x: 63, y: Y(y) + 7, "font-size": 20, "text-anchor": "end"}, rope.tick_label(y));
  }
  titles(svg, tr("distance |n − m|"), tr("bound f"));
  if (dist <= s.max_distance) {
    el(svg, "line", {x1: X(dist), y1: 20, x2: X(dist), y2: 300, stroke: GREEN, "stroke-width": 2, "stroke-dasharray": "6 4"});
    el(svg, "circle", {cx: X(dist), cy: Y(dec.original[dist]), r: 6, fill: BLUE});
    put("decay-at", shown[1][dist], exact[1][dist]);
    put("decay-scaled-at", dec.scaled ? shown[2][dist] : "–", dec.scaled ? exact[2][dist] : "");
  } else {
    put("decay-at", "–", "");
    put("decay-scaled-at", "–", "");
  }
  put("decay-distance", String(dist));
  put("decay-0", shown[1][0], exact[1][0]);
}

// Part 5: λ_i of every pair on a log axis, the context as a line.
function drawWavelengths(s, answer) {
  const svg = $("wavelengths");
  clear(svg);
  // `rope wavelengths`' report: the curves' λ_i (original, then with a method the scaled ones) and, per curve, the
  // first pair that never turns within the context and the report's sentence on it.
  const curves = answer.value.curves, beyond = answer.value.contexts[0].curves;
  const f = {lambda0: curves[0].wavelength, lambda: (curves[1] || curves[0]).wavelength, scaled: curves.length > 1,
             first_beyond0: beyond[0].first_pair_beyond};
  const half = f.lambda0.length, xs = f.lambda0.map((_, i) => i);
  const series = [{xs, ys: f.lambda0, stroke: BLUE}];
  if (f.scaled) series.push({xs, ys: f.lambda, stroke: ORANGE});
  const top = Math.max(...f.lambda, ...f.lambda0, s.context) * 2;
  const {X, Y} = plot(svg, series, Math.max(half - 1, 1), 1, top, true);
  el(svg, "line", {x1: 72, y1: Y(s.context), x2: 560, y2: Y(s.context), stroke: GREEN, "stroke-width": 2, "stroke-dasharray": "8 5"});
  el(svg, "text", {x: 555, y: Y(s.context) - 8, fill: GREEN, "font-size": 20, "text-anchor": "end"}, tr("context {0}", s.context));
  for (let e = 0; e <= Math.log10(top); e += 2) {
    el(svg, "line", {x1: 66, y1: Y(10 ** e), x2: 72, y2: Y(10 ** e), stroke: "#999"});
    el(svg, "text", {x: 63, y: Y(10 ** e) + 6, "font-size": 20, "text-anchor": "end"}, e === 0 ? "1" : `1e${e}`);
  }
  for (const i of roundTicks(0, Math.max(half - 1, 1), 4, true)) {
    el(svg, "line", {x1: X(i), y1: 300, x2: X(i), y2: 308, stroke: "#999"});
    el(svg, "text", {x: X(i), y: 330, "font-size": 20, "text-anchor": "middle"}, String(i));
  }
  titles(svg, tr("pair i"), tr("wavelength λ_i"));
  if (f.first_beyond0 < half) el(svg, "circle", {cx: X(f.first_beyond0), cy: Y(f.lambda0[f.first_beyond0]), r: 7, fill: BLUE});
  const said = answer.sentences;
  put("beyond0", said[0], String(beyond[0].first_pair_beyond));
  put("beyond", f.scaled ? said[1] : "–", f.scaled ? String(beyond[1].first_pair_beyond) : "");
}

// Part 7: the cos/sin cache as it sits in memory (rope layouts --cache draws the same tables, analysis/teaching/layouts.hpp
// layout_cache): three bands of rows (cos, sin, the angle over π), the three tables side by side, each table a
// bitmap (one pixel per entry, scaled without smoothing), pair 0's two columns joined by a black bar.
function drawCache(s, cache) {
  const svg = $("cache");
  clear(svg);
  const P = cache.positions, left = 96, top = 34, gap = 14, bandGap = 10, right = 8;
  const units = cache.tables.reduce((n, t) => n + t.width, 0);
  const scale = (580 - left - right - gap * (cache.tables.length - 1)) / units;
  const bandH = (420 - top - 40 - 2 * bandGap) / 3;
  const bands = [["cos", "cos"], ["sin", "sin"], ["angle", tr("angle/π")]];
  bands.forEach(([, name], b) => {
    el(svg, "text", {x: left - 8, y: top + b * (bandH + bandGap) + bandH / 2 + 7, "font-size": 20,
                     "text-anchor": "end"}, name);
  });
  const names = {half: tr("half layout"), interleaved: tr("interleaved layout"), "half-width": "gpt-oss"};
  let x = left;
  for (const t of cache.tables) {
    const w = t.width * scale;
    const canvas = document.createElement("canvas");
    canvas.width = t.width;
    canvas.height = 3 * P;
    const g = canvas.getContext("2d"), img = g.createImageData(t.width, 3 * P);
    bands.forEach(([key], b) => {
      for (let m = 0; m < P; ++m) {
        for (let c = 0; c < t.width; ++c) {
          const [r, gr, bl] = colour(t[key][m * t.width + c]).match(/\d+/g).map(Number);
          const k = 4 * ((b * P + m) * t.width + c);
          img.data[k] = r;
          img.data[k + 1] = gr;
          img.data[k + 2] = bl;
          img.data[k + 3] = 255;
        }
      }
    });
    g.putImageData(img, 0, 0);
    // One bitmap per band, so the bands keep their gaps.
    bands.forEach((_, b) => {
      const band = document.createElement("canvas");
      band.width = t.width;
      band.height = P;
      band.getContext("2d").drawImage(canvas, 0, b * P, t.width, P, 0, 0, t.width, P);
      el(svg, "image", {x, y: top + b * (bandH + bandGap), width: w, height: bandH, preserveAspectRatio: "none",
                        href: band.toDataURL(), style: "image-rendering: pixelated"});
      el(svg, "rect", {x, y: top + b * (bandH + bandGap), width: w, height: bandH, fill: "none", stroke: "#999"});
    });
    el(svg, "text", {x: x + w / 2, y: top - 10, "font-size": 20, "text-anchor": "middle"}, names[t.kind]);
    for (const c of [0, t.width / 2]) {
      el(svg, "text", {x: x + (c + 0.5) * scale, y: 420 - 12, "font-size": 20, "text-anchor": "middle"}, String(c));
    }
    // Pair 0's partners: across the cos band from one column to the other; gpt-oss: one column, read in the cos
    // and the sin band.
    const cx = (c) => x + (c + 0.5) * scale, yMid = top + bandH / 2;
    if (t.partner_a !== t.partner_b) {
      el(svg, "line", {x1: cx(t.partner_a), y1: yMid, x2: cx(t.partner_b), y2: yMid, stroke: "#000", "stroke-width": 5});
    } else {
      el(svg, "line", {x1: cx(t.partner_a), y1: yMid, x2: cx(t.partner_a), y2: yMid + bandH + bandGap, stroke: "#000",
                       "stroke-width": 5});
    }
    for (const c of new Set([t.partner_a, t.partner_b])) {
      el(svg, "circle", {cx: cx(c), cy: yMid, r: 6, fill: "#000"});
    }
    const pair = `(${t.partner_a}, ${t.partner_b})`;
    if (t.kind === "half") put("partners-half", pair, pair);
    if (t.kind === "interleaved") put("partners-interleaved", pair, pair);
    if (t.kind === "half-width") put("partners-width", tr("column {0} of {1}", t.partner_a, t.width), String(t.partner_a));
    x += w + gap;
  }
}

function drawAttention(s, att) {
  for (const name of ["rope", "sinusoidal"]) {
    const svg = $(`att-${name}`);
    clear(svg);
    const T = s.tokens, x0 = 90, y0 = 40, box = 256, size = box / T, A = att.drawn[name];
    el(svg, "rect", {x: x0, y: y0, width: box, height: box, fill: "#eee"});
    for (let i = 0; i < T; ++i) {
      for (let j = 0; j < T; ++j) {
        if (s.causal && j > i) continue;  // masked: left grey, not the colour of a weight 0
        el(svg, "rect", {x: x0 + j * size, y: y0 + i * size, width: size, height: size, fill: heat(A[i][j] * 2),
                         "shape-rendering": "crispEdges"});
      }
    }
    heatFrame(svg, {x0, y0, size: box, n: T, first: (k) => k, column: tr("key j"), row: tr("query i"),
                    labels: ["0.5", "0.25", "0"], fill: heat, fs: 34});
    // The report's rows, A_00 as the tables show it and the shift test as its table prints it (3 digits).
    const e = att.value.encodings.findIndex((x) => x.encoding === name);
    const k = att.value.shift_test.findIndex((x) => x.encoding === name);
    put(`${name}-a00`, att.shown.value.encodings[e].a00, att.exact.value.encodings[e].a00);
    const shown = att.compared.value.shift_test[k], exact = att.exact.value.shift_test[k];
    put(`${name}-ds`, shown.max_abs_change, exact.max_abs_change);
    put(`${name}-dA`, shown.max_weight_change, exact.max_weight_change);
    put(`${name}-tol`, shown.tolerance, exact.tolerance);
    put(`${name}-verdict`, att.verdicts[name], exact.verdict);
  }
}

function table(s, f, w) {
  const body = $("pairs");
  body.textContent = "";
  // `rope frequencies`' report value (θ_i) and `rope wavelengths`' (λ_i): 6 significant digits, as the command's
  // table prints them, so the table fits its panel; every digit (the command's CSV and JSON) in data-exact.
  const scaled = "original_inv_freq" in f.value;
  const theta0 = scaled ? "original_inv_freq" : "inv_freq";
  const curves = w.value.curves.length, pairs = f.value.inv_freq.length;
  // In presenter mode the rows that make the panel's point, without scrolling: the first two and the last pair,
  // and each band boundary with the two pairs on either side; a row "⋮" for the pairs between.
  const point = new Set([0, 1, pairs - 1]);
  if (f.value.band) {
    for (let i = 1; i < pairs; ++i) {
      if (f.value.band[i] !== f.value.band[i - 1]) for (let k = i - 2; k <= i + 1; ++k) point.add(k);
    }
  } else {
    for (let k = 2; k < 6; ++k) point.add(k);
    point.add(pairs - 2);
  }
  let left = 0;  // pairs left out since the last row shown
  for (let i = 0; i < pairs; ++i) {
    if (presenting && !point.has(i)) {
      ++left;
      if (point.has(i + 1) || i === pairs - 1) {
        const row = document.createElement("tr"), td = document.createElement("td");
        td.colSpan = 6;
        td.className = "gap";
        td.textContent = tr("⋮ {0} pairs", left);
        row.appendChild(td);
        body.appendChild(row);
        left = 0;
      }
      continue;
    }
    const row = document.createElement("tr");
    const number = (answer, pick) => [pick(answer.shown)[i], pick(answer.exact)[i]];
    const cells = [[String(i)], number(f, (v) => v.value[theta0]), number(w, (v) => v.value.curves[0].wavelength),
                   scaled ? number(f, (v) => v.value.inv_freq) : ["–"],
                   scaled && curves > 1 ? number(w, (v) => v.value.curves[1].wavelength) : ["–"],
                   [f.value.band ? tr(f.value.band[i]) : "–"]];
    for (const [text, exact] of cells) {
      const td = document.createElement("td");
      td.textContent = text;
      if (exact !== undefined) td.dataset.exact = exact;
      row.appendChild(td);
    }
    body.appendChild(row);
  }
  put("attention-factor", f.shown.value.attention_factor, f.exact.value.attention_factor);
  $("warnings").textContent = f.warnings.join("\n");
  $("warnings").hidden = f.warnings.length === 0;
}

// What the address asked for that the page could not show as written (fromAddress): [id, values…] each, said in
// the page's language on every update.
let addressNotes = [];
let computing = 0;
function update() {
  const s = settings();
  $("pair").max = s.d / 2 - 1;
  for (const id of Object.keys(controls)) {
    const out = $(`${id}-out`);
    if (out) out.textContent = typeof s[id] === "boolean" ? "" : String(s[id]);
  }
  for (const e of document.querySelectorAll(".scaled-only")) e.hidden = s.scaling === "none";
  $("L0-row").hidden = !(s.scaling === "yarn" || s.scaling === "llama3");
  $("variant-row").hidden = s.scaling !== "yarn";
  $("address-note").textContent = addressNotes.map(([id, ...values]) => tr(id, ...values)).join(" ");
  $("address-note").hidden = addressNotes.length === 0;
  const f = rope.frequencies(s), w = rope.wavelengths(s), p = rope.pair(s), mat = rope.matrix(s), dec = rope.decay(s);
  const att = rope.attention(s), cache = rope.cache(s);
  const failed = [f, w, p, mat, dec, att, cache].find((x) => x.error !== undefined);
  $("error").textContent = failed ? tr("rope: {0}", lang === "zh" ? failed.error_zh : failed.error) : "";
  document.body.classList.toggle("failed", Boolean(failed));
  if (failed) return;
  drawPlane(s, f, p);
  drawMatrix(s, f, mat);
  drawDecay(s, f, dec);
  drawWavelengths(s, w);
  drawAttention(s, att);
  table(s, f, w);
  drawCache(s, cache);
  drawGrid(s);
  const cmd = commands(s, f);
  for (const [id, text] of Object.entries(cmd)) putCommand($(`cmd-${id}`), text);
  put("all-commands", Object.values(cmd).join("\n"));
  toAddress();
  document.body.dataset.updates = String(++computing);
  measure();
}

// The command beside each panel, which prints that panel's numbers (tests/browser/check_live.py runs each one
// and compares what it prints with the page). On the Chinese page they print Chinese.
function commands(s, f) {
  let scale = "";
  if (s.scaling !== "none") {
    scale = ` --scaling ${s.scaling} --factor ${s.factor}`;
    if (s.scaling === "yarn" || s.scaling === "llama3") scale += ` --original-max-position ${s.L0}`;
    if (s.scaling === "llama3") scale += " --low-freq-factor 1 --high-freq-factor 4";
    if (s.scaling === "yarn" && s.yarn_variant !== "hf") scale += ` --yarn-variant ${s.yarn_variant}`;
  }
  const db = `--dim ${s.d} --base ${s.base}`;
  const zh = lang === "zh" ? " --lang zh" : "";
  const att = `rope attention --tokens ${s.tokens} ${db} --shift ${s.shift}${s.causal ? " --causal" : ""}`;
  return {
    plane: `rope explain --position ${s.m} --position ${s.n} --theta ${f.exact.value.inv_freq[s.pair]} --step 5 --quiet${zh}`,
    matrix: `rope matrix ${db} --position ${s.m} --layout ${s.layout}${scale}${zh}`,
    decay: `rope decay ${db} --max-distance ${s.max_distance}${scale}${zh}`,
    wavelengths: `rope wavelengths ${db} --context ${s.context}${scale}${zh}`,
    "att-rope": `${att} --encoding rope${scale}${zh}`,
    "att-sinusoidal": `${att} --encoding sinusoidal${zh}`,
    pairs: `rope frequencies ${db}${scale}${zh}`,
    cache: `rope layouts ${db}${scale} --cache --png cache.png${zh}`,
    axes: `rope sections --model ${s.grid_model} --grid ${s.grid_frames}x${s.grid_rows}x${s.grid_columns} ` +
          `--patch ${gridPatch.join(",")}${zh}`,
  };
}

// A command as its text (what a click copies), each word unbroken: a long command wraps at its spaces, never
// inside an option such as --position.
function putCommand(code, text) {
  code.textContent = "";
  text.split(" ").forEach((word, k) => {
    if (k) code.appendChild(document.createTextNode(" "));
    const span = document.createElement("span");
    span.className = "word";
    span.textContent = word;
    code.appendChild(span);
  });
}

// A click on a command copies it (the clipboard where the browser allows it, else the selection).
function copyCommand(code) {
  const range = document.createRange();
  range.selectNodeContents(code);
  const sel = window.getSelection();
  sel.removeAllRanges();
  sel.addRange(range);
  const done = () => {
    code.classList.add("copied");
    setTimeout(() => code.classList.remove("copied"), 800);
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(code.textContent).then(done, () => {});
  } else {
    done();
  }
}
for (const code of document.querySelectorAll(".cmd code")) code.addEventListener("click", () => copyCommand(code));

function translate() {
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  for (const e of document.querySelectorAll("[data-tr]")) e.textContent = tr(e.dataset.tr);
  // Full-width punctuation after Chinese words.
  for (const e of document.querySelectorAll(".colon")) e.textContent = lang === "zh" ? "：" : ": ";
  for (const e of document.querySelectorAll(".comma")) e.textContent = lang === "zh" ? "，" : ", ";
  $("lang").textContent = lang === "zh" ? "English" : "中文";
}

// Keys for a projector: n and m step with the arrows, d with PageUp/PageDown, the language with L.
const KEYS = {
  ArrowRight: ["n", 1], ArrowLeft: ["n", -1], ArrowUp: ["m", 1], ArrowDown: ["m", -1],
  PageUp: ["d", 2], PageDown: ["d", -2], "]": ["base", 1], "[": ["base", -1],
};
// Presenter mode: one panel at a time, large type. The page measures the smallest text it then shows, in CSS
// pixels as drawn (SVG text scaled with its picture), into body[data-smallest-text]; outside presenter mode the
// smallest figure label of every panel into body[data-smallest-label], and whether every table fits its box
// (no sideways scrolling) into body[data-tables-fit] (tests/browser/check_live.py).
let presenting = false, shown = 0;
function present(on, panel) {
  presenting = on;
  const panels = document.querySelectorAll("#panels > section");
  shown = Math.max(0, Math.min(panels.length - 1, panel));
  document.documentElement.classList.toggle("presenting", on);
  document.body.classList.toggle("presenting", on);
  panels.forEach((p, k) => p.classList.toggle("shown", k === shown));
  document.body.dataset.panel = on ? String(shown + 1) : "";
  document.body.classList.toggle("grid-shown", on && panels[shown] && panels[shown].querySelector("#grid") !== null);
  if (computing) update();  // the table shows its point rows in presenter mode, every row outside it
  else measure();
}
function svgTextSize(t) {
  const svg = t.ownerSVGElement, box = svg.getBoundingClientRect();
  if (!t.textContent.trim() || box.width === 0) return Infinity;
  return Number(t.getAttribute("font-size")) * box.width / svg.viewBox.baseVal.width;
}
// The controls' parts that overlap as drawn: a label's text, its control and its value against each other and
// against every other control's ("" when none do), in either mode. A long option (the layout's) must not run over
// the next control's label at 1280×720 (tests/browser/check_live.py).
function controlsOverlap() {
  const parts = [];
  $("controls").querySelectorAll("label").forEach((label, k) => {
    for (const e of label.children) {
      const r = e.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) parts.push({label: k, name: `${label.textContent.trim().slice(0, 16)}:${e.tagName.toLowerCase()}`, r});
    }
  });
  const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const found = [];
  for (let i = 0; i < parts.length; ++i) {
    for (let j = i + 1; j < parts.length; ++j) {
      if (hit(parts[i].r, parts[j].r)) found.push(`${parts[i].name} × ${parts[j].name}`);
    }
  }
  return found.join("; ");
}

function measure() {
  document.body.dataset.controlsOverlap = controlsOverlap();
  if (!presenting) {
    let label = Infinity;
    for (const t of document.querySelectorAll("#panels svg text")) label = Math.min(label, svgTextSize(t));
    document.body.dataset.smallestLabel = label.toFixed(1);
    const boxes = [...document.querySelectorAll("#pairs-box")];
    document.body.dataset.tablesFit = boxes.every((b) => b.scrollWidth <= b.clientWidth + 1) ? "1" : "0";
    // Panel 1's vector labels as drawn (CSS pixels): "text x y width height" each, joined by ";".
    document.body.dataset.planeLabels = [...document.querySelectorAll("#plane text.vector-label")].map((t) => {
      const r = t.getBoundingClientRect();
      return [t.textContent, r.x, r.y, r.width, r.height].map((v) => typeof v === "number" ? v.toFixed(1) : v).join(" ");
    }).join(";");
    return;
  }
  let smallest = Infinity, which = "";
  const section = document.querySelectorAll("#panels > section")[shown];
  if (!section) return;
  const smaller = (size, e) => {
    if (size < smallest) [smallest, which] = [size, `${e.closest("[id]") ? e.closest("[id]").id : ""}:${e.textContent.slice(0, 20)}`];
  };
  for (const t of section.querySelectorAll("svg text")) smaller(svgTextSize(t), t);
  for (const e of section.querySelectorAll("h2, p, td, th, code, span.num, aside")) {
    if (e.offsetParent !== null && e.textContent.trim()) smaller(parseFloat(getComputedStyle(e).fontSize), e);
  }
  document.body.dataset.smallestText = smallest.toFixed(1);
  document.body.dataset.smallestWhat = which;
  // What does not fit (issue 68): every element of the shown panel and of the controls, as drawn, outside the
  // window or (a control) outside the controls' box; an SVG counts as its box. "" when all of it fits.
  const vw = document.documentElement.clientWidth, vh = document.documentElement.clientHeight;
  const box = $("controls").getBoundingClientRect(), outside = [];
  const name = (e) => e.id ? `#${e.id}` : e.tagName.toLowerCase() + (e.className && typeof e.className === "string" ? `.${e.className}` : "");
  for (const e of [section, ...section.querySelectorAll("*"), ...$("controls").querySelectorAll("*")]) {
    if (e.closest("svg") && e.tagName.toLowerCase() !== "svg") continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;  // not shown
    const control = e.closest("#controls") !== null;
    const out = r.left < -0.5 || r.top < -0.5 || r.right > vw + 0.5 || r.bottom > vh + 0.5 ||
                (control && (r.left < box.left - 0.5 || r.right > box.right + 0.5));
    if (out) outside.push(name(e));
    // Text cut inside its box: a box that hides or scrolls what does not fit holds more than it shows (the
    // table's columns cut on the right, rows that need scrolling), or a cell narrower than its text.
    const style = getComputedStyle(e);
    const form = ["INPUT", "SELECT", "BUTTON", "OPTION"].includes(e.tagName);
    const clips = !form && (style.overflowX !== "visible" || style.overflowY !== "visible" || e.tagName === "TD" ||
                            e.tagName === "TH");
    if (clips && (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1) && e.clientWidth > 0) {
      outside.push(name(e) + ":cut");
    }
  }
  document.body.dataset.outside = outside.join(" ");
  // The controls a presenter can reach on this panel: those drawn (panel 8's grid controls on a narrow screen too).
  document.body.dataset.controlsShown = [...$("controls").querySelectorAll("input, select")]
    .filter((e) => e.getBoundingClientRect().width > 0).map((e) => e.id).join(" ");
}

function key(name) {
  if (name === "p" || name === "P") {
    present(!presenting, shown);
    toAddress();
    return true;
  }
  if (presenting && (name === " " || name === "Backspace")) {
    present(true, shown + (name === " " ? 1 : -1));
    toAddress();
    return true;
  }
  if (presenting && (name === "n" || name === "N")) {  // the shown panel's speaker notes, on and off
    document.body.classList.toggle("notes");
    measure();
    return true;
  }
  if (presenting && name === "Escape") {
    present(false, shown);
    toAddress();
    return true;
  }
  if (name === "l" || name === "L") {
    lang = lang === "zh" ? "en" : "zh";
    translate();
    update();
    return true;
  }
  const step = KEYS[name];
  if (!step) return false;
  const input = $(step[0]);
  const v = Math.min(Number(input.max), Math.max(Number(input.min), Number(input.value) + step[1]));
  input.value = String(v);
  input.dispatchEvent(new Event("input"));
  return true;
}
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
  if (key(e.key)) e.preventDefault();
});

for (const id of Object.keys(controls)) $(id).addEventListener("input", update);
$("lang").addEventListener("click", () => key("l"));

// The state in the address (issue 68): every control's value, as the command beside each panel spells it
// (#base=500000&d=128&scaling=yarn&factor=4), and the language, written on each update without a new history
// entry, so a bookmark or a copied link opens the page as it is now; the link #state shows it too.
let written = "";
function stateHash() {
  const params = new URLSearchParams();
  params.set("lang", lang);
  const s = settings();
  for (const id of Object.keys(controls)) {
    params.set(id, typeof s[id] === "boolean" ? (s[id] ? "1" : "0") : String(s[id]));
  }
  if (presenting) params.set("present", String(shown + 1));
  return "#" + params.toString();
}
function toAddress() {
  written = stateHash();
  $("state").href = written;
  if (location.hash !== written) history.replaceState(null, "", written);
}
window.addEventListener("hashchange", () => {
  if (location.hash !== written) fromAddress(location.hash);
});
$("copy-all").addEventListener("click", () => copyCommand($("all-commands")));

// The sliders that step through a list of round values: a value of the address between the list's first and
// last is added to the list as a stop of its own (so it means what it says and the keys still step from it),
// one outside is refused with a note. An old link (until issue 68) held the slider's positions instead: its
// base, the first thing every link the page wrote held, was a position 0 … 10, never a base the slider shows.
const CHOICES = {base: BASES, factor: FACTORS, L0: ORIGINALS, context: CONTEXTS, shift: SHIFTS};
function choose(id, text, notes, old) {
  const list = CHOICES[id], input = $(id), v = Number(text);
  const kept = () => list[Number(input.value)];
  if (old) {
    if (!/^\d+$/.test(text) || v >= list.length) {
      notes.push([N_("{0} = {1} is not a slider position of an old link (0 … {2}): kept {3}"), id, text, list.length - 1,
                    kept()]);
      return false;
    }
    input.value = text;
    return true;
  }
  if (text.trim() === "" || !Number.isFinite(v)) {
    notes.push([N_("{0} = {1} is not a number: kept {2}"), id, text, kept()]);
    return false;
  }
  if (v < list[0] || v > list[list.length - 1]) {
    notes.push([N_("{0} = {1} is outside what the slider shows ({2} … {3}): kept {4}"), id, text, list[0],
                  list[list.length - 1], kept()]);
    return false;
  }
  if (!list.includes(v)) {
    list.push(v);
    list.sort((a, b) => a - b);
    input.max = String(list.length - 1);
  }
  input.value = String(list.indexOf(v));
  return true;
}
// A plain slider (d, m, n, pair, tokens): an integer on the slider's range and step, else the nearest one shown
// with a note; a list of choices (layout, scaling, yarn_variant): one of its values, else refused with a note.
function setControl(id, text, notes, old) {
  const input = $(id);
  if (id in CHOICES) return choose(id, text, notes, old);
  if (input.type === "checkbox") {
    if (!["0", "1", "true", "false"].includes(text)) {
      notes.push([N_("{0} = {1} is not 0 or 1: kept {2}"), id, text, input.checked ? "1" : "0"]);
      return false;
    }
    input.checked = text === "1" || text === "true";
    return true;
  }
  if (input.tagName === "SELECT") {
    const values = [...input.options].map((o) => o.value);
    if (!values.includes(text)) {
      notes.push([N_("{0} = {1} is not one of {2}: kept {3}"), id, text, values.join(" / "), input.value]);
      return false;
    }
    input.value = text;
    return true;
  }
  const v = Number(text), lo = Number(input.min), hi = Number(input.max), step = Number(input.step);
  if (text.trim() === "" || !Number.isFinite(v)) {
    notes.push([N_("{0} = {1} is not a number: kept {2}"), id, text, input.value]);
    return false;
  }
  const near = Math.min(hi, Math.max(lo, lo + Math.round((v - lo) / step) * step));
  if (near !== v) {
    notes.push([N_("{0} = {1} is not on the slider ({2} … {3} in steps of {4}): shown {5}"), id, text, lo, hi, step,
                  near]);
  }
  input.value = String(near);
  return true;
}

// The address may set controls and press keys, in order: #lang=zh&d=16&scaling=yarn&key=ArrowRight.
// Each one moves its control as a hand would (its value, then an input event), so the browser test
// exercises the same path as a class does. What the page could not show as written is said in #address-note.
function fromAddress(hash) {
  const params = new URLSearchParams(hash.slice(1));
  const base = params.get("base");
  const old = base !== null && /^\d+$/.test(base) && Number(base) < BASES.length && !BASES.includes(Number(base));
  const notes = old ? [[N_("An old link: base, factor, L0, context and shift read as slider positions.")]] : [];
  // pair i is checked against the address's d, whichever comes first.
  if (params.has("d") && Number.isFinite(Number(params.get("d")))) {
    $("pair").max = String(Math.max(0, Math.min(256, Number(params.get("d"))) / 2 - 1));
  }
  for (const [k, v] of params) {
    if (k === "lang") {
      lang = v === "zh" ? "zh" : "en";
      if (v !== "zh" && v !== "en") notes.push([N_("lang = {0}: this page speaks en and zh; shown in English"), v]);
      translate();
    } else if (k === "key") {
      key(v);
    } else if (k === "present") {
      present(true, Number(v) - 1);
    } else if (k in controls) {
      if (setControl(k, v, notes, old)) $(k).dispatchEvent(new Event("input"));
    }
  }
  addressNotes = notes;
  update();  // the commands in the address's language
}
// Panel 8 (Part 9 of docs/classroom.md): a latent grid of frames × rows × columns, one patch (a click chooses it)
// and its neighbours (the next column, row and frame, where the grid has them), and the head's pairs coloured by the
// axis each reads, with a row of bars per neighbour under the pairs whose angles differ between the patch and it. The
// library computes it all (rope.axes_grid: analysis/teaching/axes_grid.hpp), the sentences too; the page draws it.
// The colours are those of `rope sections`' figure: t blue, h orange, w green; a neighbour is outlined, and its bars
// drawn, in the colour of the axis it steps along.
const AXIS_COLOURS = {t: "#0072b2", h: "#d55e00", w: "#009e73", e: "#777777"};
let gridPatch = [0, 0, 0];
function drawGrid(s) {
  const svg = $("grid");
  clear(svg);
  gridPatch = [Math.min(gridPatch[0], s.grid_frames - 1), Math.min(gridPatch[1], s.grid_rows - 1),
               Math.min(gridPatch[2], s.grid_columns - 2)];
  const g = rope.axes_grid({...s, grid_frame: gridPatch[0], grid_row: gridPatch[1], grid_column: gridPatch[2]});
  if (g.error !== undefined) {
    $("grid-sentence").textContent = tr("rope: {0}", lang === "zh" ? g.error_zh : g.error);
    $("grid-neighbours").textContent = "";
    return;
  }
  const v = g.value;
  $("grid-sentence").textContent = g.sentence;
  $("grid-neighbours").textContent = g.neighbour_sentences.join("\n");
  $("grid-text").textContent = tr(s.grid_model.startsWith("wan")
    ? "The text reaches the video through cross-attention and carries no position; a patch has a frame, a row and a column. Click a patch: its next column, row and frame each differ in one axis, so only that axis's pairs turn them apart (the bar rows under the pairs)."
    : "A text token is one position on every axis; a patch has a frame, a row and a column. Click a patch: its next column, row and frame each differ in one axis, so only that axis's pairs turn them apart (the bar rows under the pairs).");
  const outline = new Map();  // "f,r,c" → the colour of the axis a neighbour steps along
  for (const n of v.neighbours) outline.set(n.patch.join(","), AXIS_COLOURS[n.axis]);
  // The frames side by side, each a block of rows × columns cells.
  const gap = 24, top = 40, width = 540, height = 170;
  const cell = Math.min((width - gap * (v.frames - 1)) / (v.frames * v.columns), height / v.rows);
  const blockW = cell * v.columns, left = 20 + (width - v.frames * blockW - gap * (v.frames - 1)) / 2;
  for (let f = 0; f < v.frames; ++f) {
    const x0 = left + f * (blockW + gap);
    el(svg, "text", {x: x0 + blockW / 2, y: top - 10, "text-anchor": "middle", "font-size": 20}, tr("frame {0}", f));
    for (let r = 0; r < v.rows; ++r) {
      for (let c = 0; c < v.columns; ++c) {
        const first = f === v.first[0] && r === v.first[1] && c === v.first[2];
        const next = outline.get(`${f},${r},${c}`);
        const rect = el(svg, "rect", {x: x0 + c * cell + 2, y: top + r * cell + 2, width: cell - 4, height: cell - 4,
          class: "cell", fill: first || next ? "#fff3c4" : "#f2f2f2",
          stroke: first ? "#000" : next || "#bbb", "stroke-width": first || next ? 4 : 1});
        rect.addEventListener("click", () => {
          if (c + 1 < v.columns) {
            gridPatch = [f, r, c];
            update();
          }
        });
        if (cell >= 40) {
          el(svg, "text", {x: x0 + (c + 0.5) * cell, y: top + (r + 0.5) * cell + 7, "text-anchor": "middle",
            "font-size": 20, "pointer-events": "none"}, `${r},${c}`);
        }
      }
    }
  }
  // The pairs, one square each, coloured by axis; under them a row of bars per neighbour, in its axis's colour,
  // under each pair whose angle differs between the patch and that neighbour.
  const n = v.axes.length, y0 = top + v.rows * cell + 40, pw = 540 / n;
  for (let j = 0; j < n; ++j) {
    const a = v.axes[j];
    el(svg, "rect", {x: 20 + j * pw, y: y0, width: Math.max(1, pw - 1), height: 30, fill: AXIS_COLOURS[a] || GREY});
  }
  v.neighbours.forEach((nb, k) => {
    const differing = new Set(nb.differing);
    for (let j = 0; j < n; ++j) {
      if (differing.has(j)) {
        el(svg, "rect", {x: 20 + j * pw, y: y0 + 34 + 13 * k, width: Math.max(1, pw - 1), height: 9,
          fill: AXIS_COLOURS[nb.axis]});
      }
    }
  });
  el(svg, "text", {x: 20, y: y0 - 8, "font-size": 20}, "j = 0");
  el(svg, "text", {x: 560, y: y0 - 8, "text-anchor": "end", "font-size": 20}, `${n - 1}`);
  let x = 20;
  const legend = y0 + 34 + 13 * v.neighbours.length + 6;
  for (const a of ["t", "h", "w"]) {
    el(svg, "rect", {x, y: legend, width: 20, height: 20, fill: AXIS_COLOURS[a]});
    el(svg, "text", {x: x + 28, y: legend + 17, "font-size": 20}, `${a}: ${v.per_axis[a]}`);
    x += 120;
  }
  el(svg, "text", {x: 20, y: legend + 44, "font-size": 20}, tr("bars: the pairs whose angle differs"));
  el(svg, "text", {x: 20, y: legend + 66, "font-size": 20}, tr("from the next column, row and frame"));
}

const opened = location.hash;  // read before the first update writes the defaults there
translate();
update();
fromAddress(opened);
