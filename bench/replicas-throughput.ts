// Scale-out benchmark, throughput part: messages answered per second by 1 and by 3 gateway
// replicas (child processes running startBoxbot) on one PostgreSQL database. Ingress is Telegram
// webhook mode, the updates POSTed round-robin to the replicas' HTTP servers with a fixed number
// in flight (as Telegram's max_connections does), so every replica takes a share; the Telegram
// emulator takes the answers and the LLM emulator answers at once. A message counts once its
// answer reached the emulator.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { llm, startLlmEmulator } from '../test/emulators/llm/index.ts';
import { startTelegramEmulator } from '../test/emulators/telegram/index.ts';
import { postUpdate } from '../test/emulators/telegram/webhook-post.ts';
import { tempDir } from '../test/helpers.ts';

/** Conversations, messages in each, and updates in flight at once. */
export interface ThroughputOptions {
  conversations: number;
  messages: number;
  inFlight: number;
}

/** What one run measured. */
export interface Throughput {
  replicas: number;
  messages: number;
  seconds: number;
  perSecond: number;
}

const SECRET = 'bench-secret_0123456789';
const child = fileURLToPath(new URL('replica-child.ts', import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));

/** Starts `replicas` gateways on `databaseUrl`, sends the load through them and stops them. */
export async function measureThroughput(
  replicas: number,
  databaseUrl: string,
  o: ThroughputOptions,
): Promise<Throughput> {
  const tg = await startTelegramEmulator();
  const model = await startLlmEmulator();
  model.respond(() => llm.say('ok'));
  const work = tempDir('boxbot-bench-replicas-');
  const dataDir = join(work, 'data');
  mkdirSync(dataDir, { recursive: true });
  const configFile = join(work, 'boxbot.config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      dataDir,
      http: { host: '127.0.0.1', port: 0 },
      model: 'openai/gpt-4o-mini',
      channels: {
        // The bench posts the updates itself; the emulator never has any to deliver here.
        telegram: { apiRoot: tg.apiRoot, mode: 'webhook', webhookUrl: 'http://127.0.0.1:9/webhooks/telegram' },
        web: { enabled: false },
      },
    }),
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    OPENAI_API_KEY: 'sk-bench-0000000000',
    OPENAI_BASE_URL: model.openaiBaseURL,
    TELEGRAM_BOT_TOKEN: tg.token,
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    BOXBOT_DATABASE_URL: databaseUrl,
  };
  const procs: ChildProcess[] = [];
  try {
    const urls: string[] = [];
    for (let i = 0; i < replicas; i++) {
      const proc = spawn(process.execPath, ['--import', 'tsx', child, configFile], {
        cwd: root,
        env,
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      procs.push(proc);
      urls.push(
        await new Promise<string>((resolve, reject) => {
          proc.once('message', (m) => resolve((m as { url: string }).url));
          proc.once('exit', (code) => reject(new Error(`replica ${i} exited (${code}) before it was up`)));
        }),
      );
    }
    const chats = Array.from({ length: o.conversations }, (_, c) => ({
      id: 700_000 + c,
      type: 'private' as const,
      first_name: `User${c}`,
    }));
    const updates: Record<string, unknown>[] = [];
    for (let n = 0; n < o.messages; n++)
      for (const chat of chats) {
        const from = { id: chat.id, is_bot: false, first_name: chat.first_name };
        const message = tg.storeMessage(chat, from, { text: `message ${n}`, entities: [] });
        updates.push({ update_id: updates.length + 1, message });
      }
    const answered = (): number => tg.botMessages().filter((m) => m.text === 'ok').length;
    const t0 = performance.now();
    let next = 0;
    const sender = async (): Promise<void> => {
      while (next < updates.length) {
        const i = next++;
        const url = `${urls[i % urls.length]}/webhooks/telegram`;
        let status = 0;
        while (status < 200 || status >= 300) status = await postUpdate({ url, secret: SECRET }, updates[i]);
      }
    };
    await Promise.all(Array.from({ length: o.inFlight }, sender));
    while (answered() < updates.length) await new Promise((r) => setTimeout(r, 20));
    const seconds = (performance.now() - t0) / 1000;
    return { replicas, messages: updates.length, seconds, perSecond: updates.length / seconds };
  } finally {
    await Promise.all(
      procs.map(
        (p) =>
          new Promise<void>((resolve) => {
            if (p.exitCode !== null) return resolve();
            p.once('exit', () => resolve());
            p.kill('SIGTERM');
          }),
      ),
    );
    await tg.close();
    await model.close();
  }
}
