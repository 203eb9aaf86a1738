// client.mjs connects to an MCP server over Streamable HTTP with the
// official TypeScript SDK's OAuth client, as scripts/oauth-e2e's tests ask:
//   node client.mjs URL CLIENT_ID TOOL ARGS_JSON [TOOL ARGS_JSON ...]
// The SDK meets the server's 401, reads the Protected Resource Metadata it
// names, discovers the authorization server, and sends the person to its
// authorization endpoint; here the "person" is a fetch that follows the
// authorization server's redirect (oauth2-mock-server approves at once)
// and hands the code back to the SDK, which gets the token (PKCE, the
// resource parameter). Then each tool is called. It prints one JSON line:
// {fetched: [every URL the SDK fetched, in order], authorize: {scope,
// resource} of the authorization request, results: [each call's result]}.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const [url, clientId, ...calls] = process.argv.slice(2);
const redirectUrl = 'http://127.0.0.1:9/callback';

// An OAuthClientProvider keeping everything in memory; the client is
// registered in advance (oauth2-mock-server takes any client id).
class Provider {
  constructor() {
    this.saved = {};
  }
  get redirectUrl() {
    return redirectUrl;
  }
  get clientMetadata() {
    return { client_name: clientId, redirect_uris: [redirectUrl], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return { client_id: clientId };
  }
  tokens() {
    return this.saved.tokens;
  }
  saveTokens(tokens) {
    this.saved.tokens = tokens;
  }
  redirectToAuthorization(authorizationUrl) {
    this.saved.authorizationUrl = authorizationUrl;
  }
  saveCodeVerifier(verifier) {
    this.saved.verifier = verifier;
  }
  codeVerifier() {
    return this.saved.verifier;
  }
}

const fetched = [];
const recordingFetch = async (input, init) => {
  fetched.push(`${init?.method ?? 'GET'} ${input instanceof Request ? input.url : String(input)}`);
  return fetch(input, init);
};
const provider = new Provider();
const connect = async () => {
  const client = new Client({ name: 'mcpforge-oauth-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: recordingFetch }));
  return client;
};

let client;
try {
  client = await connect();
  throw new Error('the server let the client in without a token');
} catch (error) {
  if (!(error instanceof UnauthorizedError)) throw error;
}
// The person approves: the authorization server redirects to the client
// with a code.
const approval = await fetch(provider.saved.authorizationUrl, { redirect: 'manual' });
const location = new URL(approval.headers.get('location'));
const code = location.searchParams.get('code');
if (!code) throw new Error(`the authorization server answered ${approval.status} ${location}`);
const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: recordingFetch });
await transport.finishAuth(code);
client = new Client({ name: 'mcpforge-oauth-e2e', version: '1.0.0' });
await client.connect(transport);

const results = [];
for (let i = 0; i < calls.length; i += 2) {
  results.push(await client.callTool({ name: calls[i], arguments: JSON.parse(calls[i + 1]) }));
}
await client.close();
const asked = provider.saved.authorizationUrl.searchParams;
process.stdout.write(
  JSON.stringify({
    fetched,
    authorize: { scope: asked.get('scope'), resource: asked.get('resource') },
    tokenScope: provider.saved.tokens?.scope,
    results,
  }) + '\n',
);
