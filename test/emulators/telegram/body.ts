// Bot API request parameters the way the real server takes them: the query string plus a
// JSON, urlencoded or multipart/form-data body. Form values are strings; JSON-looking ones
// (objects, arrays) are decoded, as Telegram does for reply_parameters or allowed_updates.
import type { IncomingMessage } from 'node:http';

/** Parameters of one call. */
export type Params = Record<string, unknown>;

/** Reads and decodes the parameters of a request; throws with a Bot API style reason. */
export async function readParams(req: IncomingMessage, url: URL): Promise<Params> {
  const params: Params = {};
  for (const [k, v] of url.searchParams) params[k] = formValue(v);
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  if (body.length === 0) return params;
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('application/json')) {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('Bad Request: invalid JSON body');
    return { ...params, ...(parsed as Params) };
  }
  if (type.startsWith('application/x-www-form-urlencoded')) {
    for (const [k, v] of new URLSearchParams(body.toString('utf8'))) params[k] = formValue(v);
    return params;
  }
  if (type.startsWith('multipart/form-data')) {
    // The boundary keeps its case: read it from the original header.
    const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(req.headers['content-type'] ?? '');
    for (const [k, v] of multipart(body, m?.[1] ?? m?.[2] ?? '')) params[k] = formValue(v);
    return params;
  }
  throw new Error('Bad Request: unsupported content type');
}

function formValue(v: string): unknown {
  const t = v.trim();
  if ((t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'))) {
    try {
      return JSON.parse(t);
    } catch {
      return v;
    }
  }
  return v;
}

/** Text fields of a multipart body (file parts are kept as their text; the emulator stores no files). */
function multipart(body: Buffer, boundary: string): [string, string][] {
  if (!boundary) return [];
  const out: [string, string][] = [];
  for (const part of body.toString('utf8').split(`--${boundary}`)) {
    const sep = part.indexOf('\r\n\r\n');
    if (sep < 0) continue;
    const name = /name="([^"]*)"/.exec(part.slice(0, sep))?.[1];
    if (name !== undefined) out.push([name, part.slice(sep + 4).replace(/\r\n$/, '')]);
  }
  return out;
}

/** A parameter as an integer (numbers and numeric strings), else undefined. */
export function int(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A parameter as a boolean (`true`/`"true"`). */
export function bool(v: unknown): boolean {
  return v === true || v === 'true' || v === '1' || v === 1;
}

/** A parameter as a string (numbers are stringified), else undefined. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}
