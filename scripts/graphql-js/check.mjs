// Reads graphql_introspect's SDL with graphql-js, the reference
// implementation, for TestSchemaAgainstGraphQLJS (graphqlmcp/internal/schema).
// GRAPHQL_JS_DIR is the directory where package.json's graphql is installed.
//
//   node check.mjs introspect SCHEMA.graphql
//     prints the introspection answer graphql-js gives for the SDL, every
//     field of the introspection query asked for.
//   node check.mjs check INTROSPECTION.json ALL.graphql CURRENT.graphql
//     prints {"problems": [...]}, empty when: both SDL texts build and
//     validate; ALL has no breaking or dangerous change against graphql-js's
//     own print of the introspection answer, either way; ALL's descriptions,
//     default values, deprecation reasons, @oneOf and directives equal the
//     answer's; CURRENT holds the same, less deprecated members only.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

const require = createRequire(join(process.env.GRAPHQL_JS_DIR, 'package.json'));
const g = require('graphql');

const [command, ...files] = process.argv.slice(2);
const read = (file) => readFileSync(file, 'utf8');

if (command === 'introspect') {
  const schema = g.buildSchema(read(files[0]));
  const errors = g.validateSchema(schema);
  if (errors.length > 0) {
    throw new Error(errors.map(String).join('\n'));
  }
  const answer = g.introspectionFromSchema(schema, {
    descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true,
    schemaDescription: true, inputValueDeprecation: true, oneOf: true, typeDepth: 14,
  });
  process.stdout.write(JSON.stringify({ data: answer }, null, 1) + '\n');
} else if (command === 'check') {
  const json = JSON.parse(read(files[0]));
  const reference = g.buildClientSchema(json.data ?? json);
  const printed = g.buildSchema(g.printSchema(reference));
  const problems = [];
  const built = {};
  for (const [view, file] of [['all', files[1]], ['current', files[2]]]) {
    try {
      built[view] = g.buildSchema(read(file));
    } catch (e) {
      problems.push(`${view}: graphql-js cannot build it: ${e.message}`);
      continue;
    }
    for (const e of g.validateSchema(built[view])) {
      problems.push(`${view}: invalid: ${e.message}`);
    }
  }
  if (built.all) {
    for (const [direction, from, to] of [['print → ours', printed, built.all], ['ours → print', built.all, printed]]) {
      for (const c of g.findBreakingChanges(from, to)) problems.push(`all: breaking change (${direction}): ${c.description}`);
      for (const c of g.findDangerousChanges(from, to)) problems.push(`all: dangerous change (${direction}): ${c.description}`);
    }
    compare(reference, built.all, 'all', false, problems);
  }
  if (built.current) {
    compare(reference, built.current, 'current', true, problems);
  }
  process.stdout.write(JSON.stringify({ problems }) + '\n');
} else {
  throw new Error(`unknown command ${command}`);
}

// compare checks that ours holds every member of want with the same
// description, default value, deprecation reason and @oneOf, and nothing
// else; with hideDeprecated, a deprecated member may be missing.
function compare(want, ours, view, hideDeprecated, problems) {
  const problem = (what) => problems.push(`${view}: ${what}`);
  const same = (what, a, b) => {
    if (!isDeepStrictEqual(a ?? null, b ?? null)) {
      problem(`${what}: want ${JSON.stringify(a ?? null)}, got ${JSON.stringify(b ?? null)}`);
    }
  };
  // members compares two lists of fields, arguments or values by name.
  const members = (what, wantList, oursList, each) => {
    const byName = new Map(oursList.map((m) => [m.name, m]));
    for (const m of wantList) {
      const o = byName.get(m.name);
      byName.delete(m.name);
      if (!o) {
        if (!(hideDeprecated && m.deprecationReason != null)) problem(`${what}.${m.name} is missing`);
        continue;
      }
      same(`${what}.${m.name} description`, m.description, o.description);
      same(`${what}.${m.name} deprecation reason`, m.deprecationReason, o.deprecationReason);
      if ('defaultValue' in m) same(`${what}.${m.name} default value`, m.defaultValue, o.defaultValue);
      each?.(m, o);
    }
    for (const name of byName.keys()) problem(`${what}.${name} is not in the schema`);
  };
  same('schema description', want.description, ours.description);
  for (const root of ['getQueryType', 'getMutationType', 'getSubscriptionType']) {
    same(`${root}`, want[root]()?.name, ours[root]()?.name);
  }
  const ourTypes = ours.getTypeMap();
  for (const [name, t] of Object.entries(want.getTypeMap())) {
    if (name.startsWith('__')) continue;
    const o = ourTypes[name];
    if (!o) { problem(`type ${name} is missing`); continue; }
    same(`${name} kind`, t.constructor.name, o.constructor.name);
    same(`${name} description`, t.description, o.description);
    if (g.isInputObjectType(t)) {
      same(`${name} @oneOf`, t.isOneOf ?? false, o.isOneOf ?? false);
      members(name, Object.values(t.getFields()), Object.values(o.getFields()));
    }
    if (g.isObjectType(t) || g.isInterfaceType(t)) {
      members(name, Object.values(t.getFields()), Object.values(o.getFields()),
        (f, of) => members(`${name}.${f.name}`, f.args, of.args));
    }
    if (g.isEnumType(t)) members(name, t.getValues(), o.getValues());
    if (g.isScalarType(t)) same(`${name} specifiedByURL`, t.specifiedByURL, o.specifiedByURL);
  }
  for (const name of Object.keys(ourTypes)) {
    if (!want.getType(name)) problem(`type ${name} is not in the schema`);
  }
  const own = (schema) => schema.getDirectives().filter((d) => !g.isSpecifiedDirective(d));
  members('directive', own(want), own(ours), (d, od) => {
    same(`@${d.name} repeatable`, d.isRepeatable, od.isRepeatable);
    same(`@${d.name} locations`, d.locations, od.locations);
    members(`@${d.name}`, d.args, od.args);
  });
}
