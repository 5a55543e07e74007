// `boxbot web invite NAME` and `boxbot web revoke NAME` as an admin runs them: the invite prints a
// link under http.publicUrl that signs in as web:NAME once; revoke ends that name's sessions only.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createFileStore } from '../../src/store/index.ts';
import { boxbotArgv, root, tempDir } from '../helpers.ts';

function boxbot(config: string, ...args: string[]) {
  return spawnSync(process.execPath, boxbotArgv([...args, '--config', config]), {
    encoding: 'utf8',
    cwd: root,
    env: { PATH: process.env.PATH ?? '' },
  });
}
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

test('boxbot web invite prints a one-time link for web:NAME; revoke ends only its sessions', async () => {
  const dir = tempDir('boxbot-web-cli-');
  const config = join(dir, 'boxbot.config.json');
  writeFileSync(config, JSON.stringify({ dataDir: dir, http: { publicUrl: 'https://bot.example.com/' } }));
  const invited = boxbot(config, 'web', 'invite', 'ana');
  assert.equal(invited.status, 0, invited.stderr);
  const token = /^https:\/\/bot\.example\.com\/login\/([A-Za-z0-9_-]{43})$/m.exec(invited.stdout)?.[1];
  assert.ok(token, invited.stdout);
  assert.match(invited.stdout, /signs one browser in as web:ana, once/);

  const store = createFileStore(dir);
  assert.equal((await store.webSessions.redeemLogin(sha(token)))?.identity, 'web:ana');
  const session = (id: string, identity: string) => ({
    id,
    secretHash: sha(id),
    identity,
    createdAt: Date.now(),
    expiresAt: Date.now() + 3600_000,
  });
  await store.webSessions.createSession(session('sess-ana-1', 'web:ana'));
  await store.webSessions.createSession(session('sess-bob-1', 'web:bob'));
  await store.close();

  const revoked = boxbot(config, 'web', 'revoke', 'ana');
  assert.equal(revoked.status, 0, revoked.stderr);
  assert.match(revoked.stdout, /web:ana: 1 session ended/);
  const after = createFileStore(dir);
  assert.deepEqual(
    (await after.webSessions.listSessions()).map((s) => s.identity),
    ['web:bob'],
  );
  await after.close();

  const bad = boxbot(config, 'web', 'invite', 'ana smith');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /web user name "ana smith": expected 1-64 letters/);
});
