// `boxbot start` on PostgreSQL (BOXBOT_DATABASE_URL) against a real server: a web chat question
// is answered, the conversation is in the database across a restart, and no file store is used.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openPostgresStore } from '../../src/store/postgres/index.ts';
import { llm } from '../emulators/llm/index.ts';
import { waitUntil } from '../helpers.ts';
import { type PostgresServer, startPostgres } from '../store/postgres-server.ts';
import { bootBoxbot } from './boot.ts';
import { until, WebChatClient } from './harness.ts';

const started = await startPostgres();
const server: PostgresServer | undefined = 'missing' in started ? undefined : started;
const skip = 'missing' in started ? `PostgreSQL tests skipped: ${started.missing}` : false;
if (skip) console.log(`# ${skip}`);
after(() => server?.stop());

test('start on PostgreSQL: answered, and the history survives a restart', { skip }, async () => {
  const url = await (server as PostgresServer).database();
  const app = await bootBoxbot({}, { BOXBOT_DATABASE_URL: url });
  try {
    app.llm.script([llm.say('first answer'), llm.say('second answer')]);
    const chat = await WebChatClient.open(app.app.url);
    await chat.say('remember the word teal');
    await until(() => chat.messages().includes('first answer'), 'the first answer');
    chat.close();
    assert.ok(
      app.logs.some((l) => l.msg === 'store open' && String(l.store).startsWith('PostgreSQL at postgres://')),
      'the start says where the state is',
    );
    assert.equal(JSON.stringify(app.logs).includes(url), false, 'the URL with its password is never logged');

    const store = await openPostgresStore(url);
    // The page shows the answer as it streams, before the turn is saved: a restart before the
    // save would run the message again instead.
    await waitUntil(async () => (await store.conversations.keys()).length > 0, 'the turn saved', 20_000);
    await app.restart();
    const [key] = await store.conversations.keys();
    const kept = await store.conversations.get(key as string);
    await store.close();
    assert.equal(key, `web:${chat.session}`);
    assert.deepEqual(
      kept?.messages.map((m) => m.role),
      ['user', 'assistant'],
      'the conversation is in the database after the restart',
    );
    const again = await WebChatClient.open(app.app.url);
    await again.say('still there?');
    await until(() => again.messages().includes('second answer'), 'an answer after the restart');
    again.close();
    assert.equal(existsSync(join(app.dataDir, 'delivery.log')), false, 'no file store was used');
  } finally {
    await app.close();
  }
});

test('a second replica whose workspaces folder is not the shared one is refused at start', { skip }, async () => {
  const url = await (server as PostgresServer).database();
  const first = await bootBoxbot({}, { BOXBOT_DATABASE_URL: url });
  try {
    await assert.rejects(bootBoxbot({}, { BOXBOT_DATABASE_URL: url }), /not the workspaces folder the other replicas/);
  } finally {
    await first.close();
  }
});
