// The gateway bench's second baseline: the bot a user could write instead of running boxbot. A
// plain grammY bot (long polling) streams each message through the OpenAI SDK and replies; boxbot
// runs with its openai provider, every feature of a default config on (history, usage, memory,
// workspace records, the outbox). Both talk real HTTP to the same emulators (each its own Telegram
// emulator instance, one LLM emulator answering at once), which run in the emulator thread.
// Figures: burst throughput (every message queued at once) and paced latency (one message at a
// time, from the platform receiving it to the platform taking the reply), boxbot over the bare bot.
import { join } from 'node:path';
import { quantile, r2 } from './stats.ts';

/** One of the emulator thread's Telegram emulators. */
export interface BotEndpoint {
  apiRoot: string;
  token: string;
}

/** What the comparison needs from the bench: its emulators, and a way to make users write. */
export interface BareComparisonOptions {
  bare: BotEndpoint;
  boxbot: BotEndpoint;
  openaiBaseURL: string;
  /** Adds private chats to emulator `bot`. */
  addChats(bot: 'bare' | 'boxbot', chatIds: number[]): Promise<void>;
  /** Users write these messages to emulator `bot` at once; resolves with the time (ms, `now()`) they were queued. */
  inject(bot: 'bare' | 'boxbot', items: [chatId: number, text: string][]): Promise<number>;
  /** Absolute time in ms, comparable with `inject`'s. */
  now(): number;
  /** Where boxbot keeps its data. */
  dataDir: string;
}

/** Burst and paced figures of one bot. */
interface BotFigures {
  burstMsgPerSec: number;
  pacedP50Ms: number;
  pacedP99Ms: number;
}

/** The comparison's result. */
export interface BareComparison {
  bare: BotFigures;
  boxbot: BotFigures;
  /** boxbot's burst rate over the bare bot's (goal >= 0.5). */
  burstRatio: number;
  /** boxbot's paced p50 over the bare bot's (goal <= 2). */
  pacedP50Ratio: number;
}

const BURST_CHATS = 200;
const BURST_PER_CHAT = 5;
const PACED = 200;
const PACED_WARMUP = 30;
const FIRST_CHAT = 3_000_000;

/** The text the LLM emulator answers for a user's text. */
export const answerOf = (text: string): string => `reply: ${text}`;

/** Counts replies by the user text they answer, and resolves waits on them. */
function answers() {
  const at = new Map<string, number>();
  let wake: (() => void) | undefined;
  return {
    done(text: string, time: number): void {
      if (!at.has(text)) at.set(text, time);
      wake?.();
    },
    at,
    until(pred: () => boolean): Promise<void> {
      return new Promise((resolve) => {
        const check = () => {
          if (!pred()) return;
          wake = undefined;
          resolve();
        };
        wake = check;
        check();
      });
    },
  };
}

/** Runs one bot through the burst and the paced series; `answered` is fed by the bot. */
async function measure(
  o: BareComparisonOptions,
  bot: 'bare' | 'boxbot',
  answered: ReturnType<typeof answers>,
): Promise<BotFigures> {
  const chats = Array.from({ length: BURST_CHATS }, (_, c) => FIRST_CHAT + c);
  await o.addChats(bot, chats);
  const paced: number[] = [];
  for (let n = 0; n < PACED_WARMUP + PACED; n++) {
    const text = `P${n}`;
    const t = await o.inject(bot, [[chats[n % BURST_CHATS]!, text]]);
    await answered.until(() => answered.at.has(text));
    if (n >= PACED_WARMUP) paced.push(answered.at.get(text)! - t);
  }
  const items: [number, string][] = [];
  for (let k = 0; k < BURST_PER_CHAT; k++) for (const c of chats) items.push([c, `B${c} m${k}`]);
  const started = await o.inject(bot, items);
  await answered.until(() => items.every(([, text]) => answered.at.has(text)));
  const last = Math.max(...items.map(([, text]) => answered.at.get(text)!));
  return {
    burstMsgPerSec: r2(items.length / ((last - started) / 1000)),
    pacedP50Ms: r2(quantile(paced, 0.5)),
    pacedP99Ms: r2(quantile(paced, 0.99)),
  };
}

