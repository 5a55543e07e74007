// The one shape every chat platform is turned into, and the one interface every adapter
// implements. Adapters never import the agent; the gateway is where they meet.
import type { ChannelHistoryReader } from './channel-event.ts';

/** The platforms boxbot speaks (the first part of every conversation key). */
export type Platform = 'telegram' | 'discord' | 'slack' | 'web' | 'terminal';

/** What an attachment is, as the platform labels it (the bytes are sniffed again after download). */
export type AttachmentKind = 'image' | 'voice' | 'audio' | 'video' | 'document';

/**
 * A file attached to an inbound message; its bytes are fetched by the host through the adapter's
 * `fetchAttachment`. `url` may carry a credential (Telegram's file URL holds the bot token): it is
 * host-only and never reaches a model, a tool, a log or a chat.
 */
export interface Attachment {
  id: string;
  kind?: AttachmentKind;
  name?: string;
  mimeType?: string;
  size?: number;
  url?: string;
}

/** The bytes of one inbound attachment as the host fetched them. */
export interface FetchedFile {
  bytes: Uint8Array;
  name?: string;
  /** As the platform declared it; the gateway trusts only what it sniffs from the bytes. */
  mimeType?: string;
}

/** A file the bot sends (Telegram sendPhoto/sendDocument, Discord attachment, Slack upload, web chat link). */
export interface OutboundFile {
  name: string;
  mimeType: string;
  bytes: Uint8Array;
  caption?: string;
}

/**
 * A button under a message: Telegram inline keyboard (`callback_data`), Discord button component
 * (`custom_id`), Slack block action (`action_id`), a web chat button. `id` is at most 64 bytes
 * (Telegram's limit) and comes back as `InboundMessage.action.id` when pressed.
 */
export interface Button {
  id: string;
  label: string;
  style?: 'primary' | 'danger';
}

/** A command as listed in the platform's own menu (Telegram setMyCommands, Discord application commands). */
export interface CommandSpec {
  /** Lower case, no slash: `model`. */
  name: string;
  description: string;
  /** One optional free-text argument (`/model [name]`), with its description. */
  argument?: { name: string; description: string };
}

/** A button press, delivered as an InboundMessage with empty text and this field set. */
export interface ButtonPress {
  /** The pressed button's `id`. */
  id: string;
  /** The platform message the button was under. */
  messageId?: string;
  /**
   * Opaque adapter data for answering this press (Telegram callback query id, Discord interaction
   * token, Slack response URL); host-only, never shown to a model or written to a log.
   */
  handle?: string;
}

/** Every platform event that should reach the agent becomes one of these */
export interface InboundMessage {
  /**
   * Platform event id, unique per platform (used to drop redeliveries): e.g. `telegram:<botId>:<update_id>`,
   * `slack:<event_id>`.
   */
  id: string;
  platform: Platform;
  /** `<platform>:<...ids>`; see conversation-key.ts. */
  conversationKey: string;
  chatId: string;
  threadId?: string;
  /** The platform message id of this message (replies thread to it). */
  messageId?: string;
  /**
   * Its place in the platform's own sequence (Telegram `update_id`, Discord snowflake, Slack
   * `ts`; see platform-order.ts): a conversation's messages are answered in this order, whatever
   * order replicas saved them in. Absent where the platform has none (web chat).
   */
  order?: string;
  userId: string;
  userName: string;
  /**
   * The user key a web chat browser signed in as (`telegram:4242`, `web:ana`; see identity.ts
   * `speakerOf`): policy, memory, budgets and approvals are that user's. Absent elsewhere.
   */
  signedInAs?: `${Platform}:${string}`;
  /** Text with the bot's own mention removed. */
  text: string;
  isDirect: boolean;
  /** The bot was @mentioned, replied to, or addressed by a command. */
  mentionsBot: boolean;
  attachments: Attachment[];
  /** Set when this event is a button press (text is then empty). */
  action?: ButtonPress;
  /**
   * The id of the message whose turn this one replaces (the web chat's Edit and Regenerate): when
   * that turn is the conversation's last, it is dropped from the history (its answer with it) and
   * this message runs in its place; otherwise this is an ordinary message.
   */
  replacesTurn?: string;
  /** ISO timestamp. */
  receivedAt: string;
  /** The platform payload, for logs and debugging only (never sent to a tool or model). */
  raw: unknown;
}

/**
 * What every adapter's normalize step makes of one platform event: a message for the sink, an
 * event deliberately not acted on (`reason` says why, for debug logs), or a payload of the wrong
 * shape (`reason` for a warning). Normalizers report, never throw.
 */
