// Applying an executor's patch is all or nothing across a crash: a child process applying a three-file patch is
// killed mid-way; the next start (recoverPatchJournals) finishes a plan past its commit point and drops one that
// was still being staged, and leaves alone a journal whose writer is alive.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { journalRoot, recoverPatchJournals } from '../../../src/agent/managed/patch-journal.ts';
import { compiledChild } from '../../compiled-src.ts';
import { tempDir, waitUntil } from '../../helpers.ts';

// Compiled with src/ (test/compiled-src.ts): each of its runs skips registering tsx.
const CHILD = compiledChild(fileURLToPath(new URL('./patch-crash-child.ts', import.meta.url)));

/** A workspace (a.md, c.md) and a copy where an executor changed a.md, added b/new.md and removed c.md. */
function fixture(): { workspace: string; copy: string } {
  const root = tempDir('boxbot-patch-crash-');
  const workspace = join(root, 'workspaces', 'telegram%3A42');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, 'a.md'), 'old a\n');
  writeFileSync(join(workspace, 'c.md'), 'c\n');
  const copy = join(root, 'copy');
  cpSync(workspace, copy, { recursive: true });
  writeFileSync(join(copy, 'a.md'), 'new a\n');
  mkdirSync(join(copy, 'b'));
  writeFileSync(join(copy, 'b', 'new.md'), 'new b\n');
  rmSync(join(copy, 'c.md'));
  return { workspace, copy };
}

/** The workspace's regular files and their contents. */
const files = (workspace: string) =>
  Object.fromEntries(
    (readdirSync(workspace, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
      .filter((e) => e.isFile())
      .map((e) => {
        const full = join(e.parentPath, e.name);
        return [full.slice(workspace.length + 1), readFileSync(full, 'utf8')];
      }),
  );

const BEFORE = { 'a.md': 'old a\n', 'c.md': 'c\n' };
const AFTER = { 'a.md': 'new a\n', 'b/new.md': 'new b\n' };

function crash(workspace: string, copy: string, when: string): void {
  const r = spawnSync(process.execPath, [CHILD, workspace, copy, when], { encoding: 'utf8' });
  assert.equal(r.signal, 'SIGKILL', `the child was killed at ${when}: ${r.stderr}`);
}

test('killed after the first of three steps, the next start finishes the patch', async () => {
  const { workspace, copy } = fixture();
  crash(workspace, copy, '0');
  assert.deepEqual(files(workspace), { 'a.md': 'new a\n', 'c.md': 'c\n' }, 'the crash left the patch half done');
  const report = await recoverPatchJournals(dirname(workspace));
  assert.deepEqual(report, { rolledForward: [workspace], rolledBack: [], failed: [] });
  assert.deepEqual(files(workspace), AFTER);
  assert.deepEqual(readdirSync(journalRoot(workspace)), [], 'the journal is gone');
  // Finishing is done once: a second start finds nothing to do.
  assert.deepEqual(await recoverPatchJournals(dirname(workspace)), { rolledForward: [], rolledBack: [], failed: [] });
});

test('killed while staging (before the commit point), the workspace is untouched and the journal dropped', async () => {
  const { workspace, copy } = fixture();
  crash(workspace, copy, 'commit');
  assert.equal(readdirSync(journalRoot(workspace)).length, 1, 'a journal was left');
  const report = await recoverPatchJournals(dirname(workspace));
  assert.equal(report.rolledBack.length, 1);
  assert.deepEqual(report.rolledForward, []);
  assert.deepEqual(files(workspace), BEFORE);
  assert.deepEqual(readdirSync(journalRoot(workspace)), []);
});

test('a journal whose writer is still running is left alone', async (t) => {
  const { workspace, copy } = fixture();
  const child = spawn(process.execPath, [CHILD, workspace, copy, 'wait'], { stdio: 'pipe' });
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString('utf8');
  });
  await waitUntil(() => out.includes('staged'), 'the child to stage its patch', 60_000);
  assert.deepEqual(await recoverPatchJournals(dirname(workspace)), { rolledForward: [], rolledBack: [], failed: [] });
  assert.equal(readdirSync(journalRoot(workspace)).length, 1, 'the live writer’s journal is kept');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  assert.equal((await recoverPatchJournals(dirname(workspace))).rolledBack.length, 1, 'dropped once its writer died');
  assert.deepEqual(files(workspace), BEFORE);
});

test('without a crash the patch applies whole and leaves no journal', () => {
  const { workspace, copy } = fixture();
  const r = spawnSync(process.execPath, [CHILD, workspace, copy, 'never'], { encoding: 'utf8' });
  assert.equal(r.stdout, 'applied\n', r.stderr);
  assert.deepEqual(files(workspace), AFTER);
  assert.deepEqual(readdirSync(journalRoot(workspace)), []);
});
