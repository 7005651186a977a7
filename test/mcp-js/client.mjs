// An independent MCP client for dvvmcp: the official TypeScript SDK starts
// the bridge over stdio, lists its tools and calls some. Every tool's
// outputSchema is compiled with Ajv in strict mode, and every
// structuredContent received is validated against it. It prints one JSON
// summary line on stdout for pkg/mcp's TestTypeScriptClient to check.
//
// usage: node client.mjs <path to dvvmcp> [dvvmcp flags...]
// With DVV_TEST_VNC_PORT set, it also drives a VNC server on 127.0.0.1 at
// that port through the tools, so real answers of most tools are validated.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import Ajv2020 from "ajv/dist/2020.js";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node client.mjs <dvvmcp> [flags...]");
  process.exit(2);
}

const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
const client = new Client({ name: "ts-sdk-test", version: "1.0.0" });
await client.connect(transport);

const summary = {
  server: client.getServerVersion(),
  capabilities: client.getServerCapabilities(),
  instructions: client.getInstructions() ?? "",
  invalid: [],
  validated: [],
};
const listStart = performance.now();
const { tools } = await client.listTools();
summary.listToolsMs = Math.round(performance.now() - listStart);
summary.tools = tools.map((t) => t.name);
summary.clickSchema = tools.find((t) => t.name === "dvv_click")?.inputSchema;

// Strict: unknown keywords, missing types and ignored keywords are errors
// (union types like ["array","null"] are the one allowance).
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
const validators = new Map();
for (const t of tools) {
  try {
    validators.set(t.name, ajv.compile(t.outputSchema));
  } catch (e) {
    summary.invalid.push({ tool: t.name, schema: String(e) });
  }
}

const first = (res) => (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
async function call(name, args) {
  const res = await client.callTool({ name, arguments: args });
  const validate = validators.get(name);
  if (res.structuredContent === undefined) {
    summary.invalid.push({ tool: name, missing: "structuredContent" });
  } else if (validate && !validate(res.structuredContent)) {
    summary.invalid.push({ tool: name, errors: validate.errors, structured: res.structuredContent });
  } else {
    summary.validated.push(`${name}${res.isError ? " (error)" : ""}`);
  }
  return res;
}

const limbs = await call("dvv_limbs", {});
summary.limbs = { isError: !!limbs.isError, text: first(limbs), structured: limbs.structuredContent };

const gone = await call("dvv_status", { limbId: "vnc-not-here" });
summary.gone = { isError: !!gone.isError, text: first(gone), structured: gone.structuredContent };

const bad = await call("dvv_click", { action: "click", x: "ten" });
summary.bad = { isError: !!bad.isError, text: first(bad) };

await client.ping();
for (const [what, list] of [["resources", () => client.listResources()], ["prompts", () => client.listPrompts()]]) {
  try {
    summary[what] = await list();
  } catch (e) {
    summary[what] = { error: e.code ?? String(e) };
  }
}

const port = Number(process.env.DVV_TEST_VNC_PORT || 0);
if (port) {
  summary.drove = await drive(port);
}

console.log(JSON.stringify(summary));
await client.close();

// drive opens the VNC server and calls the tools an agent's loop uses, a
// group's and a few failures, so their real answers meet the schemas.
async function drive(port) {
  const address = "127.0.0.1";
  const open = await call("dvv_open", { address, port, protocol: "vnc", perceive: true });
  const limbId = open.structuredContent?.limbId;
  if (!limbId) return `open failed: ${first(open)}`;
  await call("dvv_wait", { limbId, until: "connected", timeoutMs: 20000 });
  const status = await call("dvv_status", { limbId });
  const generation = status.structuredContent?.observation?.geometry?.generation;
  await call("dvv_signals", { limbId });
  await call("dvv_limbs", {});
  await call("dvv_hosts", {});
  await call("dvv_control", { limbId, action: "acquire" });
  await call("dvv_screen", { limbId });
  await call("dvv_screen", { limbId, form: "damage-crop" });
  await call("dvv_click", { limbId, action: "move", x: 5, y: 5, generation });
  await call("dvv_click", { limbId, action: "move", x: 5, y: 5, generation: generation + 1 }); // GEOMETRY_CHANGED
  await call("dvv_key", { limbId, keys: "shift" });
  await call("dvv_screen", { limbId });
  await call("dvv_type", { limbId, text: "a" });
  await call("dvv_wait", { limbId, until: "screen-stable", quietMs: 200, timeoutMs: 5000 });
  await call("dvv_clipboard", { limbId, action: "set", text: "dvv" });
  await call("dvv_clipboard", { limbId, action: "get" });
  // Terminal tools on a desktop answer WRONG_PROTOCOL; files without SSH, FILES_UNAVAILABLE.
  await call("dvv_term_read", { limbId });
  await call("dvv_term_send", { limbId, text: "x" });
  await call("dvv_run", { limbId, command: "true", timeoutMs: 1000 });
  await call("dvv_files", { limbId, action: "home" });
  await call("dvv_transfer", { limbId, action: "status" });
  await call("dvv_reconnect", { limbId, timeoutMs: 20000 });
  await call("dvv_control", { limbId, action: "acquire" });
  await call("dvv_control", { limbId, action: "yield_status" });
  const group = await call("dvv_group_open", { addresses: [`${address}:${port}`], protocol: "vnc", perceive: true });
  const groupId = group.structuredContent?.group?.groupId;
  if (groupId) {
    await call("dvv_group_list", {});
    await call("dvv_group_list", { groupId });
    await call("dvv_group_run", { groupId, action: "status" });
    await call("dvv_group_run", { groupId, action: "screen", arguments: { scale: 0.25 } });
    await call("dvv_group_grow", { groupId, addresses: [`${address}:${port}`], protocol: "vnc" });
    await call("dvv_group_shrink", { groupId, n: 1 });
    await call("dvv_group_close", { groupId });
  }
  await call("dvv_control", { limbId, action: "release" });
  await call("dvv_close", { limbId });
  return limbId;
}
