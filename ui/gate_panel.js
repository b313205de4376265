// The live SCAR gate panel (Streamlit components v2; no build step, no dependency).
//
// Python (ui/gate_panel.py) sends one payload per query (scar_viz.views.focus.gate_payload):
// exact float64 cos(q, c) and, for the top-kmax chunks, cos(c, c±d) for d = 1..rmax. Moving λ
// or τ redraws the focus rows, the whole-document minimap and the decision plane here, with the
// same rule and the same float64 arithmetic as scar_viz.scoring.scar.select_from_sims
// (docs/method.md §2):
//     b = min(2, max(0, 1 - cos(c, n)));  S = cos(q, n) - λ·b;  admit iff S > τ·cos(q, c).
// With the page's μ > 0 (this project's extension, docs/method.md §8) S gains + μ·lex(q, n),
// added after the penalty as the Python gate adds it, lex from the payload (exact float64).
// Releasing a slider sends {lam, tau} to Python as the trigger value "release".
// Document text is untrusted: it only ever goes into the DOM through textContent.
// Test hooks on `window` exist only when the page's address carries test_hooks=1 (see the end).

const COLOURS = { retrieved: "#1f3b73", admitted: "#1a9850", rejected: "#d73027" };
const BLUES = ["#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b"];

function decodeF64(text) {
  const bin = atob(text);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Float64Array(bytes.buffer);
}

function parsePayload(p) {
  const sims = decodeF64(p.sims);
  const ncos = decodeF64(p.ncos);
  const order = p.order;
  const rmax = p.rmax;
  // pen[row][side][d-1] = b(c, c∓d), clipped exactly as the Python gate clips it
  const pen = order.map((_, row) =>
    [0, 1].map((side) => {
      const out = new Float64Array(rmax);
      for (let d = 0; d < rmax; d++) {
        const cos = ncos[(row * 2 + side) * rmax + d];
        out[d] = Math.min(2, Math.max(0, 1 - cos));
      }
      return out;
    })
  );
  const lex = p.lex ? decodeF64(p.lex) : null;
  return { n: p.n, sims, lex, order, rmax, pen, cells: p.cells, adj: p.adj, focus: p.focus, files: p.files || {} };
}

// [first, last] chunk of c's file (every neighbour stays inside its chunk's file)
function fileRange(P, c) {
  return P.files[String(c)] || [0, P.n - 1];
}

// What an edge of the range [first, last] is called: the document's when the range is all of
// it (a document of one file), else its file's
function edgeName(P, first, last) {
  return first === 0 && last === P.n - 1 ? "document" : "file";
}

// The gate, step for step as select_from_sims: rank order, left then right, outward.
function decide(P, lam, tau, k, r, mu = 0) {
  const words = mu && P.lex ? P.lex : null;
  k = Math.max(0, Math.min(k, P.order.length));
  r = Math.max(0, Math.min(r, P.rmax));
  const isRet = new Set(P.order.slice(0, k));
  const out = [];
  for (let row = 0; row < k; row++) {
    const c = P.order[row];
    const bar = tau * P.sims[c];
    const [first, last] = fileRange(P, c);
    for (let side = 0; side < 2; side++) {
      const step = side === 0 ? -1 : 1;
      for (let d = 1; d <= r; d++) {
        const j = c + step * d;
        if (j < first || j > last) break;
        const penalty = P.pen[row][side][d - 1];
        let score = P.sims[j] - lam * penalty;
        if (words) score = score + mu * words[j];
        const outcome = isRet.has(j) ? "retrieved" : score > bar ? "admitted" : "rejected";
        out.push({ chunk: c, neighbour: j, side: side === 0 ? "left" : "right", distance: d, penalty, score, bar, outcome });
        if (outcome === "rejected") break;
      }
    }
  }
  return out;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = String(text);
  return e;
}

const fmt = (x, digits = 3) => (x === null || x === undefined || Number.isNaN(x) ? "—" : x.toFixed(digits));
const signed = (x) => (x > 0 ? "+" : x < 0 ? "−" : "±") + Math.abs(x).toFixed(3);

function blue(t) {
  const x = Math.max(0, Math.min(1, t)) * (BLUES.length - 1);
  return BLUES[Math.round(x)];
}

