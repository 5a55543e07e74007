// Public names of the gateway's media step: inbound files downloaded, checked, saved and read.
export { INBOX_DIR, type MediaOptions, type MediaWorkJournal, POISON_DEATHS, prepareMedia } from './prepare.ts';
export type { FileFamily, InboxFile, PreparedMedia, TranscribeFile } from './types.ts';
