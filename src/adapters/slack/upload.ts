// Slack's external upload flow, the one way a bot sends a file now (files.upload is retired):
// files.getUploadURLExternal names the file and its size and answers a one-time URL; the bytes
// are POSTed there; files.completeUploadExternal shares the file in the channel (or thread) with
// the caption as its comment. A failure at any step surfaces as an AdapterError, so the gateway's
// outbound queue retries the whole upload (an upload never completed is discarded by Slack).
import type { WebClient } from '@slack/web-api';
import { fetchFailureCode } from '../../errors.ts';
import { AdapterApiError, AdapterNetworkError } from '../errors.ts';
import type { OutboundFile, OutboundTarget, SentMessage } from '../types.ts';
import { toAdapterError } from './api.ts';

/** Uploads `file` to `target` through `web`; resolves with the shared file's id. */
export async function uploadFile(
  web: WebClient,
  target: OutboundTarget,
  file: OutboundFile,
  opts: { timeoutMs: number },
): Promise<SentMessage> {
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      throw toAdapterError(e);
    }
  };
  const ticket = await call(() =>
    web.files.getUploadURLExternal({ filename: file.name, length: file.bytes.byteLength }),
  );
  if (typeof ticket.upload_url !== 'string' || typeof ticket.file_id !== 'string')
    throw new AdapterApiError('slack', 502, 'files.getUploadURLExternal answered without an upload URL');
  await postBytes(ticket.upload_url, file, opts.timeoutMs);
  const destination = target.threadId
    ? { channel_id: target.chatId, thread_ts: target.threadId }
    : { channel_id: target.chatId };
  await call(() =>
    web.files.completeUploadExternal({
      files: [{ id: ticket.file_id!, title: file.name }],
      ...destination,
      ...(file.caption ? { initial_comment: file.caption } : {}),
    }),
  );
  return { messageId: ticket.file_id };
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