function slider(label, id, min, max, value) {
  const box = el("label", "sv-ctl");
  const name = el("span", "sv-ctl-name", label);
  const input = el("input");
  Object.assign(input, { type: "range", min, max, step: 0.01, value });
  input.dataset.testid = id;
  input.setAttribute("aria-label", label);
  const out = el("span", "sv-ctl-val", fmt(value, 2));
  box.append(name, input, out);
  return { box, input, out };
}

// --- building the view (once per payload) -----------------------------------------------------

function buildRows(P, k, r, host) {
  // the focused chunk (a click in the overview) first: its retrieved row, or a row of its own
  const specs = P.order.slice(0, Math.min(k, P.order.length)).map((c, row) => ({ c, row, kind: "retrieved" }));
  if (P.focus !== null && P.focus !== undefined && P.focus >= 0 && P.focus < P.n) {
    const at = specs.findIndex((s) => s.c === P.focus);
    if (at >= 0) specs.unshift({ ...specs.splice(at, 1)[0], focused: true });
    else specs.unshift({ c: P.focus, row: -1, kind: "focus", focused: true });
  }
  const rows = [];
  for (const spec of specs) {
    const { c, row, kind } = spec;
    const [first, last] = fileRange(P, c);
    const lo = Math.max(first, c - r), hi = Math.min(last, c + r);
    const card = el("section", spec.focused ? "sv-row sv-focused" : "sv-row");
    card.dataset.chunk = c;
    const head = el("div", "sv-row-head");
    const barOut = el("span", "sv-num", "");
    if (kind === "focus") {
      head.append(
        el("span", "sv-badge sv-focus", "◎ focus"),
        el("b", "", ` chunk ${c}`),
        el("span", "sv-muted", ` · cos(q,c) ${fmt(P.sims[c])} · not retrieved: marks show what the gate did around it`)
      );
    } else {
      head.append(
        el("span", "sv-badge sv-retrieved", `▼ ${row + 1}`),
        el("b", "", ` chunk ${c}`),
        el("span", "sv-muted", ` · cos(q,c) ${fmt(P.sims[c])} · bar τ·cos(q,c) `),
        barOut
      );
    }
    const chips = el("div", "sv-chips");
    if (lo === first) chips.append(el("span", "sv-edge", `${edgeName(P, first, last)} start`));
    const cells = new Map();
    for (let j = lo; j <= hi; j++) {
      const chip = el("div", "sv-chip");
      chip.dataset.index = j;
      const idx = el("div", "sv-chip-idx", j === c ? `c = ${j}` : `${j > c ? "+" : "−"}${Math.abs(j - c)} · ${j}`);
      const cos = el("div", "sv-chip-num", `cos ${fmt(P.sims[j])}`);
      const status = el("div", "sv-chip-status", "");
      const margin = el("div", "sv-chip-num", "");
      chip.append(idx, cos, status, margin);
      chips.append(chip);
      cells.set(j, { chip, status, margin });
    }
    if (hi === last) chips.append(el("span", "sv-edge", `${edgeName(P, first, last)} end`));
    const cuts = el("div", "sv-cuts");
    const cutEls = [];
    for (let i = lo; i < hi; i++) {
      const left = P.cells[String(i)] || ["", "", ""];
      const right = P.cells[String(i + 1)] || ["", "", ""];
      const cut = el("div", "sv-cut");
      const tail = el("div", "sv-tail", left[0]);
      tail.title = `end of chunk ${i} (cos(q,·) ${fmt(P.sims[i])})`;
      const mid = el("div", "sv-mid");
      mid.append(
        el("div", "sv-mid-idx", `${i} | ${i + 1}`),
        el("div", "sv-mid-b", `b ${fmt(P.adj[String(i)])}`),
        el("div", "sv-mid-cos", `${fmt(P.sims[i], 2)} · ${fmt(P.sims[i + 1], 2)}`)
      );
      const head2 = el("div", "sv-head", right[1]);
      head2.title = `start of chunk ${i + 1} (cos(q,·) ${fmt(P.sims[i + 1])})`;
      cut.append(tail, mid, head2);
      cuts.append(cut);
      cutEls.push({ left: i, cut });
    }
    card.append(head, chips, cuts);
    host.append(card);
    rows.push({ c, row, kind, lo, hi, barOut, cells, cutEls });
  }
  return rows;
}

