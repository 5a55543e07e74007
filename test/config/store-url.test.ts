// Which store a process opens: BOXBOT_DATABASE_URL over `store.url`, files without either, and a
// variable that is not a PostgreSQL URL refused as a config error that does not echo its value.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../../src/config/load.ts';
import { configSchema } from '../../src/config/schema.ts';
import { databaseUrl } from '../../src/config/store-url.ts';

const config = (over: Record<string, unknown> = {}) => configSchema.parse(over);

test('the variable wins over the config file; neither means the file store', () => {
  const file = config({ store: { url: 'postgres://file@db/boxbot' } });
  assert.equal(databaseUrl(file, { BOXBOT_DATABASE_URL: 'postgresql://env@db/boxbot' }), 'postgresql://env@db/boxbot');
  assert.equal(databaseUrl(file, {}), 'postgres://file@db/boxbot');
  assert.equal(databaseUrl(config(), {}), undefined);
});

test('a BOXBOT_DATABASE_URL that is not a postgres:// URL is a config error naming the variable, not its value', () => {
  assert.throws(
    () => databaseUrl(config(), { BOXBOT_DATABASE_URL: 'mysql://root:hunter2@db/boxbot' }),
    (e: unknown) => e instanceof ConfigError && /BOXBOT_DATABASE_URL/.test(e.message) && !e.message.includes('hunter2'),
  );
});
