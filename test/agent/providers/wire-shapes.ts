// What each wire API must receive for the contract's requests: the provider contract asks these instead of
// branching on the API in every scenario. Each shape is what the vendor documents for its API.
import assert from 'node:assert/strict';

/** The wire APIs providers speak (Bedrock and Vertex speak Anthropic's, Azure speaks OpenAI's). */
export type WireApi = 'anthropic' | 'openai' | 'gemini' | 'cohere';

/** Expected request bodies of one API, for the contract's fixed requests. */
export interface WireShape {
  /** Asserts the body of "You are terse." + "Hello?" (system prompt and one user message). */
  assertHello(body: any, opts: { promptCaching: boolean }): void;
  /** The tool names the body declares. */
  toolNames(body: any): string[];
  /** Asserts the assistant turn "Checking." + call_9 weather(Paris) and the user turn with its result. */
  assertToolRound(body: any): void;
  /** Asserts the PNG `data` follows "What is this?" in the last user message. */
  assertImage(body: any, data: string): void;
  /** The output limit the body asks for. */
  maxTokens(body: any): unknown;
  /** Asserts the assistant turn [thinking "Let me think." (signed sig-abc), text "Answer."] went back right. */
  assertThinkingRoundTrip(body: any): void;
}

const openaiLike = (tools: (b: any) => string[]): Pick<WireShape, 'toolNames'> => ({ toolNames: tools });

/** The request shapes by wire API. */
export const WIRE: Record<WireApi, WireShape> = {
  anthropic: {
    assertHello(b, { promptCaching }) {
      assert.equal(b.system, 'You are terse.');
      if (promptCaching) assert.deepEqual(b.cache_control, { type: 'ephemeral' }, 'tool loops reuse the cached prefix');
      else assert.equal(b.cache_control, undefined, 'hosts that reject the top-level cache marker do not get it');
      assert.deepEqual(b.messages, [{ role: 'user', content: [{ type: 'text', text: 'Hello?' }] }]);
    },
    toolNames: (b) => b.tools.map((t: { name: string }) => t.name),
    assertToolRound(b) {
      assert.deepEqual(b.messages[1], {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'call_9', name: 'weather', input: { city: 'Paris' } },
        ],
      });
      assert.deepEqual(b.messages[2], {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'call_9', content: 'sunny, 21C', is_error: false }],
      });
    },
    assertImage(b, data) {
      const content = b.messages.at(-1).content;
      assert.deepEqual(content[1], { type: 'image', source: { type: 'base64', media_type: 'image/png', data } });
    },
    maxTokens: (b) => b.max_tokens,
    assertThinkingRoundTrip(b) {
      assert.deepEqual(b.messages[1].content, [
        { type: 'thinking', thinking: 'Let me think.', signature: 'sig-abc' },
        { type: 'text', text: 'Answer.' },
      ]);
    },
  },
  openai: {
    assertHello(b) {
      assert.deepEqual(b.messages, [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Hello?' },
      ]);
      assert.deepEqual(b.stream_options, { include_usage: true });
    },
    ...openaiLike((b) => b.tools.map((t: { function: { name: string } }) => t.function.name)),
    assertToolRound(b) {
      assert.deepEqual(b.messages[2], {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
      });
      assert.deepEqual(b.messages[3], { role: 'tool', tool_call_id: 'call_9', content: 'sunny, 21C' });
    },
    assertImage(b, data) {
      const content = b.messages.at(-1).content;
      assert.deepEqual(content[1], { type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } });
    },
    maxTokens: (b) => b.max_completion_tokens ?? b.max_tokens,
    assertThinkingRoundTrip(b) {
      assert.deepEqual(b.messages[2], { role: 'assistant', content: 'Answer.' }, 'reasoning is shown, never sent back');
    },
  },
  gemini: {
    assertHello(b) {
      assert.deepEqual(b.systemInstruction, { parts: [{ text: 'You are terse.' }], role: 'user' });
      assert.deepEqual(b.contents, [{ role: 'user', parts: [{ text: 'Hello?' }] }]);
    },
    toolNames: (b) =>
      b.tools.flatMap((t: { functionDeclarations: { name: string }[] }) => t.functionDeclarations.map((f) => f.name)),
    assertToolRound(b) {
      assert.deepEqual(b.contents[1], {
        role: 'model',
        parts: [{ text: 'Checking.' }, { functionCall: { id: 'call_9', name: 'weather', args: { city: 'Paris' } } }],
      });
      assert.deepEqual(b.contents[2], {
        role: 'user',
        parts: [{ functionResponse: { id: 'call_9', name: 'weather', response: { output: 'sunny, 21C' } } }],
      });
    },
    assertImage(b, data) {
      assert.deepEqual(b.contents.at(-1).parts[1], { inlineData: { mimeType: 'image/png', data } });
    },
    maxTokens: (b) => b.generationConfig?.maxOutputTokens,
    assertThinkingRoundTrip(b) {
      assert.deepEqual(
        b.contents[1],
        { role: 'model', parts: [{ text: 'Answer.', thoughtSignature: 'sig-abc' }] },
        "the thought signature rides on the next part; the thought's text is not resent",
      );
    },
  },
  cohere: {
    assertHello(b) {
      assert.deepEqual(b.messages, [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Hello?' },
      ]);
    },
    ...openaiLike((b) => b.tools.map((t: { function: { name: string } }) => t.function.name)),
    assertToolRound(b) {
      assert.deepEqual(b.messages[2], {
        role: 'assistant',
        tool_plan: 'Checking.',
        tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
      });
      assert.deepEqual(b.messages[3], { role: 'tool', tool_call_id: 'call_9', content: 'sunny, 21C' });
    },
    assertImage(b, data) {
      const content = b.messages.at(-1).content;
      assert.deepEqual(content[1], { type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } });
    },
    maxTokens: (b) => b.max_tokens,
    assertThinkingRoundTrip(b) {
      assert.deepEqual(b.messages[2], { role: 'assistant', content: 'Answer.' }, 'thinking is shown, never sent back');
    },
  },
};
