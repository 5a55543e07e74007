// `boxbot job add --webhook` as a user runs it (the CLI in a child process): a job a signed POST
// starts, shown with its URL by `job list`; a missing --secret-env, a cron given too and a hook
// another job has are refused naming the flag. (Beside cli-job.test.ts, whose file is long already.)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { boxbotArgv, root } from '../helpers.ts';
import { dataDir } from './helpers.ts';

const dir = dataDir();
const config = join(dir, 'boxbot.config.json');
writeFileSync(config, JSON.stringify({ dataDir: dir, model: 'openai/gpt-4o-mini' }));

/**
 * Runs the CLI in a child process, as bin/boxbot.js does: from the bundle of the current sources
 * (boxbotArgv), not src/cli/main.ts through tsx, which took several times the CPU per start.
 */
function boxbot(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, boxbotArgv([...args, '--config', config]), {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', TELEGRAM_BOT_TOKEN: '123:test', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

test('job add --webhook makes a job a signed POST starts; list shows its URL, never a secret', async () => {
  const add = ['--name', 'pushes', '--prompt', 'Tell the channel: {{event}}', '--target', 'telegram:-100123'];
  const [added, noSecretEnv, both] = await Promise.all([
    boxbot(['job', 'add', ...add, '--webhook', 'github-push', '--secret-env', 'GITHUB_WEBHOOK_SECRET'], {
      GITHUB_WEBHOOK_SECRET: 'not-shown-secret-123',
    }),
    boxbot(['job', 'add', ...add, '--webhook', 'github-push']),
    boxbot(['job', 'add', ...add, '--webhook', 'x', '--secret-env', 'X_SECRET', '--cron', '0 9 * * *']),
  ]);
  assert.equal(noSecretEnv.code, 2);
  assert.match(noSecretEnv.stderr, /^boxbot: --webhook: give --secret-env <variable>/);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /^boxbot: --webhook: a job has a cron or a webhook trigger, not both/);
  assert.equal(added.code, 0, added.stderr);
  const jobId =
    /^added job (pushes-[0-9a-f]{6}) \(started by POST (\S+), signed with the secret in GITHUB_WEBHOOK_SECRET\)/.exec(
      added.stdout,
    );
  assert.ok(jobId, added.stdout);
  assert.equal(jobId[2], 'http://127.0.0.1:8787/hooks/github-push');
  const list = await boxbot(['job', 'list']);
  assert.match(
    list.stdout,
    new RegExp(`^${jobId[1]}\\s+pushes\\s+POST http://127\\.0\\.0\\.1:8787/hooks/github-push\\s`, 'm'),
  );
  const json = await boxbot(['job', 'list', '--format', 'json'], { GITHUB_WEBHOOK_SECRET: 'not-shown-secret-123' });
  const [job] = JSON.parse(json.stdout) as Record<string, unknown>[];
  assert.deepEqual(job?.trigger, { webhook: 'github-push', secretEnv: 'GITHUB_WEBHOOK_SECRET' });
  assert.equal(job?.url, 'http://127.0.0.1:8787/hooks/github-push');
  assert.equal(job?.cron, undefined);
  assert.equal(json.stdout.includes('not-shown-secret-123'), false);
  // A second job cannot take the same hook.
  const taken = await boxbot(['job', 'add', ...add, '--webhook', 'github-push', '--secret-env', 'OTHER_SECRET']);
  assert.equal(taken.code, 2);
  assert.match(taken.stderr, /^boxbot: --webhook: the hook "github-push" already starts job pushes-/);
  assert.equal((await boxbot(['job', 'remove', jobId[1]!])).code, 0);
});
