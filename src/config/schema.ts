// The shape of boxbot.config.json (README, "Configuration"). Every key is optional;
// the defaults run. Secrets never live here: they come from the environment (see env.ts).
import { z } from 'zod';
import { mcpSchema, memorySchema } from './mcp.ts';

/** The APIs a `providers` entry may speak (src/agent/providers/presets.ts has the built-in ones). */
export const PROVIDER_TYPES = [
  'anthropic',
  'openai',
  'openai-compatible',
  'gemini',
  'cohere',
  'azure-openai',
  'bedrock',
  'vertex-anthropic',
] as const;

const access = z.enum(['full', 'read-only', 'chat-only']);

const toolFilter = z.object({ allow: z.array(z.string()).optional(), deny: z.array(z.string()).optional() }).strict();

/** Daily spending limits in USD (UTC days); a run stops before the model call that would pass one. */
const budget = z
  .object({
    conversationUsdPerDay: z.number().nonnegative().optional(),
    userUsdPerDay: z.number().nonnegative().optional(),
  })
  .strict();

/** Which tool calls wait for a person's yes, and who gives it. */
const approvals = z
  .object({
    /** Tool levels whose calls need approval. */
    levels: z.array(z.enum(['None', 'ReadOnly', 'Write', 'Execute'])).optional(),
    /** Tool names whose calls need approval (whatever their level). */
    tools: z.array(z.string()).optional(),
    /** Platform user ids who may decide, or "requester" (whoever asked for the run; the default). */
    approvers: z.union([z.array(z.string()).min(1), z.literal('requester')]).optional(),
    /** How long a question waits before it counts as denied (default 10 minutes). */
    timeoutMs: z.number().int().positive().optional(),
    /** After a run took in content it cannot trust (a web page), every Write/Execute call needs approval. */
    afterUntrusted: z.boolean().optional(),
    /** A read-only chat may run single Write/Execute calls once approved. */
    allowEscalation: z.boolean().optional(),
  })
  .strict();

/** Per-chat / per-channel / per-user overrides. */
const policyOverride = z
  .object({
    access: access.optional(),
    allowFrom: z.array(z.string()).optional(),
    requireMention: z.boolean().optional(),
    tools: toolFilter.optional(),
    model: z.string().optional(),
    /** Other `provider/model`s sub-agents may use here (default: only `model`). */
    models: z.array(z.string()).optional(),
    systemPrompt: z.string().optional(),
    network: z
      .object({ allow: z.array(z.string()) })
      .strict()
      .optional(),
    budget: budget.optional(),
    approvals: approvals.optional(),
    /** MCP servers offered here (merged by name over the wider levels'). */
    mcp: mcpSchema.optional(),
    /**
     * Managed mode (docs/managed-agents.md): runs here only delegate, to these executors of the top-level
     * `agents`, at most `maxConcurrent` at once.
     */
    manager: z
      .object({
        executors: z.array(z.string().min(1)).min(1),
        maxConcurrent: z.number().int().min(1).max(16).default(2),
      })
      .strict()
      .optional(),
  })
  .strict();

/** An executor of managed runs (`agents.<name>`). */
const executorSchema = z
  .object({
    /** What it is for, shown to the manager. */
    description: z.string().optional(),
    /** `provider/model` (default: the conversation's). */
    model: z.string().optional(),
    /** Tool names it may use, always within the conversation's policy (default: all the policy permits). */
    tools: z.array(z.string()).optional(),
    maxTurns: z.number().int().min(1).max(200).optional(),
    /** Its cap in USD per task (within the run's and the day's budgets). */
    budgetUsd: z.number().positive().optional(),
    timeoutMs: z.number().int().positive().optional(),
    /** Where it works: the conversation's workspace, a private copy, or a checkout of its git HEAD. */
    isolation: z.enum(['shared', 'copy', 'worktree']).default('copy'),
    systemPrompt: z.string().optional(),
  })
  .strict();

/**
 * Recording a channel (README, "Recording a channel"): every message the bot can see there is kept
 * in the channel log for digests, `days` long (default 30). Default off.
 */
const history = z
  .object({
    record: z.boolean().optional(),
    days: z.number().positive().max(3650).optional(),
  })
  .strict();

/** A chat's or channel's overrides: the policy, and the channel-level settings. */
const chatOverride = policyOverride.extend({ history: history.optional() });

const channelBase = chatOverride.extend({
  enabled: z.boolean().optional(),
  users: z.record(policyOverride).optional(),
});

