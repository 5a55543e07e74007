// The web chat keeps the start rule of every adapter (contract.ts): a second start before stop
// is refused, and start after stop works. It has no platform emulator, so it runs this part of
// the contract on its own.
import { test } from 'node:test';
import { createWebAdapter } from '../../src/adapters/web/index.ts';
import { assertSecondStartRefused } from './contract.ts';

test('web: start while started is refused with already-started; start after stop works', async () => {
  const adapter = createWebAdapter();
  await adapter.start(async () => undefined);
  await assertSecondStartRefused(adapter, 'web');
  await adapter.stop();
  await adapter.start(async () => undefined);
  await adapter.stop();
});
