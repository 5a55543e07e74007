// The dashboard's entry point: who is signed in (else the sign-in form), the page list, and the
// page named by the URL's hash (#/jobs). Bundled by scripts/build-dashboard.js into dist/admin.
import { html, render } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { ApiError, api, setCsrf } from './api.ts';
import { JobsPage } from './jobs.ts';
import { ApprovalsPage, ConfigPage, ConversationsPage, MemoryPage, OverviewPage } from './pages.ts';
import { ToolsPage, UsagePage } from './usage.ts';

const PAGES = [
  { id: 'overview', title: 'Overview', view: OverviewPage },
  { id: 'conversations', title: 'Conversations', view: ConversationsPage },
  { id: 'jobs', title: 'Jobs', view: JobsPage },
  { id: 'usage', title: 'Usage', view: UsagePage },
  { id: 'approvals', title: 'Approvals', view: ApprovalsPage },
  { id: 'tools', title: 'Tools and policy', view: ToolsPage },
  { id: 'memory', title: 'Memory', view: MemoryPage },
  { id: 'config', title: 'Config', view: ConfigPage },
];

const pageOf = () => PAGES.find((p) => `#/${p.id}` === location.hash) ?? PAGES[0]!;

function SignIn({ onDone }: { onDone: () => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      const out = await api<{ csrf: string }>('/admin/login', { method: 'POST', body: { token } });
      setCsrf(out.csrf);
      onDone();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return html`<main id="main" class="signin">
    <h1>boxbot admin</h1>
    <form onSubmit=${submit}>
      <label for="token">Admin token (BOXBOT_ADMIN_TOKEN)</label>
      <input id="token" type="password" autocomplete="current-password" required
        value=${token} onInput=${(e: Event) => setToken((e.target as HTMLInputElement).value)} />
      <button type="submit">Sign in</button>
      ${error && html`<p role="alert" class="error">${error}</p>`}
    </form>
  </main>`;
}

function App() {
  const [me, setMe] = useState<{ name: string } | null | undefined>(undefined);
  const [page, setPage] = useState(pageOf());
  const load = () =>
    api<{ name: string; csrf: string | null }>('/me').then(
      (m) => {
        setCsrf(m.csrf);
        setMe(m);
      },
      (e: unknown) => {
        if (!(e instanceof ApiError)) console.error(e);
        setMe(null);
      },
    );
  useEffect(() => {
    void load();
    const onHash = () => setPage(pageOf());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    document.title = `${page.title} · boxbot admin`;
  }, [page]);
  if (me === undefined) return html`<main id="main"><p>Loading…</p></main>`;
  if (me === null) return html`<${SignIn} onDone=${load} />`;
  const signOut = async () => {
    await api('/admin/logout', { method: 'POST' }).catch(() => undefined);
    setCsrf(null);
    setMe(null);
  };
  const View = page.view;
  const skip = (e: Event) => {
    e.preventDefault(); // the hash names pages: focus the content instead of following the link
    document.getElementById('main')?.focus();
  };
  return html`<a class="skip" href="#main" onClick=${skip}>Skip to content</a>
    <header>
      <strong>boxbot admin</strong>
      <span class="who">${me.name}</span>
      <button type="button" onClick=${signOut}>Sign out</button>
    </header>
    <nav aria-label="Dashboard pages">
      <ul>
        ${PAGES.map(
          (p) =>
            html`<li><a href=${`#/${p.id}`} aria-current=${p.id === page.id ? 'page' : undefined}>${p.title}</a></li>`,
        )}
      </ul>
    </nav>
    <main id="main" tabindex="-1">
      <h1>${page.title}</h1>
      <${View} key=${page.id} />
    </main>`;
}

render(html`<${App} />`, document.getElementById('app')!);
