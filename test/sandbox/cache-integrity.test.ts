// The compile cache is not trusted blindly: glue or a core module changed on disk after it was
// built is never loaded (the entry is rebuilt and the mismatch logged), and the cache is
// private to boxbot's user (folders 0700, files 0600).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger } from '../../src/core/log.ts';
import { clearCompiledCache, createSandbox } from '../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../compiled-src.ts';
import { grant, guest, tempDir, text } from '../helpers.ts';

/** A logger whose lines land in `lines`. */
function capture(): { lines: string[]; log: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, log: createLogger({ level: 'warn', destination }) };
}

/** Runs `file` once in a fresh sandbox (fresh workers, nothing compiled in memory). */
async function runOnce(cacheDir: string, file: string, log?: ReturnType<typeof createLogger>) {
  clearCompiledCache();
  const sandbox = createSandbox({ workerFile: compiledSandboxWorker(), cacheDir, workers: 1, ...(log ? { log } : {}) });
  try {
    return await sandbox.run(file, grant());
  } finally {
    await sandbox.close();
  }
}

function entryOf(cacheDir: string): string {
  const entries = readdirSync(cacheDir).filter((d) => d !== 'by-stat' && !d.includes('.tmp-'));
  assert.equal(entries.length, 1, `one cache entry expected, found ${entries.join(', ')}`);
  return join(cacheDir, entries[0]!);
}

describe('sandbox: the compile cache is checked before it is loaded', () => {
  it('glue with code prepended on disk is not imported: the call works and the code never runs', async () => {
    const cacheDir = join(tempDir('boxbot-cache-'), 'sandbox');
    const marker = join(tempDir('boxbot-marker-'), 'pwned');
    const first = await runOnce(cacheDir, guest('hello'));
    assert.equal(text(first.stdout), '{"hello":"world"}\n');
    const glue = join(entryOf(cacheDir), 'guest.mjs');
    writeFileSync(
      glue,
      `import { writeFileSync as __w } from 'node:fs'; __w(${JSON.stringify(marker)}, 'ran on the ` +
        `host');\n${readFileSync(glue, 'utf8')}`,
    );

    const { lines, log } = capture();
    const second = await runOnce(cacheDir, guest('hello'), log);
    assert.equal(second.exitCode, 0, text(second.stderr));
    assert.equal(text(second.stdout), '{"hello":"world"}\n');
    assert.equal(existsSync(marker), false, 'the tampered glue ran');
    assert.ok(
      lines.some((l) => l.includes('guest.mjs does not match')),
      `no warning logged: ${lines.join('')}`,
    );
    assert.doesNotMatch(readFileSync(glue, 'utf8'), /ran on the host/, 'the entry was rebuilt');
  });

  it('a core module swapped on disk is not compiled: the call behaves as the tool does', async () => {
    const cacheDir = join(tempDir('boxbot-cache-'), 'sandbox');
    const otherDir = join(tempDir('boxbot-cache-'), 'sandbox');
    assert.equal((await runOnce(cacheDir, guest('exit42'))).exitCode, 42);
    // The other tool is a small one (a module of its own, not the JavaScript engine, whose compile
    // took seconds): any core module but this one's must be refused.
    assert.equal((await runOnce(otherDir, guest('count'))).exitCode, 0);
    // Put the other tool's main core module in place of this one's.
    writeFileSync(join(entryOf(cacheDir), 'guest.core.wasm'), readFileSync(join(entryOf(otherDir), 'guest.core.wasm')));
    const { lines, log } = capture();
    const r = await runOnce(cacheDir, guest('exit42'), log);
    assert.equal(r.exitCode, 42, text(r.stderr));
    assert.equal(text(r.stdout), 'bye\n');
    assert.ok(
      lines.some((l) => l.includes('guest.core.wasm does not match')),
      `no warning logged: ${lines.join('')}`,
    );
  });

  it('folders are 0700 and files 0600', async () => {
    const cacheDir = join(tempDir('boxbot-cache-'), 'sandbox');
    await runOnce(cacheDir, guest('exit42'));
    const entry = entryOf(cacheDir);
    assert.equal(statSync(cacheDir).mode & 0o777, 0o700);
    assert.equal(statSync(entry).mode & 0o777, 0o700);
    for (const f of readdirSync(entry)) assert.equal(statSync(join(entry, f)).mode & 0o777, 0o600, f);
  });
});
