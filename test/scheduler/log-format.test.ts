// A job's worker thread logs like the gateway that started it: human lines when the gateway's are
// (a terminal), JSON when they are JSON. The worker's own stderr is never a terminal, so it is told.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { root } from '../helpers.ts';

function runJob(pretty: boolean): string[] {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(root, 'test', 'scheduler', 'log-child.ts'), ...(pretty ? ['--pretty'] : [])],
    { cwd: root, encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  return r.stderr.split('\n').filter((l) => l.includes('tool registered'));
}

test("a job worker's log lines are human when the gateway's are, JSON when they are JSON", () => {
  const pretty = runJob(true);
  assert.ok(pretty.length > 0, 'the worker logged its tools');
  for (const line of pretty) assert.doesNotMatch(line, /^\{/, line);
  const json = runJob(false);
  assert.ok(json.length > 0);
  for (const line of json) assert.equal(JSON.parse(line).msg, 'tool registered');
});
