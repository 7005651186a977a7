// Shared helpers of the viewer pages.
export async function api(path, method = 'GET') {
  const r = await fetch(path, { method, credentials: 'same-origin' });
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${(await r.text()).trim()}`);
  return r.json();
}

export function since(ms) {
  if (!ms) return '';
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  return new Date(ms).toLocaleTimeString();
}

export function leaseText(l) {
  if (l.paused) return 'agents paused by a person';
  const le = l.lease || {};
  if (!le.holder) return 'lease: free';
  let t = `lease: ${le.holder}${le.human ? ' (a person)' : ''}${le.mine ? ' — you' : ''}, since ${since(le.sinceMs)}`;
  if (le.reason) t += ` — “${le.reason}”`;
  return t;
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
