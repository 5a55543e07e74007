// What a failed fetch's error says about its cause: the system code, never the URL.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { fetchFailureCode } from '../src/core/errors.ts';

test('a refused connection is named by its code, and the URL with its token is not in it', async () => {
  // A port that was just free: nothing listens on it.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const err = await fetch(`http://127.0.0.1:${port}/bot123:SECRET/getMe`).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.equal(fetchFailureCode(err), 'ECONNREFUSED');
});

test('anything that is not a fetch failure has no code', () => {
  for (const e of [new Error('plain'), 'text', undefined, null, { cause: { code: 42 } }])
    assert.equal(fetchFailureCode(e), undefined);
});
