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
