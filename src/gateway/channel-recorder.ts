// Recording channels (policy `history.record`): the adapters' channel events (every message the
// bot sees in a group channel, edits, deletions) and the bot's own posts go to the channel log,
// in order per channel, for the channels whose policy records them. Nothing here answers or calls
// a model: recording is beside the gateway's intake, not part of it.
import type { ChannelEvent, ChannelHistoryReader, ChannelObserver, RequestPacer } from '../adapters/channel-event.ts';
import { decodeConversationKey, spaceKeyOf } from '../adapters/conversation-key.ts';
import type { ChannelAdapter, OutboundTarget, SendOptions, SentMessage } from '../adapters/types.ts';
import { historyPolicy } from '../config/history.ts';
import type { Config } from '../config/schema.ts';
import { errorMessage } from '../core/errors.ts';
import { createKeyedLock } from '../core/keyed-lock.ts';
import type { Logger } from '../core/log.ts';
import type { ChannelLogStore } from '../store/index.ts';

/** A recorder of channel events. */
export interface ChannelRecorder {
  /** Takes one event (queued; a failed write is logged, never thrown). */
  observe: ChannelObserver;
  /**
   * Takes one of the bot's own posts or edits. A streamed answer's preview (`preview`) is edited
   * many times: it is held and written once, with the final text, when the reply is final (the
   * next post or edit of that message that is no preview, or `final` when the preview already
   * shows the final text), or at `close()`: one write per answer,
   * there as soon as the answer is, so a digest run right after it reads it.
   */
  own(event: ChannelEvent & { kind: 'message' | 'edit' }, preview?: boolean): void;
  /** A held preview already shows its final text: it is written now, as it is. */
  final(channel: string, messageId: string): void;
  /** Whether the channel (a space key) is recorded. */
  records(channel: string): boolean;
  /** Resolves once the events taken so far are written (previews still composing stay held). */
  idle(): Promise<void>;
  /** Writes the previews still held as they are, then waits for every write (shutdown). */
  close(): Promise<void>;
  /**
   * Fills the log of a recorded channel from the platform's own history since `from` (a digest
   * whose period starts before recording began); resolves with how many messages were read.
   * Each platform request goes through `pace` (the outbound queue) when given.
   */
  backfill(channel: string, from: string, read: ChannelHistoryReader | undefined, pace?: RequestPacer): Promise<number>;
}

/** How many previews wait for their final text at most (a bound on what a crash could lose). */
const MAX_HELD = 1000;

/** A recorder writing to `channelLog` for the channels `config` records. */
export function createChannelRecorder(o: {
  config: Config;
  channelLog: ChannelLogStore;
  log: Logger;
}): ChannelRecorder {
  const lock = createKeyedLock();
  const pending = new Set<Promise<void>>();
  /**
   * Previews not yet written, by channel and message id. One left behind (a run that ended with
   * its answer sent as a new message) is written when more than MAX_HELD wait, or at close().
   */
  const composing = new Map<string, ChannelEvent>();
  const records = (channel: string): boolean => {
    try {
      const { platform, chatId } = decodeConversationKey(channel);
      return historyPolicy(o.config, platform, chatId).record;
    } catch {
      return false;
    }
  };

  async function apply(e: ChannelEvent): Promise<void> {
    if (e.kind === 'delete') {
      await o.channelLog.remove(e.channel, e.messageId, e.at);
      return;
    }
    if (e.kind === 'message') {
      const { kind: _kind, files, ...entry } = e;
      await o.channelLog.put([{ ...entry, ...(files.length ? { files } : {}) }]);
      return;
    }
    const edit = {
      messageId: e.messageId,
      at: e.at,
      text: e.text,
      editedAt: e.editedAt,
      ...(e.files ? { files: e.files } : {}),
    };
    // An edit of a message posted before recording began (or whose create was missed) adds it.
    if (!(await o.channelLog.edit(e.channel, edit)) && e.userId !== undefined)
      await o.channelLog.put([
        {
          channel: e.channel,
          messageId: e.messageId,
          ...(e.threadId ? { threadId: e.threadId } : {}),
          at: e.at,
          editedAt: e.editedAt,
          userId: e.userId,
          userName: e.userName ?? e.userId,
          text: e.text,
          ...(e.files?.length ? { files: e.files } : {}),
          ...(e.bot ? { bot: true } : {}),
        },
      ]);
  }

  function observe(event: ChannelEvent): void {
    if (!records(event.channel)) return;
    // A preview deleted while held is gone: written later (final, close) it would come back.
    if (event.kind === 'delete') composing.delete(`${event.channel}\n${event.messageId}`);
    const p = lock
      .run(event.channel, () => apply(event))
      .catch((e: unknown) =>
        o.log.warn({ channel: event.channel, kind: event.kind, err: errorMessage(e) }, 'channel log not written'),
      );
    pending.add(p);
    void p.finally(() => pending.delete(p));
  }

  return {
    records,
    observe,
    own(event, preview) {
      if (!records(event.channel)) return;
      const key = `${event.channel}\n${event.messageId}`;
      const held = composing.get(key);
      // An edit of a post not yet written is that post with the new text (still being composed).
      const next: ChannelEvent =
        held?.kind === 'message' && event.kind === 'edit'
          ? { ...held, text: event.text, ...(event.files ? { files: event.files } : {}) }
          : event;
      composing.delete(key);
      if (!preview) {
        observe(next);
        return;
      }
      composing.set(key, next);
      if (composing.size > MAX_HELD) {
        const [oldest, event] = composing.entries().next().value!;
        composing.delete(oldest);
        observe(event);
      }
    },
    final(channel, messageId) {
      const key = `${channel}\n${messageId}`;
      const held = composing.get(key);
      if (!held) return;
      composing.delete(key);
      observe(held);
    },
    async idle() {
      while (pending.size) await Promise.all([...pending]);
    },
    async close() {
      for (const event of composing.values()) observe(event);
      composing.clear();
      while (pending.size) await Promise.all([...pending]);
    },
    async backfill(channel, from, read, pace) {
      if (!read || !records(channel)) return 0;
      const { chatId, scope } = decodeConversationKey(channel);
      const events: ChannelEvent[] = [];
      const tell = (e: ChannelEvent) => {
        if (e.channel === channel) events.push(e);
      };
      const n = await read({ chatId, ...(scope ? { scope } : {}) }, from, tell, undefined, pace);
      // Written in one go under the channel's order; a message the log has (recorded live, with its
      // edits) is kept as it is.
      await lock.run(channel, async () => {
        const until = new Date(Date.now() + 24 * 3600_000).toISOString();
        const have = new Set((await o.channelLog.list(channel, { from, to: until })).map((e) => e.messageId));
        const entries = events.flatMap((e) => {
          if (e.kind !== 'message' || have.has(e.messageId)) return [];
          const { kind: _kind, files, ...entry } = e;
          return [{ ...entry, ...(files.length ? { files } : {}) }];
        });
        if (entries.length) await o.channelLog.put(entries);
      });
      if (n) o.log.info({ channel, from, read: n }, 'channel log backfilled from the platform');
      return n;
    },
  };
}

