// Long-term memory: the notes a speaker and a conversation keep across resets and restarts.
export { MEMORY_COMMAND_HELP, memoryCommands, parseMemoryCommand, runMemoryCommand } from './commands.ts';
export {
  forget,
  forgetAll,
  MAX_MEMORIES_PER_SCOPE,
  MAX_MEMORY_CHARS,
  type MemoryView,
  remember,
  visibleMemories,
} from './memory-book.ts';
export { createMemoryTools, untrustedNotes } from './memory-tools.ts';
export { DIGEST_HEADING, memoryDigest, searchMemories } from './search.ts';
