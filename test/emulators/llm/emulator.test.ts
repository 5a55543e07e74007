// The LLM emulator itself: unused script steps and unanswered requests fail assertDone, responder mode
// answers forever, and non-streaming calls get the real JSON shapes through the official SDKs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { type LlmReply, llm, startLlmEmulator } from './index.ts';

describe('llm emulator', () => {
  it('assertDone fails while scripted replies are unused', async () => {
    const emu = await startLlmEmulator();
    try {
      emu.script([llm.say('one'), llm.fail(429)]);
      const openai = new OpenAI({ apiKey: 'k', baseURL: emu.openaiBaseURL, maxRetries: 0 });
      await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
      assert.throws(() => emu.assertDone(), /1 scripted reply was never requested \(status\)/);
    } finally {
      await emu.close();
    }
  });

  it('a request with no reply left gets a 500 and fails assertDone', async () => {
    const emu = await startLlmEmulator();
    try {
      const anthropic = new Anthropic({ apiKey: 'k', baseURL: emu.anthropicBaseURL, maxRetries: 0, logLevel: 'off' });
      await assert.rejects(
        anthropic.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
        { status: 500 },
      );
      assert.throws(() => emu.assertDone(), /request 1: POST \/v1\/messages found no scripted reply/);
    } finally {
      await emu.close();
    }
  });

  it('records what the SDK sent', async () => {
    const emu = await startLlmEmulator();
    try {
      emu.script([llm.say('ok')]);
      const anthropic = new Anthropic({
        apiKey: 'sk-test',
        baseURL: emu.anthropicBaseURL,
        maxRetries: 0,
        logLevel: 'off',
      });
      await anthropic.messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      });
      const r = emu.requests[0]!;
      assert.equal(r.api, 'anthropic');
      assert.equal(r.method, 'POST');
      assert.equal(r.path, '/v1/messages');
      assert.ok(r.headers['anthropic-version'], 'the SDK sends its API version');
      assert.deepEqual(r.body, {
        model: 'claude-haiku-4-5',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      });
      assert.equal(await r.ended, 'complete');
      emu.assertDone();
    } finally {
      await emu.close();
    }
  });

  it('answers non-streaming calls with the real JSON shapes', async () => {
    const emu = await startLlmEmulator();
    try {
      const answer: LlmReply = llm.answer(
        [llm.text('Hi ', 'there'), llm.toolCalls(llm.call('lookup', { q: 'x' }, { id: 'call_1' }))],
        { usage: { input: 9, output: 4 } },
      );
      emu.script([answer, answer]);
      const openai = new OpenAI({ apiKey: 'k', baseURL: emu.openaiBaseURL, maxRetries: 0 });
      const c = await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(c.choices[0]?.message.content, 'Hi there');
      assert.deepEqual(c.choices[0]?.message.tool_calls, [
        { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
      ]);
      assert.equal(c.choices[0]?.finish_reason, 'tool_calls');
      assert.equal(c.usage?.prompt_tokens, 9);
      const anthropic = new Anthropic({ apiKey: 'k', baseURL: emu.anthropicBaseURL, maxRetries: 0, logLevel: 'off' });
      const m = await anthropic.messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      });
      assert.deepEqual(
        m.content.map((b) => b.type),
        ['text', 'tool_use'],
      );
      assert.equal(m.stop_reason, 'tool_use');
      assert.equal(m.usage.output_tokens, 4);
      emu.assertDone();
    } finally {
      await emu.close();
    }
  });

  it('refuses what the API refuses per model, and sends thinking text only when asked for it', async () => {
    const emu = await startLlmEmulator();
    try {
      const anthropic = new Anthropic({ apiKey: 'k', baseURL: emu.anthropicBaseURL, maxRetries: 0, logLevel: 'off' });
      const ask = (over: Partial<Anthropic.Messages.MessageCreateParamsNonStreaming>) =>
        anthropic.messages.create({
          model: 'claude-sonnet-5-5',
          max_tokens: 2000,
          messages: [{ role: 'user', content: 'hi' }],
          ...over,
        });
      await assert.rejects(ask({ thinking: { type: 'enabled', budget_tokens: 1024 } }), {
        status: 400,
        message: /thinking\.type\.enabled\W+is not supported/,
      });
      await assert.rejects(ask({ thinking: { type: 'disabled' } }), { status: 400, message: /between_tools/ });
      await assert.rejects(ask({ model: 'claude-haiku-4-5', thinking: { type: 'between_tools' } }), { status: 400 });
      emu.script([
        llm.answer([llm.thinking('A note.', 'sig'), llm.text('Hi.')]),
        llm.answer([llm.thinking('A note.', 'sig'), llm.text('Hi.')]),
      ]);
      const quiet = await ask({});
      const notes = await ask({ thinking: { type: 'between_tools' } });
      assert.deepEqual(quiet.content[0], { type: 'thinking', thinking: '', signature: 'sig' });
      assert.deepEqual(notes.content[0], { type: 'thinking', thinking: 'A note.', signature: 'sig' });
      emu.assertDone();
    } finally {
      await emu.close();
    }
  });

  it('responder mode decides each reply from the request, for as long as asked', async () => {
    const emu = await startLlmEmulator();
    try {
      emu.respond((req) => llm.say(`echo: ${req.body.messages.at(-1).content}`));
      const openai = new OpenAI({ apiKey: 'k', baseURL: emu.openaiBaseURL, maxRetries: 0 });
      for (let i = 0; i < 5; i++) {
        const stream = await openai.chat.completions.create({
          model: 'm',
          stream: true,
          messages: [{ role: 'user', content: `n${i}` }],
        });
        let text = '';
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
        assert.equal(text, `echo: n${i}`);
      }
      assert.equal(emu.requests.length, 5);
      emu.assertDone();
    } finally {
      await emu.close();
    }
  });
});
