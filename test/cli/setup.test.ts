// `boxbot setup` as a newcomer runs it, against the platform and model emulators: answers piped
// in one per line, or flags with the secrets in the environment. Each secret is checked with the
// real service's call, never printed, and lands in a .env (mode 0600) that the next command loads.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type DiscordEmulator, startDiscordEmulator } from '../emulators/discord/index.ts';
import { type LlmEmulator, llm, startLlmEmulator } from '../emulators/llm/index.ts';
import { type SlackEmulator, startSlackEmulator } from '../emulators/slack/index.ts';
import { startTelegramEmulator, type TelegramEmulator } from '../emulators/telegram/index.ts';
import { boxbotArgv, tempDir } from '../helpers.ts';

const TG = '123:telegram-secret-token';
const DC = 'discord-secret-token-abc';
const XOXB = 'xoxb-slack-secret-bot';
const XAPP = 'xapp-slack-secret-app';
const WRONG_KEY = 'sk-ant-wrong-key-0001';
const RIGHT_KEY = 'sk-ant-right-key-0002';
const SECRETS = [TG, DC, XOXB, XAPP, WRONG_KEY, RIGHT_KEY, 'sk-openai-key-0003'];

let tg: TelegramEmulator;
let dc: DiscordEmulator;
let slack: SlackEmulator;
let model: LlmEmulator;

before(async () => {
  tg = await startTelegramEmulator({ token: TG, bot: { id: 42, username: 'setup_test_bot' } });
  dc = await startDiscordEmulator({ token: DC });
  slack = await startSlackEmulator({ botToken: XOXB, appToken: XAPP });
  model = await startLlmEmulator();
});
after(async () => {
  await Promise.all([tg.close(), dc.close(), slack.close(), model.close()]);
});

/** Runs `boxbot args` in `dir` with only `env` (and PATH), writing `input` to its stdin. */
function boxbot(dir: string, args: string[], env: Record<string, string>, input = '') {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, boxbotArgv(args), {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, XDG_DATA_HOME: join(dir, 'xdg'), ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => resolve({ code, out, err }));
    child.stdin.end(input);
  });
}

/** A folder whose config points the platforms at the emulators, with a comment that must survive. */
function project(): string {
  const dir = tempDir('boxbot-setup-');
  writeFileSync(
    join(dir, 'boxbot.config.json'),
    `{
  // the team's bot
  "dataDir": "./data",
  "channels": {
    "telegram": { "apiRoot": ${JSON.stringify(tg.apiRoot)} },
    "discord": { "restApi": ${JSON.stringify(dc.restApi)} },
    "slack": { "apiUrl": ${JSON.stringify(slack.apiUrl)} },
  },
}
`,
  );
  return dir;
}

const noSecretIn = (text: string) => {
  for (const s of SECRETS) assert.ok(!text.includes(s), `a secret was printed: ${text}`);
};

