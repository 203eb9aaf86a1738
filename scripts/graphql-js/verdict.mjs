// graphql-js's verdict on operations, for TestDifferential
// (graphqlmcp/internal/tools): would a server built on graphql-js 16 run
// each one, or refuse it? GRAPHQL_JS_DIR is the directory where
// package.json's graphql is installed.
//
//   node verdict.mjs < CASES.json > VERDICTS.json
//
// CASES.json is {"schemas": {"name": "FILE"}, "cases": [{"schema": "name",
// "query": "...", "operationName": "...", "variables": {...}}]}; each FILE
// is SDL or an introspection answer as JSON (with or without "data").
// VERDICTS.json is an array, one entry per case in order:
// {"refused": bool, "errors": ["message", ...]} (at most 3 messages).
// A case is refused when the document does not parse, validate(schema, doc)
// finds an error, no operation is chosen (getOperationAST with the
// operationName), or getVariableValues finds an error in its variables:
// what graphql-js's own execution path checks before it runs anything.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const require = createRequire(join(process.env.GRAPHQL_JS_DIR, 'package.json'));
const g = require('graphql');

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { schemas, cases } = JSON.parse(input);

const built = {};
for (const [name, file] of Object.entries(schemas)) {
  const text = readFileSync(file, 'utf8');
  let schema;
  if (text.trimStart().startsWith('{')) {
    const json = JSON.parse(text);
    schema = g.buildClientSchema(json.data ?? json);
  } else {
    schema = g.buildSchema(text);
  }
  const problems = g.validateSchema(schema);
  if (problems.length > 0) {
    throw new Error(`schema ${name} (${file}) is not valid for graphql-js: ${problems.map(String).join('; ')}`);
  }
  built[name] = schema;
}

const refused = (errors) => ({ refused: true, errors: errors.slice(0, 3).map((e) => e.message ?? String(e)) });

const verdict = ({ schema: name, query, operationName, variables }) => {
  const schema = built[name];
  if (!schema) throw new Error(`case names schema ${name}, which is not among ${Object.keys(built)}`);
  let doc;
  try {
    doc = g.parse(query);
  } catch (e) {
    return refused([e]);
  }
  const errors = g.validate(schema, doc);
  if (errors.length > 0) return refused(errors);
  const op = g.getOperationAST(doc, operationName || undefined);
  if (!op) return refused([{ message: `no operation ${operationName || '(the only one)'} in the document` }]);
  const coerced = g.getVariableValues(schema, op.variableDefinitions ?? [], variables ?? {}, { maxErrors: 50 });
  if (coerced.errors) return refused(coerced.errors);
  return { refused: false, errors: [] };
};

process.stdout.write(JSON.stringify(cases.map(verdict)));
