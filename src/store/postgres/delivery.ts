// The delivery state as rows: seen ids (the dedupe window), the inbound journal and the outbox
// with receipts. Each call is one statement or one transaction, so replicas sharing a database
// see one truth: a redelivered event is accepted by exactly one of them (the seen id's primary
// key decides), and a reply's receipts are never reset. Failed replies (never delivered again)
// are kept for inspection within a retention, enforced whenever another one fails and at open.

import { StoreError } from '../errors.ts';
import type { FailedReply, OutboxEntry } from '../types.ts';
import type { BackendDelivery, BackendPending, Retention, StoredMessage } from '../validated.ts';
import { type Db, orderedRuns } from './db.ts';
import { decodeKey, encodeKey } from './text-codec.ts';

/**
 * The preview_id of a message whose preview is being sent (notePreviewSending): a backslash before
 * a letter, which encodeKey never writes, so no platform's message id reads as it.
 */
const PREVIEW_SENDING = '\\sending';

/** The lease named $1 is held by $2 unexpired, its row locked against a takeover until the transaction ends. */
const HELD_LEASE = `SELECT 1 FROM boxbot_leases WHERE name = $1 AND holder = $2 AND expires_at > clock_timestamp()
  FOR SHARE`;

/** What is stored of an outbox entry besides its receipts (the preview shown and file bytes are not in it). */
type StoredEntry = Omit<OutboxEntry, 'receipts' | 'fileReceipts' | 'fileHandles' | 'previewShown'>;

/**
 * Drops failed rows beyond their retention (a pending one may still be delivered): the too old, then
 * beyond the newest maxCount. Run with each failure, and once at open for what expired meanwhile.
 */
export async function pruneFailedOutbox(q: Db['query'], now: number, failed: Retention): Promise<void> {
  await q(`DELETE FROM boxbot_outbox WHERE state = 'failed' AND failed_at < $1`, [
    new Date(now - failed.maxAgeMs).toISOString(),
  ]);
  await q(
    `DELETE FROM boxbot_outbox WHERE id IN
       (SELECT id FROM boxbot_outbox WHERE state = 'failed' ORDER BY failed_at DESC, seq DESC OFFSET $1)`,
    [failed.maxCount],
  );
}

