// Delivery of one answer: while the agent works, a typing indicator (renewed, always stopped)
// and, where the platform can edit, a preview message edited as text arrives (throttled to the
// platform's edit interval) with a one-line tool status; at the end the final answer goes
// through the outbox in chunks with receipts, the first chunk replacing the preview, then the
// files the run attached, each with its own receipt and its upload journaled before it goes out
// (so a crash in between is resumed where the platform allows it, and counted where it cannot).
// A new preview is noted before it is sent, for the same reason.
import type { AdapterCapabilities, FileUpload, OutboundFile, OutboundTarget } from '../adapters/index.ts';
import { AdapterApiError } from '../adapters/index.ts';
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { Persist } from '../runner/persist.ts';
import { type GatewayAgentEvent, GatewayStoppingError, type GatewayStore, type OutboxEntry } from '../runner/ports.ts';
import { type LeaseFence, StoreError } from '../store/index.ts';
import { EMPTY_PLACEHOLDER, splitMessage, splitRendered } from './chunk.ts';
import type { Fence, OutboundQueue } from './outbound-queue.ts';

/** The platform says the message to edit no longer exists or can no longer be edited. */
const isGone = (e: AdapterApiError): boolean =>
  e.status === 404 || /not found|not_found|unknown message|can'?t be edited|cant_update/i.test(e.description);

/**
 * How long a run's first text waits before it becomes a preview message (at most the platform's edit
 * interval): an answer complete sooner is sent once, as the answer, instead of a preview, its
 * journal notes and an edit that replaces it.
 */
export const FIRST_PREVIEW_DELAY_MS = 400;

/** Streams one run's progress to a conversation. */
export class ReplyStream {
  private born = Date.now(); // the run's start (the preview delay counts from it)
  private text = '';
  private status = '';
  // A managed run's executors, shown under the text while it works.
  private checklist = '';
  private messageId: string | undefined;
  private readonly created: ((messageId: string) => Promise<void> | void) | undefined;
  private readonly sending: (() => Promise<void>) | undefined;
  private readonly mayCreate: () => boolean;
  private readonly key: string | undefined;
  // A preview found gone is replaced under a new key (the old key names the gone message).
  private keyGeneration = 0;
  // Whether the preview's id is journaled (one left by an earlier run is). Until it is, the
  // preview is not edited: if the process dies meanwhile, the run again cannot find it, and a
  // preview left showing the whole answer would read as the answer sent twice.
  private journaled = true;
  private creating: Promise<void> | undefined;
  private lastShown = '';
  private confirmed: string | undefined;
  private flushing: Promise<void> | undefined;
  private lastFlush = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  private typingTimer: NodeJS.Timeout | undefined;
  private closed = false;
  // Held: nothing reaches the platform yet (the message's save, or the conversation's previous
  // answer's end, is not durable yet); `open` lets it.
  private held: boolean;
  private readonly mayGo: Fence | undefined;

  /**
   * `preview.existing` is the preview an interrupted run of the same message left (edited, not
   * left stale beside a new one); `preview.created` journals a new preview's id as soon as it
   * exists (resolving once it is durable); `preview.mayCreate` says whether a new preview may be
   * sent now (not while the store is failing: its id could not be recorded); `preview.sending`
   * journals that a new preview is about to be sent, before the platform is asked, so a crash
   * before its id is journaled is known after the restart (one try: a store that cannot take the
   * note does not hold the preview back; that crash window is then only not known); `preview.key`
   * is the same for every run of the same message, so where sends are idempotent a run after a
   * crash that left a preview without its journaled id gets that preview back, not a second one;
   * `preview.held` holds previews and typing until `open()`; `preview.mayGo` (replicas) is asked before
   * each preview call, so none is sent or edited here once another replica owns the conversation.
   */
  constructor(
    private readonly queue: OutboundQueue,
    private readonly caps: AdapterCapabilities,
    private readonly target: OutboundTarget,
    private readonly log: Logger,
    preview: {
      existing?: string;
      created?: (messageId: string) => Promise<void> | void;
      mayCreate?: () => boolean;
      sending?: () => Promise<void>;
      key?: string;
      held?: boolean;
      mayGo?: Fence;
    } = {},
  ) {
    this.held = preview.held ?? false;
    this.messageId = preview.existing;
    this.created = preview.created;
    this.mayCreate = preview.mayCreate ?? (() => true);
    this.sending = preview.sending;
    this.key = preview.key;
    this.mayGo = preview.mayGo;
  }

