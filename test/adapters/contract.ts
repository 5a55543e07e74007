// The contract every channel adapter runs (Hono's common-case pattern): each platform's test
// file supplies a harness over its emulator, which speaks the platform's real wire protocol to
// the real client library, and calls `adapterContract`. Platform specifics live in that file.
import assert from 'node:assert/strict';
import { after, before, describe, type TestContext, test } from 'node:test';
import {
  AdapterApiError,
  AdapterError,
  type AttachmentKind,
  type ChannelAdapter,
  decodeConversationKey,
  type InboundMessage,
} from '../../src/adapters/index.ts';
import { waitUntil } from '../helpers.ts';

/** A message the bot sent, as the emulator holds it (latest text after edits). */
export interface EmulatedBotMessage {
  chatId: string;
  threadId?: string;
  messageId: string;
  text: string;
  edits: number;
}

/** A file the bot sent, as the platform's user receives it. */
export interface EmulatedBotFile {
  chatId: string;
  messageId?: string;
  name: string;
  bytes: Uint8Array;
  caption?: string;
  /** How the platform presents it: inline as an image, or as a file to download. */
  shownAs: 'image' | 'file';
}

/** What a platform test provides: its adapter wired to a running emulator. */
export interface AdapterHarness {
  adapter: ChannelAdapter;
  /** A user message delivered by the emulator the way the platform would (socket, poll or webhook). */
  userSays(opts: {
    text: string;
    direct?: boolean;
    mention?: boolean;
    userId?: string;
    userName?: string;
    fromBot?: boolean;
    threadId?: string;
  }): Promise<void>;
  /**
   * A user sends a file in the direct chat (with an optional caption), the way the platform
   * delivers one; absent where the harness has no files yet (those contract cases are skipped).
   */
  userSendsFile?(file: {
    kind: AttachmentKind;
    name: string;
    mimeType: string;
    bytes: Uint8Array;
    caption?: string;
  }): Promise<void>;
  /** An event the adapter must survive and drop (wrong shape, missing fields). */
  sendMalformed(): Promise<void>;
  /** The target of the direct chat and of the group chat userSays uses. */
  directTarget(): { chatId: string; conversationKey: string };
  groupTarget(): { chatId: string; conversationKey: string };
  /** Everything the bot has posted, in order. */
  botMessages(): EmulatedBotMessage[];
  /** Typing signals received. */
  typingCount(): number;
  /** The next `n` send calls are answered 429 with this retry-after. */
  rateLimitNext(n: number, retryAfterMs: number): void;
  /** Files the bot sent, in order (platforms whose adapter sends files). */
  botFiles?(): EmulatedBotFile[];
  /** The next `n` file uploads are answered 429 with this retry-after. */
  rateLimitFilesNext?(n: number, retryAfterMs: number): void;
  close(): Promise<void>;
  /** In-chat control (buttons, presses, native commands), where the adapter implements it. */
  controls?: ControlHarness;
}

/** What the emulator shows and does for buttons and native commands (all in the direct chat). */
export interface ControlHarness {
  /** The buttons under a bot message as the platform shows them, in order (none: empty). */
  buttonsOf(messageId: string): { id: string; label: string }[];
  /** `userId` presses the button `buttonId` under the bot message `messageId`. */
  press(o: { messageId: string; buttonId: string; userId: string }): Promise<void>;
  /** The platform delivers the last press once more (a retry after a lost acknowledgement). */
  redeliverLastPress(): Promise<void>;
  /** Texts shown to single users only (ephemeral messages, callback answers), in order. */
  privateAnswers(): { userId: string; text: string }[];
  /** The commands in the platform's own menu, and whether each takes an argument. */
  registeredCommands(): { name: string; argument: boolean }[];
  /** `userId` runs a native command from the platform's menu, with an optional argument. */
  runCommand(o: { name: string; arg?: string; userId: string }): Promise<void>;
}

