// `boxbot doctor`'s web search line: the configured service (`webSearch`) asked one real query for one
// result, with the key the web_search tool would get, so a refused key or an unreachable address is found
// before a user's search fails. Brave and Tavily count that query against the plan. `--offline` asks nothing.
import { searchServiceOf, type WebSearchConfig } from '../agent/tools/index.ts';
import type { Secrets } from '../config/env.ts';
import { errorMessage, fetchFailureCode } from '../core/errors.ts';

/** One doctor line. */
export interface SearchLine {
  ok: boolean;
  what: string;
  detail: string;
  off?: boolean;
}

const WHAT = 'web search';

/** The one cheap request each service answers: a query for one result. */
function probeRequest(config: WebSearchConfig, base: string, key: string | undefined): { url: URL; init: RequestInit } {
  const url = new URL(base);
  const under = (path: string) => {
    url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  };
  const accept = { accept: 'application/json', 'user-agent': 'boxbot-doctor' };
  if (config.provider === 'searxng') {
    under('/search');
    url.search = new URLSearchParams({ q: 'boxbot', format: 'json' }).toString();
    return { url, init: { headers: accept } };
  }
  if (config.provider === 'brave') {
    under('/res/v1/web/search');
    url.search = new URLSearchParams({ q: 'boxbot', count: '1' }).toString();
    return { url, init: { headers: { ...accept, 'x-subscription-token': key ?? '' } } };
  }
  under('/search');
  return {
    url,
    init: {
      method: 'POST',
      headers: { ...accept, 'content-type': 'application/json', authorization: `Bearer ${key ?? ''}` },
      body: JSON.stringify({ query: 'boxbot', max_results: 1 }),
    },
  };
}

/** What an answer's status means for the user, naming the variable when the key was refused. */
function verdict(config: WebSearchConfig, status: number, keyEnv: string | undefined, where: string): SearchLine {
  const head = `${config.provider} at ${where}`;
  if (status >= 200 && status < 300) return { ok: true, what: WHAT, detail: `${head} answered a test query` };
  if ((status === 401 || status === 403) && keyEnv)
    return { ok: false, what: WHAT, detail: `${head}: the key was refused (${status}): check ${keyEnv}` };
  if (status === 403 && config.provider === 'searxng')
    return {
      ok: false,
      what: WHAT,
      detail: `${head} refused JSON (403): add json to search.formats in SearXNG's settings.yml`,
    };
  if (status === 429)
    return { ok: true, what: WHAT, detail: `${head} is rate limiting (429); the key was not refused` };
  return { ok: false, what: WHAT, detail: `${head} answered ${status} to a test query: check webSearch.baseUrl` };
}

/** The web search line: off, a missing key, or the service's answer to one query (none with `offline`). */
export async function checkSearch(
  config: WebSearchConfig | undefined,
  secrets: Secrets,
  offline: boolean,
  timeoutMs = 5000,
): Promise<SearchLine> {
  if (!config)
    return {
      ok: true,
      off: true,
      what: WHAT,
      detail: 'web_search is not offered: set webSearch.provider (searxng, brave or tavily)',
    };
  const { baseUrl, keyEnv } = searchServiceOf(config);
  if (!baseUrl) return { ok: false, what: WHAT, detail: `webSearch.baseUrl is required for ${config.provider}` };
  const where = new URL(baseUrl).origin;
  const key = keyEnv ? secrets[keyEnv] : undefined;
  if (keyEnv && !key) return { ok: false, what: WHAT, detail: `${config.provider} needs a key: set ${keyEnv}` };
  if (offline) return { ok: true, what: WHAT, detail: `${config.provider} at ${where} (not contacted: --offline)` };
  const { url, init } = probeRequest(config, baseUrl, key);
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    await res.body?.cancel();
    return verdict(config, res.status, keyEnv, where);
  } catch (e) {
    const why = fetchFailureCode(e) ?? errorMessage(e);
    return { ok: false, what: WHAT, detail: `cannot reach ${config.provider} at ${where}: ${why}` };
  }
}
