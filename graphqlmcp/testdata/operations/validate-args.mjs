// validate-args.mjs checks saved-operation tools as the official MCP
// TypeScript SDK (pinned in scripts/ts-client, which scripts/e2e installs and
// names in MCP_TS_CLIENT) sees them, and prints one JSON line on stdout:
//   node validate-args.mjs URL CASES_JSON -> [{tool, valid, message, isError, text, callError}]
// Each case {tool, args, call} is validated against the tool's listed input
// schema by the SDK's own JSON Schema validator (AjvJsonSchemaValidator, the
// one its Client uses); a case with call: true is then called, and the SDK
// checks the structured result against the tool's output schema (a mismatch
// is a callError).
import { createRequire } from 'node:module';

const require = createRequire(process.env.MCP_TS_CLIENT);
const { Client } = require('@modelcontextprotocol/sdk/client');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { AjvJsonSchemaValidator } = require('@modelcontextprotocol/sdk/validation/ajv');

const [url, casesJSON] = process.argv.slice(2);
const client = new Client({ name: 'mcpforge-e2e-ts-args', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const { tools } = await client.listTools();
const validator = new AjvJsonSchemaValidator();
const results = [];
for (const c of JSON.parse(casesJSON)) {
  const tool = tools.find((t) => t.name === c.tool);
  if (!tool) {
    results.push({ tool: c.tool, callError: 'not listed' });
    continue;
  }
  const check = validator.getValidator(tool.inputSchema)(c.args);
  const result = { tool: c.tool, valid: check.valid, message: check.errorMessage ?? null };
  if (c.call) {
    try {
      const answer = await client.callTool({ name: c.tool, arguments: c.args });
      result.isError = Boolean(answer.isError);
      result.text = String(answer.content?.[0]?.text ?? '').slice(0, 500);
    } catch (error) {
      result.callError = error instanceof Error ? error.message : String(error);
    }
  }
  results.push(result);
}
process.stdout.write(JSON.stringify(results) + '\n');
await client.close();