describe('boxbot setup', () => {
  it('asks, checks each answer with the service, retries a refused key, and writes config and .env', async () => {
    const dir = project();
    model.script([llm.fail(401, { errorType: 'authentication_error', message: 'invalid x-api-key' }), llm.say('OK')]);
    const before = model.requests.length;
    const answers = ['anthropic', '', WRONG_KEY, RIGHT_KEY, TG, '', XOXB, XAPP];
    const r = await boxbot(dir, ['setup'], { ANTHROPIC_BASE_URL: model.anthropicBaseURL }, `${answers.join('\n')}\n`);
    assert.equal(r.code, 0, r.out + r.err);
    noSecretIn(r.out + r.err);
    assert.match(r.out, /^ {2}FAIL model: anthropic: .*/m);
    assert.match(r.out, /^ {2}ok {3}model: anthropic\/claude-sonnet-5-5 answered "OK"$/m);
    assert.match(r.out, /^ {2}ok {3}telegram getMe: the bot is @setup_test_bot$/m);
    assert.match(r.out, /^ {2}ok {3}slack auth\.test: the bot is /m);
    assert.match(r.out, /^ {2}ok {3}slack apps\.connections\.open: Socket Mode can connect$/m);
    assert.match(r.out, /^channels: web chat, telegram, slack \(read-only until you set access\)$/m);
    const keys = model.requests.slice(before).map((q) => q.headers.authorization ?? q.headers['x-api-key']);
    assert.deepEqual(
      keys,
      [`Bearer ${WRONG_KEY}`, `Bearer ${RIGHT_KEY}`],
      'the model was called with each key in turn',
    );

    const env = join(dir, '.env');
    assert.equal(statSync(env).mode & 0o777, 0o600);
    assert.equal(
      readFileSync(env, 'utf8'),
      `ANTHROPIC_API_KEY=${RIGHT_KEY}\nTELEGRAM_BOT_TOKEN=${TG}\nSLACK_BOT_TOKEN=${XOXB}\nSLACK_APP_TOKEN=${XAPP}\n`,
    );
    const config = readFileSync(join(dir, 'boxbot.config.json'), 'utf8');
    assert.match(config, /^ {2}"model": "anthropic\/claude-sonnet-5-5",$/m);
    assert.match(config, /\/\/ the team's bot/, 'comments are kept');
    assert.ok(config.includes(tg.apiRoot), 'the rest of the file is kept');

    // The next command loads .env by itself: doctor finds the tokens with none in its environment.
    const d = await boxbot(dir, ['doctor'], { ANTHROPIC_BASE_URL: model.anthropicBaseURL });
    noSecretIn(d.out + d.err);
    assert.match(d.out, /^ok +telegram +token accepted \(@setup_test_bot\)/m);
    assert.match(d.out, /^ok +slack +bot token accepted/m);
    assert.match(d.out, /^ok +model anthropic\/claude-sonnet-5-5/m);
  });

  it('run again, Enter keeps what .env holds; a skipped platform stays off', async () => {
    const dir = project();
    writeFileSync(join(dir, '.env'), `# mine\nOTHER=1\nTELEGRAM_BOT_TOKEN=${TG}\n`, { mode: 0o600 });
    const r = await boxbot(dir, ['setup', '--no-check'], {}, 'ollama\nllama3.1\n\n\n\n');
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /Telegram bot token, from @BotFather \(empty: skip\) \[keep\]:/);
    assert.equal(readFileSync(join(dir, '.env'), 'utf8'), `# mine\nOTHER=1\nTELEGRAM_BOT_TOKEN=${TG}\n`);
    assert.match(readFileSync(join(dir, 'boxbot.config.json'), 'utf8'), /"model": "ollama\/llama3\.1"/);
    assert.match(r.out, /^channels: web chat, telegram /m);
  });

  it('input that ends before the questions do is a usage error naming the question; nothing is written', async () => {
    const dir = tempDir('boxbot-setup-');
    const r = await boxbot(dir, ['setup', '--no-check'], {}, 'openai\n');
    assert.equal(r.code, 2, r.out + r.err);
    assert.match(
      r.err,
      /^boxbot: the input ended at "Model \(openai\/<model>\)"; without questions: boxbot setup --yes/m,
    );
    assert.equal(existsSync(join(dir, 'boxbot.config.json')), false);
    assert.equal(existsSync(join(dir, '.env')), false);
  });

  it('--yes takes choices from flags and secrets from the environment; a refused token writes nothing', async () => {
    const dir = project();
    const configBefore = readFileSync(join(dir, 'boxbot.config.json'), 'utf8');
    const env = {
      OPENAI_API_KEY: 'sk-openai-key-0003',
      OPENAI_BASE_URL: model.openaiBaseURL,
      TELEGRAM_BOT_TOKEN: '123:not-the-token',
      DISCORD_BOT_TOKEN: DC,
    };
    const args = ['setup', '--yes', '--model', 'openai/gpt-4o-mini', '--channels', 'telegram,discord'];
    model.script([llm.say('OK')]);
    const refused = await boxbot(dir, args, env);
    assert.equal(refused.code, 1, refused.out + refused.err);
    assert.match(refused.out, /^ {2}FAIL telegram getMe: getMe answered 401: the token was refused$/m);
    assert.match(refused.err, /^boxbot: telegram getMe failed .*; nothing was written$/m);
    assert.equal(existsSync(join(dir, '.env')), false);
    assert.equal(readFileSync(join(dir, 'boxbot.config.json'), 'utf8'), configBefore);

    model.script([llm.say('OK')]);
    const r = await boxbot(dir, args, { ...env, TELEGRAM_BOT_TOKEN: TG });
    assert.equal(r.code, 0, r.out + r.err);
    noSecretIn(r.out + r.err);
    assert.match(r.out, /^ {2}ok {3}discord \/users\/@me: the bot is /m);
    assert.equal(
      readFileSync(join(dir, '.env'), 'utf8'),
      `OPENAI_API_KEY=sk-openai-key-0003\nTELEGRAM_BOT_TOKEN=${TG}\nDISCORD_BOT_TOKEN=${DC}\n`,
    );
    assert.match(readFileSync(join(dir, 'boxbot.config.json'), 'utf8'), /"model": "openai\/gpt-4o-mini"/);
    const calls = model.requests.filter((q) => q.path.endsWith('/chat/completions'));
    assert.equal(calls.at(-1)?.headers.authorization, 'Bearer sk-openai-key-0003', 'the model call used the key');
  });

  it('--yes without a token variable names it and exits 2; a secret is never taken as a flag', async () => {
    const dir = tempDir('boxbot-setup-');
    const r = await boxbot(
      dir,
      ['setup', '--yes', '--model', 'ollama/llama3.1', '--no-check', '--channels', 'slack'],
      {},
    );
    assert.equal(r.code, 2, r.out + r.err);
    assert.equal(
      r.err,
      'boxbot: set SLACK_BOT_TOKEN in the environment: setup --yes reads secrets from there, never from flags\n',
    );
    const flag = await boxbot(dir, ['setup', '--yes', '--key', 'sk-x'], {});
    assert.equal(flag.code, 2, flag.err);
    assert.match(flag.err, /unknown option '--key'/);
  });
});
