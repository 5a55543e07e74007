// The admin API's read-outs over a real (in-memory) store.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import express from 'express';
import { createAdminApi } from '../../src/gateway/admin-api.ts';
import { createMemoryStore } from '../../src/store/index.ts';
import { reply } from '../store/delivery-fixtures.ts';

test('GET /admin/api/outbox/failed lists the replies a platform refused, newest first, with its words', async (t) => {
  const store = createMemoryStore();
  await store.delivery.putOutbox(reply('r1', 'telegram:42', ['first']));
  await store.delivery.failOutbox('r1', 'Bad Request: chat not found');
  await store.delivery.putOutbox(reply('r2', 'telegram:42', ['still pending']));
  const app = express();
  app.use(
    '/admin/api',
    createAdminApi({
      store,
      tools: () => ({ tools: [], problems: [] }),
      skills: () => ({ skills: [], problems: [] }),
    }),
  );
  const server: Server = await new Promise((r) => {
    const s = app.listen(0, '127.0.0.1', () => r(s));
  });
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/admin/api/outbox/failed`);
  assert.equal(res.status, 200);
  const { failed } = (await res.json()) as { failed: { id: string; text: string; error: string }[] };
  assert.deepEqual(
    failed.map((f) => [f.id, f.text, f.error]),
    [['r1', 'first', 'Bad Request: chat not found']],
  );
});
