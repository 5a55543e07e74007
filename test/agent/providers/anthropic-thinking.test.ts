// Thinking per Claude model, through the real SDK against the LLM emulator (which refuses what the API refuses):
// the default model never gets a thinking budget or sampling values it rejects, the notes it writes between tool
// calls reach the user and go back as the API sent them, and older models get the request they always got.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  DEFAULT_MODELS,
  type ResolvedModel,
  resolveModel,
  toAnthropicParams,
} from '../../../src/agent/providers/index.ts';
import type { Message, ModelRequest } from '../../../src/agent/types.ts';
import { configSchema } from '../../../src/config/schema.ts';
import { type LlmEmulator, llm, startLlmEmulator } from '../../emulators/llm/index.ts';
import { collect, request, user } from './contract.ts';

const DEFAULT = DEFAULT_MODELS.anthropic!;
const UPDATES_BETA = 'thinking-display-updates-2026-08-18';

let emu: LlmEmulator;
before(async () => {
  emu = await startLlmEmulator();
});
after(() => emu.close());

const model = (spec: string): ResolvedModel =>
  resolveModel(spec, {
    config: configSchema.parse({}),
    secrets: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: emu.anthropicBaseURL },
  });
const lastRequest = () => emu.requests.at(-1)!;
const signal = () => new AbortController().signal;
const tools = [
  {
    name: 'read',
    description: 'Reads a file',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
  },
];

describe('the default Anthropic model', () => {
  it('is claude-sonnet-5-5, whose SDK prints no end-of-life warning (claude-sonnet-4-5 would)', async () => {
    assert.equal(DEFAULT, 'anthropic/claude-sonnet-5-5');
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void warnings.push(args.map(String).join(' '));
    try {
      emu.script([llm.say('ok'), llm.say('ok')]);
      for (const spec of [DEFAULT, 'anthropic/claude-sonnet-4-5']) {
        const m = model(spec);
        assert.equal((await collect(m.provider.stream(request(m.model), signal()))).error, undefined);
      }
    } finally {
      console.warn = warn;
    }
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, /'claude-sonnet-4-5' is deprecated/);
    emu.assertDone();
  });

  it('without thinking asked: up-front thinking off with between_tools, no budget, no sampling values', async () => {
    emu.script([llm.say('Hi.')]);
    const m = model(DEFAULT);
    const out = await collect(m.provider.stream(request(m.model, { temperature: 0.2, tools }), signal()));
    assert.equal(out.error, undefined, 'the API accepts the request');
    assert.equal(out.text, 'Hi.');
    const sent = lastRequest();
    assert.deepEqual(sent.body.thinking, { type: 'between_tools' });
    for (const field of ['temperature', 'top_p', 'top_k'])
      assert.equal(field in sent.body, false, `${field} is not sent`);
    assert.equal(sent.headers['anthropic-beta'], undefined);
    emu.assertDone();
  });

  const thinkingAskedAdaptiveTitle =
    'with thinking asked: adaptive thinking that returns only the notes (beta header sent), never a budget';
  it(thinkingAskedAdaptiveTitle, async () => {
    emu.script([llm.say('Thought it over.')]);
    const m = model(DEFAULT);
    const out = await collect(
      m.provider.stream(request(m.model, { thinkingBudgetTokens: 4096, maxOutputTokens: 1024 }), signal()),
    );
    assert.equal(out.error, undefined, 'the API accepts the request');
    const sent = lastRequest();
    assert.deepEqual(sent.body.thinking, { type: 'adaptive', display: 'updates' });
    assert.ok(sent.body.max_tokens > 4096, 'adaptive thinking spends max_tokens too, so the budget is added as room');
    assert.match(String(sent.headers['anthropic-beta']), new RegExp(UPDATES_BETA));
    emu.assertDone();
  });

  it('shows the notes it writes between tool calls as text, set off from what it said before', async () => {
    emu.script([
      llm.answer([
        llm.text('Let me look.'),
        llm.thinking(['Reading the config ', 'first.'], 'sig-note'),
        llm.toolCalls(llm.call('read', { path: 'boxbot.config.json' }, { id: 'toolu_1' })),
      ]),
    ]);
    const m = model(DEFAULT);
    const out = await collect(m.provider.stream(request(m.model, { tools }), signal()));
    assert.equal(out.error, undefined);
    assert.equal(out.text, 'Let me look.\n\nReading the config first.');
    assert.deepEqual(
      out.parts.find((p) => p.type === 'thinking'),
      { type: 'thinking', text: 'Reading the config first.', signature: 'sig-note' },
    );
    emu.assertDone();
  });

  it('sends a turn with shown notes back exactly as the API sent it', async () => {
    emu.script([llm.say('Done.')]);
    const m = model(DEFAULT);
    // What the loop keeps of the turn above: the streamed text (note included), then the blocks.
    const turn: Message = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me look.\n\nReading the config first.' },
        { type: 'thinking', text: 'Reading the config first.', signature: 'sig-note' },
        { type: 'tool-call', id: 'toolu_1', name: 'read', input: { path: 'boxbot.config.json' } },
      ],
    };
    const result: Message = {
      role: 'user',
      content: [{ type: 'tool-result', id: 'toolu_1', name: 'read', content: '{}', isError: false }],
    };
    await collect(
      m.provider.stream(request(m.model, { tools, messages: [user('Check the config'), turn, result] }), signal()),
    );
    assert.deepEqual(lastRequest().body.messages[1].content, [
      { type: 'text', text: 'Let me look.' },
      { type: 'thinking', thinking: 'Reading the config first.', signature: 'sig-note' },
      { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'boxbot.config.json' } },
    ]);
    emu.assertDone();
  });
});

