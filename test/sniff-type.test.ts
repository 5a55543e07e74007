// Types sniffed from a file's bytes, never from its name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sniffType } from '../src/sniff-type.ts';

const b = (...parts: (string | number[])[]) =>
  new Uint8Array(Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p)))));

test('common formats are recognised by their magic numbers', () => {
  const cases: [Uint8Array, string][] = [
    [b([0x89], 'PNG\r\n\x1a\n', [0, 0]), 'image/png'],
    [b([0xff, 0xd8, 0xff, 0xe0]), 'image/jpeg'],
    [b('GIF89a'), 'image/gif'],
    [b('RIFF', [0, 0, 0, 0], 'WEBPVP8 '), 'image/webp'],
    [b('RIFF', [0, 0, 0, 0], 'WAVEfmt '), 'audio/wav'],
    [b('%PDF-1.7\n'), 'application/pdf'],
    [b('PK', [3, 4, 20, 0]), 'application/zip'],
    [b('OggS', [0]), 'audio/ogg'],
    [b([0, 0, 0, 0x18], 'ftypmp42'), 'video/mp4'],
    [new Uint8Array(Buffer.from('hello, wörld\n', 'utf8')), 'text/plain'],
    [b(''), 'text/plain'],
    [b([0, 1, 2, 0xfe]), 'application/octet-stream'],
    [b([0xc3, 0x28]), 'application/octet-stream'], // invalid UTF-8
  ];
  for (const [bytes, type] of cases) assert.equal(sniffType(bytes), type, Buffer.from(bytes).toString('hex'));
});

test('a RIFF file that is neither WebP nor WAVE is not taken for either', () => {
  assert.equal(sniffType(b('RIFF', [0, 0, 0, 0], 'AVI LIST')), 'application/octet-stream');
});