// the plane's height of candidate n: cos(q,n) (+ μ·lex(q,n)), before the bar is taken off
function relevance(P, j, mu) {
  return mu && P.lex ? P.sims[j] + mu * P.lex[j] : P.sims[j];
}

function planeGeometry(P, k, r, mu) {
  let xmax = 0.6, ymax = 0.3;
  for (let row = 0; row < Math.min(k, P.order.length); row++) {
    const c = P.order[row];
    const [first, last] = fileRange(P, c);
    for (let side = 0; side < 2; side++) {
      for (let d = 1; d <= r; d++) {
        const j = c + (side === 0 ? -d : d);
        if (j < first || j > last) break;
        xmax = Math.max(xmax, 1.15 * P.pen[row][side][d - 1]);
        const y = relevance(P, j, mu);
        ymax = Math.max(ymax, 1.1 * Math.abs(y), 1.1 * Math.abs(y - 1.5 * P.sims[c]));
      }
    }
  }
  return { xmax, ymax };
}

function buildPlane(P, k, r, host, big, mu) {
  // a canvas: a redraw repaints pixels and causes no layout (SVG text would be re-laid out)
  const f = big ? 1.45 : 1; // presenter mode: larger type and points on the same frame
  const W = 500, H = 340, L = Math.round(50 * f), R = 10, T = 12, B = Math.round(40 * f);
  const { xmax, ymax } = planeGeometry(P, k, r, mu);
  const sx = (x) => L + (x / xmax) * (W - L - R);
  const sy = (y) => T + ((ymax - y) / (2 * ymax)) * (H - T - B);
  const dpr = Math.max(1, Math.min(3, window.devicePixelRatio || 1));
  const words = mu && P.lex;
  const height = words ? "cos(q,n) + μ·lex(q,n) − τ·cos(q,c)" : "cos(q,n) − τ·cos(q,c)";
  const wrap = el("div", "sv-plane-wrap");
  const canvas = el("canvas", "sv-plane");
  canvas.width = W * dpr;
  canvas.height = H * dpr;
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", `Decision plane: each candidate at (b(c,n), ${height}); the gate admits points above y = λ·x`);
  const tip = el("div", "sv-tip");
  tip.style.display = "none";
  wrap.append(canvas, tip);
  host.append(wrap);
  // the static layer (frame, ticks, axis titles), drawn once
  const base = document.createElement("canvas");
  base.width = W * dpr;
  base.height = H * dpr;
  const b = base.getContext("2d");
  b.scale(dpr, dpr);
  b.fillStyle = "#fff";
  b.fillRect(L, T, W - L - R, H - T - B);
  b.strokeStyle = "#ddd";
  b.strokeRect(L + 0.5, T + 0.5, W - L - R - 1, H - T - B - 1);
  b.strokeStyle = "#bbb";
  b.beginPath();
  b.moveTo(L, sy(0));
  b.lineTo(W - R, sy(0));
  b.stroke();
  b.fillStyle = "#555";
  b.font = `${Math.round(11 * f)}px sans-serif`;
  b.textAlign = "center";
  for (const t of [0, 0.5, 1, 1.5, 2].filter((t) => t <= xmax)) {
    b.fillRect(sx(t), H - B, 1, 4);
    b.fillText(String(t), sx(t), H - B + 4 + 11 * f);
  }
  b.textAlign = "right";
  const ystep = ymax > 1 ? 0.5 : ymax > 0.5 ? 0.25 : 0.1;
  for (let i = -Math.floor(ymax / ystep); i * ystep <= ymax + 1e-9; i++) {
    b.fillText((i * ystep).toFixed(2), L - 5, sy(i * ystep) + 4);
  }
  b.fillStyle = "#333";
  b.font = `${Math.round(12 * f)}px sans-serif`;
  b.textAlign = "center";
  b.fillText("boundary penalty b(c,n) = 1 − cos(c,n)", (L + W - R) / 2, H - 6);
  b.save();
  b.translate(13, (T + H - B) / 2);
  b.rotate(-Math.PI / 2);
  b.fillText(height, 0, 0);
  b.restore();
  const ctx = canvas.getContext("2d");
  ctx.scale(dpr, dpr);
  const labelPx = Math.round(11 * f);
  const pl = { W, H, L, R, T, B, f, labelPx, xmax, ymax, sx, sy, dpr, canvas, ctx, base, tip, points: [] };
  canvas.onmousemove = (e) => {
    const rect = canvas.getBoundingClientRect();
    const x = ((e.clientX - rect.left) / rect.width) * W, y = ((e.clientY - rect.top) / rect.height) * H;
    let best = null, dist = 64;
    for (const p of pl.points) {
      const d2 = (p.x - x) ** 2 + (p.y - y) ** 2;
      if (d2 < dist) [best, dist] = [p, d2];
    }
    if (!best) {
      tip.style.display = "none";
      return;
    }
    const d = best.d;
    tip.textContent = `c=${d.chunk} → n=${d.neighbour} (${d.side}, d=${d.distance}) · b ${fmt(d.penalty)} · cos(q,n) ${fmt(P.sims[d.neighbour])}${words ? ` · lex(q,n) ${fmt(P.lex[d.neighbour])}` : ""} · S ${fmt(d.score)} · bar ${fmt(d.bar)} · ${d.outcome}`;
    tip.style.display = "";
    tip.style.left = `${(best.x / W) * rect.width + 10}px`;
    tip.style.top = `${(best.y / H) * rect.height + 10}px`;
  };
  canvas.onmouseleave = () => (tip.style.display = "none");
  return pl;
}

