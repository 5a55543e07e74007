// multipart/form-data as the platforms' servers read it, binary-safe: text fields and file parts
// (name, filename, content type, bytes), so an emulator keeps exactly what a user would receive.
import type { IncomingHttpHeaders } from 'node:http';

/** A file part of a multipart body. */
export interface UploadedFile {
  /** The form field it came in (`photo`, `document`, `files[0]`). */
  field: string;
  filename: string;
  contentType: string;
  bytes: Uint8Array;
}

/** A parsed multipart body. */
export interface Multipart {
  fields: Record<string, string>;
  files: UploadedFile[];
}

/** The boundary of a multipart content type (its case kept), or undefined. */
export function boundaryOf(headers: IncomingHttpHeaders): string | undefined {
  const type = headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(type)) return undefined;
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(type);
  return m?.[1] ?? m?.[2];
}

/** Splits a multipart body into text fields and file parts (a part with a filename is a file). */
export function parseMultipart(body: Buffer, boundary: string): Multipart {
  const out: Multipart = { fields: {}, files: [] };
  const delimiter = Buffer.from(`--${boundary}`);
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break; // the closing delimiter
    const next = body.indexOf(delimiter, start);
    if (next < 0) break;
    // A part: CRLF, headers, CRLF CRLF, content, CRLF (before the next delimiter).
    const part = body.subarray(start + 2, next - 2);
    const sep = part.indexOf('\r\n\r\n');
    if (sep >= 0) {
      const head = part.subarray(0, sep).toString('utf8');
      const content = part.subarray(sep + 4);
      // Quoted (undici's FormData) or not (grammY writes `filename=a.png`).
      const name = /(?:^|[;\s:])name="([^"]*)"/i.exec(head)?.[1];
      const fn = /filename=(?:"([^"]*)"|([^;\r\n]*))/i.exec(head);
      const filename = fn ? (fn[1] ?? fn[2] ?? '').trim() : undefined;
      const type = /^content-type:\s*([^\r\n]+)/im.exec(head)?.[1]?.trim();
      if (name !== undefined && filename !== undefined) {
        out.files.push({
          field: name,
          filename,
          contentType: type ?? 'application/octet-stream',
          bytes: new Uint8Array(content),
        });
      } else if (name !== undefined) out.fields[name] = content.toString('utf8');
    }
    at = next;
  }
  return out;
}
