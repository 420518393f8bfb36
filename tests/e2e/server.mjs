// Tiny static server for dist/ with COOP/COEP headers (what the e2e tests run against).
// Usage: node tests/e2e/server.mjs [dir] [port] [prefix]   (port 0 = pick a free one; prefix, e.g.
// /docs/loupe/, serves dir under that path only, the way project pages and intranets host it).
// Options (tests): `isolate: false` leaves out COOP/COEP (a host that cannot set headers: the page
// is not cross-origin isolated); `hide`: a RegExp of paths answered 404 (files missing from a build).
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm', '.css': 'text/css; charset=utf-8',
  '.json': 'application/json', '.png': 'image/png', '.svg': 'image/svg+xml', '.ico': 'image/x-icon',
};

export function startServer(dir, port = 0, prefix = '/', { isolate = true, hide = null } = {}) {
  const root = resolve(dir);
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://x');
      if (url.pathname === prefix.replace(/\/$/, '') && prefix !== '/') {
        res.writeHead(301, { Location: prefix }).end(); return; // a folder without its slash, as servers do
      }
      if (!url.pathname.startsWith(prefix)) { res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found'); return; }
      let path = normalize(join(root, decodeURIComponent(url.pathname.slice(prefix.length - 1))));
      if (!path.startsWith(root)) { res.writeHead(403).end(); return; }
      if (hide && hide.test(url.pathname)) { res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found'); return; }
      const st = await stat(path).catch(() => null);
      if (st && st.isDirectory()) path = join(path, 'index.html');
      const body = await readFile(path);
      res.writeHead(200, {
        'Content-Type': TYPES[extname(path)] || 'application/octet-stream',
        ...(isolate ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {}),
        'Cache-Control': 'no-store',
      });
      res.end(body);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    }
  });
  return new Promise((ok) => server.listen(port, '127.0.0.1', () => ok(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2] || 'dist';
  const prefix = process.argv[4] || '/';
  const server = await startServer(dir, Number(process.argv[3] || 8081), prefix);
  console.log(`serving ${dir} on http://127.0.0.1:${server.address().port}${prefix}`);
}
