// The soak: the gateway in a child process (test/soak/child.ts) against the Telegram, Slack and
// Discord emulators and the LLM emulator, which live here and so survive every kill and record
// what users would see (some answers carry a file, sent with send_file, so uploads are counted
// too). Users in N conversations send M numbered messages over a load window while the child is
// SIGKILLed at random points (and restarted on the same data folder), the
// platforms answer 429 for a while, and the disk fills up; then the run waits for quiet and
// counts (tally.ts). Every random choice comes from one printed seed.
//
// The full disk is real: the data folder is a small tmpfs (the compiled-tool cache bind-mounted
// from disk inside it), filled by a ballast file for the window, so every write the gateway
// makes fails with the kernel's own ENOSPC and nothing in the product carries a fault hook.
// Mounting needs root; without it the disk fault is skipped and the report says so.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unescapeSlackText } from '../../src/adapters/slack/format.ts';
import { workspaceOf } from '../../src/runner/index.ts';
import { compiledChild } from '../compiled-src.ts';
import { keepToolCache, warmToolCache } from '../e2e/boot.ts';
import { type DiscordEmulator, startDiscordEmulator } from '../emulators/discord/index.ts';
import { llm, startLlmEmulator } from '../emulators/llm/index.ts';
import { type SlackEmulator, startSlackEmulator } from '../emulators/slack/index.ts';
import { type Fault, startTelegramEmulator, type TelegramEmulator } from '../emulators/telegram/index.ts';
import { root, tempDir } from '../helpers.ts';
import {
  answerParts,
  type FileCounts,
  fileName,
  parseUserText,
  per100Kills,
  type ShownMessage,
  type Tally,
  tally,
  tallyFiles,
  userText,
} from './tally.ts';

/** The platforms a soak can drive. */
export type SoakPlatform = 'telegram' | 'slack' | 'discord';
export const SOAK_PLATFORMS: readonly SoakPlatform[] = ['telegram', 'slack', 'discord'];

/** How big and how rough a soak is; every duration in ms. */
export interface SoakOptions {
  seed: number;
  /** Conversations: direct messages, taking `platforms` in turn. */
  conversations: number;
  /** Platforms the conversations are spread over (default all three). */
  platforms?: readonly SoakPlatform[];
  /** Every Nth message of a conversation is answered with a file too (0: none; default 4). */
  filesEvery?: number;
  /** Messages per conversation. */
  messages: number;
  /** The window over which messages are sent and faults happen. */
  loadMs: number;
  /** SIGKILLs of the gateway within the load window. */
  kills: number;
  /** 429 storms (every send and edit on both platforms, and Telegram's getUpdates, refused with retry_after 1 s). */
  storms: number;
  stormMs: number;
  /** Fill the data folder's disk for `diskMs` once (needs root to mount a tmpfs; skipped otherwise). */
  diskFull: boolean;
  diskMs: number;
  /** Quiet needed at the end (no platform call, no model request) before counting. */
  quietMs: number;
  /** Hard bound on the whole run. */
  deadlineMs: number;
  /** Keep the work folder (data, config, gateway log) for a look afterwards. */
  keep?: boolean;
  /** Gateway processes on one database (`databaseUrl` needed when more than 1); a kill hits the leader. */
  replicas?: number;
  /** A PostgreSQL URL: the replicas share it (BOXBOT_DATABASE_URL); absent, the file store. */
  databaseUrl?: string;
  /** Progress lines. */
  say?: (line: string) => void;
}

/** What users of one platform saw, and the figures per 100 kills (every kill hits every platform). */
export interface PlatformReport {
  platform: SoakPlatform;
  conversations: number;
  lost: number;
  duplicated: number;
  strayPreviews: number;
  files: FileCounts;
  per100Kills: { strayPreviews: number; duplicatedFiles: number };
}

/** What the Discord emulator saw of the gateway sessions. */
export interface DiscordSessions {
  identifies: number;
  resumes: number;
  /** RESUMEs refused (the session had been expired while the gateway was down). */
  invalidSessions: number;
  /** Channel history pages read (catching up). */
  historyReads: number;
  /** Message creates answered with the message a repeated nonce had made. */
  nonceRepeats: number;
}

