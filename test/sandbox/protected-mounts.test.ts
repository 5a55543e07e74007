// A tool must never be given boxbot's own files: a mount that contains the data dir, the
// compile cache (whose glue the workers import as code) or, read-write, the config file or
// boxbot's own code, or that lies inside the data dir outside its workspaces, is refused naming
// the path.
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSandbox, type Sandbox, SandboxError } from '../../src/sandbox/index.ts';
import { packageCodePaths } from '../../src/sandbox/protected-paths.ts';
import { compiledSandboxWorker } from '../compiled-src.ts';
import { grant, guest, root, tempDir } from '../helpers.ts';

describe('sandbox: mounts never reach the data dir, the cache or the config', () => {
  const project = tempDir('boxbot-project-');
  const data = join(project, 'data');
  const cache = join(data, 'cache', 'sandbox');
  const config = join(project, 'boxbot.config.json');
  const workspace = join(data, 'workspaces', 'web_abc');
  let sandbox: Sandbox;

  before(() => {
    mkdirSync(workspace, { recursive: true });
    mkdirSync(join(data, 'extensions', 'tools'), { recursive: true });
    writeFileSync(config, '{}');
    sandbox = createSandbox({
      workerFile: compiledSandboxWorker(),
      cacheDir: cache,
      workers: 1,
      protect: { dirs: [data], noWrite: [config], mountableInside: [join(data, 'workspaces')] },
    });
  });
  after(() => sandbox.close());

  async function refused(host: string, readOnly: boolean, named: string): Promise<void> {
    await assert.rejects(
      sandbox.run(guest('exit42'), grant({ mounts: [{ host, guest: '/', readOnly }] })),
      (e: unknown) => {
        assert.ok(e instanceof SandboxError, String(e));
        assert.equal(e.code, 'bad-grant');
        assert.ok(e.message.includes(named), `${e.message} should name ${named}`);
        return true;
      },
    );
  }

  it('refuses a writable mount of the folder holding the data dir (the reported attack)', async () => {
    await refused(project, false, data);
  });

  it('refuses the data dir itself, the cache, and folders inside the data dir, read-only too', async () => {
    await refused(data, true, data);
    await refused(join(data, 'cache'), true, data);
    await refused(join(data, 'extensions', 'tools'), false, data);
  });

  it('refuses a symlink that leads to the data dir', async () => {
    const link = join(tempDir('boxbot-link-'), 'innocent');
    symlinkSync(data, link);
    await refused(link, false, data);
  });

  it('refuses a writable mount holding the config file; read-only is allowed', async () => {
    const other = tempDir('boxbot-cfg-');
    const cfgOnly = createSandbox({
      workerFile: compiledSandboxWorker(),
      cacheDir: join(tempDir('boxbot-c-'), 'cache'),
      workers: 1,
      protect: { noWrite: [join(other, 'boxbot.config.json')] },
    });
    try {
      writeFileSync(join(other, 'boxbot.config.json'), '{}');
      await assert.rejects(
        cfgOnly.run(guest('exit42'), grant({ mounts: [{ host: other, guest: '/', readOnly: false }] })),
        /boxbot\.config\.json, which no tool may write/,
      );
      const r = await cfgOnly.run(guest('exit42'), grant({ mounts: [{ host: other, guest: '/', readOnly: true }] }));
      assert.equal(r.exitCode, 42);
    } finally {
      await cfgOnly.close();
    }
  });

  it("refuses a writable mount holding or inside boxbot's own code; read-only is allowed", async () => {
    await refused(root, false, 'which no tool may write');
    // Named as resolved: a checkout whose node_modules is a link (a git worktree) is refused by the real folder.
    await refused(join(root, 'node_modules', 'tsx'), false, realpathSync(join(root, 'node_modules')));
    const r = await sandbox.run(
      guest('exit42'),
      grant({ mounts: [{ host: join(root, 'test'), guest: '/', readOnly: false }] }),
    );
    assert.equal(r.exitCode, 42, 'a folder of the package that holds no code the host runs stays mountable');
    const ro = await sandbox.run(guest('exit42'), grant({ mounts: [{ host: root, guest: '/', readOnly: true }] }));
    assert.equal(ro.exitCode, 42);
  });

  it('counts the node_modules boxbot was installed into as its code', () => {
    assert.ok(packageCodePaths('/proj/node_modules/boxbot').includes('/proj/node_modules'));
    assert.ok(packageCodePaths('/proj/node_modules/@acme/boxbot').includes('/proj/node_modules'));
    assert.ok(!packageCodePaths('/src/boxbot').includes('/src'));
  });

  it('still mounts a conversation workspace inside the data dir', async () => {
    const r = await sandbox.run(guest('exit42'), grant({ mounts: [{ host: workspace, guest: '/', readOnly: false }] }));
    assert.equal(r.exitCode, 42);
  });
});
