// Splits a long Markdown answer into messages that fit a platform's limit without breaking
// code blocks: a fence cut in two is closed at the end of one chunk and reopened (with its
// language) at the start of the next. Prefers paragraph, then line, then word boundaries.

const FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/;

/** Splits `text` into chunks of at most `limit` characters (limit ≥ 32). */
export function splitMessage(text: string, limit: number): string[] {
  if (limit < 32) throw new RangeError(`chunk limit ${limit} is too small`);
  if (text.length <= limit) return [text];
  // A fence is closed and reopened only when its marker and its line fit a quarter of the limit:
  // a longer fence line carried into every chunk would leave no room for the text (or less than none).
  const room = Math.floor(limit / 4);
  const chunks: string[] = [];
  let rest = text;
  let reopen = ''; // fence line to prepend when the previous chunk ended inside a code block
  while (rest.length) {
    const budget = limit - reopen.length;
    let piece = rest;
    let after = '';
    let chunk = reopen + rest;
    let open: { marker: string; line: string } | undefined;
    // Reserve room for a closing fence in case this chunk ends inside a block; once more with
    // the real marker's length when it is longer than the usual three or four characters.
    for (let reserve = 5, tries = 0; tries < 2; tries++) {
      if (chunk.length > limit) {
        const cut = cutPoint(rest, budget - reserve);
        piece = rest.slice(0, cut);
        after = rest.slice(cut).replace(/^\n/, '');
        chunk = reopen + piece;
      }
      open = after ? openFence(chunk) : undefined;
      if (open && open.marker.length > room) open = undefined;
      if (!open || chunk.replace(/\n?$/, '\n').length + open.marker.length <= limit) break;
      reserve = open.marker.length + 2;
      chunk = reopen + rest;
    }
    rest = after;
    if (open && chunk.replace(/\n?$/, '\n').length + open.marker.length <= limit) {
      chunk = `${chunk.replace(/\n?$/, '\n')}${open.marker}`;
      reopen = open.line.length < room ? `${open.line}\n` : `${open.marker}\n`;
    } else {
      reopen = '';
    }
    chunks.push(chunk);
  }
  return chunks.filter((c) => c.trim().length > 0);
}

/** The fence still open at the end of `text`, if any. */
function openFence(text: string): { marker: string; line: string } | undefined {
  let open: { marker: string; line: string } | undefined;
  for (const line of text.split('\n')) {
    const m = FENCE.exec(line);
    if (!m) continue;
    const marker = m[2]!;
    if (!open) open = { marker, line: line.trimStart() };
    else if (marker[0] === open.marker[0] && marker.length >= open.marker.length && !m[3]!.trim()) open = undefined;
  }
  return open;
}

/** Where to cut `text` so the first part is at most `max` characters. */
function cutPoint(text: string, max: number): number {
  const window = text.slice(0, max + 1);
  const minGood = Math.floor(max * 0.5);
  for (const sep of ['\n\n', '\n', ' ']) {
    const at = window.lastIndexOf(sep, max - 1);
    if (at >= minGood) return at + (sep === ' ' ? 1 : 0);
  }
  // No boundary in the second half: hard cut, but never inside a surrogate pair.
  const code = text.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}

/** What an answer that renders to nothing is sent as (platforms refuse empty messages). */
export const EMPTY_PLACEHOLDER = '(empty answer)';

/**
 * Splits `text` so every chunk's rendered length (`measure`, the platform's count after
 * formatting) is at most `limit`. Where rendering makes text longer, the whole text is split
 * again with a smaller limit (so chunks stay even), and a chunk still over is split on its own.
 * A chunk that renders empty becomes EMPTY_PLACEHOLDER.
 */
export function splitRendered(
  text: string,
  limit: number,
  measureOnce: (chunk: string) => number = (c) => c.length,
): string[] {
  // Measuring renders the chunk (Telegram's count is of its HTML): each chunk is measured once.
  const measured = new Map<string, number>();
  const measure = (chunk: string): number => {
    let n = measured.get(chunk);
    if (n === undefined) measured.set(chunk, (n = measureOnce(chunk)));
    return n;
  };
  let budget = limit;
  let chunks = splitMessage(text, budget);
  for (let round = 0; round < 8 && budget > 32; round++) {
    const worst = Math.max(...chunks.map(measure));
    if (worst <= limit) break;
    budget = Math.max(32, Math.floor((budget * limit) / worst) - 1);
    chunks = splitMessage(text, budget);
  }
  const fit = (chunk: string): string[] => {
    const rendered = measure(chunk);
    if (rendered <= limit) return [rendered === 0 ? EMPTY_PLACEHOLDER : chunk];
    if (chunk.length <= 32) return [chunk]; // split again on the platform's "too long"
    return splitMessage(
      chunk,
      Math.max(32, Math.min(chunk.length - 1, Math.floor((chunk.length * limit) / rendered))),
    ).flatMap(fit);
  };
  return chunks.flatMap(fit);
}
