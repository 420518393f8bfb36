// Boot watchdog: when the app cannot start (page opened from file://, WebAssembly missing or
// blocked, a module or wasm file that did not load), say so in #loupe-boot instead of leaving a
// blank page. A separate classic script because the page's CSP refuses inline scripts. The app
// removes #loupe-boot when it mounts (app/src/main.rs); after that this script does nothing.
(function () {
  'use strict';
  var reason = null;
  function show(text) {
    if (!reason) reason = text;
    function apply() {
      var boot = document.getElementById('loupe-boot');
      if (!boot) return; // the app is up
      boot.className = 'failed';
      var starting = boot.querySelector('.boot-starting');
      if (starting) starting.remove(); // also when no stylesheet loaded
      var r = document.getElementById('loupe-boot-reason');
      if (r) r.textContent = reason;
    }
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', apply);
    else apply();
  }
  var booting = function () { return !!document.getElementById('loupe-boot'); };
  if (location.protocol === 'file:') {
    show('This page was opened as a file (file://). Browsers do not load its WebAssembly and JavaScript modules from files; it has to be served over http(s).');
  }
  if (typeof WebAssembly !== 'object') {
    show('This browser has no WebAssembly, or it is turned off (some locked-down browsers disable it).');
  } else if (typeof WebAssembly.validate === 'function' &&
    // a function returning a v128 (i32.const 0, i8x16.splat, i8x16.popcnt): valid only with SIMD
    !WebAssembly.validate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]))) {
    // the app's wasm is built with +simd128 (.cargo/config.toml) and would fail to compile
    show('This browser does not support WebAssembly SIMD, which Loupe needs: use Chrome or Edge 91, Firefox 89, Safari 16.4 or later.');
  }
  // capture: resource errors (a <script> or preload that failed) do not bubble
  window.addEventListener('error', function (e) {
    if (!booting()) return;
    var t = e.target;
    if (t && t !== window && t.tagName) {
      if (t.tagName === 'SCRIPT' || t.tagName === 'LINK') {
        show('A file of the page could not be loaded: ' + (t.src || t.href || 'the app module') + '. Is the whole folder uploaded next to index.html?');
      }
      return;
    }
    show('Loupe stopped while starting (' + (e.message || 'unknown error') + '). A file of the page could not be fetched or run: check that the whole folder is served, the .wasm files as application/wasm.');
  }, true);
  window.addEventListener('unhandledrejection', function (e) {
    if (!booting()) return;
    var m = e.reason && e.reason.message ? e.reason.message : String(e.reason);
    show('Loupe stopped while starting (' + m + '). A file of the page could not be fetched or run: check that the whole folder is served, the .wasm files as application/wasm.');
  });
})();

// Theme, before the first paint: the user's saved choice (localStorage "loupe.theme", written by
// the header's toggle, app/src/theme.rs), else the system's prefers-color-scheme. style/tokens.css
// holds both palettes; data-theme on <html> picks one.
(function () {
  'use strict';
  var saved = null;
  try { saved = JSON.parse(localStorage.getItem('loupe.theme')); } catch (e) { saved = null; }
  var dark = saved === 'dark' || (saved !== 'light' &&
    !!window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.setAttribute('data-theme', dark ? 'dark' : 'light');
})();
