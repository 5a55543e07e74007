// What the Discord adapter keeps across restarts: the gateway session (id, sequence, resume URL),
// so a restart RESUMEs and Discord replays what was posted meanwhile, and the last message seen
// per channel, so a session that cannot be resumed is caught up from the channels' history.
// discord.js moves the sequence forward before a dispatch is handled; the sequence saved here is
// the last one whose messages the sink has accepted, so a crash in between means a replay (which
// the gateway's dedupe absorbs), never a gap. Writes are coalesced: one in flight, the next
// carrying the latest state, so a lost write only costs a few replayed events.
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import type { AdapterState } from '../types.ts';

/** The session as @discordjs/ws hands it to its `updateSessionInfo` hook. */
export interface GatewaySession {
  sessionId: string;
  sequence: number;
  resumeURL: string;
  shardId: number;
  shardCount: number;
}

/** The last message the sink accepted in a channel (and the channel's guild: history messages lack it). */
export interface ChannelSeen {
  channelId: string;
  guildId?: string;
  messageId: string;
}

/** kv keys (AdapterState). */
export const DISCORD_SESSION_KEY = 'discord.session';
export const DISCORD_CHANNELS_KEY = 'discord.channels';

/** Channels remembered for catching up; the least recently active beyond this are forgotten. */
const MAX_CHANNELS = 1000;
/** How long writes wait to be coalesced. */
const WRITE_DELAY_MS = 200;

const SNOWFLAKE = /^\d{1,20}$/;

/** Which of two snowflakes is later (they order by time). */
export function laterSnowflake(a: string, b: string): boolean {
  return a.length !== b.length ? a.length > b.length : a > b;
}

function parseSession(v: unknown): GatewaySession | null {
  if (typeof v !== 'object' || v === null) return null;
  const s = v as Record<string, unknown>;
  const ok =
    typeof s.sessionId === 'string' &&
    s.sessionId.length > 0 &&
    typeof s.resumeURL === 'string' &&
    /^wss?:\/\//.test(s.resumeURL) &&
    Number.isSafeInteger(s.sequence) &&
    Number.isSafeInteger(s.shardId) &&
    Number.isSafeInteger(s.shardCount);
  if (!ok) return null;
  const { sessionId, sequence, resumeURL, shardId, shardCount } = s as unknown as GatewaySession;
  return { sessionId, sequence, resumeURL, shardId, shardCount };
}

function parseChannels(v: unknown): ChannelSeen[] {
  if (!Array.isArray(v)) return [];
  const out: ChannelSeen[] = [];
  for (const e of v) {
    if (typeof e !== 'object' || e === null) continue;
    const { c, g, m } = e as Record<string, unknown>;
    if (typeof c !== 'string' || !SNOWFLAKE.test(c) || typeof m !== 'string' || !SNOWFLAKE.test(m)) continue;
    out.push({ channelId: c, messageId: m, ...(typeof g === 'string' && SNOWFLAKE.test(g) ? { guildId: g } : {}) });
  }
  return out.slice(-MAX_CHANNELS);
}

/**
 * The session and channel marks of one adapter run. `retrieve`/`update` are the gateway's
 * session hooks; `hold` marks a dispatch in progress; `accepted` records a channel's progress.
 */
export class SessionKeeper {
  private live: GatewaySession | null = null;
  /** Sequence numbers of dispatches not yet handled, of the current session. */
  private readonly held = new Set<number>();
  private channels = new Map<string, ChannelSeen>();
  /** Channels whose progress stops for this run (a message the sink did not take). */
  private readonly frozen = new Set<string>();
  private dirty = { session: false, channels: false };
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private stopping = false;

  constructor(
    private readonly state: AdapterState | undefined,
    private readonly log: Logger,
  ) {}

  /** Reads what an earlier run left (a malformed value is ignored: it only costs a fresh session). */
  async load(): Promise<void> {
    if (!this.state) return;
    this.stopping = false;
    try {
      this.live = parseSession(await this.state.get(DISCORD_SESSION_KEY));
      this.channels = new Map(parseChannels(await this.state.get(DISCORD_CHANNELS_KEY)).map((c) => [c.channelId, c]));
    } catch (e) {
      this.log.warn({ err: errorMessage(e) }, 'could not read the saved Discord session; starting a new one');
    }
  }

