// Shared helpers of the viewer pages.
//
// The secret: the link `dvv viewer` opens carries it in its fragment
// (#k=…), which the browser never sends to a server. It is moved into this
// tab's sessionStorage (this origin only: no other port on 127.0.0.1 can
// read it) and taken out of the address bar; every call sends it as a
// bearer header, every WebSocket as a subprotocol. No cookie: cookies go
// to every port of 127.0.0.1.
const KEY = 'dvv-viewer-key';
{
  const k = new URLSearchParams(location.hash.slice(1)).get('k');
  if (k) {
    sessionStorage.setItem(KEY, k);
    history.replaceState(null, '', location.pathname + location.search);
  }
}
const key = sessionStorage.getItem(KEY) || '';

// pageId names this page to dvvd, so that closing it hands back a limb it
// took over with the button.
export const pageId = Array.from(crypto.getRandomValues(new Uint8Array(12)), b => b.toString(16).padStart(2, '0')).join('');

function headers() {
  return { Authorization: 'Bearer ' + key, 'X-Dvv-Page': pageId };
}

// noKey says what to do when this tab has no valid secret, and stops.
function noKey(why) {
  sessionStorage.removeItem(KEY);
  if (document.getElementById('nokey')) throw new Error(why);
  const p = document.createElement('p');
  p.className = 'warn';
  p.id = 'nokey';
  p.textContent = `${why} Run \`dvv viewer\` to open the viewer (or \`dvv viewer --no-open\` and paste the link it prints into this browser). ` +
    'The link carries a secret kept in this tab only, so a tab opened by hand has none.';
  document.body.prepend(p);
  throw new Error(why);
}

export async function api(path, method = 'GET') {
  if (!key) noKey('This tab has no viewer secret.');
  const r = await fetch(path, { method, headers: headers(), credentials: 'omit', cache: 'no-store' });
  if (r.status === 401) noKey('dvvd did not accept this tab\'s secret (was dvvd restarted?).');
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${(await r.text()).trim()}`);
  return r.json();
}

// image fetches a picture with the secret and answers an object URL for
// an <img> (whose own requests could not carry it).
export async function image(path) {
  const r = await fetch(path, { headers: headers(), credentials: 'omit', cache: 'no-store' });
  if (!r.ok) throw new Error(`GET ${path}: ${r.status}`);
  return URL.createObjectURL(await r.blob());
}

// wsProtocols offers the socket's protocol and the secret; dvvd selects
// the first.
export function wsProtocols(proto) {
  return [proto, 'dvv-key.' + key];
}

// openInTab opens a viewer page in a new tab as a script does, so the tab
// starts with a copy of this tab's sessionStorage (a tab opened from a
// plain link would have no secret).
export function openInTab(href) {
  window.open(href, '_blank');
}

export function since(ms) {
  if (!ms) return '';
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  return new Date(ms).toLocaleTimeString();
}

// leaseText is the lease in one short line (see leaseLine).
export function leaseText(l) {
  return leaseLine(l).short;
}

// clock is a time of day, short: "14:02".
function clock(ms) {
  return new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

function ago(ms) {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  return `${Math.floor(s / 3600)} h ${Math.floor(s / 60) % 60} min ago`;
}

// leaseLine says who drives a limb, since when and why, in one short
// line (short) for the banner and the cards, and in full (full) for their
// title; kind names the state for the page's colours.
export function leaseLine(l) {
  const le = l.lease || {};
  const who = le.mine ? 'You' : le.human ? `${le.holder} (a person)` : le.holder;
  const since = le.sinceMs ? `since ${clock(le.sinceMs)}` : '';
  const reason = le.mine ? '' : (le.reason || '');
  let short, full, kind;
  if (!le.holder) {
    short = 'Nobody drives: the lease is free';
    full = 'No agent or person holds this limb\'s lease; an agent may acquire it.';
    kind = 'free';
  } else {
    short = [`${who} ${le.mine ? 'drive' : 'drives'}`, since, reason && `“${reason}”`].filter(Boolean).join(' · ');
    full = `${le.mine ? 'You (this viewer) hold' : `${le.holder}${le.human ? ', a person,' : ''} holds`} the lease since ` +
      `${new Date(le.sinceMs).toLocaleString()} (${ago(le.sinceMs)})` + (le.reason ? `; reason: “${le.reason}”.` : '.');
    kind = le.human ? 'human' : 'agent';
  }
  if (l.paused) {
    const where = l.pausedAll ? 'every limb' : 'this limb';
    short = `Agents paused on ${where}` + (le.holder ? ` · ${who} ${le.mine ? 'hold' : 'holds'} the lease` : '');
    full = `A person paused agent input on ${where}: agents' acts are refused until Resume. ` + full;
    kind = 'paused';
  }
  return { short, full, kind };
}

// setupMode reads what this build can show and hides controls a
// read-only session may not use.
export async function setupMode() {
  const info = await api('/api/info');
  if (info.readOnly) document.body.classList.add('readonly');
  const mode = document.getElementById('mode');
  if (mode) mode.textContent = info.readOnly ? 'read-only' : '';
  const missing = [];
  if (!info.novnc) missing.push('noVNC (desktops)');
  if (!info.xterm) missing.push('xterm.js (terminals)');
  const warn = document.getElementById('missing');
  if (warn && missing.length) {
    warn.hidden = false;
    warn.textContent = `This dvvd was built without ${missing.join(' and ')}: run \`make web\` (npm ci in pkg/viewer/web) and rebuild dvvd to see live pictures here.`;
  }
  for (const [id, path] of [['pause-all', '/api/all/pause'], ['resume-all', '/api/all/resume']]) {
    const b = document.getElementById(id);
    if (b) b.onclick = () => api(path, 'POST').catch(e => alert(e));
  }
  return info;
}

// offer enables a button or disables it; its title says what it does, or
// why it cannot be used now.
export function offer(id, ok, title) {
  const b = document.getElementById(id);
  if (!b) return;
  b.disabled = !ok;
  b.title = title;
}
