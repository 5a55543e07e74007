// In-memory fakes for gateway tests: a platform that records what the bot posted (with
// injectable 429s and failures), an agent that answers from a function, and a gateway store.
import type {
  AdapterCapabilities,
  Button,
  ChannelAdapter,
  CommandSpec,
  InboundMessage,
  InboundSink,
  OutboundFile,
  OutboundTarget,
  Platform,
  SendOptions,
} from '../../src/adapters/index.ts';
import { AdapterApiError } from '../../src/adapters/index.ts';
import type { AgentRunner, AgentRunReply, AgentRunRequest, GatewayStore, OutboxEntry } from '../../src/runner/ports.ts';
import { StoreError } from '../../src/store/errors.ts';
import type { FailedReply, LeaseFence, LeaseStore } from '../../src/store/types.ts';
import { waitUntil } from '../helpers.ts';

/** A message as the fake platform holds it. */
export interface FakePosted {
  chatId: string;
  threadId?: string;
  messageId: string;
  text: string;
  edits: number;
  /** The buttons under it now (the last send or edit that set them). */
  buttons?: Button[];
}

/** A direct user message as a platform delivers it (chat 100 of `over.platform`, default telegram). */
export function inboundMessage(text: string, over: Partial<InboundMessage> = {}): InboundMessage {
  const platform = over.platform ?? 'telegram';
  const chatId = over.chatId ?? '100';
  return {
    id: `${platform}:evt:0`,
    platform,
    conversationKey: `${platform}:${chatId}`,
    chatId,
    messageId: 'u0',
    userId: '42',
    userName: 'ada',
    text,
    isDirect: true,
    mentionsBot: false,
    attachments: [],
    receivedAt: new Date().toISOString(),
    raw: {},
    ...over,
  };
}

/** A chat platform that edits, types and threads, with `over` changed. */
export function fakeCapabilities(over: Partial<AdapterCapabilities> = {}): AdapterCapabilities {
  return {
    edit: true,
    typing: true,
    threads: true,
    maxTextLength: 100,
    editIntervalMs: 5,
    typingIntervalMs: 5000,
    ...over,
  };
}

/** A fake chat platform. */
export class FakeAdapter implements ChannelAdapter {
  readonly posted: FakePosted[] = [];
  typings = 0;
  sink: InboundSink | undefined;
  private next = 1;
  /** Calls (send/edit) to answer 429 before succeeding. */
  rateLimits = 0;
  rateLimitMs = 50;
  /** Fails every send once with a network-ish 503 when set. */
  fail503 = 0;
  /** Called before each send; may throw. */
  beforeSend: ((text: string) => void) | undefined;
  calls: string[] = [];
  /** What each press was answered, privately (answerPress). */
  readonly pressAnswers: { userId: string; buttonId: string; text: string }[] = [];
  /** The command menus registered (setCommands). */
  readonly menus: CommandSpec[][] = [];
  /** Set to undefined for a platform without buttons (the gateway then asks for typed answers). */
  answerPress: ((press: InboundMessage, text: string) => Promise<void>) | undefined = async (press, text) => {
    this.pressAnswers.push({ userId: press.userId, buttonId: press.action?.id ?? '', text });
  };
  /** Set to undefined for a platform without a command menu. */
  setCommands: ((commands: CommandSpec[]) => Promise<void>) | undefined = async (commands) => {
    this.menus.push(structuredClone(commands));
  };

  constructor(
    readonly platform: Platform = 'telegram',
    readonly capabilities: AdapterCapabilities = fakeCapabilities(),
  ) {}

