// `boxbot doctor`: checks what `boxbot start` needs and prints what to fix: the config, the
// model providers (key present, endpoint answering), each enabled channel's token against the
// platform's auth endpoint, the web search service (one test query), the tool registry, the skills,
// the store, the HTTP bind rule and whether the HTTP port is free. Channels that are off are listed
// with the variable that turns them on; each webhook job's secret variable must be set. `--offline`
// contacts nothing (keys and tokens are only checked to be set); `--format json` prints one JSON
// document of the checks.
// Exit 0 when everything is usable, 1 when something needs fixing.
import { access, constants, mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import {
  checkProviderKey,
  checkTranscriptionModel,
  createToolRegistry,
  defaultModelSpec,
  listProviders,
  listSkills,
  parseModelSpec,
  toolCacheDir,
  toolDirs,
  unlinkedBundledToolsHint,
  unpricedModels,
} from '../agent/index.ts';
import { CHANNEL_TOKENS, type ChannelName, channelEnabled, channelProblems } from '../config/channels.ts';
import { configuredKeyNames, readSecrets, readVariable, type Secrets } from '../config/env.ts';
import { historyPolicy } from '../config/history.ts';
import { describeDataDir, type LoadedConfig, loadConfig, strayDataDir } from '../config/load.ts';
import { databaseUrl } from '../config/store-url.ts';
import { errorMessage, fetchFailureCode, UsageError } from '../core/errors.ts';
import { isLoopback } from '../core/loopback.ts';
import { createSandbox } from '../sandbox/index.ts';
import { type JobRecord, openStore } from '../store/index.ts';
import { checkMcp } from './doctor-mcp.ts';
import { checkSearch } from './doctor-search.ts';

/** One check; `off` marks a channel that is off (not a fault, but shown with how to turn it on). */
type Line = { ok: boolean; what: string; detail: string; off?: boolean };
type TelegramGetMe = { result?: { username?: string; can_read_all_group_messages?: boolean } };

/**
 * Telegram delivers a group's every message only with privacy mode off (or the bot an admin there):
 * for recorded chats, says whether the bot can read them all (getMe's can_read_all_group_messages).
 */
function telegramRecordingNote(config: LoadedConfig['config'], readsAll: boolean): Line | undefined {
  const tg = config.channels.telegram;
  const chats = Object.keys(tg?.chats ?? {}).filter((id) => historyPolicy(config, 'telegram', id).record);
  const all = tg?.history?.record === true;
  if (!all && !chats.length) return undefined;
  const where = all ? 'every group' : `chat${chats.length > 1 ? 's' : ''} ${chats.join(', ')}`;
  return readsAll
    ? { ok: true, what: 'telegram history', detail: `recording ${where}: privacy mode is off, every message is read` }
    : {
        ok: false,
        what: 'telegram history',
        detail:
          `recording ${where}, but privacy mode is on: Telegram sends the bot only commands, mentions and replies ` +
          'unless it is an admin there (BotFather: /setprivacy → Disable, then re-add the bot to the group)',
      };
}

/** GET/POST with a timeout; resolves with status and body text, or the network error's message. */
async function probe(
  url: string,
  init: RequestInit = {},
  timeoutMs = 5000,
): Promise<{ status: number; body: string } | { error: string }> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    return { status: res.status, body: (await res.text()).slice(0, 500) };
  } catch (e) {
    return { error: fetchFailureCode(e) ?? errorMessage(e) };
  }
}

async function checkProviders(loaded: LoadedConfig, secrets: Secrets, fetchEndpoints: boolean): Promise<Line[]> {
  const ctx = { config: loaded.config, secrets };
  const spec = defaultModelSpec(ctx);
  const lines: Line[] = [];
  if (!spec) {
    lines.push({
      ok: false,
      what: 'model',
      detail:
        'no provider has a key: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or set "model" (e.g. ollama/llama3.1 for a ' +
        'local server)',
    });
    return lines;
  }
  const name = parseModelSpec(spec).providerName;
  const status = listProviders(ctx).find((p) => p.name === name);
  if (!status?.ready) {
    lines.push({ ok: false, what: `model ${spec}`, detail: status?.problem ?? `unknown provider ${name}` });
    return lines;
  }
  lines.push({
    ok: true,
    what: `model ${spec}`,
    detail: `${status.type} at ${status.baseURL ?? 'its default endpoint'}`,
  });
  // A model without a price is counted in tokens only: a USD budget cannot hold it, which needs fixing.
  for (const u of unpricedModels(loaded.config, spec))
    lines.push({ ok: !u.budgeted, what: `price ${u.spec}`, detail: u.detail });
  if (!fetchEndpoints) return lines;
  // Every provider with a key is checked (a fallback or a `/model` choice may need it), and the default model's
  // provider even when it takes no key (a local server).
  const checked = listProviders(ctx).filter((p) => p.ready && (p.hasKey || p.name === name));
  const results = await Promise.all(
    checked.map((p) =>
      checkProviderKey(p, { ...ctx, ...(p.name === name ? { model: parseModelSpec(spec).model } : {}) }),
    ),
  );
  checked.forEach((p, i) => lines.push({ ok: results[i]!.ok, what: `provider ${p.name}`, detail: results[i]!.detail }));
  return lines;
}

