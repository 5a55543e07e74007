// Replicas on one database must see one workspaces folder (a shared volume): a tool's file
// written while one replica answered must be there when another answers the next message. The
// first replica marks the folder with an id it also writes to the store; a replica whose folder
// lacks that mark refuses to start, naming the folder, instead of losing files silently.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config/load.ts';
import type { KvStore } from '../store/index.ts';

const MARK = '.boxbot-volume';
const KEY = 'cluster.workspacesVolume';

/** Checks (and on first use marks) that `workspacesDir` is the folder every replica on `kv` uses. */
export async function checkSharedWorkspaces(kv: KvStore, workspacesDir: string): Promise<void> {
  mkdirSync(workspacesDir, { recursive: true, mode: 0o700 });
  const markFile = join(workspacesDir, MARK);
  let mark: string | undefined;
  try {
    mark = readFileSync(markFile, 'utf8').trim();
  } catch {
    mark = undefined;
  }
  const expected = await kv.get(KEY);
  if (typeof expected !== 'string') {
    const id = mark || randomUUID();
    if (!mark) writeFileSync(markFile, `${id}\n`, { mode: 0o600 });
    await kv.set(KEY, id);
    return;
  }
  if (mark === expected) return;
  throw new ConfigError(
    `${workspacesDir} is not the workspaces folder the other replicas on this database use ` +
      `(${mark ? 'it carries another mark' : 'it carries no mark'}): mount the shared volume there ` +
      '(docs/deployment.md, "Running more than one")',
  );
}