  /**
   * Marks the run's start (the first preview's delay counts from here) and starts the typing
   * indicator after `delayMs`: an answer ready sooner needs none, and its reply does not wait
   * behind a typing call in the conversation's queue.
   */
  start(delayMs = 400): void {
    this.born = Date.now();
    if (!this.caps.typing) return;
    const tick = () => {
      if (this.closed) return;
      if (!this.held) void this.queue.typing(this.target);
      // Unref'd: a typing signal never keeps a stopping process alive.
      this.typingTimer = setTimeout(tick, Math.max(1000, this.caps.typingIntervalMs - 500)).unref();
    };
    this.typingTimer = setTimeout(tick, delayMs).unref();
  }

  /**
   * Lets a held stream's previews and typing reach the platform; `existing` is a message this
   * run's answer replaces that was made while it was held (a storage-failure notice).
   */
  open(existing?: string): void {
    if (!this.held) return;
    this.held = false;
    this.messageId ??= existing;
    if (this.text || this.status || this.checklist) this.schedule();
  }

  /** Feeds one agent event. */
  onEvent(e: GatewayAgentEvent): void {
    if (this.closed) return;
    if (e.type === 'text-delta') this.text += e.text;
    else if (e.type === 'status') this.status = e.text;
    else if (e.type === 'checklist') this.checklist = e.lines.join('\n');
    else this.status = '';
    this.schedule();
  }

  private preview(): string {
    const limit = this.caps.maxTextLength;
    const status =
      (this.checklist ? `\n\n${this.checklist.replace(/[_*`]/g, '')}` : '') +
      (this.status ? `\n\n_${this.status.replace(/[_*`]/g, '')}_` : '');
    let body = this.text.trim() ? this.text : '';
    if (body.length + status.length + 2 > limit) body = `…${body.slice(body.length - (limit - status.length - 2))}`;
    // The platform counts the rendered text (a Telegram rule is 10 characters): keep the tail
    // that fits, or the preview would be refused as too long at every edit.
    const measure = this.caps.renderedLength;
    for (let keep = body.length, tries = 0; measure && tries < 8 && keep > 1; tries++) {
      const rendered = measure(body + status);
      if (rendered <= limit) break;
      keep = Math.floor((keep * (limit - status.length - 2)) / rendered) - 1;
      body = `…${body.slice(body.length - Math.max(0, keep))}`;
    }
    return (body + status).trim();
  }

  private schedule(): void {
    if (!this.caps.edit || this.flushTimer) return;
    // The first preview waits for the delay; later ones (and an earlier run's preview) for the edit interval.
    const first = !this.messageId && this.lastFlush === 0;
    const due = first
      ? this.born + Math.min(this.caps.editIntervalMs, FIRST_PREVIEW_DELAY_MS)
      : this.lastFlush + this.caps.editIntervalMs;
    const wait = Math.max(0, due - Date.now());
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.flushing = this.flush();
    }, wait);
  }

  private async flush(): Promise<void> {
    if (this.closed || this.held) return; // `open` schedules it again
    const shown = this.preview();
    if (!shown || shown === this.lastShown) return;
    if (this.messageId ? !this.journaled : !this.mayCreate()) return; // a later event tries again
    this.lastFlush = Date.now();
    this.lastShown = shown;
    try {
      if (!this.messageId) {
        if (this.creating) return;
        const sending = this.sending?.();
        const key = {
          preview: true,
          ...(this.key === undefined ? {} : { idempotencyKey: `${this.key}:${this.keyGeneration}` }),
        };
        // Closed while the note was written: no preview after the run ended.
        const send = () => (this.closed ? undefined : this.queue.send(this.target, shown, key, this.mayGo));
        this.creating = (sending ? sending.then(send, send) : Promise.resolve(send())).then((m) => {
          if (!m) return;
          this.messageId = m.messageId;
          this.confirmed = shown;
          const journaling = this.created?.(m.messageId);
          if (!journaling) return;
          this.journaled = false;
          void journaling.then(
            () => {
              this.journaled = true;
              this.schedule(); // show what arrived meanwhile
            },
            () => undefined, // never journaled: the preview stays as it is; the answer replaces it
          );
        });
        await this.creating;
      } else {
        const editing = this.messageId;
        await this.queue.edit(this.target, editing, shown, { preview: true }, this.mayGo).catch((e: unknown) => {
          // The message is gone (deleted by the user, or left by a run before a restart and
          // since removed): the next preview is a new message. Any other refusal keeps it.
          if (e instanceof AdapterApiError && isGone(e) && this.messageId === editing) {
            this.messageId = undefined;
            this.keyGeneration++;
          }
          throw e;
        });
        this.confirmed = shown;
      }
    } catch (e) {
      // A failed preview is not fatal: the final answer is delivered through the outbox. One handed
      // back (the gateway stopping, the conversation passed to another replica) did not fail.
      if (!handedBack(e)) this.log.warn({ err: errorMessage(e) }, 'stream preview failed');
    }
  }

  /** The text the preview message shows now (what the last successful send/edit carried). */
  get shown(): string | undefined {
    return this.confirmed;
  }

  /**
   * Stops typing and previews at once (no preview is sent or edited after this call); resolves
   * with the preview message id (if one exists) once the last preview call has settled.
   */
  async close(): Promise<string | undefined> {
    this.closed = true;
    clearTimeout(this.typingTimer);
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    await this.creating?.catch(() => undefined);
    // An edit still on its way decides what the preview shows; wait for it.
    await this.flushing;
    return this.messageId;
  }
}

