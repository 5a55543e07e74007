// The gateway's media step on its own: what a user who sends files gets saved, typed, read and
// told. The adapter is a stand-in serving bytes through the contract's fetchAttachment.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AdapterError, type Attachment, type InboundMessage } from '../../src/adapters/index.ts';
import { type MediaOptions, prepareMedia } from '../../src/runner/media/index.ts';
import { compiledParserChild } from '../compiled-src.ts';
import { tempDir } from '../helpers.ts';
import { ELF, OGG, PNG, pdfWith, textOf } from '../media-files.ts';
import { FakeAdapter, inboundMessage } from './fakes.ts';

const MB = 1024 * 1024;

/** A FakeAdapter whose files are `files` (by attachment id), served with the contract's cap. */
function adapterWith(files: Record<string, Uint8Array>) {
  const a = new FakeAdapter();
  const fetched: string[] = [];
  Object.assign(a, {
    async fetchAttachment(att: Attachment, o: { maxBytes: number }) {
      fetched.push(att.id);
      const bytes = files[att.id];
      if (!bytes) throw new AdapterError('telegram', 'api-error', 'gone');
      if (bytes.length > o.maxBytes) throw new AdapterError('telegram', 'too-large', 'too big');
      return { bytes };
    },
  });
  return { adapter: a, fetched };
}

function setup(over: Partial<MediaOptions> = {}) {
  const root = tempDir('boxbot-media-');
  const options: MediaOptions = {
    maxFileBytes: 20 * MB,
    maxMessageBytes: 20 * MB,
    workspaceOf: (key) => join(root, key.replace(/:/g, '_')),
    parserFile: compiledParserChild(), // not its TypeScript through tsx: a fifth of the CPU per parse
    ...over,
  };
  return { options, workspace: options.workspaceOf('telegram:100') };
}

const withFiles = (attachments: Attachment[], text = ''): InboundMessage =>
  inboundMessage(text, { id: 'telegram:1:42', attachments, receivedAt: '2026-11-24T09:30:00.000Z' });

