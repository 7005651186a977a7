// One limb, live: the desktop through noVNC (RFB from dvvd's mirror) or the
// terminal through xterm.js, the lease banner with the buttons that can be
// used now, and the agent's acts drawn over the picture.
import { api, leaseLine, offer, pageId, setupMode, wsProtocols } from '/assets/common.js';

const id = decodeURIComponent(location.pathname.split('/').pop());
const params = new URLSearchParams(location.search);
const wsBase = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host;
const $ = (x) => document.getElementById(x);
const info = await setupMode();
let limb = await api('/api/limb/' + encodeURIComponent(id));
$('title').textContent = $('title').title = `${limb.id} · ${limb.protocol} ${limb.address}:${limb.port}`;
document.title = 'dvv — ' + limb.id;

const limbPath = (action) => `/api/limb/${encodeURIComponent(id)}/${action}`;
const paths = {
  takeover: () => limbPath('takeover'),
  handback: () => limbPath('handback'),
  pause: () => limbPath('pause'),
  // Resume on a page of a limb paused with every other lifts that pause:
  // lifting this limb's alone would leave it paused.
  resume: () => (limb.pausedAll ? '/api/all/resume' : limbPath('resume')),
};
for (const [a, path] of Object.entries(paths)) {
  $(a).onclick = () => api(path(), 'POST').catch(e => note(`${$(a).textContent}: ${e.message}`, true));
}

// ---- picture: fitted to the stage (keeping its aspect ratio) or 1:1 ----
const stage = $('stage');
const screen = $('screen');
let fitted = params.get('fit') !== '0';
const TERM_FONT = 15; // the terminal's font at 1:1, in CSS pixels
let rfb = null;
let term = null;

function setFitted(on) {
  fitted = on;
  document.body.classList.toggle('fit-off', !on);
  const b = $('scale');
  b.textContent = on ? '1:1' : 'Fit';
  b.setAttribute('aria-pressed', String(!on));
  b.title = on ? 'Show the picture pixel for pixel (scroll for the rest)' : 'Scale the picture to fill the window';
  if (rfb) rfb.scaleViewport = on;
  fitTerminal();
  const q = new URLSearchParams(location.search);
  if (on) q.delete('fit'); else q.set('fit', '0');
  history.replaceState(null, '', location.pathname + (q.size ? '?' + q : ''));
}
$('scale').hidden = false;
$('scale').onclick = () => setFitted(!fitted);

if (limb.kind === 'desktop') {
  if (info.novnc) {
    const { default: RFB } = await import('/assets/dist/novnc/core/rfb.js');
    const connect = () => {
      rfb = new RFB(screen, `${wsBase}/ws/desktop/${encodeURIComponent(id)}?page=${pageId}`, { wsProtocols: wsProtocols('binary') });
      rfb.viewOnly = info.readOnly;
      rfb.scaleViewport = fitted;
      rfb.background = 'transparent';
      // noVNC's JPEG quality level (6 unless ?quality=0..9): only
      // photographic areas are lossy; text always arrives exact.
      const quality = params.get('quality') || '';
      if (/^[0-9]$/.test(quality)) rfb.qualityLevel = Number(quality);
      rfb.addEventListener('connect', () => { document.body.dataset.connected = '1'; });
      rfb.addEventListener('disconnect', () => { document.body.dataset.connected = ''; setTimeout(connect, 1000); });
    };
    connect();
  }
} else if (info.xterm) {
  const { Terminal } = await import('/assets/dist/xterm/xterm.mjs');
  term = new Terminal({ cols: limb.cols || 80, rows: limb.rows || 24, scrollback: 10000, convertEol: false, fontSize: TERM_FONT });
  term.open(screen);
  const enc = new TextEncoder();
  const connect = () => {
    const ws = new WebSocket(`${wsBase}/ws/term/${encodeURIComponent(id)}?page=${pageId}`, wsProtocols('dvv'));
    ws.binaryType = 'arraybuffer';
    term.reset();
    ws.onmessage = (m) => {
      if (typeof m.data !== 'string') { term.write(new Uint8Array(m.data)); return; }
      const meta = JSON.parse(m.data);
      if (meta.cols) { term.resize(meta.cols, meta.rows); fitTerminal(); }
      if (meta.lost) term.write(`\r\n[dvv: ${meta.lost} bytes of scrollback were overwritten]\r\n`);
      if (meta.error) term.write(`\r\n[dvv: ${meta.error}]\r\n`);
    };
    ws.onopen = () => { document.body.dataset.connected = '1'; };
    ws.onclose = () => { document.body.dataset.connected = ''; setTimeout(connect, 1000); };
    term._dvvSocket = ws;
  };
  if (!info.readOnly) term.onData((d) => term._dvvSocket?.readyState === 1 && term._dvvSocket.send(enc.encode(d)));
  connect();
  new ResizeObserver(() => fitTerminal()).observe(stage);
}
setFitted(fitted);

