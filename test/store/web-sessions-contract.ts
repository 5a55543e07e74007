// The web sign-in part of the store contract: every backend runs it (file-store.test.ts,
// memory-store.test.ts, postgres-store.test.ts). A login is used once, by one of concurrent
// redeemers, never after it expires; sessions are found by their secret's hash, listed newest
// first, revoked one by one or per identity, and survive a restart.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { StoreError } from '../../src/store/index.ts';
import type { StoreHarness } from './contract.ts';
import { harnessCases } from './harness-test.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** Runs the web sign-in contract against `makeHarness`'s backend. */
export function webSessionsContract(backend: string, makeHarness: () => Promise<StoreHarness>): void {
  const it = harnessCases(backend, 'web sessions', makeHarness);
  const t0 = Date.UTC(2026, 0, 1);

  it('a login is redeemed once, by one of concurrent callers, and never after it expires', async (h) => {
    let now = t0;
    const s = h.open({ now: () => now });
    const login = { identity: 'telegram:4242', createdAt: now, expiresAt: now + 600_000 };
    await s.webSessions.addLogin({ ...login, tokenHash: sha('one') });
    await s.webSessions.addLogin({ ...login, tokenHash: sha('two'), identity: 'slack:T1:U2' });
    await s.webSessions.addLogin({ ...login, tokenHash: sha('late') });
    const wins = await Promise.all([1, 2, 3, 4].map(() => s.webSessions.redeemLogin(sha('one'))));
    assert.equal(wins.filter(Boolean).length, 1, 'one of four concurrent redeemers wins');
    assert.equal(wins.find(Boolean)?.identity, 'telegram:4242');
    assert.equal(await s.webSessions.redeemLogin(sha('one')), undefined, 'used up');
    assert.equal(await s.webSessions.redeemLogin(sha('forged')), undefined, 'unknown');
    assert.equal(await s.webSessions.redeemLogin('not-a-hash'), undefined, 'malformed');
    await s.close();
    const again = h.open({ now: () => now });
    assert.equal((await again.webSessions.redeemLogin(sha('two')))?.identity, 'slack:T1:U2', 'kept across a restart');
    now += 600_001;
    assert.equal(await again.webSessions.redeemLogin(sha('late')), undefined, 'expired');
    await again.close();
  });

  it('sessions are found by their secret, listed newest first, and revoked', async (h) => {
    let now = t0;
    const s = h.open({ now: () => now });
    const day = 24 * 3600_000;
    const make = (id: string, identity: string, at: number) => ({
      id,
      secretHash: sha(`secret-${id}`),
      identity,
      createdAt: at,
      expiresAt: at + 30 * day,
      userAgent: `agent ${id} ${'x'.repeat(300)}`,
    });
    await s.webSessions.createSession(make('sess-aaaa', 'telegram:4242', t0));
    await s.webSessions.createSession(make('sess-bbbb', 'web:ana', t0 + 1000));
    await s.webSessions.createSession(make('sess-cccc', 'telegram:4242', t0 + 2000));
    const found = await s.webSessions.sessionBySecret(sha('secret-sess-bbbb'));
    assert.equal(found?.identity, 'web:ana');
    assert.equal(found?.userAgent?.length, 200, 'the User-Agent is capped');
    assert.equal(await s.webSessions.sessionBySecret(sha('secret-nope')), undefined);
    assert.deepEqual(
      (await s.webSessions.listSessions()).map((x) => x.id),
      ['sess-cccc', 'sess-bbbb', 'sess-aaaa'],
    );
    assert.deepEqual(
      (await s.webSessions.listSessions('telegram:4242')).map((x) => x.id),
      ['sess-cccc', 'sess-aaaa'],
    );
    assert.equal(await s.webSessions.revokeSession('sess-aaaa'), true);
    assert.equal(await s.webSessions.revokeSession('sess-aaaa'), false, 'already ended');
    assert.equal(await s.webSessions.sessionBySecret(sha('secret-sess-aaaa')), undefined);
    await s.close();
    const again = h.open({ now: () => now });
    assert.equal(await again.webSessions.revokeIdentity('web:ana'), 1);
    assert.deepEqual(
      (await again.webSessions.listSessions()).map((x) => x.id),
      ['sess-cccc'],
      'kept across a restart',
    );
    now += 30 * day + 2001;
    assert.equal(await again.webSessions.sessionBySecret(sha('secret-sess-cccc')), undefined, 'expired');
    assert.deepEqual(await again.webSessions.listSessions(), []);
    await again.close();
  });

  it('refuses a malformed identity or hash, naming it', async (h) => {
    const s = h.open();
    const base = { tokenHash: sha('x'), identity: 'telegram:4242', createdAt: t0, expiresAt: t0 + 1 };
    await assert.rejects(
      s.webSessions.addLogin({ ...base, identity: 'mastodon:1' }),
      (e: unknown) => e instanceof StoreError && /invalid web identity.*unknown platform/.test(e.message),
    );
    await assert.rejects(
      s.webSessions.addLogin({ ...base, tokenHash: 'plain-token' }),
      (e: unknown) => e instanceof StoreError && /SHA-256/.test(e.message),
    );
    await s.close();
  });
}
