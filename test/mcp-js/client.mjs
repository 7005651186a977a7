// An independent MCP client for dvvmcp: the official TypeScript SDK starts
// the bridge over stdio, lists its tools and calls some. It prints one JSON
// summary line on stdout for pkg/mcp's TestTypeScriptClient to check.
//
// usage: node client.mjs <path to dvvmcp> [dvvmcp flags...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

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
  instructions: client.getInstructions() ?? "",
};
const { tools } = await client.listTools();
summary.tools = tools.map((t) => t.name);
summary.clickSchema = tools.find((t) => t.name === "dvv_click")?.inputSchema;

const first = (res) => (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
const limbs = await client.callTool({ name: "dvv_limbs", arguments: {} });
summary.limbs = { isError: !!limbs.isError, text: first(limbs), structured: limbs.structuredContent };

const gone = await client.callTool({ name: "dvv_status", arguments: { limbId: "vnc-not-here" } });
summary.gone = { isError: !!gone.isError, text: first(gone), structured: gone.structuredContent };

const bad = await client.callTool({ name: "dvv_click", arguments: { action: "click", x: "ten" } });
summary.bad = { isError: !!bad.isError, text: first(bad) };

await client.ping();
summary.resources = (await client.listResources()).resources;
summary.prompts = (await client.listPrompts()).prompts;

console.log(JSON.stringify(summary));
await client.close();
