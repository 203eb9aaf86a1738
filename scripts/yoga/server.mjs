// A graphql-yoga server with its defer-stream plugin (pinned in
// package.json), on loopback, for graphqlmcp/yoga_e2e_test.go: a hero whose
// slowName is resolved late (deferred), whose friends come one by one
// (streamed), whose verySlow field outlasts the test's timeout, and whose
// failing field throws, so that an increment carries an error; brokenName,
// a non-null field that throws, nulls the whole deferred fragment it is in;
// echo answers the request's Authorization header, as a server that echoes
// a credential would. It logs "url=http://127.0.0.1:PORT/graphql" on stderr
// when it listens, and exits when sent SIGTERM. scripts/yoga-e2e copies it beside
// the installed packages, with the schema and hero they share (hero.mjs).
import { createServer } from 'node:http';
import { GraphQLError } from 'graphql';
import { createSchema, createYoga } from 'graphql-yoga';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { hero, typeDefs } from './hero.mjs';

const schema = createSchema({
  typeDefs,
  resolvers: {
    Query: {
      hero: (_root, _args, context) => hero({ GraphQLError, authorization: context.request.headers.get('authorization') }),
    },
  },
});

const yoga = createYoga({ schema, plugins: [useDeferStream()], logging: false });
const server = createServer(yoga);
server.listen(0, '127.0.0.1', () => {
  console.error(`url=http://127.0.0.1:${server.address().port}/graphql`);
});
// SIGTERM ends it cleanly (exit status 0), as the test's Stop expects.
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
