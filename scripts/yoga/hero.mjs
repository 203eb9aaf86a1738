// The schema and the hero both test servers answer with (server.mjs on
// graphql-yoga, graphqljs17.mjs on graphql-js 17): a deferred slow field, a
// streamed list, a field slower than the test's timeout, a failing field, a
// failing non-null field, and a field that echoes the Authorization header.
// Each server passes its own graphql package's GraphQLError, so that an error
// is one its executor knows.

export const typeDefs = /* GraphQL */ `
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
`;

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// hero is the Query.hero value: fields that are functions are resolved by
// graphql-js's default resolver, which calls them.
export function hero({ GraphQLError, authorization }) {
  return {
    id: '1000',
    name: 'Luke',
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
    echo: async () => {
      await wait(100);
      return authorization;
    },
  };
}