describe('prepareMedia', () => {
  it('saves a photo under inbox/ with a safe name, typed from its bytes, with its image data', async () => {
    const { adapter } = adapterWith({ p: PNG });
    const { options, workspace } = setup();
    const media = await prepareMedia(
      withFiles([{ id: 'p', kind: 'image', name: '../../My Photo!.jpg' }]),
      adapter,
      options,
    );
    assert.deepEqual(media.notices, []);
    const [f] = media.files;
    assert.match(f!.path, /^inbox\/20261124-093000-[0-9a-f]{4}-My-Photo\.png$/);
    assert.equal(f!.mimeType, 'image/png');
    assert.equal(f!.image?.mediaType, 'image/png');
    assert.deepEqual(new Uint8Array(readFileSync(join(workspace, f!.path))), PNG);
  });

  it('an image too large for the providers is saved but not kept for the model', async () => {
    const big = new Uint8Array(6 * MB);
    big.set(PNG.subarray(0, 16));
    const { adapter } = adapterWith({ p: big });
    const media = await prepareMedia(withFiles([{ id: 'p', kind: 'image' }]), adapter, setup().options);
    assert.equal(media.files[0]!.mimeType, 'image/png');
    assert.equal(media.files[0]!.image, undefined);
    assert.match(media.files[0]!.unreadable!, /too large to show/);
  });

  it('types a fake .png by its bytes: an executable is saved as one and never becomes an image', async () => {
    const { adapter } = adapterWith({ x: ELF, t: textOf(50) });
    const { options } = setup();
    const media = await prepareMedia(
      withFiles([
        { id: 'x', kind: 'image', name: 'cat.png', mimeType: 'image/png' },
        { id: 't', kind: 'image', name: 'notes.png', mimeType: 'image/png' },
      ]),
      adapter,
      options,
    );
    const [exe, text] = media.files;
    assert.equal(exe!.mimeType, 'application/x-executable');
    assert.equal(exe!.family, 'executable');
    assert.match(exe!.path, /-cat-1\.elf$/);
    assert.equal(exe!.image, undefined);
    assert.equal(text!.mimeType, 'text/plain');
    assert.match(text!.path, /-notes-2\.txt$/);
    assert.equal(text!.image, undefined);
  });

  it('refuses an oversized file (declared or found while downloading) with one line naming the limit', async () => {
    const { adapter, fetched } = adapterWith({ big: textOf(3 * MB), huge: textOf(1) });
    const { options, workspace } = setup({ maxFileBytes: 2 * MB });
    const media = await prepareMedia(
      withFiles([
        { id: 'huge', name: 'movie.mp4', size: 30 * MB },
        { id: 'big', name: 'dump.txt' },
      ]),
      adapter,
      options,
    );
    assert.deepEqual(fetched, ['big'], 'a file declared too large is not even downloaded');
    assert.equal(media.files.length, 0);
    assert.deepEqual(media.notices, [
      'I did not take "movie.mp4" (30 MB): files up to 2 MB are accepted (media.maxFileMb).',
      'I did not take "dump.txt": files up to 2 MB are accepted (media.maxFileMb).',
    ]);
    assert.equal(existsSync(join(workspace, 'inbox')) && readdirSync(join(workspace, 'inbox')).length > 0, false);
  });

  it('holds a message to its total: the file that would pass it is refused naming media.maxMessageMb', async () => {
    const { adapter } = adapterWith({ a: textOf(MB), b: textOf(MB) });
    const { options } = setup({ maxFileBytes: 2 * MB, maxMessageBytes: 1.5 * MB });
    const media = await prepareMedia(
      withFiles([
        { id: 'a', name: 'a.txt' },
        { id: 'b', name: 'b.txt' },
      ]),
      adapter,
      options,
    );
    assert.equal(media.files.length, 1);
    assert.match(
      media.notices[0]!,
      /^I did not take "b.txt": one message may bring up to 1.5 MB of files \(media.maxMessageMb\)\.$/,
    );
  });

  it('transcribes a voice note when a transcriber is set, else says once how to enable it', async () => {
    const { adapter } = adapterWith({ v: OGG });
    const voice = withFiles([{ id: 'v', kind: 'voice', name: 'voice.ogg' }]);
    const without = await prepareMedia(voice, adapter, setup().options);
    assert.equal(without.files[0]!.transcript, undefined);
    assert.match(without.notices[0]!, /media\.transcription\.model/);
    const heard: string[] = [];
    const { options } = setup({
      transcribe: async (f) => {
        heard.push(`${f.mimeType} ${f.bytes.length}`);
        return 'remind me to water the plants';
      },
    });
    const withT = await prepareMedia(voice, adapter, options);
    assert.deepEqual(heard, [`audio/ogg ${OGG.length}`]);
    assert.equal(withT.files[0]!.transcript, 'remind me to water the plants');
    assert.deepEqual(withT.notices, []);
  });

  it('reads the text of a PDF and of a text file for the prompt', async () => {
    const { adapter } = adapterWith({ pdf: pdfWith('Quarterly revenue grew 12 percent'), md: textOf(10, 'z') });
    const media = await prepareMedia(
      withFiles([
        { id: 'pdf', name: 'report.pdf' },
        { id: 'md', name: 'notes.md' },
      ]),
      adapter,
      setup().options,
    );
    assert.equal(media.files[0]!.mimeType, 'application/pdf');
    assert.match(media.files[0]!.text!.content, /Quarterly revenue grew 12 percent/);
    assert.equal(media.files[0]!.text!.pages, 1);
    assert.match(media.files[1]!.path, /-notes-2\.md$/);
    assert.equal(media.files[1]!.text!.content, 'zzzzzzzzzz');
  });

  it('a name with a right-to-left override or zero-width characters is shown without them', async () => {
    const { adapter } = adapterWith({ t: textOf(5), big: textOf(3 * MB) });
    const { options } = setup({ maxFileBytes: 2 * MB });
    const media = await prepareMedia(
      withFiles([
        { id: 't', name: 'invoice\u202Etxt.exe' },
        { id: 'big', name: 'du\u200Bmp\uFEFF.txt' },
      ]),
      adapter,
      options,
    );
    assert.equal(media.files[0]!.originalName, 'invoicetxt.exe');
    assert.deepEqual(media.notices, ['I did not take "dump.txt": files up to 2 MB are accepted (media.maxFileMb).']);
  });

  it('refuses to save through a symlinked inbox and tells the user', async () => {
    const { adapter } = adapterWith({ p: PNG });
    const { options, workspace } = setup();
    const elsewhere = tempDir('boxbot-elsewhere-');
    mkdirSync(workspace, { recursive: true });
    symlinkSync(elsewhere, join(workspace, 'inbox'));
    const media = await prepareMedia(withFiles([{ id: 'p', name: 'p.png' }]), adapter, options);
    assert.equal(media.files.length, 0);
    assert.match(media.notices[0]!, /could not save "p.png".*symlink/);
    assert.deepEqual(readdirSync(elsewhere), []);
  });

  it('prepared again (a resumed message), it leaves one copy of each file under the same name', async () => {
    const { adapter } = adapterWith({ p: PNG });
    const { options, workspace } = setup();
    const msg = withFiles([{ id: 'p', name: 'p.png' }]);
    const first = await prepareMedia(msg, adapter, options);
    const again = await prepareMedia(msg, adapter, options);
    assert.deepEqual(
      again.files.map((f) => f.path),
      first.files.map((f) => f.path),
    );
    assert.equal(readdirSync(join(workspace, 'inbox')).length, 1);
  });

  it('tells the user when the platform has no way to fetch files', async () => {
    const media = await prepareMedia(withFiles([{ id: 'p', name: 'p.png' }]), new FakeAdapter(), setup().options);
    assert.match(media.notices[0]!, /not supported yet/);
  });
});
