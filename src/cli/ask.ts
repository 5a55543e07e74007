// `boxbot ask` and `boxbot chat`: the agent without any chat platform. `ask` runs once and prints
// the answer (text, or with `--format json` {text, outcome, toolCalls, usage, costUsd}); `chat` is a
// terminal conversation.
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import {
  type AgentEvent,
  type AgentPolicy,
  type AgentRuntime,
  createAgentRuntime,
  type Message,
  ModelConfigError,
  offeredToolNames,
  runAgent,
} from '../agent/index.ts';
import { configuredKeyNames, readSecrets, type Secrets, secretValues } from '../config/env.ts';
import { ConfigError, type LoadedConfig, loadConfig } from '../config/load.ts';
import { UsageError } from '../core/errors.ts';
import { redactSecrets, registerSecrets, silentLogger } from '../core/log.ts';
import { accessLines, commandHelp, parseCommand } from '../gateway/commands/index.ts';
import { mountConflict, realPathOf } from '../sandbox/index.ts';

// Everything ask and chat print goes through these: a provider error or an answer that echoes a key is printed without
// it.
const out = (text: string) => process.stdout.write(redactSecrets(text));
const err = (text: string) => process.stderr.write(redactSecrets(text));

/** Flags shared by ask and chat. */
export interface AskFlags {
  model?: string;
  access?: string;
  workdir?: string;
  format?: string;
}

const ACCESS = ['full', 'read-only', 'chat-only'] as const;

function policyOf(flags: AskFlags, rt: AgentRuntime): AgentPolicy {
  const access = flags.access ?? 'read-only';
  if (!(ACCESS as readonly string[]).includes(access))
    throw new UsageError(`--access must be one of ${ACCESS.join(', ')}, not ${JSON.stringify(access)}`);
  return {
    access: access as AgentPolicy['access'],
    tools: {},
    workspace: resolve(flags.workdir ?? '.'),
    network: { allow: [], block: rt.block },
    limits: rt.limits,
    ...(flags.model ? { model: flags.model } : {}),
  };
}

/**
 * The runtime with the config's top-level MCP servers' tools among its built-ins (listed once, at
 * start; filtered by --access like any tool). A server that is down contributes no tools.
 */
async function withMcpTools(rt: AgentRuntime, loaded: LoadedConfig, secrets: Secrets): Promise<AgentRuntime> {
  const servers = loaded.config.mcp?.servers;
  if (!servers || !Object.keys(servers).length) return rt;
  // Loaded only when servers are configured: the MCP SDK (and its JSON Schema validator) is a
  // fifth of an ask's start-up otherwise spent for nothing.
  const [{ createMcpHub }, { mcpConnection }] = await Promise.all([
    import('../agent/mcp/index.ts'),
    import('../config/mcp.ts'),
  ]);
  const hub = createMcpHub({ connectionOf: (name, server) => mcpConnection(name, server, secrets) });
  const tools = await hub.toolsFor(servers);
  return {
    ...rt,
    deps: { ...rt.deps, builtins: [...(rt.deps.builtins ?? []), ...tools] },
    close: () => Promise.all([hub.close(), rt.close()]).then(() => undefined),
  };
}

async function runtimeFor(configFile: string | undefined): Promise<{ rt: AgentRuntime; loaded: LoadedConfig }> {
  // Without a config file the data dir is the user's (loadConfig), never inside the folder tools see.
  const loaded = loadConfig(configFile);
  const secrets = readSecrets(process.env, configuredKeyNames(loaded.config));
  registerSecrets(secretValues(secrets));
  const rt = await createAgentRuntime({ loaded, secrets, log: silentLogger, watch: false });
  return { rt: await withMcpTools(rt, loaded, secrets), loaded };
}

/**
 * One line on stderr when the sandbox will refuse tools the work dir because boxbot's own files
 * are in it (a config file whose dataDir lies inside): said once, up front, not per tool call.
 */
function warnIfRefused(policy: AgentPolicy, loaded: LoadedConfig): void {
  if (policy.access === 'chat-only') return;
  const why = mountConflict(realPathOf(policy.workspace), policy.access !== 'full', {
    dirs: [loaded.dataDir],
    noWrite: loaded.file ? [loaded.file] : [],
    mountableInside: [],
  });
  if (why)
    err(
      `boxbot: tools will be refused ${policy.workspace}: it ${why}; set "dataDir" to a folder outside it, or choose ` +
        `another --workdir\n`,
    );
}

/**
 * A model that cannot be served (no key, unknown provider, missing base URL) is a configuration
 * error (exit 2), found before the run rather than reported as a failed run (exit 1).
 */
function checkModelConfig(rt: AgentRuntime, policy: AgentPolicy): void {
  try {
    rt.deps.resolveModel(policy.model);
  } catch (e) {
    if (e instanceof ModelConfigError) throw new ConfigError(e.message);
    throw e;
  }
}

/** Status lines on stderr (only on a terminal, so piped output stays clean). */
function statusPrinter(): (e: AgentEvent) => void {
  const tty = process.stderr.isTTY;
  return (e) => {
    if (tty && e.type === 'tool-start') err(`\x1b[2m· ${e.status}\x1b[0m\n`);
  };
}

