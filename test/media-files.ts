// Small real files for media tests, built in code: a PNG, a JPEG header, an Ogg voice note, an
// ELF binary, a one-page PDF with a line of text (valid xref, readable by pdf.js), and PDFs made
// to hurt a parser: an inflate bomb, an operator bomb, ten thousand pages. The bombs' compressed
// streams are kept under .cache/test-media (compressing 300 MB took 1.4 s of CPU per test file).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createDeflate, constants as zlib } from 'node:zlib';

/** Where deflateRepeated keeps what it made, by its arguments and zlib's version. */
const MEDIA_CACHE = fileURLToPath(new URL('../.cache/test-media/', import.meta.url));

/** A 1×1 PNG. */
export const PNG = Uint8Array.from(
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
    'base64',
  ),
);

/** The start of an Ogg/Opus stream (what a Telegram voice note begins with). */
export const OGG = Uint8Array.from([...Buffer.from('OggS'), 0, 2, ...new Array(58).fill(1)]);

/** The start of an ELF executable. */
export const ELF = Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, ...new Array(56).fill(0)]);

/** `n` bytes of text. */
export const textOf = (n: number, ch = 'a'): Uint8Array => new TextEncoder().encode(ch.repeat(n));

/** A one-page PDF showing `text` (ASCII, no parentheses). */
export function pdfWith(text: string): Uint8Array {
  const stream = `BT /F1 12 Tf 10 50 Td (${text}) Tj ET`;
  const objs = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

/**
 * A PDF whose pages show `content` (one content stream, shared by all `pages` of them), the
 * stream Flate-compressed when given as already deflated bytes (`{ deflated }`).
 */
export function pdfOf(content: string | { deflated: Uint8Array }, pages = 1): Uint8Array {
  const enc = new TextEncoder();
  const stream =
    typeof content === 'string'
      ? enc.encode(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`)
      : concat([
          enc.encode(`<< /Length ${content.deflated.length} /Filter /FlateDecode >>\nstream\n`),
          content.deflated,
          enc.encode('\nendstream'),
        ]);
  const page = '/Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >>';
  const kids = Array.from({ length: pages }, (_, i) => `${i + 5} 0 R`).join(' ');
  const objs: (string | Uint8Array)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    stream,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ...Array.from({ length: pages }, () => `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 100] ${page} >>`),
  ];
  const parts: Uint8Array[] = [enc.encode('%PDF-1.4\n')];
  let at = parts[0]!.length;
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(at);
    const body = typeof o === 'string' ? enc.encode(o) : o;
    const obj = concat([enc.encode(`${i + 1} 0 obj\n`), body, enc.encode('\nendobj\n')]);
    parts.push(obj);
    at += obj.length;
  });
  let tail = `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n`;
  tail += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  tail += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`;
  parts.push(enc.encode(tail));
  return concat(parts);
}

/**
 * `head`, then `body` repeated `times`, then `tail`, Flate-compressed without ever holding the whole;
 * made once per set of arguments (and zlib version), then read from MEDIA_CACHE.
 */
export async function deflateRepeated(head: string, body: string, times: number, tail: string): Promise<Uint8Array> {
  const key = createHash('sha256')
    .update(JSON.stringify([head, body, times, tail, zlib.Z_BEST_COMPRESSION, process.versions.zlib]))
    .digest('hex')
    .slice(0, 16);
  const file = `${MEDIA_CACHE}${key}.deflate`;
  try {
    return new Uint8Array(readFileSync(file));
  } catch {
    // not made yet
  }
  const made = await deflateNow(head, body, times, tail);
  mkdirSync(MEDIA_CACHE, { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, made);
  renameSync(tmp, file); // whole, even when another test process writes the same file at once
  return made;
}

async function deflateNow(head: string, body: string, times: number, tail: string): Promise<Uint8Array> {
  const z = createDeflate({ level: zlib.Z_BEST_COMPRESSION });
  const out: Buffer[] = [];
  z.on('data', (b: Buffer) => out.push(b));
  const ended = new Promise((resolve) => z.on('end', resolve));
  const write = (s: string | Buffer) => new Promise((resolve) => z.write(s, resolve));
  await write(head);
  // Many copies per write: a few thousand writes, not millions.
  const per = Math.max(1, Math.floor((1 << 20) / body.length));
  const block = Buffer.from(body.repeat(per));
  for (let left = times; left > 0; left -= per) await write(left >= per ? block : Buffer.from(body.repeat(left)));
  z.end(tail);
  await ended;
  return concat(out);
}

/** The inflate bomb: one page whose content stream inflates to one `mb`-MB string operand. */
export const inflateBombPdf = async (mb = 300): Promise<Uint8Array> =>
  pdfOf({ deflated: await deflateRepeated('BT /F1 12 Tf 10 50 Td (', 'A', mb << 20, ') Tj ET') });

/** The operator bomb: one page whose content stream is `mb` MB of tiny text-showing operators. */
export const operatorBombPdf = async (mb = 64): Promise<Uint8Array> =>
  pdfOf({
    deflated: await deflateRepeated('BT /F1 12 Tf 10 50 Td ', '(a) Tj ', Math.floor((mb << 20) / 7), 'ET'),
  });

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
