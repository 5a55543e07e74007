// The retry every adapter makes when the platform refuses the markup it rendered: the same
// answer once more as plain text, so the user still gets it. One copy here; each adapter only
// says how it renders, what its plain text looks like, and which refusals are about markup.
import type { Logger } from '../core/log.ts';
import { AdapterApiError } from './errors.ts';
import type { SendOptions } from './types.ts';

/** How one platform renders Markdown and recognises a refusal of that markup. */
export interface MarkupStyle {
  /** Markdown → the platform's markup (the adapter's format.ts). */
  render(markdown: string): string;
  /** The text as sent without markup (Slack escapes `&`, `<`, `>`). Default: as is. */
  plain?(text: string): string;
  /** True when the refusal is about the markup (a parse error), not the message. */
  refused(error: AdapterApiError): boolean;
  log: Logger;
}

/**
 * Runs `send` with the rendered markup and, when the platform refuses that markup, once more
 * with the plain text. `markup` tells `send` which of the two it got (Telegram sets parse_mode).
 * A refusal is final when the plain text is the very body that was refused: sending it again
 * could not help. With `format: 'plain'` only the plain text is sent.
 * @example withMarkupFallback(style, text, opts, (body, markup) => api.send(chat, body, markup))
 */
export async function withMarkupFallback<T>(
  style: MarkupStyle,
  text: string,
  opts: SendOptions | undefined,
  send: (body: string, markup: boolean) => Promise<T>,
): Promise<T> {
  const plain = style.plain ? style.plain(text) : text;
  if ((opts?.format ?? 'markdown') === 'plain') return send(plain, false);
  const body = style.render(text);
  try {
    return await send(body, true);
  } catch (e) {
    if (!(e instanceof AdapterApiError) || !style.refused(e) || body === plain) throw e;
    style.log.warn({ description: e.description }, 'the platform refused the markup; sending plain text');
    return send(plain, false);
  }
}
