// Public names of the built-in web chat adapter.
export { createWebAdapter, WEB_CAPABILITIES, type WebAdapter, type WebAdapterOptions } from './adapter.ts';
export { normalizeWebMessage } from './normalize.ts';
