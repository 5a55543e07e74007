// Calling a registered tool through the sandbox: the input is checked, mapped to argv and run
// with the grant from its level and the policy; the output is mapped for the model.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { grantFor, invokeTool, type RegisteredTool, registerFile } from '../../../src/agent/tools/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../../compiled-src.ts';
import { SHARED_CACHE, tempDir } from '../../helpers.ts';
import { dropTool, openPolicy } from './registry-helpers.ts';

describe('calling a tool', () => {
  let sandbox: Sandbox;
  const dir = tempDir('boxbot-tools-');
  const cache = tempDir('boxbot-toolcache-');
  const policy = openPolicy();
  before(() => {
    sandbox = createSandbox({
      workerFile: compiledSandboxWorker(),
      cacheDir: join(SHARED_CACHE, 'sandbox'),
      workers: 1,
    });
  });
  after(() => sandbox.close());

  async function load(name: string): Promise<RegisteredTool> {
    const { spec, blob } = await registerFile(sandbox, dropTool(dir, 'reg-multi', name), cache);
    return { spec, blob, source: 'extension' };
  }
  const call = async (name: string, input: unknown, over: Partial<typeof policy> = {}, maxChars?: number) => {
    const tool = await load(name);
    return invokeTool(
      sandbox,
      tool,
      input,
      grantFor(tool.spec.permissionLevel, tool.spec.network, { ...policy, ...over }),
      maxChars,
    );
  };

  test('the input reaches the tool as the argv the design describes', async () => {
    const r = await call('echo', {
      file_path: 'notes.txt',
      offset: 3,
      verbose: true,
      mode: null,
      tag: ['a', 'b'],
      pattern: ['x y', '-z'],
    });
    assert.equal(r.isError, false, r.content);
    assert.deepEqual(r.content.split('\n').filter(Boolean), [
      '--file-path',
      'notes.txt',
      '--offset',
      '3',
      '--tag',
      'a',
      '--tag',
      'b',
      '--verbose',
      '--',
      'x y',
      '-z',
    ]);
  });

  test('a bad input comes back as an error naming the field, and the tool does not run', async () => {
    const r = await call('echo', { offset: 'ten' });
    assert.equal(r.isError, true);
    assert.match(r.content, /^invalid input for echo: /);
    assert.match(r.content, /offset: expected an integer, got the string "ten"/);
    assert.match(r.content, /file_path: required field is missing/);
    assert.equal(r.metadata.exitCode, undefined, 'no run happened');
  });

  test('the JSON output convention: content, error flag and metadata', async () => {
    const ok = await call('jsonout', {});
    assert.deepEqual([ok.content, ok.isError, ok.metadata.count], ['found 2 files', false, 2]);
    const failed = await call('jsonout', { verbose: true });
    assert.equal(failed.isError, true);
  });

  test('Latin-1 output is decoded, not mangled', async () => {
    const r = await call('latin', {});
    assert.match(r.content, /Le café était très chaud, la crème brûlée était délicieuse/);
    assert.ok(!r.content.includes('\uFFFD'));
  });

  test('long output is cut with a note saying how much', async () => {
    const r = await call('echo', { file_path: 'x'.repeat(200) }, {}, 50);
    assert.match(r.content, /\n\n\[output truncated: \d+ of \d+ characters cut\]$/);
    assert.ok((r.metadata.truncatedChars as number) > 150);
  });

  test('a failing tool is an error result with its stderr', async () => {
    const r = await call('fail', {});
    assert.equal(r.isError, true);
    assert.match(r.content, /the tool exited with code 1/);
    assert.match(r.content, /stderr:\n[\s\S]*boom: the disk is on fire/);
  });

  test('a tool stopped by a limit is an error result naming the limit', async () => {
    const r = await call('spin', {}, { limits: { ...policy.limits, timeoutMs: 120_000, fuel: 200_000_000 } });
    assert.equal(r.isError, true);
    assert.match(r.content, /^the tool was stopped: fuel limit/);
  });
});