/** Builds the outbox entry of a final answer (and the files it sends after its text). */
export function outboxEntryOf(
  id: string,
  target: OutboundTarget,
  text: string,
  caps: AdapterCapabilities,
  streamMessageId?: string,
  previewShown?: string,
  files: OutboundFile[] = [],
): OutboxEntry {
  // An answer that is only files still says so in words (and replaces the preview's status line).
  const fallback = files.length ? `(attached: ${files.map((f) => f.name).join(', ')})` : '(no answer)';
  const chunks = splitRendered(text.trim() || fallback, caps.maxTextLength, caps.renderedLength);
  return {
    id,
    conversationKey: target.conversationKey,
    target,
    chunks,
    receipts: chunks.map(() => null),
    ...(files.length ? { files: files.map((f) => ({ ...f })), fileReceipts: files.map(() => null) } : {}),
    ...(streamMessageId ? { streamMessageId } : {}),
    ...(streamMessageId && previewShown !== undefined ? { previewShown } : {}),
    createdAt: new Date().toISOString(),
  };
}

/** What delivering an outbox entry needs: the bot's queue, the store and how its writes are retried. */
export interface Delivery {
  queue: OutboundQueue;
  store: GatewayStore;
  log: Logger;
  persist: Persist;
  /** Counts a send made again that the platform may show twice (a crash after it took the first). */
  uncertain?: (kind: 'file' | 'preview') => void;
  /**
   * Replicas: whether this replica still owns the answer's conversation, asked before each platform
   * call of it (retries included). Once another replica owns it, that one answers it (from the
   * history, or the entry); a call made here too would show the answer twice.
   */
  owns?: Fence | undefined;
  /**
   * Replicas: the fence of the conversation's lease, which an answer's entry is written under (in the
   * write itself, so the replica taking the conversation over finds the entry, or none is written).
   */
  fenceOf?: ((key: string) => LeaseFence) | undefined;
}

/** The gateway's stop, or the conversation passed to another replica: not a failure of the send. */
const handedBack = (e: unknown): boolean => e instanceof GatewayStoppingError;

/**
 * An entry's write (`write` calls putOutbox with the delivery's fence) refused because the conversation
 * passed to another replica, thrown as the hand-over it is: that replica answers the message, and no
 * entry is left here to be sent a second time by a later re-drive.
 */
export async function fenced<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (e instanceof StoreError && e.code === 'fenced') throw new GatewayStoppingError(true);
    throw e;
  }
}

/** Writes an answer's entry before it is sent, under the delivery's fence (see `fenced`). */
const putEntry = (d: Delivery, entry: OutboxEntry): Promise<void> =>
  fenced(() => d.persist('outbox', () => d.store.putOutbox(entry, d.fenceOf?.(entry.conversationKey))));

