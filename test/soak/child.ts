// The gateway under soak, as its own process so it can be SIGKILLed: startBoxbot (what
// `boxbot start` runs) on the config file given as the first argument, secrets from this
// process's environment, pino's JSON log lines on stdout. Tells its parent over IPC once every
// channel is up; a SIGTERM stops it cleanly (the soak's end), a SIGKILL is the fault.
import { startBoxbot } from '../../src/main.ts';

const configFile = process.argv[2];
if (!configFile || !process.send) {
  console.error('usage: run by the soak harness (test/soak/run.ts) with CONFIG and an IPC channel');
  process.exit(2);
}
const app = await startBoxbot({ configFile, workers: 1 });
process.send({ ready: true, pid: process.pid });
process.once('SIGTERM', () => {
  void app.stop().finally(() => process.exit(0));
});
