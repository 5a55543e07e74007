// Run slots bound work, not waiting: runs whose model streams stalled (real OpenAI SDK against the LLM emulator)
// or that wait on an approver leave their slot, so a new chat is still answered; a stream that stays silent past
// the idle timeout is retried, handed to the fallback, and then the user is told which provider stalled.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveModelWithFallback } from '../../src/agent/providers/index.ts';
import { configSchema } from '../../src/config/schema.ts';
import { createMemoryState } from '../../src/store/index.ts';
import { callTools, reply } from '../agent/loop/scripted.ts';
import { type LlmEmulator, llm, startLlmEmulator } from '../emulators/llm/index.ts';
import { until } from './fakes.ts';
import { boot, Model, questions, tool } from './real-gateway.ts';

/** `openai/<model>` against `emu`, resolved as main.ts does (config, retries, fallback). */
function emulatedModels(emu: LlmEmulator, config: Record<string, unknown>) {
  const ctx = {
    config: configSchema.parse({ model: 'openai/primary-model', ...config }),
    secrets: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: emu.openaiBaseURL },
    retry: { baseDelayMs: 1, maxDelayMs: 1 },
  };
  return (spec: string | undefined) => resolveModelWithFallback(spec, ctx);
}

/** The text of the last user turn a request to the emulator carried. */
const lastUserText = (body: { messages?: { role: string; content: unknown }[] }): string => {
  const content = body.messages?.filter((m) => m.role === 'user').at(-1)?.content;
  return typeof content === 'string' ? content : JSON.stringify(content ?? '');
};

test('with 20 model streams stalled, a new chat is answered while they still stall', { timeout: 60_000 }, async () => {
  const emu = await startLlmEmulator();
  // Stalled chats get no bytes at all; anyone else gets an answer. The idle timeout is far beyond the test.
  emu.respond((r) => (lastUserText(r.body).includes('stall') ? llm.stall() : llm.say('Hello, new chat.')));
  const { gw, adapter } = boot({
    model: new Model(),
    state: createMemoryState(),
    resolveModel: emulatedModels(emu, { modelIdleTimeoutMs: 600_000 }),
    concurrency: 16,
  });
  await gw.start();
  try {
    for (let i = 0; i < 20; i++) await adapter.say('please stall', { chatId: String(1000 + i) });
    await until(() => emu.requests.length === 20, 'all 20 stalled streams open');
    const open = emu.requests.map(() => true);
    emu.requests.forEach((r, i) => void r.ended.then(() => (open[i] = false)));
    await adapter.say('hi there', { chatId: '2000' });
    await until(() => adapter.texts('2000').includes('Hello, new chat.'), 'the new chat answered');
    assert.equal(open.filter(Boolean).length, 20, 'the 20 streams are still stalled, none was cut to make room');
    assert.deepEqual(
      Array.from({ length: 20 }, (_, i) => adapter.texts(String(1000 + i))).filter((t) => t.some((x) => x.trim())),
      [],
      'no stalled chat got an answer',
    );
  } finally {
    await gw.stop();
    await emu.close();
  }
});

test('a run waiting on an approver does not hold the only slot', { timeout: 30_000 }, async () => {
  const model = new Model();
  const write = tool('write', 'Write');
  const { gw, adapter } = boot({
    model,
    state: createMemoryState(),
    telegram: { approvals: { levels: ['Write'], approvers: ['boss'] } },
    tools: [write.t],
    concurrency: 1,
  });
  await gw.start();
  try {
    model.script(callTools([['write', { path: 'x' }]]));
    await adapter.say('save x');
    await until(() => questions(adapter).some((q) => q.buttons?.length), 'the question to the approver');
    model.script(reply('Hi from the other chat.'));
    await adapter.say('hello', { chatId: '200' });
    await until(() => adapter.texts('200').includes('Hi from the other chat.'), 'the other chat answered');
    assert.equal(write.runs.length, 0, 'the call still waits for its approver');
  } finally {
    await gw.stop();
  }
});

test('a stream that stays silent: retried, then the fallback, then the user is told which provider stalled', {
  timeout: 30_000,
}, async () => {
  const emu = await startLlmEmulator();
  emu.script([llm.stall(), llm.stall(), llm.stall(), llm.answer([llm.hang()])]);
  const { gw, adapter } = boot({
    model: new Model(),
    state: createMemoryState(),
    // Long enough for each retry to reach the emulator (same process) on a loaded machine, where a shorter one was
    // cut before it did (test/agent/providers/resolve.test.ts) and the scripted stalls were left unused.
    resolveModel: emulatedModels(emu, { modelIdleTimeoutMs: 1500, fallbackModel: 'openai/fallback-model' }),
  });
  await gw.start();
  try {
    await adapter.say('hello');
    await until(() => adapter.texts().some((t) => t.startsWith('Sorry')), 'the answer');
    assert.deepEqual(adapter.texts(), [
      'Sorry, I could not answer: openai: the model stream stalled (no data for 1500 ms)',
    ]);
    assert.deepEqual(
      emu.requests.map((r) => r.body.model),
      ['primary-model', 'primary-model', 'fallback-model', 'fallback-model'],
    );
    emu.assertDone();
  } finally {
    await gw.stop();
    await emu.close();
  }
});
