// The web chat display part of the store contract: every backend runs it (file-store.test.ts,
// memory-store.test.ts, postgres-store.test.ts). What a session showed is read back as written,
// after a restart too; concurrent changes to one session all land; a bad session id or a bad
// event is refused and writes nothing; the record keeps the newest events within its cap.
import assert from 'node:assert/strict';
import { MAX_SHOWN_EVENTS, type ShownEvent, StoreError } from '../../src/store/index.ts';
import type { StoreHarness } from './contract.ts';
import { harnessCases } from './harness-test.ts';

/** Runs the web display contract against `makeHarness`'s backend. */
export function webDisplayContract(backend: string, makeHarness: () => Promise<StoreHarness>): void {
  const it = harnessCases(backend, 'web display', makeHarness);
  const S = 'f00dcafe-tab0123456789';
  const push =
    (...added: ShownEvent[]) =>
    (cur: ShownEvent[]) => [...cur, ...added];

  it('what a session showed reads back as written, in order, after a restart too', async (h) => {
    const s = h.open();
    assert.deepEqual(await s.webDisplay.read(S), [], 'a session never recorded shows nothing');
    const user = {
      type: 'user',
      id: 'm1',
      text: 'hi\u0000 <b>there</b>',
      files: [{ id: 'a', name: 'x.csv', size: 3 }],
    };
    const answer = { type: 'message', id: '17', text: 'Hello', for: 'm1', buttons: [{ id: 'b', label: 'Ok' }] };
    await s.webDisplay.update(S, push(user));
    await s.webDisplay.update(S, push(answer, { type: 'note', text: 'later' }));
    assert.deepEqual(await s.webDisplay.read(S), [user, answer, { type: 'note', text: 'later' }]);
    assert.deepEqual(await s.webDisplay.read('f00dcafe-other-tab'), [], 'another session is apart');
    await s.close();
    const again = h.open();
    assert.deepEqual((await again.webDisplay.read(S)).length, 3, 'kept across a restart');
    await again.close();
  });

  it('concurrent changes to one session all land; the function sees the record as it is then', async (h) => {
    const s = h.open();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => s.webDisplay.update(S, push({ type: 'note', text: `n${i}` }))),
    );
    const texts = (await s.webDisplay.read(S)).map((e) => e.text).sort();
    assert.deepEqual(texts, Array.from({ length: 20 }, (_, i) => `n${i}`).sort());
    await s.close();
  });

  it('a bad session id or a bad event is refused and writes nothing; so does a failing change', async (h) => {
    const s = h.open();
    await s.webDisplay.update(S, push({ type: 'note', text: 'kept' }));
    for (const bad of ['', 'short', '../../etc/passwd', 'x'.repeat(65), 'a b c d e f']) {
      await assert.rejects(s.webDisplay.read(bad), (e: unknown) => e instanceof StoreError && e.code === 'bad-key');
      await assert.rejects(s.webDisplay.update(bad, push()), (e: unknown) => e instanceof StoreError);
    }
    const notEvents = [() => 'nope', () => [{ text: 'no type' }], () => [null], () => [['type']]];
    for (const fn of notEvents)
      await assert.rejects(
        s.webDisplay.update(S, fn as never),
        (e: unknown) => e instanceof StoreError && e.code === 'invalid' && /web chat display/.test(e.message),
      );
    await assert.rejects(
      s.webDisplay.update(S, () => {
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.deepEqual(await s.webDisplay.read(S), [{ type: 'note', text: 'kept' }]);
    await s.close();
  });

  it('the record keeps the newest events within its cap', async (h) => {
    const s = h.open();
    const many = Array.from({ length: MAX_SHOWN_EVENTS + 5 }, (_, i) => ({ type: 'note', text: `n${i}` }));
    await s.webDisplay.update(S, () => many);
    const kept = await s.webDisplay.read(S);
    assert.equal(kept.length, MAX_SHOWN_EVENTS);
    assert.equal(kept[0]!.text, 'n5', 'the oldest went first');
    await s.close();
  });
}