describe('an older model (claude-haiku-4-5)', () => {
  const older = 'anthropic/claude-haiku-4-5';

  it('gets no thinking field unless asked, then a budget, as before', async () => {
    emu.script([llm.say('Hi.'), llm.say('Hi.')]);
    const m = model(older);
    await collect(m.provider.stream(request(m.model), signal()));
    assert.equal('thinking' in lastRequest().body, false);
    const out = await collect(
      m.provider.stream(request(m.model, { thinkingBudgetTokens: 2048, maxOutputTokens: 1024 }), signal()),
    );
    assert.equal(out.error, undefined, 'the API accepts the request');
    assert.deepEqual(lastRequest().body.thinking, { type: 'enabled', budget_tokens: 2048 });
    assert.equal(lastRequest().headers['anthropic-beta'], undefined);
    emu.assertDone();
  });

  it('keeps its thinking private: reasoning is not shown as text', async () => {
    emu.script([llm.answer([llm.thinking('Private reasoning.', 'sig-r'), llm.text('Answer.')])]);
    const m = model(older);
    const out = await collect(m.provider.stream(request(m.model, { thinkingBudgetTokens: 2048 }), signal()));
    assert.equal(out.text, 'Answer.');
    assert.deepEqual(out.parts[0], { type: 'thinking', text: 'Private reasoning.', signature: 'sig-r' });
    emu.assertDone();
  });
});

describe('thinking settings by model', () => {
  const thinkingOf = (model: string, over: Partial<ModelRequest> = {}) =>
    toAnthropicParams(request(model, over)).thinking;
  const asked = { thinkingBudgetTokens: 2048 };

  it('asks each model in the form it accepts', () => {
    const cases: [string, unknown, unknown][] = [
      // model, not asked, asked
      ['claude-sonnet-5-5', { type: 'between_tools' }, { type: 'adaptive', display: 'updates' }],
      ['claude-opus-5-5', { type: 'adaptive', display: 'updates' }, { type: 'adaptive', display: 'updates' }],
      ['claude-sonnet-5', undefined, { type: 'adaptive' }],
      ['claude-opus-4-6', undefined, { type: 'adaptive' }],
      ['claude-sonnet-6', undefined, { type: 'adaptive' }],
      ['claude-sonnet-4-5-20250929', undefined, { type: 'enabled', budget_tokens: 2048 }],
      ['claude-haiku-4-5', undefined, { type: 'enabled', budget_tokens: 2048 }],
      ['MiniMax-M2', undefined, { type: 'enabled', budget_tokens: 2048 }],
    ];
    for (const [model, off, on] of cases) {
      assert.deepEqual(thinkingOf(model), off, `${model}, thinking not asked`);
      assert.deepEqual(thinkingOf(model, asked), on, `${model}, thinking asked`);
    }
  });
});
