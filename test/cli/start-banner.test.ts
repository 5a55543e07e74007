// What `boxbot start` prints about its tools: web_search is listed only when a search service is configured (without
// one no run is offered it, so listing it would promise a tool nobody gets). A real start in a child process.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { boxbotArgv, shareCache, tempDir, waitUntil } from '../helpers.ts';

/** Starts boxbot with `config` in a fresh folder and returns its banner's tools line, then stops it. */
async function toolsLine(config: Record<string, unknown>): Promise<string> {
  const dir = tempDir('boxbot-banner-');
  // The tools' snapshots and specs come from the shared test cache: a fresh data dir would copy every bundled tool
  // into itself first, which is not what this test looks at.
  shareCache(join(dir, 'data'));
  writeFileSync(join(dir, 'boxbot.config.json'), JSON.stringify({ dataDir: './data', ...config }));
  const env = { ...process.env, BOXBOT_CONFIG: '', BOXBOT_ADMIN_TOKEN: '', XDG_DATA_HOME: join(dir, 'xdg') };
  const child = spawn(process.execPath, boxbotArgv(['start', '--port', '0', '--host', '127.0.0.1']), {
    cwd: dir,
    env,
    stdio: 'pipe',
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString('utf8');
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString('utf8');
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await waitUntil(() => out.includes('Press Ctrl+C') || child.exitCode !== null, 'the start banner', 120_000);
    const line = out.split('\n').find((l) => l.startsWith('  tools '));
    assert.ok(line, `a tools line in the banner:\n${out}\n${err}`);
    return line;
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

describe('boxbot start: the banner’s tools', () => {
  it('leaves web_search out without a search service, and lists it with one', async () => {
    const without = await toolsLine({});
    assert.match(without, /\bread\b/, 'the bundled tools are listed');
    assert.doesNotMatch(without, /web_search/);
    const withSearch = await toolsLine({ webSearch: { provider: 'searxng', baseUrl: 'http://127.0.0.1:9' } });
    assert.match(withSearch, /\bweb_search\b/);
  });
});