function buildMinimap(P, host) {
  const wrap = el("div", "sv-minimap");
  const W = 1000, H = 34;
  const base = el("canvas");
  base.width = W;
  base.height = H;
  const marks = el("canvas");
  marks.width = W;
  marks.height = H;
  marks.className = "sv-minimap-marks";
  const ctx = base.getContext("2d");
  let lo = Infinity, hi = -Infinity;
  for (let i = 0; i < P.n; i++) {
    lo = Math.min(lo, P.sims[i]);
    hi = Math.max(hi, P.sims[i]);
  }
  lo = Math.min(0, lo);
  const span = Math.max(hi - lo, 1e-9);
  // one column per pixel: the most relevant chunk that falls into it
  for (let x = 0; x < W; x++) {
    const a = Math.floor((x * P.n) / W), b = Math.max(a + 1, Math.floor(((x + 1) * P.n) / W));
    let best = -Infinity;
    for (let i = a; i < Math.min(b, P.n); i++) best = Math.max(best, P.sims[i]);
    if (best === -Infinity) continue;
    ctx.fillStyle = blue((best - lo) / span);
    ctx.fillRect(x, 14, 1, H - 14);
  }
  wrap.append(base, marks);
  const cap = el("div", "sv-muted sv-small", `whole document: ${P.n} chunks, coloured by cos(q,c); ▼ retrieved, ▲ admitted, ✕ rejected`);
  host.append(wrap, cap);
  return { W, H, ctx: marks.getContext("2d"), canvas: marks };
}

// --- redrawing (every input event) -------------------------------------------------------------

function drawMarks(view, P, decisions, retrieved) {
  const { ctx, W, H } = view.minimap;
  ctx.clearRect(0, 0, W, H);
  const x = (i) => ((i + 0.5) * W) / P.n;
  const tri = (cx, up, colour) => {
    ctx.fillStyle = colour;
    ctx.beginPath();
    if (up) {
      ctx.moveTo(cx - 5, 12); ctx.lineTo(cx + 5, 12); ctx.lineTo(cx, 3);
    } else {
      ctx.moveTo(cx - 5, 2); ctx.lineTo(cx + 5, 2); ctx.lineTo(cx, 12);
    }
    ctx.fill();
  };
  const admitted = new Set(), rejected = new Set();
  for (const d of decisions) {
    if (d.outcome === "admitted") admitted.add(d.neighbour);
    else if (d.outcome === "rejected") rejected.add(d.neighbour);
  }
  ctx.lineWidth = 2;
  ctx.strokeStyle = COLOURS.rejected;
  for (const j of rejected) {
    if (admitted.has(j) || retrieved.has(j)) continue;
    const cx = x(j);
    ctx.beginPath();
    ctx.moveTo(cx - 4, 3); ctx.lineTo(cx + 4, 11); ctx.moveTo(cx + 4, 3); ctx.lineTo(cx - 4, 11);
    ctx.stroke();
  }
  for (const j of admitted) if (!retrieved.has(j)) tri(x(j), true, COLOURS.admitted);
  for (const c of retrieved) tri(x(c), false, COLOURS.retrieved);
}