/** A valid 1×1 PNG (what a chart a tool drew starts like). */
export const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * Waits until `pred` holds, polling; fails with `what` after `ms`. The default bounds a hang, not
 * speed: 5 s failed a Telegram polling test whose offset was saved later on a loaded machine.
 */
export const until = (pred: () => boolean, what: string, ms = 30_000): Promise<void> => waitUntil(pred, what, ms);

/**
 * What a platform does not have, each with the reason; the contract cases that need it are
 * skipped saying so (the web chat has one local user, no groups, no other bots, no rate limits).
 */
export type MissingFeatures = Partial<Record<'groups' | 'otherBots' | 'rateLimits' | 'userIds' | 'files', string>>;

/**
 * The start rule every adapter keeps: start() before stop() is refused with `already-started`
 * naming the platform, and the refused call's sink gets nothing. Returns that sink's messages.
 */
export async function assertSecondStartRefused(adapter: ChannelAdapter, platform: string): Promise<InboundMessage[]> {
  const second: InboundMessage[] = [];
  await assert.rejects(
    adapter.start(async (m) => {
      second.push(m);
    }),
    (e: unknown) => {
      assert.ok(e instanceof AdapterError, `expected AdapterError, got ${String(e)}`);
      assert.equal(e.code, 'already-started');
      assert.equal(e.channel, platform);
      return true;
    },
  );
  return second;
}