/**
 * The handle journaled before a file goes to a platform with no upload handle and no idempotency
 * (Telegram): a resumed delivery that finds it knows the file may already be in the chat.
 */
export const UPLOAD_STARTED = 'started';

/** The platform refused a message as too long (after its own rendering). */
const isTooLong = (e: unknown): boolean =>
  e instanceof AdapterApiError &&
  e.status === 400 &&
  /too long|too_long|fewer in length|MAX_LENGTH/i.test(e.description);
/** The platform refused a message as empty (its text rendered to nothing). */
const isEmpty = (e: unknown): boolean =>
  e instanceof AdapterApiError && e.status === 400 && /text is empty|empty message|no_text/i.test(e.description);
/** A refusal that sending the same thing again cannot change. */
const isPermanent = (e: unknown): boolean => e instanceof AdapterApiError && !e.retryable;

/**
 * The idempotency key of one message an outbox entry sends (`part`: a chunk's index, `f<j>` a
 * file, ...): the same at every attempt, before and after a restart, so a platform with
 * idempotent sends (Discord's nonce) returns the message a crash left without a receipt.
 */
export const sendKey = (entryId: string, part: string): string => `${entryId}:${part}`;

/**
 * Puts one chunk on the platform (as an edit of `editOf`, else a new message); resolves with the
 * id of the last message it used. A chunk refused as too long (the platform's count differs from
 * ours) is split and put in pieces (each with its own key); one refused as empty is sent as a
 * placeholder.
 */
async function putChunk(
  queue: OutboundQueue,
  target: OutboundTarget,
  chunk: string,
  key: string,
  editOf?: string,
  mayGo?: Fence,
): Promise<string> {
  try {
    if (editOf) {
      await queue.edit(target, editOf, chunk, undefined, mayGo);
      return editOf;
    }
    return (await queue.send(target, chunk, { idempotencyKey: key }, mayGo)).messageId;
  } catch (e) {
    if (isTooLong(e) && chunk.length > 64) {
      const [head, ...rest] = splitMessage(chunk, Math.ceil(chunk.length / 2) + 16);
      let id = await putChunk(queue, target, head!, `${key}.0`, editOf, mayGo);
      for (const [n, piece] of rest.entries())
        id = await putChunk(queue, target, piece, `${key}.${n + 1}`, undefined, mayGo);
      return id;
    }
    if (isEmpty(e) && chunk !== EMPTY_PLACEHOLDER)
      return putChunk(queue, target, EMPTY_PLACEHOLDER, `${key}.e`, editOf, mayGo);
    throw e;
  }
}

/**
 * Delivers an outbox entry's missing chunks, then its missing files, recording each receipt;
 * resumable after a crash (what has a receipt is not sent again).
 * `answers` is the inbound message the entry answers: marked answered with the entry's end.
 * Sends that fail for a while (429, 5xx, network) and store writes that fail are retried until
 * they succeed, so this resolves only once the whole answer is out (or the gateway stops).
 * A refusal no retry can change (a 4xx other than too long or empty) marks the entry failed and
 * its message answered, tells the user once, and rejects: it is never retried at every start.
 */
export async function deliverEntry(d: Delivery, entry: OutboxEntry, answers?: string): Promise<string[]> {
  const ids = await sendEntry(d, entry, answers);
  await finishEntry(d, entry, answers);
  return ids;
}

/**
 * Writes an entry's end (and its message answered) once the platform took all of it. Until that
 * write is durable the last message sent has no receipt (its end implies it): a crash meanwhile
 * sends it again at the restart, as a crash before the end always did.
 */
export function finishEntry(d: Delivery, entry: OutboxEntry, answers?: string): Promise<void> {
  return d.persist('finish outbox', () => d.store.finishOutbox(entry.id, answers));
}

/**
 * Whether an answer's entry is in the outbox. An answer sent without one (`stored: false`, see
 * sendUnstored) writes it only when it must: with its failure, on a refusal for good.
 */
interface Stored {
  stored: boolean;
}