// does the segment [ax, ay]–[bx, by] pass through box q?
function crosses(q, ax, ay, bx, by) {
  if (ax > bx) [ax, ay, bx, by] = [bx, by, ax, ay];
  const lo = Math.max(q.x0, ax), hi = Math.min(q.x1, bx);
  if (lo > hi) return false;
  const s = bx === ax ? 0 : (by - ay) / (bx - ax);
  const y0 = bx === ax ? ay : ay + s * (lo - ax), y1 = bx === ax ? by : ay + s * (hi - ax);
  return Math.min(y0, y1) < q.y1 && Math.max(y0, y1) > q.y0;
}

const LABEL_GAP = 3; // px kept between labels, and between a label and a marker: never touching

function placeLabels(pl, visible, lam) {
  // greedy: above, below, right or left of the point, inside the frame, LABEL_GAP px from
  // every other label and marker and off the gate line; failing that farther out on rings,
  // with a leader line (as scar_viz.charts.plane.place_labels). Widths are the canvas's own
  // measure of each label in the font it is drawn in, so a drawn label never outgrows its box.
  const rad = 5 * pl.f;
  const px = pl.labelPx;
  const g0 = LABEL_GAP;
  pl.ctx.font = `${px}px sans-serif`;
  const taken = visible.map((p) => ({ x0: p.x - rad, x1: p.x + rad, y0: p.y - rad, y1: p.y + rad }));
  const line = [pl.sx(0), pl.sy(0), pl.sx(pl.xmax), pl.sy(lam * pl.xmax)];
  const fits = (q) =>
    q.x0 >= pl.L && q.x1 <= pl.W - pl.R && q.y0 >= pl.T && q.y1 <= pl.H - pl.B &&
    !crosses(q, ...line) &&
    taken.every((o) => q.x1 + g0 <= o.x0 || q.x0 >= o.x1 + g0 || q.y1 + g0 <= o.y0 || q.y0 >= o.y1 + g0);
  const out = [];
  for (const p of visible) {
    const w = Math.ceil(pl.ctx.measureText(p.label).width) + 2, h = px;
    const g = rad + 3;
    const spots = [[p.x - w / 2, p.y - g - h], [p.x - w / 2, p.y + g], [p.x + g, p.y - h / 2], [p.x - g - w, p.y - h / 2]];
    for (let ring = 1; ring <= 6; ring++) {
      for (const [ux, uy] of [[0, -1], [0, 1], [1, 0], [-1, 0], [1, -1], [-1, -1], [1, 1], [-1, 1]]) {
        const cx = p.x + ux * (g + w / 2 + ring * h), cy = p.y + uy * (g + h / 2 + ring * h);
        spots.push([cx - w / 2, cy - h / 2, true]);
      }
    }
    for (const [x0, y0, lead] of spots) {
      const q = { x0, x1: x0 + w, y0, y1: y0 + h };
      if (fits(q)) {
        taken.push(q);
        out.push({ p, q, lead: !!lead });
        break;
      }
    }
  }
  return out;
}

