// client.mjs drives an MCP server over Streamable HTTP with the official
// TypeScript SDK, as the Go tests of scripts/e2e ask, and prints one JSON
// line on stdout:
//   node client.mjs URL read URI              -> {bytes, sha256, contentType}
//   (sha256 is of the text with each third-party frame's random marker,
//   untrusted-<32 hex>, written untrusted-MARKER: two reads differ in it)
//   node client.mjs URL call TOOL ARGS_JSON   -> {result, contentType}
//   (read and call take --progress last: the request then asks for progress
//   notifications, as a client with a progress callback does, and
//   progress counts those that came)
//   node client.mjs URL oversize TOOL ARG     -> {error}: a call whose ARG is 5 MiB
//   node client.mjs URL cancel TOOL ARGS_JSON -> {error}: the call, asking for
//     progress, aborted at its first progress notification; the client
//     (and its HTTP connection) then stays until stdin ends, so that only
//     notifications/cancelled can stop the server's handler.
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, command, ...args] = process.argv.slice(2);
const rest = args.filter((arg) => arg !== '--progress');
let progress = 0;
const options = args.includes('--progress') ? { onprogress: () => progress++ } : undefined;
const contentTypes = [];
const transport = new StreamableHTTPClientTransport(new URL(url), {
  // Records how the server answered each call's POST (JSON or an SSE
  // stream): not the standalone GET stream's refusal, which may come in
  // at any time, nor a notification's empty 202.
  fetch: async (input, init) => {
    const response = await fetch(input, init);
    if (init?.method === 'POST' && response.status !== 202) {
      contentTypes.push(response.headers.get('content-type'));
    }
    return response;
  },
});
const client = new Client({ name: 'mcpforge-e2e-ts', version: '1.0.0' });
await client.connect(transport);
const print = (value) => process.stdout.write(JSON.stringify(value) + '\n');
const message = (error) => (error instanceof Error ? error.message : String(error));

switch (command) {
  case 'read': {
    const result = await client.readResource({ uri: rest[0] }, options);
    const text = result.contents[0].text;
    print({
      bytes: Buffer.byteLength(text),
      sha256: createHash('sha256').update(text.replace(/untrusted-[0-9a-f]{32}/g, 'untrusted-MARKER')).digest('hex'),
      contentType: contentTypes.at(-1),
      progress,
    });
    break;
  }
  case 'call':
    print({
      result: await client.callTool({ name: rest[0], arguments: JSON.parse(rest[1]) }, undefined, options),
      contentType: contentTypes.at(-1),
      progress,
    });
    break;
  case 'oversize':
    try {
      await client.callTool({ name: rest[0], arguments: { [rest[1]]: 'x'.repeat(5 << 20) } });
      print({ error: null });
    } catch (error) {
      print({ error: message(error) });
    }
    break;
  case 'cancel': {
    const abort = new AbortController();
    try {
      await client.callTool({ name: rest[0], arguments: JSON.parse(rest[1]) }, undefined, {
        signal: abort.signal,
        onprogress: () => abort.abort('the user pressed Esc'),
        timeout: 600_000,
      });
      print({ error: null });
    } catch (error) {
      print({ error: message(error) });
    }
    process.stdin.resume();
    await new Promise((resolve) => process.stdin.on('end', resolve));
    break;
  }
  default:
    throw new Error(`unknown command ${command}`);
}
await client.close();
