// The Usage page (cost and tokens per day by channel as uPlot charts, per conversation, budgets and
// today's spend) and the Tools and policy page (tools, skills and MCP servers with their levels;
// the effective policy of any user in any conversation).
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { useApi } from './api.ts';
import { Head, Json, Problem, valueOf } from './pages.ts';

interface Daily {
  days: string[];
  byChannel: Record<string, { costUsd: number[]; tokens: number[] }>;
  conversations: { key: string; costUsd: number[]; tokens: number[] }[];
  today: { date: string; costUsd: number };
  budgets: { path: string; budget: unknown }[];
}

const COLORS = ['#1f6feb', '#d73a49', '#2da44e', '#bf8700', '#8250df', '#1b7c83'];

/** A line chart of one series per channel, with a text summary beside it for screen readers. */
function Chart({ title, days, series }: { title: string; days: string[]; series: [string, number[]][] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!box.current) return;
    const xs = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const width = Math.max(280, Math.min(box.current.clientWidth || 600, 900));
    const plot = new uPlot(
      {
        width,
        height: 220,
        series: [{}, ...series.map(([label], i) => ({ label, stroke: COLORS[i % COLORS.length]!, width: 2 }))],
        axes: [{}, {}],
      },
      [xs, ...series.map(([, ys]) => ys)],
      box.current,
    );
    return () => plot.destroy();
  }, [days, series]);
  const totals = series.map(([label, ys]) => `${label}: ${ys.reduce((s, y) => s + y, 0).toFixed(4)}`).join(', ');
  return html`<figure>
    <figcaption>${title}</figcaption>
    <div ref=${box} class="chart" role="img"
      aria-label=${`${title}, totals over ${days.length} days: ${totals || 'none'}`}></div>
  </figure>`;
}

/** Usage: cost and tokens per day by channel, per conversation; budgets and today's spend. */
export function UsagePage() {
  const { data, error } = useApi<Daily>('/usage/daily?days=14');
  if (!data) return html`<${Problem} error=${error} />`;
  const channels = Object.entries(data.byChannel);
  const spent = data.today.costUsd.toFixed(4);
  return html`<p class="today">Spent today (${data.today.date}): <strong data-fact="today">$${spent}</strong></p>
    <${Chart} title="Cost per day by channel (USD)" days=${data.days}
      series=${channels.map(([k, v]) => [k, v.costUsd])} />
    <${Chart} title="Tokens per day by channel" days=${data.days} series=${channels.map(([k, v]) => [k, v.tokens])} />
    <section aria-labelledby="per-conv">
      <h2 id="per-conv">By conversation (last ${data.days.length} days)</h2>
      <table>
        <${Head} cols=${['Conversation', 'Cost', 'Tokens']} />
        <tbody>${data.conversations.map(
          (c) => html`<tr><td>${c.key}</td><td>$${c.costUsd.reduce((s, x) => s + x, 0).toFixed(4)}</td>
            <td>${c.tokens.reduce((s, x) => s + x, 0)}</td></tr>`,
        )}</tbody>
      </table>
    </section>
    <section aria-labelledby="budgets">
      <h2 id="budgets">Budgets</h2>
      ${!data.budgets.length && html`<p>No budget is set: spending is not capped.</p>`}
      <ul>${data.budgets.map((b) => html`<li><code>${b.path}</code>: ${JSON.stringify(b.budget)}</li>`)}</ul>
    </section>`;
}

interface ToolRow {
  name: string;
  level: string;
  about: string;
  source: string;
}

/** The effective policy of a user in a conversation (`/whoami` for anyone). */
function PolicyLookup() {
  const [user, setUser] = useState('');
  const [conv, setConv] = useState('');
  const [query, setQuery] = useState<string | null>(null);
  const { data, error } = useApi<{ policy: unknown; tools: { name: string; permitted: boolean; reason?: string }[] }>(
    query,
  );
  const submit = (e: Event) => {
    e.preventDefault();
    setQuery(`/policy?user=${encodeURIComponent(user.trim())}&conversation=${encodeURIComponent(conv.trim())}`);
  };
  return html`<section aria-labelledby="policy">
    <h2 id="policy">Effective policy</h2>
    <form onSubmit=${submit}>
      <label for="pol-user">User (platform:id)</label>
      <input id="pol-user" required value=${user} onInput=${(e: Event) => setUser(valueOf(e))} />
      <label for="pol-conv">Conversation key</label>
      <input id="pol-conv" required value=${conv} onInput=${(e: Event) => setConv(valueOf(e))} />
      <button type="submit">Show policy</button>
    </form>
    <${Problem} error=${error} />
    ${
      data &&
      html`<${Json} value=${data.policy} label="The resolved policy" />
      <ul class="permitted">${data.tools.map(
        (t) => html`<li>${t.name}: ${t.permitted ? 'permitted' : `not permitted (${t.reason})`}</li>`,
      )}</ul>`
    }
  </section>`;
}

/** Tools and policy: tools, skills and MCP servers with levels; any user's policy. */
export function ToolsPage() {
  const tools = useApi<{ tools: ToolRow[]; problems: { file: string; message: string }[] }>('/tools');
  const skills = useApi<{ skills: { name: string; description: string }[] }>('/skills');
  const config = useApi<{ config: { mcp?: { servers?: Record<string, unknown> } } }>('/config');
  const servers = Object.entries(config.data?.config.mcp?.servers ?? {});
  return html`<section aria-labelledby="tools">
      <h2 id="tools">Tools</h2>
      <${Problem} error=${tools.error} />
      <table>
        <${Head} cols=${['Tool', 'Level', 'Source', 'About']} />
        <tbody>${(tools.data?.tools ?? []).map(
          (t) => html`<tr><td>${t.name}</td><td>${t.level}</td><td>${t.source}</td><td>${t.about}</td></tr>`,
        )}</tbody>
      </table>
    </section>
    <section aria-labelledby="skills">
      <h2 id="skills">Skills</h2>
      ${skills.data && !skills.data.skills.length && html`<p>No skills installed.</p>`}
      <ul>${(skills.data?.skills ?? []).map((s) => html`<li><strong>${s.name}</strong>: ${s.description}</li>`)}</ul>
    </section>
    <section aria-labelledby="mcp">
      <h2 id="mcp">MCP servers</h2>
      ${!servers.length && html`<p>No MCP server is configured.</p>`}
      <ul>${servers.map(([name, s]) => html`<li><strong>${name}</strong>: <code>${JSON.stringify(s)}</code></li>`)}</ul>
    </section>
    <${PolicyLookup} />`;
}
