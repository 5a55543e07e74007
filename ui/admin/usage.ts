// The Usage page (cost and tokens per day by channel, by user and by model as uPlot charts, each
// with a table of the same figures; per conversation, budgets and today's spend) and the Tools and
// policy page (tools, skills and MCP servers with their levels; the effective policy of any user in
// any conversation).
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
// The API's shape, from the server's own declaration (a type only: nothing of the server is bundled).
import type { BudgetUse } from '../../src/gateway/admin-budgets.ts';
import { useApi } from './api.ts';
import { Head, Json, Problem, valueOf } from './pages.ts';

/** One subject's figures, one number per day (the API's UsageSeries). */
interface Series {
  costUsd: number[];
  tokens: number[];
  inputTokens: number[];
  outputTokens: number[];
  calls: number[];
}

interface Daily {
  days: string[];
  byChannel: Record<string, Series>;
  byUser: Record<string, Series>;
  byModel: Record<string, Series>;
  conversations: ({ key: string } & Series)[];
  today: { date: string; costUsd: number; tokens: number; calls: number };
  budgets: { path: string; budget: unknown }[];
  budgetUse: BudgetUse[];
  truncated: boolean;
  summed: boolean;
}

const COLORS = ['#1f6feb', '#d73a49', '#2da44e', '#bf8700', '#8250df', '#1b7c83', '#57606a'];
/** Lines drawn per chart; the smaller spenders share one more ("others"), the table lists them all. */
const LINES = 6;

const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
const usd = (x: number) => `$${x.toFixed(4)}`;
const count = (x: number) => String(Math.round(x));

/** The first LINES series (the API lists the biggest spenders first) and the rest summed as "others". */
function lines(all: Record<string, Series>, pick: (s: Series) => number[]): [string, number[]][] {
  const entries = Object.entries(all);
  const out: [string, number[]][] = entries.slice(0, LINES).map(([k, s]) => [k, pick(s)]);
  const rest = entries.slice(LINES);
  if (rest.length)
    out.push([`${rest.length} others`, pick(rest[0]![1]).map((_, i) => sum(rest.map(([, s]) => pick(s)[i]!)))]);
  return out;
}

/** A line chart of one series per subject, with a text summary of it for screen readers. */
function Chart(p: { title: string; days: string[]; series: [string, number[]][]; format: (x: number) => string }) {
  const { title, days, series, format } = p;
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
  const totals = series.map(([label, ys]) => `${label}: ${format(sum(ys))}`).join(', ');
  return html`<figure>
    <figcaption>${title}</figcaption>
    <div ref=${box} class="chart" role="img"
      aria-label=${`${title}, totals over ${days.length} days: ${totals || 'none'}`}></div>
  </figure>`;
}

/** One breakdown (by channel, user or model): a cost chart, a token chart and a table of the totals. */
function Breakdown(p: { id: string; noun: string; days: string[]; data: Record<string, Series>; note?: string }) {
  const { id, noun, days, data } = p;
  const rows = Object.entries(data);
  const title = noun[0]!.toUpperCase() + noun.slice(1);
  return html`<section aria-labelledby=${id} class="breakdown">
    <h2 id=${id}>By ${noun}</h2>
    ${p.note && html`<p>${p.note}</p>`}
    ${
      rows.length
        ? html`<${Chart} title=${`Cost per day by ${noun} (USD)`} days=${days}
            series=${lines(data, (s) => s.costUsd)} format=${usd} />
          <${Chart} title=${`Tokens per day by ${noun}`} days=${days}
            series=${lines(data, (s) => s.tokens)} format=${count} />
          <table data-breakdown=${id}>
            <caption>Totals by ${noun} over the last ${days.length} days</caption>
            <${Head} cols=${[title, 'Cost', 'Input tokens', 'Output tokens', 'Calls']} />
            <tbody>${rows.map(
              ([k, s]) => html`<tr><th scope="row">${k}</th><td>${usd(sum(s.costUsd))}</td>
                <td>${count(sum(s.inputTokens))}</td><td>${count(sum(s.outputTokens))}</td>
                <td>${count(sum(s.calls))}</td></tr>`,
            )}</tbody>
          </table>`
        : html`<p>No model calls in these days.</p>`
    }
  </section>`;
}

/** Usage: cost and tokens per day by channel, user and model; per conversation; budgets and today's spend. */
export function UsagePage() {
  const { data, error } = useApi<Daily>('/usage/daily?days=14');
  if (!data) return html`<${Problem} error=${error} />`;
  const t = data.today;
  const spent = `, ${count(t.tokens)} tokens in ${count(t.calls)} model calls`;
  return html`<p class="today">Spent today (${t.date}): <strong data-fact="today">${usd(t.costUsd)}</strong>${spent}</p>
    ${
      data.truncated &&
      html`<p role="status">Only the first 5,000 conversations and users are counted: more spent in these days.</p>`
    }
    <${Breakdown} id="by-channel" noun="channel" days=${data.days} data=${data.byChannel} />
    <${Breakdown} id="by-user" noun="user" days=${data.days} data=${data.byUser}
      note="Scheduled jobs run for nobody: their calls count for their channel and model only." />
    <${Breakdown} id="by-model" noun="model" days=${data.days} data=${data.byModel} />
    <section aria-labelledby="per-conv">
      <h2 id="per-conv">By conversation (last ${data.days.length} days)</h2>
      <table>
        <${Head} cols=${['Conversation', 'Cost', 'Tokens']} />
        <tbody>${data.conversations.map(
          (c) => html`<tr><td>${c.key}</td><td>${usd(sum(c.costUsd))}</td><td>${count(sum(c.tokens))}</td></tr>`,
        )}</tbody>
      </table>
    </section>
    <${Budgets} rows=${data.budgetUse} date=${t.date} />`;
}

const WHO = { channel: 'Channel', user: 'Person', job: 'Job, per run' } as const;

/** Each budget with today's spending under it: a bar (a meter, so screen readers read it) and the figures. */
function Budgets(p: { rows: BudgetUse[]; date: string }) {
  return html`<section aria-labelledby="budgets">
    <h2 id="budgets">Budgets and today's spend</h2>
    ${
      p.rows.length
        ? html`<table data-budgets>
            <caption>Each budget with what was spent under it on ${p.date} (a job: its largest run today)</caption>
            <${Head} cols=${['Budget', 'Limits', 'Spent today', 'Used']} />
            <tbody>${p.rows.map((b) => {
              const share = b.limitUsd > 0 ? b.spentUsd / b.limitUsd : b.spentUsd > 0 ? 1 : 0;
              const who = b.subject ?? (b.kind === 'job' ? '' : 'nobody spent under it today');
              const runs = b.kind === 'job' ? ` (${b.runs ?? 0} runs today)` : '';
              const figure = `${usd(b.spentUsd)} of ${usd(b.limitUsd)} per ${b.per}`;
              return html`<tr data-kind=${b.kind}>
                <th scope="row"><code>${b.source}</code></th>
                <td>${WHO[b.kind]}: ${who}${runs}</td>
                <td>${figure}</td>
                <td><meter min="0" max="1" low="0.5" high="0.8" optimum="0" value=${Math.min(share, 1)}
                  aria-label=${`${b.source}, ${who}: ${figure}`}></meter> ${Math.round(share * 100)}%</td>
              </tr>`;
            })}</tbody>
          </table>`
        : html`<p>No budget is set: spending is not capped.</p>`
    }
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
