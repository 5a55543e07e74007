// @ts-check
// Glob patterns → regular expressions over '/'-separated relative paths: `*`, `?`, `[a-z]`,
// `[!x]`, `{a,b}` and `**` (any number of directories). Also the literal directory a pattern
// starts in and how deep it can reach, so a walk visits no more than it must.

const special = /[\\^$.*+?()[\]{}|/]/g;

/** Translates one glob (no leading '/') into a regular expression source. */
function translate(glob) {
  let out = '';
  let i = 0;
  let depth = 0; // inside {…}
  while (i < glob.length) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const atStart = i === 0 || glob[i - 1] === '/';
        let j = i + 2;
        if (atStart && (j === glob.length || glob[j] === '/')) {
          // `**/` = zero or more directories; a trailing `**` = anything below.
          if (glob[j] === '/') {
            out += '(?:[^/]*/)*';
            i = j + 1;
          } else {
            out += '.*';
            i = j;
          }
          continue;
        }
        while (glob[j] === '*') j++;
        out += '[^/]*';
        i = j;
        continue;
      }
      out += '[^/]*';
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) {
        out += '\\[';
      } else {
        let body = glob.slice(i + 1, end);
        const negate = body[0] === '!' || body[0] === '^';
        if (negate) body = body.slice(1);
        out += `[${negate ? '^/' : ''}${body.replace(/\\/g, '\\\\').replace(/\]/g, '\\]')}]`;
        i = end;
      }
    } else if (c === '{') {
      depth++;
      out += '(?:';
    } else if (c === '}' && depth > 0) {
      depth--;
      out += ')';
    } else if (c === ',' && depth > 0) {
      out += '|';
    } else if (c === '\\' && i + 1 < glob.length) {
      i++;
      out += /** @type {string} */ (glob[i]).replace(special, '\\$&');
    } else {
      out += /** @type {string} */ (c).replace(special, '\\$&');
    }
    i++;
  }
  while (depth-- > 0) out += ')';
  return out;
}

/** A matcher for `glob` over relative paths (e.g. `src/a.ts`); `nocase` ignores case. */
export function globMatcher(glob, nocase = false) {
  const re = new RegExp(`^${translate(glob.replace(/^\.\//, '').replace(/^\/+/, ''))}$`, nocase ? 'i' : '');
  return (path) => re.test(path);
}

/**
 * An include filter in ripgrep's spirit: a glob without '/' matches a file's name at any depth
 * (`*.ts`), one with '/' matches its path from the search root (`src/**\/*.ts`).
 */
export function includeMatcher(glob) {
  if (!glob.includes('/')) {
    const m = globMatcher(glob);
    return (path) => m(path.slice(path.lastIndexOf('/') + 1));
  }
  return globMatcher(glob);
}

/**
 * Splits a glob into the literal directories it starts with and the rest:
 * `src/lib/**\/*.ts` → { base: 'src/lib', rest: '**\/*.ts' }.
 */
export function literalPrefix(glob) {
  const parts = glob.replace(/^\.\//, '').split('/');
  const base = [];
  while (parts.length > 1 && !/[*?[\]{}\\]/.test(/** @type {string} */ (parts[0])))
    base.push(/** @type {string} */ (parts.shift()));
  return { base: base.join('/'), rest: parts.join('/') };
}

/** How many directory levels a glob can reach (Infinity with `**`). */
export function maxDepth(glob) {
  if (glob.includes('**')) return Infinity;
  // Braces may hide slashes: count the deepest alternative generously.
  return glob.split('/').length + (glob.match(/\{[^}]*\/[^}]*\}/g)?.length ?? 0) * 8;
}
