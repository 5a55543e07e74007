// Each provider's one pure finish-reason mapping: what the loop is told about why the model stopped.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { mapAnthropicStopReason, mapOpenAIFinishReason } from '../../../src/agent/providers/index.ts';

it('maps Anthropic stop reasons', () => {
  assert.deepEqual(
    [
      'end_turn',
      'stop_sequence',
      'tool_use',
      'max_tokens',
      'refusal',
      'pause_turn',
      'model_context_window_exceeded',
      null,
    ].map(mapAnthropicStopReason),
    ['stop', 'stop', 'tool-calls', 'max-tokens', 'content-filter', 'other', 'other', 'other'],
  );
});

it('maps OpenAI finish reasons; "stop" after tool calls (some compatible servers) still means tool calls', () => {
  assert.deepEqual(
    ['stop', 'tool_calls', 'function_call', 'length', 'content_filter', null].map((r) =>
      mapOpenAIFinishReason(r, false),
    ),
    ['stop', 'tool-calls', 'tool-calls', 'max-tokens', 'content-filter', 'other'],
  );
  assert.equal(mapOpenAIFinishReason('stop', true), 'tool-calls');
  assert.equal(mapOpenAIFinishReason('length', true), 'max-tokens');
});
