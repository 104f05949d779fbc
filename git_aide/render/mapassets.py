"""The page of `map --html` (mappage.py): its markup, style and script, inline.

Nothing is fetched: the page's Content-Security-Policy forbids every load, so that it
opens the same from a mail, an artifact store or a laptop without a network. The
script reads the JSON that mappage.py puts in place of `/*DATA*/null`, draws the
treemap (squarified: rows laid along the shorter side, each row kept while it makes
its worst aspect ratio better), and lists what a click asks for; memory text is set
as text, never as markup. Over 400 lines: one page, read whole.
"""

from __future__ import annotations

STYLE = r"""
:root { --fg: #1d232a; --muted: #5d6875; --line: #d7dce2; --bg: #f6f7f9; --panel: #fff;
  --none: #cfd4da; --always: #7b3fb3; --stale: #b86e00; --orphaned: #c0392b; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: var(--fg); background: var(--bg); }
header { padding: 12px 20px 8px; border-bottom: 1px solid var(--line); background: var(--panel); }
h1 { font-size: 18px; margin: 0 0 4px; }
h2 { font-size: 15px; margin: 0 0 6px; }
h3 { font-size: 13px; margin: 12px 0 4px; color: var(--muted); text-transform: uppercase;
  letter-spacing: .04em; }
#totals { margin: 0; color: var(--muted); }
main { display: flex; gap: 16px; padding: 12px 20px; align-items: flex-start; }
#mapside { flex: 3 1 0; min-width: 0; }
#panel { flex: 2 1 0; min-width: 280px; max-height: 640px; overflow: hidden auto;
  background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; }
#crumbs { margin-bottom: 6px; }
#crumbs button { border: 0; background: none; color: #1f5fbf; cursor: pointer; padding: 0 2px;
  font: inherit; }
#crumbs span { color: var(--muted); }
#treemap { position: relative; width: 100%; height: 560px; background: var(--panel);
  border: 1px solid var(--line); border-radius: 6px; overflow: hidden; }
.cell { position: absolute; overflow: hidden; border: 1px solid rgba(255,255,255,.9);
  cursor: pointer; padding: 2px 4px; font-size: 12px; color: #111; }
.cell:hover { filter: brightness(1.06); }
.cell.none { background: var(--none); }
.cell.uncovered { background: repeating-linear-gradient(135deg, #e7b9b3 0 6px, #f3dcd8 6px 12px);
  box-shadow: inset 0 0 0 2px var(--orphaned); }
.cell.selected { box-shadow: inset 0 0 0 3px #1f5fbf; }
.cell .name { font-weight: 600; white-space: nowrap; }
.cell .count { color: #333; white-space: nowrap; }
.cell.inner { font-size: 11px; border-color: rgba(255,255,255,.7); }
#legend { display: flex; flex-wrap: wrap; gap: 12px; margin-top: 8px; color: var(--muted);
  font-size: 12px; align-items: center; }
#legend i { display: inline-block; width: 14px; height: 14px; border-radius: 3px;
  vertical-align: -2px; margin-right: 4px; }
ul { list-style: none; margin: 0; padding: 0; }
li.memory { padding: 6px 0; border-top: 1px solid var(--line); }
.id { font-family: ui-monospace, monospace; color: var(--muted); }
.layer { color: var(--muted); margin-left: 6px; }
.scope { font-family: ui-monospace, monospace; margin-left: 6px; }
.badge { display: inline-block; margin-left: 6px; padding: 0 6px; border-radius: 9px;
  font-size: 11px; color: #fff; }
.badge.always { background: var(--always); }
.badge.stale { background: var(--stale); }
.badge.orphaned, .badge.moved { background: var(--orphaned); }
.badge.duplicate { background: #5d6875; }
.what, .scope, .finding, summary { overflow-wrap: anywhere; }
.what { margin-top: 2px; }
button.more { margin: 6px 0; }
section.list { margin: 4px 20px 16px; background: var(--panel); border: 1px solid var(--line);
  border-radius: 6px; padding: 10px 12px; }
details { margin: 4px 0; }
summary { cursor: pointer; }
.finding { padding: 3px 0 3px 18px; border-top: 1px solid var(--line); font-size: 13px; }
.muted { color: var(--muted); }
"""

