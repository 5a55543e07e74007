// `boxbot doctor` tells a newcomer what to fix: a token the platform refuses, a missing key, an
// unreachable model endpoint, an exposed HTTP host without an admin token, a bad config.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dropTool } from '../agent/tools/registry-helpers.ts';
import { type LlmEmulator, startLlmEmulator } from '../emulators/llm/index.ts';
import { startTelegramEmulator, type TelegramEmulator } from '../emulators/telegram/index.ts';
import { boxbotArgv, shareCache, tempDir } from '../helpers.ts';

let tg: TelegramEmulator;
let llmEmu: LlmEmulator;

function doctor(
  config: Record<string, unknown>,
  env: Record<string, string>,
  prepare?: (dataDir: string) => void,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dir = tempDir('boxbot-doctor-');
  shareCache(join(dir, 'data'));
  prepare?.(join(dir, 'data'));
  writeFileSync(join(dir, 'boxbot.config.json'), JSON.stringify({ dataDir: join(dir, 'data'), ...config }));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, boxbotArgv(['doctor']), {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

before(async () => {
  tg = await startTelegramEmulator({ token: '123:right-token' });
  llmEmu = await startLlmEmulator();
});
after(async () => {
  await tg.close();
  await llmEmu.close();
});

describe('boxbot doctor', () => {
  it('all good: a key, a reachable model endpoint, a token Telegram accepts → exit 0', async () => {
    const r = await doctor(
      { model: 'openai/gpt-4o-mini', channels: { telegram: { apiRoot: tg.apiRoot } } },
      {
        OPENAI_API_KEY: 'sk-doctor-0000000000',
        OPENAI_BASE_URL: llmEmu.openaiBaseURL,
        TELEGRAM_BOT_TOKEN: '123:right-token',
      },
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^ok +telegram +token accepted/m);
    assert.match(r.stdout, /^ok +provider openai +reachable/m);
    assert.match(r.stdout, /Everything boxbot needs is in place/);
    assert.doesNotMatch(r.stdout, /right-token|sk-doctor/, 'no secret is printed');
  });

  it('a refused token and a missing key are each a FIX line naming the variable; exit 1', async () => {
    const r = await doctor(
      { channels: { telegram: { apiRoot: tg.apiRoot } } },
      { TELEGRAM_BOT_TOKEN: '123:wrong-token' },
    );
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^FIX +telegram +getMe answered 401: check TELEGRAM_BOT_TOKEN/m);
    assert.match(r.stdout, /^FIX +model +.*ANTHROPIC_API_KEY or OPENAI_API_KEY/m);
    assert.match(r.stdout, /2 thing\(s\) to fix/);
  });

  it('an exposed HTTP host without an admin token is a FIX', async () => {
    const r = await doctor(
      {
        http: { host: '0.0.0.0' },
        model: 'ollama/llama3.1',
        providers: { ollama: { type: 'openai-compatible', baseURL: llmEmu.openaiBaseURL } },
      },
      {},
    );
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /^FIX +http +http\.host 0\.0\.0\.0 is reachable from other machines: set BOXBOT_ADMIN_TOKEN/m,
    );
  });

  it("a user's tool that takes over a bundled tool's name is shown, naming both files", async () => {
    let mine = '';
    const r = await doctor(
      { model: 'ollama/llama3.1', providers: { ollama: { type: 'openai-compatible', baseURL: llmEmu.openaiBaseURL } } },
      {},
      (dataDir) => {
        mkdirSync(join(dataDir, 'extensions', 'tools'), { recursive: true });
        mine = dropTool(join(dataDir, 'extensions', 'tools'), 'reg-v1', 'read'); // its help says "read 1.0.0"
      },
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      new RegExp(
        `^ok +tool shadowed +read: \\S+/tools/dist/read\\.wasm \\(bundled\\) is replaced ` +
          `by ${mine.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(extension\\)$`,
        'm',
      ),
    );
  });

  it('a bad config is a usage error naming the field (exit 2)', async () => {
    const r = await doctor({ http: { port: 'eighty' } }, {});
    assert.equal(r.code, 2);
    assert.match(r.stderr, /http\.port: Expected number, received string/);
  });
});