  async start(sink: InboundSink) {
    this.sink = sink;
  }
  async stop() {
    this.sink = undefined;
  }
  protected nextId(): number {
    return this.next++;
  }
  protected gateFile(): void {
    this.gate();
  }
  private gate(): void {
    if (this.rateLimits > 0) {
      this.rateLimits--;
      throw new AdapterApiError(this.platform, 429, 'Too Many Requests', this.rateLimitMs);
    }
    if (this.fail503 > 0) {
      this.fail503--;
      throw new AdapterApiError(this.platform, 503, 'Service Unavailable');
    }
  }
  async send(target: OutboundTarget, text: string, opts?: SendOptions) {
    this.calls.push(`send:${text.slice(0, 20)}`);
    this.gate();
    this.beforeSend?.(text);
    if (text.length > this.capabilities.maxTextLength)
      throw new AdapterApiError(this.platform, 400, 'message is too long');
    const messageId = String(this.next++);
    this.posted.push({
      chatId: target.chatId,
      ...(target.threadId ? { threadId: target.threadId } : {}),
      messageId,
      text,
      edits: 0,
      ...(opts?.buttons?.length ? { buttons: structuredClone(opts.buttons) } : {}),
    });
    return { messageId };
  }
  async edit(_target: OutboundTarget, messageId: string, text: string, opts?: SendOptions) {
    this.calls.push(`edit:${text.slice(0, 20)}`);
    this.gate();
    const m = this.posted.find((p) => p.messageId === messageId);
    if (!m) throw new AdapterApiError(this.platform, 400, 'message to edit not found');
    m.text = text;
    m.edits++;
    if (opts?.buttons) {
      if (opts.buttons.length) m.buttons = structuredClone(opts.buttons);
      else delete m.buttons;
    }
  }
  async typing() {
    this.typings++;
  }
  routes() {
    return [];
  }
  identity() {
    return { id: 'bot', name: 'boxbot' };
  }
  /** A user message as the platform would deliver it. */
  async say(text: string, over: Partial<InboundMessage> = {}): Promise<InboundMessage> {
    const n = this.next++;
    const msg = inboundMessage(text, {
      id: `${this.platform}:evt:${n}`,
      platform: this.platform,
      messageId: `u${n}`,
      ...over,
    });
    await this.sink!(msg);
    return msg;
  }
  /** A user presses a button (by its label) under the bot's message; resolves once the gateway took the press. */
  async press(label: string, over: Partial<InboundMessage> = {}): Promise<void> {
    const m = [...this.posted].reverse().find((p) => p.buttons?.some((b) => b.label === label));
    if (!m) throw new Error(`no message shows a ${label} button: ${JSON.stringify(this.posted)}`);
    const button = m.buttons!.find((b) => b.label === label)!;
    const n = this.next++;
    await this.sink!(
      inboundMessage('', {
        id: `${this.platform}:press:${n}`,
        platform: this.platform,
        action: { id: button.id, messageId: m.messageId, handle: `h${n}` },
        ...over,
      }),
    );
  }
  /** Texts the bot posted in a chat, in order. */
  texts(chatId = '100'): string[] {
    return this.posted.filter((p) => p.chatId === chatId).map((p) => p.text);
  }
}

/** A file as the fake platform received it. */
export interface FakeFile {
  chatId: string;
  messageId: string;
  name: string;
  mimeType: string;
  bytes: Uint8Array;
  caption?: string;
}

/** A fake platform that takes files too (`sendFile`), sharing the message ids and faults of sends. */
export class FakeFileAdapter extends FakeAdapter {
  readonly files: FakeFile[] = [];
  /** Called before each file send; may throw. */
  beforeFile: ((file: OutboundFile) => void) | undefined;
  async sendFile(target: OutboundTarget, file: OutboundFile) {
    this.calls.push(`file:${file.name}`);
    this.gateFile();
    this.beforeFile?.(file);
    const messageId = String(this.nextId());
    this.files.push({
      chatId: target.chatId,
      messageId,
      name: file.name,
      mimeType: file.mimeType,
      bytes: new Uint8Array(file.bytes),
      ...(file.caption ? { caption: file.caption } : {}),
    });
    return { messageId };
  }
  /** Names of the files sent to a chat, in order. */
  fileNames(chatId = '100'): string[] {
    return this.files.filter((f) => f.chatId === chatId).map((f) => f.name);
  }
}

/** What a FakeAgent answer may be: the text, or the text with files. */
export type FakeAnswer = string | { text: string; files?: OutboundFile[] };

/** An agent answering from a function; records what it was asked. */
export class FakeAgent implements AgentRunner {
  readonly seen: AgentRunRequest[] = [];
  readonly resets: string[] = [];
  constructor(
    private readonly answer: (req: AgentRunRequest) => Promise<FakeAnswer> | FakeAnswer = (r) =>
      `echo: ${r.message.text}`,
  ) {}
  async run(req: AgentRunRequest): Promise<AgentRunReply> {
    // As the real runner: nothing is asked of the model before the message's save is durable, nor for a duplicate.
    if (req.ready && !(await req.ready)) return { text: '', outcome: 'interrupted' };
    this.seen.push(req);
    try {
      const a = await this.answer(req);
      return typeof a === 'string' ? { text: a, outcome: 'final' } : { ...a, outcome: 'final' };
    } catch (e) {
      if (req.signal.aborted) return { text: 'Stopped.', outcome: 'cancelled' };
      throw e;
    }
  }
  async reset(key: string) {
    this.resets.push(key);
  }
  toolsFor() {
    return ['read', 'ls'];
  }
}