/** A line for each channel that is off, saying how to turn it on. */
function offChannels(loaded: LoadedConfig, secrets: Secrets): Line[] {
  const lines: Line[] = [];
  for (const name of ['telegram', 'discord', 'slack', 'web'] as const) {
    if (channelEnabled(loaded.config, secrets, name)) continue;
    const disabled = (loaded.config.channels[name] as { enabled?: boolean } | undefined)?.enabled === false;
    const how = disabled
      ? `channels.${name}.enabled is false in the config: remove it to turn it on`
      : `set ${CHANNEL_TOKENS[name as Exclude<ChannelName, 'web'>]} to turn it on` +
        (name === 'slack' ? ' (and SLACK_APP_TOKEN for socket mode)' : '');
    lines.push({ ok: true, off: true, what: name === 'web' ? 'web chat' : name, detail: `off: ${how}` });
  }
  return lines;
}

/**
 * Each enabled channel: what `boxbot start` would refuse (channelProblems, the same lines), and
 * its token against the platform. With `offline`, a token is only checked to be set (no request
 * leaves the machine).
 */
async function checkChannels(loaded: LoadedConfig, secrets: Secrets, offline: boolean): Promise<Line[]> {
  const ch = loaded.config.channels;
  const lines: Line[] = [];
  const problems = channelProblems(loaded.config, secrets);
  /** Whether the channel is on with its token set, to be probed; each thing it lacks is a line to fix. */
  const on = (name: ChannelName) => {
    if (!channelEnabled(loaded.config, secrets, name)) return false;
    for (const p of problems.filter((p) => p.channel === name))
      lines.push({ ok: false, what: name, detail: p.message });
    return name === 'web' || Boolean(secrets[CHANNEL_TOKENS[name]]);
  };
  const unchecked = (name: 'telegram' | 'discord' | 'slack', token: string) =>
    lines.push({ ok: true, what: name, detail: `${token} is set (not checked against ${name}: --offline)` });
  if (on('telegram')) {
    if (offline) unchecked('telegram', 'TELEGRAM_BOT_TOKEN');
    else {
      const root = (ch.telegram?.apiRoot ?? 'https://api.telegram.org').replace(/\/+$/, '');
      const r = await probe(`${root}/bot${secrets.TELEGRAM_BOT_TOKEN}/getMe`);
      if ('error' in r) lines.push({ ok: false, what: 'telegram', detail: `cannot reach ${root} (${r.error})` });
      else if (r.status !== 200)
        lines.push({ ok: false, what: 'telegram', detail: `getMe answered ${r.status}: check TELEGRAM_BOT_TOKEN` });
      else {
        const me = (JSON.parse(r.body) as TelegramGetMe).result;
        lines.push({ ok: true, what: 'telegram', detail: `token accepted (@${me?.username ?? '?'})` });
        const note = telegramRecordingNote(loaded.config, me?.can_read_all_group_messages === true);
        if (note) lines.push(note);
      }
    }
  }
  if (on('discord')) {
    if (offline) unchecked('discord', 'DISCORD_BOT_TOKEN');
    else {
      const root = (ch.discord?.restApi ?? 'https://discord.com/api').replace(/\/+$/, '');
      const r = await probe(`${root}/v10/users/@me`, {
        headers: { authorization: `Bot ${secrets.DISCORD_BOT_TOKEN}` },
      });
      if ('error' in r) lines.push({ ok: false, what: 'discord', detail: `cannot reach ${root} (${r.error})` });
      else if (r.status !== 200)
        lines.push({ ok: false, what: 'discord', detail: `/users/@me answered ${r.status}: check DISCORD_BOT_TOKEN` });
      else
        lines.push({
          ok: true,
          what: 'discord',
          detail: 'token accepted (remember the Message Content intent in the Developer Portal)',
        });
    }
  }
  if (on('slack')) {
    if (offline) unchecked('slack', 'SLACK_BOT_TOKEN');
    else {
      const root = (ch.slack?.apiUrl ?? 'https://slack.com/api/').replace(/\/?$/, '/');
      const r = await probe(`${root}auth.test`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secrets.SLACK_BOT_TOKEN}` },
      });
      const ok = !('error' in r) && r.status === 200 && /"ok"\s*:\s*true/.test(r.body);
      lines.push({
        ok,
        what: 'slack',
        detail: ok
          ? 'bot token accepted'
          : 'error' in r
            ? `cannot reach ${root} (${r.error})`
            : `auth.test refused the bot token: check SLACK_BOT_TOKEN (${r.body.slice(0, 80)})`,
      });
    }
  }
  if (on('web'))
    lines.push({ ok: true, what: 'web chat', detail: `http://${loaded.config.http.host}:${loaded.config.http.port}/` });
  return lines;
}

/**
 * Whether `boxbot start` could listen on the configured port: binds it here for a moment (a fact
 * about the machine, whichever process holds the port) and lets it go.
 */
/**
 * Each webhook job's secret: a job whose variable is unset refuses every request (503) until it
 * is set, which a sender only sees as failed deliveries.
 */
function webhookLines(jobs: JobRecord[], variable: (name: string) => string | undefined): Line[] {
  return jobs.flatMap((j): Line[] => {
    if (!j.trigger) return [];
    const { webhook, secretEnv } = j.trigger;
    const what = `webhook ${webhook}`;
    if (!variable(secretEnv))
      return [
        {
          ok: false,
          what,
          detail: `${secretEnv} is not set: job ${j.id}'s POST /hooks/${webhook} answers 503 until it is`,
        },
      ];
    return [
      {
        ok: true,
        what,
        detail: `job ${j.id}, signed with the secret in ${secretEnv}${j.enabled ? '' : ' (disabled)'}`,
      },
    ];
  });
}

async function checkPort(host: string, port: number): Promise<Line> {
  if (port === 0) return { ok: true, what: 'http port', detail: 'http.port is 0: any free port is used' };
  const server = createServer();
  const failure = await new Promise<string | undefined>((resolve) => {
    server.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? errorMessage(e)));
    server.listen({ port, host, exclusive: true }, () => resolve(undefined));
  });
  if (!failure) {
    await new Promise((r) => server.close(r));
    return { ok: true, what: 'http port', detail: `port ${port} on ${host} is free` };
  }
  const detail =
    failure === 'EADDRINUSE'
      ? `port ${port} is in use on ${host}: stop what listens there (a running boxbot?) or set http.port`
      : failure === 'EACCES'
        ? `port ${port} on ${host} needs privileges: set http.port to 1024 or above`
        : failure === 'EADDRNOTAVAIL'
          ? `http.host ${host} is not an address of this machine`
          : `cannot listen on ${host}:${port} (${failure})`;
  return { ok: false, what: 'http port', detail };
}