// fitTerminal sizes the terminal's font so its grid (the remote's cols ×
// rows, which the page cannot change) fills the stage; 1:1 is TERM_FONT.
function fitTerminal() {
  if (!term?.element) return;
  const grid = () => term.element.querySelector('.xterm-screen').getBoundingClientRect();
  if (!fitted) {
    if (term.options.fontSize !== TERM_FONT) term.options.fontSize = TERM_FONT;
    return;
  }
  const s = stage.getBoundingClientRect();
  let g = grid();
  if (!g.width || !s.width) return;
  // Cells grow about in proportion to the font, but are rounded to whole
  // device pixels: scale, then step down until the grid fits.
  let size = Math.min(48, Math.floor(term.options.fontSize * Math.min(s.width / g.width, s.height / g.height) * 2) / 2);
  for (let i = 0; i < 12 && size > 6; i++, size -= 0.5) {
    term.options.fontSize = size;
    g = grid();
    if (g.width <= s.width && g.height <= s.height) break;
  }
}

// ---- overlay: the agent's clicks over the picture; other acts in the strip ----
const overlay = $('overlay');
const marks = []; // {act, at}: clicks being drawn
const MARK_MS = 4000;
window.dvvMarks = marks; // for tests and the curious
let drawing = false;

function canvasBox() {
  const c = screen.querySelector('canvas');
  if (!c || !c.width) return null;
  const r = c.getBoundingClientRect();
  const s = stage.getBoundingClientRect();
  return { left: r.left - s.left, top: r.top - s.top, sx: r.width / c.width, sy: r.height / c.height };
}

function drawOverlay() {
  const box = canvasBox();
  const s = stage.getBoundingClientRect();
  if (overlay.width !== Math.round(s.width) || overlay.height !== Math.round(s.height)) {
    overlay.width = Math.round(s.width);
    overlay.height = Math.round(s.height);
  }
  const g = overlay.getContext('2d');
  g.clearRect(0, 0, overlay.width, overlay.height);
  const now = Date.now();
  while (marks.length && now - marks[0].at > MARK_MS) marks.shift();
  for (const { act, at } of marks) {
    if (!box || act.x == null) continue;
    const refused = act.outcome !== 'ok';
    g.globalAlpha = 1 - (now - at) / MARK_MS; // fades out, then goes
    const px = box.left + (act.x + 0.5) * box.sx, py = box.top + (act.y + 0.5) * box.sy;
    g.strokeStyle = g.fillStyle = refused ? '#ff1744' : '#ff00c8';
    g.lineWidth = 3;
    if (act.action === 'drag' && act.toX != null) {
      g.beginPath(); g.moveTo(px, py); g.lineTo(box.left + act.toX * box.sx, box.top + act.toY * box.sy); g.stroke();
    }
    g.beginPath(); g.arc(px, py, 14, 0, 2 * Math.PI); g.stroke();
    g.beginPath(); g.arc(px, py, 3, 0, 2 * Math.PI); g.fill();
    if (refused) { g.font = 'bold 14px system-ui, sans-serif'; g.fillText(act.outcome, px + 16, py - 8); }
  }
  g.globalAlpha = 1;
  drawing = marks.length > 0;
  if (drawing) requestAnimationFrame(drawOverlay);
}

function showAct(a) {
  if (a.op === 'click') {
    marks.push({ act: a, at: Date.now() });
    if (!drawing) { drawing = true; requestAnimationFrame(drawOverlay); }
    return;
  }
  note(actLabel(a), a.outcome !== 'ok');
}

