// Corrects jco's generated glue where it departs from the component model's canonical ABI, by
// rewriting its text before the glue is cached. Each correction names the exact text it
// replaces; glue without that text (another jco version) is left as it is.
//
// Empty strings: the canonical ABI lowers every string by asking the guest's allocator for its
// place (`realloc(0, 0, 1, 0)` for an empty one). jco's glue skips that call and hands back
// pointer 1. The preview1 adapter lays argv and environ out through those calls (each string
// gets its place and the byte after it for the terminating NUL or "="), so an empty argument
// pointed at byte 1 of the guest's memory and an empty environment value was never terminated:
// "EMPTY=" ran on into the next variable.

/** jco's early return for an empty string in its UTF-8 lowering. */
const EMPTY_UTF8_SHORTCUT = 'if (s.length === 0) { return { ptr: 1, len: 0 }; }';

/** The glue with its corrections. */
export function patchGlue(glue: Uint8Array): Uint8Array {
  const text = Buffer.from(glue).toString('utf8');
  if (!text.includes(EMPTY_UTF8_SHORTCUT)) return glue;
  // Without the shortcut the general path runs: realloc(0, 0, 1, 0), then an empty copy.
  return Buffer.from(text.replace(EMPTY_UTF8_SHORTCUT, ''), 'utf8');
}
