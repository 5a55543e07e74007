// What the bot posts: messages (with the nonce of their idempotency key), files (multipart, with
// a nonce too), edits, typing and private messages, each through the adapter's own REST calls so
// a 429 reaches the gateway's outbound queue at once. A slash command's first answer fills in its
// deferred response, and its edits go through the interaction's webhook (interaction-replies.ts).
import { AdapterApiError } from '../errors.ts';
import { type MarkupStyle, withMarkupFallback } from '../markup-fallback.ts';
import type { ChannelAdapter, OutboundTarget, SendOptions } from '../types.ts';
import { discordRequest } from './api.ts';
import { toDiscordMarkdown } from './format.ts';
import { isInteractionReplyKey } from './interaction-replies.ts';
import { componentsOf } from './interactions.ts';
import { nonceFields } from './nonce.ts';
import { type DiscordRuntime, MAX_CONTENT, noPings } from './runtime.ts';

/** The adapter's outbound calls. */
export type DiscordOutbound = Required<Pick<ChannelAdapter, 'send' | 'sendFile' | 'edit' | 'sendPrivate' | 'typing'>>;

const channelOf = (target: OutboundTarget): string => target.threadId ?? target.chatId;

// A slash command's reply key is no message to reference; its answer goes to its channel.
const replyFields = (target: OutboundTarget) =>
  target.replyToMessageId && !isInteractionReplyKey(target.replyToMessageId)
    ? { message_reference: { message_id: target.replyToMessageId, fail_if_not_exists: false } }
    : {};

/** The outbound calls of the adapter whose state is `rt`. */
export function createOutbound(rt: DiscordRuntime): DiscordOutbound {
  const { rest, replies } = rt;

  // A markdown send/edit the API refuses with 400 is retried once with the text as is. Rendering
  // that would push a fitting text over the limit is skipped (the text goes as is).
  const markdown: MarkupStyle = {
    render: (text) => {
      const content = toDiscordMarkdown(text);
      return [...content].length > MAX_CONTENT && [...text].length <= MAX_CONTENT ? text : content;
    },
    refused: (e) => e.status === 400,
    log: rt.log,
  };

  /**
   * POST a message with the nonce of its idempotency key. A repeated nonce gets back the message
   * the first send made, which may show other text by now (a preview sent again under its key
   * after a restart): it is edited to show this one, as a send promises.
   */
  async function createMessage(
    channel: string,
    body: { content: string; components?: unknown; [field: string]: unknown },
    opts: SendOptions | undefined,
  ): Promise<{ id?: unknown }> {
    const key = opts?.idempotencyKey;
    const path = `/channels/${channel}/messages`;
    const sent = await discordRequest<{ id?: unknown; content?: unknown }>(rest, 'POST', path, {
      ...body,
      ...nonceFields(key),
    });
    if (key && typeof sent?.id === 'string' && typeof sent.content === 'string' && sent.content !== body.content)
      await discordRequest(rest, 'PATCH', `${path}/${sent.id}`, {
        content: body.content,
        allowed_mentions: noPings,
        ...(body.components ? { components: body.components } : {}),
      });
    return sent;
  }

  return {
    async send(target, text, opts) {
      // The first answer to a slash command fills in its deferred response (interaction-replies.ts).
      // Taken only once it worked: a failed attempt retried by the gateway fills it in then.
      const hook = replies.waiting(target.replyToMessageId);
      const components = opts?.buttons?.length ? { components: componentsOf(opts.buttons) } : {};
      const sent = await withMarkupFallback(markdown, text, opts, (content) =>
        hook
          ? discordRequest<{ id?: unknown }>(
              rest,
              'PATCH',
              `/webhooks/${hook.applicationId}/${hook.token}/messages/@original`,
              {
                content,
                allowed_mentions: noPings,
                ...components,
              },
            )
          : createMessage(
              channelOf(target),
              { content, allowed_mentions: noPings, ...replyFields(target), ...components },
              opts,
            ),
      );
      if (typeof sent?.id !== 'string')
        throw new AdapterApiError('discord', 502, 'message create answered without a message id');
      if (hook) replies.answered(target.replyToMessageId!, sent.id, hook);
      return { messageId: sent.id };
    },
    async sendFile(target, file, opts) {
      // The caption is the message's text, sent as is (its own limit); the file is attachment 0.
      const caption = file.caption ? [...file.caption].slice(0, MAX_CONTENT).join('') : undefined;
      const form = new FormData();
      form.append(
        'payload_json',
        JSON.stringify({
          ...(caption ? { content: caption } : {}),
          attachments: [{ id: 0, filename: file.name }],
          allowed_mentions: noPings,
          ...replyFields(target),
          ...nonceFields(opts?.idempotencyKey),
        }),
      );
      form.append('files[0]', new Blob([new Uint8Array(file.bytes)], { type: file.mimeType }), file.name);
      const sent = await discordRequest<{ id?: unknown }>(
        rest,
        'POST',
        `/channels/${channelOf(target)}/messages`,
        form,
      );
      if (typeof sent?.id !== 'string')
        throw new AdapterApiError('discord', 502, 'message create answered without a message id');
      return { messageId: sent.id };
    },
    async edit(target, messageId, text, opts) {
      // Absent buttons are left as they are (Discord keeps components an edit does not name).
      const components = opts?.buttons ? { components: componentsOf(opts.buttons) } : {};
      const hook = replies.forMessage(messageId);
      const path = hook
        ? `/webhooks/${hook.applicationId}/${hook.token}/messages/${messageId}`
        : `/channels/${channelOf(target)}/messages/${messageId}`;
      await withMarkupFallback(markdown, text, opts, (content) =>
        discordRequest(rest, 'PATCH', path, { content, allowed_mentions: noPings, ...components }),
      );
    },
    async sendPrivate(to, text) {
      const dm = await discordRequest<{ id?: unknown }>(rest, 'POST', '/users/@me/channels', {
        recipient_id: to.userId,
      });
      if (typeof dm?.id !== 'string')
        throw new AdapterApiError('discord', 502, 'POST /users/@me/channels answered without an id');
      await discordRequest(rest, 'POST', `/channels/${dm.id}/messages`, { content: text, allowed_mentions: noPings });
    },
    async typing(target) {
      await discordRequest(rest, 'POST', `/channels/${channelOf(target)}/typing`);
    },
  };
}