/**
 * The adapter with its sends and edits in recorded channels also written to the channel log as
 * the bot's own posts (Telegram echoes none of them; Slack and Discord echoes are not observed).
 * Everything else is the adapter's own.
 */
export function recordingAdapter(
  adapter: ChannelAdapter,
  recorder: ChannelRecorder,
  now = () => new Date(),
): ChannelAdapter {
  // When each of the bot's recent messages was posted (an edit finds its message by it).
  const sentAt = new Map<string, string>();
  const channelOf = (target: OutboundTarget): string | undefined => {
    try {
      const channel = spaceKeyOf(target.conversationKey);
      return recorder.records(channel) ? channel : undefined;
    } catch {
      return undefined;
    }
  };
  const own = (target: OutboundTarget, messageId: string, text: string, files: string[], preview?: boolean): void => {
    const channel = channelOf(target);
    if (!channel) return;
    const at = now().toISOString();
    sentAt.set(`${channel}\n${messageId}`, at);
    if (sentAt.size > 5000) sentAt.delete(sentAt.keys().next().value!);
    const me = adapter.identity();
    recorder.own(
      {
        kind: 'message',
        channel,
        messageId,
        ...(target.threadId ? { threadId: target.threadId } : {}),
        at,
        userId: me?.id ?? 'boxbot',
        userName: me?.name ?? 'boxbot',
        text,
        files,
        bot: true,
      },
      preview,
    );
  };
  const send = async (target: OutboundTarget, text: string, opts?: SendOptions): Promise<SentMessage> => {
    const sent = await adapter.send(target, text, opts);
    own(target, sent.messageId, text, [], opts?.preview);
    return sent;
  };
  const edit = async (target: OutboundTarget, messageId: string, text: string, opts?: SendOptions): Promise<void> => {
    await adapter.edit(target, messageId, text, opts);
    const channel = channelOf(target);
    if (!channel) return;
    const at = sentAt.get(`${channel}\n${messageId}`) ?? now().toISOString();
    recorder.own({ kind: 'edit', channel, messageId, at, editedAt: now().toISOString(), text }, opts?.preview);
  };
  const sendFile: ChannelAdapter['sendFile'] = adapter.sendFile
    ? async (target, file, opts) => {
        const sent = await adapter.sendFile!(target, file, opts);
        own(target, sent.messageId, file.caption ?? '', [file.name]);
        return sent;
      }
    : undefined;
  const previewFinal = (target: OutboundTarget, messageId: string): void => {
    const channel = channelOf(target);
    if (channel) recorder.final(channel, messageId);
    adapter.previewFinal?.(target, messageId);
  };
  const overrides: Record<string | symbol, unknown> = { send, edit, previewFinal, ...(sendFile ? { sendFile } : {}) };
  return new Proxy(adapter, {
    get(target, prop, receiver) {
      if (prop in overrides) return overrides[prop];
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}
