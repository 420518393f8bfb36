// Summary table of the outputs scripts/bench.sh wrote into target/bench/ (numbers only).
//   node tests/bench/summary.mjs [dir]
import fs from 'node:fs';
import path from 'node:path';
import { fmt, median, table } from './browser.mjs';

const dir = process.argv[2] || 'target/bench';
const read = (f) => { try { return fs.readFileSync(path.join(dir, f), 'utf8'); } catch { return null; } };
const readJson = (f) => { const t = read(f); try { return t && JSON.parse(t); } catch { return null; } };
const rows = [];
// "12.3 µs" -> ms
const toMs = (t) => { const [v, u] = t.split(' '); return +v * ({ ns: 1e-6, 'µs': 1e-3, us: 1e-3, ms: 1, s: 1e3 }[u] ?? NaN); };
const add = (what, value, detail, target) => rows.push([what, value, detail, target]);

const nj = read('native-json.txt');
if (nj) {
  const runs = [...nj.matchAll(/import ([\d.]+) s CPU \(([\d.]+) s wall\) = (\d+) MB\/s/g)];
  const size = nj.match(/generated ([\d.]+) MB/)?.[1];
  const wall = runs.map((m) => +size / +m[2]);
  add('JSON import, native', `${fmt(Math.max(...runs.map((m) => +m[3])), 0)} MB/s`, `${size} MB; best of ${runs.length} (CPU time); wall best ${fmt(Math.max(...wall), 0)}, median ${fmt(median(wall), 0)}`, '>= 250 MB/s');
}
const bj = readJson('browser.json');
if (bj?.json) {
  add('JSON import, browser (wasm, 1 thread)', `${fmt(bj.json.mbps_best, 0)} MB/s`, `${fmt(bj.json.mb)} MB; best of ${bj.json.times_ms.length}, median ${fmt(bj.json.mbps_median, 0)}; runs ms ${bj.json.times_ms.map((x) => fmt(x, 0)).join(' ')}`, '>= 250 MB/s');
}
const nm = read('native-memory.txt');
if (nm) {
  for (const m of nm.matchAll(/^(.*?): (\d+) slices.*?= ([\d.]+) bytes\/slice; slice columns ([\d.]+) bytes\/slice/gm)) {
    add(`bytes/slice: ${m[1]}`, `${m[3]}`, `${m[2]} slices; slice columns only ${m[4]}`, '<= 32');
  }
}
if (bj?.json) add('bytes/slice: JSON in the browser', fmt(bj.json.bytes_per_slice, 1), `slice columns only ${fmt(bj.json.column_bytes_per_slice, 1)}`, '<= 32');
if (bj?.lod) {
  const z = bj.lod.zooms;
  const worst = z.reduce((a, b) => (b.frame_ms.p95 > a.frame_ms.p95 ? b : a));
  add(`LOD query + paint per frame, ${bj.lod.build.slices} slices (browser)`, `p95 ${fmt(worst.frame_ms.p95, 2)} ms`, `worst zoom 1/${worst.zoom} (p50 ${fmt(worst.frame_ms.p50, 2)}); per zoom p50/p95: ${z.map((x) => `1/${x.zoom} ${fmt(x.frame_ms.p50, 1)}/${fmt(x.frame_ms.p95, 1)}`).join(', ')}`, 'p95 <= 8 ms');
  const q = z.reduce((a, b) => (b.query_ms.p95 > a.query_ms.p95 ? b : a));
  add('  of which LOD query only (browser)', `p95 ${fmt(q.query_ms.p95, 2)} ms`, `worst zoom 1/${q.zoom}`, '');
  if (bj.lod.alt?.length) {
    const a = bj.lod.alt.reduce((x, y) => (y.frame_ms.p95 > x.frame_ms.p95 ? y : x));
    add(`  same with merge threshold ${a.merge_px} px`, `p95 ${fmt(a.frame_ms.p95, 2)} ms`, `worst zoom 1/${a.zoom} (${fmt(a.items_median, 0)} items)`, '');
  }
}
const fr = readJson('frames.json');
if (fr) {
  for (const mode of [...new Set(fr.runs.map((r) => r.mode))]) {
    const rs = fr.runs.filter((r) => r.mode === mode);
    const worstOn = rs.map((r) => Math.min(...r.levels.map((l) => l.on_time_pct)));
    const worstP95 = rs.map((r) => Math.max(...r.levels.map((l) => l.work_p95_ms)));
    const bestOn = Math.max(...worstOn), bestP95 = Math.min(...worstP95);
    const met = bestOn >= 95 && bestP95 <= 8 ? 'MET' : 'NOT MET';
    const name = mode === 'raster' ? 'pixel-buffer painter' : 'fillRect painter (?raster=0)';
    add(`frames on time, ${fr.slices} slices, pan/zoom (app, ${name})`, `${fmt(bestOn, 1)} %`, `worst zoom level, best of ${rs.length} (median ${fmt(median(worstOn), 1)}); all levels together ${rs.map((r) => fmt(r.all.on_time_pct, 1)).join(' / ')} %; ${met}`, '>= 95 % (rAF gap <= 20 ms)');
    add(`frame work p95, same (${name})`, `${fmt(bestP95, 2)} ms`, `worst zoom level, best of ${rs.length} (median ${fmt(median(worstP95), 2)}); p50 all levels ${rs.map((r) => fmt(r.all.work_p50_ms, 2)).join(' / ')} ms; ${met}`, '<= 8 ms');
  }
}
const cr = read('criterion.txt');
if (cr) {
  const lod = [...cr.matchAll(/lod_query_1920px\/zoom\/(1\/\d+)\s+time:\s+\[([\d.]+ \S+) ([\d.]+ \S+) ([\d.]+ \S+)\]/g)];
  if (lod.length) {
    const worst = lod.reduce((x, y) => (toMs(y[3]) > toMs(x[3]) ? y : x));
    add('LOD query, native, 10M slices on 1 track', `${fmt(toMs(worst[3]), 3)} ms`, `worst zoom ${worst[1]}; per query of all depths at 1920 px (criterion): ${lod.map((m) => `${m[1]} ${m[3]}`).join(', ')}`, '');
  }
  const agg = [...cr.matchAll(/aggregate_by_name\/(\S+)\s+time:\s+\[([\d.]+ \S+) ([\d.]+ \S+) ([\d.]+ \S+)\]/g)];
  if (agg.length) add('aggregate_by_name, native, 10M slices', `${fmt(toMs(agg[0][3]), 1)} ms`, `criterion: ${agg.map((m) => `${m[1]} ${m[3]}`).join(', ')}`, '');
  const thr = [...cr.matchAll(/import\/(\S+)\s+time:[^\n]*\n\s+thrpt:\s+\[([\d.]+ \S+) ([\d.]+ \S+) ([\d.]+ \S+)\]/g)];
  for (const m of thr) add(`criterion import/${m[1]}`, m[3], 'criterion (MiB/s = 1.048576 MB/s)', '');
}
const nn = read('native-ntff.txt');
if (nn) {
  const m = nn.match(/parse: best ([\d.]+) s, mean ([\d.]+) s over (\d+) runs -> (\d+) MB\/s of records \(best\), (\d+) MB\/s \(mean\)/);
  const area = nn.match(/\(([\d.]+) MB records/)?.[1];
  const split = nn.match(/user ([\d.]+) s, system ([\d.]+) s/);
  if (m) add('NTFF decode, native', `${m[4]} MB/s`, `${area} MB of records; best of ${m[3]} (wall), mean ${m[5]}${split ? `; CPU user ${split[1]} s + system ${split[2]} s per run` : ''}`, '>= 500 MB/s');
}
if (bj?.ntff) add('NTFF decode, browser (wasm, 1 thread)', `${fmt(bj.ntff.mbps_best, 0)} MB/s`, `${fmt(bj.ntff.records_mb)} MB of records; best of ${bj.ntff.times_ms.length}, median ${fmt(bj.ntff.mbps_median, 0)}; runs ms ${bj.ntff.times_ms.map((x) => fmt(x, 0)).join(' ')}`, '>= 500 MB/s');
const na = read('ntff-app.txt');
const g7 = na?.match(/goal 7 \(NTFF ≥ 500 MB\/s end to end, median\): (\d+) MB\/s \(median (\d+) ms of (\d+)\); worker alone (\d+) MB\/s/);
if (g7) add('NTFF pair, app end to end (file input → painted)', `${g7[1]} MB/s`, `median ${g7[2]} ms of ${g7[3]} runs; the worker's import alone ${g7[4]} MB/s (tests/bench/open-ntff.mjs)`, '>= 500 MB/s');
const ss = readJson('speedscope-vs-loupe.json');
if (ss) {
  const mb = ss.bytes / 1e6;
  for (const [k, v] of Object.entries(ss.summary)) add(`open ${fmt(mb, 0)} MB trace: ${k}`, `${fmt(v.median_ms, 0)} ms`, `median of ${v.runs.length} (min ${fmt(v.min_ms, 0)}); ${fmt(v.mbps_median, 1)} MB/s`, '');
  add('speedscope / Loupe', `${fmt(ss.ratio_median, 1)}x`, `median (min: ${fmt(ss.ratio_min, 1)}x); Loupe = ${ss.app_dist ? 'app build' : 'bench wasm page (no app build)'}`, '>= 5x');
}
// issue 42, goal 1: the file input -> first complete paint lines of speedscope-vs-loupe.mjs
const sst = read('speedscope.txt');
for (const m of sst?.matchAll(/issue 42 goal 1 \(file input (.*?) -> first complete timeline paint\): speedscope (\d+) ms .*? \/ Loupe (\d+) ms = ([\d.]+)x \(median; goal >= (\d+)x/g) ?? []) {
  add(`goal 1: speedscope / Loupe, file input ${m[1]}`, `${m[4]}x`, `speedscope ${m[2]} ms, Loupe ${m[3]} ms (medians); ${+m[4] >= +m[5] ? 'MET' : 'NOT MET'}`, `>= ${m[5]}x`);
}
// issue 10, goal 6: reopen.mjs's last line per size
for (const m of read('reopen.txt')?.matchAll(/re-open \((.*?), ([\d.]+) MB, .*?first open median (\d+) ms .*?re-open median (\d+) ms → ([\d.]+)×/g) ?? []) {
  add(`goal 6: re-open ${fmt(+m[2], 0)} MB from the cache`, `${m[5]}x`, `first open ${m[3]} ms, re-open ${m[4]} ms (medians); ${+m[5] >= 5 ? 'MET' : 'NOT MET'}`, '>= 5x');
}
// issue 10, goal 5: load-gaps.mjs (long tasks and rAF gaps during a big open)
const lg = read('load-gaps.txt');
if (lg) {
  const tasks = [...lg.matchAll(/^longtask at .*?: (\d+) ms/gm)].map((m) => +m[1]);
  const gaps = [...lg.matchAll(/^rAF gap at .*?: (\d+) ms/gm)].map((m) => +m[1]);
  const worst = Math.max(0, ...tasks, ...gaps);
  add(`goal 5: main thread during a ${process.env.GAPS_MB ?? 1000} MB open`, `${tasks.length} long tasks`, `longest long task ${tasks.length ? Math.max(...tasks) : '-'} ms, longest rAF gap over 40 ms ${gaps.length ? Math.max(...gaps) : '-'} ms; ${worst <= 50 ? 'MET' : 'NOT MET'}`, 'no stall > 50 ms');
}
// issue 42, goal 4: widget-tour.mjs (every widget, search, colourings, sorts on the big demo)
const tour = readJson('widget-tour.json');
if (tour?.rows?.length) {
  const worst = tour.rows.reduce((a, b) => (b.longest > a.longest ? b : a));
  const over = tour.rows.filter((r) => r.longest > 50).map((r) => `${r.name} ${fmt(r.longest, 0)}`);
  const slow = tour.rows.filter((r) => r.firstMs > 100).length;
  add(`42 goal 4: interaction on ${tour.input}`, `longest task ${fmt(worst.longest, 0)} ms`, `${worst.name}; over 50 ms: ${over.join(', ') || 'none'}; first response over 100 ms: ${slow} of ${tour.rows.length}; ${worst.longest <= 50 && !slow ? 'MET' : 'NOT MET'}`, '<= 50 ms, response <= 100 ms');
}
console.log('\nLoupe benchmark summary (numbers only; targets for reference)\n');
table(['measure', 'value', 'target', 'detail'], rows.map(([a, b, c, d]) => [a, b, d, c]), [0, 3]);
