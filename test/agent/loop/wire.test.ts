// runAgent over the real provider SDKs against the LLM emulator: a thinking block and parallel
// tool calls from Anthropic's wire protocol go through the loop and come back in the next request;
// an OpenAI-compatible cancellation closes the HTTP stream.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type AgentDeps, runAgent } from '../../../src/agent/index.ts';
import {
  costOf,
  createAnthropicProvider,
  createOpenAIProvider,
  DEFAULT_MODELS,
} from '../../../src/agent/providers/index.ts';
import type { Provider } from '../../../src/agent/types.ts';
import { type LlmEmulator, llm, startLlmEmulator } from '../../emulators/llm/index.ts';
import { builtin, noSandbox, noWasm, policy } from './helpers.ts';

let emu: LlmEmulator;
before(async () => {
  emu = await startLlmEmulator();
});
after(() => emu.close());

const depsFor = (provider: Provider, id: string, over: Partial<AgentDeps> = {}): AgentDeps => ({
  resolveModel: () => ({ provider, model: id.split('/')[1]!, id }),
  registry: noWasm,
  sandbox: noSandbox,
  costOf,
  ...over,
});

test('Anthropic: thinking and parallel tool calls round-trip through the loop', async () => {
  const read = builtin('read', 'ReadOnly');
  emu.script([
    llm.answer(
      [
        llm.thinking(['I should read ', 'both.'], 'sig-abc'),
        llm.toolCalls(
          llm.call('read', { file_path: 'a.txt' }, { id: 'tu_1' }),
          llm.call('read', { file_path: 'b.txt' }, { id: 'tu_2' }),
        ),
      ],
      { usage: { input: 1000, output: 100 } },
    ),
    llm.say(['Both ', 'read.'], { usage: { input: 1200, output: 20 } }),
  ]);
  const provider = createAnthropicProvider({ apiKey: 'test-key', baseURL: emu.anthropicBaseURL });
  const r = await runAgent({
    input: 'read a and b',
    policy: policy('read-only'),
    deps: depsFor(provider, 'anthropic/claude-haiku-4-5', { builtins: [read] }),
  });
  emu.assertDone();
  assert.equal(r.outcome, 'final');
  assert.equal(r.text, 'Both read.');
  assert.deepEqual(read.calls, [{ file_path: 'a.txt' }, { file_path: 'b.txt' }]);
  assert.deepEqual([r.usage.inputTokens, r.usage.outputTokens], [2200, 120]);
  assert.ok(typeof r.costUsd === 'number' && r.costUsd > 0, `a priced model has a cost: ${r.costUsd}`);
  const second = emu.requests.at(-1)!.body as {
    messages: {
      role: string;
      content: { type: string; thinking?: string; signature?: string; tool_use_id?: string }[];
    }[];
  };
  const assistant = second.messages.find((m) => m.role === 'assistant')!;
  assert.deepEqual(assistant.content[0], { type: 'thinking', thinking: 'I should read both.', signature: 'sig-abc' });
  const results = second.messages.at(-1)!.content.map((c) => [c.type, c.tool_use_id]);
  assert.deepEqual(results, [
    ['tool_result', 'tu_1'],
    ['tool_result', 'tu_2'],
  ]);
});

const anthropicDefaultModelTitle =
  'Anthropic default model: notes written between tool calls reach the user and go back as the API sent them';
test(anthropicDefaultModelTitle, async () => {
  const read = builtin('read', 'ReadOnly');
  emu.script([
    llm.answer([
      llm.thinking('Reading a.txt first.', 'sig-note'),
      llm.toolCalls(llm.call('read', { file_path: 'a.txt' }, { id: 'tu_1' })),
    ]),
    llm.say('a.txt is read.'),
  ]);
  const provider = createAnthropicProvider({ apiKey: 'test-key', baseURL: emu.anthropicBaseURL });
  const seen: string[] = [];
  const r = await runAgent({
    input: 'read a',
    policy: policy('read-only'),
    deps: depsFor(provider, DEFAULT_MODELS.anthropic!, { builtins: [read] }),
    onEvent: (e) => {
      if (e.type === 'text-delta') seen.push(`text: ${e.text}`);
      else if (e.type === 'tool-start') seen.push(`tool: ${e.name}`);
    },
  });
  emu.assertDone();
  assert.equal(r.outcome, 'final');
  assert.deepEqual(
    seen,
    ['text: Reading a.txt first.', 'tool: read', 'text: a.txt is read.'],
    'the note is shown before the tool runs',
  );
  assert.equal(r.text, 'a.txt is read.');
  const second = emu.requests.at(-1)!.body as { thinking: unknown; messages: { role: string; content: unknown[] }[] };
  assert.deepEqual(second.thinking, { type: 'between_tools' });
  assert.deepEqual(second.messages[1], {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'Reading a.txt first.', signature: 'sig-note' },
      { type: 'tool_use', id: 'tu_1', name: 'read', input: { file_path: 'a.txt' } },
    ],
  });
});

test('OpenAI-compatible: cancelling mid-stream ends the run as cancelled and closes the request', async () => {
  emu.script([llm.answer([llm.text('Partial '), llm.hang()])]);
  const provider = createOpenAIProvider({ name: 'ollama', apiKey: 'unused', baseURL: emu.openaiBaseURL });
  const ctl = new AbortController();
  const r = await runAgent({
    input: 'go',
    policy: policy('chat-only'),
    deps: depsFor(provider, 'ollama/llama3.1'),
    signal: ctl.signal,
    onEvent: (e) => e.type === 'text-delta' && ctl.abort(),
  });
  assert.equal(r.outcome, 'cancelled');
  assert.equal(r.text, 'Partial ');
  assert.equal(r.costUsd, null, 'an unpriced local model has an unknown cost');
  assert.equal(await emu.requests.at(-1)!.ended, 'client-closed');
  emu.assertDone();
});
