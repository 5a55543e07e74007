// The host's grant of the bundled `web_search` tool from the config's `webSearch`: the one origin
// of the chosen service, and the variables that tell the tool which service and key to use. The
// key is read from the secrets here and handed to that tool's sandbox only.
import type { HostToolGrant } from './grants.ts';

/**
 * Bundled tools that do nothing without the host's grant: with none (no `webSearch` configured) they are left out
 * of the tool list and /whoami, and a call to one is refused as unknown.
 */
export const HOST_GRANTED_TOOLS: ReadonlySet<string> = new Set(['web_search']);

/** Of `names`, those a run can be offered: a host-granted tool only when the host granted it (start's banner). */
export function offerableToolNames(
  names: readonly string[],
  hostGrants: Readonly<Record<string, unknown>> = {},
): string[] {
  return names.filter((n) => !HOST_GRANTED_TOOLS.has(n) || Object.hasOwn(hostGrants, n));
}

/** The config's `webSearch` (see config/schema.ts). */
export interface WebSearchConfig {
  provider: 'searxng' | 'brave' | 'tavily';
  baseUrl?: string | undefined;
  apiKeyEnv?: string | undefined;
}

/** Each service's public address and key variable. */
const DEFAULTS = {
  searxng: { baseUrl: undefined, keyEnv: undefined },
  brave: { baseUrl: 'https://api.search.brave.com', keyEnv: 'BRAVE_API_KEY' },
  tavily: { baseUrl: 'https://api.tavily.com', keyEnv: 'TAVILY_API_KEY' },
} as const;

/** The configured service's base URL (its public one unless the config names another) and key variable. */
export function searchServiceOf(config: WebSearchConfig): { baseUrl: string | undefined; keyEnv: string | undefined } {
  const d = DEFAULTS[config.provider];
  return { baseUrl: config.baseUrl ?? d.baseUrl, keyEnv: config.apiKeyEnv ?? d.keyEnv };
}

/** Whether a host name is a literal loopback or private address (or localhost), which DNS cannot move. */
function literalLocal(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(h);
  if (!m) return /^f[cd][0-9a-f]{2}:/.test(h);
  const [a, b] = [Number(m[1]), Number(m[2])];
  return a === 127 || a === 10 || (a === 172 && b >= 16 && b < 32) || (a === 192 && b === 168);
}

/**
 * The `web_search` grant, or undefined when no service is configured. A self-hosted SearXNG on a
 * literal local address (`http://127.0.0.1:8888`) is reachable although private networks are
 * blocked: the grant allows that one origin only. A named host keeps the block, so a DNS answer
 * pointing inside the network is still refused.
 */
export function webSearchGrant(
  config: WebSearchConfig | undefined,
  secrets: Readonly<Record<string, string | undefined>>,
  block: string[],
): HostToolGrant | undefined {
  if (!config) return undefined;
  const { baseUrl: base, keyEnv } = searchServiceOf(config);
  if (!base) return undefined;
  const url = new URL(base);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const origin = `${url.protocol}//${url.hostname}:${port}`;
  const key = keyEnv ? secrets[keyEnv] : undefined;
  return {
    hosts: [origin],
    block: literalLocal(url.hostname) ? [] : block,
    env: {
      BOXBOT_SEARCH_PROVIDER: config.provider,
      BOXBOT_SEARCH_URL: base,
      ...(key ? { BOXBOT_SEARCH_KEY: key } : {}),
    },
  };
}
