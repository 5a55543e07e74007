// Inbound files on Telegram: `getFile` names the file's path on the Bot API server, and the bytes
// come from `<apiRoot>/file/bot<token>/<file_path>`. That URL holds the bot token, so it is built
// here, used for one capped download, and never returned, logged or put in an error.
import type { Api } from 'grammy';
import { downloadCapped, tooLarge } from '../download.ts';
import { AdapterApiError } from '../errors.ts';
import type { Attachment, FetchedFile } from '../types.ts';
import { scrub, toAdapterError } from './api.ts';

/** What a download needs from the adapter. */
export interface TelegramFiles {
  api: Api;
  apiRoot: string;
  token: string;
}

/** The largest file the public Bot API lets a bot download (getFile refuses larger ones). */
const BOT_API_DOWNLOAD_LIMIT = 20 * 1024 * 1024;

/** Downloads one attachment (its `id` is the Telegram `file_id`); over `maxBytes` rejects `too-large`. */
export async function fetchTelegramFile(
  t: TelegramFiles,
  attachment: Attachment,
  opts: { maxBytes: number; signal?: AbortSignal },
): Promise<FetchedFile> {
  const what = attachment.name ?? 'the file';
  // Telegram states the size up front: no call at all for a file that cannot fit.
  if (attachment.size !== undefined && attachment.size > opts.maxBytes)
    throw tooLarge('telegram', opts.maxBytes, attachment.size);
  let path: string | undefined;
  let size: number | undefined;
  try {
    const file = await t.api.getFile(attachment.id, opts.signal as Parameters<Api['getFile']>[1]);
    path = file.file_path;
    size = file.file_size;
  } catch (e) {
    const err = toAdapterError(e, t.token);
    // The public Bot API serves files up to 20 MB; past that getFile says "file is too big". That
    // limit, not a larger cap of ours, is the one the refusal names.
    if (err instanceof AdapterApiError && /file is too big/i.test(err.description))
      throw tooLarge('telegram', Math.min(opts.maxBytes, BOT_API_DOWNLOAD_LIMIT), attachment.size);
    throw err;
  }
  if (size !== undefined && size > opts.maxBytes) throw tooLarge('telegram', opts.maxBytes, size);
  if (!path) throw new AdapterApiError('telegram', 400, `getFile gave no file_path for ${what}`);
  const url = `${t.apiRoot}/file/bot${t.token}/${path.split('/').map(encodeURIComponent).join('/')}`;
  try {
    const { bytes, contentType } = await downloadCapped('telegram', url, what, opts);
    const name = attachment.name ?? path.split('/').pop();
    const mimeType = attachment.mimeType ?? contentType;
    return { bytes, ...(name ? { name } : {}), ...(mimeType ? { mimeType } : {}) };
  } catch (e) {
    // downloadCapped never puts the URL in a message; scrub once more in case a cause did.
    if (e instanceof Error) e.message = scrub(e.message, t.token);
    throw e;
  }
}