  /** The session hook: what to RESUME (null: IDENTIFY). */
  retrieve(): GatewaySession | null {
    return this.live;
  }

  /** The session hook: the gateway's session changed (null: it ended). */
  update(info: GatewaySession | null): void {
    // discord.js ends the session as it closes on stop; the saved one stays resumable.
    if (this.stopping) return;
    if (!info || info.sessionId !== this.live?.sessionId) this.held.clear();
    this.live = info ? { ...info } : null;
    this.schedule('session');
  }

  /** Drops the saved session (it could not be resumed): the next connection identifies anew. */
  forget(): void {
    this.live = null;
    this.held.clear();
    this.schedule('session');
  }

  /** Marks dispatch `seq` as in progress; the returned function marks it handled. */
  hold(seq: number): () => void {
    if (!Number.isSafeInteger(seq) || !this.live) return () => undefined;
    const session = this.live.sessionId;
    this.held.add(seq);
    return () => {
      if (this.live?.sessionId !== session) return;
      this.held.delete(seq);
      this.schedule('session');
    };
  }

  /** The sink accepted `messageId` in a channel. */
  accepted(seen: ChannelSeen): void {
    if (this.frozen.has(seen.channelId)) return;
    const cur = this.channels.get(seen.channelId);
    if (cur && !laterSnowflake(seen.messageId, cur.messageId)) return;
    this.channels.delete(seen.channelId); // re-inserted last: the map's order is recency
    this.channels.set(seen.channelId, { ...seen, ...(cur?.guildId && !seen.guildId ? { guildId: cur.guildId } : {}) });
    if (this.channels.size > MAX_CHANNELS) this.channels.delete(this.channels.keys().next().value!);
    this.schedule('channels');
  }

  /** The sink refused a message of this channel: its mark stays before it until the next run. */
  freeze(channelId: string): void {
    this.frozen.add(channelId);
  }

  /** Channels to catch up after a session that could not be resumed, most recently active last. */
  tracked(): ChannelSeen[] {
    return [...this.channels.values()];
  }

  /** The session as saved: its sequence is the last one handled. */
  private saved(): GatewaySession | null {
    if (!this.live) return null;
    const pending = this.held.size ? Math.min(...this.held) - 1 : this.live.sequence;
    return { ...this.live, sequence: Math.max(0, Math.min(pending, this.live.sequence)) };
  }

  private schedule(what: 'session' | 'channels'): void {
    if (!this.state || this.stopping) return;
    this.dirty[what] = true;
    if (this.timer || this.writing) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, WRITE_DELAY_MS);
    this.timer.unref();
  }

  /** Writes what changed; a failed write is logged and retried with the next change. */
  private flush(): Promise<void> {
    if (this.writing) return this.writing;
    const state = this.state;
    if (!state || (!this.dirty.session && !this.dirty.channels)) return Promise.resolve();
    const dirty = this.dirty;
    this.dirty = { session: false, channels: false };
    const session = this.saved();
    const channels = [...this.channels.values()].map((c) => ({
      c: c.channelId,
      m: c.messageId,
      ...(c.guildId ? { g: c.guildId } : {}),
    }));
    this.writing = (async () => {
      try {
        if (dirty.session) await state.set(DISCORD_SESSION_KEY, session);
        if (dirty.channels) await state.set(DISCORD_CHANNELS_KEY, channels);
      } catch (e) {
        this.log.warn({ err: errorMessage(e) }, 'could not save the Discord session; a restart may replay more');
        this.dirty.session ||= dirty.session;
        this.dirty.channels ||= dirty.channels;
      } finally {
        this.writing = undefined;
      }
      if (this.dirty.session) this.schedule('session');
      if (this.dirty.channels) this.schedule('channels');
    })();
    return this.writing;
  }

  /** Stops taking session changes (the connection is closing) and writes what is pending. */
  async close(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.writing;
    await this.flush();
  }
}
