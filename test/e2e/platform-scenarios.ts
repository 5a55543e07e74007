// The end-to-end scenarios every chat platform runs against its emulator (Hono's shared-suite
// pattern): a whole boxbot, the model over HTTP (LLM emulator through the real OpenAI SDK),
// sandboxed tools, streamed edits, policy, duplicates, a restart mid-run, 429 storms and junk.
// Each platform's test file supplies a PlatformDriver and calls `platformScenarios`.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { workspaceOf } from '../../src/runner/agent-runner.ts';
import { llm, type RecordedRequest } from '../emulators/llm/index.ts';
import { bootBoxbot, type RestartableBoxbot } from './boot.ts';
import { until } from './harness.ts';

/** A direct chat between the bot and one user on the platform. */
export interface E2EChat {
  chatId: string;
  userId: string;
  conversationKey: string;
}

/** A message the bot posted, with every text it showed: the first send, then each edit. */
export interface ShownMessage {
  id: string;
  texts: string[];
}

/** What a platform's test file provides: its emulator, seen from the user's side. */
export interface PlatformDriver {
  platform: 'telegram' | 'discord' | 'slack';
  /** Where chat overrides live in the platform's config section (`chats` or `channels`). */
  overridesKey: 'chats' | 'channels';
  /** Starts the emulator. */
  setup(): Promise<void>;
  /** The direct chat of user number `n` (created on the platform on first use). */
  dm(n: number): E2EChat;
  /** Top-level config pointing the platform's channel at the emulator (merged under the scenario's policy). */
  config(): { channel: Record<string, unknown>; top?: Record<string, unknown> };
  /** The environment holding the platform's tokens. */
  env(): Record<string, string>;
  /** The user writes `text` in the chat. */
  say(chat: E2EChat, text: string): Promise<void>;
  /** The platform delivers the same event twice; resolves once both copies were handed over. */
  sayTwice?(chat: E2EChat, text: string): Promise<void>;
  /** The bot's messages in the chat, oldest first. */
  botMessages(chat: E2EChat): ShownMessage[];
  /** The files the bot sent to the chat, oldest first, as the user receives them. */
  botFiles(chat: E2EChat): { name: string; bytes: Uint8Array; caption?: string }[];
  /** The next `n` message sends/edits are answered 429 with a short retry-after. */
  rateLimitSends(n: number): void;
  /** Delivers events the adapter must drop (wrong shapes). */
  sendMalformed(): Promise<void>;
  /** The log message of a dropped malformed event. */
  malformedLog: RegExp;
  close(): Promise<void>;
}

/** Scenario names, for platforms that run only some of them in a second mode. */
export type ScenarioName =
  | 'tool-stream'
  | 'read-only'
  | 'stranger'
  | 'duplicate'
  | 'restart'
  | 'rate-limit'
  | 'malformed'
  | 'send-file';

const READ_ONLY_USER = 2;
const STRANGER = 9;