function drawPlane(pl, P, decisions, lam, tau, mu) {
  const { ctx, W, H, L, R, T, B, xmax, ymax, sx, sy } = pl;
  ctx.clearRect(0, 0, W, H);
  ctx.drawImage(pl.base, 0, 0, W, H);
  ctx.save();
  ctx.beginPath();
  ctx.rect(L, T, W - L - R, H - T - B);
  ctx.clip();
  ctx.fillStyle = "rgba(26,152,80,0.08)";
  ctx.beginPath();
  ctx.moveTo(sx(0), sy(0));
  ctx.lineTo(sx(xmax), sy(lam * xmax));
  ctx.lineTo(sx(xmax), T);
  ctx.lineTo(sx(0), T);
  ctx.closePath();
  ctx.fill();
  ctx.strokeStyle = "#000";
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.moveTo(sx(0), sy(0));
  ctx.lineTo(sx(xmax), sy(lam * xmax));
  ctx.stroke();
  ctx.restore();
  const visible = [];
  for (const d of decisions) {
    const x = sx(d.penalty);
    const y = sy(Math.max(-ymax, Math.min(ymax, relevance(P, d.neighbour, mu) - tau * P.sims[d.chunk])));
    visible.push({ x, y, outcome: d.outcome, label: `${d.chunk}→${d.neighbour}`, d });
  }
  for (const p of visible) {
    ctx.fillStyle = COLOURS[p.outcome];
    ctx.strokeStyle = "#fff";
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.arc(p.x, p.y, 5 * pl.f, 0, 2 * Math.PI);
    ctx.fill();
    ctx.stroke();
  }
  const labels = placeLabels(pl, visible, lam);
  ctx.strokeStyle = "#888";
  ctx.lineWidth = 1;
  for (const { p, q, lead } of labels) {
    if (!lead) continue;
    ctx.beginPath();
    ctx.moveTo(p.x, p.y);
    ctx.lineTo(Math.max(q.x0, Math.min(q.x1, p.x)), Math.max(q.y0, Math.min(q.y1, p.y)));
    ctx.stroke();
  }
  ctx.fillStyle = "#333";
  ctx.font = `${pl.labelPx}px sans-serif`;
  ctx.textAlign = "left";
  ctx.textBaseline = "alphabetic";
  for (const { p, q } of labels) ctx.fillText(p.label, q.x0 + 1, q.y1 - 0.2 * pl.labelPx);
  ctx.fillStyle = "#000";
  ctx.font = `600 ${Math.round(12 * pl.f)}px sans-serif`;
  ctx.textAlign = "right";
  ctx.fillText(`gate y = ${lam.toFixed(2)}·x`, W - R - 4, T + 14);
  pl.points = visible;
  pl.labelBoxes = labels.map(({ q }) => q);
  return labels.length;
}

function redraw(view, lam, tau) {
  const t0 = performance.now();
  const { P, k, r, mu } = view;
  const decisions = decide(P, lam, tau, k, r, mu);
  const retrieved = new Set(P.order.slice(0, k));
  const byPair = new Map(decisions.map((d) => [`${d.chunk}:${d.neighbour}`, d]));
  let nAdm = 0, nRej = 0;
  const admittedAll = new Set();
  for (const d of decisions) if (d.outcome === "admitted") admittedAll.add(d.neighbour);
  const rejectedAll = new Set();
  for (const d of decisions) if (d.outcome === "rejected" && !admittedAll.has(d.neighbour)) rejectedAll.add(d.neighbour);
  nAdm = admittedAll.size;
  nRej = rejectedAll.size;
  // focus rows
  for (const row of view.rows) {
    const barText = row.kind === "focus" ? "" : fmt(tau * P.sims[row.c]);
    if (row.barOut.textContent !== barText) row.barOut.textContent = barText;
    const kept = new Set(row.kind === "focus" ? [] : [row.c]);
    for (const [j, cell] of row.cells) {
      let role, margin = "";
      if (row.kind === "focus") {
        role = retrieved.has(j) ? "retrieved" : admittedAll.has(j) ? "admitted" : rejectedAll.has(j) ? "rejected" : "none";
      } else if (j === row.c) {
        role = "self";
      } else {
        const d = byPair.get(`${row.c}:${j}`);
        if (!d) role = "unexamined";
        else {
          role = d.outcome;
          margin = `S−bar ${signed(d.score - d.bar)}`;
        }
      }
      if (role === "admitted" || role === "retrieved" || role === "self") kept.add(j);
      if (cell.role !== role) {
        cell.chip.className = `sv-chip sv-${role}`;
        cell.status.textContent = { self: "▼ retrieved", retrieved: "▼ also retrieved", admitted: "▲ admitted", rejected: "✕ rejected", unexamined: "not examined", none: "not a candidate" }[role];
        cell.role = role;
      }
      if (cell.marginText !== margin) {
        cell.margin.textContent = margin;
        cell.marginText = margin;
      }
    }
    for (const { left, cut } of row.cutEls) {
      const joined = kept.has(left) && kept.has(left + 1);
      const cls = joined ? "sv-cut sv-joined" : "sv-cut sv-open";
      if (cut.className !== cls) cut.className = cls;
    }
  }
  // decision plane
  view.labelsShown = drawPlane(view.plane, P, decisions, lam, tau, mu);
  const words = mu ? `, μ ${mu.toFixed(2)}` : "";
  view.summary.textContent = `${k} retrieved · ${nAdm} admitted · ${nRej} rejected (λ ${lam.toFixed(2)}, τ ${tau.toFixed(2)}${words}, r ${r})`;
  drawMarks(view, P, decisions, retrieved);
  view.lastDecisions = decisions;
  const t1 = performance.now();
  return t1 - t0;
}

