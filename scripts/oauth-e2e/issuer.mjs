// issuer.mjs runs oauth2-mock-server (pinned in package-lock.json), a real
// OAuth 2 authorization server, on a loopback port for scripts/oauth-e2e's
// tests, and prints one JSON line on stdout: {"issuer": URL}. It serves
// until stdin ends.
//
// Two things are added to the mock, as an authorization server in front of
// an MCP server does them:
//   - the access token's aud is the resource the client asked for (RFC
//     8707's resource parameter, which the MCP authorization spec makes
//     clients send), and its scope is what the authorization request asked
//     for;
//   - a policy per client: the client "reader" is granted mcp:read only,
//     whatever it asks for; any other client gets what it asks for.
import { OAuth2Server } from 'oauth2-mock-server';

const policy = { reader: ['mcp:read'] };
const server = new OAuth2Server();
await server.issuer.keys.generate('ES256');

// The scope each authorization code was issued for.
const scopes = new Map();
server.service.on('beforeAuthorizeRedirect', (redirect, req) => {
  const code = redirect.url.searchParams.get('code');
  if (code === null) return;
  let asked = (req.query.scope ?? '').split(' ').filter(Boolean);
  const allowed = policy[req.query.client_id];
  if (allowed) asked = asked.filter((s) => allowed.includes(s));
  scopes.set(code, asked.join(' '));
});
server.service.on('beforeTokenSigning', (token, req) => {
  // Tokens the resource server must refuse, signed with this server's
  // own key, asked for by the tests (mcptest.OAuthBadTokens).
  if (req.body.test === 'expired') token.payload.exp = Math.floor(Date.now() / 1000) - 3600;
  if (req.body.test === 'other-issuer') token.payload.iss = 'https://other-issuer.example.com';
  // The ID token already has its audience (the client); the access
  // token has none.
  if (token.payload.aud !== undefined) return;
  if (req.body.resource !== undefined) token.payload.aud = req.body.resource;
  if (req.body.grant_type === 'authorization_code') token.payload.scope = scopes.get(req.body.code) ?? '';
});
// The token response says the scope granted (RFC 6749 §5.1), not the
// mock's placeholder.
server.service.on('beforeResponse', (response, req) => {
  if (req.body.grant_type === 'authorization_code') response.body.scope = scopes.get(req.body.code) ?? '';
});

await server.start(0, '127.0.0.1');
process.stdout.write(JSON.stringify({ issuer: server.issuer.url }) + '\n');
process.stdin.resume();
process.stdin.on('end', async () => {
  await server.stop();
  process.exit(0);
});
