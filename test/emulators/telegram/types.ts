// The emulator's data shapes: stored messages, chat actions, injected faults, recorded calls,
// chats and the options of user messages. Shared by server.ts, methods.ts and tests.
import type { Params } from './body.ts';
import type { MessageEntity } from './html.ts';
import type { ChatInfo, UserInfo } from './updates.ts';

/** A message as the emulator holds it (latest text after edits). */
export interface EmulatedMessage {
  chatId: string;
  threadId?: string;
  messageId: string;
  /** What users see (after HTML parsing). */
  text: string;
  entities: MessageEntity[];
  /** The text exactly as sent, and its parse_mode. */
  sentText: string;
  parseMode?: string;
  edits: number;
  fromBot: boolean;
  replyTo?: string;
  date: number;
  /** A photo or document the bot uploaded (`text` is then its caption), with the bytes received. */
  file?: SentFile;
}

/** A file the bot sent with sendPhoto or sendDocument, as the user receives it. */
export interface SentFile {
  kind: 'photo' | 'document';
  name: string;
  /** The part's declared type (grammY declares application/octet-stream). */
  contentType: string;
  bytes: Uint8Array;
}

/** A sendChatAction call. */
export interface ChatAction {
  chatId: string;
  threadId?: string;
  action: string;
}

/** A failure injected into the next matching calls. */
export interface Fault {
  /** Methods it applies to (default: any). */
  methods?: string[];
  /** Further condition on the call's parameters. */
  when?: (params: Params) => boolean;
  count: number;
  /** Cut the connection instead of answering (a network failure). */
  network?: boolean;
  error_code: number;
  description: string;
  retry_after?: number;
}

/** One call the emulator answered. */
export interface RecordedCall {
  method: string;
  params: Params;
  status: number;
}

/** Options of startTelegramEmulator. */
export interface TelegramEmulatorOptions {
  token?: string;
  bot?: { id: number; username: string; first_name?: string };
  /** Wait before redelivering a webhook update that was not answered 2xx (ms). Default 50. */
  webhookRetryMs?: number;
}

/** A user's message, as userMessage takes it. */
export interface UserMessageOptions {
  chat: ChatInfo;
  from: UserInfo;
  text: string;
  /** Default: the mentions, bot commands and URLs Telegram detects by itself. */
  entities?: MessageEntity[];
  /** A forum topic id (created on first use). */
  threadId?: number;
  /** The message id this one replies to. */
  replyTo?: number;
  /**
   * The update field: `message` (default), `edited_message` (delivered with an edit_date) or `channel_post` (no
   * sender).
   */
  kind?: 'message' | 'edited_message' | 'channel_post';
}

/** A chat the emulator knows. */
export interface ChatState {
  chat: ChatInfo;
  nextMessageId: number;
  messages: Map<number, EmulatedMessage>;
  topics: Map<number, { name: string; creator: UserInfo }>;
}
