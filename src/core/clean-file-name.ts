// The one cleaning every user- or tool-supplied file name gets before it is shown, sent or used
// in a header: the last path component only, without control characters and without Unicode
// format characters (category Cf: U+202E RIGHT-TO-LEFT OVERRIDE makes `gpj.exe` read as
// `exe.jpg`; zero-width and bidi isolates hide or reorder what the user sees), line and paragraph
// separators, or quotes; at most 200 characters.

/** Control (Cc), format (Cf), line and paragraph separators (Zl, Zp) and the double quote. */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}"]/gu;

/**
 * A file name fit for a prompt, a header and a download ("file" when nothing is left).
 * Example: cleanFileName('../x/photo\u202Egpj.exe') → 'photogpj.exe'
 */
export function cleanFileName(name: string | undefined): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const clean = base.replace(UNSAFE, '').trim();
  return [...(clean || 'file')].slice(0, 200).join('');
}
