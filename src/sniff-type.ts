// What a file is, from its first bytes: a small magic-number table (the common image, audio,
// video, document and archive formats), then UTF-8 text, else octet-stream. The name a file
// carries is never trusted: a `.png` that is really HTML is not sent as an image.

/** One signature: `bytes` at `offset` (null matches any byte). */
interface Magic {
  type: string;
  offset?: number;
  bytes: (number | null)[];
  /** A second signature that must also hold (RIFF and ftyp containers). */
  and?: { offset: number; bytes: number[] };
}

const ascii = (s: string): number[] => [...s].map((c) => c.charCodeAt(0));

const MAGIC: Magic[] = [
  { type: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
  { type: 'image/gif', bytes: ascii('GIF8') },
  { type: 'image/webp', bytes: ascii('RIFF'), and: { offset: 8, bytes: ascii('WEBP') } },
  { type: 'image/bmp', bytes: ascii('BM') },
  { type: 'application/pdf', bytes: ascii('%PDF-') },
  { type: 'application/zip', bytes: [0x50, 0x4b, 0x03, 0x04] },
  { type: 'application/gzip', bytes: [0x1f, 0x8b] },
  { type: 'audio/ogg', bytes: ascii('OggS') },
  { type: 'audio/mpeg', bytes: ascii('ID3') },
  { type: 'audio/mpeg', bytes: [0xff, 0xfb] },
  { type: 'audio/wav', bytes: ascii('RIFF'), and: { offset: 8, bytes: ascii('WAVE') } },
  { type: 'audio/flac', bytes: ascii('fLaC') },
  { type: 'video/webm', bytes: [0x1a, 0x45, 0xdf, 0xa3] },
  { type: 'video/mp4', offset: 4, bytes: ascii('ftyp') },
];

function matches(bytes: Uint8Array, offset: number, sig: (number | null)[]): boolean {
  if (bytes.length < offset + sig.length) return false;
  return sig.every((b, i) => b === null || bytes[offset + i] === b);
}

/** Whether `bytes` read as UTF-8 text (no NUL, no invalid sequence); an empty file counts as text. */
function isText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * The media type of `bytes`, sniffed from their content.
 * Example: sniffType(readFileSync('chart.png')) === 'image/png'
 */
export function sniffType(bytes: Uint8Array): string {
  for (const m of MAGIC) {
    if (!matches(bytes, m.offset ?? 0, m.bytes)) continue;
    if (m.and && !matches(bytes, m.and.offset, m.and.bytes)) continue;
    return m.type;
  }
  return isText(bytes) ? 'text/plain' : 'application/octet-stream';
}
