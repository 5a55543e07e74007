// The Jobs page: every job with its next run; create, edit, run now, enable or disable, delete;
// and a job's run logs with their cost. Everything goes through the admin API's /jobs routes.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, useApi } from './api.ts';
import { Head, Problem, valueOf } from './pages.ts';

interface Job {
  id: string;
  name: string;
  cron?: string;
  prompt: string;
  target: string;
  access: string;
  enabled: boolean;
  nextRun: string;
}

interface RunLog {
  startedAt: string;
  finishedAt: string;
  outcome: string;
  error?: string;
  costUsd: number;
  usage?: { inputTokens?: number; outputTokens?: number };
}

const EMPTY = { name: '', cron: '0 9 * * *', prompt: '', target: '', access: 'read-only' };

/** The create/edit form. */
function JobForm({ job, onSaved, onCancel }: { job?: Job; onSaved: () => void; onCancel: () => void }) {
  const [v, setV] = useState(job ? { ...EMPTY, ...job, cron: job.cron ?? '' } : EMPTY);
  const [error, setError] = useState('');
  const field = (name: keyof typeof EMPTY, label: string, type = 'text') =>
    html`<label for=${`job-${name}`}>${label}</label>
      <input id=${`job-${name}`} type=${type} required value=${v[name]}
        onInput=${(e: Event) => setV({ ...v, [name]: valueOf(e) })} />`;
  const save = async (e: Event) => {
    e.preventDefault();
    const body = { name: v.name, cron: v.cron, prompt: v.prompt, target: v.target, access: v.access };
    try {
      if (job) await api(`/jobs/${encodeURIComponent(job.id)}`, { method: 'PATCH', body });
      else await api('/jobs', { method: 'POST', body: { ...body, enabled: true } });
      onSaved();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return html`<form class="job-form" onSubmit=${save} aria-label=${job ? `Edit job ${job.name}` : 'New job'}>
    <h2>${job ? `Edit ${job.name}` : 'New job'}</h2>
    ${field('name', 'Name')} ${field('cron', 'Schedule (cron)')}
    <label for="job-prompt">Prompt</label>
    <textarea id="job-prompt" required rows="3" value=${v.prompt}
      onInput=${(e: Event) => setV({ ...v, prompt: valueOf(e) })}></textarea>
    ${field('target', 'Target conversation key')}
    <label for="job-access">Access</label>
    <select id="job-access" value=${v.access} onChange=${(e: Event) => setV({ ...v, access: valueOf(e) })}>
      <option value="read-only">read-only</option>
      <option value="chat-only">chat-only</option>
      <option value="full">full</option>
    </select>
    <${Problem} error=${error} />
    <button type="submit">Save</button> <button type="button" onClick=${onCancel}>Cancel</button>
  </form>`;
}

/** One job's run logs, newest first. */
function Logs({ job }: { job: Job }) {
  const { data, error } = useApi<{ logs: RunLog[] }>(`/jobs/${encodeURIComponent(job.id)}/logs?limit=20`);
  if (!data) return html`<${Problem} error=${error} />`;
  return html`<section aria-labelledby="logs" class="logs">
    <h2 id="logs">Runs of ${job.name}</h2>
    ${!data.logs.length && html`<p>No runs yet.</p>`}
    <table>
      <${Head} cols=${['Started', 'Outcome', 'Tokens', 'Cost']} />
      <tbody>${[...data.logs].reverse().map(
        (l) => html`<tr><td>${new Date(l.startedAt).toLocaleString()}</td>
          <td>${l.outcome}${l.error ? `: ${l.error}` : ''}</td>
          <td>${(l.usage?.inputTokens ?? 0) + (l.usage?.outputTokens ?? 0)}</td>
          <td>$${l.costUsd.toFixed(4)}</td></tr>`,
      )}</tbody>
    </table>
  </section>`;
}

/** Jobs: list, create, edit, run now, disable, delete, run logs. */
export function JobsPage() {
  const { data, error, reload } = useApi<{ jobs: Job[] }>('/jobs');
  const [editing, setEditing] = useState<Job | 'new' | null>(null);
  const [logsOf, setLogsOf] = useState<Job | null>(null);
  const [note, setNote] = useState<{ text: string; ok: boolean } | null>(null);
  const [logsKey, setLogsKey] = useState(0);
  const act = async (text: string, call: () => Promise<unknown>) => {
    try {
      await call();
      setNote({ text, ok: true });
    } catch (e) {
      setNote({ text: (e as Error).message, ok: false });
    }
    reload();
  };
  const path = (j: Job) => `/jobs/${encodeURIComponent(j.id)}`;
  const runNow = (j: Job) =>
    act(`${j.name} ran`, async () => {
      await api(`${path(j)}/run?wait=1`, { method: 'POST' });
      setLogsOf(j);
      setLogsKey((k) => k + 1);
    });
  const toggle = (j: Job) =>
    act(`${j.name} ${j.enabled ? 'disabled' : 'enabled'}`, () =>
      api(path(j), { method: 'PATCH', body: { enabled: !j.enabled } }),
    );
  const remove = (j: Job) =>
    confirm(`Delete job ${j.name}?`) && act(`${j.name} deleted`, () => api(path(j), { method: 'DELETE' }));
  return html`${note && html`<p role="status" class=${note.ok ? 'ok' : 'error'}>${note.text}</p>`}
    <${Problem} error=${error} />
    <button type="button" onClick=${() => setEditing('new')}>New job</button>
    ${
      editing &&
      html`<${JobForm} key=${editing === 'new' ? 'new' : editing.id} job=${editing === 'new' ? undefined : editing}
      onSaved=${() => (setEditing(null), setNote({ text: 'Saved', ok: true }), reload())}
      onCancel=${() => setEditing(null)} />`
    }
    ${
      data &&
      html`<table class="jobs">
      <${Head} cols=${['Job', 'Schedule', 'Target', 'Next run', 'Actions']} />
      <tbody>${data.jobs.map(
        (j) => html`<tr>
          <td>${j.name}</td><td><code>${j.cron ?? 'webhook'}</code></td><td>${j.target}</td><td>${j.nextRun}</td>
          <td class="actions">
            <button type="button" onClick=${() => runNow(j)} aria-label=${`Run now: ${j.name}`}>Run now</button>
            <button type="button" onClick=${() => setEditing(j)} aria-label=${`Edit ${j.name}`}>Edit</button>
            <button type="button" aria-label=${`${j.enabled ? 'Disable' : 'Enable'} ${j.name}`}
              onClick=${() => toggle(j)}
            >${j.enabled ? 'Disable' : 'Enable'}</button>
            <button type="button" onClick=${() => setLogsOf(j)} aria-label=${`Run logs of ${j.name}`}>Logs</button>
            <button type="button" class="danger" aria-label=${`Delete ${j.name}`}
              onClick=${() => remove(j)}
            >Delete</button>
          </td></tr>`,
      )}</tbody>
    </table>`
    }
    ${logsOf && html`<${Logs} key=${`${logsOf.id}-${logsKey}`} job=${logsOf} />`}`;
}
