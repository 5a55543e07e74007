// Secrets, endpoint overrides and start settings (LOG_LEVEL, PORT, BOXBOT_CONFIG) from the
// environment: the only reader of process.env besides load.ts. Secrets never live in the
// config file, and nothing here is ever logged.
import { mcpEnvNames } from './mcp.ts';

export { redactLine, redactText } from '../core/redact.ts';

/** The variables boxbot reads (README, "Configuration"). */
export const SECRET_VARIABLES = [
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'TELEGRAM_BOT_TOKEN',
  'TELEGRAM_WEBHOOK_SECRET',
  'DISCORD_BOT_TOKEN',
  'SLACK_BOT_TOKEN',
  'SLACK_APP_TOKEN',
  'SLACK_SIGNING_SECRET',
  'BOXBOT_ADMIN_TOKEN',
  'BOXBOT_DATABASE_URL',
  // Amazon Bedrock: IAM keys (signed with SigV4) or a Bedrock API key, and the default region.
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_BEARER_TOKEN_BEDROCK',
  'AWS_REGION',
  // Google Vertex AI: Application Default Credentials, the path of a service-account key file.
  'GOOGLE_APPLICATION_CREDENTIALS',
] as const;

/** Variables read with the secrets that are not secret (never redacted): endpoints, regions and a key file's path. */
const NOT_SECRET = /_BASE_URL$|^AWS_REGION$|^GOOGLE_APPLICATION_CREDENTIALS$/;

/** Environment values by name; provider presets may name further key variables (e.g. GROQ_API_KEY). */
export type Secrets = Readonly<Record<string, string | undefined>>;

/**
 * Reads secrets from `env` (default: the process environment), plus `extraNames` (e.g. the
 * config's `providers.*.apiKeyEnv`). Empty strings count as unset.
 * The returned object is frozen; pass it down instead of reading process.env elsewhere.
 */
export function readSecrets(env: NodeJS.ProcessEnv = process.env, extraNames: string[] = []): Secrets {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || v === '') continue;
    if (
      /_API_KEY$|_BASE_URL$|_TOKEN$|_SECRET$/.test(k) ||
      (SECRET_VARIABLES as readonly string[]).includes(k) ||
      extraNames.includes(k)
    )
      out[k] = v;
  }
  return Object.freeze(out);
}

/**
 * One variable of `env` by name (empty counts as unset): a webhook job's secret, named by the job
 * and read at each request, so a job added after the start finds a variable the process has.
 */
export function readVariable(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const v = Object.hasOwn(env, name) ? env[name] : undefined;
  return v ? v : undefined;
}

/** Every secret value, for redaction: a string containing one of these is never logged or sent to a chat. */
export function secretValues(secrets: Secrets): string[] {
  return Object.entries(secrets)
    .filter(([k, v]) => v && v.length >= 8 && !NOT_SECRET.test(k))
    .map(([, v]) => v!);
}

/**
 * The key variables the config names for custom providers and MCP servers (read besides the standard ones, and
 * redacted like them).
 */
export function configuredKeyNames(
  config: {
    providers?: Record<string, { apiKeyEnv?: string | undefined }> | undefined;
    webSearch?: { apiKeyEnv?: string | undefined } | undefined;
  } & Parameters<typeof mcpEnvNames>[0],
): string[] {
  return [
    ...Object.values(config.providers ?? {}).flatMap((p) => (p.apiKeyEnv ? [p.apiKeyEnv] : [])),
    ...(config.webSearch?.apiKeyEnv ? [config.webSearch.apiKeyEnv] : []),
    ...mcpEnvNames(config),
  ];
}

/** Settings the environment may give instead of a flag (README, "Configuration"). */
export interface EnvSettings {
  /** `LOG_LEVEL`: pino level name (checked by the command). */
  logLevel?: string;
  /** `PORT`: the HTTP port, as written (checked by the command). */
  port?: string;
  /** `BOXBOT_CONFIG`: the config file when `--config` is not given. */
  configFile?: string;
}

/** LOG_LEVEL, PORT and BOXBOT_CONFIG from `env` (default: the process environment); empty counts as unset. */
export function readEnvSettings(env: NodeJS.ProcessEnv = process.env): EnvSettings {
  const out: EnvSettings = {};
  if (env.LOG_LEVEL) out.logLevel = env.LOG_LEVEL;
  if (env.PORT) out.port = env.PORT;
  if (env.BOXBOT_CONFIG) out.configFile = env.BOXBOT_CONFIG;
  return out;
}
