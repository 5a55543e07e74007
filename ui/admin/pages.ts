// The dashboard's read-and-act pages: overview, conversations (search and read-only transcripts),
// approvals (decide from the web, history), memory notes by scope, and the masked config.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, useApi } from './api.ts';

/** An error line, announced to screen readers. */
export const Problem = ({ error }: { error?: string }) =>
  error ? html`<p role="alert" class="error">${error}</p>` : null;

/** A table's column headings. */
export const Head = ({ cols }: { cols: string[] }) =>
  html`<thead><tr>${cols.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>`;

/** The value of the input an event came from. */
export const valueOf = (e: Event): string => (e.target as HTMLInputElement).value;

/** `value` as indented JSON. */
export const Json = ({ value, label }: { value: unknown; label: string }) =>
  html`<pre tabindex="0" aria-label=${label}>${JSON.stringify(value, null, 2)}</pre>`;

const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

interface Overview {
  model: string | null;
  channels: { platform: string; up: boolean; detail?: string }[];
  runsInFlight: number;
  queueDepth: number;
  outboxPending: number;
  approvalsPending: number;
  errors: { scope: string; count: number }[];
  recentFailures: { id: string; conversationKey: string; error: string; at: string }[];
  failedJobRuns: { job: string; outcome: string; error: string | null; at: string }[];
}

/** Overview: channels, model, work in hand, errors. */
export function OverviewPage() {
  const { data, error, reload } = useApi<Overview>('/overview');
  if (!data) return html`<${Problem} error=${error} />`;
  return html`<section aria-labelledby="now">
      <h2 id="now">Now</h2>
      <dl class="facts">
        <dt>Model</dt><dd>${data.model ?? 'none configured'}</dd>
        <dt>Runs in flight</dt><dd data-fact="runs">${data.runsInFlight}</dd>
        <dt>Queue depth</dt><dd data-fact="queue">${data.queueDepth}</dd>
        <dt>Outbox pending</dt><dd data-fact="outbox">${data.outboxPending}</dd>
        <dt>Approvals pending</dt><dd data-fact="approvals">${data.approvalsPending}</dd>
      </dl>
      <button type="button" onClick=${reload}>Refresh</button>
    </section>
    <section aria-labelledby="channels">
      <h2 id="channels">Channels</h2>
      <table>
        <${Head} cols=${['Channel', 'State']} />
        <tbody>${data.channels.map(
          (c) =>
            html`<tr><td>${c.platform}</td><td class=${c.up ? 'up' : 'down'}>${c.up ? 'up' : 'down'}${
              c.detail ? ` (${c.detail})` : ''
            }</td></tr>`,
        )}</tbody>
      </table>
    </section>
    <section aria-labelledby="errors">
      <h2 id="errors">Recent errors</h2>
      ${
        !data.errors.length && !data.recentFailures.length && !data.failedJobRuns.length
          ? html`<p>No errors since the start.</p>`
          : null
      }
      <ul>${data.errors.map((e) => html`<li>${e.scope}: ${e.count}</li>`)}</ul>
      <ul>${data.recentFailures.map(
        (f) => html`<li>${when(f.at)} · ${f.conversationKey}: a reply was refused: ${f.error}</li>`,
      )}</ul>
      <ul>${data.failedJobRuns.map(
        (f) => html`<li>${when(f.at)} · job ${f.job} ended ${f.outcome}${f.error ? `: ${f.error}` : ''}</li>`,
      )}</ul>
    </section>`;
}

interface Message {
  role: string;
  content: unknown;
}
const textOf = (c: unknown): string =>
  typeof c === 'string'
    ? c
    : Array.isArray(c)
      ? c.map((p) => (p && typeof p === 'object' && 'text' in p ? String(p.text) : JSON.stringify(p))).join('\n')
      : JSON.stringify(c);

/** One conversation's stored messages, read-only. */
function Transcript({ id }: { id: string }) {
  const { data, error } = useApi<{ messages: Message[] }>(`/sessions/${encodeURIComponent(id)}`);
  if (!data) return html`<${Problem} error=${error} />`;
  return html`<section aria-labelledby="transcript" class="transcript">
    <h2 id="transcript">Transcript of ${id}</h2>
    <ol>${data.messages.map(
      (m) =>
        html`<li class=${`msg ${m.role}`}><span class="role">${m.role}</span> <span>${textOf(m.content)}</span></li>`,
    )}</ol>
  </section>`;
}

interface ConversationRow {
  key: string;
  platform: string;
  messages: number;
  updatedAt: string | null;
  match?: string;
}

/** Conversations: all, searchable; a transcript opens read-only. */
export function ConversationsPage() {
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [open, setOpen] = useState<string | null>(null);
  const { data, error } = useApi<{ conversations: ConversationRow[]; total: number }>(
    `/conversations?q=${encodeURIComponent(query)}`,
  );
  return html`<form role="search" onSubmit=${(e: Event) => (e.preventDefault(), setQuery(q))}>
      <label for="q">Search conversations</label>
      <input id="q" type="search" value=${q} onInput=${(e: Event) => setQ(valueOf(e))} />
      <button type="submit">Search</button>
    </form>
    <${Problem} error=${error} />
    ${
      data &&
      html`<p>${data.total} conversation${data.total === 1 ? '' : 's'}</p>
      <table>
        <${Head} cols=${['Conversation', 'Messages', 'Updated']} />
        <tbody>${data.conversations.map(
          (c) => html`<tr>
            <td><button type="button" class="link" onClick=${() => setOpen(c.key)}>${c.key}</button>
              ${c.match ? html`<div class="match">${c.match}</div>` : null}</td>
            <td>${c.messages}</td><td>${when(c.updatedAt)}</td>
          </tr>`,
        )}</tbody>
      </table>`
    }
    ${open && html`<${Transcript} key=${open} id=${open} />`}`;
}

