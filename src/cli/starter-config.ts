// The commented starter config `boxbot init` writes: every section with a line on what it is
// for, set to the defaults, so editing starts from a file that already loads.

/** The starter boxbot.config.json (JSONC), pointing at `schemaPath` for editor completion. */
export function starterConfig(schemaPath: string): string {
  return `{
  // Editors complete and check this file against the schema below.
  "$schema": ${JSON.stringify(schemaPath)},

  // Where conversations, jobs and caches are kept (relative to this file).
  "dataDir": "./data",

  // The model, as "provider/model". Without it, the first provider with a key in the
  // environment is used (ANTHROPIC_API_KEY, OPENAI_API_KEY, ...). Secrets never go in this file.
  // "model": "anthropic/claude-sonnet-5-5",
  // "fallbackModel": "openai/gpt-5.4",

  // Other endpoints: local models (Ollama, LM Studio, vLLM) or OpenAI-compatible services.
  // "providers": { "ollama": { "type": "openai-compatible", "baseURL": "http://127.0.0.1:11434/v1" } },

  // The web chat, health and admin API. --host/--port (or PORT) override these. Listening
  // beyond 127.0.0.1 needs BOXBOT_ADMIN_TOKEN in the environment.
  "http": { "host": "127.0.0.1", "port": 8787 },

  // How many agent runs at once, and the limits of one run answering a message.
  "gateway": { "concurrency": 16, "replyToStrangers": true, "runTimeoutMs": 600000, "maxTurns": 30 },

  // Tools run in a WebAssembly sandbox: the hosts they may reach and what one call may use.
  "sandbox": {
    "network": { "allow": [], "block": ["private"] },
    "limits": { "maxWriteMb": 64, "maxWorkspaceMb": 1024, "maxResponseMb": 16 },
  },

  // Users who may schedule jobs for any conversation: "<platform>:<userId>".
  "admins": [],

  // A channel is on when its token is in the environment (TELEGRAM_BOT_TOKEN,
  // DISCORD_BOT_TOKEN, SLACK_BOT_TOKEN) or it says "enabled": true. Per channel: access
  // ("full" | "read-only" | "chat-only"), allowFrom (who may use the bot; set it for bots in
  // public places), requireMention, tools, model, and overrides per chat, channel or user.
  "channels": {
    // "telegram": { "access": "read-only", "allowFrom": ["4242"], "requireMention": true },
    // "discord": { "access": "read-only" },
    // "slack": { "mode": "socket" },
    "web": { "enabled": true },
  },
}
`;
}
