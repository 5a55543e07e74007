// The config edit `boxbot setup` makes: the top-level "model" set in an existing file without
// losing its comments, never a nested "model" or one inside a comment; a new file is the starter.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newConfigText, withModel } from '../../src/cli/setup-config.ts';
import { stripJsonComments } from '../../src/config/jsonc.ts';

const read = (text: string) => JSON.parse(stripJsonComments(text)) as Record<string, unknown>;

describe('setup: the model in the config file', () => {
  it('replaces the top-level value only, keeping comments', () => {
    const text = `{
  // "model": "in/a-comment",
  "channels": { "telegram": { "model": "openai/gpt-4o" } },
  "model": "anthropic/old",
}`;
    const edited = withModel(text, 'openai/gpt-5.4')!;
    assert.ok(edited.includes('// "model": "in/a-comment"'));
    assert.deepEqual(read(edited), {
      channels: { telegram: { model: 'openai/gpt-4o' } },
      model: 'openai/gpt-5.4',
    });
  });

  it('adds the key when there is none, even if only a nested one exists', () => {
    const edited = withModel('{ "channels": { "web": { "model": "a/b" } } }', 'ollama/llama3.1')!;
    assert.deepEqual(read(edited), { model: 'ollama/llama3.1', channels: { web: { model: 'a/b' } } });
    assert.deepEqual(read(withModel('{}', 'x/y')!), { model: 'x/y' });
  });

  it('leaves alone what it cannot edit safely, and an unchanged model unchanged', () => {
    assert.equal(withModel('[1, 2]', 'x/y'), undefined);
    assert.equal(withModel('{ not json', 'x/y'), undefined);
    const same = '{ "model": "x/y" } // as is';
    assert.equal(withModel(same, 'x/y'), same);
  });

  it('a new file is the commented starter with the model set', () => {
    const text = newConfigText('./boxbot.schema.json', 'groq/llama-3.3-70b-versatile');
    assert.equal(read(text).model, 'groq/llama-3.3-70b-versatile');
    assert.match(text, /^ {2}\/\/ Where conversations, jobs and caches are kept/m);
  });
});
