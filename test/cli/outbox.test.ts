// `boxbot outbox failed` as a user runs it beside a running gateway: it lists the replies a platform
// refused for good, newest first, and never changes the delivery log the gateway owns.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createFileStore } from '../../src/store/index.ts';
import { boxbotArgv, root, tempDir } from '../helpers.ts';
import { reply } from '../store/delivery-fixtures.ts';

function boxbot(config: string, ...args: string[]) {
  return spawnSync(process.execPath, boxbotArgv([...args, '--config', config]), {
    encoding: 'utf8',
    cwd: root,
    env: { PATH: process.env.PATH ?? '' },
  });
}

test('boxbot outbox failed lists refused replies newest first and leaves the delivery log as it was', async () => {
  const dir = tempDir('boxbot-outbox-cli-');
  const config = join(dir, 'boxbot.config.json');
  writeFileSync(config, JSON.stringify({ dataDir: dir }));
  const store = createFileStore(dir);
  await store.delivery.putOutbox(reply('r1', 'telegram:42', ['Here is the report you asked for.']));
  await store.delivery.failOutbox('r1', 'Bad Request: chat not found');
  await store.delivery.putOutbox(reply('r2', 'slack:T1:C1', ['second']));
  await store.delivery.failOutbox('r2', 'channel_not_found');
  // A pending reply with a file copy: a second process must neither resume it nor sweep its copy.
  await store.delivery.putOutbox({
    ...reply('r3', 'telegram:42', ['with a file']),
    files: [{ name: 'a.txt', mimeType: 'text/plain', bytes: new TextEncoder().encode('x') }],
    fileReceipts: [null],
  });
  await store.close();
  const log = readFileSync(join(dir, 'delivery.log'), 'utf8');
  const copies = readdirSync(join(dir, 'outbox-files'));
  // A half-written last line, as a crash (or the gateway mid-append) leaves it: the reader must not repair it.
  writeFileSync(join(dir, 'delivery.log'), `${log}{"op":"rec`);

  const text = boxbot(config, 'outbox', 'failed');
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /^\S+ {2}slack:T1:C1 {2}channel_not_found\n {4}second\n\S+ {2}telegram:42 {2}Bad Request/);
  assert.match(text.stdout, /Here is the report you asked for\./);
  const json = boxbot(config, 'outbox', 'failed', '--format', 'json');
  assert.deepEqual(
    JSON.parse(json.stdout).failed.map((f: { id: string }) => f.id),
    ['r2', 'r1'],
  );
  assert.equal(readFileSync(join(dir, 'delivery.log'), 'utf8'), `${log}{"op":"rec`, 'the log is untouched');
  assert.deepEqual(readdirSync(join(dir, 'outbox-files')), copies, 'file copies are untouched');
  const bad = boxbot(config, 'outbox', 'failed', '--format', 'yaml');
  assert.equal(bad.status, 2);
  assert.equal(bad.stderr, 'boxbot: --format: expected text or json, got "yaml"\n');
});

test('a store opened read-only refuses a reply with files before writing any copy of them', async () => {
  const dir = tempDir('boxbot-outbox-ro-');
  const store = createFileStore(dir, { readOnly: true });
  await assert.rejects(
    store.delivery.putOutbox({
      ...reply('r1', 'telegram:42', ['x']),
      files: [{ name: 'a.txt', mimeType: 'text/plain', bytes: new TextEncoder().encode('x') }],
      fileReceipts: [null],
    }),
    /open read-only/,
  );
  await store.close();
  assert.deepEqual(existsSync(join(dir, 'outbox-files')) ? readdirSync(join(dir, 'outbox-files')) : [], []);
});
