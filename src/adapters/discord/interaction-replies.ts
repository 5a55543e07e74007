// Where the answer to a slash command goes. The command is answered at once with a deferred
// response ("boxbot is thinking…"), which only the interaction's webhook can fill in. The
// command's InboundMessage carries `interaction:<id>` as its messageId, so the gateway's reply
// names it as replyToMessageId: the first send replying to it edits the deferral (@original)
// instead of posting a new message (an answer to some other message in the channel never
// does), and edits of that message go through the same webhook. Interaction tokens live 15
// minutes; after that, sends and edits use the channel as usual.
/** Interaction tokens are valid for 15 minutes. */
const TOKEN_LIFETIME_MS = 15 * 60_000;

/** An interaction webhook: application id and token, and until when it may be used. */
export interface InteractionWebhook {
  applicationId: string;
  token: string;
  until: number;
}

/** The messageId of a command's InboundMessage: what the gateway's reply names as replyToMessageId. */
export function interactionReplyKey(interactionId: string): string {
  return `interaction:${interactionId}`;
}

/** True for a replyToMessageId that names an interaction rather than a message. */
export function isInteractionReplyKey(id: string): boolean {
  return id.startsWith('interaction:');
}

/** Deferred command responses waiting for the answer, and the messages they became. */
export class InteractionReplies {
  private readonly pending = new Map<string, InteractionWebhook>();
  private readonly messages = new Map<string, InteractionWebhook>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly capacity = 1000,
  ) {}

  /** The command with reply key `key` was deferred; its webhook waits for the first answer to it. */
  deferred(key: string, ref: { applicationId: string; token: string }): void {
    this.pending.set(key, { ...ref, until: this.now() + TOKEN_LIFETIME_MS });
    trim(this.pending, this.capacity);
  }

  /** The waiting webhook of reply key `key`, if it is still valid (answered() takes it). */
  waiting(key: string | undefined): InteractionWebhook | undefined {
    const hook = key === undefined ? undefined : this.pending.get(key);
    return hook && hook.until > this.now() ? hook : undefined;
  }

  /** Drops the waiting webhook of `key` (the command was not accepted). */
  drop(key: string): void {
    this.pending.delete(key);
  }

  /** The deferral of `key` was filled in through `hook` and became `messageId`. */
  answered(key: string, messageId: string, hook: InteractionWebhook): void {
    this.pending.delete(key);
    this.messages.set(messageId, hook);
    trim(this.messages, this.capacity);
  }

  /** The webhook an edit of `messageId` must use, while it is valid. */
  forMessage(messageId: string): InteractionWebhook | undefined {
    const hook = this.messages.get(messageId);
    return hook && hook.until > this.now() ? hook : undefined;
  }
}

function trim(map: Map<string, unknown>, capacity: number): void {
  while (map.size > capacity) {
    const oldest = map.keys().next().value;
    if (oldest === undefined) return;
    map.delete(oldest);
  }
}