export type NormalizeResult<Reason extends string = string> =
  | { kind: 'message'; message: InboundMessage }
  | { kind: 'ignored'; reason: Reason }
  | { kind: 'malformed'; reason: string };

/** Where a reply goes. Produced from an InboundMessage or decoded from a conversation key. */
export interface OutboundTarget {
  conversationKey: string;
  chatId: string;
  threadId?: string;
  /** Reply to this platform message (where the platform supports replies). */
  replyToMessageId?: string;
}

/** What a platform can do; the gateway picks fallbacks from this instead of asking "is this Telegram?". */
export interface AdapterCapabilities {
  /** Messages can be edited (streamed replies are edits of one message). */
  edit: boolean;
  /** A typing indicator exists. */
  typing: boolean;
  /** Replies can go into threads/topics. */
  threads: boolean;
  /** Longest text of one message, in the platform's counting. */
  maxTextLength: number;
  /** Minimum interval between edits of one message while streaming (ms). */
  editIntervalMs: number;
  /** How long one typing signal lasts before it must be renewed (ms). */
  typingIntervalMs: number;
  /** In a thread the bot has answered in, follow-ups count as addressed without a mention (Slack). */
  followThreads?: boolean;
  /**
   * The length of a Markdown text as the platform counts it against maxTextLength once the
   * adapter has rendered it (Telegram counts after entity parsing: a `---` rule is 10 characters).
   * Absent: the Markdown's own length. The gateway splits answers by this, and sends no chunk
   * that renders empty.
   */
  renderedLength?: (markdown: string) => number;
  /**
   * What sending a file again after a crash (the platform took it, its receipt was not yet
   * journaled) can cause: `resumes`: nothing twice, sendFile journals a handle (FileUpload) before
   * the file is visible and finishes that upload (Slack); `deduplicated`: nothing twice, the
   * platform drops the repeat itself (a Discord nonce). Absent: the file may appear twice (Telegram);
   * the gateway journals that the upload started and counts each such resend as uncertain.
   */
  fileResend?: 'resumes' | 'deduplicated';
}

/**
 * One outbound file's upload as the gateway journals it, across the outbound queue's retries and
 * restarts. An adapter whose platform uploads in two steps (Slack: the bytes, then the share)
 * calls `onHandle` with the platform's id of the upload once the bytes are there and before the
 * file can be seen, and waits for it; handed that `handle` again, it finishes that upload (or
 * finds it already shared) instead of sending the file a second time.
 */
export interface FileUpload {
  /** The handle an earlier attempt journaled (a Slack file id), if any. */
  handle?: string;
  /** Journals `handle`; resolves once it is durable (rejects: the upload is not finished). */
  onHandle(handle: string): Promise<void>;
}

/** Options of one file send: see ChannelAdapter.sendFile. */
export interface FileSendOptions extends Pick<SendOptions, 'idempotencyKey'> {
  upload?: FileUpload;
}

/** The platform's id for a message the bot sent (for later edits and receipts). */
export interface SentMessage {
  messageId: string;
}

/** Options of one send/edit. `markdown` text is rendered by the adapter's format.ts. */
export interface SendOptions {
  /** `markdown` (default): render to the platform's markup; `plain`: send as is. */
  format?: 'markdown' | 'plain';
  /** One row of buttons under the message (on edit: replaces them; an empty list removes them). */
  buttons?: Button[];
  /**
   * The same for every attempt to send the same thing (an outbox entry and chunk): where the
   * platform offers idempotency (Discord's nonce), a repeat returns the message already sent.
   */
  idempotencyKey?: string;
  /**
   * A streamed answer's preview, sent or edited again until its final text replaces it: the
   * channel log writes the message once that final text comes (adapters ignore it).
   */
  preview?: boolean;
}

/**
 * One step of the agent's work while it answers (a tool starting or finishing), with the status
 * line the gateway also shows in the streamed preview; for platforms that keep a visible log of it.
 */
export interface AgentActivity {
  kind: 'tool-start' | 'tool-end';
  /** `Reading notes.txt…`, or at the end what happened (`write: done`); may be empty at the end. */
  text: string;
  /**
   * At the start, the call's input as JSON; at the end, the start of the tool's result. Unredacted and
   * untrusted (a tool's output may be anything a web page said): an adapter that shows it redacts it
   * first, caps it, and shows it as text, never as markup.
   */
  detail?: string;
  /** At the end, the result's whole length in characters (`detail` may be cut shorter). */
  detailChars?: number;
  /** The tool call's id: its start and its end name the same one (calls may run side by side). */
  callId?: string;
}