/**
 * Sends an answer that has no outbox entry, and resolves once the platform took it; its end is
 * then `finishAnswered`, one record. Only for an answer of one chunk and no files that is durable
 * in the conversation's history exactly as `entry` holds it (turn.ts): a process gone before that
 * record finds its message unanswered and no entry, runs it again and sends the same text from the
 * history (no model call, no second charge), as it would have resent an entry without its end.
 * The entry is written where something needs it: a refusal for good writes it with its failure (an
 * operator lists it, the message is answered); a send that failed otherwise writes it for the
 * re-drive (`redrive` in resume.ts) unless the gateway is `stopping` (the message then runs again
 * at the next start, or on the replica that owns its conversation next).
 */
export async function sendUnstored(
  d: Delivery,
  entry: OutboxEntry,
  answers: string,
  stopping: () => boolean,
): Promise<string[]> {
  if (entry.chunks.length !== 1 || entry.files?.length)
    throw new Error('only a one-chunk answer goes without an entry');
  const where: Stored = { stored: false };
  try {
    return await sendEntry(d, entry, answers, where);
  } catch (e) {
    if (!where.stored && !stopping() && !handedBack(e)) await putEntry(d, entry);
    throw e;
  }
}

/** The end of an answer sent by sendUnstored: its message is answered (one record, no entry to finish). */
export function finishAnswered(d: Delivery, answers: string): Promise<void> {
  return d.persist('answered', () => d.store.finish(answers));
}

/**
 * deliverEntry without the entry's end: resolves with the platform's ids once the platform took the whole answer.
 * `where` says whether the entry is in the outbox (it is unless the caller says otherwise).
 */
export async function sendEntry(
  d: Delivery,
  entry: OutboxEntry,
  answers?: string,
  where: Stored = { stored: true },
): Promise<string[]> {
  const { queue, log } = d;
  const files = entry.files ?? [];
  for (let i = 0; i < entry.chunks.length; i++) {
    if (entry.receipts[i]) continue;
    const chunk = entry.chunks[i]!;
    let id: string | undefined;
    try {
      if (i === 0 && entry.streamMessageId && entry.previewShown === chunk) {
        id = entry.streamMessageId; // the preview already shows exactly this text
        queue.previewFinal(entry.target, id);
      } else if (i === 0 && entry.streamMessageId) {
        try {
          id = await putChunk(queue, entry.target, chunk, sendKey(entry.id, String(i)), entry.streamMessageId, d.owns);
        } catch (e) {
          // The preview is gone or cannot be edited: send the answer as a new message instead. What
          // the preview shows now is what stays (the channel log writes it as it is, not at shutdown).
          if (!(e instanceof AdapterApiError)) throw e;
          log.warn({ err: e.message }, 'could not replace the preview; sending the answer as a new message');
          queue.previewFinal(entry.target, entry.streamMessageId);
        }
      }
      id ??= await putChunk(queue, entry.target, chunk, sendKey(entry.id, String(i)), undefined, d.owns);
    } catch (e) {
      if (!isPermanent(e)) throw e;
      await fail(d, entry, answers, e as AdapterApiError, where);
      throw e;
    }
    entry.receipts[i] = id;
    // The last receipt is implied by finishing the entry (one write fewer, same crash window).
    if (i < entry.chunks.length - 1 || files.length) await d.persist('receipt', () => d.store.receipt(entry.id, i, id));
  }
  const fileReceipts = (entry.fileReceipts ??= files.map(() => null));
  for (let j = 0; j < files.length; j++) {
    if (fileReceipts[j]) continue;
    const id = await putFile(d, entry, j, answers);
    fileReceipts[j] = id;
    if (j < files.length - 1) await d.persist('file receipt', () => d.store.fileReceipt(entry.id, j, id));
  }
  return [...(entry.receipts as string[]), ...(fileReceipts as string[])];
}

/**
 * Sends file `j` of an entry; resolves with the id of the message the user got. Where the file
 * cannot go (no file sending on this platform, the stored copy gone, a refusal) the user gets
 * one line saying so instead: a file is never dropped silently.
 */
