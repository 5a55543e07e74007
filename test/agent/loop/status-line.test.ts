// Status lines a chat shows while tools run: short, human, and never the raw input.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toolEndStatus, toolStatus } from '../../../src/agent/loop/status-line.ts';

test('status lines name what a tool is doing in a few words', () => {
  assert.equal(toolStatus('read', { file_path: 'src/main.ts', offset: 10 }), 'reading src/main.ts…');
  assert.equal(toolStatus('edit', { file_path: 'a.md', old_string: 'x', new_string: 'y' }), 'editing a.md…');
  assert.equal(toolStatus('grep', { pattern: 'TODO', path: 'src' }), 'searching for "TODO"…');
  assert.equal(toolStatus('glob', { pattern: '**/*.ts' }), 'finding files matching "**/*.ts"…');
  assert.equal(toolStatus('bash', { command: 'npm test' }), 'running `npm test`…');
  assert.equal(toolStatus('web_fetch', { url: 'https://example.com/a/b?token=secret' }), 'fetching example.com…');
  assert.equal(
    toolStatus('agent', { description: 'survey the tests', prompt: 'long secret prompt' }),
    'sub-agent: survey the tests…',
  );
  assert.equal(toolStatus('js_exec', { code: 'process.env' }), 'using js_exec…');
  assert.equal(toolEndStatus('read', true, 2500), 'read failed (2.5 s)');
});

test('long inputs are cut short', () => {
  const line = toolStatus('bash', { command: `echo ${'x'.repeat(500)}` });
  assert.ok(line.length < 70, line);
  assert.ok(line.endsWith('…`…'));
});
