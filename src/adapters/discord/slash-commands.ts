// Slash commands and button presses. Discord wants an answer within 3 s and never redelivers an
// interaction, so it is answered before the sink runs: a command with a deferred response, a
// press with a deferred update. A command the sink refused is told so (to its user only);
// nothing else can be done. A command's first answer fills in its deferral (outbound.ts).
import type { Client } from 'discord.js';
import { errorMessage } from '../../core/errors.ts';
import { AdapterApiError, AdapterError } from '../errors.ts';
import type { ChannelAdapter } from '../types.ts';
import { discordRequest } from './api.ts';
import { commandsBody, decodeHandle, type InteractionRef, parseInteraction } from './interactions.ts';
import { type DiscordRuntime, MAX_CONTENT, noPings } from './runtime.ts';

/** The interactions of one adapter (createSlashCommands). */
export interface DiscordSlashCommands {
  /** An INTERACTION_CREATE dispatch, with its sequence number. */
  onInteraction(c: Client, d: unknown, seq: unknown): void;
  setCommands: NonNullable<ChannelAdapter['setCommands']>;
  answerPress: NonNullable<ChannelAdapter['answerPress']>;
}

/** The interactions of the adapter whose state is `rt`. */
export function createSlashCommands(rt: DiscordRuntime): DiscordSlashCommands {
  const { log, rest } = rt;
  // A resumed session may replay an interaction; it is answered and delivered once.
  const seenInteractions = new Set<string>();

  const callback = (ref: InteractionRef, type: number): Promise<unknown> =>
    discordRequest(rest, 'POST', `/interactions/${ref.id}/${ref.token}/callback`, { type });
  const followUp = (ref: { applicationId: string; token: string }, content: string, ephemeral: boolean) =>
    discordRequest<{ id?: unknown }>(rest, 'POST', `/webhooks/${ref.applicationId}/${ref.token}`, {
      content,
      allowed_mentions: noPings,
      ...(ephemeral ? { flags: 64 } : {}),
    });

  function onInteraction(c: Client, d: unknown, seq: unknown): void {
    const parsed = parseInteraction(d);
    if (typeof parsed === 'string') {
      log.warn({ reason: parsed }, 'dropped a malformed INTERACTION_CREATE');
      return;
    }
    const { ref, result } = parsed;
    if (seenInteractions.has(ref.id)) return;
    seenInteractions.add(ref.id);
    if (seenInteractions.size > 5000) seenInteractions.delete(seenInteractions.values().next().value!);
    const channelId = result.kind === 'message' ? (result.message.threadId ?? result.message.chatId) : undefined;
    const answered = callback(ref, ref.kind === 'command' ? 5 : 6).then(
      () => true,
      (e: unknown) => {
        log.warn({ err: errorMessage(e) }, 'could not answer a Discord interaction');
        return false;
      },
    );
    if (result.kind !== 'message' || channelId === undefined) {
      if (result.kind === 'malformed') log.warn({ reason: result.reason }, 'dropped a malformed interaction');
      return;
    }
    const replyKey = result.message.messageId;
    if (ref.kind === 'command' && replyKey) rt.replies.deferred(replyKey, ref);
    const release = rt.keeper.hold(seq as number);
    rt.enqueue(channelId, async () => {
      if (!(await answered) && replyKey) rt.replies.drop(replyKey);
      if (rt.client !== c || !rt.sink) return; // stopped meanwhile
      try {
        await rt.sink(result.message);
      } catch (e) {
        if (ref.kind !== 'command') throw e;
        if (replyKey) rt.replies.drop(replyKey);
        await followUp(ref, 'boxbot could not take that now; try again.', true).catch(() => undefined);
        throw e;
      }
      release();
    });
  }

  return {
    onInteraction,
    async setCommands(commands) {
      // The application id comes with READY; before start, from the API.
      const applicationId =
        rt.client?.application?.id ?? (await discordRequest<{ id?: unknown }>(rest, 'GET', '/applications/@me'))?.id;
      if (typeof applicationId !== 'string')
        throw new AdapterApiError('discord', 502, 'GET /applications/@me answered without an id');
      await discordRequest(rest, 'PUT', `/applications/${applicationId}/commands`, commandsBody(commands));
    },
    async answerPress(press, text) {
      const hook = decodeHandle(press.action?.handle);
      if (!hook) throw new AdapterError('discord', 'not-a-press', 'answerPress needs a button press');
      await followUp(hook, text.slice(0, MAX_CONTENT), true);
    },
  };
}
