// The WASI preview1 adapter a production install wraps preview1 command tools with: the copy
// build:tools ships in tools/dist/adapters/ (so no jco is needed at run time), else jco's own.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readPreview1CommandAdapter, SHIPPED_ADAPTER_PATH } from '../../src/sandbox/preview1-adapter.ts';
import { root, tempDir } from '../helpers.ts';

describe('preview1 adapter', () => {
  it('is read from the shipped copy when it is there', async () => {
    const shipped = join(tempDir(), 'adapter.wasm');
    writeFileSync(shipped, new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
    assert.deepEqual([...(await readPreview1CommandAdapter(shipped))], [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  });

  it("falls back to jco's copy in a checkout whose tools are not built", async () => {
    const jcos = readFileSync(
      join(root, 'node_modules', '@bytecodealliance', 'jco', 'lib', 'wasi_snapshot_preview1.command.wasm'),
    );
    assert.deepEqual(Buffer.from(await readPreview1CommandAdapter(join(tempDir(), 'absent.wasm'))), jcos);
  });

  it('build:tools ships it where a production install looks for it', () => {
    assert.equal(SHIPPED_ADAPTER_PATH, join(root, 'tools', 'dist', 'adapters', 'wasi_snapshot_preview1.command.wasm'));
    const jcos = readFileSync(
      join(root, 'node_modules', '@bytecodealliance', 'jco', 'lib', 'wasi_snapshot_preview1.command.wasm'),
    );
    assert.deepEqual(readFileSync(SHIPPED_ADAPTER_PATH), jcos);
  });
});
