// Files in the web chat end to end, over plain HTTP the way the page talks (upload, then a message
// naming the upload; download links followed with the browser's cookie): a PNG reaches the vision
// model as an image part and is kept in the conversation's inbox/ (a reloaded page shows the
// user's words and the file's name, not the note the model got), a file a tool wrote comes back
// through send_file as a link only the owning browser can follow, and an oversized upload is
// refused in one line without a model call.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { workspaceOf } from '../../src/runner/agent-runner.ts';
import { llm } from '../emulators/llm/index.ts';
import { PNG } from '../media-files.ts';
import { type E2E, startE2E, until, WebChatClient } from './harness.ts';

describe('files in the web chat, end to end', () => {
  let bb: E2E;
  const chats: WebChatClient[] = [];
  const open = async () => {
    const c = await WebChatClient.open(bb.app.url);
    chats.push(c);
    return c;
  };
  const chatRequests = () => bb.llm.requests.filter((r) => r.api === 'openai');

  before(async () => {
    bb = await startE2E({ media: { maxFileMb: 0.25 } });
  });
  after(async () => {
    for (const c of chats) c.close();
    await bb?.close();
  });

  test('an uploaded PNG reaches the vision model as an image part and is kept in the inbox', async () => {
    const chat = await open();
    bb.llm.script([llm.say('A tiny grey square.')]);
    const up = await chat.upload('cat.png', 'image/png', PNG);
    assert.equal(up.status, 201);
    const fileId = (up.body as { id: string }).id;
    assert.equal(await chat.sayWithFiles('what is in this picture?', [fileId]), 202);
    await until(() => chat.messages().includes('A tiny grey square.'), 'the answer to the picture');
    const user = (chatRequests().at(-1)!.body.messages as { role: string; content: unknown }[]).at(-1)!;
    const parts = user.content as { type: string; text?: string; image_url?: { url: string } }[];
    assert.equal(parts[1]?.type, 'image_url');
    assert.equal(parts[1]?.image_url?.url, `data:image/png;base64,${Buffer.from(PNG).toString('base64')}`);
    const named = /inbox\/(\S+\.png) \(image\/png/.exec(parts[0]!.text!);
    assert.ok(named, `the prompt names the saved file: ${parts[0]!.text}`);
    assert.match(parts[0]!.text!, /what is in this picture\?/);
    const inbox = join(workspaceOf(join(bb.dir, 'data', 'workspaces'), `web:${chat.session}`), 'inbox');
    assert.deepEqual(readdirSync(inbox), [named[1]]);
    assert.deepEqual(new Uint8Array(readFileSync(join(inbox, named[1]!))), PNG);
    // A reloaded page draws the user's words and the file's name, not the note the model got.
    await bb.app.gateway.idle();
    const history = await fetch(`${bb.app.url}/chat/history?session=${chat.session}`, {
      headers: { cookie: chat.cookie, 'x-boxbot-token': chat.token },
    });
    type Shown = { type: string; text?: string; files?: { name: string }[] };
    const { events } = (await history.json()) as { events: Shown[] };
    assert.deepEqual(
      events.map((e) => `${e.type}: ${e.text}${(e.files ?? []).map((f) => `\n📎 ${f.name}`).join('')}`),
      ['user: what is in this picture?\n📎 cat.png', 'message: A tiny grey square.'],
    );
    bb.llm.assertDone();
  });

  test('a file a tool wrote comes back by send_file as a link only the owning browser can follow', async () => {
    const chat = await open();
    const csv = 'city,temp\nOslo,-3\nLima,19\n';
    bb.llm.script([
      llm.answer([llm.toolCalls(llm.call('write', { file_path: 'out/report.csv', content: csv }))]),
      llm.answer([llm.toolCalls(llm.call('send_file', { path: '/out/report.csv', caption: 'Temperatures' }))]),
      llm.say('Here is the report.'),
    ]);
    assert.equal(await chat.say('make me a report file'), 202);
    await until(
      () => chat.messages().includes('Here is the report.') && chat.botFiles().length === 1,
      'the answer and the file',
    );
    await bb.app.gateway.idle();
    const [file] = chat.botFiles();
    assert.equal(file!.name, 'report.csv');
    assert.ok(chat.messages().includes('Temperatures'), 'the caption is shown with the file');
    const mine = await chat.download(file!.id);
    assert.equal(mine.status, 200);
    assert.equal(await mine.text(), csv);
    assert.match(mine.headers.get('content-disposition') ?? '', /^attachment; filename\*=UTF-8''report\.csv$/);
    // Another browser: refused on this session, and not found through a session of its own.
    const other = await open();
    const stolen = await chat.download(file!.id, { cookie: other.cookie });
    assert.equal(stolen.status, 403);
    assert.doesNotMatch(await stolen.text(), /Oslo/);
    const sideways = await chat.download(file!.id, { cookie: other.cookie, session: other.session });
    assert.equal(sideways.status, 404);
    assert.doesNotMatch(await sideways.text(), /Oslo/);
    assert.equal(chat.botFiles().length, 1, 'sent once');
    bb.llm.assertDone();
  });

  test('an oversized upload is refused with one line naming the limit, and no model call', async () => {
    const chat = await open();
    const before = chatRequests().length;
    const up = await chat.upload('dump.bin', 'application/octet-stream', new Uint8Array(300 * 1024));
    // The web chat's own cap (20 MB) is larger: it takes the upload, and the media step refuses it.
    assert.equal(up.status, 201);
    assert.equal(await chat.sayWithFiles('', [(up.body as { id: string }).id]), 202);
    await until(() => chat.messages().length === 1, 'the refusal');
    assert.deepEqual(chat.messages(), [
      'I did not take "dump.bin" (300 KB): files up to 256 KB are accepted (media.maxFileMb).',
    ]);
    await bb.app.gateway.idle();
    assert.equal(chatRequests().length, before);
  });
});

describe('the web chat upload cap, unset', () => {
  test('follows media.maxMessageMb: an upload over it is refused at once, naming the limit', async () => {
    const bb = await startE2E({ media: { maxMessageMb: 0.1 } });
    const chat = await WebChatClient.open(bb.app.url);
    try {
      const up = await chat.upload('dump.bin', 'application/octet-stream', new Uint8Array(200 * 1024));
      assert.equal(up.status, 413);
      assert.match((up.body as { error: string }).error, /the limit is 0\.1 MB per file/);
    } finally {
      chat.close();
      await bb.close();
    }
  });
});
