// graphql-js 17 (pinned in package.json as graphql17) answering over HTTP
// on loopback, for graphqlmcp/yoga_e2e_test.go: the payloads are the
// reference implementation's own, framed as multipart/mixed (boundary
// "graphql", as Apollo Router frames them). POST /graphql answers in
// graphql-js 17's format (experimentalExecuteIncrementally: pending,
// incremental by id, completed); POST /legacy in the 2022 draft's
// (legacyExecuteIncrementally: incremental by path and label). The schema is
// hero.mjs's, as server.mjs's: a deferred slow field, a streamed list, a failing field, a
// failing non-null field, a field that echoes the Authorization header.
// An operation whose answer comes in parts needs an Accept that names
// multipart/mixed (406 otherwise, as yoga answers). It logs
// "url=http://127.0.0.1:PORT/graphql" on stderr when it listens, and exits
// when sent SIGTERM.
import { createServer } from 'node:http';
import {
  GraphQLDeferDirective,
  GraphQLError,
  GraphQLSchema,
  GraphQLStreamDirective,
  buildSchema,
  experimentalExecuteIncrementally,
  legacyExecuteIncrementally,
  parse,
  specifiedDirectives,
  validate,
} from 'graphql17';
import { hero, typeDefs } from './hero.mjs';

const schema = new GraphQLSchema({
  ...buildSchema(typeDefs).toConfig(),
  directives: [...specifiedDirectives, GraphQLDeferDirective, GraphQLStreamDirective],
});

const rootValue = {
  hero: (_args, context) => hero({ GraphQLError, authorization: context.authorization }),
};

function send(res, status, body) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function answer(req, res) {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  const { query, variables, operationName } = JSON.parse(raw);
  let document;
  try {
    document = parse(query);
  } catch (error) {
    return send(res, 400, { errors: [error] });
  }
  const errors = validate(schema, document);
  if (errors.length > 0) return send(res, 400, { errors });
  const execute = req.url === '/legacy' ? legacyExecuteIncrementally : experimentalExecuteIncrementally;
  const contextValue = { authorization: req.headers.authorization };
  const result = await execute({ schema, document, rootValue, contextValue, variableValues: variables, operationName });
  if (!('initialResult' in result)) return send(res, 200, result);
  if (!/multipart\/mixed/.test(req.headers.accept ?? '')) return send(res, 406, { errors: [{ message: 'Accept multipart/mixed' }] });
  res.writeHead(200, { 'Content-Type': 'multipart/mixed; boundary="graphql"; incrementalSpec=v0.2' });
  const part = (payload) => res.write(`\r\n--graphql\r\ncontent-type: application/json; charset=utf-8\r\n\r\n${JSON.stringify(payload)}`);
  part(result.initialResult);
  for await (const payload of result.subsequentResults) part(payload);
  res.end('\r\n--graphql--\r\n');
}

const server = createServer((req, res) => {
  answer(req, res).catch((error) => {
    if (!res.headersSent) send(res, 500, { errors: [{ message: String(error) }] });
    else res.destroy();
  });
});
server.listen(0, '127.0.0.1', () => {
  console.error(`url=http://127.0.0.1:${server.address().port}/graphql`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
