// Public names of the Discord emulator (tests, gateway end-to-end tests, benchmark).

export { EmulatedCdn } from './cdn.ts';
export {
  DiscordEmulator,
  type DiscordEmulatorOptions,
  startDiscordEmulator,
  type UserFileInput,
  type UserMessageInput,
} from './emulator.ts';
export { Close, type IdentifyRecord, Intent, Op, PRIVILEGED_INTENTS } from './gateway.ts';
export type { InjectedFault, RateLimitedRoute, RestRequestRecord } from './rest.ts';
export type { EmuChannel, EmuGuild, EmuMessage, EmuUser } from './store.ts';
