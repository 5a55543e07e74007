// What the model reads back from a tool: the JSON convention or plain text, non-UTF-8 output
// decoded, long output cut with a note saying how much, failures as error results with stderr.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { toolResultOf } from '../../../src/agent/tools/output.ts';
import type { SandboxResult } from '../../../src/sandbox/index.ts';
import { root } from '../../helpers.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const result = (over: Partial<SandboxResult>): SandboxResult => ({
  exitCode: 0,
  stdout: new Uint8Array(),
  stderr: new Uint8Array(),
  durationMs: 3,
  ...over,
});

test('the JSON convention: content, error flag and metadata come through', () => {
  const r = toolResultOf(result({ stdout: enc('{"error":false,"content":"3 matches","metadata":{"count":3}}\n') }));
  assert.equal(r.content, '3 matches');
  assert.equal(r.isError, false);
  assert.equal(r.metadata.count, 3);
  const failed = toolResultOf(result({ stdout: enc('{"error":true,"content":"no such file: a.txt"}') }));
  assert.deepEqual([failed.content, failed.isError], ['no such file: a.txt', true]);
});

test('plain text output is the content, whole', () => {
  const r = toolResultOf(result({ stdout: enc('line 1\nline 2\n') }));
  assert.deepEqual([r.content, r.isError], ['line 1\nline 2\n', false]);
  const notConvention = toolResultOf(result({ stdout: enc('{"answer": 42}') }));
  assert.equal(notConvention.content, '{"answer": 42}', 'JSON without a content string is plain text');
});

test('non-UTF-8 output is decoded by detection (Shift-JIS, GBK)', () => {
  const sjis = readFileSync(join(root, 'test', 'fixtures', 'help', 'clap-sjis.txt'));
  const r = toolResultOf(result({ stdout: sjis }));
  assert.match(r.content, /ファイルを読み込んで文字数を数えます/);
  assert.equal(r.metadata.encoding, 'Shift_JIS');
  const gbk = toolResultOf(result({ stdout: readFileSync(join(root, 'test', 'fixtures', 'help', 'clap-gbk.txt')) }));
  assert.match(gbk.content, /读取文件并统计中文字符的数量/);
});

test('long content is cut at the cap with a note saying how much was cut', () => {
  const r = toolResultOf(result({ stdout: enc('x'.repeat(1500)) }), 1000);
  assert.ok(r.content.startsWith('x'.repeat(1000)));
  assert.ok(!r.content.startsWith('x'.repeat(1001)));
  assert.match(r.content, /\[output truncated: 500 of 1,500 characters cut\]$/);
  assert.equal(r.metadata.truncatedChars, 500);
  const conv = toolResultOf(result({ stdout: enc(JSON.stringify({ error: false, content: 'y'.repeat(40) })) }), 10);
  assert.match(conv.content, /^y{10}\n\n\[output truncated: 30 of 40 characters cut\]$/);
});

test('a non-zero exit is an error result with the output and stderr', () => {
  const r = toolResultOf(
    result({ exitCode: 2, stdout: enc('partial\n'), stderr: enc("error: unexpected argument '--x' found\n") }),
  );
  assert.equal(r.isError, true);
  assert.match(r.content, /^the tool exited with code 2/);
  assert.match(r.content, /output:\npartial/);
  assert.match(r.content, /stderr:\nerror: unexpected argument '--x' found/);
  const conv = toolResultOf(result({ exitCode: 1, stdout: enc('{"content":"half done"}'), stderr: enc('disk full') }));
  assert.deepEqual([conv.isError, conv.content], [true, 'half done\n\nstderr:\ndisk full']);
});

test('a trap is an error result naming the limit, with stderr', () => {
  const r = toolResultOf(
    result({ exitCode: 1, stderr: enc('working...'), trap: { kind: 'timeout', message: 'exceeded 30000 ms' } }),
  );
  assert.equal(r.isError, true);
  assert.match(r.content, /^the tool was stopped: timeout limit \(exceeded 30000 ms\)/);
  assert.match(r.content, /stderr:\nworking\.\.\./);
  assert.equal(r.metadata.trap, 'timeout');
});
