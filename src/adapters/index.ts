// Public names of the adapter layer: the one message shape, the adapter interface, keys, errors.

export type { RequestPacer } from './channel-event.ts';
export {
  type ConversationKey,
  ConversationKeyError,
  type ConversationRef,
  decodeConversationKey,
  encodeConversationKey,
  parseReplyTarget,
  platformOf,
  type ReplyTarget,
  replyTargetOf,
  spaceKeyOf,
  targetOf,
} from './conversation-key.ts';
export { downloadCapped, isTooLarge, tooLarge } from './download.ts';
export {
  AdapterApiError,
  AdapterError,
  type AdapterErrorCode,
  AdapterNetworkError,
  alreadyStarted,
} from './errors.ts';
export {
  decodeUserKey,
  encodeUserKey,
  IdentityError,
  type IdentityErrorCode,
  isPlatform,
  PLATFORMS,
  parsePlatform,
  speakerOf,
  type UserKey,
  type UserRef,
  userKeyOf,
} from './identity.ts';
export { compareOrder, platformOrder } from './platform-order.ts';
export type {
  AdapterCapabilities,
  AdapterRoute,
  AdapterState,
  Attachment,
  AttachmentKind,
  Button,
  ButtonPress,
  ChannelAdapter,
  CommandSpec,
  FetchedFile,
  FileSendOptions,
  FileUpload,
  InboundMessage,
  InboundSink,
  IntakeOptions,
  NormalizeResult,
  OutboundFile,
  OutboundTarget,
  Platform,
  SendOptions,
  SentMessage,
} from './types.ts';
