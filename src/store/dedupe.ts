// Seen platform event ids: an in-memory window backed by an append-only log (`dedupe.log`,
// one `[ms,"id"]` line per id, fsynced), so marking an id costs one small append however many
// ids are kept. The log is rewritten atomically once it holds twice what is retained.
import type { Logger } from '../log.ts';
import type { Documents } from './documents.ts';
import { StoreCorruptError } from './errors.ts';
import { checkKey } from './names.ts';
import type { DedupeStore } from './types.ts';

const PATH = 'dedupe.log';

/** Dedupe with retention: at most `maxCount` ids, none older than `maxAgeMs`. */
export function createDedupe(
  docs: Documents,
  opts: { now: () => number; maxAgeMs: number; maxCount: number; logger: Logger },
): DedupeStore {
  const seen = new Map<string, number>(); // insertion order = time order
  let lines = 0;
  let loaded = false;

  function prune(now: number): void {
    for (const [id, at] of seen) {
      if (seen.size <= opts.maxCount && at >= now - opts.maxAgeMs) break;
      seen.delete(id);
    }
  }

  async function compact(): Promise<void> {
    let text = '';
    for (const [id, at] of seen) text += `${JSON.stringify([at, id])}\n`;
    await docs.files.write(PATH, text);
    lines = seen.size;
  }

  async function load(): Promise<void> {
    const text = (await docs.files.read(PATH)) ?? '';
    const parts = text.split('\n');
    const partial = parts.pop();
    if (partial) opts.logger.warn({ file: docs.files.describe(PATH) }, 'store: dropped a half-written last dedupe line (crash while marking)');
    const entries: [string, number][] = [];
    for (const [i, line] of parts.entries()) {
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        entry = undefined;
      }
      if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'number' || typeof entry[1] !== 'string') {
        throw await docs.corrupt(PATH, `line ${i + 1} is not [ms, "id"]`);
      }
      entries.push([entry[1], entry[0]]);
    }
    entries.sort((a, b) => a[1] - b[1]);
    for (const [id, at] of entries) if (!seen.has(id)) seen.set(id, at);
    lines = parts.length;
    prune(opts.now());
    if (partial || lines > 2 * seen.size + 64) await compact();
  }

  return {
    async markSeen(id) {
      checkKey(id, 'event id');
      return docs.locked(PATH, async () => {
        if (!loaded) {
          seen.clear();
          loaded = true;
          try {
            await load();
          } catch (e) {
            seen.clear();
            // A corrupt log was moved aside and reported: go on empty. Anything else: retry later.
            if (!(e instanceof StoreCorruptError)) loaded = false;
            throw e;
          }
        }
        const now = opts.now();
        prune(now);
        if (seen.has(id)) return false;
        seen.set(id, now);
        try {
          await docs.files.append(PATH, `${JSON.stringify([now, id])}\n`);
        } catch (e) {
          seen.delete(id);
          throw e;
        }
        lines++;
        if (lines > 2 * seen.size + 64) await compact();
        return true;
      });
    },
  };
}
