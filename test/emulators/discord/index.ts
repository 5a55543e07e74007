// Public names of the Discord emulator (tests, gateway end-to-end tests, benchmark).
export { DiscordEmulator, startDiscordEmulator, type DiscordEmulatorOptions, type UserMessageInput } from './emulator.ts';
export { Close, Intent, Op, PRIVILEGED_INTENTS, type IdentifyRecord } from './gateway.ts';
export type { InjectedFault, RateLimitedRoute, RestRequestRecord } from './rest.ts';
export type { EmuChannel, EmuGuild, EmuMessage, EmuUser } from './store.ts';
