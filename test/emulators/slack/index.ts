// Public names of the Slack emulator (adapter tests, gateway end-to-end tests, benchmark).
export { SlackEmulator, startSlackEmulator, type PostResult, type SlackEmulatorOptions } from './emulator.ts';
export type { EnvelopeRecord } from './socket-link.ts';
export type { HttpAttempt, HttpDeliveryRecord } from './http-events.ts';
export type { StoredMessage, WorkspaceIds } from './workspace.ts';
export { serveRoutes, type RouteServer } from './route-server.ts';