// The rerun a release causes usually re-sends identical data (Streamlit's message cache then
// skips it and this module is not called again), so the end of the run is watched on the app
// itself: its script state goes to running, then back. A quick run can show neither state (the
// browser draws running and notRunning in one frame: the attribute never changes), so the
// page's own redraw counts too: the app's elements change, then stay still for QUIET_MS while
// nothing runs. A run that changes nothing on the page ends the wait after GIVE_UP_MS.
const QUIET_MS = 250, GIVE_UP_MS = 10000;
function afterRerun(done) {
  const app = document.querySelector("[data-testid='stApp']");
  const state = () => (app ? app.getAttribute("data-test-script-state") : null);
  if (!app || state() === null) {
    done();
    return;
  }
  const busy = (s) => s === "running" || s === "rerunRequested";
  let ran = false, over = false, timer = null;
  const finish = () => {
    if (over) return;
    over = true;
    seen.disconnect();
    drawn.disconnect();
    clearTimeout(timer);
    clearTimeout(cap);
    done();
  };
  const settleThen = () => {
    clearTimeout(timer);
    timer = setTimeout(() => (busy(state()) ? settleThen() : finish()), QUIET_MS);
  };
  // the records' old values count too: a run can go to running and back before the callback
  const seen = new MutationObserver((records) => {
    if (records.some((r) => busy(r.oldValue)) || busy(state())) ran = true;
    if (ran && !busy(state())) finish();
  });
  seen.observe(app, { attributes: true, attributeOldValue: true, attributeFilter: ["data-test-script-state"] });
  const drawn = new MutationObserver(settleThen);
  drawn.observe(app, { subtree: true, childList: true, characterData: true });
  const cap = setTimeout(finish, GIVE_UP_MS);
}

