// The shared compile cache (the bundled tools, built at install for every data dir): a tool found
// there runs without compiling anything into the data dir's cache; an entry that fails its check
// is never loaded and is rebuilt in the data dir's cache, the shared one left as it is (it is read
// only at run time); what it lacks is built into the data dir's cache; no writable mount may
// reach it.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger } from '../../src/core/log.ts';
import { clearCompiledCache, createSandbox, SandboxError } from '../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../compiled-src.ts';
import { grant, guest, tempDir, text } from '../helpers.ts';

/** Compile entries in a cache folder (not the hash index, not a half-written entry). */
const entries = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir).filter((d) => d !== 'by-stat' && !d.includes('.tmp-')) : [];

/** Every file below `dir` with its size and modification time, to see that nothing changed. */
function listing(dir: string): string[] {
  const out: string[] = [];
  for (const e of entries(dir)) {
    for (const f of readdirSync(join(dir, e)).sort()) {
      const st = statSync(join(dir, e, f));
      out.push(`${e}/${f}:${st.size}:${st.mtimeMs}`);
    }
  }
  return out.sort();
}

/** Each set of names compiled once per file (the same entries every time; each compile took seconds). */
const built = new Map<string, Promise<string>>();

/** The shared cache as the install step leaves it: `names` compiled into it; a copy of its own for each test. */
async function installCache(names: string[]): Promise<string> {
  const key = names.join(' ');
  const made = built.get(key) ?? compileCache(names);
  built.set(key, made);
  const shared = join(tempDir('boxbot-shared-'), 'sandbox');
  cpSync(await made, shared, { recursive: true });
  return shared;
}

async function compileCache(names: string[]): Promise<string> {
  const shared = join(tempDir('boxbot-shared-'), 'sandbox');
  clearCompiledCache();
  const sandbox = createSandbox({
    workerFile: compiledSandboxWorker(),
    cacheDir: shared,
    sharedCacheDirs: [],
    workers: 1,
  });
  try {
    for (const n of names) assert.equal((await sandbox.run(guest(n), grant())).exitCode, n === 'exit42' ? 42 : 0);
  } finally {
    await sandbox.close();
  }
  return shared;
}

/** Runs `name` once in a fresh process's sandbox over the data dir cache `own` and the shared one. */
async function runFresh(own: string, shared: string, name: string, lines: string[] = []) {
  clearCompiledCache();
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const sandbox = createSandbox({
    workerFile: compiledSandboxWorker(),
    cacheDir: own,
    sharedCacheDirs: [shared],
    workers: 1,
    log: createLogger({ level: 'warn', destination }),
  });
  try {
    return await sandbox.run(guest(name), grant());
  } finally {
    await sandbox.close();
  }
}

describe('sandbox: the shared compile cache built at install', () => {
  it('a tool in it runs without compiling into the data dir, and the shared cache is not written', async () => {
    const shared = await installCache(['hello']);
    const before = listing(shared);
    const own = join(tempDir('boxbot-data-'), 'cache', 'sandbox');
    const r = await runFresh(own, shared, 'hello');
    assert.equal(text(r.stdout), '{"hello":"world"}\n');
    assert.deepEqual(entries(own), [], 'nothing compiled for this data dir');
    assert.deepEqual(listing(shared), before);
  });

  it('a tool it lacks (an extension) is compiled into the data dir cache', async () => {
    const shared = await installCache(['hello']);
    const before = listing(shared);
    const own = join(tempDir('boxbot-data-'), 'cache', 'sandbox');
    assert.equal((await runFresh(own, shared, 'exit42')).exitCode, 42);
    assert.equal(entries(own).length, 1);
    assert.deepEqual(listing(shared), before, 'built only into the data dir cache');
  });

  it('an entry failing its check is not loaded; it is rebuilt in the data dir, the shared one untouched', async () => {
    const shared = await installCache(['hello']);
    const marker = join(tempDir('boxbot-marker-'), 'pwned');
    const glue = join(shared, entries(shared)[0]!, 'guest.mjs');
    writeFileSync(
      glue,
      `import { writeFileSync as __w } from 'node:fs'; __w(${JSON.stringify(marker)}, 'ran');\n` +
        readFileSync(glue, 'utf8'),
    );
    const before = listing(shared);
    const own = join(tempDir('boxbot-data-'), 'cache', 'sandbox');
    const lines: string[] = [];
    const r = await runFresh(own, shared, 'hello', lines);
    assert.equal(text(r.stdout), '{"hello":"world"}\n');
    assert.equal(existsSync(marker), false, 'the tampered glue ran');
    assert.ok(
      lines.some((l) => l.includes('guest.mjs does not match')),
      `no warning: ${lines.join('')}`,
    );
    assert.equal(entries(own).length, 1, 'rebuilt into the data dir cache');
    assert.deepEqual(listing(shared), before, 'the shared cache is only read');
  });

  it('no writable mount may contain or lie inside it; a read-only one may (it holds only built tools)', async () => {
    const project = tempDir('boxbot-pkg-');
    const shared = join(project, 'tools', 'dist', 'cache', 'sandbox');
    mkdirSync(shared, { recursive: true });
    const sandbox = createSandbox({
      workerFile: compiledSandboxWorker(),
      cacheDir: join(tempDir('boxbot-data-'), 'cache'),
      sharedCacheDirs: [shared],
      workers: 1,
    });
    try {
      for (const host of [project, join(shared, '..'), shared]) {
        await assert.rejects(
          sandbox.run(guest('exit42'), grant({ mounts: [{ host, guest: '/', readOnly: false }] })),
          (e: unknown) => e instanceof SandboxError && e.code === 'bad-grant' && e.message.includes(shared),
        );
      }
      const r = await sandbox.run(guest('exit42'), grant({ mounts: [{ host: project, guest: '/', readOnly: true }] }));
      assert.equal(r.exitCode, 42);
    } finally {
      await sandbox.close();
    }
  });
});
