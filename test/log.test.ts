// The logger scrubs registered secret values from every line it writes: fields, error messages,
// stacks, and JSON-escaped forms, whatever the field is called.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLogger, redactSecrets, registerSecrets } from '../src/log.ts';

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
