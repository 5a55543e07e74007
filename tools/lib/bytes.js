// @ts-check
// Byte helpers shared by tools that must not import wasi:filesystem (e.g. web_fetch).

/** Joins byte chunks into one array. */
export function concat(parts, total = parts.reduce((n, p) => n + p.length, 0)) {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Whether bytes look binary (a NUL in the first 8 KiB). */
export function looksBinary(bytes) {
  const n = Math.min(bytes.length, 8192);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}
