// What dvvmcp's tools/list costs a client: starts the bridge, sends
// initialize and tools/list as raw JSON-RPC lines, and prints the answer's
// size in bytes and in tokens (o200k_base, the GPT-4o/GPT-5 encoding, via
// gpt-tokenizer; other models' tokenizers differ by some percent), whole
// and by part. Any further arguments are text files measured the same way
// (to compare with a reference text).
//
// usage: node measure-tools.mjs <path to dvvmcp> [text files...]
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { encode } from "gpt-tokenizer/encoding/o200k_base";

const [command, ...files] = process.argv.slice(2);
if (!command) {
  console.error("usage: node measure-tools.mjs <dvvmcp> [text files...]");
  process.exit(2);
}

// No dvvd is needed: tools/list dials nothing.
const child = spawn(command, ["--socket", "/nonexistent/dvv.sock"], { stdio: ["pipe", "pipe", "inherit"] });
const lines = createInterface({ input: child.stdout });
const answers = new Map();
const waiters = new Map();
lines.on("line", (line) => {
  const id = JSON.parse(line).id;
  answers.set(id, line);
  waiters.get(id)?.();
});
const answer = (id) => new Promise((resolve) => (answers.has(id) ? resolve() : waiters.set(id, resolve))).then(() => answers.get(id));
const send = (msg) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...msg }) + "\n");

send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "measure", version: "1" } } });
const init = await answer(1);
send({ method: "notifications/initialized" });
send({ id: 2, method: "tools/list" });
const line = await answer(2);
child.stdin.end();

const size = (s) => ({ bytes: Buffer.byteLength(s), tokens: encode(s).length });
const tools = JSON.parse(line).result.tools;
const part = (pick) => size(tools.map((t) => pick(t) ?? "").join(""));
const out = {
  toolsList: size(line),
  parts: {
    namesTitlesDescriptions: part((t) => t.name + (t.title ?? "") + (t.description ?? "")),
    inputSchemas: part((t) => JSON.stringify(t.inputSchema)),
    outputSchemas: part((t) => JSON.stringify(t.outputSchema)),
    annotations: part((t) => JSON.stringify(t.annotations)),
  },
  instructions: size(JSON.parse(init).result.instructions ?? ""),
  files: Object.fromEntries(files.map((f) => [f, size(readFileSync(f, "utf8"))])),
};
console.log(JSON.stringify(out, null, 2));
