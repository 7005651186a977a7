// Recordings: every recording dvvd keeps, per limb, and a player that
// shows one with its acts on the same clock. A desktop's frames are
// rendered by dvvd from the FBS file (PNG at a time); a terminal's
// asciicast is played into xterm.js. Acts are drawn over the picture from
// the instant they were sent, for HOLD seconds, as in `dvv record export
// --acts`: a ring where a click went, a label for keys and typed text (its
// length only), refused acts in red.
import { api, image, setupMode } from '/assets/common.js';

const $ = (x) => document.getElementById(x);
const HOLD = 1.0;
const ACT = '#ff00c8', REFUSED = '#ff1744';
const info = await setupMode();
let list = [];
let cur = null;

// text fetches a file with this tab's secret (see common.js).
async function text(path) {
  const r = await fetch(path, { headers: { Authorization: 'Bearer ' + (sessionStorage.getItem('dvv-viewer-key') || '') }, credentials: 'omit', cache: 'no-store' });
  if (!r.ok) throw new Error(`GET ${path}: ${r.status} ${(await r.text()).trim()}`);
  return r.text();
}

const enc = encodeURIComponent;
const fmtTime = (ms) => (ms / 1000).toFixed(2) + ' s';
const size = (b) => b > 1 << 20 ? (b / (1 << 20)).toFixed(1) + ' MiB' : Math.ceil(b / 1024) + ' KiB';

export function actLabel(a) {
  let t;
  switch (a.op) {
    case 'click': t = `${a.action} ${a.x},${a.y}` + (a.toX != null ? ` → ${a.toX},${a.toY}` : ''); break;
    case 'key': t = `key ${a.keys}`; break;
    case 'type': t = `typed ${a.textLen} chars`; break;
    case 'term_send': t = `sent ${a.textLen} chars`; break;
    default: t = a.op + (a.action ? ' ' + a.action : '');
  }
  if (a.outcome !== 'ok') t += ` — refused: ${a.outcome}`;
  return t;
}

async function loadList() {
  try {
    list = await api('/api/recordings');
  } catch (e) {
    $('reclist').replaceChildren(Object.assign(document.createElement('p'), { className: 'warn', textContent: String(e) }));
    return;
  }
  const byLimb = new Map();
  for (const r of list) {
    if (!byLimb.has(r.limb)) byLimb.set(r.limb, []);
    byLimb.get(r.limb).push(r);
  }
  const nodes = [];
  for (const [limb, recs] of byLimb) {
    const h = Object.assign(document.createElement('h2'), { textContent: limb });
    const ul = document.createElement('ul');
    for (const r of recs) {
      const b = document.createElement('button');
      b.dataset.name = r.name;
      b.textContent = `${new Date(r.startedMs).toLocaleString()} · ${r.kind} · ${r.acts} acts · ${size(r.bytes)}`;
      b.onclick = () => open(r.name).catch(showError);
      const li = document.createElement('li');
      li.append(b);
      ul.append(li);
    }
    nodes.push(h, ul);
  }
  if (!nodes.length) nodes.push(Object.assign(document.createElement('p'), { className: 'empty', textContent: 'No recordings yet: start one with `dvv record start <limb>`.' }));
  $('reclist').replaceChildren(...nodes);
}

function showError(e) {
  $('rec-title').textContent = String(e);
}

