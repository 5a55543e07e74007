// Quick checks of the shapes the store writes on every turn (a conversation's history, a usage
// document): plain loops instead of zod's parse, which cost a fifth of a millisecond and more per
// write. Each accepts only data its schema (schemas.ts) accepts, and says nothing else: what it
// does not accept goes to the schema, which decides and names the problem. Differential tests
// (test/store/quick-shapes.test.ts) hold them to that.

/** A plain object (JSON's kind), not an array, null, or an instance of a class. */
function isPlain(x: unknown): x is Record<string, unknown> {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return false;
  const proto = Object.getPrototypeOf(x);
  // zod takes an object with `then` and `catch` functions for a promise, and refuses it.
  return (proto === Object.prototype || proto === null) && typeof (x as { then?: unknown }).then !== 'function';
}

const isString = (x: unknown): x is string => typeof x === 'string';
const isFilled = (x: unknown): boolean => typeof x === 'string' && x.length > 0;
/** zod's `z.number()`: any number but NaN. */
const isNumber = (x: unknown): boolean => typeof x === 'number' && !Number.isNaN(x);

/** One content part of a message (schemas.ts contentPart). */
function isContentPart(p: unknown): boolean {
  if (!isPlain(p)) return false;
  switch (p.type) {
    case 'text':
    case 'thinking':
      return isString(p.text);
    case 'image':
      return isString(p.mediaType) && isString(p.data);
    case 'tool-call':
      return isString(p.id) && isString(p.name);
    case 'tool-result':
      return isString(p.id) && isString(p.name) && isString(p.content) && typeof p.isError === 'boolean';
    default:
      return false;
  }
}

/** A message of a history (schemas.ts messageSchema). */
function isMessage(m: unknown): boolean {
  if (!isPlain(m) || (m.role !== 'user' && m.role !== 'assistant') || !Array.isArray(m.content)) return false;
  for (const p of m.content) if (!isContentPart(p)) return false;
  return true;
}

/** True only for data `conversationSchema` accepts. */
export function isConversationShape(d: unknown): boolean {
  if (!isPlain(d) || !isFilled(d.key) || !isString(d.platform) || !isFilled(d.createdAt) || !isFilled(d.updatedAt))
    return false;
  if (d.model !== undefined && !isString(d.model)) return false;
  if (!Array.isArray(d.messages)) return false;
  for (const m of d.messages) if (!isMessage(m)) return false;
  return true;
}

const TOTALS = [
  'calls',
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'costUsd',
  'unknownCostCalls',
] as const;

function isTotals(t: unknown): boolean {
  if (!isPlain(t)) return false;
  for (const k of TOTALS) if (!isNumber(t[k])) return false;
  return true;
}

/** Every value of `r` (a plain object) passes `each`. */
function isRecordOf(r: unknown, each: (v: unknown) => boolean): boolean {
  if (!isPlain(r)) return false;
  for (const k in r) if (Object.hasOwn(r, k) && !each(r[k])) return false;
  return true;
}

/** True only for data `usageSchema` accepts. */
export function isUsageShape(d: unknown): boolean {
  if (!isPlain(d) || !isFilled(d.subject) || !isTotals(d.total) || !isRecordOf(d.days, isTotals)) return false;
  return d.models === undefined || isRecordOf(d.models, (day) => isRecordOf(day, isTotals));
}
