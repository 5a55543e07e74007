// Poison input: a file whose reading ends the gateway process (here a fault hook aborts it inside
// the journaled work on the file) is tried again at the first restart, left out at the second,
// and the message is then answered once, with what remains and one line about the file left
// out; the operator sees it in /metrics. A fourth start finds nothing to do: no loop.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers.ts';

const CHILD = fileURLToPath(new URL('poison-child.ts', import.meta.url));

/** Runs the child gateway to its end: its exit signal and the lines it printed. */
function start(dir: string, send = false) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', CHILD, dir, ...(send ? ['send'] : [])], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { signal: r.signal, code: r.status, lines: r.stdout.split('\n').filter(Boolean), stderr: r.stderr };
}

test('a file the process died inside twice is left out at the next start, and the message answered once', () => {
  const dir = tempDir('boxbot-poison-');
  const first = start(dir, true);
  assert.equal(first.signal, 'SIGABRT', 'the fault hook ended the process inside the work on the file');
  assert.deepEqual(first.lines, []);
  const second = start(dir);
  assert.equal(second.signal, 'SIGABRT', 'the first restart tries the file again (one death may be bad luck)');
  const third = start(dir);
  assert.equal(third.code, 0, third.stderr);
  assert.deepEqual(third.lines, [
    JSON.stringify(
      'read these | notes.txt: nnnnnnnnnnnn | "poison.pdf" could not be read: the server stopped twice ' +
        'while reading it, so I left it out.',
    ),
    'idle 1',
  ]);
  const fourth = start(dir);
  assert.equal(fourth.code, 0, fourth.stderr);
  assert.deepEqual(fourth.lines, ['idle 0'], 'nothing is run again');
});
