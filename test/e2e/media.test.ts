// Files end to end on Telegram: boxbot long-polls the Bot API emulator, downloads what users send
// through getFile and the token-bearing file URL, and answers through the LLM emulator. A photo
// reaches the vision model as an image part (the bot token nowhere in the model request, the logs
// or the workspace), a voice note is transcribed and answered, an oversized file is refused in one
// line, and an executable named `.png` is typed by its bytes and never shown as an image. On the
// default config, a 306 KB PDF inflating to one 300 MB string (it aborted V8 in the gateway) is
// answered with one line saying why it was not read, and the next message is answered too.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { llm } from '../emulators/llm/index.ts';
import { startTelegramEmulator, type TelegramEmulator } from '../emulators/telegram/index.ts';
import { ELF, inflateBombPdf, OGG, PNG } from '../media-files.ts';
import { type E2E, startE2E, until } from './harness.ts';

/** The files below `dir` whose bytes contain `needle` (binary files too). */
function filesContaining(dir: string, needle: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesContaining(p, needle));
    else if (readFileSync(p).includes(needle)) out.push(p);
  }
  return out;
}

describe('files from Telegram users, end to end', () => {
  let tg: TelegramEmulator;
  let bb: E2E;
  let nextUser = 5100;
  const person = () => {
    const id = nextUser++;
    return {
      chat: { id, type: 'private' as const, first_name: `User${id}` },
      from: { id, is_bot: false, first_name: `User${id}`, username: `user${id}` },
    };
  };
  const replies = (chatId: number) => () => tg.botMessages(String(chatId)).map((m) => m.text);
  const chatRequests = () => bb.llm.requests.filter((r) => r.api === 'openai');

  before(async () => {
    tg = await startTelegramEmulator();
    bb = await startE2E(
      {
        channels: { telegram: { apiRoot: tg.apiRoot } },
        media: { maxFileMb: 0.25, transcription: { model: 'openai/whisper-1' } },
      },
      { TELEGRAM_BOT_TOKEN: tg.token },
    );
  });
  after(async () => {
    await bb?.close();
    await tg?.close();
  });

  test('a photo is answered by a vision model that got it as an image part; the token goes nowhere', async () => {
    const p = person();
    bb.llm.script([llm.say('A tiny grey square.')]);
    tg.userFile({ ...p, kind: 'photo', bytes: PNG, caption: 'what is in this picture?' });
    const shown = replies(p.chat.id);
    await until(() => shown().includes('A tiny grey square.'), 'the answer to the photo');
    const request = chatRequests().at(-1)!;
    const user = (request.body.messages as { role: string; content: unknown }[]).at(-1)!;
    const parts = user.content as { type: string; text?: string; image_url?: { url: string } }[];
    assert.equal(parts[1]?.type, 'image_url');
    assert.equal(parts[1]?.image_url?.url, `data:image/png;base64,${Buffer.from(PNG).toString('base64')}`);
    assert.match(parts[0]!.text!, /what is in this picture\?[\s\S]*inbox\/\S+-photo\.png \(image\/png/);
    // The token was used (the host downloaded the file) but reached no model, log line or workspace file.
    assert.ok(tg.files.downloads.some((d) => d.status === 200));
    assert.equal(JSON.stringify(bb.llm.requests.map((r) => r.body)).includes(tg.token), false, 'model requests');
    assert.equal(JSON.stringify(bb.logs).includes(tg.token), false, 'logs');
    const workspace = join(bb.dir, 'data', 'workspaces');
    assert.ok(readdirSync(workspace).length > 0);
    assert.deepEqual(
      filesContaining(join(bb.dir, 'data'), tg.token),
      [],
      'no file in the data folder (workspaces included)',
    );
  });

  test('a voice note is transcribed; the transcript is the prompt and the answer says so', async () => {
    const p = person();
    bb.llm.transcripts(['what is the capital of France']);
    bb.llm.script([llm.say('Paris.')]);
    tg.userFile({ ...p, kind: 'voice', bytes: OGG });
    const shown = replies(p.chat.id);
    const answer = '(Transcribed from your voice note: "what is the capital of France")\n\nParis.';
    await until(() => shown().at(-1) === answer, 'the answer to the voice note, saying it was transcribed');
    const transcription = bb.llm.requests.find((r) => r.api === 'transcription')!;
    assert.equal((transcription.body as { model: string }).model, 'whisper-1');
    const prompt = JSON.stringify(chatRequests().at(-1)!.body.messages.at(-1));
    assert.match(prompt, /what is the capital of France/);
  });

  test('an oversized file gets one line naming the limit, and no model call', async () => {
    const p = person();
    const before = chatRequests().length;
    tg.userFile({ ...p, kind: 'document', bytes: new Uint8Array(300 * 1024), fileName: 'dump.bin' });
    const shown = replies(p.chat.id);
    await until(() => shown().length === 1, 'the refusal');
    assert.equal(shown()[0], 'I did not take "dump.bin" (300 KB): files up to 256 KB are accepted (media.maxFileMb).');
    assert.equal(chatRequests().length, before);
  });

  test('an executable sent as .png is typed by its bytes: listed as a program, never an image part', async () => {
    const p = person();
    bb.llm.script([llm.say('That is not a picture.')]);
    tg.userFile({ ...p, kind: 'document', bytes: ELF, fileName: 'cute-cat.png', mimeType: 'image/png' });
    const shown = replies(p.chat.id);
    await until(() => shown().includes('That is not a picture.'), 'the answer');
    const parts = chatRequests().at(-1)!.body.messages.at(-1).content;
    const text = typeof parts === 'string' ? parts : JSON.stringify(parts);
    assert.match(text, /inbox\/\S+-cute-cat\.elf \(application\/x-executable/);
    assert.equal(text.includes('image_url'), false);
  });
});

describe('a PDF bomb from a Telegram DM, on the default config', () => {
  let tg: TelegramEmulator;
  let bb: E2E;
  before(async () => {
    tg = await startTelegramEmulator();
    bb = await startE2E({ channels: { telegram: { apiRoot: tg.apiRoot } } }, { TELEGRAM_BOT_TOKEN: tg.token });
  });
  after(async () => {
    await bb?.close();
    await tg?.close();
  });

  test('306 KB inflating to one 300 MB string: one line says why, and the next message is answered', async () => {
    const p = {
      chat: { id: 5200, type: 'private' as const, first_name: 'Mallory' },
      from: { id: 5200, is_bot: false, first_name: 'Mallory', username: 'mallory' },
    };
    const bomb = await inflateBombPdf(300);
    bb.llm.script([llm.say('I could not open it.'), llm.say('Hello again.')]);
    tg.userFile({ ...p, kind: 'document', bytes: bomb, fileName: 'report.pdf', caption: 'summarise this' });
    const shown = () => tg.botMessages(String(p.chat.id)).map((m) => m.text);
    // The streamed preview is edited into the final answer, which leads with the notice.
    await until(() => shown()[0]?.endsWith('I could not open it.') === true, 'the answer to the PDF', 120_000);
    await until(() => shown()[0]!.startsWith('"report.pdf"'), 'the final answer');
    assert.equal(
      shown()[0],
      '"report.pdf" could not be read: it needed more than 256 MB of memory.\n\nI could not open it.',
    );
    tg.userMessage({ ...p, text: 'hello?' });
    await until(() => shown()[1] === 'Hello again.', 'the answer to the next message');
    assert.equal(shown()[1], 'Hello again.');
  });
});
