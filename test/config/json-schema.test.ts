// boxbot.schema.json (what "$schema" in a config file points editors to) is generated from the
// zod schema; the committed file must be what `npm run schema` writes now.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { configJsonSchema, SCHEMA_FILE } from '../../scripts/write-config-schema.ts';

describe('boxbot.schema.json', () => {
  it('is current with src/config/schema.ts (run `npm run schema` after changing it)', () => {
    assert.equal(readFileSync(SCHEMA_FILE, 'utf8'), configJsonSchema());
  });

  it('describes the keys the loader knows, and refuses others, as the loader does', () => {
    const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'));
    assert.equal(schema.additionalProperties, false);
    assert.ok(schema.properties.$schema, 'a config may name its schema');
    assert.deepEqual(schema.properties.http.properties.port, {
      type: 'integer',
      minimum: 0,
      maximum: 65535,
      default: 8787,
    });
    assert.equal(schema.required, undefined, 'every key is optional');
  });
});