/** Voice notes: the transcription model and whether it can be called, or how to turn transcription on. */
function transcriptionLine(loaded: LoadedConfig, secrets: Secrets): Line {
  const spec = loaded.config.media.transcription.model;
  if (!spec)
    return {
      ok: true,
      off: true,
      what: 'voice notes',
      detail: 'not transcribed: set media.transcription.model (e.g. "openai/gpt-4o-mini-transcribe")',
    };
  const problem = checkTranscriptionModel(spec, { config: loaded.config, secrets });
  return problem
    ? { ok: false, what: 'voice notes', detail: `media.transcription.model: ${problem}` }
    : { ok: true, what: 'voice notes', detail: `transcribed by ${spec}` };
}

/** Runs every check and prints one line each (or, with format json, one document); exit 0 when nothing needs fixing. */
export async function doctor(
  configFile: string | undefined,
  opts: { env?: NodeJS.ProcessEnv; offline?: boolean; format?: string } = {},
): Promise<number> {
  const format = opts.format ?? 'text';
  if (format !== 'text' && format !== 'json')
    throw new UsageError(`--format: expected text or json, got ${JSON.stringify(format)}`);
  const lines: Line[] = [];
  const loaded = loadConfig(configFile); // a bad config throws a ConfigError naming the field (exit 2)
  lines.push({ ok: true, what: 'config', detail: loaded.file ?? 'none (defaults)' });
  const secrets = readSecrets(opts.env, configuredKeyNames(loaded.config));
  lines.push(...(await checkProviders(loaded, secrets, !opts.offline)));
  lines.push(...(await checkChannels(loaded, secrets, opts.offline === true)));
  lines.push(...offChannels(loaded, secrets));
  lines.push(transcriptionLine(loaded, secrets));
  lines.push(...(await checkMcp(loaded, secrets, opts.offline === true)));
  lines.push(await checkSearch(loaded.config.webSearch, secrets, opts.offline === true));
  lines.push(await checkPort(loaded.config.http.host, loaded.config.http.port));
  const host = loaded.config.http.host;
  if (!isLoopback(host) && !secrets.BOXBOT_ADMIN_TOKEN)
    lines.push({
      ok: false,
      what: 'http',
      detail: `http.host ${host} is reachable from other machines: set BOXBOT_ADMIN_TOKEN`,
    });
  else
    lines.push({
      ok: true,
      what: 'admin API',
      detail: secrets.BOXBOT_ADMIN_TOKEN ? 'on (bearer token)' : 'off (set BOXBOT_ADMIN_TOKEN to turn it on)',
    });
  // The data dir holds workspaces, files and caches even when the store is PostgreSQL.
  try {
    await mkdir(loaded.dataDir, { recursive: true });
    await access(loaded.dataDir, constants.W_OK);
    lines.push({ ok: true, what: 'data', detail: `${describeDataDir(loaded)}, writable` });
  } catch (e) {
    lines.push({ ok: false, what: 'data', detail: `${describeDataDir(loaded)}: ${errorMessage(e)}` });
  }
  const url = databaseUrl(loaded.config, secrets);
  try {
    if (url && opts.offline) {
      const { describeUrl } = await import('../store/postgres/db.ts');
      lines.push({ ok: true, what: 'store', detail: `PostgreSQL at ${describeUrl(url)} (not contacted: --offline)` });
    } else {
      const { store, where } = await openStore(url, loaded.dataDir);
      await store.kv.get('doctor.check');
      const jobs = await store.jobs.list().finally(() => store.close());
      lines.push({
        ok: true,
        what: 'store',
        detail: url ? `${where} is reachable, schema current` : `${where} opens`,
      });
      lines.push(...webhookLines(jobs, (name) => secrets[name] ?? readVariable(name, opts.env)));
    }
  } catch (e) {
    lines.push({ ok: false, what: 'store', detail: `${url ? 'PostgreSQL' : loaded.dataDir}: ${errorMessage(e)}` });
  }
  const stray = strayDataDir(loaded);
  if (stray)
    lines.push({
      ok: true,
      what: 'earlier data',
      detail: `${stray} is not in use; to keep using it, put {"dataDir": "./data"} in boxbot.config.json here`,
    });
  const sandbox = createSandbox({ cacheDir: join(loaded.dataDir, 'cache', 'sandbox'), workers: 1 });
  const registry = createToolRegistry({
    sandbox,
    dirs: toolDirs(loaded.dataDir),
    cacheDir: toolCacheDir(loaded.dataDir),
    watch: false,
  });
  try {
    await registry.start();
    const tools = registry.list();
    lines.push({
      ok: tools.length > 0,
      what: 'tools',
      detail: tools.length
        ? `${tools.length} registered (${tools.map((t) => t.spec.name).join(', ')})`
        : (unlinkedBundledToolsHint() ?? 'none registered: run npm install to build the bundled tools'),
    });
    for (const p of registry.problems()) lines.push({ ok: false, what: 'tool refused', detail: p.message });
    // Not a fault (a user may mean to replace a bundled tool), but never silent.
    for (const s of registry.shadowed())
      lines.push({
        ok: true,
        what: 'tool shadowed',
        detail: `${s.name}: ${s.file} (${s.source}) is replaced by ${s.by} (${s.bySource})`,
      });
  } finally {
    await registry.close();
    await sandbox.close();
  }
  const skills = await listSkills({ dataDir: loaded.dataDir });
  lines.push({
    ok: true,
    what: 'skills',
    detail: `${skills.skills.length} (${skills.skills.map((s) => s.name).join(', ')})`,
  });
  for (const p of skills.problems) lines.push({ ok: false, what: 'skill skipped', detail: `${p.file}: ${p.reason}` });
  const bad = lines.filter((l) => !l.ok).length;
  if (format === 'json') {
    const checks = lines.map((l) => ({ status: l.off ? 'off' : l.ok ? 'ok' : 'fix', what: l.what, detail: l.detail }));
    process.stdout.write(`${JSON.stringify({ ok: bad === 0, toFix: bad, checks }, null, 2)}\n`);
    return bad ? 1 : 0;
  }
  const width = Math.max(...lines.map((l) => l.what.length));
  for (const l of lines)
    process.stdout.write(`${l.off ? 'off' : l.ok ? 'ok ' : 'FIX'}  ${l.what.padEnd(width)}  ${l.detail}\n`);
  process.stdout.write(bad ? `\n${bad} thing(s) to fix.\n` : '\nEverything boxbot needs is in place.\n');
  return bad ? 1 : 0;
}
