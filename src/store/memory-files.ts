// Files in a Map (tests). The Map outlives a store instance, so a "restart" is a new store on
// the same Map; text is stored, never objects, so nothing aliases between calls.
import { type Files, fileStamp } from './files.ts';

/** The contents of an in-memory store, by path. Pass the same one to reopen it. */
export type MemoryFilesState = Map<string, string>;

/** Files kept in `state`. */
export function createMemoryFiles(
  state: MemoryFilesState,
  opts: { now: () => number; beforeCommit?: (path: string) => void | Promise<void> },
): Files {
  return {
    read: async (path) => state.get(path),
    async write(path, text) {
      await opts.beforeCommit?.(path);
      state.set(path, text);
      return text;
    },
    // Blobs are kept as base64 text: the state stays a Map of strings (nothing aliases).
    async writeBytes(path, bytes) {
      await opts.beforeCommit?.(path);
      state.set(path, Buffer.from(bytes).toString('base64'));
    },
    readBytes: async (path) => {
      const text = state.get(path);
      return text === undefined ? undefined : new Uint8Array(Buffer.from(text, 'base64'));
    },
    stamp: async (path) => state.get(path),
    // One process holds a memory store: the in-process lock of Documents is enough.
    lock: async () => async () => undefined,
    async openLog(path) {
      if (!state.has(path)) state.set(path, '');
      return {
        append: async (text) => void state.set(path, (state.get(path) ?? '') + text),
        close: async () => undefined,
      };
    },
    remove: async (path) => state.delete(path),
    async list(dir) {
      const prefix = `${dir}/`;
      const out: string[] = [];
      for (const path of state.keys()) {
        if (path.startsWith(prefix) && !path.slice(prefix.length).includes('/')) out.push(path.slice(prefix.length));
      }
      return out;
    },
    async folders(dir) {
      const prefix = `${dir}/`;
      const out = new Set<string>();
      for (const path of state.keys()) {
        const rest = path.startsWith(prefix) ? path.slice(prefix.length) : '';
        if (rest.includes('/')) out.add(rest.slice(0, rest.indexOf('/')));
      }
      return [...out];
    },
    async moveAside(path) {
      const to = `${path}.corrupt-${fileStamp(opts.now())}`;
      const text = state.get(path);
      if (text !== undefined) state.set(to, text);
      state.delete(path);
      return to;
    },
    async copyAside(path) {
      const to = `${path}.corrupt-${fileStamp(opts.now())}`;
      const text = state.get(path);
      if (text !== undefined) state.set(to, text);
      return to;
    },
    describe: (path) => `memory:${path}`,
  };
}