/** What the soak did and what users saw. */
export interface SoakReport extends Tally {
  perPlatform: PlatformReport[];
  discord: DiscordSessions;
  seed: number;
  kills: number;
  /** Exits nobody asked for (a crash), each followed by a restart. */
  crashes: number;
  storms: number;
  /** Telegram calls answered 429 (Slack's are not counted by its emulator). */
  telegram429: number;
  disk: string;
  /** False when the deadline came before the platforms went quiet. */
  quiescent: boolean;
  seconds: number;
  /** The work folder (gateway.log, data/) when kept. */
  workDir?: string;
}

/** Small, fast, seedable (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Crashes (exits nobody asked for) after which the gateway is no longer restarted. */
const MAX_CRASHES = 20;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** `p`, or `fallback` once `ms` have passed (the timer does not outlive the answer). */
async function within<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<T>((r) => (timer = setTimeout(() => r(fallback), Math.max(0, ms))))]);
  } finally {
    clearTimeout(timer);
  }
}

/** A gateway process and what became of it. */
interface Gateway {
  proc: ChildProcess;
  ready: Promise<boolean>;
  exited: Promise<void>;
  /** Ended by the soak (a planned kill or the final stop), not by itself. */
  planned: boolean;
}

/** Runs one soak; resolves with the counts (never throws for what the gateway did wrong). */
export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  const say = o.say ?? (() => undefined);
  const started = Date.now();
  const deadline = started + o.deadlineMs;
  const rng = seededRandom(o.seed);
  // tempDir's is removed at exit
  const work = o.keep ? mkdtempSync(join(tmpdir(), 'boxbot-soak-')) : tempDir('boxbot-soak-');
  const dataDir = join(work, 'data');
  const logFile = join(work, 'gateway.log');
  const mounts: string[] = [];
  const disk = prepareDataDir(work, dataDir, o.diskFull, mounts);
  say(`seed ${o.seed}; work folder ${work}; disk fault: ${disk}`);

  const platforms = o.platforms?.length ? o.platforms : SOAK_PLATFORMS;
  const filesEvery = o.filesEvery ?? 4;
  const withFile = (n: number) => filesEvery > 0 && n % filesEvery === filesEvery - 1;
  const tg = await startTelegramEmulator();
  const discord = await startDiscordEmulator();
  // More redeliveries than Slack's 3, and what a killed gateway left unacknowledged resent at
  // once on the next connection: a message is then lost or late only if the gateway made it so.
  const slack = await startSlackEmulator({ delivery: 'socket', maxRetries: 20, redeliverOnClose: true });
  const model = await startLlmEmulator();
  const streamRng = (c: number, n: number) => seededRandom((o.seed ^ (c * 7919 + n * 104729)) >>> 0);
  model.respond((req) => {
    const messages = (req.body?.messages ?? []) as { role: string; content: unknown }[];
    const last = [...messages].reverse().find((m) => m.role === 'user');
    const text = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
    const ids = parseUserText(text);
    if (!ids) return llm.say('ok');
    // A file-bearing answer: first send_file, then (the tool's result last) the text.
    if (withFile(ids.n) && messages.at(-1)?.role !== 'tool')
      return llm.answer([llm.toolCalls(llm.call('send_file', { path: `/${fileName(ids.c, ids.n)}` }))]);
    // Streamed over 0 to ~1 s, so kills and storms also land while a preview is up.
    return llm.say(answerParts(ids.c, ids.n), { chunkDelayMs: Math.floor(streamRng(ids.c, ids.n)() * 250) });
  });

  const chats = Array.from({ length: o.conversations }, (_, c) => chatOf(c, platforms, slack, discord));
  for (const [c, chat] of chats.entries()) {
    if (chat.platform === 'telegram') tg.addChat({ id: Number(chat.id), type: 'private', first_name: `User${c}` });
    else if (chat.platform === 'slack') slack.workspace.addUser(chat.user, `user${c}`);
    // The files the model sends, in each conversation's workspace from the start.
    const workspace = workspaceOf(join(dataDir, 'workspaces'), chat.key);
    for (let n = 0; n < o.messages; n++) {
      if (!withFile(n)) continue;
      mkdirSync(workspace, { recursive: true });
      writeFileSync(join(workspace, fileName(c, n)), `file for ${userText(c, n)}\n`);
    }
  }
  const configFile = join(work, 'boxbot.config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      dataDir,
      http: { host: '127.0.0.1', port: 0 },
      model: 'openai/gpt-4o-mini',
      channels: {
        telegram: { apiRoot: tg.apiRoot },
        slack: { apiUrl: slack.apiUrl, mode: 'socket' },
        discord: { restApi: discord.restApi },
        web: { enabled: false },
      },
    }),
  );
  // Built from nothing: a token in the caller's environment must not switch on another channel.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    OPENAI_API_KEY: 'sk-soak-0000000000',
    OPENAI_BASE_URL: model.openaiBaseURL,
    TELEGRAM_BOT_TOKEN: tg.token,
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_APP_TOKEN: slack.appToken,
    DISCORD_BOT_TOKEN: discord.token,
    ...(o.databaseUrl ? { BOXBOT_DATABASE_URL: o.databaseUrl } : {}),
  };
  const replicas = o.replicas ?? 1;
  if (replicas > 1 && !o.databaseUrl) throw new Error('several replicas need a databaseUrl');

  let stopping = false;
  let crashes = 0;
  const slots: (Gateway | undefined)[] = Array.from({ length: replicas }, () => undefined);
  const restartTimers: (NodeJS.Timeout | undefined)[] = slots.map(() => undefined);
  /** Waits until every replica is up (across crashes and restarts); false past the deadline or the crash limit. */
  const up = async (): Promise<boolean> => {
    while (Date.now() < deadline && crashes <= MAX_CRASHES) {
      const ready = await Promise.all(slots.map((g) => (g ? within(g.ready, deadline - Date.now(), false) : false)));
      if (ready.every(Boolean)) return true;
      await sleep(200);
    }
    return false;
  };
  // The gateway's module compiled, with src/ (test/compiled-src.ts): each start skips tsx.
  const child = compiledChild(join(root, 'test', 'soak', 'child.ts'));
  const launch = (i: number): Gateway => {
    const fd = openSync(logFile, 'a');
    const proc = spawn(process.execPath, [child, configFile], {
      cwd: root,
      env,
      stdio: ['ignore', fd, fd, 'ipc'],
    });
    closeSync(fd);
    const g: Gateway = {
      proc,
      planned: false,
      ready: new Promise((resolve) => {
        proc.once('message', () => resolve(true));
        proc.once('exit', () => resolve(false));
      }),
      exited: new Promise((resolve) => proc.once('exit', () => resolve())),
    };
    void g.exited.then(() => {
      if (g.planned || stopping || slots[i] !== g) return;
      crashes++;
      say(`gateway ${i} exited by itself (${proc.exitCode ?? proc.signalCode}); restarting it (see ${logFile})`);
      // A start that fails (say, on a full disk) is tried again a little later, a bounded number of times.
      slots[i] = undefined;
      if (crashes <= MAX_CRASHES) {
        restartTimers[i] = setTimeout(() => {
          restartTimers[i] = undefined;
          if (!stopping && !slots[i]) slots[i] = launch(i);
        }, 500);
      }
    });
    return g;
  };
  /** The replica to kill: the leader (from the database's lease) when there are several. */
  const victim = async (): Promise<number> => {
    if (replicas === 1 || !o.databaseUrl) return 0;
    const pid = await leaderPid(o.databaseUrl).catch(() => undefined);
    const i = slots.findIndex((g) => g && g.proc.pid === pid);
    return i >= 0 ? i : Math.floor(rng() * replicas);
  };
  const kill = async (): Promise<void> => {
    const i = await victim();
    const g = slots[i];
    if (!g) {
      // Between a crash and its restart: the kill lands on the restart instead.
      clearTimeout(restartTimers[i]);
      restartTimers[i] = undefined;
      slots[i] = launch(i);
      return;
    }
    g.planned = true;
    g.proc.kill('SIGKILL');
    await g.exited;
    // Every other kill (by the seed) lasts longer than Discord keeps a session: the next start
    // cannot RESUME and catches up from channel history instead. Only once the bot has answered
    // in every Discord conversation: a DM channel whose first message comes while there is no
    // session is one the bot cannot know of (Discord lists no DM channels).
    const expire = rng() < 0.5;
    const known = chats.every(
      (chat) => chat.platform !== 'discord' || discord.botMessages().some((m) => m.channel_id === chat.id),
    );
    if (expire && known) {
      await sleep(100); // the emulator sees the socket close
      if (discord.gateway.expireSessions() > 0) say('the Discord session expired while the gateway was down');
    }
    slots[i] = launch(i);
  };

  // The plan: when each message is sent and when each fault starts, all from the seed.
  const sends: { at: number; c: number; n: number }[] = [];
  for (let c = 0; c < o.conversations; c++) {
    // Random gaps scaled to fill the window: bursts and lulls, each conversation in order.
    const gaps = Array.from({ length: o.messages }, () => rng());
    const total = gaps.reduce((a, b) => a + b, 0) || 1;
    let at = 0;
    for (const [n, gap] of gaps.entries()) {
      at += (gap / total) * o.loadMs * 0.95;
      sends.push({ at, c, n });
    }
  }
  sends.sort((a, b) => a.at - b.at);
  const killTimes = Array.from({ length: o.kills }, () => o.loadMs * (0.05 + 0.9 * rng())).sort((a, b) => a - b);
  const stormTimes = Array.from({ length: o.storms }, () => o.loadMs * 0.8 * rng()).sort((a, b) => a - b);
  const diskAt = o.loadMs * (0.2 + 0.6 * rng());
  // The Discord gateway drops the socket once (the session stays resumable): discord.js RESUMEs.
  const dropAt = o.loadMs * (0.1 + 0.8 * rng());

  // Ctrl-C: no mount may outlive the run.
  const interrupted = (): void => {
    stopping = true;
    for (const g of slots) g?.proc.kill('SIGKILL');
    for (const m of [...mounts].reverse()) spawnSync('umount', ['-l', m]);
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  let telegram429 = 0;
  const sentCount = chats.map(() => 0);
  let quiescent = false;
  try {
    for (let i = 0; i < replicas; i++) slots[i] = launch(i);
    if (!(await up()))
      throw new Error(`the gateway did not start; see ${logFile}:\n${readFileSync(logFile, 'utf8').slice(-2000)}`);
    keepToolCache(join(dataDir, 'cache'));
    say(
      `gateway up after ${((Date.now() - started) / 1000).toFixed(1)} s; ${sends.length} messages ` +
        `over ${o.loadMs / 1000} s, ${o.kills} kills, ${o.storms} 429 storms`,
    );
    const t0 = Date.now();
    const at = (ms: number) => sleep(t0 + ms - Date.now());

    const sender = (async () => {
      for (const s of sends) {
        await at(s.at);
        const chat = chats[s.c]!;
        if (chat.platform === 'telegram') {
          const id = Number(chat.id);
          tg.userMessage({
            chat: { id, type: 'private', first_name: `User${s.c}` },
            from: { id, is_bot: false, first_name: `User${s.c}`, username: `user${s.c}` },
            text: userText(s.c, s.n),
          });
        } else if (chat.platform === 'slack') {
          await slack.userSays({ channel: chat.id, user: chat.user, text: userText(s.c, s.n) });
        } else {
          discord.userMessage({
            channelId: chat.id,
            userId: chat.user,
            userName: `user${s.c}`,
            content: userText(s.c, s.n),
          });
        }
        sentCount[s.c]!++;
      }
    })();
    const killer = (async () => {
      for (const [i, t] of killTimes.entries()) {
        await at(t);
        say(`kill ${i + 1}/${killTimes.length} at ${(t / 1000).toFixed(1)} s`);
        await kill();
      }
    })();
    const storms = (async () => {
      for (const t of stormTimes) {
        await at(t);
        say(`429 storm for ${o.stormMs / 1000} s at ${(t / 1000).toFixed(1)} s`);
        const fault: Fault = {
          methods: ['sendMessage', 'editMessageText', 'sendChatAction', 'getUpdates'],
          count: Number.MAX_SAFE_INTEGER,
          error_code: 429,
          description: 'Too Many Requests: retry after 1',
          retry_after: 1,
        };
        tg.failNext(fault);
        slack.rateLimitNext(5000, 1);
        discord.rateLimitNext(100_000, 1000, { routes: ['send', 'edit', 'typing', 'history'] });
        await sleep(o.stormMs);
        const i = tg.faults.indexOf(fault);
        if (i >= 0) tg.faults.splice(i, 1);
        slack.clearRateLimits();
        discord.clearFaults();
      }
    })();
    const filler = (async () => {
      if (disk !== 'on') return;
      await at(diskAt);
      say(`disk full for ${o.diskMs / 1000} s at ${(diskAt / 1000).toFixed(1)} s`);
      const ballast = fillDisk(dataDir);
      await sleep(o.diskMs);
      unlinkSync(ballast);
    })();
    const dropper = (async () => {
      if (!platforms.includes('discord')) return;
      await at(dropAt);
      say(`Discord gateway socket dropped at ${(dropAt / 1000).toFixed(1)} s`);
      discord.gateway.disconnectAll(4000);
    })();
    await Promise.all([sender, killer, storms, filler, dropper]);
    if (!(await up())) say('no gateway is up after the faults');

    // Quiet: no platform call and no model request for a while (shorter once all is answered).
    const activity = () =>
      tg.calls.filter((c) => c.method !== 'getUpdates').length +
      slack.api.count('chat.postMessage') +
      slack.api.count('chat.update') +
      slack.api.count('apps.connections.open') +
      discord.requests.length +
      discord.gateway.connects.length +
      model.requests.length;
    let last = activity();
    let lastChange = Date.now();
    while (Date.now() < deadline) {
      await sleep(250);
      const now = activity();
      if (now !== last) {
        last = now;
        lastChange = Date.now();
      }
      const all = tally(sentCount, shown(tg, slack, discord, chats));
      const need = all.delivered === all.sent ? Math.min(3000, o.quietMs) : o.quietMs;
      if (Date.now() - lastChange >= need) {
        quiescent = true;
        break;
      }
    }
    telegram429 = tg.calls.filter((c) => c.status === 429).length;
  } finally {
    process.off('SIGINT', interrupted);
    stopping = true;
    for (const t of restartTimers) clearTimeout(t);
    await Promise.all(
      slots.map(async (g) => {
        if (!g || g.proc.exitCode !== null || g.proc.signalCode !== null) return;
        g.planned = true;
        g.proc.kill('SIGTERM');
        await within(g.exited, 10_000, undefined);
        if (g.proc.exitCode === null && g.proc.signalCode === null) g.proc.kill('SIGKILL');
        await g.exited;
      }),
    );
    await tg.close();
    await slack.close();
    await discord.close();
    await model.close();
    for (const m of mounts.reverse()) spawnSync('umount', [m]);
    if (o.keep)
      writeFileSync(join(work, 'transcript.json'), JSON.stringify(transcript(tg, slack, discord, chats), null, 1));
    else rmSync(work, { recursive: true, force: true });
  }
  const counted = tally(sentCount, shown(tg, slack, discord, chats));
  const perPlatform = platforms.map((platform): PlatformReport => {
    const mine = chats.flatMap((chat, c) => (chat.platform === platform ? [c] : []));
    const per = counted.perConversation.filter((p) => mine.includes(p.conversation));
    const sum = (k: 'lost' | 'duplicated' | 'strayPreviews') => per.reduce((a, p) => a + p[k], 0);
    const expected = mine.flatMap((c) =>
      Array.from({ length: sentCount[c]! }, (_, n) => n)
        .filter(withFile)
        .map((n) => fileName(c, n)),
    );
    const files = tallyFiles(
      expected,
      fileNames(
        platform,
        tg,
        slack,
        discord,
        mine.map((c) => chats[c]!),
      ),
    );
    return {
      platform,
      conversations: mine.length,
      lost: sum('lost'),
      duplicated: sum('duplicated'),
      strayPreviews: sum('strayPreviews'),
      files,
      per100Kills: {
        strayPreviews: per100Kills(sum('strayPreviews'), o.kills),
        duplicatedFiles: per100Kills(files.duplicated, o.kills),
      },
    };
  });
  return {
    ...counted,
    perPlatform,
    discord: {
      identifies: discord.gateway.identifies.length,
      resumes: discord.gateway.resumes,
      invalidSessions: discord.gateway.invalidSessions,
      historyReads: discord.requests.filter((r) => r.method === 'GET' && /\/channels\/\d+\/messages$/.test(r.path))
        .length,
      nonceRepeats: discord.world.nonceRepeats,
    },
    seed: o.seed,
    kills: o.kills,
    crashes,
    storms: o.storms,
    telegram429,
    disk,
    quiescent,
    seconds: Math.round((Date.now() - started) / 1000),
    ...(o.keep ? { workDir: work } : {}),
  };
}

