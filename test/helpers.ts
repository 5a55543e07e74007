// Shared test helpers: paths of the built test guests and a minimal grant.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_LIMITS, type SandboxGrant } from '../src/sandbox/index.ts';

export const root = fileURLToPath(new URL('..', import.meta.url));

/** The built guest `name` (from test/guests/<name>.js|.wat, built by `npm test`). */
export function guest(name: string): string {
  const path = join(root, '.cache', 'guests', `${name}.wasm`);
  if (!existsSync(path)) throw new Error(`test guest ${name} is not built: run npx tsx scripts/build-guests.ts`);
  return path;
}

/** A grant with nothing in it but what `over` adds. */
export function grant(over: Partial<SandboxGrant> = {}): SandboxGrant {
  return {
    args: [],
    env: {},
    mounts: [],
    network: { allow: [], block: ['private'] },
    limits: { ...DEFAULT_LIMITS, timeoutMs: 20_000 },
    ...over,
  };
}

const madeDirs: string[] = [];

/** A fresh temporary directory, removed when the test file's process exits. */
export function tempDir(prefix = 'boxbot-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (madeDirs.push(dir) === 1) {
    process.once('exit', () => {
      for (const d of madeDirs) {
        try {
          rmSync(d, { recursive: true, force: true });
        } catch {
          // best effort: a leftover temp folder is not a test failure
        }
      }
    });
  }
  return dir;
}

/** Decodes bytes as UTF-8. */
export const text = (b: Uint8Array): string => new TextDecoder().decode(b);

/** Polls until `cond()` holds (sync or async); fails naming `what` after `ms`. No timing assertion: the limit only stops a hang. */
export async function waitUntil(cond: () => boolean | Promise<boolean>, what: string, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 15));
  }
}
