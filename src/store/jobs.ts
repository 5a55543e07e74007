// Scheduled jobs in one document (`jobs.json`, a few records) and their run logs in one
// document per job (`job-logs/<name>.json`), trimmed to the newest `logLimit` entries.
import { type DocSpec, type Documents, UNCHANGED } from './documents.ts';
import { StoreError } from './errors.ts';
import { encodeName } from './names.ts';
import { jobLogsSchema, jobsSchema } from './schemas.ts';
import type { JobLogEntry, JobRecord, JobStore } from './types.ts';
import { checkJob } from './validated.ts';

// The CLI edits jobs while the gateway records runs: updates lock the file across processes.
const JOBS: DocSpec = { path: 'jobs.json', schema: jobsSchema, shared: true };
type JobsDoc = { jobs: Record<string, JobRecord> };
type LogsDoc = { jobId: string; entries: JobLogEntry[] };

function logSpec(jobId: string): DocSpec {
  return {
    path: `job-logs/${encodeName(jobId)}.json`,
    schema: jobLogsSchema,
    check: (data) =>
      (data as LogsDoc).jobId === jobId ? undefined : `holds logs of job ${JSON.stringify((data as LogsDoc).jobId)}`,
  };
}

/** Jobs and run logs kept as documents. */
export function createJobs(docs: Documents, logLimit: number): JobStore {
  return {
    async list() {
      const doc = await docs.read<JobsDoc>(JOBS);
      return Object.values(doc?.jobs ?? {});
    },
    async get(id) {
      const doc = await docs.read<JobsDoc>(JOBS);
      return doc && Object.hasOwn(doc.jobs, id) ? doc.jobs[id] : undefined;
    },
    async put(job) {
      await docs.update<JobsDoc>(JOBS, (cur) => ({ ...cur, jobs: { ...cur?.jobs, [job.id]: job } }));
    },
    async update(id, patch) {
      let updated: JobRecord | undefined;
      await docs.update<JobsDoc>(JOBS, (cur) => {
        const job = cur && Object.hasOwn(cur.jobs, id) ? cur.jobs[id] : undefined;
        if (!cur || !job) throw new StoreError('not-found', `no job ${JSON.stringify(id)}`);
        const next = { ...job, ...patch, id };
        checkJob(next);
        updated = next;
        return { ...cur, jobs: { ...cur.jobs, [id]: next } };
      });
      return updated as JobRecord;
    },
    async remove(id) {
      let existed = false;
      await docs.update<JobsDoc>(JOBS, (cur) => {
        if (!cur || !Object.hasOwn(cur.jobs, id)) return UNCHANGED;
        existed = true;
        const { [id]: _gone, ...jobs } = cur.jobs;
        return { ...cur, jobs };
      });
      await docs.update<LogsDoc>(logSpec(id), () => undefined);
      return existed;
    },
    async appendLog(entry) {
      await docs.update<LogsDoc>(logSpec(entry.jobId), (cur) => ({
        jobId: entry.jobId,
        entries: [...(cur?.entries ?? []), entry].slice(-logLimit),
      }));
    },
    async logs(jobId, limit) {
      const doc = await docs.read<LogsDoc>(logSpec(jobId));
      const entries = doc?.entries ?? [];
      if (limit === undefined) return entries;
      return limit > 0 ? entries.slice(-limit) : [];
    },
  };
}