SCRIPT = r"""
"use strict";
const D = JSON.parse(document.getElementById("data").textContent);
// A folder: [path, files, bytes, memories, here, always, stale, orphaned, moved, uncovered]
const F = D.folders;
const P = F.map(f => f[0]);
const byPath = new Map(P.map((p, i) => [p, i]));
const kids = P.map(() => []);
const parentOf = P.map(() => -1);
P.forEach((p, i) => {
  if (i === 0) return;
  const j = byPath.get(p.slice(0, Math.max(0, p.lastIndexOf("/"))));
  if (j !== undefined) { kids[j].push(i); parentOf[i] = j; }
});
const SHOWN = 300;
let current = 0, selected = 0;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function under(a, b) { return b === "" ? a !== "" : a.startsWith(b + "/"); }
function shown(p) { return p === "" ? "./" : p + "/"; }
function base(p) { return p === D.start ? shown(p) : p.slice(p.lastIndexOf("/") + 1) + "/"; }
function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }
function size(n) {
  if (n < 1024) return n + " B";
  const units = ["KB", "MB", "GB"];
  let v = n, u = -1;
  do { v /= 1024; u++; } while (v >= 1024 && u < units.length - 1);
  return v.toFixed(1) + " " + units[u];
}
function marks(f) {
  const out = [];
  if (f[5]) out.push(f[5] + " always-on");
  if (f[6]) out.push(f[6] + " stale");
  if (f[7]) out.push(f[7] + " orphaned");
  if (f[8]) out.push(f[8] + " moved");
  return out;
}
function counts(f) {
  const m = f[3] ? plural(f[3], "memory", "memories") : "no memory";
  const more = marks(f);
  return m + (more.length ? " (" + more.join(", ") + ")" : "");
}

// -- the treemap ------------------------------------------------------------------------
function worst(row, side) {
  let sum = 0, max = 0, min = Infinity;
  for (const r of row) { sum += r.a; max = Math.max(max, r.a); min = Math.min(min, r.a); }
  const s2 = sum * sum, w2 = side * side;
  return Math.max(w2 * max / s2, s2 / (w2 * min));
}
function squarify(items, x, y, w, h) {
  const total = items.reduce((s, it) => s + it.v, 0);
  if (!total || w <= 0 || h <= 0) return [];
  let rest = items.map(it => ({ it, a: it.v * w * h / total }));
  const out = [];
  while (rest.length) {
    const side = Math.min(w, h);
    let n = 1, best = worst(rest.slice(0, 1), side);
    while (n < rest.length) {
      const next = worst(rest.slice(0, n + 1), side);
      if (next > best) break;
      best = next; n++;
    }
    const row = rest.slice(0, n);
    const thick = row.reduce((s, r) => s + r.a, 0) / side;
    let off = 0;
    for (const r of row) {
      const len = r.a / thick;
      if (w >= h) out.push({ i: r.it.i, x: x, y: y + off, w: thick, h: len });
      else out.push({ i: r.it.i, x: x + off, y: y, w: len, h: thick });
      off += len;
    }
    if (w >= h) { x += thick; w -= thick; } else { y += thick; h -= thick; }
    rest = rest.slice(n);
  }
  return out;
}
function items(list, parent) {
  const out = list.map(i => ({ i, v: Math.max(F[i][2], 1) }));
  if (parent !== undefined) {  // the folder's own files: left blank, in proportion
    const own = F[parent][2] - list.reduce((s, i) => s + F[i][2], 0);
    if (own > 0) out.push({ i: -1, v: own });
  }
  return out.sort((a, b) => b.v - a.v);
}
function colour(i, most) {
  const f = F[i], m = f[3];
  if (!m) return null;
  const bad = Math.min(1, (f[6] + f[7] + f[8]) / m);
  const hue = Math.round(130 * (1 - bad));
  const cover = most > 0 ? Math.min(1, Math.log(1 + m) / Math.log(1 + most)) : 1;
  return "hsl(" + hue + " 62% " + Math.round(84 - 32 * cover) + "%)";
}
function cell(r, most, inner) {
  const f = F[r.i];
  const c = el("div", "cell" + (inner ? " inner" : ""));
  c.dataset.path = f[0];
  Object.assign(c.style, { left: r.x + "px", top: r.y + "px",
    width: Math.max(0, r.w) + "px", height: Math.max(0, r.h) + "px" });
  const bg = colour(r.i, most);
  if (bg) c.style.background = bg;
  else c.classList.add(f[9] ? "uncovered" : "none");
  if (r.i === selected) c.classList.add("selected");
  c.title = shown(f[0]) + "\n" + counts(f) + "\n" + plural(f[1], "file", "files") + ", " +
    size(f[2]) + (f[9] ? "\nmuch code, no memory" : "");
  if (r.w > 36 && r.h > 16) {
    c.appendChild(el("div", "name", base(f[0])));
    const found = [[f[6], "stale"], [f[7], "orphaned"], [f[8], "moved"]].filter(x => x[0]);
    if (r.h > 30) c.appendChild(el("div", "count", f[3] ? plural(f[3], "memory", "memories") +
      (found.length ? ": " + found.map(x => x[0] + " " + x[1]).join(", ") : "") : "no memory"));
  }
  return c;
}
function draw() {
  const box = document.getElementById("treemap");
  box.textContent = "";
  const W = box.clientWidth, H = box.clientHeight;
  const list = kids[current].length ? kids[current] : [current];
  const most = Math.max(...list.map(i => F[i][3]));
  const top = squarify(items(list, kids[current].length ? current : undefined), 0, 0, W, H);
  for (const r of top) {
    if (r.i === -1) continue;
    const c = cell(r, most, false);
    box.appendChild(c);
    if (r.w > 90 && r.h > 60 && kids[r.i].length) {
      const head = 32;
      const sub = kids[r.i];
      const subMost = Math.max(...sub.map(i => F[i][3]));
      for (const s of squarify(items(sub, r.i), 2, head, r.w - 6, r.h - head - 4)) {
        if (s.i !== -1) c.appendChild(cell(s, subMost, true));
      }
    }
  }
  crumbs();
}
function crumbs() {
  const nav = document.getElementById("crumbs");
  nav.textContent = "";
  const chain = [];
  for (let i = current; i !== -1; i = parentOf[i]) chain.unshift(i);
  chain.forEach((i, k) => {
    if (k) nav.appendChild(el("span", "", " / "));
    const b = el("button", "", k ? P[i].slice(P[i].lastIndexOf("/") + 1) : shown(P[i]));
    b.addEventListener("click", () => select(P[i]));
    nav.appendChild(b);
  });
}

// -- a folder's memories ----------------------------------------------------------------
function reaches(r, f) {
  if (r === -1) return f === D.start;
  const [whole, leaves] = D.reaches[r];
  for (const w of whole) { const p = P[w]; if (p === f || under(p, f) || under(f, p)) return true; }
  for (const l of leaves) { const p = P[l]; if (p === f || under(p, f)) return true; }
  return false;
}
function memoriesOf(f) {
  const verdict = new Map();
  const out = [];
  D.memories.forEach((m, k) => {
    let v = verdict.get(m[7]);
    if (v === undefined) { v = reaches(m[7], f); verdict.set(m[7], v); }
    if (v) out.push(k);
  });
  return out;
}
function memoryItem(m) {
  const li = el("li", "memory");
  li.appendChild(el("span", "id", m[0].slice(0, 8)));
  li.appendChild(el("span", "layer", m[1]));
  li.appendChild(el("span", "scope", m[2] || "project-wide"));
  if (m[4]) li.appendChild(el("span", "badge always", "always-on"));
  for (const k of m[5] ? m[5].split(",") : []) li.appendChild(el("span", "badge " + k, k));
  li.appendChild(el("div", "what", m[3]));
  return li;
}
function rank(k) {
  const m = D.memories[k];
  return (m[4] ? 0 : 2) + (m[5] ? 0 : 1);
}
function group(into, title, list) {
  if (!list.length) return;
  list.sort((a, b) => rank(a) - rank(b) || (D.memories[a][2] < D.memories[b][2] ? -1 : 1));
  const box = el("div", "group");
  box.dataset.group = title;
  box.appendChild(el("h3", "", title + " (" + list.length + ")"));
  const ul = el("ul");
  const fill = n => {
    ul.textContent = "";
    list.slice(0, n).forEach(k => ul.appendChild(memoryItem(D.memories[k])));
  };
  fill(SHOWN);
  box.appendChild(ul);
  if (list.length > SHOWN) {
    const more = el("button", "more", "show all " + list.length);
    more.addEventListener("click", () => { fill(list.length); more.remove(); });
    box.appendChild(more);
  }
  into.appendChild(box);
}
function panel(i) {
  const f = F[i];
  document.getElementById("panel-title").textContent = shown(f[0]);
  document.getElementById("panel-counts").textContent = counts(f) + " · " +
    plural(f[1], "file", "files") + ", " + size(f[2]) + (f[9] ? " · much code, no memory" : "");
  const box = document.getElementById("memories");
  box.textContent = "";
  const here = [], below = [], above = [];
  for (const k of memoriesOf(f[0])) {
    const at = D.memories[k][6];
    if (at === i) here.push(k);
    else if (at !== -1 && under(P[at], f[0])) below.push(k);
    else above.push(k);
  }
  group(box, "Scoped here", here);
  group(box, "Scoped below", below);
  group(box, "From folders above", above);
  if (!here.length && !below.length && !above.length)
    box.appendChild(el("p", "muted", "No memory reaches this folder."));
}
function select(path) {
  let i = byPath.get(path);
  if (i === undefined) i = 0;
  selected = i;
  current = kids[i].length || parentOf[i] === -1 ? i : parentOf[i];
  draw();
  panel(i);
  const hash = "#folder=" + encodeURIComponent(P[i]);
  if (location.hash !== hash) history.replaceState(null, "", hash);
}

// -- always-on memories and findings ----------------------------------------------------
function alwaysOn() {
  const box = document.getElementById("always-list");
  const byPlace = new Map();
  D.memories.forEach(m => {
    if (!m[4]) return;
    const at = m[6] === -1 ? "" : P[m[6]];
    if (!byPlace.has(at)) byPlace.set(at, []);
    byPlace.get(at).push(m);
  });
  const places = [...byPlace.keys()].sort();
  document.getElementById("always-title").textContent =
    "Always-on memories (" + places.reduce((s, p) => s + byPlace.get(p).length, 0) + ")";
  if (!places.length) box.appendChild(el("p", "muted", "None."));
  for (const p of places) {
    const d = el("details");
    d.appendChild(el("summary", "", shown(p) + " (" + byPlace.get(p).length + ")"));
    const ul = el("ul");
    byPlace.get(p).forEach(m => ul.appendChild(memoryItem(m)));
    d.appendChild(ul);
    box.appendChild(d);
  }
}
function findings() {
  const box = document.getElementById("findings-list");
  document.getElementById("findings-title").textContent = "Findings (" + D.findings.length + ")";
  if (!D.findings.length) { box.appendChild(el("p", "muted", "No findings.")); return; }
  const kinds = new Map();
  for (const f of D.findings) {
    if (!kinds.has(f[1])) kinds.set(f[1], new Map());
    const areas = kinds.get(f[1]);
    if (!areas.has(f[2])) areas.set(f[2], []);
    areas.get(f[2]).push(f);
  }
  for (const [kind, areas] of kinds) {
    const total = [...areas.values()].reduce((s, l) => s + l.length, 0);
    const d = el("details", "kind");
    d.dataset.kind = kind;
    d.appendChild(el("summary", "", kind + " (" + total + ")"));
    const sorted = [...areas.entries()].sort(
      (a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1));
    for (const [area, list] of sorted) {
      const a = el("details");
      a.appendChild(el("summary", "", shown(area) + " (" + list.length + ")"));
      a.addEventListener("toggle", () => {
        if (!a.open || a.dataset.filled) return;
        a.dataset.filled = "1";
        for (const f of list) {
          a.appendChild(el("div", "finding", f[0].slice(0, 8) + " " + f[3] + " (" + f[4] + ")"));
        }
      });
      d.appendChild(a);
    }
    box.appendChild(d);
  }
}

function start() {
  const from = D.source;
  const what = from.kind === "rev"
    ? "at " + from.rev + " (" + (from.commit || "").slice(0, 12) + ")"
    : from.kind === "index" ? "in the index" : "in the working tree";
  document.getElementById("title").textContent = "Memories of " + D.name + " " + what +
    (D.start ? ", from " + shown(D.start) : "");
  const f = F[0];
  document.getElementById("totals").textContent = counts(f) + " · " +
    plural(f[1], "file", "files") + ", " + size(f[2]) + " in " +
    plural(F.length, "folder", "folders") + " · " +
    plural(D.findings.length, "finding", "findings");
  document.getElementById("treemap").addEventListener("click", ev => {
    const c = ev.target.closest("[data-path]");
    if (c) select(c.dataset.path);
  });
  alwaysOn();
  findings();
  const want = () => {
    const m = /[#&]folder=([^&]*)/.exec(location.hash);
    return m ? decodeURIComponent(m[1]) : D.start;
  };
  window.addEventListener("hashchange", () => select(want()));
  window.addEventListener("resize", draw);
  select(want());
  document.body.dataset.ready = "1";
}
start();
"""