async function open(name) {
  pause();
  const rec = list.find((r) => r.name === name);
  if (!rec) throw new Error(`no recording ${name}`);
  for (const b of document.querySelectorAll('#reclist button')) b.classList.toggle('current', b.dataset.name === name);
  const [meta, acts] = await Promise.all([api(`/api/recordings/${enc(name)}/meta`), api(`/api/recordings/${enc(name)}/acts`)]);
  if (cur?.term) cur.term.dispose();
  const duration = Math.max(meta.durationMs, ...acts.map((a) => Math.ceil(a.t * 1000)));
  cur = { rec, meta, acts, duration, now: 0, shownMs: -1, wantMs: 0, loading: false, playing: false, term: null, events: [], written: 0 };
  history.replaceState(null, '', '?name=' + enc(name));
  $('player').hidden = false;
  $('rec-title').textContent = `${rec.limb} · ${new Date(rec.startedMs).toLocaleString()} · ${rec.kind}`;
  $('rec-clock').max = duration;
  const frame = $('rec-frame');
  frame.hidden = rec.kind !== 'desktop';
  $('rec-term').hidden = rec.kind !== 'terminal';
  if (rec.kind === 'desktop') {
    frame.width = meta.width;
    frame.height = meta.height;
  } else {
    if (!info.xterm) throw new Error('This dvvd was built without xterm.js: run `make web` and rebuild dvvd to play terminal recordings here.');
    const { Terminal } = await import('/assets/dist/xterm/xterm.mjs');
    const lines = (await text(`/api/recordings/${enc(name)}/cast`)).split('\n').slice(1);
    for (const l of lines) {
      if (!l) continue;
      try {
        const [t, code, data] = JSON.parse(l);
        if (code === 'o') cur.events.push({ ms: Math.ceil(t * 1000), data });
      } catch { break; } // a line being written
    }
    $('rec-term').replaceChildren();
    cur.term = new Terminal({ cols: meta.cols, rows: meta.rows, disableStdin: true, scrollback: 0 });
    cur.term.open($('rec-term'));
  }
  buildTimeline();
  await seek(0);
}

function buildTimeline() {
  const tl = $('rec-timeline');
  const ol = $('rec-acts');
  tl.replaceChildren();
  ol.replaceChildren();
  cur.acts.forEach((a, i) => {
    const at = Math.ceil(a.t * 1000);
    const label = `${fmtTime(at)} ${a.attachment}: ${actLabel(a)}`;
    const m = document.createElement('button');
    m.style.left = (cur.duration ? (100 * at) / cur.duration : 0) + '%';
    m.title = label;
    m.dataset.act = i;
    if (a.outcome !== 'ok') m.className = 'refused';
    m.onclick = () => jump(i);
    tl.append(m);
    const li = document.createElement('li');
    if (a.outcome !== 'ok') li.className = 'refused';
    const b = Object.assign(document.createElement('button'), { textContent: label });
    b.dataset.act = i;
    b.onclick = () => jump(i);
    li.append(b);
    ol.append(li);
  });
}

// jump shows the frame an act was sent on, paused.
function jump(i) {
  pause();
  return seek(Math.ceil(cur.acts[i].t * 1000));
}

async function seek(ms) {
  ms = Math.max(0, Math.min(cur.duration, Math.round(ms)));
  cur.now = ms;
  $('rec-clock').value = ms;
  $('rec-time').textContent = `${fmtTime(ms)} / ${fmtTime(cur.duration)}`;
  if (cur.rec.kind === 'desktop') {
    await showFrame(ms);
  } else {
    if (ms < cur.shownMs) { cur.term.reset(); cur.written = 0; }
    let out = '';
    while (cur.written < cur.events.length && cur.events[cur.written].ms <= ms) out += cur.events[cur.written++].data;
    if (out) await new Promise((res) => cur.term.write(out, res));
    cur.shownMs = ms;
    drawOverlay();
  }
}

// showFrame asks dvvd for the frame at ms, one request at a time: while
// one is on its way, later asks only move the wanted time.
async function showFrame(ms) {
  const c = cur;
  c.wantMs = ms;
  if (c.loading) return c.loading;
  c.loading = (async () => {
    while (c.shownMs !== c.wantMs && c === cur) {
      const want = c.wantMs;
      const u = await image(`/api/recordings/${enc(c.rec.name)}/frame?ms=${want}`);
      const img = new Image();
      img.src = u;
      await img.decode();
      const f = $('rec-frame');
      if (img.width !== f.width || img.height !== f.height) { f.width = img.width; f.height = img.height; }
      f.getContext('2d').drawImage(img, 0, 0);
      URL.revokeObjectURL(u);
      c.shownMs = want;
      drawOverlay();
    }
    c.loading = false;
  })();
  return c.loading;
}

