// Files through the gateway with the real Slack adapter (@slack/web-api) against the emulator:
// Slack's upload has two steps and the file id is journaled between them, so a share whose
// answer was lost, or a process gone after the bytes or after the share, still leaves the file
// in the chat exactly once, and the bytes are uploaded once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdapterNetworkError, type ChannelAdapter, type OutboundFile } from '../../src/adapters/index.ts';
import { createSlackAdapter } from '../../src/adapters/slack/index.ts';
import { configSchema } from '../../src/config/schema.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import { createMemoryState, createMemoryStore } from '../../src/store/index.ts';
import { DM_CHANNEL, type SlackHarness, slackHarness } from '../emulators/slack/harness.ts';
import { waitUntil } from '../helpers.ts';
import { FakeAgent, until } from './fakes.ts';

const report: OutboundFile = {
  name: 'report.csv',
  mimeType: 'text/plain',
  bytes: new Uint8Array(Buffer.from('a,b\n')),
};

function gateway(adapter: ChannelAdapter, store = createMemoryStore()) {
  return createGateway({
    config: configSchema.parse({}),
    adapters: [adapter],
    agent: new FakeAgent(() => ({ text: 'The report is attached.', files: [report] })),
    store: store.delivery,
    outbound: { backoffMs: 1, maxBackoffMs: 20 },
  });
}

const freshAdapter = (h: SlackHarness) =>
  createSlackAdapter({ mode: 'socket', botToken: h.emu.botToken, appToken: h.emu.appToken, apiUrl: h.emu.apiUrl });

/**
 * The real adapter for one file call (with `before` arranging how it goes), then a process that
 * is gone: every later call is cut before it leaves.
 */
function dyingAfterOneFile(real: ChannelAdapter, before: () => void): ChannelAdapter & { tries: () => number } {
  let tries = 0;
  return {
    ...real,
    tries: () => tries,
    async sendFile(target, file, upload) {
      if (tries++ > 0) throw new AdapterNetworkError('slack', 'connection cut');
      before();
      return real.sendFile!(target, file, upload);
    },
  };
}

test('the share is made but its answer is lost: the retry finds the file shared and shares it not again', async (t) => {
  const h = await slackHarness('socket');
  const gw = gateway(h.adapter);
  t.after(async () => {
    await gw.stop();
    await h.close();
  });
  h.emu.api.loseAnswerNext('files.completeUploadExternal');
  await gw.start();
  await h.userSays({ text: 'report?', direct: true });
  await until(() => h.emu.api.count('files.info') > 0, 'the retry asking Slack about the file');
  await gw.idle();
  assert.deepEqual(
    h.emu.botFiles().map((f) => [f.name, f.channel]),
    [['report.csv', DM_CHANNEL]],
  );
  assert.equal(h.emu.api.count('files.getUploadURLExternal'), 1, 'the bytes went up once');
});

/** A restart of the gateway on the same state, with the first process gone during the file. */
async function restartDuringFile(h: SlackHarness, before: () => void): Promise<void> {
  const state = createMemoryState();
  const firstStore = createMemoryStore({ state });
  const dying = dyingAfterOneFile(h.adapter, before);
  const first = gateway(dying, firstStore);
  await first.start();
  await h.userSays({ text: 'report?', direct: true });
  await until(() => dying.tries() > 1, 'the file call failing after the first');
  await first.stop();
  await firstStore.close();

  const store = createMemoryStore({ state });
  const second = gateway(freshAdapter(h), store);
  await second.start();
  await waitUntil(async () => (await store.delivery.pendingOutbox()).length === 0, 'the answer finished', 20_000);
  await second.stop();
  await store.close();
}

test('a restart after Slack shared the file (the answer lost): the file is in the chat once', async (t) => {
  const h = await slackHarness('socket');
  t.after(() => h.close());
  await restartDuringFile(h, () => h.emu.api.loseAnswerNext('files.completeUploadExternal'));
  assert.deepEqual(
    h.emu.botFiles().map((f) => f.name),
    ['report.csv'],
  );
  assert.equal(h.emu.api.count('files.getUploadURLExternal'), 1, 'the bytes went up once');
  assert.deepEqual(
    h.emu.botMessages().map((m) => m.text),
    ['The report is attached.', ''],
    'the text and the file message once each',
  );
});

test('a restart after the bytes went up but before the share: the same upload is shared, once', async (t) => {
  const h = await slackHarness('socket');
  t.after(() => h.close());
  // The share never reaches Slack: the first process is gone right after the bytes were uploaded.
  await restartDuringFile(h, () => h.emu.api.failNext('files.completeUploadExternal', { httpStatus: 503 }));
  assert.deepEqual(
    h.emu.botFiles().map((f) => f.name),
    ['report.csv'],
  );
  assert.equal(h.emu.api.count('files.getUploadURLExternal'), 1, 'the upload was finished, not made again');
  assert.equal(h.emu.api.count('files.completeUploadExternal'), 2, 'the refused share, then the one made');
});
