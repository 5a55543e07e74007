// Which models are sent images: the vendors' vision models and common open-weight ones, plus the
// config's additions; unknown models and audio-only variants are not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { supportsVision } from '../../../src/agent/providers/index.ts';

test('vision models by family; unknown, text-only and audio variants are not sent images', () => {
  for (const id of [
    'anthropic/claude-sonnet-4-5',
    'anthropic/claude-3-5-haiku-latest',
    'openai/gpt-4o-mini',
    'openai/gpt-4.1-2025-04-14',
    'openai/gpt-5.4',
    'ollama/llava:13b',
    'openrouter/openai/gpt-4o',
  ])
    assert.equal(supportsVision(id), true, id);
  for (const id of ['deepseek/deepseek-chat', 'openai/o3-mini', 'openai/gpt-4o-mini-transcribe', 'ollama/llama3.1'])
    assert.equal(supportsVision(id), false, id);
  assert.equal(supportsVision('ollama/my-vlm', ['ollama/my-vlm']), true, 'media.visionModels adds a model');
});
