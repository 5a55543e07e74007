// Public names of the adapter layer: the one message shape, the adapter interface, keys, errors.
export type {
  AdapterCapabilities,
  AdapterRoute,
  AdapterState,
  Attachment,
  ChannelAdapter,
  InboundMessage,
  InboundSink,
  NormalizeResult,
  OutboundTarget,
  Platform,
  SendOptions,
  SentMessage,
} from './types.ts';
export { decodeConversationKey, encodeConversationKey, platformOf, targetOf, ConversationKeyError, type ConversationRef } from './conversation-key.ts';
export { AdapterError, AdapterApiError, AdapterNetworkError, alreadyStarted } from './errors.ts';
