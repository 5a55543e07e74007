// PostgreSQL text cannot hold U+0000, which a platform id or a chat message may contain. Keys are
// stored with NUL and backslash escaped (ordinary keys read as they are in SQL); documents are
// stored as JSON text, whose own escaping covers NUL.

/** `key` in a form PostgreSQL text accepts; `decodeKey` reverses it, and distinct keys stay distinct. */
export function encodeKey(key: string): string {
  return key.replace(/[\\\0]/g, (c) => (c === '\\' ? '\\\\' : '\\0'));
}

/** Reverses `encodeKey`. */
export function decodeKey(stored: string): string {
  return stored.replace(/\\([\\0])/g, (_, c: string) => (c === '0' ? '\0' : '\\'));
}
