// Joining byte runs into one buffer: the worker joins a guest's output chunks, the memory-image
// code joins module sections and image parts.

/** The parts laid end to end in one new Uint8Array. */
export function concatBytes(parts: ArrayLike<number>[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
