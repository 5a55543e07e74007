// Slack's external upload flow, the one way a bot sends a file now (files.upload is retired):
// files.getUploadURLExternal names the file and its size and answers a one-time URL; the bytes
// are POSTed there; files.completeUploadExternal shares the file in the channel (or thread) with
// the caption as its comment. A failure at any step surfaces as an AdapterError, so the gateway's
// outbound queue retries the whole upload (an upload never completed is discarded by Slack).
// Exactly once: the file id is journaled (FileUpload.onHandle) once the bytes are up and before
// the share, the one step the channel sees. Handed that id again (a retry after the share's
// answer was lost, or a restart), the upload is not made again: files.info says whether the file
// is already shared where it goes (taken as delivered) or not yet (the share is made now).
import type { WebClient } from '@slack/web-api';
import { fetchFailureCode } from '../../core/errors.ts';
import { AdapterApiError, AdapterNetworkError } from '../errors.ts';
import type { FileUpload, OutboundFile, OutboundTarget, SentMessage } from '../types.ts';
import { toAdapterError } from './api.ts';

const call = async <T>(fn: () => Promise<T>): Promise<T> => {
  try {
    return await fn();
  } catch (e) {
    throw toAdapterError(e);
  }
};

/** Slack no longer has the file (never uploaded whole, discarded unshared, or deleted). */
const isGone = (e: unknown): boolean =>
  e instanceof AdapterApiError && /^(file_not_found|file_deleted)$/.test(e.description);

/**
 * Uploads `file` to `target` through `web`; resolves with the shared file's id. With `upload`,
 * the file id is journaled before the share, and an upload it names is finished instead of redone.
 */
export async function uploadFile(
  web: WebClient,
  target: OutboundTarget,
  file: OutboundFile,
  opts: { timeoutMs: number },
  upload?: FileUpload,
): Promise<SentMessage> {
  if (upload?.handle) {
    const resumed = await resume(web, target, file, upload.handle);
    if (resumed) return resumed;
  }
  const ticket = await call(() =>
    web.files.getUploadURLExternal({ filename: file.name, length: file.bytes.byteLength }),
  );
  if (typeof ticket.upload_url !== 'string' || typeof ticket.file_id !== 'string')
    throw new AdapterApiError('slack', 502, 'files.getUploadURLExternal answered without an upload URL');
  await postBytes(ticket.upload_url, file, opts.timeoutMs);
  await upload?.onHandle(ticket.file_id);
  return share(web, target, file, ticket.file_id);
}

/**
 * Finishes the upload of file `id` journaled earlier: delivered if already shared in the target
 * channel (thread), shared now if not; undefined when Slack no longer has it (uploaded anew).
 */
async function resume(
  web: WebClient,
  target: OutboundTarget,
  file: OutboundFile,
  id: string,
): Promise<SentMessage | undefined> {
  let shares: unknown;
  try {
    shares = (await call(() => web.files.info({ file: id }))).file?.shares;
  } catch (e) {
    if (isGone(e)) return undefined;
    throw e;
  }
  if (sharedIn(shares, target)) return { messageId: id };
  try {
    return await share(web, target, file, id);
  } catch (e) {
    if (isGone(e)) return undefined;
    throw e;
  }
}

/** Whether files.info's `shares` (`{public|private: {channel: [{ts, thread_ts?}]}}`) show the file in the target. */
function sharedIn(shares: unknown, target: OutboundTarget): boolean {
  if (!shares || typeof shares !== 'object') return false;
  for (const scope of Object.values(shares as Record<string, unknown>)) {
    const list = (scope as Record<string, unknown> | null)?.[target.chatId];
    if (!Array.isArray(list)) continue;
    for (const s of list as { ts?: unknown; thread_ts?: unknown }[]) {
      // A share in a thread names its thread; one in the channel itself names none (or its own ts).
      const thread = typeof s.thread_ts === 'string' && s.thread_ts !== s.ts ? s.thread_ts : undefined;
      if (thread === target.threadId) return true;
    }
  }
  return false;
}

/** Shares uploaded file `id` in the target channel (thread), with the caption as its comment. */
async function share(web: WebClient, target: OutboundTarget, file: OutboundFile, id: string): Promise<SentMessage> {
  const destination = target.threadId
    ? { channel_id: target.chatId, thread_ts: target.threadId }
    : { channel_id: target.chatId };
  await call(() =>
    web.files.completeUploadExternal({
      files: [{ id, title: file.name }],
      ...destination,
      ...(file.caption ? { initial_comment: file.caption } : {}),
    }),
  );
  return { messageId: id };
}

/** POSTs the bytes to the one-time upload URL (it needs no token: the URL is the credential). */
async function postBytes(url: string, file: OutboundFile, timeoutMs: number): Promise<void> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: new Uint8Array(file.bytes),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    const why = fetchFailureCode(e) ?? (e instanceof Error ? e.name : String(e));
    // Never the URL itself: it grants the upload.
    throw new AdapterNetworkError('slack', `file upload failed: ${why}`);
  }
  await res.arrayBuffer().catch(() => undefined);
  if (res.ok) return;
  const seconds = Number(res.headers.get('retry-after'));
  const retryAfterMs = res.status === 429 ? (Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000 : undefined;
  throw new AdapterApiError('slack', res.status, `file upload answered ${res.status}`, retryAfterMs);
}
