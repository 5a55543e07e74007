// The shared adapter contract, run by Telegram in both delivery modes: long polling
// (getUpdates against the emulator) and webhooks (the emulator POSTs to the adapter's route).
import { telegramHarness } from '../emulators/telegram/harness.ts';
import { adapterContract } from './contract.ts';

adapterContract('telegram', () => telegramHarness({ mode: 'polling' }));
adapterContract('telegram', () => telegramHarness({ mode: 'webhook' }));
