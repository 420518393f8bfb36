// Tiny static server for the browser benchmarks: maps URL prefixes to folders, sends
// COOP/COEP (cross-origin isolation: 5 µs performance.now() resolution instead of 100 µs).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json',
  '.png': 'image/png', '.ico': 'image/x-icon', '.woff2': 'font/woff2', '.txt': 'text/plain',
};

/** mounts: { '/bench/': '/abs/dir', ... }. Resolves to { server, url, close() }. */
export function serve(mounts, { port = 0, isolate = true } = {}) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    let p = decodeURIComponent(url.pathname);
    const prefix = Object.keys(mounts).sort((a, b) => b.length - a.length).find((m) => p.startsWith(m));
    if (!prefix) { res.writeHead(404); res.end('not found'); return; }
    const root = path.resolve(mounts[prefix]);
    let file = path.resolve(root, '.' + path.posix.normalize('/' + p.slice(prefix.length)));
    if (!file.startsWith(root)) { res.writeHead(403); res.end(); return; }
    fs.stat(file, (err, st) => {
      if (!err && st.isDirectory()) { file = path.join(file, 'index.html'); }
      fs.stat(file, (err2, st2) => {
        if (err2 || !st2.isFile()) { res.writeHead(404); res.end('not found'); return; }
        const headers = {
          'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream',
          'Content-Length': st2.size,
          'Cache-Control': 'no-store',
        };
        if (isolate) {
          headers['Cross-Origin-Opener-Policy'] = 'same-origin';
          headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
        }
        res.writeHead(200, headers);
        fs.createReadStream(file).pipe(res);
      });
    });
  });
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      const { port: p } = server.address();
      resolve({ server, url: `http://127.0.0.1:${p}`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}