/** The delivery store in PostgreSQL. */
export function createPgDelivery(db: Db, now: () => number, dedupe: Retention, failed: Retention): BackendDelivery {
  const stamp = (): string => new Date(now()).toISOString();
  // Accepted messages are journaled in call order (their seq is the resume order), and a reply's
  // changes in the order made.
  const orderRun = orderedRuns(db);

  /** Sets the platform message id of chunk or file `index` of an entry, in order and under the row's lock. */
  const setReceipt = (
    column: 'receipts' | 'file_receipts',
    what: string,
    entryId: string,
    index: number,
    platformMessageId: string,
  ): Promise<void> =>
    orderRun(`entry:${entryId}`, (d) =>
      d.tx(async (q) => {
        const [row] = await q<{ list: string | null }>(
          `SELECT ${column} AS list FROM boxbot_outbox WHERE id = $1 FOR UPDATE`,
          [encodeKey(entryId)],
        );
        const receipts = row?.list ? (JSON.parse(row.list) as (string | null)[]) : [];
        if (!row || !Number.isInteger(index) || index < 0 || index >= receipts.length)
          throw new StoreError('not-found', `outbox entry ${JSON.stringify(entryId)} has no ${what} ${index}`);
        receipts[index] = platformMessageId;
        await q(`UPDATE boxbot_outbox SET ${column} = $2 WHERE id = $1`, [
          encodeKey(entryId),
          JSON.stringify(receipts),
        ]);
      }),
    );

  return {
    async accept(message) {
      const id = encodeKey(message.id);
      return orderRun('seq', (d) =>
        d.tx(async (q) => {
          await q('DELETE FROM boxbot_seen WHERE seen_at < $1', [now() - dedupe.maxAgeMs]);
          const fresh = await q(
            'INSERT INTO boxbot_seen (id, seen_at) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING id',
            [id, now()],
          );
          if (!fresh.length) return false;
          await q(
            'INSERT INTO boxbot_inbound (id, conversation_key, message) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
            [id, encodeKey(message.conversationKey), JSON.stringify(message)],
          );
          await q(
            `DELETE FROM boxbot_seen WHERE seq <= (SELECT seq FROM boxbot_seen ORDER BY seq DESC OFFSET $1 LIMIT 1)`,
            [dedupe.maxCount],
          );
          return true;
        }),
      );
    },
    async finish(messageId) {
      await db.query('DELETE FROM boxbot_inbound WHERE id = $1', [encodeKey(messageId)]);
    },
    async pending(conversationKey) {
      // Rows journaled before the key had its column (migration 6) have none: read with every
      // key's, and told apart by the message they hold.
      const rows = await db.query<{ message: string; preview_id: string | null }>(
        conversationKey === undefined
          ? 'SELECT message, preview_id FROM boxbot_inbound ORDER BY seq'
          : `SELECT message, preview_id FROM boxbot_inbound
             WHERE conversation_key = $1 OR conversation_key IS NULL ORDER BY seq`,
        conversationKey === undefined ? [] : [encodeKey(conversationKey)],
      );
      return rows
        .map(
          (r): BackendPending => ({
            message: JSON.parse(r.message) as StoredMessage,
            ...(r.preview_id === PREVIEW_SENDING
              ? { previewSending: true }
              : r.preview_id !== null
                ? { previewMessageId: decodeKey(r.preview_id) }
                : {}),
          }),
        )
        .filter((p) => conversationKey === undefined || p.message.conversationKey === conversationKey);
    },
    async notePreviewSending(messageId) {
      // Only where no preview id is journaled: one known is never replaced by not knowing.
      await db.query('UPDATE boxbot_inbound SET preview_id = $2 WHERE id = $1 AND preview_id IS NULL', [
        encodeKey(messageId),
        PREVIEW_SENDING,
      ]);
    },
    async notePreview(messageId, previewMessageId) {
      await db.query('UPDATE boxbot_inbound SET preview_id = $2 WHERE id = $1', [
        encodeKey(messageId),
        encodeKey(previewMessageId),
      ]);
    },
    async startMediaWork(messageId, index) {
      const key = String(index);
      // One statement: the count goes up and its new value comes back (no row: answered meanwhile).
      const rows = await db.query<{ count: number }>(
        `UPDATE boxbot_inbound
           SET media_work = jsonb_set(COALESCE(media_work, '{}'::jsonb), ARRAY[$2::text],
                                      to_jsonb(COALESCE((media_work ->> $2::text)::int, 0) + 1))
         WHERE id = $1 RETURNING (media_work ->> $2::text)::int AS count`,
        [encodeKey(messageId), key],
      );
      return rows.length ? Number(rows[0]!.count) - 1 : 0;
    },
    async endMediaWork(messageId, index) {
      await db.query('UPDATE boxbot_inbound SET media_work = media_work - $2::text WHERE id = $1 AND media_work ? $2', [
        encodeKey(messageId),
        String(index),
      ]);
    },
    async putOutbox(entry, fence) {
      const { receipts: _r, fileReceipts: _f, fileHandles: _h, previewShown: _p, files, ...rest } = entry;
      const stored: StoredEntry = {
        ...rest,
        ...(files ? { files: files.map(({ bytes: _b, ...meta }) => meta) } : {}),
        createdAt: stamp(),
      };
      const id = encodeKey(entry.id);
      await orderRun('seq', (d) =>
        d.tx(async (q) => {
          // The lease row is locked until this commits: a replica taking the conversation over
          // waits for the entry, then finds it (its read of the outbox comes after its take).
          if (fence && !(await q(HELD_LEASE, [fence.lease, fence.holder])).length)
            throw new StoreError(
              'fenced',
              `outbox entry ${JSON.stringify(entry.id)} not written: ${fence.holder} no longer holds ${fence.lease}`,
            );
          const put = await q(
            `INSERT INTO boxbot_outbox (id, conversation_key, entry, receipts, file_receipts)
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING RETURNING id`,
            [
              id,
              encodeKey(entry.conversationKey),
              JSON.stringify(stored),
              JSON.stringify(entry.chunks.map(() => null)),
              files ? JSON.stringify(files.map(() => null)) : null,
            ],
          );
          // A repeated put keeps the stored entry, its receipts and its file copies.
          if (!put.length) return;
          for (const [idx, f] of (files ?? []).entries())
            await q('INSERT INTO boxbot_outbox_files (entry_id, idx, bytes) VALUES ($1, $2, $3)', [
              id,
              idx,
              Buffer.from(f.bytes ?? new Uint8Array()),
            ]);
        }),
      );
    },
    async fileReceipt(entryId, index, platformMessageId) {
      await setReceipt('file_receipts', 'file', entryId, index, platformMessageId);
    },
    async fileHandle(entryId, index, handle) {
      await orderRun(`entry:${entryId}`, (d) =>
        d.tx(async (q) => {
          const [row] = await q<{ receipts: string | null; handles: string | null }>(
            'SELECT file_receipts AS receipts, file_handles AS handles FROM boxbot_outbox WHERE id = $1 FOR UPDATE',
            [encodeKey(entryId)],
          );
          // As many handles as files (the file receipts' length); none journaled yet: all null.
          const count = row?.receipts ? (JSON.parse(row.receipts) as unknown[]).length : 0;
          if (!row || !Number.isInteger(index) || index < 0 || index >= count)
            throw new StoreError('not-found', `outbox entry ${JSON.stringify(entryId)} has no file ${index}`);
          const handles = row.handles
            ? (JSON.parse(row.handles) as (string | null)[])
            : Array.from({ length: count }, () => null);
          handles[index] = handle;
          await q('UPDATE boxbot_outbox SET file_handles = $2 WHERE id = $1', [
            encodeKey(entryId),
            JSON.stringify(handles),
          ]);
        }),
      );
    },
    async outboxFile(entryId, index) {
      const [row] = await db.query<{ bytes: Buffer }>(
        `SELECT f.bytes FROM boxbot_outbox_files f JOIN boxbot_outbox o ON o.id = f.entry_id
         WHERE f.entry_id = $1 AND f.idx = $2 AND o.state = 'pending'`,
        [encodeKey(entryId), index],
      );
      return row ? new Uint8Array(row.bytes) : undefined;
    },
    async receipt(entryId, index, platformMessageId) {
      await setReceipt('receipts', 'chunk', entryId, index, platformMessageId);
    },
    async finishOutbox(entryId, answeredMessageId) {
      await db.tx(async (q) => {
        const gone = await q(`DELETE FROM boxbot_outbox WHERE id = $1 AND state = 'pending' RETURNING id`, [
          encodeKey(entryId),
        ]);
        if (gone.length) await q('DELETE FROM boxbot_outbox_files WHERE entry_id = $1', [encodeKey(entryId)]);
        if (answeredMessageId !== undefined)
          await q('DELETE FROM boxbot_inbound WHERE id = $1', [encodeKey(answeredMessageId)]);
      });
    },
    async failOutbox(entryId, error, answeredMessageId) {
      await db.tx(async (q) => {
        // Failed replies are aged by when the send gave up, not by when the reply was made (one retried
        // for days and refused just now is kept its full time).
        await q(`UPDATE boxbot_outbox SET state = 'failed', error = $2, failed_at = $3 WHERE id = $1`, [
          encodeKey(entryId),
          error,
          stamp(),
        ]);
        await q('DELETE FROM boxbot_outbox_files WHERE entry_id = $1', [encodeKey(entryId)]);
        await pruneFailedOutbox(q, now(), failed);
        if (answeredMessageId !== undefined)
          await q('DELETE FROM boxbot_inbound WHERE id = $1', [encodeKey(answeredMessageId)]);
      });
    },
    async pendingOutbox(conversationKey) {
      const rows = await db.query<{
        entry: string;
        receipts: string;
        file_receipts: string | null;
        file_handles: string | null;
      }>(
        conversationKey === undefined
          ? `SELECT entry, receipts, file_receipts, file_handles FROM boxbot_outbox
             WHERE state = 'pending' ORDER BY seq`
          : `SELECT entry, receipts, file_receipts, file_handles FROM boxbot_outbox
             WHERE state = 'pending' AND conversation_key = $1 ORDER BY seq`,
        conversationKey === undefined ? [] : [encodeKey(conversationKey)],
      );
      return rows.map(
        (r): OutboxEntry => ({
          ...(JSON.parse(r.entry) as StoredEntry),
          receipts: JSON.parse(r.receipts),
          ...(r.file_receipts ? { fileReceipts: JSON.parse(r.file_receipts) } : {}),
          ...(r.file_handles ? { fileHandles: JSON.parse(r.file_handles) } : {}),
        }),
      );
    },
    async failedOutbox() {
      const rows = await db.query<{ entry: string; error: string | null; failed_at: Date | null }>(
        `SELECT entry, error, failed_at FROM boxbot_outbox WHERE state = 'failed' ORDER BY failed_at DESC, seq DESC`,
      );
      return rows.map((r): FailedReply => {
        const e = JSON.parse(r.entry) as StoredEntry;
        return {
          id: e.id,
          conversationKey: e.conversationKey,
          text: e.chunks.join(''),
          files: (e.files ?? []).map((f) => f.name),
          error: r.error ?? '',
          createdAt: e.createdAt,
          failedAt: (r.failed_at ?? new Date(e.createdAt)).toISOString(),
        };
      });
    },
    async answered(conversationKey) {
      const rows = await db.query('SELECT 1 FROM boxbot_conversations WHERE key = $1 AND has_answer', [
        encodeKey(conversationKey),
      ]);
      return rows.length > 0;
    },
  };
}
