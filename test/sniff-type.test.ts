// Content types read from the first bytes, never from a name: the magic numbers of what chats
// bring and tools send, text told from binary (a multi-byte character cut at the sample's end is
// still text). One table serves inbound media and send_file.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sniffType } from '../src/core/sniff-type.ts';

const b = (...parts: (string | number[])[]) =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...Buffer.from(p, 'latin1')] : p)));

test('magic numbers name the type and the extension it is saved with', () => {
  const cases: [Uint8Array, string, string][] = [
    [b([0xff, 0xd8, 0xff, 0xe0]), 'image/jpeg', 'jpg'],
    [b('GIF89a'), 'image/gif', 'gif'],
    [b('RIFF', [0, 0, 0, 0], 'WEBPVP8 '), 'image/webp', 'webp'],
    [b('RIFF', [0, 0, 0, 0], 'WAVEfmt '), 'audio/wav', 'wav'],
    [b('ID3', [4, 0, 0]), 'audio/mpeg', 'mp3'],
    [b([0, 0, 0, 0x20], 'ftypM4A '), 'audio/mp4', 'm4a'],
    [b([0, 0, 0, 0x20], 'ftypisom'), 'video/mp4', 'mp4'],
    [b([0x1a, 0x45, 0xdf, 0xa3]), 'video/webm', 'webm'],
    [b('%PDF-1.7'), 'application/pdf', 'pdf'],
    [b('PK', [3, 4]), 'application/zip', 'zip'],
    [b('MZ', [0x90, 0]), 'application/x-msdownload', 'exe'],
    [b([0x89], 'PNG\r\n\x1a\n', [0, 0]), 'image/png', 'png'],
    [b('OggS', [0]), 'audio/ogg', 'ogg'],
    [b('BM', [0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 40, 0, 0, 0]), 'image/bmp', 'bmp'],
    [b([0xcf, 0xfa, 0xed, 0xfe]), 'application/x-mach-binary', 'macho'],
  ];
  for (const [bytes, mime, ext] of cases)
    assert.deepEqual([sniffType(bytes).mimeType, sniffType(bytes).ext], [mime, ext]);
});

test('text is UTF-8 without control bytes; NUL or invalid UTF-8 is binary', () => {
  assert.equal(sniffType(new TextEncoder().encode('# notes\n\tcafé ☕\r\n')).mimeType, 'text/plain');
  assert.equal(sniffType(b('abc', [0], 'def')).mimeType, 'application/octet-stream');
  assert.equal(sniffType(b([0xc3, 0x28])).mimeType, 'application/octet-stream');
  // 64 KiB are sampled: a character cut at the sample's end does not make a long text binary.
  const long = new TextEncoder().encode(`${'a'.repeat(64 * 1024 - 1)}é and more`);
  assert.equal(sniffType(long).family, 'text');
});

test('a RIFF file that is neither WebP nor WAVE is not taken for either', () => {
  assert.equal(sniffType(b('RIFF', [0, 0, 0, 0], 'AVI LIST')).mimeType, 'application/octet-stream');
});

test('text that happens to start with "BM" is text, not a bitmap', () => {
  assert.equal(sniffType(b('BMW service report\n')).mimeType, 'text/plain');
  assert.equal(sniffType(b('')).mimeType, 'text/plain');
});