/** A gateway store in memory; `snapshot`/`restore` simulate a restart. */
export class MemoryGatewayStore implements GatewayStore {
  seen = new Set<string>();
  journal = new Map<string, InboundMessage>();
  previews = new Map<string, string>();
  outbox = new Map<string, OutboxEntry>();
  async accept(m: InboundMessage) {
    if (this.seen.has(m.id)) return false;
    this.seen.add(m.id);
    this.journal.set(m.id, structuredClone(m));
    return true;
  }
  async finish(id: string) {
    this.journal.delete(id);
    this.previews.delete(id);
  }
  async pending(conversationKey?: string) {
    const all = [...this.journal.values()];
    return all
      .filter((m) => conversationKey === undefined || m.conversationKey === conversationKey)
      .map((m) => ({
        message: structuredClone(m),
        ...(this.previews.has(m.id) ? { previewMessageId: this.previews.get(m.id)! } : {}),
        ...(this.sending.has(m.id) && !this.previews.has(m.id) ? { previewSending: true } : {}),
      }));
  }
  sending = new Set<string>();
  async notePreviewSending(id: string) {
    if (this.journal.has(id)) this.sending.add(id);
  }
  async notePreview(id: string, previewMessageId: string) {
    if (this.journal.has(id)) this.previews.set(id, previewMessageId);
  }
  /** `<message id>:<attachment index>` → starts of host-side work that never ended. */
  mediaWork = new Map<string, number>();
  async startMediaWork(id: string, index: number) {
    if (!this.journal.has(id)) return 0;
    const before = this.mediaWork.get(`${id}:${index}`) ?? 0;
    this.mediaWork.set(`${id}:${index}`, before + 1);
    return before;
  }
  async endMediaWork(id: string, index: number) {
    this.mediaWork.delete(`${id}:${index}`);
  }
  /** The leases a fenced putOutbox is checked against, as PostgreSQL checks its lease rows (replicas). */
  leases?: { holds(name: string, holder: string): boolean };
  async putOutbox(e: OutboxEntry, fence?: LeaseFence) {
    if (fence && this.leases && !this.leases.holds(fence.lease, fence.holder))
      throw new StoreError('fenced', `${fence.holder} no longer holds ${fence.lease}`);
    this.outbox.set(e.id, structuredClone(e));
  }
  async receipt(id: string, i: number, mid: string) {
    const e = this.outbox.get(id);
    if (e) e.receipts[i] = mid;
  }
  async finishOutbox(id: string, answered?: string) {
    this.outbox.delete(id);
    if (answered !== undefined) {
      this.journal.delete(answered);
      this.previews.delete(answered);
    }
  }
  failed = new Map<string, string>();
  private failedEntries: FailedReply[] = [];
  async failOutbox(id: string, error: string, answered?: string) {
    const e = this.outbox.get(id);
    if (e)
      this.failedEntries.unshift({
        id,
        conversationKey: e.conversationKey,
        text: e.chunks.join(''),
        files: (e.files ?? []).map((f) => f.name),
        error,
        createdAt: e.createdAt,
        failedAt: new Date().toISOString(),
      });
    this.outbox.delete(id);
    this.failed.set(id, error);
    if (answered !== undefined) this.journal.delete(answered);
  }
  answeredKeys = new Set<string>();
  async answered(key: string) {
    return this.answeredKeys.has(key);
  }
  async fileReceipt(id: string, i: number, mid: string) {
    const e = this.outbox.get(id);
    if (e?.fileReceipts) e.fileReceipts[i] = mid;
  }
  async fileHandle(id: string, i: number, handle: string) {
    const e = this.outbox.get(id);
    if (e?.files?.[i]) (e.fileHandles ??= e.files.map(() => null))[i] = handle;
  }
  /** File copies by entry id (the bytes put with the entry; deleting one simulates a lost copy). */
  async outboxFile(id: string, i: number) {
    return this.outbox.get(id)?.files?.[i]?.bytes;
  }
  async failedOutbox() {
    return structuredClone(this.failedEntries);
  }
  async pendingOutbox(conversationKey?: string) {
    return [...this.outbox.values()]
      .filter((e) => conversationKey === undefined || e.conversationKey === conversationKey)
      .map((e) => structuredClone(e));
  }
}

export { sleep } from '../../src/core/sleep.ts';

/**
 * Polls until `pred` holds (fails after 60 s naming `what`): the limit only turns a hang into a failure, so it
 * is far above what a busy machine takes.
 */
export const until = (pred: () => boolean, what: string): Promise<void> => waitUntil(pred, what, 60_000);

/**
 * Leases in memory with the database's rules (the PostgreSQL store's, without a database): they
 * expire on the real clock, the fence grows at each change of holder, and `down` makes every call
 * fail like a lost database; `leaders()` lists the holders of unexpired leases.
 */
export function memoryLeases() {
  const rows = new Map<string, { holder: string; fence: number; expires: number }>();
  const store = {
    down: false,
    leaders: (): string[] => [...rows.values()].filter((r) => r.expires > Date.now()).map((r) => r.holder),
    holds(name: string, holder: string): boolean {
      const row = rows.get(name);
      return row?.holder === holder && row.expires > Date.now();
    },
    async acquire(name: string, holder: string, ttlMs: number) {
      if (store.down) throw new Error('connection refused');
      const row = rows.get(name);
      if (row && row.holder !== holder && row.expires > Date.now()) return undefined;
      const fence = !row ? 1 : row.holder === holder ? row.fence : row.fence + 1;
      rows.set(name, { holder, fence, expires: Date.now() + ttlMs });
      return fence;
    },
    async release(name: string, holder: string) {
      const row = rows.get(name);
      if (row?.holder === holder) row.expires = 0;
    },
  } satisfies LeaseStore & Record<string, unknown>;
  return store;
}
