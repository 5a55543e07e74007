// The store's public names: the interface the gateway, scheduler and CLI use, and its backends.

export type { AdminSession, AdminSessionStore } from './admin-sessions.ts';
export { DEFAULT_ARCHIVE_RETENTION_MS, startArchiveSweep } from './archive-sweep.ts';
export { startChannelLogSweep, sweepChannelLog } from './channel-log-sweep.ts';
export type { ChannelLogEdit, ChannelLogEntry, ChannelLogStore } from './channel-log-types.ts';
export { conversationFile, platformOf } from './conversations.ts';
export { createFileStore, createMemoryState, createMemoryStore } from './create.ts';
export { StoreCorruptError, StoreError, type StoreErrorCode } from './errors.ts';
export { type HookDeliveryStore, type HookEvent, MAX_HOOK_DELIVERIES } from './hook-deliveries.ts';
export type { MemoryFilesState } from './memory-files.ts';
export { decodeName, encodeName } from './names.ts';
export { type OpenedStore, openStore } from './open.ts';
export { jobPolicySchema } from './schemas.ts';
export type {
  ApprovalRecord,
  ApprovalState,
  ApprovalStore,
  ArchivedConversation,
  Conversation,
  ConversationStore,
  CorruptReport,
  DeliveryStore,
  FailedReply,
  JobLogEntry,
  JobPolicy,
  JobRecord,
  JobStore,
  JobTrigger,
  JsonObject,
  JsonValue,
  KvStore,
  LeaseFence,
  LeaseStore,
  MemoryRecord,
  MemoryScope,
  MemoryStore,
  OutboxEntry,
  OutboxFile,
  PendingMessage,
  RateGateStore,
  Store,
  StoreOptions,
  UsageCharge,
  UsageDaily,
  UsageDay,
  UsageReport,
  UsageStore,
  UsageSubject,
  UsageTotals,
} from './types.ts';
export { NO_USAGE_TOTALS, OTHER_MODELS, UNRECORDED_MODEL, USAGE_DAILY_MAX_SUBJECTS } from './usage.ts';
export { DEFAULT_DEDUPE, DEFAULT_JOB_LOG_LIMIT } from './validated.ts';
export { MAX_SHOWN_CHARS, MAX_SHOWN_EVENTS, type ShownEvent, type WebDisplayStore } from './web-display.ts';
export type { WebLogin, WebSession, WebSessionStore } from './web-sessions.ts';
