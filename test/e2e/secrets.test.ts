// A provider error that echoes the API key back (as some proxies do) must not carry it into the
// chat or the log, whatever the key looks like: the gateway scrubs the configured secret values themselves.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { llm } from '../emulators/llm/index.ts';
import { type E2E, startE2E, until, WebChatClient } from './harness.ts';

const KEY = 'corp-plain-key-7f3a9c2e';
let e2e: E2E;
before(async () => {
  e2e = await startE2E({}, { OPENAI_API_KEY: KEY });
});
after(async () => {
  await e2e?.close();
});

test('an error message that contains the API key reaches the chat with the key redacted', async () => {
  const chat = await WebChatClient.open(e2e.app.url);
  e2e.llm.script([llm.fail(401, { message: `key ${KEY} is not valid for this project` })]);
  await chat.say('hello');
  await until(() => chat.messages().some((m) => m.startsWith('Sorry, I could not answer')), 'the error answer');
  const answer = chat.messages().find((m) => m.startsWith('Sorry'))!;
  assert.match(answer, /\[redacted\] is not valid/);
  assert.equal(answer.includes(KEY), false);
  // The run's failure is logged (with the reason), but never with the key.
  await until(() => e2e.logs.some((l) => l.msg === 'agent run failed'), 'the failure logged');
  assert.match(JSON.stringify(e2e.logs.find((l) => l.msg === 'agent run failed')), /\[redacted\] is not valid/);
  for (const line of e2e.logs) assert.equal(JSON.stringify(line).includes(KEY), false, JSON.stringify(line));
  chat.close();
  e2e.llm.assertDone();
});
