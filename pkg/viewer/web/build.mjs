// Copies the browser libraries the viewer uses from node_modules into
// ../assets/dist, which dvvd embeds. Run by `make web` after `npm ci`.
import { cpSync, rmSync, mkdirSync } from 'node:fs';

const out = '../assets/dist';
const nm = 'node_modules';
rmSync(`${out}/novnc`, { recursive: true, force: true });
rmSync(`${out}/xterm`, { recursive: true, force: true });
mkdirSync(`${out}/novnc`, { recursive: true });
mkdirSync(`${out}/xterm`, { recursive: true });
// noVNC is native ES modules: its core imports ../vendor/pako relatively.
cpSync(`${nm}/@novnc/novnc/core`, `${out}/novnc/core`, { recursive: true });
cpSync(`${nm}/@novnc/novnc/vendor`, `${out}/novnc/vendor`, { recursive: true });
cpSync(`${nm}/@novnc/novnc/LICENSE.txt`, `${out}/novnc/LICENSE.txt`);
cpSync(`${nm}/@xterm/xterm/lib/xterm.mjs`, `${out}/xterm/xterm.mjs`);
cpSync(`${nm}/@xterm/xterm/css/xterm.css`, `${out}/xterm/xterm.css`);
cpSync(`${nm}/@xterm/xterm/LICENSE`, `${out}/xterm/LICENSE`);
console.log('viewer assets copied to', out);
