// Allowed outbound hosts, Spin style: `https://api.example.com`, `https://*.example.com`,
// `http://localhost:8080`, `*://*.example.com:*`. No paths; `*` only as a whole scheme,
// leading label or port.

/** A parsed allow pattern. */
export interface HostPattern {
  scheme: string | '*';
  host: string;
  wildcardSubdomains: boolean;
  port: number | '*';
}

const DEFAULT_PORT: Record<string, number> = { http: 80, https: 443 };

/** Parses allow patterns; throws naming the first bad one. */
export function parseHostPatterns(patterns: string[]): HostPattern[] {
  return patterns.map((p) => {
    const m = /^(\*|https?):\/\/(\*\.)?([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::(\*|\d{1,5}))?\/?$/i.exec(p);
    if (!m)
      throw new Error(
        `bad host pattern ${JSON.stringify(p)}: expected e.g. https://api.example.com or https://*.example.com (no ` +
          `paths)`,
      );
    const scheme = m[1]!.toLowerCase();
    const port =
      m[4] === undefined ? (scheme === '*' ? '*' : DEFAULT_PORT[scheme]!) : m[4] === '*' ? '*' : Number(m[4]);
    return { scheme, host: m[3]!.toLowerCase(), wildcardSubdomains: m[2] !== undefined, port };
  });
}

/** Whether `url` is allowed by one of `patterns`. */
export function matchesAllowed(url: URL, patterns: HostPattern[]): boolean {
  const scheme = url.protocol.replace(/:$/, '');
  const port = url.port ? Number(url.port) : DEFAULT_PORT[scheme];
  const host = url.hostname.toLowerCase();
  return patterns.some((p) => {
    if (p.scheme !== '*' && p.scheme !== scheme) return false;
    if (p.port !== '*' && p.port !== port) return false;
    return p.wildcardSubdomains ? host.endsWith(`.${p.host}`) : host === p.host;
  });
}
