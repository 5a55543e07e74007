// The document checkpoint's file writes off the gateway's thread. A checkpoint of a busy gateway
// writes thousands of small files (every history and usage document changed in the last seconds);
// each atomic write is five trips to libuv's pool (open, write, stat, close, rename), and on the
// main thread every trip's completion costs a wake-up and its callbacks: about 0.1-0.2 ms of the
// thread's CPU per file, measured, which the turns then wait behind. Here a worker thread makes the
// same writes with synchronous calls (the same temp-file-then-rename, synced the same way, as
// disk-files.ts), and the main thread pays one message per batch.
// The worker is made at the first batch and ended by `close`; it never keeps the process alive.
// Its code is plain JavaScript run from a string (no loader, no bundle entry): it uses only node:fs.
import { Worker } from 'node:worker_threads';
import { StoreError } from './errors.ts';

/** One document to write (`text`) or remove (`null`), by its path under the store's root. */
export interface BulkItem {
  path: string;
  text: string | null;
}

/** What became of one item: the new file's stamp (disk-files.ts's format; none for a removal), or why it failed. */
export type BulkResult = { ok: true; stamp?: string } | { ok: false; error: string };

/** Writes batches of documents under `root` in a worker thread. */
export interface BulkWriter {
  /** Writes every item (each one atomically, independently of the others); one result per item, in order. */
  write(items: BulkItem[]): Promise<BulkResult[]>;
  /** Ends the worker; batches still in flight fail. */
  close(): Promise<void>;
}

// The worker. Mirrors disk-files.ts's `replace`: a unique temp file in the target's folder, one
// O_DSYNC write for a small file (or a write then an fsync), its stat (a rename keeps inode, size
// and mtime), then the rename over the target. The folders are made private (0700) as there.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const { root, pid, syncedMax } = workerData;
const C = fs.constants;
const SYNCED = C.O_DSYNC === undefined ? undefined : C.O_WRONLY | C.O_CREAT | C.O_TRUNC | C.O_DSYNC;
const made = new Set();
let seq = 0;
function writeOne(rel, text) {
  const file = path.join(root, ...rel.split('/'));
  const dir = path.dirname(file);
  if (!made.has(dir)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    made.add(dir);
  }
  const tmp = path.join(dir, '.' + path.basename(file) + '.' + pid + '.b' + ++seq + '.tmp');
  const bytes = Buffer.from(text, 'utf8');
  const synced = SYNCED !== undefined && bytes.length > 0 && bytes.length <= syncedMax;
  try {
    const fd = fs.openSync(tmp, synced ? SYNCED : 'w', 0o600);
    let s;
    try {
      for (let at = 0; at < bytes.length; ) at += fs.writeSync(fd, bytes, at);
      if (!synced) fs.fsyncSync(fd);
      s = fs.fstatSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
    return s.ino + ':' + s.size + ':' + s.mtimeMs;
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}
function removeOne(rel) {
  try {
    fs.unlinkSync(path.join(root, ...rel.split('/')));
  } catch (e) {
    if (e.code !== 'ENOENT') throw e;
  }
}
parentPort.on('message', ({ id, items }) => {
  const results = items.map(({ path: rel, text }) => {
    try {
      if (text === null) {
        removeOne(rel);
        return { ok: true };
      }
      return { ok: true, stamp: writeOne(rel, text) };
    } catch (e) {
      return { ok: false, error: e && e.message ? e.message : String(e) };
    }
  });
  parentPort.postMessage({ id, results });
});
`;

/** A bulk writer under `root`; files up to `syncedMax` bytes are written with O_DSYNC (disk-files.ts's rule). */
export function createBulkWriter(root: string, o: { syncedMax: number }): BulkWriter {
  let worker: Worker | undefined;
  let nextId = 0;
  const waiting = new Map<number, { resolve: (r: BulkResult[]) => void; reject: (e: unknown) => void }>();
  let closed = false;

  function failAll(e: unknown): void {
    worker = undefined;
    for (const w of waiting.values()) w.reject(e);
    waiting.clear();
  }

  function start(): Worker {
    const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { root, pid: process.pid, syncedMax: o.syncedMax } });
    w.unref();
    w.on('message', ({ id, results }: { id: number; results: BulkResult[] }) => {
      const entry = waiting.get(id);
      waiting.delete(id);
      entry?.resolve(results);
    });
    // A worker that dies takes its batches with it: they fail (the journal still holds their
    // documents, so the next checkpoint writes them), and the next batch starts a new worker.
    w.on('error', (e) => failAll(new StoreError('io', `the document writer thread failed: ${e.message}`)));
    w.on('exit', (code) => {
      if (worker === w) failAll(new StoreError('io', `the document writer thread ended (exit code ${code})`));
    });
    return w;
  }

  return {
    write(items) {
      if (closed) return Promise.reject(new StoreError('closed', 'the store is closed'));
      if (!items.length) return Promise.resolve([]);
      worker ??= start();
      const id = nextId++;
      return new Promise<BulkResult[]>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker!.postMessage({ id, items });
      });
    },
    async close() {
      closed = true;
      const w = worker;
      worker = undefined;
      failAll(new StoreError('closed', 'the store is closed'));
      await w?.terminate();
    },
  };
}
