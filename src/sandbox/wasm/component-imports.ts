// The names a component imports, read from its own top-level import sections: every interface
// it names, including those it imports only for their types (wasi:clocks/wall-clock for
// filesystem timestamps), which jco's list of the JS imports it generates leaves out.
import { Reader, readSections } from './reader.ts';

/** Top-level import names of a component (`wasi:clocks/wall-clock@0.2.3`, ...), in file order. */
export function listComponentImports(bytes: Uint8Array): string[] {
  const out: string[] = [];
  for (const sec of readSections(bytes)) {
    if (sec.id !== 10) continue;
    const r = new Reader(bytes, sec.start);
    for (let n = r.u32(); n > 0; n--) {
      // importname': 0x00 name, or 0x01 name followed by a version suffix (older encoders).
      const form = r.byte();
      out.push(r.name());
      if (form === 0x01) r.name();
      skipExternDesc(r);
    }
  }
  return [...new Set(out)].sort();
}

/** Skips an externdesc: a sort and a type index, or a value/type bound. */
function skipExternDesc(r: Reader): void {
  const sort = r.byte();
  if (sort === 0x00) {
    r.byte(); // core sort (0x11: module)
    r.u32();
  } else if (sort === 0x02) {
    // valuebound: 0x00 index | 0x01 valtype (a primitive byte or a type index)
    if (r.byte() === 0x00) r.u32();
    else r.skipLeb();
  } else if (sort === 0x03) {
    // typebound: 0x00 eq index | 0x01 sub resource
    if (r.byte() === 0x00) r.u32();
  } else if (sort === 0x01 || sort === 0x04 || sort === 0x05) {
    r.u32();
  } else {
    throw new Error(`unknown component import kind 0x${sort.toString(16)}`);
  }
}