// note shows a label in the strip under the picture; it fades out (CSS)
// and is removed.
function note(text, refused) {
  const strip = $('actnow');
  const span = document.createElement('span');
  span.className = 'act' + (refused ? ' refused' : '');
  span.textContent = span.title = text;
  span.addEventListener('animationend', () => span.remove());
  strip.prepend(span);
  while (strip.children.length > 8) strip.lastChild.remove();
}

function actLabel(a) {
  let t;
  switch (a.op) {
    case 'click': t = `${a.action} ${a.x},${a.y}` + (a.toX != null ? ` → ${a.toX},${a.toY}` : ''); break;
    case 'key': t = `key ${a.keys}`; break;
    case 'type': t = `typed ${a.textLen} characters`; break;
    case 'term_send': t = `sent ${a.textLen} characters`; break;
    default: t = a.op;
  }
  if (a.outcome !== 'ok') t += ` — refused: ${a.outcome}`;
  return `${a.by}: ${t}`;
}

// On a narrow window the list starts folded, leaving the height to the picture.
if (matchMedia('(max-width: 1100px)').matches) $('acts').open = false;

function logAct(a) {
  const li = document.createElement('li');
  li.textContent = `${new Date(a.timeMs).toLocaleTimeString()} ${actLabel(a)}`;
  if (a.outcome !== 'ok') li.className = 'refused';
  const log = $('actlog');
  log.prepend(li);
  while (log.children.length > 50) log.lastChild.remove();
}

// ---- banner: who drives, and the buttons that can be used now ----
function showButtons(l) {
  const le = l.lease || {};
  const holder = le.mine ? 'you' : le.holder;
  if (le.mine) offer('takeover', false, 'You already drive this limb');
  else if (!le.holder) offer('takeover', true, 'Hold this limb so no agent acts on it until you hand it back');
  else offer('takeover', true, `Take the limb from ${holder}${le.human ? ' (a person)' : ''}: ${le.human ? 'you drive from now on' : 'its next act is refused (LEASE_REVOKED)'}`);

  if (le.holder && le.human) offer('handback', true, `Give control back${le.mine ? '' : ` from ${holder}`}: agents may acquire the lease again`);
  else if (le.holder) offer('handback', false, `Nothing to hand back: the agent ${holder} holds the lease, not a person`);
  else offer('handback', false, 'Nothing to hand back: nobody holds the lease');

  if (l.pausedAll) offer('pause', false, 'Agents are already paused on every limb');
  else if (l.paused) offer('pause', false, 'Agents are already paused on this limb');
  else offer('pause', true, 'Refuse agent input on this limb until Resume');

  if (l.pausedAll) offer('pause-all', false, 'Agents are already paused on every limb');
  else offer('pause-all', true, 'Refuse agent input on every limb until Resume');

  if (l.pausedAll) offer('resume', true, 'Every limb is paused: resume agents on every limb');
  else if (l.paused) offer('resume', true, 'Let agents act on this limb again');
  else offer('resume', false, 'Nothing to resume: agents are not paused here');
}

function showHead(l) {
  limb = l;
  const line = leaseLine(l);
  $('lease').textContent = line.short;
  $('lease').title = line.full;
  $('state').textContent = `${l.state}` + (l.width ? ` · ${l.width}×${l.height}` : '');
  $('banner').className = 'banner ' + line.kind;
  document.body.dataset.human = l.lease.human ? '1' : '';
  document.body.dataset.paused = l.paused ? '1' : '';
  showButtons(l);
}
showHead(limb);
// "since" and "… ago" in the title move on by themselves.
setInterval(() => showHead(limb), 30000);

function events() {
  const ws = new WebSocket(`${wsBase}/ws/events/${encodeURIComponent(id)}?page=${pageId}`, wsProtocols('dvv'));
  ws.onmessage = (m) => {
    const e = JSON.parse(m.data);
    if (e.limb && !e.gone) showHead(e.limb);
    if (e.gone) $('state').textContent = 'closed';
    for (const a of e.acts || []) { showAct(a); logAct(a); }
  };
  ws.onclose = () => setTimeout(events, 1000);
}
events();
