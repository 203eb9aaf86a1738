// The official TypeScript SDK's client for a browser page: esbuild bundles
// this file into mcp-client.js, which sets window.MCP.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

window.MCP = { Client, StreamableHTTPClientTransport };