/** The pid of the replica holding the leader lease (its holder id is `<host>:<pid>:<random>`). */
async function leaderPid(url: string): Promise<number | undefined> {
  const { createDb } = await import('../../src/store/postgres/db.ts');
  const db = createDb(url, { max: 1 });
  try {
    const [row] = await db.query<{ holder: string }>(
      `SELECT holder FROM boxbot_leases WHERE name = 'leader' AND expires_at > clock_timestamp()`,
    );
    return row ? Number(row.holder.split(':')[1]) : undefined;
  } finally {
    await db.close();
  }
}

interface Chat {
  platform: SoakPlatform;
  /** Telegram chat id, Slack or Discord DM channel id. */
  id: string;
  user: string;
  /** The conversation key boxbot gives it. */
  key: string;
}

function chatOf(c: number, platforms: readonly SoakPlatform[], slack: SlackEmulator, discord: DiscordEmulator): Chat {
  const platform = platforms[c % platforms.length]!;
  if (platform === 'telegram') {
    const id = String(7000 + c);
    return { platform, id, user: id, key: `telegram:${id}` };
  }
  if (platform === 'discord') {
    const user = String(8_000_000_000_000_000n + BigInt(c));
    const dm = discord.dmChannel(user, `user${c}`);
    return { platform, id: dm.id, user, key: `discord:dm:${dm.id}` };
  }
  const pad = String(c).padStart(4, '0');
  return {
    platform,
    id: `D0SOAK${pad}`,
    user: `U0SOAK${pad}`,
    key: `slack:${slack.workspace.ids.teamId}:D0SOAK${pad}`,
  };
}

