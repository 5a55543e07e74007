// The worker heap cap when none is configured: 2 GB (fewer full GCs) only where every worker's
// cap together fits in a quarter of the machine's memory, so what tools can make the host
// allocate stays bounded on small machines; a configured cap always wins.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSandbox } from '../../src/sandbox/index.ts';
import { defaultWorkerHeapMb, LARGE_WORKER_HEAP_MB, WORKER_HEAP_MB } from '../../src/sandbox/pool.ts';
import { compiledSandboxWorker } from '../compiled-src.ts';
import { tempDir } from '../helpers.ts';

const GiB = 1024 ** 3;

describe('sandbox: worker heap cap', () => {
  it('2 GB per worker where all of them fit in a quarter of memory, 512 MB otherwise', () => {
    assert.equal(defaultWorkerHeapMb(2, 24 * GiB), LARGE_WORKER_HEAP_MB);
    assert.equal(defaultWorkerHeapMb(2, 16 * GiB), LARGE_WORKER_HEAP_MB);
    assert.equal(defaultWorkerHeapMb(2, 15 * GiB), WORKER_HEAP_MB);
    assert.equal(defaultWorkerHeapMb(1, 4 * GiB), WORKER_HEAP_MB);
    assert.equal(defaultWorkerHeapMb(8, 32 * GiB), WORKER_HEAP_MB);
  });

  it('a configured cap is used as it is', async () => {
    const sandbox = createSandbox({
      workerFile: compiledSandboxWorker(),
      cacheDir: tempDir('boxbot-cache-'),
      workers: 2,
      workerHeapMb: 24,
    });
    try {
      assert.equal(sandbox.pool.heapMb, 24);
    } finally {
      await sandbox.close();
    }
    const plain = createSandbox({
      workerFile: compiledSandboxWorker(),
      cacheDir: tempDir('boxbot-cache-'),
      workers: 2,
    });
    try {
      assert.equal(plain.pool.heapMb, defaultWorkerHeapMb(2));
    } finally {
      await plain.close();
    }
  });
});
