// Bot API request parameters the way the real server takes them: the query string plus a
// JSON, urlencoded or multipart/form-data body. Form values are strings; JSON-looking ones
// (objects, arrays) are decoded, as Telegram does for reply_parameters or allowed_updates.
import type { IncomingMessage } from 'node:http';
import { boundaryOf, parseMultipart, type UploadedFile } from '../multipart.ts';

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
    const form = parseMultipart(body, boundaryOf(req.headers) ?? '');
    for (const [k, v] of Object.entries(form.fields)) params[k] = formValue(v);
    // A file goes in its own part; the parameter names it `attach://<part name>`.
    for (const [k, v] of Object.entries(params)) {
      const attached = typeof v === 'string' && v.startsWith('attach://') ? v.slice('attach://'.length) : undefined;
      const file = attached !== undefined ? form.files.find((f) => f.field === attached) : undefined;
      if (file) params[k] = file;
    }
    for (const f of form.files) if (!(f.field in params)) params[f.field] = f;
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

/** A parameter as an integer (numbers and numeric strings), else undefined. */
export function int(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A parameter as a boolean (`true`/`"true"`). */
export function bool(v: unknown): boolean {
  return v === true || v === 'true' || v === '1' || v === 1;
}

/** A parameter as an uploaded file (a multipart part), else undefined. */
export function upload(v: unknown): UploadedFile | undefined {
  return typeof v === 'object' && v !== null && 'bytes' in v && (v as UploadedFile).bytes instanceof Uint8Array
    ? (v as UploadedFile)
    : undefined;
}

/** A parameter as a string (numbers are stringified), else undefined. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}
