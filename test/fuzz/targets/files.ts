// Fuzz targets: the small parsers bytes and names from outside pass through. File type sniffing
// and the inbox name (inbound files), a tool's output turned into a result (guest bytes), the
// web chat's file names, and conversation keys (stored, and typed by users as job targets).
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  ConversationKeyError,
  decodeConversationKey,
  encodeConversationKey,
} from '../../../src/adapters/conversation-key.ts';
import { decodeText } from '../../../src/agent/tools/decode.ts';
import { toolResultOf } from '../../../src/agent/tools/output.ts';
import { cleanFileName } from '../../../src/core/clean-file-name.ts';
import { sniffType } from '../../../src/core/sniff-type.ts';
import { inboxName } from '../../../src/runner/media/file-name.ts';
import type { FuzzTarget } from '../harness.ts';

/** File starts the sniffer knows, so the tables' deeper checks run (then any bytes after). */
const MAGIC = [
  '%PDF-1.7\n',
  '\x89PNG\r\n\x1a\n',
  '\xff\xd8\xff',
  'GIF89a',
  'RIFF\x10\x00\x00\x00WEBP',
  'RIFF\x10\x00\x00\x00WAVE',
  'OggS',
  'ID3',
  '\x00\x00\x00\x18ftypmp42',
  'PK\x03\x04',
  '\x7fELF',
  'MZ',
  '\x00asm',
  'BM',
  '\x1f\x8b',
  '\xef\xbb\xbf',
  '\xff\xfe',
].map((s) => Uint8Array.from(s, (c) => c.charCodeAt(0)));

const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc.tuple(fc.constantFrom(...MAGIC), fc.uint8Array({ maxLength: 100 })).map(([m, rest]) => {
    const out = new Uint8Array(m.length + rest.length);
    out.set(m);
    out.set(rest, m.length);
    return out;
  }),
  fc.string({ maxLength: 200, unit: 'binary' }).map((s) => new TextEncoder().encode(s)),
  fc.string({ maxLength: 100 }).map((s) => new TextEncoder().encode(JSON.stringify({ error: false, content: s }))),
);

const FAMILIES = ['image', 'audio', 'video', 'pdf', 'text', 'executable', 'binary'];
const INBOX_NAME = /^\d{8}-\d{6}-[0-9a-f]{4}-[A-Za-z0-9._-]+\.[a-z0-9]+$/;

/** Inbound bytes and their declared names: the type sniffed, the name saved under, the name shown. */
export const inboundFiles: FuzzTarget<[Uint8Array, string, string]> = {
  name: 'file type and names',
  input: fc.tuple(
    bytes,
    fc.oneof(
      fc.string({ maxLength: 40, unit: 'binary' }),
      fc.constantFrom('../../etc/passwd', 'a\\b.txt', '.bashrc', 'x.PDF', 'r\u202egnp.exe', '', '.', '..'),
    ),
    fc.oneof(fc.constant('2026-11-24T09:30:00.000Z'), fc.string({ maxLength: 30 })),
  ),
  check([data, name, receivedAt]) {
    const type = sniffType(data);
    assert.ok(FAMILIES.includes(type.family), `family ${type.family}`);
    const saved = inboxName({ id: 'telegram:1:7', receivedAt }, 0, 2, name, type);
    assert.match(saved, INBOX_NAME, 'an inbox name that is not one plain path component');
    const shown = cleanFileName(name);
    assert.ok(shown.length > 0 && shown.length <= 200, 'shown name length');
    assert.ok(!/[/\\\u0000-\u001f\u007f"]/.test(shown), `shown name ${JSON.stringify(shown)}`);
  },
};

/** A tool's stdout and stderr (and exit) turned into what the model reads. */
export const toolOutput: FuzzTarget<[Uint8Array, Uint8Array, number]> = {
  name: 'tool output',
  input: fc.tuple(bytes, bytes, fc.constantFrom(0, 0, 1, 2, -1, 255)),
  check([stdout, stderr, exitCode]) {
    assert.equal(typeof decodeText(stdout).text, 'string');
    const r = toolResultOf({ exitCode, stdout, stderr, durationMs: 3 }, 200);
    assert.equal(typeof r.content, 'string');
    assert.ok(r.content.length <= 200 + 80, `content of ${r.content.length} past the cap`);
    if (exitCode !== 0) assert.equal(r.isError, true, 'a failed exit read as success');
  },
};

const keyPart = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._-]{1,12}$/),
  fc.string({ maxLength: 6 }),
  fc.constantFrom('', ':', '-100123', 'dm', '_', '1712.33'),
);

/** Conversation keys: what decodes re-encodes to the same key, and anything else is a ConversationKeyError. */
export const conversationKeys: FuzzTarget<string> = {
  name: 'conversation keys',
  input: fc.oneof(
    fc
      .tuple(
        fc.constantFrom('telegram', 'discord', 'slack', 'web', 'terminal', 'irc', ''),
        fc.array(keyPart, { maxLength: 4 }),
      )
      .map(([p, parts]) => [p, ...parts].join(':')),
    fc.string({ maxLength: 40 }),
  ),
  check(key) {
    let ref: ReturnType<typeof decodeConversationKey>;
    try {
      ref = decodeConversationKey(key);
    } catch (e) {
      if (e instanceof ConversationKeyError) return;
      throw e;
    }
    assert.equal(encodeConversationKey(ref), key, 'decode then encode changed the key');
  },
};
