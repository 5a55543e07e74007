// Large core modules of a component reduced to their interface for jco's transpile. jco reads a
// core module's types, imports and exports to write the glue and copies its bytes out
// unchanged; parsing and validating the whole of a 12 MB StarlingMonkey module was most of a
// componentize-js tool's first compile. The stub keeps every section the interface is made of
// and gives each function the body `unreachable`; the caller puts the original bytes back in
// place of the stub jco copied out, and falls back to the original component when it cannot.

import { encName, encU32, Reader } from './reader.ts';

/** Core modules smaller than this are transpiled as they are: stubbing them would save nothing. */
export const STUB_MIN_BYTES = 256 * 1024;

/** Sections a stub keeps as they are: type, import, function, table, memory, global, export, tag. */
const INTERFACE_SECTIONS = new Set([1, 2, 3, 4, 5, 6, 7, 13]);
/** Names the custom section that makes every stub's bytes unique (two modules may share an interface). */
const STUB_SECTION = 'boxbot.stub';

function section(id: number, payload: Uint8Array): Uint8Array[] {
  return [Uint8Array.from([id, ...encU32(payload.length)]), payload];
}

/** `module`'s interface as a module whose functions all trap; `n` makes its bytes unique. */
function stubModule(module: Uint8Array, n: number): Uint8Array {
  const r = new Reader(module, 8);
  const out: Uint8Array[] = [module.subarray(0, 8)];
  while (!r.done) {
    const id = r.byte();
    const size = r.u32();
    const start = r.pos;
    r.skip(size);
    if (INTERFACE_SECTIONS.has(id)) out.push(...section(id, module.subarray(start, start + size)));
    else if (id === 10) {
      const count = new Reader(module, start).u32();
      const bodies = new Uint8Array(count * 4);
      // size 3: no locals, unreachable, end
      for (let i = 0; i < count; i++) bodies.set([3, 0, 0x00, 0x0b], i * 4);
      out.push(...section(10, Buffer.concat([Uint8Array.from(encU32(count)), bodies])));
    }
  }
  out.push(...section(0, Uint8Array.from([...encName(STUB_SECTION), ...encU32(n)])));
  return Buffer.concat(out);
}

/** A component with its large top-level core modules stubbed, and the originals by stub. */
export interface StubbedComponent {
  component: Uint8Array;
  /** Each stub's bytes (as jco will copy them out) with the original module they stand for. */
  stubs: { stub: Uint8Array; original: Uint8Array }[];
}

/**
 * Stubs the top-level core modules of at least STUB_MIN_BYTES in `component`. Modules inside
 * nested components are left as they are.
 */
export function stubLargeCoreModules(component: Uint8Array): StubbedComponent {
  const r = new Reader(component, 8);
  const out: Uint8Array[] = [component.subarray(0, 8)];
  const stubs: StubbedComponent['stubs'] = [];
  while (!r.done) {
    const headerStart = r.pos;
    const id = r.byte();
    const size = r.u32();
    const start = r.pos;
    r.skip(size);
    // Section 1 of a component is a core module, whole.
    if (id === 1 && size >= STUB_MIN_BYTES) {
      const original = component.subarray(start, start + size);
      const stub = stubModule(original, stubs.length);
      stubs.push({ stub, original });
      out.push(...section(1, stub));
    } else {
      out.push(component.subarray(headerStart, start + size));
    }
  }
  return { component: stubs.length ? Buffer.concat(out) : component, stubs };
}

/**
 * jco's output files with every stub replaced by its original, or undefined when some stub is
 * not among them byte for byte (jco changed it: its glue may not fit the original).
 */
export function restoreStubbedModules(
  files: Record<string, Uint8Array>,
  stubs: StubbedComponent['stubs'],
): Record<string, Uint8Array> | undefined {
  const out = { ...files };
  for (const { stub, original } of stubs) {
    const name = Object.keys(out).find((n) => n.endsWith('.wasm') && Buffer.compare(out[n]!, stub) === 0);
    if (!name) return undefined;
    out[name] = original;
  }
  return out;
}
