// Where the answer to a slash command goes. The command is answered at once with a deferred
// response ("boxbot is thinking…"), which only the interaction's webhook can fill in: the next
// send to that channel edits it (@original) instead of posting a new message, and edits of that
// message go through the same webhook. Interaction tokens live 15 minutes; after that, sends and
// edits use the channel as usual.
/** Interaction tokens are valid for 15 minutes. */
const TOKEN_LIFETIME_MS = 15 * 60_000;

/** An interaction webhook: application id and token, and until when it may be used. */
export interface InteractionWebhook {
  applicationId: string;
  token: string;
  until: number;
}

/** Deferred command responses waiting for the answer, and the messages they became. */
export class InteractionReplies {
  private readonly waiting = new Map<string, InteractionWebhook>();
  private readonly messages = new Map<string, InteractionWebhook>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly capacity = 1000,
  ) {}

  /** A command in `channelId` was deferred; its webhook waits for the first answer there. */
  deferred(channelId: string, ref: { applicationId: string; token: string }): void {
    this.waiting.delete(channelId);
    this.waiting.set(channelId, { ...ref, until: this.now() + TOKEN_LIFETIME_MS });
    trim(this.waiting, this.capacity);
  }

  /** Takes the waiting webhook of `channelId`, if it is still valid. */
  take(channelId: string): InteractionWebhook | undefined {
    const hook = this.waiting.get(channelId);
    this.waiting.delete(channelId);
    return hook && hook.until > this.now() ? hook : undefined;
  }

  /** Drops the waiting webhook of `channelId` (the command was not accepted). */
  drop(channelId: string): void {
    this.waiting.delete(channelId);
  }

  /** `messageId` is the deferred response filled in through `hook`. */
  answered(messageId: string, hook: InteractionWebhook): void {
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
