// The media step inside the gateway: files are fetched after the message is journaled and before
// its run, the run gets them; a restart mid-run prepares the same message again from the journal
// and leaves one copy of each file.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Attachment } from '../../src/adapters/index.ts';
import { configSchema } from '../../src/config/schema.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import type { MediaOptions } from '../../src/runner/media/index.ts';
import { tempDir } from '../helpers.ts';
import { PNG } from '../media-files.ts';
import { FakeAdapter, FakeAgent, MemoryGatewayStore, until } from './fakes.ts';

/** A FakeAdapter serving one PNG; records, per fetch, whether the message was journaled by then. */
function fileAdapter(store: MemoryGatewayStore) {
  const adapter = new FakeAdapter();
  const journaledAtFetch: boolean[] = [];
  Object.assign(adapter, {
    async fetchAttachment(_a: Attachment) {
      journaledAtFetch.push(store.journal.size > 0);
      return { bytes: PNG };
    },
  });
  return { adapter, journaledAtFetch };
}

test('files are fetched once the message is journaled, saved once, given to the run; a restart redoes it', async () => {
  const root = tempDir('boxbot-gw-media-');
  const media: MediaOptions = {
    maxFileBytes: 1024 * 1024,
    maxMessageBytes: 1024 * 1024,
    workspaceOf: (key) => join(root, key.replace(/:/g, '_')),
  };
  const store = new MemoryGatewayStore();
  const first = fileAdapter(store);
  const hung = new FakeAgent(() => new Promise(() => undefined));
  const gw1 = createGateway({ config: configSchema.parse({}), adapters: [first.adapter], agent: hung, store, media });
  await gw1.start();
  await first.adapter.say('what is this?', { attachments: [{ id: 'f1', kind: 'image', name: 'p.jpg' }] });
  await until(() => hung.seen.length === 1, 'the run started');
  assert.deepEqual(first.journaledAtFetch, [true], 'fetched only once the message was saved');
  const got = hung.seen[0]!.media!;
  assert.equal(got.files.length, 1);
  assert.equal(got.files[0]!.mimeType, 'image/png');
  // Crash mid-run; the next process answers the journaled message, preparing its files again.
  const second = fileAdapter(store);
  const agent = new FakeAgent((r) => `saw ${r.media?.files.map((f) => f.path).join(', ')}`);
  const gw2 = createGateway({ config: configSchema.parse({}), adapters: [second.adapter], agent, store, media });
  await gw2.start();
  await gw2.idle();
  assert.deepEqual(second.journaledAtFetch, [true]);
  assert.deepEqual(second.adapter.texts(), [`saw ${got.files[0]!.path}`]);
  assert.deepEqual(readdirSync(join(media.workspaceOf('telegram:100'), 'inbox')), [got.files[0]!.path.slice(6)]);
  await gw2.stop();
});

test('deaths while waiting on the platform (the download) or on the model never count as poison input', async () => {
  const root = tempDir('boxbot-gw-media-');
  const media: MediaOptions = {
    maxFileBytes: 1024 * 1024,
    maxMessageBytes: 1024 * 1024,
    workspaceOf: (key) => join(root, key.replace(/:/g, '_')),
  };
  const store = new MemoryGatewayStore();
  const boot = (fetch: () => Promise<{ bytes: Uint8Array }>, agent: FakeAgent) => {
    const adapter = new FakeAdapter();
    Object.assign(adapter, { fetchAttachment: fetch });
    return { adapter, gw: createGateway({ config: configSchema.parse({}), adapters: [adapter], agent, store, media }) };
  };
  const hang = () => new Promise<never>(() => undefined);
  // 1: the process dies while the platform serves the file; 2 and 3: while the model answers.
  let fetching = false;
  const first = boot(async () => {
    fetching = true;
    return hang();
  }, new FakeAgent());
  await first.gw.start();
  await first.adapter.say('what is this?', { attachments: [{ id: 'f1', kind: 'image', name: 'p.png' }] });
  await until(() => fetching, 'the download started');
  for (let i = 0; i < 2; i++) {
    const hung = new FakeAgent(hang);
    const { gw } = boot(async () => ({ bytes: PNG }), hung);
    await gw.start();
    await until(() => hung.seen.length === 1, 'the run started');
    assert.equal(hung.seen[0]!.media!.files.length, 1);
    assert.deepEqual([...store.mediaWork.values()], [], 'the work on the file ended before the run');
  }
  const agent = new FakeAgent(
    (r) => `saw ${r.media?.files.length} file(s); ${r.media?.notices.join(' ') || 'no notice'}`,
  );
  const last = boot(async () => ({ bytes: PNG }), agent);
  await last.gw.start();
  await last.gw.idle();
  assert.deepEqual(last.adapter.texts(), ['saw 1 file(s); no notice']);
  assert.equal(last.gw.metrics.poisonInputs.get({ platform: 'telegram' }), 0);
  await last.gw.stop();
});