/** Runs the shared adapter contract against `setup()`'s harness. */
export function adapterContract(
  platform: string,
  setup: () => Promise<AdapterHarness>,
  missing: MissingFeatures = {},
): void {
  const needs = (feature: keyof MissingFeatures) => (missing[feature] ? { skip: missing[feature] } : {});
  describe(`${platform} adapter contract`, () => {
    let h: AdapterHarness;
    const got: InboundMessage[] = [];
    before(async () => {
      h = await setup();
      await h.adapter.start(async (m) => {
        got.push(m);
      });
    });
    after(async () => {
      await h.adapter.stop();
      await h.close();
    });

    test('a direct message arrives normalized with a decodable conversation key', async () => {
      got.length = 0;
      await h.userSays({ text: 'hello there', direct: true, userId: '4242', userName: 'ada' });
      await until(() => got.length === 1, 'the direct message');
      const m = got[0]!;
      assert.equal(m.platform, platform);
      assert.equal(m.isDirect, true);
      assert.equal(m.text, 'hello there');
      if (!missing.userIds) assert.equal(m.userId, '4242');
      assert.ok(m.id.length > 0);
      assert.equal(m.conversationKey, h.directTarget().conversationKey);
      assert.equal(decodeConversationKey(m.conversationKey).platform, platform);
      assert.ok(!Number.isNaN(Date.parse(m.receivedAt)));
    });

    test('a group mention arrives with mentionsBot and without the mention text', needs('groups'), async () => {
      got.length = 0;
      await h.userSays({ text: 'what is up', mention: true });
      await until(() => got.length === 1, 'the mention');
      const m = got[0]!;
      assert.equal(m.isDirect, false);
      assert.equal(m.mentionsBot, true);
      assert.equal(m.text, 'what is up');
      assert.equal(m.conversationKey.startsWith(h.groupTarget().conversationKey), true);
    });

    test('a group message without a mention is not presented as addressed to the bot', needs('groups'), async () => {
      got.length = 0;
      await h.userSays({ text: 'just chatting', mention: false });
      await h.userSays({ text: 'marker', mention: true });
      await until(() => got.some((m) => m.text === 'marker'), 'the marker message');
      for (const m of got.filter((x) => x.text === 'just chatting')) assert.equal(m.mentionsBot, false);
    });

    test("other bots' messages never reach the sink", needs('otherBots'), async () => {
      got.length = 0;
      await h.userSays({ text: 'beep from a bot', direct: true, fromBot: true });
      await h.userSays({ text: 'marker 2', direct: true });
      await until(() => got.some((m) => m.text === 'marker 2'), 'the marker message');
      assert.equal(
        got.some((m) => m.text === 'beep from a bot'),
        false,
      );
    });

    test('a malformed event is dropped and the adapter keeps working', async () => {
      got.length = 0;
      await h.sendMalformed();
      await h.userSays({ text: 'after the bad one', direct: true });
      await until(() => got.some((m) => m.text === 'after the bad one'), 'the message after the malformed one');
      assert.equal(got.length, 1);
    });

    test('send, edit and typing reach the platform', async () => {
      const target = h.directTarget();
      const before = h.botMessages().length;
      const sent = await h.adapter.send(target, 'first draft', { format: 'plain' });
      assert.ok(sent.messageId);
      await h.adapter.edit(target, sent.messageId, 'final text', { format: 'plain' });
      const typingBefore = h.typingCount();
      await h.adapter.typing(target);
      const typings = typingBefore + (h.adapter.capabilities.typing ? 1 : 0);
      // Where the platform pushes to its clients (the web chat), they see it a moment later.
      await until(
        () => h.botMessages().slice(before).at(-1)?.text === 'final text' && h.typingCount() === typings,
        'the edited message and the typing signal',
      );
      const mine = h.botMessages().slice(before);
      assert.equal(mine.length, 1);
      assert.equal(mine[0]!.messageId, sent.messageId);
      assert.equal(mine[0]!.text, 'final text');
      assert.equal(mine[0]!.chatId, target.chatId);
      assert.ok(mine[0]!.edits >= 1);
      assert.equal(h.typingCount(), typings);
    });

    test('a message at the platform limit is accepted whole', async () => {
      const text = 'x'.repeat(h.adapter.capabilities.maxTextLength);
      const sent = await h.adapter.send(h.directTarget(), text, { format: 'plain' });
      await until(() => h.botMessages().some((m) => m.messageId === sent.messageId), 'the long message');
      assert.equal(h.botMessages().find((m) => m.messageId === sent.messageId)?.text, text);
    });

    test(
      'a 429 surfaces as a retryable AdapterApiError with the retry-after, and nothing is posted',
      needs('rateLimits'),
      async () => {
        const before = h.botMessages().length;
        h.rateLimitNext(1, 1500);
        await assert.rejects(h.adapter.send(h.directTarget(), 'too fast', { format: 'plain' }), (e: unknown) => {
          assert.ok(e instanceof AdapterApiError, `expected AdapterApiError, got ${String(e)}`);
          assert.equal(e.status, 429);
          assert.equal(e.retryable, true);
          assert.ok(e.retryAfterMs !== undefined && e.retryAfterMs >= 1000, `retryAfterMs ${e.retryAfterMs}`);
          return true;
        });
        assert.equal(h.botMessages().length, before);
        await h.adapter.send(h.directTarget(), 'now fine', { format: 'plain' });
        await until(() => h.botMessages().at(-1)?.text === 'now fine', 'the message after the 429');
      },
    );

    // The control cases run where the adapter implements the method and the emulator has controls;
    // elsewhere they are skipped at run time (the harness exists only once `before` ran).
    const controls = (t: TestContext, what?: 'answerPress' | 'setCommands'): ControlHarness | undefined => {
      if (h.controls && (!what || h.adapter[what])) return h.controls;
      t.skip(`no in-chat controls${what ? ` (${what})` : ''} on this adapter or its emulator`);
      return undefined;
    };

    const buttonsTitle =
      'buttons are shown under a message, kept by a plain edit, replaced, and removed by an empty list';
    test(buttonsTitle, async (t) => {
      const c = controls(t);
      if (!c) return;
      const target = h.directTarget();
      const sent = await h.adapter.send(target, 'approve the tool call?', {
        format: 'plain',
        buttons: [
          { id: 'approve:1', label: 'Approve', style: 'primary' },
          { id: 'deny:1', label: 'Deny', style: 'danger' },
        ],
      });
      const shown = () => c.buttonsOf(sent.messageId).map((b) => `${b.id}=${b.label}`);
      await until(() => shown().length === 2, 'the buttons');
      assert.deepEqual(shown(), ['approve:1=Approve', 'deny:1=Deny']);
      await h.adapter.edit(target, sent.messageId, 'approve the tool call? (waiting)', { format: 'plain' });
      await until(() => h.botMessages().some((m) => m.text.endsWith('(waiting)')), 'the plain edit');
      assert.deepEqual(shown(), ['approve:1=Approve', 'deny:1=Deny']);
      await h.adapter.edit(target, sent.messageId, 'still waiting', {
        format: 'plain',
        buttons: [{ id: 'cancel:1', label: 'Cancel' }],
      });
      await until(() => shown().join() === 'cancel:1=Cancel', 'the replaced buttons');
      await h.adapter.edit(target, sent.messageId, 'approved', { format: 'plain', buttons: [] });
      await until(() => shown().length === 0, 'the buttons removed');
      assert.equal(h.botMessages().find((m) => m.messageId === sent.messageId)?.text, 'approved');
    });

    test('a button id over 64 bytes is refused at the send, naming it, and nothing is posted', async (t) => {
      if (!controls(t)) return;
      const before = h.botMessages().length;
      const id = 'x'.repeat(65);
      await assert.rejects(
        h.adapter.send(h.directTarget(), 'pick', { format: 'plain', buttons: [{ id, label: 'X' }] }),
        (e: unknown) => e instanceof AdapterError && e.code === 'bad-button' && e.message.includes(id),
      );
      assert.equal(h.botMessages().length, before);
    });

    test('a press reaches the sink once, with the presser and the message it was under', async (t) => {
      const c = controls(t);
      if (!c) return;
      const sent = await h.adapter.send(h.directTarget(), 'pick one', {
        format: 'plain',
        buttons: [{ id: 'pick:a', label: 'A' }],
      });
      await until(() => c.buttonsOf(sent.messageId).length === 1, 'the button');
      got.length = 0;
      await c.press({ messageId: sent.messageId, buttonId: 'pick:a', userId: '4242' });
      await until(() => got.length === 1, 'the press');
      const m = got[0]!;
      assert.equal(m.text, '');
      assert.deepEqual(
        { id: m.action?.id, messageId: m.action?.messageId },
        { id: 'pick:a', messageId: sent.messageId },
      );
      if (!missing.userIds) assert.equal(m.userId, '4242');
      assert.equal(m.conversationKey, h.directTarget().conversationKey);
      assert.equal(m.mentionsBot, true);
      // A redelivery is dropped here or carries the same id (the gateway's dedupe drops it then).
      await c.redeliverLastPress();
      await h.userSays({ text: 'after the press', direct: true });
      await until(() => got.some((x) => x.text === 'after the press'), 'the message after the redelivery');
      const presses = got.filter((x) => x.action);
      assert.ok(
        presses.every((x) => x.id === m.id),
        'a redelivered press keeps its id',
      );
    });

    test('answerPress is shown to the presser only', async (t) => {
      const c = controls(t, 'answerPress');
      if (!c) return;
      const sent = await h.adapter.send(h.directTarget(), 'vote', {
        format: 'plain',
        buttons: [{ id: 'v', label: 'Vote' }],
      });
      await until(() => c.buttonsOf(sent.messageId).length === 1, 'the button');
      got.length = 0;
      await c.press({ messageId: sent.messageId, buttonId: 'v', userId: '4242' });
      await until(() => got.length === 1, 'the press');
      const before = h.botMessages().length;
      await h.adapter.answerPress!(got[0]!, 'only you can see this');
      await until(() => c.privateAnswers().some((a) => a.text === 'only you can see this'), 'the private answer');
      assert.deepEqual(
        c
          .privateAnswers()
          .filter((a) => a.text === 'only you can see this')
          .map((a) => a.userId),
        [missing.userIds ? got[0]!.userId : '4242'],
      );
      assert.equal(h.botMessages().length, before, 'nothing was posted for everyone');
    });

    test('commands are registered in the platform menu, each with its argument where it takes one', async (t) => {
      const c = controls(t, 'setCommands');
      if (!c) return;
      await h.adapter.setCommands!([
        {
          name: 'model',
          description: 'Show or switch the model',
          argument: { name: 'name', description: 'a model' },
        },
        { name: 'usage', description: 'Show what this conversation cost' },
      ]);
      await until(() => c.registeredCommands().length === 2, 'the registered commands');
      assert.deepEqual(
        c
          .registeredCommands()
          .map((x) => `${x.name}:${x.argument}`)
          .sort(),
        ['model:true', 'usage:false'],
      );
    });

    test('a native command reaches the sink as /name arg, addressed to the bot', async (t) => {
      const c = controls(t);
      if (!c) return;
      // Platforms that register commands know them before they are used.
      await h.adapter.setCommands?.([
        { name: 'model', description: 'Show or switch the model', argument: { name: 'name', description: 'a model' } },
        { name: 'usage', description: 'Show what this conversation cost' },
      ]);
      got.length = 0;
      await c.runCommand({ name: 'model', arg: 'openai/gpt-4o', userId: '4242' });
      await until(() => got.length === 1, 'the first command');
      await c.runCommand({ name: 'usage', userId: '4242' });
      await until(() => got.length === 2, 'the second command');
      assert.deepEqual(
        got.map((m) => m.text),
        ['/model openai/gpt-4o', '/usage'],
      );
      assert.ok(got.every((m) => m.mentionsBot && !m.action));
      if (!missing.userIds) assert.ok(got.every((m) => m.userId === '4242'));
    });
    const files = missing.files ? { skip: missing.files } : {};
    // A platform whose harness lists no files sends none (yet): the gateway tells the user so instead.
    const noFiles = (t: TestContext): boolean => {
      if (!h.botFiles) {
        t.skip('this platform sends no files');
        return true;
      }
      assert.ok(h.adapter.sendFile, 'the adapter has no sendFile');
      return false;
    };
    test('files go natively: name, bytes and caption as sent, an image shown as an image', files, async (t) => {
      if (noFiles(t)) return;
      const botFiles = () => h.botFiles!();
      const target = h.directTarget();
      const before = botFiles().length;
      const png = new Uint8Array([...PNG_1X1]);
      const csv = new Uint8Array(Buffer.from('city,temp\nOslo,-3\n'));
      const image = await h.adapter.sendFile!(target, {
        name: 'chart.png',
        mimeType: 'image/png',
        bytes: png,
        caption: 'Temperatures',
      });
      const doc = await h.adapter.sendFile!(target, { name: 'temps.csv', mimeType: 'text/plain', bytes: csv });
      assert.ok(image.messageId && doc.messageId);
      await until(() => botFiles().length === before + 2, 'both files');
      const [a, b] = botFiles().slice(before);
      assert.equal(a!.name, 'chart.png');
      assert.deepEqual([...a!.bytes], [...png]);
      assert.equal(a!.caption, 'Temperatures');
      assert.equal(a!.shownAs, 'image');
      assert.equal(a!.chatId, target.chatId);
      assert.equal(b!.name, 'temps.csv');
      assert.equal(Buffer.from(b!.bytes).toString(), 'city,temp\nOslo,-3\n');
      assert.equal(b!.shownAs, 'file');
      assert.ok(!b!.caption);
    });

    test(
      'a 429 on a file upload surfaces as retryable with its retry-after, and no file is posted',
      files,
      async (t) => {
        if (noFiles(t)) return;
        if (!h.rateLimitFilesNext) return t.skip('the harness cannot rate limit uploads');
        const before = h.botFiles!().length;
        h.rateLimitFilesNext(1, 1500);
        const file = { name: 'a.txt', mimeType: 'text/plain', bytes: new Uint8Array(Buffer.from('a')) };
        await assert.rejects(h.adapter.sendFile!(h.directTarget(), file), (e: unknown) => {
          assert.ok(e instanceof AdapterApiError, `expected AdapterApiError, got ${String(e)}`);
          assert.equal(e.status, 429);
          assert.equal(e.retryable, true);
          assert.ok(e.retryAfterMs !== undefined && e.retryAfterMs >= 1000, `retryAfterMs ${e.retryAfterMs}`);
          return true;
        });
        assert.equal(h.botFiles!().length, before);
        await h.adapter.sendFile!(h.directTarget(), file);
        await until(() => h.botFiles!().length === before + 1, 'the file after the 429');
      },
    );

    const fileCase = (name: string, fn: (send: NonNullable<AdapterHarness['userSendsFile']>) => Promise<void>) =>
      test(name, async (t) => {
        if (!h.userSendsFile) return t.skip('this harness sends no files yet');
        assert.ok(h.adapter.fetchAttachment, 'an adapter that receives files can fetch them');
        await fn(h.userSendsFile.bind(h));
      });

    fileCase('a photo arrives as an image attachment, and fetchAttachment returns its bytes', async (send) => {
      got.length = 0;
      const bytes = Uint8Array.from({ length: 3000 }, (_, i) => (i * 7) % 256);
      await send({ kind: 'image', name: 'cat.png', mimeType: 'image/png', bytes, caption: 'look at this' });
      await until(() => got.length === 1, 'the photo message');
      const m = got[0]!;
      assert.equal(m.text, 'look at this');
      assert.equal(m.attachments.length, 1, 'one attachment (a photo in several sizes is one file)');
      const a = m.attachments[0]!;
      assert.equal(a.kind, 'image');
      const fetched = await h.adapter.fetchAttachment!(a, { maxBytes: 1024 * 1024 });
      assert.deepEqual(new Uint8Array(fetched.bytes), bytes);
    });

    fileCase('a voice note or audio file arrives labelled as such, without text', async (send) => {
      got.length = 0;
      await send({ kind: 'voice', name: 'voice.ogg', mimeType: 'audio/ogg', bytes: new Uint8Array(500).fill(3) });
      await until(() => got.length === 1, 'the voice message');
      const a = got[0]!.attachments[0]!;
      assert.ok(a.kind === 'voice' || a.kind === 'audio', `kind ${a.kind}`);
      assert.equal(got[0]!.text, '');
      assert.equal((await h.adapter.fetchAttachment!(a, { maxBytes: 1000 })).bytes.length, 500);
    });

    fileCase(
      'a document past maxBytes is refused with AdapterError too-large, with or without its size',
      async (send) => {
        got.length = 0;
        await send({ kind: 'document', name: 'big.log', mimeType: 'text/plain', bytes: new Uint8Array(64 * 1024) });
        await until(() => got.length === 1, 'the document message');
        const a = got[0]!.attachments[0]!;
        assert.equal(a.kind, 'document');
        const { size: _declared, ...undeclared } = a;
        for (const att of [a, undeclared])
          await assert.rejects(h.adapter.fetchAttachment!(att, { maxBytes: 1000 }), (e: unknown) => {
            assert.ok(e instanceof AdapterError, `expected AdapterError, got ${String(e)}`);
            assert.equal(e.code, 'too-large');
            assert.equal(e.channel, platform);
            return true;
          });
      },
    );

    test('start while started is refused, and messages keep reaching the first sink', async () => {
      const second = await assertSecondStartRefused(h.adapter, platform);
      got.length = 0;
      await h.userSays({ text: 'after the second start', direct: true });
      await until(() => got.some((m) => m.text === 'after the second start'), 'the message after the refused start');
      assert.equal(second.length, 0);
    });

    test('after stop, no message reaches the sink; started again, messages reach the new one', async () => {
      await h.adapter.stop();
      got.length = 0;
      await h.userSays({ text: 'while stopped', direct: true }).catch(() => undefined);
      // Started again with a new sink (start must be callable again): once a message sent now has
      // reached it, anything still on its way to the old sink would have arrived too.
      const later: InboundMessage[] = [];
      await h.adapter.start(async (m) => {
        later.push(m);
      });
      await h.userSays({ text: 'after the restart', direct: true });
      await until(() => later.some((m) => m.text === 'after the restart'), 'the message after the restart');
      assert.deepEqual(got, [], 'nothing reached the old sink after stop');
    });
  });
}