PAGE = ("""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; """
        """style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="git aide map">
<title>git aide map</title>
<style>""" + STYLE + """</style></head>
<body>
<header><h1 id="title">git aide map</h1><p id="totals"></p></header>
<main>
<section id="mapside">
<nav id="crumbs"></nav>
<div id="treemap"></div>
<div id="legend">
<span>area: code size</span>
<span><i style="background:hsl(130 62% 60%)"></i>memories, none stale</span>
<span><i style="background:hsl(65 62% 60%)"></i>half stale</span>
<span><i style="background:hsl(0 62% 60%)"></i>all stale, orphaned or moved</span>
<span>darker: more memories</span>
<span><i style="background:var(--none)"></i>no memory</span>
<span><i style="background:repeating-linear-gradient(135deg,#e7b9b3 0 3px,#f3dcd8 3px 6px);"""
        """box-shadow:inset 0 0 0 2px var(--orphaned)"></i>much code, no memory</span>
</div>
</section>
<aside id="panel"><h2 id="panel-title"></h2><p id="panel-counts" class="muted"></p>
<div id="memories"></div></aside>
</main>
<section class="list"><h2 id="always-title">Always-on memories</h2>
<div id="always-list"></div></section>
<section class="list"><h2 id="findings-title">Findings</h2>
<p class="muted">Stale, orphaned and moved memories, by kind and area (the folder each
memory's scope names, cut to two levels). Near duplicates: <b>git aide audit</b>.</p>
<div id="findings-list"></div></section>
<script type="application/json" id="data">/*DATA*/null</script>
<script>""" + SCRIPT + """</script>
</body></html>
""")
