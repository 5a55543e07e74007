// Lists the functions in src/ longer than 300 lines (signature to closing brace) and exits 1 if there
// are any: a factory that long is several modules waiting to be named (style.md, "Factories that
// wire, files that do"). The WASM binary rewriters (src/sandbox/wasm, src/sandbox/glue-patch.ts)
// are exempt: each walks one binary format in one pass. Function bodies are found with the
// TypeScript compiler's parser, so nested functions count on their own and in their parent.
// Example: node scripts/check-function-length.js
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const MAX = 300;
const EXEMPT = ['src/sandbox/wasm/', 'src/sandbox/glue-patch.ts'];
/**
 * Offenders allowed while they are split (issue #26 left none). An entry that is no longer an offender is
 * reported, so the list only shrinks.
 */
const ALLOWED = new Set([]);

/** The .ts files under `dir`, as paths relative to the repository root. */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.isFile() && e.name.endsWith('.ts') ? [relative('.', path).split('\\').join('/')] : [];
  });
}

/** A function's name as people would search for it: its own, its variable's or property's, else its line. */
function nameOf(node, file) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && ts.isIdentifier(parent.name))
    return parent.name.text;
  return `<anonymous at line ${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}>`;
}

const long = [];
for (const path of sources('src')) {
  if (EXEMPT.some((e) => path.startsWith(e))) continue;
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > MAX) long.push({ id: `${path}:${nameOf(node, file)}`, where: `${path}:${first + 1}`, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}

const offenders = long.filter((f) => !ALLOWED.has(f.id));
for (const f of long.filter((f) => ALLOWED.has(f.id)))
  process.stdout.write(`allowed for now: ${f.id} (${f.lines} lines)\n`);
const stale = [...ALLOWED].filter((id) => !long.some((f) => f.id === id));
for (const id of stale) process.stderr.write(`${id} is no longer over ${MAX} lines: take it off the allow-list\n`);
if (offenders.length) {
  const lines = offenders.map((f) => `${f.where}: ${f.id.split(':').pop()} is ${f.lines} lines`);
  process.stderr.write(`${lines.join('\n')}\n${offenders.length} function(s) longer than ${MAX} lines\n`);
}
if (offenders.length || stale.length) process.exitCode = 1;
