// A gateway process for the poison-input test: a file store in argv[2], a fake platform that
// serves a PDF for every attachment, and a fault hook that aborts the process (SIGABRT, no clean
// stop) inside the journaled work on any file named `poison.pdf`. With `send`, one message with
// two files arrives after start. Prints each answer as a JSON line, then `idle <poison count>`.
import { configSchema } from '../../src/config/schema.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import { createFileStore } from '../../src/store/index.ts';
import { pdfWith, textOf } from '../media-files.ts';
import { FakeAdapter, FakeAgent, fakeCapabilities } from './fakes.ts';

const [dir, send] = process.argv.slice(2);
if (!dir) throw new Error('usage: poison-child.ts DIR [send]');
const store = createFileStore(dir);
const adapter = new FakeAdapter('telegram', fakeCapabilities({ maxTextLength: 4000 }));
Object.assign(adapter, {
  async fetchAttachment(a: { name?: string }) {
    return { bytes: a.name === 'poison.pdf' ? pdfWith('Quarterly revenue grew') : textOf(12, 'n') };
  },
});
const agent = new FakeAgent((r) => {
  const got = (r.media?.files ?? []).map((f) => `${f.originalName}: ${f.text?.content ?? f.unreadable ?? '-'}`);
  return [r.message.text, ...got, ...(r.media?.notices ?? [])].join(' | ');
});
const gw = createGateway({
  config: configSchema.parse({}),
  adapters: [adapter],
  agent,
  store: store.delivery,
  media: {
    maxFileBytes: 1 << 20,
    maxMessageBytes: 1 << 20,
    workspaceOf: (key) => `${dir}/workspaces/${key.replace(/:/g, '_')}`,
    onReading: (a) => {
      if (a.name === 'poison.pdf') process.abort();
    },
  },
});
await gw.start();
if (send)
  await adapter.say('read these', {
    attachments: [
      { id: 'a1', kind: 'document', name: 'poison.pdf' },
      { id: 'a2', kind: 'document', name: 'notes.txt' },
    ],
  });
await gw.idle();
for (const text of adapter.texts()) process.stdout.write(`${JSON.stringify(text)}\n`);
process.stdout.write(`idle ${gw.metrics.poisonInputs.get({ platform: 'telegram' })}\n`);
await gw.stop();
await store.close();
