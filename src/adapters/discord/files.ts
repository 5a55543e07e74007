// Inbound files on Discord: every attachment of a message carries its CDN URL (signed by Discord,
// no credential needed), so a download is one capped GET. The bot token is never sent with it:
// the URL comes from a payload, and the token goes only to the REST API.
import { downloadCapped, tooLarge } from '../download.ts';
import { AdapterApiError } from '../errors.ts';
import type { Attachment, FetchedFile } from '../types.ts';

/** Downloads one attachment from its URL; over `maxBytes` rejects `too-large`. */
export async function fetchDiscordFile(
  attachment: Attachment,
  opts: { maxBytes: number; signal?: AbortSignal },
): Promise<FetchedFile> {
  const what = attachment.name ?? 'the file';
  if (attachment.size !== undefined && attachment.size > opts.maxBytes)
    throw tooLarge('discord', opts.maxBytes, attachment.size);
  if (!attachment.url || !/^https?:\/\//i.test(attachment.url))
    throw new AdapterApiError('discord', 400, `${what} has no download URL`);
  const { bytes, contentType } = await downloadCapped('discord', attachment.url, what, opts);
  const mimeType = attachment.mimeType ?? contentType;
  return { bytes, ...(attachment.name ? { name: attachment.name } : {}), ...(mimeType ? { mimeType } : {}) };
}
