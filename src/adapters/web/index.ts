// Public names of the built-in web chat adapter.
export {
  BROWSER_COOKIE,
  createWebAdapter,
  DEFAULT_MAX_UPLOAD_BYTES,
  isLoopbackHostHeader,
  sessionOwner,
  WEB_CAPABILITIES,
  type WebAdapter,
  type WebAdapterOptions,
} from './adapter.ts';
export { createWebFiles, DEFAULT_WEB_FILE_RETENTION, type WebFileRetention, type WebFiles } from './files.ts';
export { normalizeWebMessage, normalizeWebPress } from './normalize.ts';
export {
  DEFAULT_SESSION_DAYS,
  identityOwner,
  issueLoginLink,
  LOGIN_TTL_MS,
  SESSION_COOKIE,
  type WebSessionSource,
  webIdentityOf,
} from './sign-in.ts';
export type { ConversationSource } from './transcript.ts';
