// Tool sets seen by the official TypeScript SDK: dvvmcp without --tools
// lists exactly the reference's tools and refuses a set's tool as unknown;
// with --tools text it reads a word off a real desktop with dvv_find and
// clicks it with dvv_click_text. Every structuredContent is validated
// against its tool's outputSchema (Ajv, strict). Prints one JSON summary
// line for pkg/mcp's TestTypeScriptClientToolSets, which checks the word's
// box and the click against what the X server reports.
//
// usage: node sets.mjs <path to dvvmcp> [dvvmcp flags...]
// env: DVV_TEST_VNC_PORT (the Xvnc), DVV_TEST_WORD (a word an xterm shows).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import Ajv2020 from "ajv/dist/2020.js";

const [command, ...flags] = process.argv.slice(2);
const port = Number(process.env.DVV_TEST_VNC_PORT || 0);
const word = process.env.DVV_TEST_WORD || "";
if (!command || !port || !word) {
  console.error("usage: DVV_TEST_VNC_PORT=… DVV_TEST_WORD=… node sets.mjs <dvvmcp> [flags...]");
  process.exit(2);
}

const summary = { invalid: [], validated: [] };

async function connect(extra) {
  const transport = new StdioClientTransport({ command, args: [...flags, ...extra], env: process.env, stderr: "inherit" });
  const client = new Client({ name: "ts-sets-test", version: "1.0.0" });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  const validators = new Map();
  for (const t of tools) {
    try {
      validators.set(t.name, ajv.compile(t.outputSchema));
    } catch (e) {
      summary.invalid.push({ tool: t.name, schema: String(e) });
    }
  }
  const call = async (name, args) => {
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
  };
  // unknown calls a tool expecting the protocol error of an unknown tool.
  const unknown = async (name, args) => {
    try {
      await client.callTool({ name, arguments: args });
      return { code: 0 };
    } catch (e) {
      return { code: e.code ?? String(e), message: String(e.message ?? e) };
    }
  };
  return { client, tools, call, unknown };
}

const text = (res) => (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

// The reference's tools only, and a set's tool is unknown there.
{
  const { client, tools, unknown } = await connect([]);
  summary.defaultTools = tools.map((t) => t.name);
  summary.defaultFind = await unknown("dvv_find", { limbId: "vnc-x", text: word });
  await client.close();
}

// --tools text: read the word, then click it.
{
  const { client, tools, call, unknown } = await connect(["--tools", "text"]);
  summary.textTools = tools.map((t) => t.name);
  summary.textExpect = await unknown("dvv_expect", { limbId: "vnc-x", templateBase64: "AA==" });
  const open = await call("dvv_open", { address: "127.0.0.1", port, protocol: "vnc", perceive: true });
  const limbId = open.structuredContent?.limbId;
  if (!limbId) {
    summary.error = `open: ${text(open)}`;
  } else {
    await call("dvv_wait", { limbId, until: "connected", timeoutMs: 20000 });
    await call("dvv_control", { limbId, action: "acquire", reason: "sets test" });
    const wait = await call("dvv_wait", { limbId, until: "text", text: word, timeoutMs: 20000 });
    summary.wait = { isError: !!wait.isError, text: text(wait) };
    const find = await call("dvv_find", { limbId, text: word });
    summary.find = { isError: !!find.isError, text: text(find), structured: find.structuredContent };
    const missing = await call("dvv_click_text", { limbId, text: "Nowhere on this screen" });
    summary.missing = { isError: !!missing.isError, text: text(missing), structured: missing.structuredContent };
    const click = await call("dvv_click_text", { limbId, text: word });
    summary.click = { isError: !!click.isError, text: text(click), structured: click.structuredContent };
  }
  await client.close();
}

// --tools all: the image and evidence sets on the same desktop.
{
  const { client, tools, call } = await connect(["--tools", "all"]);
  summary.allTools = tools.map((t) => t.name);
  const open = await call("dvv_open", { address: "127.0.0.1", port, protocol: "vnc", perceive: true });
  const limbId = open.structuredContent?.limbId;
  if (limbId) {
    await call("dvv_wait", { limbId, until: "connected", timeoutMs: 20000 });
    await call("dvv_wait", { limbId, until: "text", text: word, timeoutMs: 20000 });
    const find = await call("dvv_find", { limbId, text: word });
    const box = find.structuredContent?.find?.matches?.[0]?.box;
    if (box) {
      // The word's picture, cut at scale 1 a little larger than its box.
      const region = { x: box.x - 4, y: box.y - 4, w: box.w + 8, h: box.h + 8 };
      const cut = await call("dvv_screen", { limbId, form: "region", region });
      const png = (cut.content ?? []).find((c) => c.type === "image")?.data;
      const expect = await call("dvv_expect", { limbId, templateBase64: png, timeoutMs: 5000 });
      summary.expect = { region, isError: !!expect.isError, text: text(expect), structured: expect.structuredContent };
    }
    const rec = await call("dvv_record", { limbId, action: "start" });
    await call("dvv_find", { limbId, text: word });
    const stop = await call("dvv_record", { limbId, action: "stop" });
    const list = await call("dvv_record", { limbId, action: "list" });
    summary.record = { start: rec.structuredContent, stop: stop.structuredContent, list: list.structuredContent };
    const history = await call("dvv_history", { limbId });
    summary.history = history.structuredContent;
    const report = await call("dvv_report", {});
    summary.report = { isError: !!report.isError, text: text(report).slice(0, 400) };
  }
  await client.close();
}

console.log(JSON.stringify(summary));
