// The parser child's caps that the hostile-document tests do not reach: what it may print, and a
// caller that gives up; a file that is not what the parser reads is an error, not a crash.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_PARSE_LIMITS, runParser } from '../../src/parsers/index.ts';
import { compiledParserChild } from '../compiled-src.ts';
import { pdfWith } from '../media-files.ts';

// Each parse starts the compiled parser child, not its TypeScript through tsx (a fifth of the CPU).
const parserFile = compiledParserChild();

test('a child that prints more than maxOutputBytes is killed and the outcome says so', async () => {
  const limits = { ...DEFAULT_PARSE_LIMITS, maxOutputBytes: 20 };
  const r = await runParser('pdf-text', pdfWith('a line of text long enough'), 1000, limits, { parserFile });
  assert.deepEqual(r, { ok: false, failure: 'output', why: 'what it holds is larger than 20 bytes of text' });
});

test('an aborted signal ends the child: cancelled', async () => {
  const stop = new AbortController();
  const pending = runParser('pdf-text', pdfWith('hello'), 1000, DEFAULT_PARSE_LIMITS, {
    signal: stop.signal,
    parserFile,
  });
  stop.abort();
  assert.equal((await pending).ok ? 'ok' : ((await pending) as { failure: string }).failure, 'cancelled');
});

test('bytes that are not a PDF: the parser says why, the child does not crash', async () => {
  const r = await runParser('pdf-text', new TextEncoder().encode('%PDF-1.4 nothing else'), 1000, DEFAULT_PARSE_LIMITS, {
    parserFile,
  });
  assert.equal(r.ok, false);
  assert.equal(!r.ok && r.failure, 'error');
});
