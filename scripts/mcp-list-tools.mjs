#!/usr/bin/env node
// Lists the tools a key sees on a running BMS server's MCP endpoint, with the official MCP SDK's client:
//   BMS_URL=http://127.0.0.1:3000 BMS_API_KEY=bms_... node scripts/mcp-list-tools.mjs
// Prints one line per tool (name, read-only or write, description); exits 1 with the reason when it cannot.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const base = process.env.BMS_URL ?? 'http://127.0.0.1:3000';
const key = process.env.BMS_API_KEY;
if (!key) {
  process.stderr.write('Set BMS_API_KEY to an API key (bms_...).\n');
  process.exit(1);
}
const client = new Client({ name: 'bms-mcp-list-tools', version: '1.0.0' });
try {
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', base), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  const { tools } = await client.listTools();
  for (const tool of tools)
    process.stdout.write(
      `${tool.name.padEnd(22)} ${tool.annotations?.readOnlyHint ? 'read ' : 'write'}  ${tool.description}\n`,
    );
  await client.close();
} catch (error) {
  process.stderr.write(`Could not list the tools at ${base}/mcp: ${error.message}\n`);
  process.exit(1);
}
