// A graphql-yoga server with its defer-stream plugin (pinned in
// package.json), on loopback, for graphqlmcp/yoga_e2e_test.go: a hero whose
// slowName is resolved late (deferred), whose friends come one by one
// (streamed), whose verySlow field outlasts the test's timeout, and whose
// failing field throws, so that an increment carries an error; brokenName,
// a non-null field that throws, nulls the whole deferred fragment it is in;
// echo answers the request's Authorization header, as a server that echoes
// a credential would. It logs "url=http://127.0.0.1:PORT/graphql" on stderr
// when it listens, and exits when sent SIGTERM. scripts/yoga-e2e copies it beside
// the installed packages.
import { createServer } from 'node:http';
import { GraphQLError } from 'graphql';
import { createSchema, createYoga } from 'graphql-yoga';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const schema = createSchema({
  typeDefs: /* GraphQL */ `
    type Query {
      hero: Hero
    }
    type Hero {
      id: ID!
      name: String!
      "Resolved after 300 ms: ask for it in a deferred fragment."
      slowName: String!
      "Each friend comes 50 ms after the one before: stream it."
      friends: [Friend!]!
      "Resolved after 10 s, past the test's timeout."
      verySlow: String!
      "Always fails."
      failing: String
      "Always fails, and may not be null: its deferred fragment is null."
      brokenName: String!
      "The request's Authorization header."
      echo: String
    }
    type Friend {
      name: String!
    }
  `,
  resolvers: {
    Query: {
      hero: () => ({ id: '1000', name: 'Luke' }),
    },
    Hero: {
      slowName: async () => {
        await wait(300);
        return 'Luke Skywalker';
      },
      verySlow: async () => {
        await wait(10000);
        return 'too late';
      },
      friends: async function* () {
        for (const name of ['Han Solo', 'Leia Organa', 'C-3PO']) {
          yield { name };
          await wait(50);
        }
      },
      failing: async () => {
        await wait(100);
        throw new GraphQLError('the deferred field failed');
      },
      brokenName: async () => {
        await wait(100);
        throw new GraphQLError('the non-null field failed');
      },
      echo: async (_hero, _args, context) => {
        await wait(100);
        return context.request.headers.get('authorization');
      },
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
