// Offline use: registers sw.js (a copy of the app's own files, see there) and tells it which
// files this page already loaded, so the next visit works with no network. Nothing else: no
// request leaves for anywhere but this page's own folder. `?sw=0` turns it off (and removes it).
(function () {
  'use strict';
  if (!('serviceWorker' in navigator) || !/^https?:$/.test(location.protocol)) return;
  var off = /[?&]sw=0(?:&|$)/.test(location.search);
  if (off) {
    navigator.serviceWorker.getRegistrations().then(function (rs) { rs.forEach(function (r) { r.unregister(); }); });
    // and its copy of the app's files
    if (window.caches) caches.keys().then(function (ks) { ks.forEach(function (k) { if (/^loupe-app-/.test(k)) caches.delete(k); }); });
    return;
  }
  window.addEventListener('load', function () {
    navigator.serviceWorker.register('sw.js').then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (reg) {
      var sw = reg.active;
      if (!sw) return;
      // batches of files sent to the worker and not yet confirmed in the copy (tests wait for 0)
      window.__loupeOfflinePending = 0;
      navigator.serviceWorker.addEventListener('message', function (ev) {
        if (ev.data && typeof ev.data.loupeWarmed === 'number') window.__loupeOfflinePending -= 1;
      });
      var post = sw.postMessage.bind(sw);
      sw = { postMessage: function (m) { window.__loupeOfflinePending += 1; post(m); } };
      var urls = [location.href, 'index.html', 'boot.js', 'offline.js', 'worker_loader.js', 'worker.js', 'worker_bg.wasm'];
      // the threaded parser worker (scripts/build-threads.sh; sw.js adds its snippets), in a build
      // made with LOUPE_THREADS=1, which says so with <meta name="loupe-threads">
      if (document.querySelector('meta[name="loupe-threads"]')) {
        urls.push('threads/worker_loader.js', 'threads/worker.js', 'threads/worker_bg.wasm');
      }
      performance.getEntriesByType('resource').forEach(function (e) { urls.push(e.name); });
      sw.postMessage({ loupeWarm: urls });
      // files that finish loading later (the app's wasm streams in after the load event)
      if (typeof PerformanceObserver === 'function') {
        new PerformanceObserver(function (list) {
          sw.postMessage({ loupeWarm: list.getEntries().map(function (e) { return e.name; }) });
        }).observe({ type: 'resource' });
      }
      window.__loupeOffline = true;
    }).catch(function (e) {
      console.warn('Loupe: offline copy not available (' + e + ')');
    });
  });
})();
