// JSON with comments (JSONC, as VS Code and tsconfig read it): `//` and `/* */` comments and
// trailing commas are allowed in boxbot.config.json. Stripped here, then JSON.parse reads it,
// so errors keep JSON.parse's wording and positions (comments become spaces, newlines stay).

/**
 * `text` with comments and trailing commas blanked out (replaced by spaces, newlines kept), so
 * line and column numbers of a later JSON.parse error still point into the original file.
 * Text inside strings is never touched, escapes included. An unterminated block comment is
 * left as is, for JSON.parse to report.
 */
export function stripJsonComments(text: string): string {
  const out = text.split('');
  let i = 0;
  // Index of the last comma outside strings and comments, while only blanks and comments follow it.
  let pendingComma = -1;
  const blank = (from: number, to: number) => {
    for (let j = from; j < to; j++) if (out[j] !== '\n' && out[j] !== '\r') out[j] = ' ';
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      pendingComma = -1;
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
    } else if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end === -1) break;
      blank(i, end + 2);
      i = end + 2;
    } else if (c === ',') {
      pendingComma = i;
      i++;
    } else if (c === '}' || c === ']') {
      if (pendingComma !== -1) out[pendingComma] = ' ';
      pendingComma = -1;
      i++;
    } else {
      if (!/\s/.test(c)) pendingComma = -1;
      i++;
    }
  }
  return out.join('');
}

/** Where JSON text first goes wrong: 1-based line and column, and what was expected there. */
export interface JsonErrorPlace {
  line: number;
  column: number;
  problem: string;
}

/** What is at `text[i]`, for a message: the character quoted, or "the end of the file". */
function found(text: string, i: number): string {
  if (i >= text.length) return 'the end of the file';
  if (text.startsWith('/*', i)) return 'a /* comment with no closing */';
  const c = String.fromCodePoint(text.codePointAt(i)!);
  return /[\x00-\x1f]/.test(c) ? `control character U+${c.charCodeAt(0).toString(16).padStart(4, '0')}` : `'${c}'`;
}

/** The offset after the string starting at `text[i]` (a '"'), or an error at an offset. */
function scanString(text: string, i: number): number | { at: number; problem: string } {
  let j = i + 1;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === 0x22) return j + 1;
    if (c < 0x20) return { at: j, problem: 'a string must end on its line (use \\n for a line break)' };
    if (c === 0x5c) {
      const e = text[j + 1];
      if (e === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(j + 2, j + 6)))
          return { at: j, problem: 'expected four hex digits after \\u' };
        j += 6;
        continue;
      }
      if (e === undefined || !'"\\/bfnrt'.includes(e)) return { at: j, problem: 'unknown escape in a string' };
      j += 2;
      continue;
    }
    j++;
  }
  return { at: i, problem: 'a string that never ends (no closing ")' };
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;

/** The offset after the value starting at `text[i]` when it is a string, number or literal; else undefined. */
function scanScalar(text: string, i: number): number | { at: number; problem: string } | undefined {
  if (text[i] === '"') return scanString(text, i);
  for (const re of [NUMBER, LITERAL]) {
    re.lastIndex = i;
    if (re.exec(text)) return re.lastIndex;
  }
  return undefined;
}

/** 1-based line and column (in characters) of `offset` in `text`. */
function placeOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: [...before.slice(lineStart)].length + 1 };
}

/**
 * Where strict JSON `text` first breaks the grammar, or undefined when it parses. Iterative (an
 * explicit stack, so deep nesting cannot overflow) and linear in the text's length; run after
 * JSON.parse failed, because V8's messages give a byte offset at best and often no place at all.
 */
export function locateJsonError(text: string): JsonErrorPlace | undefined {
  const stack: string[] = [];
  // value: a value is due; key: a property name (or '}' right after '{'); colon; next: ',' or a closer.
  let want: 'value' | 'key' | 'colon' | 'next' = 'value';
  let justOpened = false;
  let i = 0;
  const fail = (at: number, problem: string): JsonErrorPlace => ({ ...placeOf(text, at), problem });
  for (;;) {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
    const c = text[i];
    const closer = stack.at(-1) === '{' ? '}' : ']';
    if (want === 'value') {
      if (c === ']' && justOpened && stack.at(-1) === '[') {
        stack.pop();
        i++;
        justOpened = false;
        want = 'next';
        continue;
      }
      if (c === '{' || c === '[') {
        stack.push(c);
        i++;
        justOpened = true;
        want = c === '{' ? 'key' : 'value';
        continue;
      }
      const end = scanScalar(text, i);
      if (end === undefined) return fail(i, `expected a value, found ${found(text, i)}`);
      if (typeof end !== 'number') return fail(end.at, end.problem);
      i = end;
      justOpened = false;
      want = 'next';
    } else if (want === 'key') {
      if (c === '}' && justOpened) {
        stack.pop();
        i++;
        justOpened = false;
        want = 'next';
        continue;
      }
      if (c !== '"') return fail(i, `expected a property name in double quotes, found ${found(text, i)}`);
      const end = scanString(text, i);
      if (typeof end !== 'number') return fail(end.at, end.problem);
      i = end;
      want = 'colon';
    } else if (want === 'colon') {
      if (c !== ':') return fail(i, `expected ':' after the property name, found ${found(text, i)}`);
      i++;
      want = 'value';
      justOpened = false;
    } else if (stack.length === 0) {
      return i < text.length ? fail(i, `unexpected ${found(text, i)} after the end of the document`) : undefined;
    } else if (c === ',') {
      i++;
      want = stack.at(-1) === '{' ? 'key' : 'value';
      justOpened = false;
    } else if (c === closer) {
      stack.pop();
      i++;
    } else {
      return fail(i, `expected ',' or '${closer}', found ${found(text, i)}`);
    }
  }
}