/** The bare bot: grammY long polling, one OpenAI streaming call per message, replies in order per chat. */
async function bareBot(o: BareComparisonOptions): Promise<BotFigures> {
  const { Bot, HttpError } = await import('grammy');
  const { default: OpenAI } = await import('openai');
  const openai = new OpenAI({ baseURL: o.openaiBaseURL, apiKey: 'bench' });
  const bot = new Bot(o.bare.token, { client: { apiRoot: o.bare.apiRoot } });
  const answered = answers();
  let warned = false;
  // Not awaited in the handler, so chats are answered side by side (as boxbot does), in order within one.
  const tails = new Map<number, Promise<void>>();
  bot.on('message:text', (ctx) => {
    const chat = ctx.chat.id;
    const text = ctx.message.text;
    const job = (tails.get(chat) ?? Promise.resolve()).then(async () => {
      const stream = await openai.chat.completions.create({
        model: 'gpt-4o-mini',
        stream: true,
        messages: [{ role: 'user', content: text }],
      });
      let reply = '';
      for await (const chunk of stream) reply += chunk.choices[0]?.delta?.content ?? '';
      // Sent again after a network failure, as grammY's auto-retry plugin would (boxbot retries too).
      for (let attempt = 1; ; attempt++) {
        try {
          await ctx.reply(reply);
          break;
        } catch (e) {
          if (attempt >= 10 || !(e instanceof HttpError)) throw e;
          if (!warned) console.error(`bare bot: a reply failed (${String(e.error)}); sending it again`);
          warned = true;
          await new Promise((r) => setTimeout(r, 20 * attempt));
        }
      }
      answered.done(text, o.now());
    });
    tails.set(
      chat,
      job.catch((e: unknown) => console.error(`bare bot: ${String(e)}`)),
    );
  });
  const running = bot.start({ drop_pending_updates: true });
  try {
    return await measure(o, 'bare', answered);
  } finally {
    await bot.stop();
    await running;
  }
}

/** boxbot as main.ts wires it for one Telegram bot and the openai provider (no sandbox tools are called). */
async function boxbot(o: BareComparisonOptions): Promise<BotFigures> {
  const { createTelegramAdapter } = await import('../src/adapters/telegram/index.ts');
  const { createAgentRunner } = await import('../src/runner/agent-runner.ts');
  const { createGateway } = await import('../src/gateway/gateway.ts');
  const { configSchema } = await import('../src/config/schema.ts');
  const { createFileStore } = await import('../src/store/index.ts');
  const { DEFAULT_LIMITS } = await import('../src/sandbox/index.ts');
  const { silentLogger } = await import('../src/core/log.ts');
  const { resolveModel, costOf } = await import('../src/agent/providers/index.ts');
  const config = configSchema.parse({
    model: 'openai/gpt-4o-mini',
    providers: { openai: { type: 'openai', baseURL: o.openaiBaseURL } },
  });
  const secrets = { OPENAI_API_KEY: 'bench' };
  const store = createFileStore(o.dataDir);
  const adapter = createTelegramAdapter({
    token: o.boxbot.token,
    apiRoot: o.boxbot.apiRoot,
    state: { get: (k) => store.kv.get(k), set: (k, v) => store.kv.set(k, v as never) },
    logger: silentLogger,
    backoff: { initialMs: 50, maxMs: 500 },
  });
  // A message is answered when the platform took its reply, as for the bare bot (whose `ctx.reply` resolved).
  const answered = answers();
  const send = adapter.send.bind(adapter);
  adapter.send = async (target, text, options) => {
    const sent = await send(target, text, options);
    if (text.startsWith(answerOf(''))) answered.done(text.slice(answerOf('').length), o.now());
    return sent;
  };
  const agent = createAgentRunner({
    store,
    deps: {
      resolveModel: (spec) => resolveModel(spec ?? config.model!, { config, secrets }),
      registry: { list: () => [], get: () => undefined },
      sandbox: { run: () => Promise.reject(new Error('no sandbox in this bench')) } as never,
      costOf,
    },
    memory: { digestChars: config.memory.digestChars },
    workspacesDir: join(o.dataDir, 'workspaces'),
    sandbox: { block: ['private'], limits: DEFAULT_LIMITS },
  });
  const gateway = createGateway({
    config,
    adapters: [adapter],
    agent,
    store: store.delivery,
    log: silentLogger,
    concurrency: config.gateway.concurrency,
  });
  await gateway.start();
  try {
    return await measure(o, 'boxbot', answered);
  } finally {
    await gateway.stop();
    await store.close();
  }
}

/** Measures the bare bot, then boxbot, on their own emulators. */
export async function compareWithBareBot(o: BareComparisonOptions): Promise<BareComparison> {
  const bare = await bareBot(o);
  const box = await boxbot(o);
  return {
    bare,
    boxbot: box,
    burstRatio: r2(box.burstMsgPerSec / bare.burstMsgPerSec),
    pacedP50Ratio: r2(box.pacedP50Ms / bare.pacedP50Ms),
  };
}
