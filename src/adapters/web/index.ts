// Public names of the built-in web chat adapter.
export { createWebAdapter, isLoopbackHostHeader, sessionOwner, BROWSER_COOKIE, WEB_CAPABILITIES, type WebAdapter, type WebAdapterOptions } from './adapter.ts';
export { normalizeWebMessage } from './normalize.ts';