/**
 * `boxbot ask`: one run; exit 0 when the answer is final, 2 when no model can be used, 1 otherwise
 * (the reason on stderr).
 */
export async function ask(prompt: string, flags: AskFlags, configFile: string | undefined): Promise<number> {
  const format = flags.format ?? 'text';
  if (format !== 'text' && format !== 'json')
    throw new UsageError(`--format must be text or json, not ${JSON.stringify(format)}`);
  if (!prompt.trim()) throw new UsageError('the prompt is empty');
  const { rt, loaded } = await runtimeFor(configFile);
  try {
    const policy = policyOf(flags, rt);
    checkModelConfig(rt, policy);
    warnIfRefused(policy, loaded);
    const controller = new AbortController();
    const onSigint = () => controller.abort(new Error('interrupted'));
    process.once('SIGINT', onSigint);
    const r = await runAgent({
      input: prompt,
      policy,
      deps: rt.deps,
      signal: controller.signal,
      onEvent: statusPrinter(),
    });
    process.off('SIGINT', onSigint);
    if (format === 'json') {
      const { text, outcome, toolCalls, usage, costUsd } = r;
      const report = { text, outcome, toolCalls, usage, costUsd, ...(r.error ? { error: r.error } : {}) };
      out(`${JSON.stringify(report, null, 2)}\n`);
    } else if (r.text) {
      out(`${r.text.trimEnd()}\n`);
    }
    if (r.outcome === 'final') return 0;
    err(`boxbot: ${r.outcome === 'error' ? r.error : `the run ended with ${r.outcome}`}\n`);
    return 1;
  } finally {
    await rt.close();
  }
}

/** The chat's /help: the chat platforms' commands as the terminal has them. */
const CHAT_HELP = commandHelp('I am an AI assistant. Talk to me in plain words.', [
  ['reset', 'forget this conversation'],
  ['whoami', 'what I may do for you here'],
  ['exit', 'leave (or Ctrl+D); Ctrl+C stops an answer'],
  ['help', 'this text'],
]);

/** The chat's /whoami: the terminal user, the access mode, the tools a run offers and the model. */
function chatWhoami(policy: AgentPolicy, rt: AgentRuntime): string {
  let model = policy.model;
  try {
    model ??= rt.deps.resolveModel(undefined).id;
  } catch {
    // No usable model: the line is left out, as the start-up hint already said why.
  }
  let user = 'the user';
  try {
    user = userInfo().username;
  } catch {
    // No account name for this uid (a container): the line still says where.
  }
  return [
    `You are ${user} at the terminal, in ${policy.workspace}.`,
    ...accessLines(policy.access, offeredToolNames(policy, rt.deps), model),
  ].join('\n');
}

/** `boxbot chat`: a conversation in the terminal. `/reset` forgets, `/exit` (or Ctrl+D) leaves. */
export async function chat(flags: AskFlags, configFile: string | undefined): Promise<number> {
  const { rt, loaded } = await runtimeFor(configFile);
  const policy = policyOf(flags, rt);
  warnIfRefused(policy, loaded);
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
  let history: Message[] = [];
  if (rt.unavailableHint) err(`boxbot: ${rt.unavailableHint}\n`);
  out(`boxbot chat (${policy.access} access in ${policy.workspace}). /reset forgets, /exit leaves.\n`);
  let running: AbortController | undefined;
  rl.on('SIGINT', () => (running ? running.abort(new Error('interrupted')) : rl.close()));
  const prompt = () => {
    if (process.stdin.isTTY) out('you> ');
  };
  try {
    prompt();
    // The line iterator buffers input that arrives while a run is in progress (piped stdin).
    for await (const raw of rl) {
      const line = raw.trim();
      if (!line) {
        prompt();
        continue;
      }
      if (line === '/exit' || line === '/quit') break;
      if (line === '/reset') {
        history = [];
        out('(forgotten)\n');
        prompt();
        continue;
      }
      // Answered here, as the chat platforms answer them: never sent to the model.
      const command = parseCommand(line);
      if (command === 'help' || command === 'whoami') {
        out(`${command === 'help' ? CHAT_HELP : chatWhoami(policy, rt)}\n`);
        prompt();
        continue;
      }
      running = new AbortController();
      let streamed = false;
      const status = statusPrinter();
      const r = await runAgent({
        history,
        input: line,
        policy,
        deps: rt.deps,
        signal: running.signal,
        onEvent: (e) => {
          if (e.type === 'text-delta') {
            if (!streamed) out('boxbot> ');
            streamed = true;
            out(e.text);
          } else status(e);
        },
      });
      running = undefined;
      if (!streamed && r.text) out(`boxbot> ${r.text}`);
      out('\n');
      if (r.outcome === 'error') err(`boxbot: ${r.error}\n`);
      else history = r.messages;
      prompt();
    }
    return 0;
  } finally {
    rl.close();
    await rt.close();
  }
}
