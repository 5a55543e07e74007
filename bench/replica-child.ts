// One replica of the throughput part of the replicas bench: startBoxbot on the config file given
// as the first argument (secrets from the environment), telling its parent its HTTP address over
// IPC once every channel is up; a SIGTERM stops it cleanly.
import { createLogger } from '../src/core/log.ts';
import { startBoxbot } from '../src/main.ts';

const configFile = process.argv[2];
if (!configFile || !process.send) {
  console.error('usage: run by bench/replicas-throughput.ts (with an IPC channel)');
  process.exit(2);
}
// Errors only: the bench's output is its figures.
const app = await startBoxbot({ configFile, workers: 1, log: createLogger({ level: 'error' }) });
process.send({ url: app.url });
process.once('SIGTERM', () => {
  void app.stop().finally(() => process.exit(0));
});
