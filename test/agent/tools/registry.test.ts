// Hot reload: tools dropped into the watched folders become callable, replacements take over,
// removals disappear, a broken replacement never removes the working version, bursts of file
// events register once, and a call in flight finishes on the version it started with.
// Every wait is for a registry event, never for a time.
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  createToolRegistry,
  grantFor,
  invokeTool,
  type RegisteredTool,
  type RegistryEvent,
  type ToolRegistry,
} from '../../../src/agent/tools/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../../compiled-src.ts';
import { guest, SHARED_CACHE, tempDir, waitUntil } from '../../helpers.ts';
import { dropTool, nextEvent, openPolicy } from './registry-helpers.ts';

describe('tool registry: hot reload', () => {
  let sandbox: Sandbox;
  let registry: ToolRegistry;
  const bundled = tempDir('boxbot-bundled-');
  const extensions = tempDir('boxbot-ext-');
  const events: RegistryEvent[] = [];
  const policy = openPolicy();
  const call = (tool: RegisteredTool, input: unknown = {}) =>
    invokeTool(sandbox, tool, input, grantFor(tool.spec.permissionLevel, tool.spec.network, policy));

  before(async () => {
    // Two workers: a call held open by the test must not block registering the replacement.
    sandbox = createSandbox({
      workerFile: compiledSandboxWorker(),
      cacheDir: join(SHARED_CACHE, 'sandbox'),
      workers: 2,
    });
    dropTool(bundled, 'reg-v1', 'shadowed');
    mkdirSync(join(bundled, 'components'));
    writeFileSync(join(bundled, 'components', 'shared.wasm'), readFileSync(guest('reg-v1')));
    symlinkSync(join('components', 'shared.wasm'), join(bundled, 'linked.wasm'));
    dropTool(extensions, 'reg-v2', 'shadowed');
    registry = createToolRegistry({
      sandbox,
      cacheDir: tempDir('boxbot-toolcache-'),
      dirs: [
        { path: bundled, source: 'bundled' },
        { path: extensions, source: 'extension' },
      ],
    });
    registry.onChange((e) => events.push(e));
    await registry.start();
  });
  after(async () => {
    await registry.close();
    await sandbox.close();
  });

  test('start registers both folders; an extension overrides the bundled tool of the same name', () => {
    assert.deepEqual(
      registry.list().map((t) => [t.spec.name, t.source]),
      [
        ['linked', 'bundled'],
        ['shadowed', 'extension'],
      ],
    );
    assert.equal(registry.get('shadowed')?.spec.version, '2.0.0');
  });

  test('a dropped file becomes callable', async () => {
    const added = nextEvent(registry, (e) => e.name === 'hot' && e.type === 'added');
    dropTool(extensions, 'reg-v1', 'hot');
    await added;
    const tool = registry.get('hot');
    assert.equal(tool?.spec.version, '1.0.0');
    assert.equal(tool?.source, 'extension');
    const r = await call(tool!);
    assert.equal(r.isError, false, r.content);
    assert.match(r.content, /^hot 1\.0\.0/);
  });

  test('a replaced file takes over', async () => {
    const updated = nextEvent(registry, (e) => e.name === 'hot' && e.type === 'updated');
    dropTool(extensions, 'reg-v2', 'hot');
    await updated;
    assert.equal(registry.get('hot')?.spec.version, '2.0.0');
    assert.match((await call(registry.get('hot')!)).content, /^hot 2\.0\.0/);
  });

  test('a broken replacement is refused with the reason and the working version stays', async () => {
    const refused = nextEvent(registry, (e) => e.name === 'hot' && e.type === 'refused');
    writeFileSync(join(extensions, 'hot.wasm'), 'garbage, not a component');
    const e = await refused;
    assert.match(e.message!, /hot\.wasm refused: it is not a usable WASI tool/);
    assert.match(e.message!, /the previous version stays registered/);
    assert.equal(registry.get('hot')?.spec.version, '2.0.0');
    assert.match((await call(registry.get('hot')!)).content, /^hot 2\.0\.0/, 'it still runs from its snapshot');
    assert.deepEqual(
      registry.problems().map((p) => p.file),
      [join(extensions, 'hot.wasm')],
    );
  });

  const toolWhoseHelpTitle =
    'a tool whose help exhausts its memory (ten tables grown to failure) is refused with the reason; the rest carry on';
  test(toolWhoseHelpTitle, async () => {
    const refused = nextEvent(registry, (e) => e.name === 'bomb' && e.type === 'refused');
    dropTool(extensions, 'tablebomb', 'bomb');
    const e = await refused;
    assert.match(e.message!, /bomb\.wasm refused: .*memory limit/);
    assert.equal(registry.get('bomb'), undefined);
    assert.match((await call(registry.get('hot')!)).content, /^hot 2\.0\.0/, 'other tools still run');
    const added = nextEvent(registry, (e) => e.name === 'after-bomb' && e.type === 'added');
    dropTool(extensions, 'reg-v1', 'after-bomb');
    await added;
    const gone = nextEvent(registry, (e) => e.name === 'after-bomb' && e.type === 'removed');
    unlinkSync(join(extensions, 'bomb.wasm'));
    unlinkSync(join(extensions, 'after-bomb.wasm'));
    await gone;
    await waitUntil(
      () => !registry.problems().some((p) => p.file.endsWith('bomb.wasm')),
      'the refusal to go with its file',
      10_000,
    );
  });

  test('a removed file disappears (and its refusal with it)', async () => {
    const removed = nextEvent(registry, (e) => e.name === 'hot' && e.type === 'removed');
    unlinkSync(join(extensions, 'hot.wasm'));
    await removed;
    assert.equal(registry.get('hot'), undefined);
    assert.deepEqual(registry.problems(), []);
  });

  test('a burst of file events registers a tool once', async () => {
    const before = events.length;
    const added = nextEvent(registry, (e) => e.name === 'burst' && e.type === 'added');
    const bytes = readFileSync(guest('reg-v1'));
    const path = join(extensions, 'burst.wasm');
    // Written in 64 appends, then rewritten whole five times: dozens of events in one go.
    writeFileSync(path, '');
    for (let at = 0; at < bytes.length; at += Math.ceil(bytes.length / 64))
      appendFileSync(path, bytes.subarray(at, at + Math.ceil(bytes.length / 64)));
    for (let i = 0; i < 5; i++) writeFileSync(path, bytes);
    await added;
    await registry.settled();
    const mine = events.slice(before).filter((e) => e.name === 'burst');
    assert.deepEqual(
      mine.map((e) => e.type),
      ['added'],
    );
    assert.equal(registry.list().filter((t) => t.spec.name === 'burst').length, 1);
  });

  test('a rebuilt component behind a bundled link is picked up', async () => {
    const updated = nextEvent(registry, (e) => e.name === 'linked' && e.type === 'updated');
    const tmp = join(bundled, 'components', '.shared.tmp');
    writeFileSync(tmp, readFileSync(guest('reg-v2')));
    renameSync(tmp, join(bundled, 'components', 'shared.wasm'));
    await updated;
    assert.equal(registry.get('linked')?.spec.version, '2.0.0');
  });

  test('a call in flight during a replace finishes on the version it started with', async () => {
    let hold: ServerResponse | undefined;
    let requested!: () => void;
    const arrived = new Promise<void>((r) => (requested = r));
    const server = createServer((_req, res) => {
      hold = res;
      requested();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const added = nextEvent(registry, (e) => e.name === 'live' && e.type === 'added');
      dropTool(extensions, 'reg-net', 'live');
      await added;
      const v1 = registry.get('live')!;
      assert.equal(v1.spec.version, '1.0.0');
      const inFlight = call(v1, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` });
      await arrived; // the v1 call is now waiting for its response
      const updated = nextEvent(registry, (e) => e.name === 'live' && e.type === 'updated');
      dropTool(extensions, 'reg-v2', 'live');
      await updated;
      assert.equal(registry.get('live')?.spec.version, '2.0.0', 'new calls get the new version');
      hold!.end('released');
      const r = await inFlight;
      assert.equal(r.isError, false, r.content);
      assert.equal(r.content.trim(), 'v1: released');
    } finally {
      server.close();
    }
  });
});