/** The names of the files the bot sent to `chats` (all on `platform`), one entry per upload. */
function fileNames(
  platform: SoakPlatform,
  tg: TelegramEmulator,
  slack: SlackEmulator,
  discord: DiscordEmulator,
  chats: Chat[],
): string[] {
  const ids = new Set(chats.map((chat) => chat.id));
  if (platform === 'telegram') return tg.botFiles().flatMap((f) => (ids.has(f.chatId) ? [f.name] : []));
  if (platform === 'slack') return slack.botFiles().flatMap((f) => (ids.has(f.channel) ? [f.name] : []));
  return discord.botMessages().flatMap((m) => (ids.has(m.channel_id) ? (m.uploads ?? []).map((u) => u.filename) : []));
}

/**
 * Every bot message, latest text, in each conversation's order. A file sent without a caption
 * shows no text and is counted by fileNames instead.
 */
function shown(tg: TelegramEmulator, slack: SlackEmulator, discord: DiscordEmulator, chats: Chat[]): ShownMessage[] {
  const byId = new Map(chats.map((chat, c) => [`${chat.platform}:${chat.id}`, c]));
  const out: ShownMessage[] = [];
  for (const m of tg.botMessages()) {
    const c = byId.get(`telegram:${m.chatId}`);
    if (c !== undefined && m.text !== '') out.push({ conversation: c, text: m.text });
  }
  for (const m of slack.botMessages()) {
    const c = byId.get(`slack:${m.channel}`);
    if (c !== undefined && m.text !== '') out.push({ conversation: c, text: unescapeSlackText(m.text) });
  }
  for (const m of discord.botMessages()) {
    const c = byId.get(`discord:${m.channel_id}`);
    if (c !== undefined && m.content !== '') out.push({ conversation: c, text: m.content });
  }
  return out;
}