const limits = z
  .object({
    timeoutMs: z.number().int().positive().optional(),
    maxMemoryMb: z.number().positive().optional(),
    fuel: z.number().int().positive().optional(),
    maxOutputBytes: z.number().int().positive().optional(),
    /** MiB a tool may write to files in one call (default 64). */
    maxWriteMb: z.number().positive().optional(),
    /** MiB a conversation's workspace may reach through tool writes (default 1024). */
    maxWorkspaceMb: z.number().positive().optional(),
    /** Files, folders and links a conversation's workspace may hold (default 100,000). */
    maxWorkspaceEntries: z.number().int().positive().optional(),
    /** MiB of HTTP response bodies one tool call may receive (default 16). */
    maxResponseMb: z.number().positive().optional(),
  })
  .strict();

/** The validated configuration file. */
export const configSchema = z
  .object({
    /** The JSON Schema editors complete and check against (boxbot.schema.json); ignored by boxbot. */
    $schema: z.string().optional(),
    dataDir: z.string().default('./data'),
    /**
     * Where state lives: without `url` (the default), files under dataDir; `url: "postgres://..."`
     * selects PostgreSQL (BOXBOT_DATABASE_URL overrides it and keeps the password out of the file).
     */
    store: z
      .object({
        url: z
          .string()
          .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
          .optional(),
        /** How long what the gateway keeps only for inspection stays. */
        retention: z
          .object({
            /** Sessions archived by /new or /reset (days, default 90). */
            archiveDays: z.number().positive().max(36500).optional(),
            /** Replies a platform refused for good (days, default 7; at most 1,000 are kept). */
            failedReplyDays: z.number().positive().max(3650).optional(),
          })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    model: z.string().optional(),
    fallbackModel: z.string().optional(),
    /**
     * A model stream that sends nothing for this long is ended as stalled, retried, then handed to the fallback
     * model (default 60000; 0 turns the watchdog off). `providers.<name>.idleTimeoutMs` overrides it.
     */
    modelIdleTimeoutMs: z.number().int().min(0).optional(),
    providers: z
      .record(
        z
          .object({
            type: z.enum(PROVIDER_TYPES),
            baseURL: z.string().url().optional(),
            apiKeyEnv: z.string().optional(),
            /** Azure OpenAI: the `api-version` query parameter (default `2024-10-21`). */
            apiVersion: z.string().min(1).optional(),
            /** Bedrock (default: AWS_REGION) and Vertex: the region, e.g. `us-east-1`, `us-east5`, `global`. */
            region: z
              .string()
              .regex(/^[a-z0-9-]+$/, 'a region name such as us-east-1')
              .optional(),
            /** Vertex: the Google Cloud project id. */
            projectId: z.string().min(1).optional(),
            /** This provider's stream idle timeout in ms (default: `modelIdleTimeoutMs`; 0: off). */
            idleTimeoutMs: z.number().int().min(0).optional(),
          })
          .strict(),
      )
      .optional(),
    http: z
      .object({
        host: z.string().default('127.0.0.1'),
        port: z.number().int().min(0).max(65535).default(8787),
        /**
         * The address others reach this server at (a reverse proxy's `https://bot.example.com`): webhook jobs'
         * URLs and the web chat's sign-in links are shown under it. Default: `http://<host>:<port>`.
         */
        publicUrl: z.string().url().optional(),
      })
      .strict()
      .default({}),
    sandbox: z
      .object({
        network: z
          .object({ allow: z.array(z.string()).default([]), block: z.array(z.string()).default(['private']) })
          .strict()
          .default({}),
        limits: limits.default({}),
        workers: z.number().int().positive().optional(),
        /**
         * JS heap cap of one sandbox worker in MB (default 2048 where all workers' caps fit in a quarter of the
         * machine's memory, else 512): a guest's host-side allocations stop there.
         */
        workerHeapMb: z.number().int().min(64).max(16384).optional(),
      })
      .strict()
      .default({}),
    /** MCP servers every conversation is offered (policy levels add, replace or turn off servers by name). */
    mcp: mcpSchema.optional(),
    /**
     * The `web_search` tool's service: `searxng` (self-hosted, no key; `baseUrl` required), `brave` or `tavily`
     * (key from the variable `apiKeyEnv` names, default BRAVE_API_KEY / TAVILY_API_KEY). The tool reaches this
     * one host and nothing else; the key is given to that tool's sandbox only, never to the model.
     */
    webSearch: z
      .object({
        provider: z.enum(['searxng', 'brave', 'tavily']),
        baseUrl: z
          .string()
          .url()
          .refine((u) => /^https?:\/\//.test(u), 'expected an http:// or https:// URL')
          .optional(),
        apiKeyEnv: z
          .string()
          .regex(/^[A-Z_][A-Z0-9_]*$/, 'expected an environment variable name (A-Z, 0-9, _)')
          .optional(),
      })
      .strict()
      .refine((w) => w.provider !== 'searxng' || w.baseUrl, {
        message: 'searxng needs baseUrl (the address of your SearXNG instance)',
        path: ['baseUrl'],
      })
      .optional(),
    /** Long-term memory: the memory tools and the prompt's digest. */
    memory: memorySchema.default({}),
    /** Executors that managed runs (policy `manager`) delegate to, by name. */
    agents: z
      .record(z.string().regex(/^[a-zA-Z0-9_-]{1,40}$/, 'names are letters, digits, - and _'), executorSchema)
      .optional(),
    /** Users who may target any conversation with scheduled jobs: `<platform>:<userId>` (or a bare id). */
    admins: z.array(z.string()).default([]),
    scheduler: z
      .object({
        /**
         * Jobs made from chat (the `schedule` tool): how often they may fire and how many one conversation
         * may have. The CLI and the admin API are not limited (seconds-level cron stays theirs).
         */
        chatJobs: z
          .object({
            /** Shortest time between two runs of a job, in minutes (read from its fire times). */
            minIntervalMinutes: z.number().positive().default(5),
            /** Jobs made from chat that target one conversation, at most. */
            maxPerConversation: z.number().int().positive().default(10),
          })
          .strict()
          .default({}),
        /** Jobs a signed `POST /hooks/<name>` starts (`trigger.webhook`). */
        webhooks: z
          .object({
            /** Largest request body a hook takes, in KiB (larger ones get 413 and start nothing). */
            maxBodyKb: z.number().int().positive().max(10_240).default(256),
            /** How long a delivery id is remembered, in hours: the same id again within it is a replay (409). */
            replayWindowHours: z
              .number()
              .positive()
              .max(24 * 30)
              .default(24),
          })
          .strict()
          .default({}),
      })
      .strict()
      .default({}),
    gateway: z
      .object({
        /**
         * Agent runs at work at once across conversations (building prompts, preparing media, running tools); a run
         * waiting on a model stream or an approver does not count.
         */
        concurrency: z.number().int().positive().default(16),
        /** Tell users outside allowFrom that they are not allowed (false: silence). */
        replyToStrangers: z.boolean().default(true),
        /** Limits of one agent run answering a chat message. */
        runTimeoutMs: z.number().int().positive().default(600_000),
        maxTurns: z.number().int().positive().default(30),
      })
      .strict()
      .default({}),
    /** Stopping on SIGTERM/SIGINT (`boxbot start`). */
    shutdown: z
      .object({
        /**
         * How long the parts (adapters, scheduler, MCP, sandbox, store) may take to stop, in ms; a part still
         * stopping then is named in the log and the process exits with code 1. Unfinished runs run again at the
         * next start.
         */
        timeoutMs: z.number().int().positive().max(600_000).default(10_000),
      })
      .strict()
      .default({}),
    /** Files in chats (photos, voice notes, documents; send_file): limits, transcription, vision. */
    media: z
      .object({
        /** Largest file, in MB, taken from a chat (larger ones are refused with a one-line reply) or sent to one. */
        maxFileMb: z.number().positive().default(20),
        /** Largest total of the files of one message, in MB. */
        maxMessageMb: z.number().positive().default(20),
        /** Speech to text for voice notes and audio (OpenAI-compatible POST /audio/transcriptions). */
        transcription: z
          .object({
            /** `provider/model`, e.g. `openai/gpt-4o-mini-transcribe` or a local Whisper server's provider. */
            model: z.string().optional(),
            /** Language hint (ISO-639-1, e.g. `en`); default: the model detects it. */
            language: z.string().optional(),
          })
          .strict()
          .default({}),
        /** More `provider/model`s that accept images, beyond the built-in table (e.g. `ollama/llava`). */
        visionModels: z.array(z.string()).default([]),
        /**
         * Reading documents (PDF text): each file is parsed in a child process held to these caps; a
         * file that passes one is unreadable and the user is told which.
         */
        extract: z
          .object({
            /** Memory of the parser process (V8 heap and resident size), in MB. */
            memoryMb: z.number().int().min(64).max(16_384).default(256),
            /** CPU time one file may take, in ms. */
            cpuMs: z.number().int().positive().default(20_000),
            /** Wall time one file may take, in ms. */
            timeoutMs: z.number().int().positive().default(30_000),
            /** Characters of a document's text given to the model (the whole file stays in the workspace). */
            maxChars: z.number().int().positive().max(1_000_000).default(20_000),
            /** Parser processes at once across all conversations. */
            maxParallel: z.number().int().positive().max(64).default(2),
          })
          .strict()
          .default({}),
      })
      .strict()
      .default({}),
    channels: z
      .object({
        telegram: channelBase
          .extend({
            apiRoot: z.string().url().optional(),
            mode: z.enum(['polling', 'webhook']).optional(),
            /** Webhook mode: the public URL Telegram posts to (ending in /webhooks/telegram). */
            webhookUrl: z.string().url().optional(),
            chats: z.record(chatOverride).optional(),
          })
          .strict()
          .optional(),
        discord: channelBase
          .extend({ restApi: z.string().url().optional(), channels: z.record(chatOverride).optional() })
          .strict()
          .optional(),
        slack: channelBase
          .extend({
            mode: z.enum(['socket', 'http']).optional(),
            apiUrl: z.string().url().optional(),
            channels: z.record(chatOverride).optional(),
          })
          .strict()
          .optional(),
        web: channelBase
          .omit({ history: true })
          .extend({
            /** Largest upload in the web chat, per file and per message together (MB, default media.maxMessageMb). */
            maxUploadMb: z.number().positive().max(1024).optional(),
            /** How long a web chat sign-in (and the local browser's cookie) lasts, in days (default 30). */
            sessionDays: z.number().positive().max(400).optional(),
            /** How long the web chat keeps files, and how much one browser may upload. */
            files: z
              .object({
                /** Uploads never sent with a message are deleted after this many hours (default 24). */
                unsentUploadHours: z.number().positive().max(8760).optional(),
                /** Sent files, and uploads a message carried, are deleted after this many days (default 30). */
                keepDays: z.number().positive().max(3650).optional(),
                /** What one browser's uploads may hold on disk together (MB, default 200). */
                quotaMb: z.number().positive().max(1_000_000).optional(),
              })
              .strict()
              .optional(),
          })
          .strict()
          .optional(),
      })
      .strict()
      .default({}),
  })
  .strict()
  .superRefine((config, ctx) => {
    // Every executor a `manager` names is one of `agents`, wherever in the channels the manager is set, and its
    // model is one the place allows (its `model` or `models`, inherited from the levels above as policies are).
    const known = Object.keys(config.agents ?? {});
    type Models = { model: string | undefined; models: string[] | undefined };
    const visit = (node: unknown, path: (string | number)[], above: Models): void => {
      if (!node || typeof node !== 'object') return;
      const here = node as { model?: unknown; models?: unknown };
      const allowed: Models = {
        model: typeof here.model === 'string' ? here.model : above.model,
        models: Array.isArray(here.models) ? (here.models as string[]) : above.models,
      };
      for (const [key, value] of Object.entries(node)) {
        if (key === 'manager' && value && typeof value === 'object' && 'executors' in value) {
          for (const [i, name] of (value as { executors: string[] }).executors.entries()) {
            const problem = !known.includes(name)
              ? `no executor "${name}" in agents${known.length ? ` (known: ${known.join(', ')})` : ''}`
              : executorModelProblem(name, config.agents?.[name]?.model, allowed, path.join('.'));
            if (problem)
              ctx.addIssue({ code: z.ZodIssueCode.custom, path: [...path, key, 'executors', i], message: problem });
          }
        } else visit(value, [...path, key], allowed);
      }
    };
    visit(config.channels, ['channels'], { model: config.model, models: undefined });
  });

/**
 * Why executor `name` may not run with `model` where `allowed` applies (the place's model and `models`, as for
 * sub-agents), or undefined. An executor without a model uses the conversation's, which is always allowed.
 */
export function executorModelProblem(
  name: string,
  model: string | undefined,
  allowed: { model: string | undefined; models: readonly string[] | undefined },
  place: string,
): string | undefined {
  if (!model || model === allowed.model || allowed.models?.includes(model)) return undefined;
  const list = [...new Set([allowed.model ?? 'the default model', ...(allowed.models ?? [])])].join(', ');
  return (
    `executor "${name}" uses model ${model}, which ${place} does not allow (it allows ${list}): ` +
    `add it to ${place}'s "models"`
  );
}

/** boxbot.config.json after validation and defaults. */
export type Config = z.infer<typeof configSchema>;
