// Replicas on one database must see one workspaces folder (a shared volume): a tool's file
// written while one replica answered must be there when another answers the next message. The
// first replica marks the folder with an id it also writes to the store; a replica whose folder
// lacks that mark refuses to start, naming the folder, instead of losing files silently.
import { randomUUID } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config/load.ts';
import type { KvStore } from '../store/index.ts';

const MARK = '.boxbot-volume';
const KEY = 'cluster.workspacesVolume';

/**
 * The folder's mark, made now if it has none. Made by linking a complete file into place, which
 * fails if the mark exists: two replicas starting at once on one volume end up with one mark (the
 * first one's), never one each, and never read a mark half written.
 */
function markOf(workspacesDir: string): string {
  const markFile = join(workspacesDir, MARK);
  const read = () => {
    try {
      return readFileSync(markFile, 'utf8').trim() || undefined;
    } catch {
      return undefined;
    }
  };
  const found = read();
  if (found) return found;
  const temp = join(workspacesDir, `${MARK}.${process.pid}.${randomUUID()}`);
  writeFileSync(temp, `${randomUUID()}\n`, { mode: 0o600 });
  try {
    linkSync(temp, markFile);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    unlinkSync(temp);
  }
  const mark = read();
  if (!mark) throw new ConfigError(`${markFile} could not be read after it was made`);
  return mark;
}

/** Checks (and on first use marks) that `workspacesDir` is the folder every replica on `kv` uses. */
export async function checkSharedWorkspaces(kv: KvStore, workspacesDir: string): Promise<void> {
  mkdirSync(workspacesDir, { recursive: true, mode: 0o700 });
  const markFile = join(workspacesDir, MARK);
  let expected = await kv.get(KEY);
  // The mark is read (or made) after the store is: a replica that made both meanwhile is seen.
  const hadMark = existsSync(markFile);
  if (typeof expected === 'string') {
    if (hadMark && readFileSync(markFile, 'utf8').trim() === expected) return;
  } else {
    const mark = markOf(workspacesDir);
    await kv.set(KEY, mark);
    // Read back: a replica on another folder that wrote its own mark at the same moment is found now.
    expected = await kv.get(KEY);
    if (mark === expected) return;
  }
  throw new ConfigError(
    `${workspacesDir} is not the workspaces folder the other replicas on this database use ` +
      `(${hadMark ? 'it carries another mark' : 'it carries no mark'}): mount the shared volume there ` +
      '(docs/deployment.md, "Running more than one")',
  );
}
