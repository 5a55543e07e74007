// Fails `npm run lint` when an import in src/ points up the layers or closes a circle between
// folders. The layers, lowest first, are the diagram of README "Architecture": a folder may import
// its own layer's files and any lower layer, never a higher one; and within any folder its
// subfolders import each other without a circle (a subfolder may use its parent's loose files,
// as a file uses its own folder's). Type-only imports count:
// a type pulls its module's meaning down with it. Dynamic import() counts too.
// Example: node scripts/check-layers.js   (prints the offending imports, exits 1)
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** Lowest first. Folders on one line are one layer and must not import each other. */
const LAYERS = [
  ['core'],
  ['config'],
  ['adapters', 'sandbox', 'parsers'],
  ['store'],
  ['agent'],
  ['runner'],
  ['scheduler'],
  ['gateway'],
  ['main.ts'],
  ['cli'],
];
const SRC = resolve('src');
const layerOf = new Map(LAYERS.flatMap((names, i) => names.map((n) => [n, i])));

function walk(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (/\.(ts|js)$/.test(e.name)) out.push(p);
  }
  return out;
}

const SPEC = /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;
/** [from file, to file] for every relative import inside src/, paths relative to src/. */
const edges = [];
for (const file of walk(SRC)) {
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(SPEC)) {
    const target = resolve(dirname(file), m[1]);
    if (!target.startsWith(SRC + sep)) continue;
    edges.push([relative(SRC, file).split(sep), relative(SRC, target).split(sep)]);
  }
}

const problems = [];
for (const [from, to] of edges) {
  const a = layerOf.get(from[0]);
  const b = layerOf.get(to[0]);
  if (a === undefined || b === undefined) {
    const name = a === undefined ? from[0] : to[0];
    problems.push(`src/${name}: not in a layer (add it to LAYERS in scripts/check-layers.js)`);
  } else if (from[0] !== to[0] && b >= a) {
    const how = b === a ? 'a folder of the same layer' : 'a higher layer';
    problems.push(`src/${from.join('/')} imports ${how}: src/${to.join('/')}`);
  }
}

// Circles between the parts of any one folder: its subfolders and its loose files.
const byFolder = new Map();
for (const [from, to] of edges) {
  let i = 0;
  while (i < from.length - 1 && i < to.length - 1 && from[i] === to[i]) i++;
  if (from[i] === to[i]) continue;
  const folder = from.slice(0, i).join('/');
  const graph = byFolder.get(folder) ?? new Map();
  byFolder.set(folder, graph);
  // A subfolder using its parent's loose files (types, helpers) is a file using its own folder.
  if (i === from.length - 1 || i === to.length - 1) continue;
  const key = `${from[i]}/`;
  const other = `${to[i]}/`;
  const set = graph.get(key) ?? new Map();
  graph.set(key, set);
  if (!set.has(other)) set.set(other, `src/${from.join('/')} -> src/${to.join('/')}`);
}
for (const [folder, graph] of byFolder) {
  for (const circle of circles(graph)) {
    const shown = circle.map((n, k) => graph.get(n).get(circle[(k + 1) % circle.length]));
    problems.push(
      `circle in src/${folder || '.'}: ${circle.join(' -> ')} -> ${circle[0]}\n    ${shown.join('\n    ')}`,
    );
  }
}

/** One circle per strongly connected part of more than one node (Tarjan), as a node path. */
function circles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const found = [];
  let n = 0;
  const visit = (v) => {
    index.set(v, n);
    low.set(v, n++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const part = [];
    let w;
    do {
      w = stack.pop();
      on.delete(w);
      part.push(w);
    } while (w !== v);
    if (part.length > 1) found.push(pathWithin(graph, new Set(part), v));
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** A circle through `start` inside `part`, by breadth-first search back to it. */
function pathWithin(graph, part, start) {
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!part.has(w)) continue;
      if (w === start) {
        const path = [];
        for (let x = v; x !== null; x = prev.get(x)) path.unshift(x);
        return path;
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

if (problems.length) {
  process.stderr.write(`${[...new Set(problems)].join('\n')}\n${new Set(problems).size} layering problem(s)\n`);
  process.exitCode = 1;
}
