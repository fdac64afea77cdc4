// Validate an AsyncAPI document with the official parser; exit 1 on any error-severity diagnostic.
import { readFileSync } from 'node:fs';
import { Parser } from '@asyncapi/parser';

const ERROR = 0;
const WARNING = 1;
const source = readFileSync(process.argv[2], 'utf8');
const { document, diagnostics } = await new Parser().parse(source);
const problems = diagnostics.filter((d) => d.severity === ERROR || d.severity === WARNING);
for (const d of problems) {
  console.log(`${d.severity === ERROR ? 'error' : 'warning'} ${d.code}: ${d.message} at ${JSON.stringify(d.path)}`);
}
if (!document || problems.length > 0) process.exit(1);
console.log('valid');