const toolNames = (r: RecordedRequest): string[] =>
  ((r.body?.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
const lastMessage = (r: RecordedRequest): { role: string; content: unknown } => r.body.messages.at(-1);
const asText = (content: unknown): string => (typeof content === 'string' ? content : JSON.stringify(content));

/** Registers the end-to-end scenarios for `driver` (all of them unless `only` names some). */
export function platformScenarios(driver: PlatformDriver, opts: { only?: ScenarioName[]; label?: string } = {}): void {
  const d = driver;
  const runs = (name: ScenarioName) => !opts.only || opts.only.includes(name);
  describe(`${d.platform}${opts.label ? ` (${opts.label})` : ''} end to end`, () => {
    let bb: RestartableBoxbot;
    const finals = (chat: E2EChat): string[] => d.botMessages(chat).map((m) => m.texts.at(-1) ?? '');
    const newRequests = (from: number): RecordedRequest[] => bb.llm.requests.slice(from);
    const workspace = (chat: E2EChat) => workspaceOf(join(bb.dataDir, 'workspaces'), chat.conversationKey);
    /** Waits for `pred`; a timeout says what the chat shows. */
    const waitChat = (chat: E2EChat, pred: () => boolean, what: string) =>
      until(pred, what, 60_000).catch((e: Error) => {
        throw new Error(`${e.message}; the chat shows ${JSON.stringify(d.botMessages(chat))}`);
      });

    before(async () => {
      await d.setup();
      const allowed = [1, 2, 3, 4, 5, 6, 7].map((n) => d.dm(n).userId);
      d.dm(STRANGER);
      const { channel, top } = d.config();
      bb = await bootBoxbot(
        {
          ...top,
          channels: {
            [d.platform]: {
              ...channel,
              access: 'full',
              allowFrom: allowed,
              [d.overridesKey]: { [d.dm(READ_ONLY_USER).chatId]: { access: 'read-only' } },
            },
          },
        },
        d.env(),
      );
    });
    after(async () => {
      await bb?.close();
      await d.close();
    });

    if (runs('tool-stream'))
      test('a message runs a sandboxed write and read, and the answer streams in by edits of one message', async () => {
        const chat = d.dm(1);
        const deltas = [
          'I saved ',
          'your note ',
          'and read ',
          'it back: ',
          'it says ',
          'buy milk, ',
          'eggs ',
          'and bread.',
        ];
        const answer = deltas.join('');
        const from = bb.llm.requests.length;
        bb.llm.script([
          llm.answer([
            llm.toolCalls(llm.call('write', { file_path: 'notes.txt', content: 'buy milk, eggs and bread' })),
          ]),
          llm.answer([llm.toolCalls(llm.call('read', { file_path: 'notes.txt' }))]),
          llm.say(deltas, { chunkDelayMs: 300 }),
        ]);
        await d.say(chat, 'note down: buy milk, eggs and bread');
        await waitChat(chat, () => finals(chat).includes(answer), 'the final answer');
        await bb.app.gateway.idle();

        const shown = d.botMessages(chat);
        assert.equal(shown.length, 1, `one message, edited while streaming: ${JSON.stringify(shown)}`);
        const texts = shown[0]!.texts;
        assert.equal(texts.at(-1), answer);
        const partial = texts
          .slice(0, -1)
          .filter((t) => t.length > 0 && t.length < answer.length && answer.startsWith(t));
        assert.ok(
          partial.length >= 1,
          `the message showed part of the answer before the final text: ${JSON.stringify(texts)}`,
        );

        assert.equal(readFileSync(join(workspace(chat), 'notes.txt'), 'utf8'), 'buy milk, eggs and bread');
        const reqs = newRequests(from);
        assert.equal(reqs.length, 3);
        assert.match(asText(lastMessage(reqs[0]!).content), /buy milk, eggs and bread/);
        assert.ok(toolNames(reqs[0]!).includes('write'), 'full access offers write');
        assert.equal(lastMessage(reqs[1]!).role, 'tool');
        assert.doesNotMatch(asText(lastMessage(reqs[1]!).content), /refused|error/i);
        assert.equal(lastMessage(reqs[2]!).role, 'tool');
        assert.match(
          asText(lastMessage(reqs[2]!).content),
          /buy milk, eggs and bread/,
          'the read result went back to the model',
        );
        bb.llm.assertDone();
      });

    const readOnlyChatTitle =
      'in a read-only chat write is not offered, a forced write is refused, and the user still gets an answer';
    if (runs('read-only'))
      test(readOnlyChatTitle, async () => {
        const chat = d.dm(READ_ONLY_USER);
        const answer = 'I can only read files here, so nothing was written.';
        const from = bb.llm.requests.length;
        bb.llm.script([
          llm.answer([llm.toolCalls(llm.call('write', { file_path: 'forbidden.txt', content: 'should not exist' }))]),
          llm.say(answer),
        ]);
        await d.say(chat, 'write forbidden.txt please');
        await waitChat(chat, () => finals(chat).includes(answer), 'the answer');
        await bb.app.gateway.idle();

        const reqs = newRequests(from);
        assert.equal(reqs.length, 2);
        const offered = toolNames(reqs[0]!);
        assert.ok(!offered.includes('write'), `write offered in a read-only chat: ${offered.join(', ')}`);
        assert.ok(offered.includes('read'), `read not offered: ${offered.join(', ')}`);
        assert.equal(lastMessage(reqs[1]!).role, 'tool');
        assert.match(asText(lastMessage(reqs[1]!).content), /refused/i);
        assert.equal(existsSync(join(workspace(chat), 'forbidden.txt')), false, 'the refused write left no file');
        assert.deepEqual(finals(chat), [answer]);
        bb.llm.assertDone();
      });

    if (runs('stranger'))
      test('a user outside allowFrom gets a polite refusal and never reaches the model', async () => {
        const chat = d.dm(STRANGER);
        const from = bb.llm.requests.length;
        await d.say(chat, 'hello, can you run something for me?');
        await waitChat(chat, () => finals(chat).length === 1, 'the refusal');
        await bb.app.gateway.idle();
        const [reply] = finals(chat);
        assert.match(reply!, /not set up to talk with you/);
        assert.ok(reply!.includes(chat.userId), 'the refusal names the id an admin would allow');
        assert.equal(bb.llm.requests.length, from, 'the model received no request');
        assert.equal(d.botMessages(chat).length, 1);
      });

    if (runs('duplicate') && d.sayTwice)
      test('the same event delivered twice is answered once', async () => {
        const chat = d.dm(3);
        const from = bb.llm.requests.length;
        bb.llm.script([llm.say('First and only answer.'), llm.say('Answer to the follow-up.')]);
        await d.sayTwice!(chat, 'are you there?');
        await waitChat(chat, () => finals(chat).includes('First and only answer.'), 'the answer');
        // A follow-up in the same conversation is processed after anything the copy could have queued.
        await d.say(chat, 'and now?');
        await waitChat(chat, () => finals(chat).includes('Answer to the follow-up.'), 'the follow-up answer');
        await bb.app.gateway.idle();
        assert.deepEqual(finals(chat), ['First and only answer.', 'Answer to the follow-up.']);
        assert.equal(newRequests(from).length, 2, 'one model call per distinct message');
        bb.llm.assertDone();
      });

    if (runs('restart'))
      test('a restart while the model is still answering delivers the answer exactly once', async () => {
        const chat = d.dm(4);
        const answer = 'Here is the answer, after the restart.';
        const from = bb.llm.requests.length;
        bb.llm.script([llm.answer([llm.hang()])]);
        await d.say(chat, 'a question that takes a while');
        await until(() => bb.llm.requests.length === from + 1, 'the model call', 60_000);
        await bb.stop();
        assert.equal(await bb.llm.requests[from]!.ended, 'client-closed', 'the stopped boxbot hung up on the model');
        bb.llm.script([llm.say(answer)]);
        await bb.restart();
        await waitChat(chat, () => finals(chat).includes(answer), 'the answer from the new process');
        await bb.app.gateway.idle();
        assert.deepEqual(finals(chat), [answer], `what the user saw: ${JSON.stringify(d.botMessages(chat))}`);
        assert.equal(newRequests(from).length, 2);
        const rerun = bb.llm.requests[from + 1]!.body.messages as { role: string; content: unknown }[];
        assert.equal(
          asText(rerun.at(-1)!.content),
          asText(lastMessage(bb.llm.requests[from]!).content),
          'the same question was asked again',
        );
        assert.equal(
          rerun.filter((m) => m.role === 'user').length,
          1,
          'the interrupted turn left no trace in the history',
        );
        bb.llm.assertDone();
      });

    if (runs('rate-limit'))
      test('a 429 storm on sends: every reply arrives, once, in order', async () => {
        const chat = d.dm(5);
        const answers = ['Answer one.', 'Answer two.', 'Answer three.'];
        const limitedBefore = bb.app.gateway.metrics.rateLimited.get({ platform: d.platform });
        bb.llm.script(answers.map((a) => llm.say(a)));
        d.rateLimitSends(3);
        for (const q of ['first?', 'second?', 'third?']) await d.say(chat, q);
        await waitChat(chat, () => finals(chat).length >= answers.length, 'all three answers');
        await bb.app.gateway.idle();
        assert.deepEqual(finals(chat), answers);
        assert.equal(
          bb.app.gateway.metrics.rateLimited.get({ platform: d.platform }) - limitedBefore,
          3,
          'every 429 was met and retried',
        );
        bb.llm.assertDone();
      });

    if (runs('send-file'))
      test('a file a tool wrote goes back with send_file: the user gets its name, bytes and caption', async () => {
        const chat = d.dm(7);
        const csv = 'city,temp\nOslo,-3\nLima,19\n';
        const answer = 'Here is the report.';
        const from = bb.llm.requests.length;
        bb.llm.script([
          llm.answer([llm.toolCalls(llm.call('write', { file_path: 'out/report.csv', content: csv }))]),
          llm.answer([llm.toolCalls(llm.call('send_file', { path: '/out/report.csv', caption: 'Temperatures' }))]),
          llm.say(answer),
        ]);
        await d.say(chat, 'make me a report file');
        await waitChat(chat, () => finals(chat).includes(answer) && d.botFiles(chat).length === 1, 'answer and file');
        await bb.app.gateway.idle();
        const [file] = d.botFiles(chat);
        assert.equal(file!.name, 'report.csv');
        assert.equal(Buffer.from(file!.bytes).toString(), csv);
        assert.equal(file!.caption, 'Temperatures');
        const reqs = newRequests(from);
        assert.ok(toolNames(reqs[0]!).includes('send_file'), 'send_file is offered');
        assert.match(asText(lastMessage(reqs[2]!).content), /attached report\.csv \(text\/plain/);
        assert.equal(d.botFiles(chat).length, 1, 'sent once');
        bb.llm.assertDone();
      });

    if (runs('malformed'))
      test('malformed events are logged and dropped; the next message is answered', async () => {
        const chat = d.dm(6);
        const seen = () => bb.logs.filter((l) => d.malformedLog.test(l.msg)).length;
        const before = seen();
        await d.sendMalformed();
        await until(() => seen() > before, 'the malformed event in the log', 60_000);
        bb.llm.script([llm.say('Still here.')]);
        await d.say(chat, 'are you alive?');
        await waitChat(chat, () => finals(chat).includes('Still here.'), 'the answer after the junk');
        assert.deepEqual(finals(chat), ['Still here.']);
        const health = await fetch(`${bb.app.url}/healthz`);
        assert.equal(health.status, 200);
        bb.llm.assertDone();
      });
  });
}
