// A newcomer who starts boxbot without any model key: it still starts, and every channel
// answers with one line naming the variables to set; no model is called.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type E2E, startE2E, until, WebChatClient } from './harness.ts';

let e2e: E2E;
before(async () => {
  e2e = await startE2E({ model: undefined }, { OPENAI_API_KEY: '' });
});
after(async () => {
  await e2e?.close();
});

test('no key: the web chat answers with the hint naming the variables, and no model is called', async () => {
  assert.ok(e2e.app.model.hint, 'startBoxbot reports the hint');
  const chat = await WebChatClient.open(e2e.app.url);
  assert.equal(await chat.say('hello?'), 202);
  await until(() => chat.messages().length > 0, 'the hint');
  const [answer] = chat.messages();
  assert.match(answer!, /no model to answer with: .*ANTHROPIC_API_KEY or OPENAI_API_KEY/);
  assert.equal(answer!.split('\n').length, 1, 'one line');
  assert.equal(e2e.llm.requests.length, 0);
  chat.close();
});
