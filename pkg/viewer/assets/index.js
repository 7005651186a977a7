// The index: every limb with a live thumbnail and its lease.
import { api, image, leaseLine, offer, openInTab, setupMode } from '/assets/common.js';

const cards = new Map();
const root = document.getElementById('limbs');

function card(l) {
  let c = cards.get(l.id);
  if (!c) {
    const a = document.createElement('a');
    a.className = 'card';
    a.href = '/limb/' + encodeURIComponent(l.id);
    a.dataset.limb = l.id;
    // A new tab must be opened by script to get this tab's secret.
    a.onclick = (e) => { if (e.ctrlKey || e.metaKey || e.shiftKey) { e.preventDefault(); openInTab(a.href); } };
    a.onauxclick = (e) => { if (e.button === 1) { e.preventDefault(); openInTab(a.href); } };
    const pic = document.createElement(l.kind === 'desktop' ? 'img' : 'pre');
    pic.className = 'thumb';
    const meta = document.createElement('div');
    meta.className = 'meta';
    const lease = document.createElement('div');
    lease.className = 'lease';
    a.append(pic, meta, lease);
    c = { a, pic, meta, lease, loading: false };
    cards.set(l.id, c);
  }
  c.meta.textContent = c.meta.title = `${l.id} · ${l.protocol} ${l.address}:${l.port} · ${l.state}` + (l.width ? ` · ${l.width}×${l.height}` : '');
  const line = leaseLine(l);
  c.lease.textContent = line.short;
  c.lease.title = line.full;
  c.lease.className = 'lease ' + line.kind;
  // The thumbnail takes the card's width at the picture's own shape.
  if (l.width && l.height) c.pic.style.aspectRatio = `${l.width} / ${l.height}`;
  if (l.kind === 'desktop') {
    // One thumbnail request at a time per limb: a slow browser skips frames.
    if (!c.loading && l.width) {
      c.loading = true;
      image('/thumb/' + encodeURIComponent(l.id)).then((u) => {
        const old = c.pic.src;
        c.pic.src = u;
        if (old.startsWith('blob:')) URL.revokeObjectURL(old);
      }).catch(() => {}).finally(() => { c.loading = false; });
    }
  } else {
    c.pic.textContent = (l.preview || []).join('\n');
  }
  return c.a;
}

// showButtons offers Pause all and Resume all when they would change something.
function showButtons(limbs) {
  const all = limbs.some(l => l.pausedAll);
  if (all) offer('pause-all', false, 'Agents are already paused on every limb');
  else offer('pause-all', true, 'Refuse agent input on every limb until Resume');
  if (limbs.some(l => l.paused)) offer('resume-all', true, 'Let agents act again on every limb');
  else offer('resume-all', false, 'Nothing to resume: agents are not paused on any limb');
}

async function refresh() {
  try {
    const limbs = await api('/api/limbs');
    const seen = new Set();
    const nodes = limbs.map(l => { seen.add(l.id); return card(l); });
    for (const id of cards.keys()) if (!seen.has(id)) cards.delete(id);
    showButtons(limbs);
    root.replaceChildren(...(nodes.length ? nodes : [Object.assign(document.createElement('p'), { className: 'empty', textContent: 'No limbs are open. Open one with `dvv open`.' })]));
  } catch (e) {
    root.replaceChildren(Object.assign(document.createElement('p'), { className: 'warn', textContent: String(e) }));
  }
}

await setupMode();
refresh();
setInterval(refresh, 1000);
