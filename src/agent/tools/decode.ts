// Decodes bytes a tool printed: UTF-8 when valid, else the encoding chardet ranks highest
// among those that decode the bytes without error (GBK, Shift-JIS, Latin-1 ...).
import chardet from 'chardet';

/** Decoded text and the encoding it was read as. */
export interface Decoded {
  text: string;
  encoding: string;
}

function tryDecode(bytes: Uint8Array, label: string): string | undefined {
  try {
    return new TextDecoder(label, { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Decodes `bytes`, detecting the encoding when they are not UTF-8. */
export function decodeText(bytes: Uint8Array): Decoded {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe)
    return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), encoding: 'UTF-16LE' };
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff)
    return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), encoding: 'UTF-16BE' };
  const utf8 = tryDecode(bytes, 'utf-8');
  if (utf8 !== undefined) return { text: utf8.replace(/^\uFEFF/, ''), encoding: 'UTF-8' };
  for (const candidate of chardet.analyse(bytes)) {
    const text = tryDecode(bytes, candidate.name);
    if (text !== undefined) return { text, encoding: candidate.name };
  }
  return { text: new TextDecoder('utf-8').decode(bytes), encoding: 'UTF-8 (with replacements)' };
}
