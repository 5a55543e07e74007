// readWorkspaceFile: how the host reads a file a tool could have placed (AGENTS.md, skills).
// Only a regular file below the root, reached without leaving it, within the size cap: a
// symlink out (to a secret, to /proc/self/environ), a symlinked directory, a FIFO (which would
// hang a plain read), a device or an oversized file is refused with a reason, content unread.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readWorkspaceFile, type WorkspaceRead } from '../../src/sandbox/index.ts';
import { tempDir } from '../helpers.ts';

const text = (r: WorkspaceRead): string => (r.ok ? new TextDecoder().decode(r.bytes) : `refused: ${r.reason}`);

describe('readWorkspaceFile', () => {
  const ws = tempDir('boxbot-ws-');
  const outside = tempDir('boxbot-outside-');
  writeFileSync(join(outside, 'secret.env'), 'ANTHROPIC_API_KEY=sk-ant-secret\n');
  mkdirSync(join(outside, 'dir'));
  writeFileSync(join(outside, 'dir', 'AGENTS.md'), 'SECRET FROM OUTSIDE\n');
  mkdirSync(join(ws, 'docs'));
  writeFileSync(join(ws, 'docs', 'real.md'), 'hello\n');

  it('reads a regular file below the root, also through a symlink that stays inside', () => {
    symlinkSync('docs/real.md', join(ws, 'inside-link.md'));
    assert.equal(text(readWorkspaceFile(ws, 'docs/real.md', { maxBytes: 100 })), 'hello\n');
    assert.equal(text(readWorkspaceFile(ws, 'inside-link.md', { maxBytes: 100 })), 'hello\n');
  });

  it('says "missing" for a file that is not there', () => {
    const r = readWorkspaceFile(ws, 'nope.md', { maxBytes: 100 });
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.missing, true);
  });

  it('refuses a symlink to a file outside, and to /proc/self/environ', () => {
    symlinkSync(join(outside, 'secret.env'), join(ws, 'abs.md'));
    symlinkSync(`../${outside.split('/').pop()}/secret.env`, join(ws, 'rel.md'));
    symlinkSync('/proc/self/environ', join(ws, 'environ.md'));
    for (const name of ['abs.md', 'rel.md', 'environ.md']) {
      const r = readWorkspaceFile(ws, name, { maxBytes: 1 << 20 });
      assert.equal(r.ok, false, `${name} was read: ${text(r)}`);
      assert.match(text(r), /outside the folder/);
    }
  });

  it('refuses a path through a symlinked directory leading outside', () => {
    symlinkSync(join(outside, 'dir'), join(ws, 'linked'));
    const r = readWorkspaceFile(ws, 'linked/AGENTS.md', { maxBytes: 100 });
    assert.equal(r.ok, false, text(r));
    assert.match(text(r), /outside the folder/);
  });

  it('refuses a FIFO without blocking on it', () => {
    execFileSync('mkfifo', [join(ws, 'fifo.md')]);
    const r = readWorkspaceFile(ws, 'fifo.md', { maxBytes: 100 });
    assert.equal(r.ok, false);
    assert.match(text(r), /not a regular file \(a FIFO\)/);
  });

  it('refuses a device', () => {
    const r = readWorkspaceFile('/dev', 'zero', { maxBytes: 100 });
    assert.equal(r.ok, false);
    assert.match(text(r), /not a regular file \(a device\)/);
  });

  it('refuses a file over the cap before reading it', () => {
    writeFileSync(join(ws, 'big.md'), 'x'.repeat(101));
    const r = readWorkspaceFile(ws, 'big.md', { maxBytes: 100 });
    assert.equal(r.ok, false);
    assert.match(text(r), /101 bytes; the limit is 100/);
  });
});
