// `boxbot start`: runs the gateway until Ctrl+C / SIGTERM, printing where to chat and what is
// on. Stopping is bounded by `shutdown.timeoutMs`: a part still stopping then is named in one log
// line and the process exits with code 1; a second signal while stopping exits at once (130).
// The signals are caught before the gateway starts (until-signalled.ts).
// `--port`, `--host` and `--log-level` (or PORT and LOG_LEVEL) override the config file.

import { unlinkedBundledToolsHint } from '../agent/tools/locations.ts';
import { offerableToolNames } from '../agent/tools/web-search-grant.ts';
import { readEnvSettings } from '../config/env.ts';
import { describeDataDir, strayDataDir } from '../config/load.ts';
import { type StartFlags, startSettings } from '../config/overrides.ts';
import { createLogger } from '../core/log.ts';
import { type Boxbot, startBoxbot } from '../main.ts';
import { untilSignalled } from './until-signalled.ts';

/** Starts the gateway; resolves with the exit code once it has stopped. */
export async function start(configFile: string | undefined, flags: StartFlags = {}): Promise<number> {
  const settings = startSettings(flags, readEnvSettings());
  const log = createLogger({ level: settings.logLevel });
  // A library's stray rejection is logged, never fatal: the other conversations keep being served.
  process.on('unhandledRejection', (reason) => {
    log.error(
      { scope: 'process', err: reason instanceof Error ? reason.message : String(reason) },
      'unhandled rejection (kept running)',
    );
  });
  return untilSignalled({
    begin: () => startBoxbot({ log, http: settings.http, ...(configFile ? { configFile } : {}) }),
    up: (app) => process.stdout.write(`${banner(app).join('\n')}\n`),
    timeoutMs: (app) => app.loaded.config.shutdown.timeoutMs,
    log,
    say: (line) => process.stdout.write(`${line}\n`),
  });
}

/** What `boxbot start` prints once the gateway is up: where to chat and what is on. */
function banner(app: Boxbot): string[] {
  const web = app.channels.includes('web') ? `${app.url}/` : 'off';
  const refused = app.runtime.registry.problems().length;
  const stray = strayDataDir(app.loaded);
  const unlinked = unlinkedBundledToolsHint();
  return [
    'boxbot is running',
    `  web chat   ${web}`,
    `  channels   ${app.channels.join(', ')}`,
    `  model      ${app.model.spec ?? `none yet: ${app.model.hint} (chats answer with this hint)`}`,
    // web_search is listed only with a search service configured: without one no run is offered it.
    `  tools      ${
      offerableToolNames(
        app.runtime.registry.list().map((t) => t.spec.name),
        app.runtime.deps.hostGrants,
      ).join(', ') || `none${unlinked ? ` (${unlinked})` : ''}`
    }${refused ? ` (${refused} refused: boxbot tool list)` : ''}`,
    `  health     ${app.url}/healthz`,
    `  data       ${describeDataDir(app.loaded)}`,
    ...(stray
      ? [
          `  note       ${stray} holds data of an earlier run; to keep using it, put {"dataDir": "./data"} ` +
            'in boxbot.config.json here (boxbot init writes one)',
        ]
      : []),
    'Press Ctrl+C to stop.',
  ];
}
