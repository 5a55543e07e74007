// What a file is, read from its first bytes: one magic-number table for the types a chat brings
// or a tool sends (images, voice and audio, video, PDF, archives, executables) and a text check
// for the rest. Inbound media and the send_file tool both use it. The name and the platform's
// declared type are never trusted: a `.png` that is really an ELF binary is an executable here,
// and is never shown to a model or sent to a chat as an image.

/** What the bytes say a file is. */
export interface Sniffed {
  mimeType: string;
  /** The extension a file of this type is saved with (no dot). */
  ext: string;
  /** How boxbot treats it. */
  family: 'image' | 'audio' | 'video' | 'pdf' | 'text' | 'executable' | 'binary';
}

const ascii = (b: Uint8Array, at: number, s: string): boolean => {
  if (b.length < at + s.length) return false;
  for (let i = 0; i < s.length; i++) if (b[at + i] !== s.charCodeAt(i)) return false;
  return true;
};
const bytesAt = (b: Uint8Array, at: number, sig: number[]): boolean =>
  b.length >= at + sig.length && sig.every((v, i) => b[at + i] === v);
const u32le = (b: Uint8Array, at: number): number =>
  b.length >= at + 4 ? (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0 : -1;
/** The sizes of the BITMAPCOREHEADER through BITMAPV5HEADER. */
const DIB_HEADER_SIZES = new Set([12, 40, 52, 56, 64, 108, 124]);

/** Magic numbers, most specific first. */
const TABLE: { test: (b: Uint8Array) => boolean; type: Sniffed }[] = [
  {
    test: (b) => bytesAt(b, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    type: t('image/png', 'png', 'image'),
  },
  { test: (b) => bytesAt(b, 0, [0xff, 0xd8, 0xff]), type: t('image/jpeg', 'jpg', 'image') },
  { test: (b) => ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a'), type: t('image/gif', 'gif', 'image') },
  { test: (b) => ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP'), type: t('image/webp', 'webp', 'image') },
  { test: (b) => ascii(b, 0, 'RIFF') && ascii(b, 8, 'WAVE'), type: t('audio/wav', 'wav', 'audio') },
  { test: (b) => ascii(b, 0, '%PDF-'), type: t('application/pdf', 'pdf', 'pdf') },
  { test: (b) => ascii(b, 0, 'OggS'), type: t('audio/ogg', 'ogg', 'audio') },
  { test: (b) => ascii(b, 0, 'fLaC'), type: t('audio/flac', 'flac', 'audio') },
  {
    test: (b) => ascii(b, 0, 'ID3') || (b.length > 1 && b[0] === 0xff && (b[1]! & 0xe6) === 0xe2),
    type: t('audio/mpeg', 'mp3', 'audio'),
  },
  { test: (b) => ascii(b, 4, 'ftypM4A') || ascii(b, 4, 'ftypM4B'), type: t('audio/mp4', 'm4a', 'audio') },
  { test: (b) => ascii(b, 4, 'ftypqt'), type: t('video/quicktime', 'mov', 'video') },
  {
    test: (b) => ascii(b, 4, 'ftypheic') || ascii(b, 4, 'ftypheix') || ascii(b, 4, 'ftypmif1'),
    type: t('image/heic', 'heic', 'binary'),
  },
  { test: (b) => ascii(b, 4, 'ftyp'), type: t('video/mp4', 'mp4', 'video') },
  { test: (b) => bytesAt(b, 0, [0x1a, 0x45, 0xdf, 0xa3]), type: t('video/webm', 'webm', 'video') },
  // "BM" alone starts plenty of text; a bitmap also has a known DIB header size at byte 14.
  { test: (b) => ascii(b, 0, 'BM') && DIB_HEADER_SIZES.has(u32le(b, 14)), type: t('image/bmp', 'bmp', 'image') },
  { test: (b) => bytesAt(b, 0, [0x7f, 0x45, 0x4c, 0x46]), type: t('application/x-executable', 'elf', 'executable') },
  { test: (b) => ascii(b, 0, 'MZ'), type: t('application/x-msdownload', 'exe', 'executable') },
  {
    test: (b) =>
      [
        [0xfe, 0xed, 0xfa, 0xce],
        [0xfe, 0xed, 0xfa, 0xcf],
        [0xce, 0xfa, 0xed, 0xfe],
        [0xcf, 0xfa, 0xed, 0xfe],
        [0xca, 0xfe, 0xba, 0xbe],
      ].some((sig) => bytesAt(b, 0, sig)),
    type: t('application/x-mach-binary', 'macho', 'executable'),
  },
  { test: (b) => bytesAt(b, 0, [0x00, 0x61, 0x73, 0x6d]), type: t('application/wasm', 'wasm', 'executable') },
  { test: (b) => ascii(b, 0, 'PK\x03\x04') || ascii(b, 0, 'PK\x05\x06'), type: t('application/zip', 'zip', 'binary') },
  { test: (b) => bytesAt(b, 0, [0x1f, 0x8b]), type: t('application/gzip', 'gz', 'binary') },
  { test: (b) => ascii(b, 0, '7z\xbc\xaf\x27\x1c'), type: t('application/x-7z-compressed', '7z', 'binary') },
];

function t(mimeType: string, ext: string, family: Sniffed['family']): Sniffed {
  return { mimeType, ext, family };
}

/** Reads what `bytes` are; the declared name and type play no part. */
export function sniffType(bytes: Uint8Array): Sniffed {
  for (const row of TABLE) if (row.test(bytes)) return row.type;
  return isText(bytes) ? t('text/plain', 'txt', 'text') : t('application/octet-stream', 'bin', 'binary');
}

/** UTF-8 (or UTF-16 with a byte order mark) without control bytes other than whitespace: text. */
function isText(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 64 * 1024);
  if (bytesAt(head, 0, [0xff, 0xfe]) || bytesAt(head, 0, [0xfe, 0xff])) return true;
  let text: string;
  try {
    // A cut multi-byte character at the end of the sample is not a reason to call it binary.
    text = new TextDecoder('utf-8', { fatal: true }).decode(head.length < bytes.length ? trimPartial(head) : head);
  } catch {
    return false;
  }
  // NUL and other C0 controls (but tab, newlines, form feed, escape) mark binary data.
  return !/[\u0000-\u0008\u000e-\u001a\u001c-\u001f]/.test(text);
}

/** Drops a UTF-8 sequence cut off at the end of a sample. */
function trimPartial(b: Uint8Array): Uint8Array {
  let end = b.length;
  for (let i = 1; i <= 3 && end - i >= 0; i++) {
    const c = b[end - i]!;
    if ((c & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    if (c >= 0xc0) end -= i; // a lead byte whose sequence may be incomplete
    break;
  }
  return b.subarray(0, end);
}
