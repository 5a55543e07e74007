// `boxbot start`: runs the gateway until Ctrl+C / SIGTERM, printing where to chat and what is
// on. Stopping is bounded by `shutdown.timeoutMs`: a part still stopping then is named in one log
// line and the process exits with code 1; a second signal while stopping exits at once (130).
// `--port`, `--host` and `--log-level` (or PORT and LOG_LEVEL) override the config file.

import { unlinkedBundledToolsHint } from '../agent/tools/locations.ts';
import { offerableToolNames } from '../agent/tools/web-search-grant.ts';
import { readEnvSettings } from '../config/env.ts';
import { describeDataDir, strayDataDir } from '../config/load.ts';
import { type StartFlags, startSettings } from '../config/overrides.ts';
import { createLogger } from '../core/log.ts';
import { stopTimeoutLine, stopWithin } from '../core/stop-steps.ts';
import { startBoxbot } from '../main.ts';

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
  const app = await startBoxbot({ log, http: settings.http, ...(configFile ? { configFile } : {}) });
  const web = app.channels.includes('web') ? `${app.url}/` : 'off';
  const refused = app.runtime.registry.problems().length;
  const stray = strayDataDir(app.loaded);
  const unlinked = unlinkedBundledToolsHint();
  const lines = [
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
  process.stdout.write(`${lines.join('\n')}\n`);
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = () => {
      if (stopping) process.exit(130);
      stopping = true;
      process.stdout.write('stopping…\n');
      const timeoutMs = app.loaded.config.shutdown.timeoutMs;
      void stopWithin((steps) => app.stop(steps), timeoutMs).then((outcome) => {
        if (outcome.stopped) return resolve();
        // Whatever still runs would hold the process: it ends here. Accepted messages are in the store's
        // journal already and are answered at the next start.
        log.error({ scope: 'shutdown', parts: outcome.pending }, stopTimeoutLine(outcome.pending, timeoutMs));
        process.exit(1);
      });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return 0;
}
