// Writes boxbot.schema.json, the JSON Schema of boxbot.config.json generated from the zod
// schema (src/config/schema.ts), so editors complete and check the file through its "$schema".
// Run after changing the schema: `npm run schema`; test/config/json-schema.test.ts checks the
// committed file is current.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { configSchema } from '../src/config/schema.ts';

/** Where the schema is committed (the package root, shipped with the package). */
export const SCHEMA_FILE = fileURLToPath(new URL('../boxbot.schema.json', import.meta.url));

/** The JSON Schema text of boxbot.config.json (input form: keys with defaults are optional). */
export function configJsonSchema(): string {
  const schema = zodToJsonSchema(configSchema, {
    // Inline every subschema: editors show the fields of a policy override where it is used.
    $refStrategy: 'none',
    pipeStrategy: 'input',
    effectStrategy: 'input',
  });
  const { $schema, ...rest } = schema as Record<string, unknown>;
  const titled = {
    $schema,
    title: 'boxbot.config.json',
    description: 'boxbot configuration (README, "Configuration"). Secrets come from the environment, never this file.',
    ...rest,
  };
  return `${JSON.stringify(titled, null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SCHEMA_FILE, configJsonSchema());
  console.log(`wrote ${SCHEMA_FILE}`);
}
