// Public names of the built-in web chat adapter.
export {
  BROWSER_COOKIE,
  createWebAdapter,
  isLoopbackHostHeader,
  sessionOwner,
  WEB_CAPABILITIES,
  type WebAdapter,
  type WebAdapterOptions,
} from './adapter.ts';
export { normalizeWebMessage } from './normalize.ts';
