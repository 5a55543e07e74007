// The store's public names: the interface the gateway, scheduler and CLI use, and its backends.
export { createFileStore, createMemoryStore, createMemoryState, DEFAULT_DEDUPE, DEFAULT_JOB_LOG_LIMIT } from './create.ts';
export { conversationFile, platformOf } from './conversations.ts';
export { StoreError, StoreCorruptError, type StoreErrorCode } from './errors.ts';
export type { MemoryFilesState } from './memory-files.ts';
export { encodeName, decodeName } from './names.ts';
export { jobPolicySchema } from './schemas.ts';
export type {
  Conversation,
  ConversationStore,
  CorruptReport,
  DeliveryStore,
  JobLogEntry,
  JobPolicy,
  JobRecord,
  JobStore,
  JsonObject,
  JsonValue,
  KvStore,
  OutboxEntry,
  PendingMessage,
  Store,
  StoreOptions,
} from './types.ts';
