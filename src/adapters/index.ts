// Public names of the adapter layer: the one message shape, the adapter interface, keys, errors.

export {
  ConversationKeyError,
  type ConversationRef,
  decodeConversationKey,
  encodeConversationKey,
  platformOf,
  targetOf,
} from './conversation-key.ts';
export { AdapterApiError, AdapterError, AdapterNetworkError, alreadyStarted } from './errors.ts';
export type {
  AdapterCapabilities,
  AdapterRoute,
  AdapterState,
  Attachment,
  Button,
  ButtonPress,
  ChannelAdapter,
  CommandSpec,
  InboundMessage,
  InboundSink,
  NormalizeResult,
  OutboundTarget,
  Platform,
  SendOptions,
  SentMessage,
} from './types.ts';
