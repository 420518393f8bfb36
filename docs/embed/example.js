// The host side of Loupe's embedding protocol (see app/src/embed.rs):
//   host → Loupe  {loupe: "open", name, buffer}  (buffer: an ArrayBuffer, transferred)
//                 {loupe: "view", start_ns, end_ns, select?: {track, index}}
//   Loupe → host  {loupe: "ready"} · {loupe: "loaded", summary} · {loupe: "error", message}
const frame = document.getElementById('loupe');
const status = document.getElementById('status');
const log = document.getElementById('log');
const viewButton = document.getElementById('view');
// Loupe's origin (the frame's src resolved against this page)
const loupeOrigin = new URL(frame.src, location.href).origin;
let summary = null;

window.addEventListener('message', (ev) => {
  if (ev.source !== frame.contentWindow || !ev.data || typeof ev.data.loupe !== 'string') return;
  log.textContent += JSON.stringify(ev.data) + '\n';
  if (ev.data.loupe === 'ready') status.textContent = 'Loupe is ready: choose a profile';
  if (ev.data.loupe === 'loaded') {
    summary = ev.data.summary;
    status.textContent = `loaded ${summary.name}: ${summary.slices} slices on ${summary.tracks} tracks`;
    viewButton.disabled = false;
  }
  if (ev.data.loupe === 'error') status.textContent = `Loupe could not open it: ${ev.data.message}`;
});

document.getElementById('file').addEventListener('change', async (ev) => {
  const file = ev.target.files[0];
  if (!file) return;
  const buffer = await file.arrayBuffer();
  status.textContent = `sending ${file.name}…`;
  frame.contentWindow.postMessage({ loupe: 'open', name: file.name, buffer }, loupeOrigin, [buffer]);
});

viewButton.addEventListener('click', () => {
  if (!summary) return;
  const mid = summary.start_ns + Math.floor(summary.duration_ns / 2);
  frame.contentWindow.postMessage({ loupe: 'view', start_ns: summary.start_ns, end_ns: mid }, loupeOrigin);
});
