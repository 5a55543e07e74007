// The newcomer's path end to end: `npm start`'s gateway, the web chat page, a model over HTTP
// (the LLM emulator through the real OpenAI SDK), a sandboxed tool call, a streamed answer.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { workspaceOf } from '../../src/runner/agent-runner.ts';
import { conversationFile } from '../../src/store/index.ts';
import { llm } from '../emulators/llm/index.ts';
import { type E2E, startE2E, until, WebChatClient } from './harness.ts';

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(async () => {
  await e2e?.close();
});

test('web chat: a question gets a streamed answer from the model', async () => {
  const chat = await WebChatClient.open(e2e.app.url);
  e2e.llm.script([llm.say(['Hello ', 'from ', 'boxbot.'], { chunkDelayMs: 30 })]);
  assert.equal(await chat.say('hi'), 202);
  await until(() => chat.messages().includes('Hello from boxbot.'), 'the answer');
  assert.equal(chat.messages().length, 1, 'one message, edited while streaming');
  const req = e2e.llm.requests.at(-1)!;
  assert.equal(req.body.messages.at(-1).content, 'hi');
  assert.equal(JSON.stringify(req.headers).includes('sk-test-e2e'), true, 'the SDK authenticated');
  chat.close();
  e2e.llm.assertDone();
});

test('web chat: the model writes a file through the sandboxed write tool, and remembers the conversation', async () => {
  const chat = await WebChatClient.open(e2e.app.url);
  e2e.llm.script([
    llm.answer([llm.toolCalls(llm.call('write', { file_path: 'notes/todo.txt', content: 'buy milk' }))]),
    llm.say('Saved notes/todo.txt.'),
    llm.say('You asked me to save a todo.'),
  ]);
  await chat.say('save "buy milk" to notes/todo.txt');
  await until(() => chat.messages().includes('Saved notes/todo.txt.'), 'the answer after the tool call');
  const ws = workspaceOf(join(e2e.dir, 'data', 'workspaces'), `web:${chat.session}`);
  assert.equal(readFileSync(join(ws, 'notes/todo.txt'), 'utf8'), 'buy milk');
  // The tool result went back to the model.
  const second = e2e.llm.requests.at(-1)!.body.messages;
  assert.equal(second.at(-1).role, 'tool');
  assert.equal(second.at(-1).content.includes('error'), false);
  await chat.say('what did I ask?');
  await until(() => chat.messages().includes('You asked me to save a todo.'), 'the follow-up answer');
  const third = e2e.llm.requests.at(-1)!.body.messages;
  assert.ok(
    third.some((m: { role: string; content: unknown }) => m.role === 'user' && String(m.content).includes('buy milk')),
    'history was sent',
  );
  chat.close();
  e2e.llm.assertDone();
});

test('web chat: no page token, no message; a foreign Host is refused', async () => {
  const chat = await WebChatClient.open(e2e.app.url);
  assert.equal(await chat.say('sneaky', 'wrong-token'), 401);
  // A DNS-rebinding page would arrive with its own Host (fetch cannot forge Host, so node:http).
  const status = await new Promise<number>((resolve, reject) => {
    get(`${e2e.app.url}/`, { headers: { host: 'attacker.example' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
  assert.equal(status, 403);
  chat.close();
  assert.equal(existsSync(join(e2e.dir, 'data', 'workspaces', 'nothing')), false);
});

test('health, metrics and the admin guard', async () => {
  const health = (await (await fetch(`${e2e.app.url}/healthz`)).json()) as {
    ok: boolean;
    channels: string[];
    tools: number;
  };
  assert.equal(health.ok, true);
  assert.deepEqual(health.channels, ['web']);
  // The tools a chat can be offered, as start's banner lists them: web_search needs a search service.
  const registered = e2e.app.runtime.registry.list().map((t) => t.spec.name);
  assert.ok(registered.includes('web_search'), 'the bundled web_search tool is registered');
  assert.equal(health.tools, registered.length - 1, 'web_search is not counted without a search service');
  const metrics = await (await fetch(`${e2e.app.url}/metrics`)).text();
  assert.match(metrics, /boxbot_messages_in_total\{platform="web"\} \d+/);
  assert.match(metrics, /boxbot_tool_calls_total\{result="ok",tool="write"\} 1/);
  const admin = await fetch(`${e2e.app.url}/admin/api/sessions`);
  assert.equal(admin.status, 403);
});

test('web chat: a corrupt history file is set aside and reported, and the conversation goes on', async () => {
  const chat = await WebChatClient.open(e2e.app.url);
  e2e.llm.script([llm.say('First answer.')]);
  await chat.say('hello');
  await until(() => chat.messages().includes('First answer.'), 'the first answer');
  // The preview shows the text before the run saves its history: wait until the run is done.
  await e2e.app.gateway.idle();
  const file = join(e2e.dir, 'data', conversationFile(`web:${chat.session}`));
  // The history is journaled first; its file is written in the background (a checkpoint).
  await until(() => existsSync(file) && readFileSync(file, 'utf8').includes('First answer.'), 'the history file');
  writeFileSync(file, '{"key": "web:', 'utf8');
  e2e.llm.script([llm.say('Second answer.')]);
  await chat.say('are you there?');
  // The streamed preview shows the model's text first; the final answer carries the note.
  await until(
    () =>
      chat
        .messages()
        .some((m) => m.includes('Second answer.') && m.includes('history was unreadable; it was set aside')),
    'the answer with the note',
  );
  assert.ok(
    readdirSync(dirname(file)).some((f) => f.includes('.corrupt-')),
    'the bad file was kept aside',
  );
  chat.close();
  e2e.llm.assertDone();
});