/** How a message was handed over. */
export interface IntakeOptions {
  /**
   * The platform delivers it again if it is not accepted (a webhook answered non-2xx): while the
   * store fails, it is refused at once instead of holding the request until the platform gives up.
   */
  redelivers?: boolean;
}

/** Receives every normalized message; resolves once the message is accepted (persisted). */
export type InboundSink = (message: InboundMessage, intake?: IntakeOptions) => Promise<void>;

/** Small persistent state an adapter needs (polling offsets), backed by the store. */
export interface AdapterState {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown): Promise<void>;
}

/** A route an adapter serves on the gateway's HTTP server (webhooks). */
export interface AdapterRoute {
  method: 'POST' | 'GET';
  /** Path under the server root, e.g. `/webhooks/telegram`. */
  path: string;
  /** Gets the raw body (signature checks need it) and answers with status, headers and body. */
  handle(req: {
    headers: Record<string, string | string[] | undefined>;
    rawBody: Buffer;
  }): Promise<{ status: number; headers?: Record<string, string>; body?: string }>;
}

/**
 * A chat platform. `start` connects (polling, websocket or webhook routes) and feeds every
 * message to the sink; `send`/`edit`/`typing` talk back. Failures throw AdapterError.
 */
export interface ChannelAdapter {
  readonly platform: Platform;
  readonly capabilities: AdapterCapabilities;
  /**
   * Connects and starts delivering messages to `sink`. Resolves when connected. A second start before stop() rejects
   * with `already-started`.
   */
  start(sink: InboundSink): Promise<void>;
  /** Disconnects; after it resolves no more messages reach the sink. */
  stop(): Promise<void>;
  /** Sends one message (text within maxTextLength; the gateway splits longer answers). */
  send(target: OutboundTarget, text: string, opts?: SendOptions): Promise<SentMessage>;
  /** Replaces the text of a message the bot sent. */
  edit(target: OutboundTarget, messageId: string, text: string, opts?: SendOptions): Promise<void>;
  /** Shows a typing indicator once (the gateway renews it every typingIntervalMs). */
  typing(target: OutboundTarget): Promise<void>;
  /** HTTP routes (webhook mode); empty when the adapter uses a socket or polling. */
  routes(): AdapterRoute[];
  /** The bot's own identity once started (for `/whoami` and logs). */
  identity(): { id: string; name: string } | undefined;
  /**
   * Downloads an inbound attachment (host side; the URL may carry the bot token). More than
   * `maxBytes` rejects with AdapterError `too-large` without reading the rest.
   */
  fetchAttachment?(attachment: Attachment, opts: { maxBytes: number; signal?: AbortSignal }): Promise<FetchedFile>;
  /**
   * Sends one file natively, with an optional caption. `opts.idempotencyKey` makes a repeat return
   * the message already sent where the platform can (capabilities `fileResend: 'deduplicated'`);
   * `opts.upload` journals an upload under way where the platform has a handle for it
   * (`fileResend: 'resumes'`).
   */
  sendFile?(target: OutboundTarget, file: OutboundFile, opts?: FileSendOptions): Promise<SentMessage>;
  /** Registers the bot's commands in the platform's own command menu (called once at start). */
  setCommands?(commands: CommandSpec[]): Promise<void>;
  /**
   * Tells the user who pressed a button something only they see (Slack ephemeral message, Discord
   * ephemeral reply, Telegram callback answer, the web chat session that pressed it).
   */
  answerPress?(press: InboundMessage, text: string): Promise<void>;
  /**
   * Sends plain text only the author of `to` sees (a Telegram private chat, a Discord DM, a Slack
   * ephemeral message in `to`'s channel); rejects when the platform refuses (the user never
   * opened a private chat with the bot, DMs closed). Never through the outbox: for one-time links.
   */
  sendPrivate?(to: Pick<InboundMessage, 'chatId' | 'userId' | 'threadId'>, text: string): Promise<void>;
  /**
   * Told that a preview the bot sent (SendOptions.preview) already shows its answer's final text,
   * so no edit replaces it: nothing goes to the platform (the channel log's recorder writes it).
   */
  previewFinal?(target: OutboundTarget, messageId: string): void;
  /**
   * Shows one step of the agent's work in the conversation `target` is the answer to (the web
   * chat keeps it as a collapsible entry). Best effort: it never delays or fails the run.
   */
  showActivity?(target: OutboundTarget, activity: AgentActivity): void;
  /** Reads a channel's own history since a time, for the channel log's backfill (channel-event.ts). */
  readHistory?: ChannelHistoryReader;
}
