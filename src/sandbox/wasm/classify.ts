// Tells what a .wasm file is: a component, a WASI preview1 command module, or something the
// sandbox cannot run (with the reason a user can act on).

import { errorMessage } from '../../core/errors.ts';
import { Reader, readSections } from './reader.ts';

/** What a file is, for the sandbox. */
export type WasmKind = { kind: 'component' } | { kind: 'preview1-command' } | { kind: 'invalid'; reason: string };

/** One import of a core module. */
export interface CoreImport {
  module: string;
  name: string;
  kind: 'func' | 'table' | 'memory' | 'global' | 'tag';
}

const KINDS = ['func', 'table', 'memory', 'global', 'tag'] as const;

/** Skips an import's descriptor after its kind byte. */
export function skipImportDesc(r: Reader, kind: number): void {
  if (kind === 0) r.u32();
  else if (kind === 1) {
    const t = r.byte();
    if (t === 0x63 || t === 0x64) r.skipLeb();
    skipLimits(r);
  } else if (kind === 2) skipLimits(r);
  else if (kind === 3) {
    const t = r.byte();
    if (t === 0x63 || t === 0x64) r.skipLeb();
    r.byte();
  } else if (kind === 4) {
    r.byte();
    r.u32();
  } else throw new Error(`unknown import kind ${kind}`);
}

/** Skips table/memory limits (flags, min, optional max, optional page size). */
export function skipLimits(r: Reader): void {
  const flags = r.byte();
  r.skipLeb();
  if (flags & 1) r.skipLeb();
  if (flags & 8) r.u32();
}

/** The imports of a core module. */
export function listCoreImports(bytes: Uint8Array): CoreImport[] {
  const sec = readSections(bytes).find((s) => s.id === 2);
  if (!sec) return [];
  const r = new Reader(bytes, sec.start);
  const out: CoreImport[] = [];
  for (let n = r.u32(); n > 0; n--) {
    const module = r.name();
    const name = r.name();
    const k = r.byte();
    skipImportDesc(r, k);
    out.push({ module, name, kind: KINDS[k] ?? 'func' });
  }
  return out;
}

function listExports(bytes: Uint8Array): string[] {
  const sec = readSections(bytes).find((s) => s.id === 7);
  if (!sec) return [];
  const r = new Reader(bytes, sec.start);
  const out: string[] = [];
  for (let n = r.u32(); n > 0; n--) {
    out.push(r.name());
    r.byte();
    r.u32();
  }
  return out;
}

/** Classifies a file's bytes. */
export function classifyWasm(bytes: Uint8Array): WasmKind {
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    return { kind: 'invalid', reason: 'not a WebAssembly file (bad magic number)' };
  }
  const [v0, v1, l0, l1] = [bytes[4], bytes[5], bytes[6], bytes[7]];
  if (l0 === 1 && l1 === 0) return { kind: 'component' };
  if (!(v0 === 1 && v1 === 0 && l0 === 0 && l1 === 0)) {
    return { kind: 'invalid', reason: `unsupported WebAssembly version/layer bytes ${[v0, v1, l0, l1].join(' ')}` };
  }
  try {
    const foreign = listCoreImports(bytes).filter((i) => i.module !== 'wasi_snapshot_preview1');
    if (foreign.length > 0) {
      const i = foreign[0]!;
      return {
        kind: 'invalid',
        reason: `core module imports ${i.module}.${i.name}: only wasi_snapshot_preview1 commands can run`,
      };
    }
    if (!listExports(bytes).includes('_start')) {
      return { kind: 'invalid', reason: 'core module without a `_start` export: not a WASI command' };
    }
  } catch (e) {
    return { kind: 'invalid', reason: `malformed module: ${errorMessage(e)}` };
  }
  if (!WebAssembly.validate(bytes as Uint8Array<ArrayBuffer>))
    return { kind: 'invalid', reason: 'the module does not validate' };
  return { kind: 'preview1-command' };
}