interface Approval {
  id: string;
  conversationKey: string;
  requesterId: string;
  tool: string;
  input: unknown;
  question: string;
  state: string;
  createdAt: string;
  decidedAt?: string;
  decidedBy?: string;
}

/** Approvals: the pending calls exactly as asked, approve or deny here, and the history. */
export function ApprovalsPage() {
  const { data, error, reload } = useApi<{ pending: Approval[]; history: Approval[] }>('/approvals');
  const [note, setNote] = useState<{ text: string; ok: boolean } | null>(null);
  const decide = async (id: string, decision: 'approve' | 'deny') => {
    try {
      const out = await api<{ text: string }>(`/approvals/${encodeURIComponent(id)}/${decision}`, { method: 'POST' });
      setNote({ text: out.text, ok: true });
    } catch (e) {
      setNote({ text: (e as Error).message, ok: false });
    }
    reload();
  };
  if (!data) return html`<${Problem} error=${error} />`;
  return html`${note && html`<p role="status" class=${note.ok ? 'ok' : 'error'}>${note.text}</p>`}
    <section aria-labelledby="pending">
      <h2 id="pending">Pending</h2>
      ${!data.pending.length && html`<p>Nothing waits for a decision.</p>`}
      ${data.pending.map(
        (a) => html`<article class="approval" aria-labelledby=${`ap-${a.id}`}>
          <h3 id=${`ap-${a.id}`}>${a.tool} in ${a.conversationKey}</h3>
          <p>Asked by ${a.requesterId} at ${when(a.createdAt)}</p>
          <${Json} value=${a.input} label=${`The exact call of ${a.tool}`} />
          <button type="button" onClick=${() => decide(a.id, 'approve')}
            aria-label=${`Approve ${a.tool} (${a.id})`}>Approve</button>
          <button type="button" class="danger" onClick=${() => decide(a.id, 'deny')}
            aria-label=${`Deny ${a.tool} (${a.id})`}>Deny</button>
        </article>`,
      )}
    </section>
    <section aria-labelledby="history">
      <h2 id="history">History</h2>
      <table>
        <${Head} cols=${['Tool', 'Conversation', 'Outcome', 'By', 'When']} />
        <tbody>${data.history.map(
          (a) =>
            html`<tr><td>${a.tool}</td><td>${a.conversationKey}</td><td>${a.state}</td>
              <td>${a.decidedBy ?? '—'}</td><td>${when(a.decidedAt)}</td></tr>`,
        )}</tbody>
      </table>
    </section>`;
}

interface Note {
  id: string;
  text: string;
  createdAt: string;
  createdBy?: string;
}

/** Memory: the notes of a conversation or a user; delete one. */
export function MemoryPage() {
  const [kind, setKind] = useState<'conversation' | 'user'>('conversation');
  const [key, setKey] = useState('');
  const [scope, setScope] = useState<string | null>(null);
  const { data, error, reload } = useApi<{ notes: Note[] }>(scope ? `/memories?${scope}` : null);
  const [problem, setProblem] = useState('');
  const remove = async (id: string) => {
    try {
      await api(`/memories/${encodeURIComponent(id)}?${scope}`, { method: 'DELETE' });
      setProblem('');
    } catch (e) {
      setProblem((e as Error).message);
    }
    reload();
  };
  const show = (e: Event) => (e.preventDefault(), setScope(`${kind}=${encodeURIComponent(key.trim())}`));
  return html`<form onSubmit=${show}>
      <label for="kind">Whose notes</label>
      <select id="kind" value=${kind} onChange=${(e: Event) => setKind(valueOf(e) as 'user' | 'conversation')}>
        <option value="conversation">A conversation's</option>
        <option value="user">A user's</option>
      </select>
      <label for="scope">${kind === 'user' ? 'User (platform:id)' : 'Conversation key'}</label>
      <input id="scope" required value=${key} onInput=${(e: Event) => setKey(valueOf(e))} />
      <button type="submit">Show notes</button>
    </form>
    <${Problem} error=${error || problem} />
    ${
      data &&
      html`<p>${data.notes.length} note${data.notes.length === 1 ? '' : 's'}</p>
      <ul class="notes">${data.notes.map(
        (n) => html`<li><span>${n.text}</span>
          <small>${when(n.createdAt)}${n.createdBy ? ` · ${n.createdBy}` : ''}</small>
          <button type="button" class="danger" onClick=${() => remove(n.id)}
            aria-label=${`Delete note ${n.id}`}>Delete</button></li>`,
      )}</ul>`
    }`;
}

/** Config: the effective config with secrets masked, and which secret variables are set. */
export function ConfigPage() {
  const { data, error } = useApi<{ config: unknown; secrets: Record<string, boolean> }>('/config');
  if (!data) return html`<${Problem} error=${error} />`;
  return html`<section aria-labelledby="vars">
      <h2 id="vars">Secret variables</h2>
      <table>
        <${Head} cols=${['Variable', 'Set']} />
        <tbody>${Object.entries(data.secrets).map(
          ([k, v]) => html`<tr><td>${k}</td><td>${v ? 'set' : 'not set'}</td></tr>`,
        )}</tbody>
      </table>
    </section>
    <section aria-labelledby="effective">
      <h2 id="effective">Effective config</h2>
      <${Json} value=${data.config} label="The effective config, secrets masked" />
    </section>`;
}