// --- the component -----------------------------------------------------------------------------

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  const root = parentElement.querySelector(".sv-gate");
  if (!root || !data || !data.payload) return;
  root.classList.toggle("sv-big", !!data.big);
  const p = data.payload;
  const lam0 = data.lam ?? p.lam, tau0 = data.tau ?? p.tau;
  // μ is the page's (no range here): a new μ rebuilds the panel, as the plane's frame depends on it
  const mu0 = Number(data.mu) || 0;
  const sameQuery = root.__sv && root.__sv.id === data.id && root.__sv.big === !!data.big && root.__sv.mu === mu0;
  let view = root.__sv;
  if (!sameQuery) {
    root.replaceChildren();
    const P = parsePayload(p);
    const k = Math.min(p.k, P.order.length), r = Math.min(p.radius, P.rmax);
    const controls = el("div", "sv-controls");
    const lam = slider("λ (penalty weight)", "sv-lam", 0, 2, lam0);
    const tau = slider("τ (relative bar)", "sv-tau", 0, 1.5, tau0);
    const summary = el("div", "sv-summary", "");
    // while the ranges move ahead of the page, the page's numbers are those of the last release
    const stale = el("div", "sv-stale", "");
    stale.dataset.testid = "sv-stale";
    stale.setAttribute("role", "status");
    controls.append(lam.box, tau.box, summary, stale);
    const minimapHost = el("div");
    const grid = el("div", "sv-grid");
    const rowsHost = el("div", "sv-rows");
    const planeHost = el("div", "sv-plane-host");
    planeHost.append(el("div", "sv-h", "Decision plane"));
    grid.append(rowsHost, planeHost);
    root.append(controls, minimapHost, grid);
    view = { id: data.id, big: !!data.big, mu: mu0, P, k, r, lam, tau, summary, stale };
    view.minimap = buildMinimap(P, minimapHost);
    rowsHost.append(el("div", "sv-h", `Focus rows: each retrieved chunk c with c−${r} … c+${r}; at each cut the end of the left chunk | the start of the right one`));
    view.rows = buildRows(P, k, r, rowsHost);
    view.plane = buildPlane(P, k, r, planeHost, !!data.big, mu0);
    view.times = [];
    view.scriptTimes = [];
    root.__sv = view;
  } else if (data.seq == null || data.seq !== view.seq) {
    // Python moved λ or τ (its own sliders, a preset): follow. The same seq means the data
    // only repeats what the panel already shows (e.g. the rerun after its own release).
    view.lam.input.value = lam0;
    view.tau.input.value = tau0;
  }
  if (!sameQuery || data.seq == null || data.seq !== view.seq) view.pageAt = [lam0, tau0];
  view.seq = data.seq;
  // a rerun has drawn the page: it shows the last release now
  if (view.pending) {
    view.pending = false;
    view.pageAt = view.releasedAt;
  }
  const showStale = (l, t) => {
    const [pl, pt] = view.pageAt;
    const ahead = l.toFixed(2) !== pl.toFixed(2) || t.toFixed(2) !== pt.toFixed(2);
    view.stale.classList.toggle("sv-on", ahead);
    view.stale.textContent = ahead
      ? `The page below is at the last release (λ ${pl.toFixed(2)}, τ ${pt.toFixed(2)}): it updates on release.`
      : "";
  };
  const current = () => [parseFloat(view.lam.input.value), parseFloat(view.tau.input.value)];
  const onInput = () => {
    const [l, t] = current();
    view.lam.out.textContent = l.toFixed(2);
    view.tau.out.textContent = t.toFixed(2);
    showStale(l, t);
    const t0 = performance.now();
    const script = redraw(view, l, t);
    root.getBoundingClientRect(); // include style and layout in the measured time
    view.times.push(performance.now() - t0);
    view.scriptTimes.push(script);
    if (view.times.length > 2000) {
      view.times.shift();
      view.scriptTimes.shift();
    }
  };
  const onChange = () => {
    const [l, t] = current();
    view.pending = true;
    view.releasedAt = [l, t];
    view.stale.textContent = "Released: the page is updating …";
    afterRerun(() => {
      if (!view.pending) return;
      view.pending = false;
      view.pageAt = view.releasedAt;
      showStale(...current());
    });
    setTriggerValue("release", { lam: l, tau: t });
  };
  view.lam.input.oninput = onInput;
  view.tau.input.oninput = onInput;
  view.lam.input.onchange = onChange;
  view.tau.input.onchange = onChange;
  onInput();
  if (wantsTestHooks()) installTestHooks(view);
}

// Test and benchmark hooks (tests/browser/test_gate_panel.py, benchmarks/gate_panel.py): only
// when the page was opened with ?test_hooks=1, so a normal page puts nothing on `window`.
function wantsTestHooks() {
  return new URLSearchParams(window.location.search).get("test_hooks") === "1";
}

// The last mounted panel answers.
function installTestHooks(view) {
  window.__scarGateDecide = (l, t, k, r, mu = view.mu) =>
    decide(view.P, l, t, k, r, mu).map(({ chunk, neighbour, side, distance, score, bar, outcome }) => ({ chunk, neighbour, side, distance, score, bar, outcome }));
  window.__scarGateTimes = () => view.times.slice();
  window.__scarGateScriptTimes = () => view.scriptTimes.slice();
  window.__scarGateView = () => {
    const { W, H, L, R, T, B, labelBoxes, points } = view.plane;
    return { n: view.P.n, k: view.k, r: view.r, labels: view.labelsShown, points: points.length, labelBoxes, frame: { x0: L, x1: W - R, y0: T, y1: H - B } };
  };
}
