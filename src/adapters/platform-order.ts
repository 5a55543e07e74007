// A message's place in its platform's own sequence (Telegram `update_id`, Discord snowflake,
// Slack `ts`): the order the user wrote in, which no replica's arrival or save order can change.
// The numbers outgrow a double (snowflakes) or carry a fraction (Slack's ts), so they are kept
// as decimal text and compared as numbers written out.

/** Decimal digits with an optional fraction: the forms the platforms use. */
const DECIMAL = /^(\d{1,40})(?:\.(\d{1,20}))?$/;

/** `raw` as a platform order, or undefined when it is not a plain decimal number. */
export function platformOrder(raw: string | number): string | undefined {
  const text = typeof raw === 'number' ? (Number.isSafeInteger(raw) && raw >= 0 ? String(raw) : '') : raw;
  return DECIMAL.test(text) ? text : undefined;
}

/** Negative when `a` comes first, as numbers: `"9"` before `"10"`, `"1712.000600"` before `"1712.5"`. */
export function compareOrder(a: string, b: string): number {
  const [, ai = '', af = ''] = DECIMAL.exec(a) ?? [];
  const [, bi = '', bf = ''] = DECIMAL.exec(b) ?? [];
  const aInt = ai.replace(/^0+(?=\d)/, '');
  const bInt = bi.replace(/^0+(?=\d)/, '');
  if (aInt.length !== bInt.length) return aInt.length - bInt.length;
  if (aInt !== bInt) return aInt < bInt ? -1 : 1;
  const width = Math.max(af.length, bf.length);
  const aFrac = af.padEnd(width, '0');
  const bFrac = bf.padEnd(width, '0');
  return aFrac === bFrac ? 0 : aFrac < bFrac ? -1 : 1;
}
