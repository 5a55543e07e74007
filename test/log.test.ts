// The logger scrubs registered secret values from every line it writes: fields, error messages,
// stacks, and JSON-escaped forms, whatever the field is called.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLogger, redactSecrets, registerSecrets } from '../src/core/log.ts';

/** A writable that keeps each written line; `isTTY` makes it look like a terminal. */
function lineSink(isTTY = false): { sink: Writable; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  if (isTTY) Object.assign(sink, { isTTY: true });
  return { sink, lines };
}

test('on a terminal a line reads time, level, scope, message, key=value; piped it stays JSON', () => {
  const tty = lineSink(true);
  createLogger({ destination: tty.sink })
    .child({ scope: 'sandbox' })
    .warn({ tool: 'read', ms: 12, note: 'two words' }, 'tool was slow');
  assert.equal(tty.lines.length, 1);
  assert.match(tty.lines[0]!, /^\d\d:\d\d:\d\d WARN {2}\[sandbox\] tool was slow tool=read ms=12 note="two words"\n$/);

  const piped = lineSink(false);
  createLogger({ destination: piped.sink }).child({ scope: 'sandbox' }).warn({ tool: 'read' }, 'tool was slow');
  assert.deepEqual(
    { ...JSON.parse(piped.lines[0]!), time: 0 },
    { level: 40, time: 0, scope: 'sandbox', tool: 'read', msg: 'tool was slow' },
  );
});

test('pretty lines are scrubbed of registered secrets and redacted fields too', () => {
  const KEY = 'pretty-plain-key-"9d1e4b7a';
  registerSecrets([KEY]);
  const { sink, lines } = lineSink(true);
  const log = createLogger({ destination: sink });
  log.error({ err: `bad key ${KEY}`, auth: { token: 'tok-1234567' }, text: 'a user message' }, `failed with ${KEY}`);
  log.error(new Error(`provider said: key ${KEY} is not valid`));
  assert.equal(lines.length, 2);
  for (const line of lines) {
    assert.equal(line.includes(KEY), false, line);
    assert.equal(line.includes(JSON.stringify(KEY).slice(1, -1)), false, line);
  }
  assert.match(lines[0]!, /ERROR failed with \[redacted\] /);
  assert.match(lines[0]!, /auth=\{"token":"\[redacted\]"\}/);
  assert.match(lines[0]!, /text=\[redacted\]/);
  assert.doesNotMatch(lines[0]!, /tok-1234567|a user message/);
  assert.match(lines[1]!, /ERROR provider said: key \[redacted\] is not valid/);
  assert.match(lines[1]!, /\n {4}Error: provider said: key \[redacted\]/, 'the stack follows, indented');
});

test('a registered secret reaches no log line: not in a field, an error message, a stack or a message', () => {
  const KEY = 'corp-plain-key-"7f3a9c2e';
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const log = createLogger({ destination: sink });
  registerSecrets([KEY]);
  const err = new Error(`provider said: key ${KEY} is not valid`);
  log.error({ err: err.message, detail: { body: `{"error":"bad key ${KEY}"}` } }, 'agent run failed');
  log.error(err);
  log.warn(`retrying with ${KEY}`);
  assert.equal(lines.length, 3);
  for (const line of lines) {
    assert.equal(line.includes(KEY), false, line);
    assert.equal(line.includes(JSON.stringify(KEY).slice(1, -1)), false, line);
    assert.ok(JSON.parse(line), 'still one JSON line');
  }
  assert.match(lines[0]!, /key \[redacted\] is not valid/);
  assert.match(lines[1]!, /"stack":"Error: provider said: key \[redacted\]/);
  assert.equal(redactSecrets(`boxbot: ${KEY}`), 'boxbot: [redacted]');
});