function drawOverlay() {
  const ov = $('rec-overlay');
  const desktop = cur.rec.kind === 'desktop';
  const base = desktop ? $('rec-frame') : $('rec-term');
  const box = base.getBoundingClientRect();
  ov.style.width = box.width + 'px';
  ov.style.height = box.height + 'px';
  ov.width = desktop ? base.width : Math.round(box.width);
  ov.height = desktop ? base.height : Math.round(box.height);
  const g = ov.getContext('2d');
  g.clearRect(0, 0, ov.width, ov.height);
  const ms = cur.shownMs;
  const shown = cur.acts.filter((a) => a.t * 1000 <= ms + 0.5 && ms < (a.t + HOLD) * 1000);
  // Labels start at the top on a desktop and at the bottom on a terminal,
  // whose first lines are the ones most often read.
  let labelY = desktop ? 8 : ov.height - 34;
  const step = desktop ? 32 : -32;
  g.font = 'bold 16px system-ui, sans-serif';
  for (const a of shown) {
    const refused = a.outcome !== 'ok';
    if (a.op === 'click' && a.x != null && desktop) {
      const x = a.x + 0.5, y = a.y + 0.5;
      g.strokeStyle = g.fillStyle = refused ? REFUSED : ACT;
      g.lineWidth = 3;
      if (a.toX != null) { g.beginPath(); g.moveTo(x, y); g.lineTo(a.toX + 0.5, a.toY + 0.5); g.stroke(); }
      g.beginPath(); g.arc(x, y, 14, 0, 2 * Math.PI); g.stroke();
      g.beginPath(); g.arc(x, y, 3, 0, 2 * Math.PI); g.fill();
      if (refused) {
        const w = g.measureText(a.outcome).width;
        g.fillText(a.outcome, x + 18 + w > ov.width ? x - 18 - w : x + 18, y - 8);
      }
      continue;
    }
    const t = actLabel(a);
    g.fillStyle = refused ? 'rgba(183,28,28,.95)' : 'rgba(0,0,0,.8)';
    g.fillRect(8, labelY, g.measureText(t).width + 16, 26);
    g.fillStyle = '#fff';
    g.fillText(t, 16, labelY + 19);
    labelY += step;
  }
  document.querySelectorAll('#rec-acts li').forEach((li, i) => li.classList.toggle('now', shown.includes(cur.acts[i])));
  document.body.dataset.shownMs = ms;
}

let clockStart = 0, clockFrom = 0;
function play() {
  if (!cur) return;
  if (cur.now >= cur.duration) cur.now = 0;
  cur.playing = true;
  clockStart = performance.now();
  clockFrom = cur.now;
  $('rec-play').textContent = 'Pause';
  requestAnimationFrame(tick);
}
function pause() {
  if (!cur) return;
  cur.playing = false;
  $('rec-play').textContent = 'Play';
}
function tick() {
  if (!cur?.playing) return;
  const ms = clockFrom + (performance.now() - clockStart);
  if (ms >= cur.duration) { seek(cur.duration); pause(); return; }
  seek(ms);
  requestAnimationFrame(tick);
}

$('rec-play').onclick = () => (cur?.playing ? pause() : play());
$('rec-clock').oninput = (e) => { pause(); seek(Number(e.target.value)); };
window.addEventListener('resize', () => cur && drawOverlay());
// For tests and the curious: open, seek and what is shown.
window.dvvRec = {
  open: (name) => open(name),
  jump: (i) => jump(i),
  seek: (ms) => seek(ms),
  play, pause,
  get state() { return cur && { name: cur.rec.name, kind: cur.rec.kind, nowMs: cur.now, shownMs: cur.shownMs, durationMs: cur.duration, playing: cur.playing, acts: cur.acts.length }; },
};

await loadList();
const wanted = new URLSearchParams(location.search).get('name');
if (wanted) open(wanted).catch(showError);
