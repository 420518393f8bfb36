// Paint-strategy probe (issue 10, goal 2): the same ~34 k small rectangles of a mid-zoom 10 M-slice
// frame drawn three ways in headless Chromium (--disable-gpu), timed per frame including a forced
// raster/readback of one pixel:
//   canvas2d  one fillRect per item (what the painter did before)
//   pixels    spans rasterised into a Uint32Array (scanline per row band, copied down the band),
//             then one putImageData
//   webgl2    instanced rectangles (if the browser gives a WebGL2 context at all)
// Numbers only. Env: ITEMS (34000), FRAMES (60), EXTRA_CHROMIUM_ARGS.
//   node tests/bench/paint-probe.mjs
import { launch, pct, fmt, table } from './browser.mjs';

const ITEMS = +(process.env.ITEMS ?? 34000);
const FRAMES = +(process.env.FRAMES ?? 60);
const browser = await launch();
const page = await (await browser.newContext({ viewport: { width: 1920, height: 1080 } })).newPage();
await page.setContent('<canvas id=c width=1920 height=1080></canvas><canvas id=g width=1920 height=1080></canvas>');
const res = await page.evaluate(([N, F]) => {
  const W = 1920, H = 1080, RH = 20, ROWS = 48;
  const rnd = (() => { let s = 12345; return () => ((s = (s * 1103515245 + 12345) >>> 0) / 4294967296); })();
  // items per row, 1–3 px wide, spread over the width (like merged blocks at mid zoom)
  const items = [];
  for (let k = 0; k < N; k++) {
    const row = k % ROWS; const x = rnd() * W; const w = 1 + rnd() * 2;
    items.push({ row, x, w, c: (k * 7) % 12 });
  }
  const palette = Array.from({ length: 12 }, (_, i) => `hsl(${i * 30} 60% 55%)`);
  const out = {};
  const time = (name, frame) => {
    const t = [];
    for (let f = 0; f < F; f++) { const a = performance.now(); frame(f); t.push(performance.now() - a); }
    out[name] = t;
  };
  // canvas2d
  const c = document.getElementById('c').getContext('2d', { willReadFrequently: false });
  time('canvas2d', (f) => {
    c.fillStyle = '#fff'; c.fillRect(0, 0, W, H);
    let last = -1;
    for (const it of items) {
      if (it.c !== last) { c.fillStyle = palette[it.c]; last = it.c; }
      c.fillRect(it.x + f, 30 + it.row * RH, it.w, RH - 1);
    }
    c.getImageData(0, 0, 1, 1);
  });
  // pixels
  const rgba = palette.map((p) => { c.fillStyle = p; const h = c.fillStyle; const n = parseInt(h.slice(1), 16);
    return (0xff << 24) | ((n & 0xff) << 16) | (n & 0xff00) | (n >> 16); });
  const buf = new Uint32Array(W * (H - 30));
  const bytes = new Uint8ClampedArray(buf.buffer);
  const byRow = Array.from({ length: ROWS }, () => []);
  for (const it of items) byRow[it.row].push(it);
  time('pixels', (f) => {
    buf.fill(0xffffffff);
    for (let r = 0; r < ROWS; r++) {
      const y0 = r * RH; const line = y0 * W;
      for (const it of byRow[r]) {
        const a = Math.max(0, Math.round(it.x + f)); const b = Math.min(W, Math.max(a + 1, Math.round(it.x + f + it.w)));
        buf.fill(rgba[it.c], line + a, line + b);
      }
      for (let y = 1; y < RH - 1; y++) buf.copyWithin(line + y * W, line, line + W);
    }
    c.putImageData(new ImageData(bytes, W, H - 30), 0, 30);
    c.getImageData(0, 0, 1, 1);
  });
  // webgl2
  const gl = document.getElementById('g').getContext('webgl2', { antialias: false, preserveDrawingBuffer: false });
  out.webgl = gl ? (gl.getParameter(gl.RENDERER) + ' / ' + gl.getParameter(gl.VERSION)) : null;
  if (gl) {
    const vs = `#version 300 es
      in vec2 corner; in vec4 rect; in vec3 col; out vec3 v;
      uniform vec2 size;
      void main(){ vec2 p = rect.xy + corner * rect.zw; gl_Position = vec4(p / size * vec2(2,-2) + vec2(-1,1), 0, 1); v = col; }`;
    const fs = `#version 300 es
      precision mediump float; in vec3 v; out vec4 o; void main(){ o = vec4(v,1); }`;
    const sh = (t, s) => { const x = gl.createShader(t); gl.shaderSource(x, s); gl.compileShader(x); return x; };
    const p = gl.createProgram(); gl.attachShader(p, sh(gl.VERTEX_SHADER, vs)); gl.attachShader(p, sh(gl.FRAGMENT_SHADER, fs)); gl.linkProgram(p); gl.useProgram(p);
    const quad = gl.createBuffer(); gl.bindBuffer(gl.ARRAY_BUFFER, quad); gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([0,0,1,0,0,1,1,1]), gl.STATIC_DRAW);
    const lc = gl.getAttribLocation(p, 'corner'); gl.enableVertexAttribArray(lc); gl.vertexAttribPointer(lc, 2, gl.FLOAT, false, 0, 0);
    const inst = gl.createBuffer(); const data = new Float32Array(N * 7);
    const lr = gl.getAttribLocation(p, 'rect'), lcol = gl.getAttribLocation(p, 'col');
    gl.bindBuffer(gl.ARRAY_BUFFER, inst);
    gl.enableVertexAttribArray(lr); gl.vertexAttribPointer(lr, 4, gl.FLOAT, false, 28, 0); gl.vertexAttribDivisor(lr, 1);
    gl.enableVertexAttribArray(lcol); gl.vertexAttribPointer(lcol, 3, gl.FLOAT, false, 28, 16); gl.vertexAttribDivisor(lcol, 1);
    gl.uniform2f(gl.getUniformLocation(p, 'size'), W, H);
    const px = new Uint8Array(4);
    time('webgl2', (f) => {
      for (let k = 0; k < N; k++) { const it = items[k]; const o = k * 7; data[o] = it.x + f; data[o+1] = 30 + it.row * RH; data[o+2] = it.w; data[o+3] = RH - 1; data[o+4] = it.c / 12; data[o+5] = 0.5; data[o+6] = 0.7; }
      gl.bufferData(gl.ARRAY_BUFFER, data, gl.DYNAMIC_DRAW);
      gl.clearColor(1, 1, 1, 1); gl.clear(gl.COLOR_BUFFER_BIT);
      gl.drawArraysInstanced(gl.TRIANGLE_STRIP, 0, 4, N);
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
    });
  }
  return out;
}, [ITEMS, FRAMES]);
console.log(`${ITEMS} rects per frame, ${FRAMES} frames, 1920x1080, ${browser.version()}; WebGL2: ${res.webgl ?? 'not available'}`);
const rows = ['canvas2d', 'pixels', 'webgl2'].filter((k) => res[k]).map((k) => [k, fmt(pct(res[k], 50), 2), fmt(pct(res[k], 95), 2)]);
table(['strategy', 'p50 ms', 'p95 ms'], rows);
await browser.close();
