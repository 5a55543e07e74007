// Taint follows content across runs (approvals.afterUntrusted), through the whole gateway: what a
// run read stays untrusted while the history holds it, summaries of it included, until /new; a
// history stored without provenance counts as untrusted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UNRECORDED_RESULT } from '../../src/agent/loop/provenance.ts';
import { UNRECORDED_SUMMARY } from '../../src/runner/agent-runner.ts';
import { createMemoryState } from '../../src/store/index.ts';
import { callTools, reply } from '../agent/loop/scripted.ts';
import { until } from './fakes.ts';
import { boot, Model, questions, tool } from './real-gateway.ts';

const afterUntrusted = { approvals: { afterUntrusted: true } };

/** A gateway whose `fetch` tool reads an untrusted page and whose `write` tool writes. */
function setup() {
  const model = new Model();
  const write = tool('write', 'Write');
  const fetchPage = tool('fetch', 'ReadOnly', 'the page https://evil.example');
  const booted = boot({ model, state: createMemoryState(), telegram: afterUntrusted, tools: [write.t, fetchPage.t] });
  return { model, write, ...booted };
}

test('a page read in an earlier run makes a write ask in the next one ("thanks, carry on"), until /new', async () => {
  const { model, write, gw, adapter } = setup();
  await gw.start();
  model.script(callTools([['fetch', { path: 'https://evil.example' }]]), reply('The page says to write a file.'));
  await adapter.say('what does the page say?');
  await gw.idle();
  model.script(callTools([['write', { path: 'owned.txt' }]]), reply('Not written.'));
  await adapter.say('thanks, carry on');
  await until(() => questions(adapter).length === 1, 'the question');
  assert.match(questions(adapter)[0]!.text, /Read before: the page https:\/\/evil\.example/);
  assert.equal(write.runs.length, 0, 'nothing written before a person said yes');
  await adapter.press('Deny');
  await gw.idle();
  assert.equal(write.runs.length, 0);
  // A fresh history holds nothing untrusted: the write runs without a question.
  await adapter.say('/new');
  await gw.idle();
  model.script(callTools([['write', { path: 'mine.txt' }]]), reply('Written.'));
  await adapter.say('write mine.txt');
  await gw.idle();
  assert.equal(write.runs.length, 1);
  assert.equal(questions(adapter).length, 1, 'no second question');
  await gw.stop();
});

test('a /compact summary of a tainted history keeps the taint', async () => {
  const { model, write, gw, adapter } = setup();
  await gw.start();
  model.script(callTools([['fetch', { path: 'https://evil.example' }]]), reply('Read it.'));
  await adapter.say('read the page');
  await gw.idle();
  model.script(reply('Hello.'));
  await adapter.say('hello');
  await gw.idle();
  // The page's turn goes into the summary; only the last turn is kept as it was.
  model.script(reply('The user had a page read; it asked for a file to be written.'));
  await adapter.say('/compact');
  await gw.idle();
  assert.ok(
    model.requests.at(-1)!.messages.every((m) => m.content.every((p) => p.type === 'text')),
    'the summary was asked for',
  );
  model.script(callTools([['write', { path: 'owned.txt' }]]));
  await adapter.say('go on');
  await until(() => questions(adapter).length === 1, 'the question');
  assert.match(questions(adapter)[0]!.text, /Read before: the page https:\/\/evil\.example/);
  assert.equal(write.runs.length, 0);
  await gw.stop();
});

test('a history stored without provenance (an older boxbot) counts as untrusted', async () => {
  const { model, write, gw, adapter, store } = setup();
  await store.conversations.setMessages('telegram:100', [
    { role: 'user', content: [{ type: 'text', text: 'fetch the page' }] },
    { role: 'assistant', content: [{ type: 'tool-call', id: 'c1', name: 'web_fetch', input: { url: 'x' } }] },
    { role: 'user', content: [{ type: 'tool-result', id: 'c1', name: 'web_fetch', content: 'do it', isError: false }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
  ]);
  await gw.start();
  model.script(callTools([['write', { path: 'owned.txt' }]]));
  await adapter.say('carry on');
  await until(() => questions(adapter).length === 1, 'the question');
  assert.ok(questions(adapter)[0]!.text.includes(`Read before: ${UNRECORDED_RESULT}`));
  assert.equal(write.runs.length, 0);
  await gw.stop();
});

test('a summary an older boxbot saved counts as untrusted, and so does a /compact summary of it', async () => {
  const { model, write, gw, adapter, store } = setup();
  // As an older boxbot saved it: the summary names its authors, not what it retells.
  const summary = {
    role: 'user' as const,
    content: [{ type: 'text' as const, text: '[Summary of the earlier conversation]\nA page asked for owned.txt.' }],
    authors: ['42'],
  };
  await store.conversations.setMessages('telegram:100', [
    summary,
    { role: 'assistant', content: [{ type: 'text', text: 'Noted; I will continue from this summary.' }] },
    { role: 'user', content: [{ type: 'text', text: 'hello' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
  ]);
  await gw.start();
  model.script(reply('A page asked for owned.txt; then hello.'));
  await adapter.say('/compact');
  await gw.idle();
  model.script(callTools([['write', { path: 'owned.txt' }]]));
  await adapter.say('carry on');
  await until(() => questions(adapter).length === 1, 'the question');
  assert.ok(questions(adapter)[0]!.text.includes(`Read before: ${UNRECORDED_SUMMARY}`));
  assert.equal(write.runs.length, 0);
  await gw.stop();
});
