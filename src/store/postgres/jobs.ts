// Jobs and their run logs as rows; an update reads and writes one job under a row lock, so the
// CLI and every replica can change jobs at once without losing a change.
import { StoreError } from '../errors.ts';
import type { JobLogEntry, JobRecord, JobStore } from '../types.ts';
import { checkJob } from '../validated.ts';
import type { Db } from './db.ts';
import { encodeKey } from './text-codec.ts';

/** Jobs in PostgreSQL; each job keeps its newest `logLimit` run logs. */
export function createPgJobs(db: Db, logLimit: number): JobStore {
  return {
    async list() {
      const rows = await db.query<{ record: string }>('SELECT record FROM boxbot_jobs');
      return rows.map((r) => JSON.parse(r.record) as JobRecord);
    },
    async get(id) {
      const [row] = await db.query<{ record: string }>('SELECT record FROM boxbot_jobs WHERE id = $1', [encodeKey(id)]);
      return row ? (JSON.parse(row.record) as JobRecord) : undefined;
    },
    async put(job) {
      await db.query(
        'INSERT INTO boxbot_jobs (id, record) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET record = $2',
        [encodeKey(job.id), JSON.stringify(job)],
      );
    },
    async update(id, patch) {
      return db.tx(async (q) => {
        const [row] = await q<{ record: string }>('SELECT record FROM boxbot_jobs WHERE id = $1 FOR UPDATE', [
          encodeKey(id),
        ]);
        if (!row) throw new StoreError('not-found', `no job ${JSON.stringify(id)}`);
        const next = { ...(JSON.parse(row.record) as JobRecord), ...patch, id };
        checkJob(next);
        await q('UPDATE boxbot_jobs SET record = $2 WHERE id = $1', [encodeKey(id), JSON.stringify(next)]);
        return next;
      });
    },
    async remove(id) {
      return db.tx(async (q) => {
        await q('DELETE FROM boxbot_job_logs WHERE job_id = $1', [encodeKey(id)]);
        return (await q('DELETE FROM boxbot_jobs WHERE id = $1 RETURNING id', [encodeKey(id)])).length > 0;
      });
    },
    async appendLog(entry) {
      const jobId = encodeKey(entry.jobId);
      await db.tx(async (q) => {
        await q('INSERT INTO boxbot_job_logs (job_id, entry) VALUES ($1, $2)', [jobId, JSON.stringify(entry)]);
        await q(
          `DELETE FROM boxbot_job_logs WHERE job_id = $1 AND seq <= (
             SELECT seq FROM boxbot_job_logs WHERE job_id = $1 ORDER BY seq DESC OFFSET $2 LIMIT 1)`,
          [jobId, logLimit],
        );
      });
    },
    async logs(jobId, limit) {
      const rows = await db.query<{ entry: string }>(
        'SELECT entry FROM boxbot_job_logs WHERE job_id = $1 ORDER BY seq DESC LIMIT $2',
        [encodeKey(jobId), limit ?? null],
      );
      return rows.map((r) => JSON.parse(r.entry) as JobLogEntry).reverse();
    },
    async claimTick(jobId, slot) {
      return db.tx(async (q) => {
        // Claims older than a week can no longer be contested: keep the table small.
        await q(`DELETE FROM boxbot_job_claims WHERE claimed_at < now() - interval '7 days'`);
        const won = await q(
          'INSERT INTO boxbot_job_claims (job_id, slot) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING slot',
          [encodeKey(jobId), encodeKey(slot)],
        );
        return won.length > 0;
      });
    },
  };
}