async function putFile(d: Delivery, entry: OutboxEntry, j: number, answers?: string): Promise<string> {
  const { queue, log } = d;
  const meta = (entry.files ?? [])[j]!;
  let why: string;
  if (!queue.sendsFiles) why = 'this platform does not take files from me';
  else {
    const bytes = meta.bytes ?? (await d.persist('outbox file', () => d.store.outboxFile(entry.id, j)));
    if (!bytes) why = 'its stored copy is gone';
    else {
      const file: OutboundFile = { name: meta.name, mimeType: meta.mimeType, bytes };
      if (meta.caption) file.caption = meta.caption;
      try {
        const upload = await uploadOf(d, entry, j);
        const opts = { idempotencyKey: sendKey(entry.id, `f${j}`), ...(upload ? { upload } : {}) };
        return (await queue.sendFile(entry.target, file, opts, d.owns)).messageId;
      } catch (e) {
        if (!isPermanent(e)) throw e;
        log.warn({ entry: entry.id, file: meta.name, err: (e as Error).message }, 'the platform refused a file');
        why = `the platform refused it (${(e as AdapterApiError).description.slice(0, 200)})`;
      }
    }
  }
  const notice = `(I could not attach the file ${meta.name}: ${why}.)`;
  try {
    const opts = { format: 'plain', idempotencyKey: sendKey(entry.id, `f${j}n`) } as const;
    return (await queue.send(entry.target, notice, opts, d.owns)).messageId;
  } catch (e) {
    if (!isPermanent(e)) throw e;
    await fail(d, entry, answers, e as AdapterApiError);
    throw e;
  }
}

/**
 * Journals file `j`'s upload before it goes out, so that a crash before its receipt leaves a
 * trace: where the platform has upload handles (Slack) the adapter journals its own through the
 * FileUpload returned (a resumed upload is finished, not sent again); where it drops repeats
 * itself nothing is needed; elsewhere a marker is journaled, and finding it on a resume means the
 * platform may have the file already: it is sent again (a file is never lost for a maybe), logged
 * and counted.
 */
async function uploadOf(d: Delivery, entry: OutboxEntry, j: number): Promise<FileUpload | undefined> {
  const handles = (entry.fileHandles ??= (entry.files ?? []).map(() => null));
  const journal = (handle: string) => d.persist('upload journal', () => d.store.fileHandle(entry.id, j, handle));
  const resend = d.queue.capabilities.fileResend;
  if (resend === 'deduplicated') return undefined;
  if (resend === 'resumes') {
    const known = handles[j];
    const upload: FileUpload = {
      ...(known && known !== UPLOAD_STARTED ? { handle: known } : {}),
      async onHandle(handle) {
        await journal(handle);
        handles[j] = handle;
        upload.handle = handle; // a retry of this same call finishes this upload too
      },
    };
    return upload;
  }
  if (handles[j]) {
    d.log.warn(
      { entry: entry.id, file: (entry.files ?? [])[j]?.name, platform: d.queue.platform },
      'a file upload started before a restart has no receipt; sending it again (it may appear twice)',
    );
    d.uncertain?.('file');
    return undefined;
  }
  await journal(UPLOAD_STARTED);
  handles[j] = UPLOAD_STARTED;
  return undefined;
}

/**
 * Gives up on an entry the platform refuses for good: recorded, answered, and the user told once.
 * An entry not in the outbox yet (`where`) is written first, so that an operator sees the failure.
 */
async function fail(
  d: Delivery,
  entry: OutboxEntry,
  answers: string | undefined,
  e: AdapterApiError,
  where: Stored = { stored: true },
): Promise<void> {
  d.log.error(
    { entry: entry.id, conversation: entry.conversationKey, err: e.message },
    'the platform refused the answer; it is marked failed and not retried',
  );
  // A crash between the two writes leaves the entry pending: the restart sends it, is refused again and fails it.
  if (!where.stored) await putEntry(d, entry);
  where.stored = true;
  await d.persist('fail outbox', () => d.store.failOutbox(entry.id, e.message, answers));
  const notice = `Sorry, I could not deliver my answer: the platform refused it (${e.description.slice(0, 200)}).`;
  const warn = (err: unknown) => d.log.warn({ err: errorMessage(err) }, 'failure notice not delivered');
  // A preview still showing work in progress says so itself, rather than staying stale.
  const preview = entry.streamMessageId && !entry.receipts[0] ? entry.streamMessageId : undefined;
  if (
    preview &&
    (await d.queue.edit(entry.target, preview, notice, { format: 'plain' }).then(
      () => true,
      () => false,
    ))
  )
    return;
  await d.queue
    .send(entry.target, notice, { format: 'plain', idempotencyKey: sendKey(entry.id, 'failed') })
    .catch(warn);
}
