// Long-term memory: the notes a speaker and a conversation keep across resets and restarts.
export {
  forget,
  forgetAll,
  MAX_MEMORIES_PER_SCOPE,
  MAX_MEMORY_CHARS,
  type MemoryView,
  memoryLine,
  remember,
  visibleMemories,
} from './memory-book.ts';
export { createMemoryTools, untrustedNotes } from './memory-tools.ts';
export { DIGEST_HEADING, memoryDigest, searchMemories } from './search.ts';
