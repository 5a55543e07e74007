// `boxbot doctor` tells a newcomer what to fix: a token the platform refuses, a missing key, an
// unreachable model endpoint, an exposed HTTP host without an admin token, a bad config, a port
// in use, channels that are off; `--offline` contacts nothing and `--format json` is one document.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dropTool } from '../agent/tools/registry-helpers.ts';
import { type LlmEmulator, startLlmEmulator } from '../emulators/llm/index.ts';
import { startSearchEmulator } from '../emulators/search/server.ts';
import { startTelegramEmulator, type TelegramEmulator } from '../emulators/telegram/index.ts';
import { boxbotArgv, shareCache, tempDir } from '../helpers.ts';

let tg: TelegramEmulator;
let llmEmu: LlmEmulator;

function doctor(
  config: Record<string, unknown>,
  env: Record<string, string>,
  prepare?: (dataDir: string) => void,
  args: string[] = [],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dir = tempDir('boxbot-doctor-');
  shareCache(join(dir, 'data'));
  prepare?.(join(dir, 'data'));
  writeFileSync(
    join(dir, 'boxbot.config.json'),
    JSON.stringify({ dataDir: join(dir, 'data'), http: { port: 0 }, ...config }),
  );
  return new Promise((resolve) => {
    const child = spawn(process.execPath, boxbotArgv(['doctor', ...args]), {
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
    assert.match(r.stdout, /^off +web search +web_search is not offered: set webSearch\.provider/m);
    assert.doesNotMatch(r.stdout, /right-token|sk-doctor/, 'no secret is printed');
  });

  it('web search: one test query; a refused Brave key is a FIX naming its variable, Tavily passes', async () => {
    const emu = await startSearchEmulator(
      [{ title: 't', url: 'https://example.com/', snippet: 's' }],
      'search-good-key',
    );
    const env = { OPENAI_API_KEY: 'sk-doctor-0000000000', OPENAI_BASE_URL: llmEmu.openaiBaseURL };
    try {
      const refused = await doctor(
        { model: 'openai/gpt-4o-mini', webSearch: { provider: 'brave', baseUrl: emu.url } },
        { ...env, BRAVE_API_KEY: 'search-wrong-key' },
      );
      assert.equal(refused.code, 1, refused.stdout + refused.stderr);
      assert.match(
        refused.stdout,
        /^FIX +web search +brave at http:\/\/127\.0\.0\.1:\d+: the key was refused \(401\): check BRAVE_API_KEY/m,
      );
      assert.doesNotMatch(refused.stdout, /search-wrong-key/, 'the key is not printed');
      assert.deepEqual(
        emu.requests.map((q) => `${q.method} ${q.path} count=${q.query.count}`),
        ['GET /res/v1/web/search count=1'],
        'one request for one result',
      );
      const accepted = await doctor(
        {
          model: 'openai/gpt-4o-mini',
          webSearch: { provider: 'tavily', baseUrl: emu.url, apiKeyEnv: 'MY_SEARCH_KEY' },
        },
        { ...env, MY_SEARCH_KEY: 'search-good-key' },
      );
      assert.match(accepted.stdout, /^ok +web search +tavily at http:\/\/127\.0\.0\.1:\d+ answered a test query/m);
      assert.equal(accepted.code, 0, accepted.stdout + accepted.stderr);
      const missing = await doctor(
        { model: 'openai/gpt-4o-mini', webSearch: { provider: 'tavily', baseUrl: emu.url } },
        env,
      );
      assert.match(missing.stdout, /^FIX +web search +tavily needs a key: set TAVILY_API_KEY/m);
      assert.equal(emu.requests.length, 2, 'nothing is sent without a key');
    } finally {
      await emu.close();
    }
  });

  it('every configured key is checked: a refused Gemini key is a FIX naming its variable, Cohere passes', async () => {
    llmEmu.acceptKeys(['sk-doctor-0000000000', 'cohere-good-key']);
    try {
      const r = await doctor(
        { model: 'openai/gpt-4o-mini' },
        {
          OPENAI_API_KEY: 'sk-doctor-0000000000',
          OPENAI_BASE_URL: llmEmu.openaiBaseURL,
          GEMINI_API_KEY: 'gemini-stale-key',
          GEMINI_BASE_URL: llmEmu.url,
          COHERE_API_KEY: 'cohere-good-key',
          COHERE_BASE_URL: llmEmu.url,
        },
      );
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /^ok +provider openai +reachable \(200\)/m);
      assert.match(r.stdout, /^FIX +provider gemini +the key was refused \(401\): check GEMINI_API_KEY/m);
      assert.match(r.stdout, /^ok +provider cohere +reachable \(200\)/m);
      assert.doesNotMatch(r.stdout, /provider (anthropic|groq|bedrock)/, 'providers without a key are not called');
      assert.doesNotMatch(r.stdout, /gemini-stale-key|cohere-good-key/, 'no key is printed');
    } finally {
      llmEmu.acceptKeys(undefined);
    }
  });

  it('a recorded Telegram chat with privacy mode on is a FIX line saying the bot misses messages', async () => {
    const r = await doctor(
      {
        model: 'openai/gpt-4o-mini',
        channels: { telegram: { apiRoot: tg.apiRoot, chats: { '-100500': { history: { record: true } } } } },
      },
      {
        OPENAI_API_KEY: 'sk-doctor-0000000000',
        OPENAI_BASE_URL: llmEmu.openaiBaseURL,
        TELEGRAM_BOT_TOKEN: '123:right-token',
      },
    );
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^FIX +telegram history +recording chat -100500, but privacy mode is on/m);
  });

  it('a webhook job whose secret variable is unset is a FIX naming the variable; one that is set is ok', async () => {
    const hookJob = (id: string, webhook: string, secretEnv: string) => ({
      id,
      name: id,
      trigger: { webhook, secretEnv },
      prompt: 'Tell the channel: {{event}}',
      target: 'telegram:-100500',
      access: 'read-only',
      timeoutMs: 60_000,
      enabled: true,
      overlap: 'queue',
    });
    const r = await doctor(
      { model: 'openai/gpt-4o-mini' },
      { OPENAI_API_KEY: 'sk-doctor-0000000000', OPENAI_BASE_URL: llmEmu.openaiBaseURL, DEPLOY_SECRET: 'set-7a1c' },
      (dataDir) => {
        mkdirSync(dataDir, { recursive: true });
        const jobs = [
          hookJob('pushes-1', 'github-push', 'GITHUB_WEBHOOK_SECRET'),
          hookJob('deploys-1', 'deploys', 'DEPLOY_SECRET'),
        ];
        writeFileSync(
          join(dataDir, 'jobs.json'),
          JSON.stringify({ jobs: Object.fromEntries(jobs.map((j) => [j.id, j])) }),
        );
      },
    );
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /^FIX +webhook github-push +GITHUB_WEBHOOK_SECRET is not set: job pushes-1's POST \/hooks\/github-push .*503/m,
    );
    assert.match(r.stdout, /^ok +webhook deploys +job deploys-1, signed with the secret in DEPLOY_SECRET$/m);
    assert.match(r.stdout, /1 thing\(s\) to fix/);
    assert.doesNotMatch(r.stdout, /set-7a1c/, 'the secret is never printed');
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

  it('voice notes: off says how to turn transcription on; a transcription model without its key is a FIX', async () => {
    const env = { OPENAI_API_KEY: 'sk-doctor-0000000000' };
    const off = await doctor({ model: 'openai/gpt-4o-mini' }, env, undefined, ['--offline']);
    assert.match(off.stdout, /^off +voice notes +not transcribed: set media\.transcription\.model/m);
    const broken = await doctor(
      { model: 'openai/gpt-4o-mini', media: { transcription: { model: 'groq/whisper-large-v3' } } },
      env,
      undefined,
      ['--offline'],
    );
    assert.equal(broken.code, 1);
    assert.match(
      broken.stdout,
      /^FIX +voice notes +media\.transcription\.model: groq\/whisper-large-v3 needs GROQ_API_KEY/m,
    );
    const good = await doctor(
      { model: 'openai/gpt-4o-mini', media: { transcription: { model: 'openai/gpt-4o-mini-transcribe' } } },
      env,
      undefined,
      ['--offline'],
    );
    assert.match(good.stdout, /^ok +voice notes +transcribed by openai\/gpt-4o-mini-transcribe/m);
  });

  it('a model without a price is noted, and is a FIX where a USD budget is set (it cannot stop it)', async () => {
    const env = { DASHSCOPE_API_KEY: 'sk-doctor-qwen-000000', OPENAI_API_KEY: 'sk-doctor-0000000000' };
    const plain = await doctor({ model: 'qwen/qwen-plus' }, env, undefined, ['--offline']);
    assert.match(
      plain.stdout,
      /^ok +price qwen\/qwen-plus +no price is known for qwen\/qwen-plus: its tokens are counted, its cost is/m,
    );
    const budget = { telegram: { budget: { conversationUsdPerDay: 1 } } };
    const budgeted = await doctor({ model: 'qwen/qwen-plus', channels: budget }, env, undefined, ['--offline']);
    assert.equal(budgeted.code, 1);
    assert.match(
      budgeted.stdout,
      /^FIX +price qwen\/qwen-plus +no price is known for qwen\/qwen-plus: .*the USD budgets in the config cannot/m,
    );
    const priced = await doctor({ model: 'openai/gpt-4o-mini', channels: budget }, env, undefined, ['--offline']);
    assert.doesNotMatch(priced.stdout, /price /);
  });

  it('a bad config is a usage error naming the field (exit 2)', async () => {
    const r = await doctor({ http: { port: 'eighty' } }, {});
    assert.equal(r.code, 2);
    assert.match(r.stderr, /http\.port: Expected number, received string/);
  });

  it('--offline contacts nothing: no request reaches the model endpoint or any platform', async () => {
    // One recorder stands in for Discord, Slack and the model endpoint; Telegram's emulator records its own.
    const seen: string[] = [];
    const recorder: Server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"data":[]}');
    });
    await new Promise<void>((r) => recorder.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
    const telegramCalls = tg.calls.length;
    try {
      const r = await doctor(
        {
          model: 'openai/gpt-4o-mini',
          webSearch: { provider: 'searxng', baseUrl: url },
          channels: {
            telegram: { apiRoot: tg.apiRoot },
            discord: { restApi: `${url}/api` },
            slack: { mode: 'http', apiUrl: `${url}/slack/` },
          },
        },
        {
          OPENAI_API_KEY: 'sk-doctor-0000000000',
          OPENAI_BASE_URL: `${url}/v1`,
          TELEGRAM_BOT_TOKEN: '123:right-token',
          DISCORD_BOT_TOKEN: 'discord-token',
          SLACK_BOT_TOKEN: 'xoxb-slack',
          SLACK_SIGNING_SECRET: 'signing',
        },
        undefined,
        ['--offline'],
      );
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /^ok +telegram +TELEGRAM_BOT_TOKEN is set \(not checked against telegram: --offline\)/m);
      assert.match(r.stdout, /^ok +discord +DISCORD_BOT_TOKEN is set/m);
      assert.match(r.stdout, /^ok +slack +SLACK_BOT_TOKEN is set/m);
      assert.match(r.stdout, /^ok +web search +searxng at http:\/\/127\.0\.0\.1:\d+ \(not contacted: --offline\)/m);
      assert.deepEqual(seen, [], 'no request reached the recorder');
      assert.equal(tg.calls.length, telegramCalls, 'no request reached Telegram');
    } finally {
      await new Promise((r) => recorder.close(r));
    }
  });

  it('what boxbot start would refuse in a channel is a FIX with the same line: a webhook without its URL', async () => {
    const r = await doctor(
      { model: 'ollama/llama3.1', channels: { telegram: { mode: 'webhook' }, slack: { mode: 'http' } } },
      { TELEGRAM_BOT_TOKEN: '123:t', TELEGRAM_WEBHOOK_SECRET: 'ok-secret', SLACK_BOT_TOKEN: 'xoxb-1' },
      undefined,
      ['--offline'],
    );
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /^FIX +telegram +channels\.telegram\.mode is "webhook": set channels\.telegram\.webhookUrl \(the public URL/m,
    );
    assert.match(r.stdout, /^ok +telegram +TELEGRAM_BOT_TOKEN is set/m);
    assert.match(r.stdout, /^FIX +slack +channels\.slack\.mode is "http": set SLACK_SIGNING_SECRET/m);
  });

  it('--format json prints one JSON document of the checks; off channels say how to turn them on', async () => {
    const r = await doctor(
      {
        model: 'ollama/llama3.1',
        providers: { ollama: { type: 'openai-compatible', baseURL: llmEmu.openaiBaseURL } },
        channels: { web: { enabled: false } },
      },
      {},
      undefined,
      ['--offline', '--format', 'json'],
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const doc = JSON.parse(r.stdout) as { ok: boolean; toFix: number; checks: Record<string, string>[] };
    assert.equal(doc.ok, true);
    assert.equal(doc.toFix, 0);
    const byName = new Map(doc.checks.map((c) => [c.what, c]));
    assert.deepEqual(byName.get('telegram'), {
      status: 'off',
      what: 'telegram',
      detail: 'off: set TELEGRAM_BOT_TOKEN to turn it on',
    });
    assert.equal(byName.get('discord')?.detail, 'off: set DISCORD_BOT_TOKEN to turn it on');
    assert.match(byName.get('slack')?.detail ?? '', /^off: set SLACK_BOT_TOKEN to turn it on/);
    assert.equal(
      byName.get('web chat')?.detail,
      'off: channels.web.enabled is false in the config: remove it to turn it on',
    );
    assert.equal(byName.get('config')?.status, 'ok');

    const text = await doctor(
      { model: 'ollama/llama3.1', providers: { ollama: { type: 'openai-compatible', baseURL: llmEmu.openaiBaseURL } } },
      {},
      undefined,
      ['--offline'],
    );
    assert.match(text.stdout, /^off +discord +off: set DISCORD_BOT_TOKEN to turn it on$/m);
  });

  it('a configured HTTP port that is in use is a FIX naming the port', async () => {
    const holder: Server = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const port = (holder.address() as AddressInfo).port;
    try {
      const r = await doctor(
        {
          http: { port },
          model: 'ollama/llama3.1',
          providers: { ollama: { type: 'openai-compatible', baseURL: llmEmu.openaiBaseURL } },
        },
        {},
        undefined,
        ['--offline'],
      );
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, new RegExp(`^FIX +http port +port ${port} is in use on 127\\.0\\.0\\.1`, 'm'));
    } finally {
      await new Promise((r) => holder.close(r));
    }
  });
});
