// Public names of the Slack emulator (adapter tests, gateway end-to-end tests, benchmark).
export { type PostResult, SlackEmulator, type SlackEmulatorOptions, startSlackEmulator } from './emulator.ts';
export { type SlackFile, SlackFiles } from './files.ts';
export type { HttpAttempt, HttpDeliveryRecord } from './http-events.ts';
export { type RouteServer, serveRoutes } from './route-server.ts';
export type { EnvelopeRecord } from './socket-link.ts';
export type { StoredMessage, WorkspaceIds } from './workspace.ts';
