// The one markup fallback every adapter uses: a refused markup is sent once more as plain text;
// any other refusal, or a refusal of what already was the plain text, is final.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdapterApiError, AdapterNetworkError } from '../../src/adapters/index.ts';
import { type MarkupStyle, withMarkupFallback } from '../../src/adapters/markup-fallback.ts';
import { silentLogger } from '../../src/core/log.ts';

const style: MarkupStyle = {
  render: (md) => md.replace(/\*\*(.+?)\*\*/g, '<b>$1</b>'),
  plain: (text) => text.replace(/</g, '&lt;'),
  refused: (e) => /parse/.test(e.description),
  log: silentLogger,
};

/** A platform that refuses the first `refusals` calls with `error`, and records every body it got. */
function platform(error: Error, refusals = 1) {
  const got: { body: string; markup: boolean }[] = [];
  const send = async (body: string, markup: boolean): Promise<string> => {
    got.push({ body, markup });
    if (got.length <= refusals) throw error;
    return `sent ${body}`;
  };
  return { got, send };
}

const parseError = new AdapterApiError('telegram', 400, "can't parse entities");

test('markdown goes rendered; a refused markup goes once more as the plain text', async () => {
  const p = platform(parseError);
  assert.equal(await withMarkupFallback(style, '**a** < b', undefined, p.send), 'sent **a** &lt; b');
  assert.deepEqual(p.got, [
    { body: '<b>a</b> < b', markup: true },
    { body: '**a** &lt; b', markup: false },
  ]);
});

test('format plain sends only the plain text, without trying the markup', async () => {
  const p = platform(parseError, 0);
  await withMarkupFallback(style, '**a** < b', { format: 'plain' }, p.send);
  assert.deepEqual(p.got, [{ body: '**a** &lt; b', markup: false }]);
});

const finals: [string, Error, string][] = [
  ['a refusal that is not about markup', new AdapterApiError('telegram', 400, 'chat not found'), '**a**'],
  ['a rate limit', new AdapterApiError('telegram', 429, 'too many requests', 1000), '**a**'],
  ['a network failure', new AdapterNetworkError('telegram', 'ECONNRESET'), '**a**'],
  ['a refusal of a body that already was the plain text', parseError, 'no markup here'],
];
for (const [what, error, text] of finals) {
  test(`${what} is final: one call, the error surfaces`, async () => {
    const p = platform(error, 2);
    await assert.rejects(withMarkupFallback(style, text, undefined, p.send), (e) => e === error);
    assert.equal(p.got.length, 1);
  });
}

test('a refusal of the plain retry surfaces (no third try)', async () => {
  const p = platform(parseError, 2);
  await assert.rejects(withMarkupFallback(style, '**a**', undefined, p.send), (e) => e === parseError);
  assert.equal(p.got.length, 2);
});
