// Loupe's service worker: offline use. It keeps a copy of the app's own files (the page, its
// scripts, wasm, styles and the parser worker) so a page opened once opens again with no network.
// Network first: online, every file comes fresh from the server (a new deployment shows at once);
// offline, from the copy. It never touches anything else: profiles the user opens never pass
// through it (they are read from disk), and a `?url=` download or any other request is left to
// the network untouched. Registered by offline.js; `?sw=0` on the page skips it.
'use strict';
const CACHE = 'loupe-app-v1';
const SCOPE = new URL(self.registration.scope);
const APP_FILE = /\.(?:html|js|mjs|wasm|css|ico|png|svg|woff2?)$/;

function isAppFile(url) {
  if (url.origin !== SCOPE.origin || !url.pathname.startsWith(SCOPE.pathname)) return false;
  const rest = url.pathname.slice(SCOPE.pathname.length);
  return rest === '' || APP_FILE.test(rest);
}

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => {
  e.waitUntil((async () => {
    for (const k of await caches.keys()) if (k.startsWith('loupe-app-') && k !== CACHE) await caches.delete(k);
    await self.clients.claim();
  })());
});

// offline.js sends the files the page loaded before this worker controlled it
self.addEventListener('message', (e) => {
  const urls = e.data && Array.isArray(e.data.loupeWarm) ? e.data.loupeWarm : null;
  if (!urls) return;
  e.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const todo = urls.slice();
    for (const u of todo) {
      let url;
      try { url = new URL(u, SCOPE); } catch { continue; }
      if (!isAppFile(url)) continue;
      const key = url.pathname === SCOPE.pathname ? new URL('index.html', SCOPE).href : url.href;
      // the threaded worker's module (threads/worker.js) imports wasm-bindgen's snippets (the
      // rayon pool's helper), whose folder name is a hash: copy what it imports too. Also when
      // the module itself is already in the copy (the fetch handler may have kept it while the
      // snippet was loaded by a worker this one did not control yet).
      const importsSnippets = /\/threads\/worker\.js$/.test(url.pathname);
      const addSnippets = async (r) => {
        const text = await r.clone().text();
        for (const m of text.matchAll(/from\s+'(\.\/snippets\/[^']+\.js)'/g)) todo.push(new URL(m[1], url).href);
      };
      const held = await cache.match(key);
      if (held) {
        if (importsSnippets) await addSnippets(held);
        continue;
      }
      try {
        const r = await fetch(url.href, { cache: 'no-cache' });
        if (r.ok) {
          if (importsSnippets) await addSnippets(r);
          await cache.put(key, r);
        }
      } catch (err) {
        console.warn(`Loupe offline copy: ${url.href} not kept (${err})`);
      }
    }
    // tell the page this batch is in the copy (offline.js counts batches in flight)
    if (e.source) e.source.postMessage({ loupeWarmed: urls.length });
  })());
});

self.addEventListener('fetch', (e) => {
  const req = e.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  const nav = req.mode === 'navigate';
  if (!nav && !isAppFile(url)) return;
  // the page under any query (?demo, ?url=…, ?mode=embedded) is the same index.html
  const key = nav || url.pathname === SCOPE.pathname ? new URL('index.html', SCOPE).href : url.origin + url.pathname;
  e.respondWith((async () => {
    const cache = await caches.open(CACHE);
    try {
      const r = await fetch(req);
      if (r.ok && r.type === 'basic') await cache.put(key, r.clone());
      return r;
    } catch (err) {
      const hit = await cache.match(key);
      if (hit) return hit;
      console.warn(`Loupe offline copy: no ${key}`);
      throw err;
    }
  })());
});
