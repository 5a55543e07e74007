// The terminal form of a log line: `time LEVEL scope msg key=value ...`, made from pino's JSON
// line. Hand-written rather than pino-pretty so `boxbot start` loads no extra package.

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** A field value as it reads after `key=`: bare when it has no spaces or quotes, else JSON-quoted. */
function valueText(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v) ?? String(v);
}

/** One pino JSON line as one human line (with its newline); a line that is not JSON passes unchanged. */
export function prettyLine(line: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if (!rec || typeof rec !== 'object') return line;
  const { time, level, scope, msg, err, stack, ...rest } = rec;
  const parts: string[] = [];
  // Local wall-clock time: on a terminal the date is noise, the JSON form keeps the full epoch.
  if (typeof time === 'number') parts.push(new Date(time).toTimeString().slice(0, 8));
  parts.push((LEVELS[level as number] ?? String(level)).padEnd(5));
  if (scope !== undefined) parts.push(`[${String(scope)}]`);
  if (typeof msg === 'string' && msg) parts.push(msg);
  // pino serializes an Error as err: { type, message, stack }; the stack goes under the line.
  let trace = typeof stack === 'string' ? stack : undefined;
  if (err && typeof err === 'object' && typeof (err as { stack?: unknown }).stack === 'string') {
    const { stack: s, message, type: _type, ...more } = err as Record<string, unknown>;
    trace = s as string;
    if (message !== msg) rest.err = message;
    if (Object.keys(more).length) rest.errFields = more;
  } else if (err !== undefined) rest.err = err;
  for (const [k, v] of Object.entries(rest)) parts.push(`${k}=${valueText(v)}`);
  // A stack reads best as it was thrown, indented under its line.
  const tail = trace ? `\n    ${trace.split('\n').join('\n    ')}` : '';
  return `${parts.join(' ')}${tail}\n`;
}