/** Per conversation, what the user sent and every bot message with each text it showed (kept runs). */
function transcript(tg: TelegramEmulator, slack: SlackEmulator, discord: DiscordEmulator, chats: Chat[]): unknown {
  return chats.map((chat, c) => {
    if (chat.platform === 'discord') {
      const calls = discord.requests.filter((r) => r.path.includes(`/channels/${chat.id}/messages`));
      return {
        c,
        chat: `discord:${chat.id}`,
        calls: calls.map((r) => `${r.method} ${r.status} ${r.path} ${JSON.stringify(r.body ?? '').slice(0, 200)}`),
        shown: discord
          .botMessages()
          .filter((m) => m.channel_id === chat.id)
          .map((m) => `${m.id}: ${m.content}${m.uploads?.length ? ` [${m.uploads.map((u) => u.filename)}]` : ''}`),
      };
    }
    if (chat.platform === 'telegram') {
      const calls = tg.calls.filter(
        (k) => String(k.params.chat_id) === chat.id && (k.method === 'sendMessage' || k.method === 'editMessageText'),
      );
      return {
        c,
        chat: `telegram:${chat.id}`,
        calls: calls.map((k) => `${k.method} ${k.status} ${k.params.message_id ?? ''} ${String(k.params.text)}`),
        shown: tg.botMessages(chat.id).map((m) => `${m.messageId}: ${m.text}`),
      };
    }
    const calls = slack.api.calls.filter(
      (k) => k.params.channel === chat.id && (k.method === 'chat.postMessage' || k.method === 'chat.update'),
    );
    return {
      c,
      chat: `slack:${chat.id}`,
      calls: calls.map((k) => `${k.method} ${String(k.params.ts ?? '')} ${String(k.params.text)}`),
      shown: slack
        .botMessages()
        .filter((m) => m.channel === chat.id)
        .map((m) => `${m.ts}: ${m.text}`),
    };
  });
}

