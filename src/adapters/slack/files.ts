// Inbound files on Slack: `url_private(_download)` answers only with the bot token as a Bearer
// header. The token is sent only to Slack's own file hosts (or the host of a configured `apiUrl`,
// a proxy or an emulator): a file URL pointing anywhere else is refused, never given the token.
import { downloadCapped, tooLarge } from '../download.ts';
import { AdapterApiError } from '../errors.ts';
import type { Attachment, FetchedFile } from '../types.ts';

/** Whether the bot token may be sent to `url`: https on slack.com's hosts, or the API root's own origin. */
export function mayCarryToken(url: string, apiUrl: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol === 'https:' && (u.hostname === 'slack.com' || u.hostname.endsWith('.slack.com'))) return true;
  try {
    return u.origin === new URL(apiUrl).origin;
  } catch {
    return false;
  }
}

/** Downloads one file with the bot token; over `maxBytes` rejects `too-large`. */
export async function fetchSlackFile(
  s: { botToken: string; apiUrl: string },
  attachment: Attachment,
  opts: { maxBytes: number; signal?: AbortSignal },
): Promise<FetchedFile> {
  const what = attachment.name ?? 'the file';
  if (attachment.size !== undefined && attachment.size > opts.maxBytes)
    throw tooLarge('slack', opts.maxBytes, attachment.size);
  if (!attachment.url || !mayCarryToken(attachment.url, s.apiUrl))
    throw new AdapterApiError('slack', 400, `${what} is not on a Slack file host; not downloaded`);
  const { bytes, contentType } = await downloadCapped('slack', attachment.url, what, {
    ...opts,
    headers: { authorization: `Bearer ${s.botToken}` },
  });
  // Without a valid token Slack answers 200 with its HTML login page instead of the file.
  if (contentType?.startsWith('text/html') && !attachment.mimeType?.startsWith('text/html'))
    throw new AdapterApiError('slack', 401, `downloading ${what}: Slack sent its sign-in page (check files:read)`);
  const mimeType = attachment.mimeType ?? contentType;
  return { bytes, ...(attachment.name ? { name: attachment.name } : {}), ...(mimeType ? { mimeType } : {}) };
}
