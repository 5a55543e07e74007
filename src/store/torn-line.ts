// Tells a torn append from a damaged line. A write cut short by a crash leaves a prefix of what
// was written (one JSON object per line, possibly followed by the zeros some file systems show
// for blocks never written); anything else at the end of a log is damage an admin should see.

/** True when `text` is a cut-short start of one JSON value (and maybe trailing NUL bytes), not a whole one. */
export function isTornJson(text: string): boolean {
  const body = text.replace(/\0+$/, '');
  if (body === '') return text !== '';
  const p = { s: body, i: 0 };
  try {
    value(p);
  } catch (e) {
    return e === END; // ran out of text before the value closed: torn; a wrong character: damage
  }
  return false; // a whole value (with or without something after it) is not torn
}

const END = Symbol('end of text');
const BAD = Symbol('not JSON');

interface Cursor {
  s: string;
  i: number;
}

function peek(p: Cursor): string {
  while (p.i < p.s.length && ' \t\r'.includes(p.s[p.i]!)) p.i++;
  if (p.i >= p.s.length) throw END;
  return p.s[p.i]!;
}

function expect(p: Cursor, c: string): void {
  if (peek(p) !== c) throw BAD;
  p.i++;
}

function value(p: Cursor): void {
  const c = peek(p);
  if (c === '{') return object(p);
  if (c === '[') return array(p);
  if (c === '"') return string(p);
  if (c === '-' || (c >= '0' && c <= '9')) return number(p);
  for (const word of ['true', 'false', 'null']) {
    if (word[0] !== c) continue;
    const got = p.s.slice(p.i, p.i + word.length);
    if (!word.startsWith(got)) throw BAD;
    if (got.length < word.length) throw END;
    p.i += word.length;
    return;
  }
  throw BAD;
}

function object(p: Cursor): void {
  p.i++; // {
  if (peek(p) === '}') {
    p.i++;
    return;
  }
  for (;;) {
    if (peek(p) !== '"') throw BAD;
    string(p);
    expect(p, ':');
    value(p);
    const c = peek(p);
    p.i++;
    if (c === '}') return;
    if (c !== ',') throw BAD;
  }
}

function array(p: Cursor): void {
  p.i++; // [
  if (peek(p) === ']') {
    p.i++;
    return;
  }
  for (;;) {
    value(p);
    const c = peek(p);
    p.i++;
    if (c === ']') return;
    if (c !== ',') throw BAD;
  }
}

function string(p: Cursor): void {
  p.i++; // "
  for (;;) {
    if (p.i >= p.s.length) throw END;
    const c = p.s[p.i++]!;
    if (c === '"') return;
    if (c < ' ') throw BAD;
    if (c !== '\\') continue;
    if (p.i >= p.s.length) throw END;
    const e = p.s[p.i++]!;
    if (e === 'u') {
      const hex = p.s.slice(p.i, p.i + 4);
      if (!/^[0-9a-fA-F]*$/.test(hex)) throw BAD;
      if (hex.length < 4) throw END;
      p.i += 4;
    } else if (!'"\\/bfnrt'.includes(e)) throw BAD;
  }
}

function number(p: Cursor): void {
  const m = /^-?(0|[1-9]\d*)?(\.\d*)?([eE][+-]?\d*)?/.exec(p.s.slice(p.i))!;
  p.i += m[0].length;
  // A number is only whole once something follows it; at the end of the text it may go on.
  if (p.i >= p.s.length) throw END;
  if (!m[1] || m[2] === '.' || /^[eE][+-]?$/.test(m[3] ?? 'x')) throw BAD;
}