/**
 * Makes the data folder: a small tmpfs when the disk fault is wanted and mounting works. Returns 'on', 'off' or why it
 * is skipped.
 */
function prepareDataDir(work: string, dataDir: string, wanted: boolean, mounts: string[]): string {
  mkdirSync(dataDir, { recursive: true });
  if (!wanted) {
    warmToolCache(join(dataDir, 'cache'));
    return 'off';
  }
  // The compiled tools stay on disk (linked from the shared warm cache, then bind-mounted into
  // the tmpfs): only the store's files and the workspaces share the small, fillable disk.
  const toolCache = join(work, 'tool-cache');
  warmToolCache(toolCache);
  mkdirSync(toolCache, { recursive: true });
  const tmpfs = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', dataDir], { encoding: 'utf8' });
  if (tmpfs.status !== 0) {
    warmToolCache(join(dataDir, 'cache'));
    return `skipped (cannot mount a tmpfs: ${(tmpfs.stderr || tmpfs.error?.message || 'unknown').trim()})`;
  }
  mounts.push(dataDir);
  mkdirSync(join(dataDir, 'cache'));
  const bind = spawnSync('mount', ['--bind', toolCache, join(dataDir, 'cache')], { encoding: 'utf8' });
  if (bind.status !== 0) throw new Error(`cannot bind-mount the tool cache: ${bind.stderr}`);
  mounts.push(join(dataDir, 'cache'));
  return 'on';
}

/** Writes a ballast file in `dir` until its file system refuses (ENOSPC); returns its path. */
function fillDisk(dir: string): string {
  const path = join(dir, '.soak-ballast');
  const fd = openSync(path, 'w');
  try {
    for (const size of [1 << 20, 1 << 12, 1]) {
      const block = Buffer.alloc(size);
      for (;;) {
        try {
          writeSync(fd, block);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw e;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}
