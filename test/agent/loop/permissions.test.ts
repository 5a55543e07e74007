// Permissions enforced twice: the model only sees permitted tools, and a call to any other tool
// is refused before it runs, with the reason.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCostMeter } from '../../../src/agent/loop/cost-meter.ts';
import { runLoop } from '../../../src/agent/loop/run-loop.ts';
import { createToolSet } from '../../../src/agent/loop/tool-set.ts';
import type { AccessMode, ToolPolicy } from '../../../src/agent/tools/grants.ts';
import type { Message } from '../../../src/agent/types.ts';
import { builtin, noSandbox, noWasm, policy } from './helpers.ts';
import { callTools, reply, scriptedModel } from './scripted.ts';

const ask: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'fix the file' }] }];

function tools(access: AccessMode, filter?: ToolPolicy['tools']) {
  const all = {
    echo: builtin('echo', 'None'),
    read: builtin('read', 'ReadOnly'),
    write: builtin('write', 'Write'),
    bash: builtin('bash', 'Execute'),
  };
  return {
    all,
    set: createToolSet({
      wasm: noWasm,
      builtins: Object.values(all),
      policy: policy(access, filter),
      sandbox: noSandbox,
    }),
  };
}

test('the tool list follows the access mode', () => {
  assert.deepEqual(
    tools('full')
      .set.definitions()
      .map((d) => d.name),
    ['echo', 'read', 'write', 'bash'],
  );
  assert.deepEqual(
    tools('read-only')
      .set.definitions()
      .map((d) => d.name),
    ['echo', 'read'],
  );
  assert.deepEqual(
    tools('chat-only')
      .set.definitions()
      .map((d) => d.name),
    ['echo'],
  );
});

test('allow and deny lists narrow the tool list', () => {
  assert.deepEqual(
    tools('full', { deny: ['bash'] })
      .set.definitions()
      .map((d) => d.name),
    ['echo', 'read', 'write'],
  );
  assert.deepEqual(
    tools('full', { allow: ['read', 'bash'] })
      .set.definitions()
      .map((d) => d.name),
    ['read', 'bash'],
  );
});

test('in a read-only session a call to write is refused with the reason and nothing runs', async (t) => {
  const { all, set } = tools('read-only');
  const provider = scriptedModel(t, [
    callTools([
      ['write', { file_path: 'a.txt', text: 'x' }],
      ['bash', { text: 'rm -rf /' }],
    ]),
    reply('I cannot change files here.'),
  ]);
  const r = await runLoop({
    provider,
    model: 'm',
    system: '',
    messages: ask,
    tools: set,
    meter: createCostMeter(() => 0),
  });
  assert.equal(r.outcome, 'final');
  assert.equal(all.write.calls.length, 0);
  assert.equal(all.bash.calls.length, 0);
  const results = provider.requests[1]!.messages.at(-1)!.content;
  assert.deepEqual(results, [
    {
      type: 'tool-result',
      id: 'call-1',
      name: 'write',
      content: 'refused: write needs Write access, and this conversation is read-only',
      isError: true,
    },
    {
      type: 'tool-result',
      id: 'call-2',
      name: 'bash',
      content: 'refused: bash needs Execute access, and this conversation is read-only',
      isError: true,
    },
  ]);
  assert.deepEqual(
    provider.requests[0]!.tools.map((d) => d.name),
    ['echo', 'read'],
  );
});

test('a denied tool named by the model is refused before it runs', async (t) => {
  const { all, set } = tools('full', { deny: ['echo'] });
  const provider = scriptedModel(t, [callTools([['echo', { text: 'hi' }]]), reply('ok')]);
  await runLoop({ provider, model: 'm', system: '', messages: ask, tools: set, meter: createCostMeter(() => 0) });
  assert.equal(all.echo.calls.length, 0);
  const result = provider.requests[1]!.messages.at(-1)!.content[0]!;
  assert.ok(result.type === 'tool-result' && result.content === 'refused: echo is denied in this conversation');
});
