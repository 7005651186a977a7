// One limb, live: the desktop through noVNC (RFB from dvvd's mirror) or the
// terminal through xterm.js, the lease banner with its buttons, and the
// agent's acts drawn over the picture.
import { api, leaseText, pageId, setupMode, wsProtocols } from '/assets/common.js';

const id = decodeURIComponent(location.pathname.split('/').pop());
const params = new URLSearchParams(location.search);
const wsBase = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host;
const $ = (x) => document.getElementById(x);
const info = await setupMode();
let limb = await api('/api/limb/' + encodeURIComponent(id));
$('title').textContent = `${limb.id} · ${limb.protocol} ${limb.address}:${limb.port}`;
document.title = 'dvv — ' + limb.id;

for (const a of ['takeover', 'handback', 'pause', 'resume']) {
  $(a).onclick = () => api(`/api/limb/${encodeURIComponent(id)}/${a}`, 'POST').catch(e => alert(e));
}

// ---- picture ----
const screen = $('screen');
let rfb = null;
let term = null;
if (limb.kind === 'desktop') {
  if (info.novnc) {
    const { default: RFB } = await import('/assets/dist/novnc/core/rfb.js');
    if (params.get('fit') === '0') document.body.classList.add('fit-off');
    const connect = () => {
      rfb = new RFB(screen, `${wsBase}/ws/desktop/${encodeURIComponent(id)}?page=${pageId}`, { wsProtocols: wsProtocols('binary') });
      rfb.viewOnly = info.readOnly;
      rfb.scaleViewport = params.get('fit') !== '0';
      rfb.qualityLevel = 9;
      rfb.addEventListener('connect', () => { document.body.dataset.connected = '1'; });
      rfb.addEventListener('disconnect', () => { document.body.dataset.connected = ''; setTimeout(connect, 1000); });
    };
    connect();
  }
} else if (info.xterm) {
  const { Terminal } = await import('/assets/dist/xterm/xterm.mjs');
  term = new Terminal({ cols: limb.cols || 80, rows: limb.rows || 24, scrollback: 10000, convertEol: false });
  term.open(screen);
  const enc = new TextEncoder();
  const connect = () => {
    const ws = new WebSocket(`${wsBase}/ws/term/${encodeURIComponent(id)}?page=${pageId}`, wsProtocols('dvv'));
    ws.binaryType = 'arraybuffer';
    term.reset();
    ws.onmessage = (m) => {
      if (typeof m.data !== 'string') { term.write(new Uint8Array(m.data)); return; }
      const meta = JSON.parse(m.data);
      if (meta.cols) term.resize(meta.cols, meta.rows);
      if (meta.lost) term.write(`\r\n[dvv: ${meta.lost} bytes of scrollback were overwritten]\r\n`);
      if (meta.error) term.write(`\r\n[dvv: ${meta.error}]\r\n`);
    };
    ws.onopen = () => { document.body.dataset.connected = '1'; };
    ws.onclose = () => { document.body.dataset.connected = ''; setTimeout(connect, 1000); };
    term._dvvSocket = ws;
  };
  if (!info.readOnly) term.onData((d) => term._dvvSocket?.readyState === 1 && term._dvvSocket.send(enc.encode(d)));
  connect();
}

// ---- overlay: the agent's acts over the picture ----
const overlay = $('overlay');
const marks = []; // {act, at}
const MARK_MS = 4000;
window.dvvMarks = marks; // for tests and the curious

function canvasBox() {
  const c = screen.querySelector('canvas');
  if (!c || !c.width) return null;
  const r = c.getBoundingClientRect();
  const s = $('stage').getBoundingClientRect();
  return { left: r.left - s.left, top: r.top - s.top, sx: r.width / c.width, sy: r.height / c.height, w: r.width, h: r.height };
}

function drawOverlay() {
  const box = limb.kind === 'desktop' ? canvasBox() : null;
  const stage = $('stage').getBoundingClientRect();
  if (overlay.width !== Math.round(stage.width) || overlay.height !== Math.round(stage.height)) {
    overlay.width = Math.round(stage.width);
    overlay.height = Math.round(stage.height);
  }
  const g = overlay.getContext('2d');
  g.clearRect(0, 0, overlay.width, overlay.height);
  const now = Date.now();
  while (marks.length && now - marks[0].at > MARK_MS) marks.shift();
  let labelY = 24;
  for (const { act, at } of marks) {
    const alpha = Math.max(0.15, 1 - (now - at) / MARK_MS);
    const refused = act.outcome !== 'ok';
    g.globalAlpha = alpha;
    if (act.op === 'click' && box && act.x != null) {
      const px = box.left + (act.x + 0.5) * box.sx, py = box.top + (act.y + 0.5) * box.sy;
      g.strokeStyle = g.fillStyle = refused ? '#ff1744' : '#ff00c8';
      g.lineWidth = 3;
      if (act.action === 'drag' && act.toX != null) {
        g.beginPath(); g.moveTo(px, py); g.lineTo(box.left + act.toX * box.sx, box.top + act.toY * box.sy); g.stroke();
      }
      g.beginPath(); g.arc(px, py, 14, 0, 2 * Math.PI); g.stroke();
      g.beginPath(); g.arc(px, py, 3, 0, 2 * Math.PI); g.fill();
      if (refused) g.fillText(act.outcome, px + 16, py - 8);
    } else {
      g.font = 'bold 16px system-ui, sans-serif';
      const text = actLabel(act);
      const w = g.measureText(text).width + 16;
      g.fillStyle = refused ? 'rgba(183,28,28,.9)' : 'rgba(0,0,0,.75)';
      g.fillRect(8, labelY - 18, w, 26);
      g.fillStyle = '#fff';
      g.fillText(text, 16, labelY);
      labelY += 32;
    }
  }
  g.globalAlpha = 1;
  requestAnimationFrame(drawOverlay);
}
requestAnimationFrame(drawOverlay);

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

function logAct(a) {
  const li = document.createElement('li');
  li.textContent = `${new Date(a.timeMs).toLocaleTimeString()} ${actLabel(a)}`;
  if (a.outcome !== 'ok') li.className = 'refused';
  const log = $('actlog');
  log.prepend(li);
  while (log.children.length > 50) log.lastChild.remove();
}

// ---- banner and acts, live ----
function showHead(l) {
  limb = l;
  $('lease').textContent = $('lease').title = leaseText(l);
  $('state').textContent = `${l.state}` + (l.width ? ` · ${l.width}×${l.height}` : '');
  $('banner').className = 'banner' + (l.paused ? ' paused' : l.lease.human ? ' human' : '');
  document.body.dataset.human = l.lease.human ? '1' : '';
  document.body.dataset.paused = l.paused ? '1' : '';
}
showHead(limb);
function events() {
  const ws = new WebSocket(`${wsBase}/ws/events/${encodeURIComponent(id)}?page=${pageId}`, wsProtocols('dvv'));
  ws.onmessage = (m) => {
    const e = JSON.parse(m.data);
    if (e.limb) showHead(e.limb);
    if (e.gone) $('state').textContent = 'closed';
    for (const a of e.acts || []) { marks.push({ act: a, at: Date.now() }); logAct(a); }
  };
  ws.onclose = () => setTimeout(events, 1000);
}
events();
