// Short human status lines for a UI ("reading src/main.ts…"), built from a few well-known input
// fields and cut short; never the raw input or output of a call.

const MAX = 60;

const short = (s: string, max = MAX): string => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
};

const str = (input: Record<string, unknown>, ...keys: string[]): string | undefined => {
  for (const k of keys) {
    const v = input[k];
    if (typeof v === 'string' && v.trim()) return v;
  }
  return undefined;
};

const VERBS: [RegExp, string][] = [
  [/^(read|cat|view|open|head|tail)/i, 'reading'],
  [/^(write|edit|patch|append|create|mkdir|rm|delete|move|mv|cp)/i, 'editing'],
  [/^(ls|list|tree|glob|find)/i, 'listing'],
  [/^(grep|search|rg|toolsearch)/i, 'searching'],
  [/^(fetch|http|curl|web|browse)/i, 'fetching'],
  [/^(bash|sh|shell|exec|run)/i, 'running'],
];

/** The line shown while a call runs. */
export function toolStatus(name: string, input: unknown): string {
  const i = input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  if (name === 'agent') return `sub-agent: ${short(str(i, 'description') ?? 'working', 48)}…`;
  if (name === 'agent_result') return 'waiting for a sub-agent…';
  if (name === 'skill') return `using the ${short(str(i, 'name') ?? '?', 40)} skill…`;
  const verb = VERBS.find(([re]) => re.test(name))?.[1];
  const url = str(i, 'url');
  if (url) {
    let host = url;
    try {
      host = new URL(url).host;
    } catch {
      // not a URL; show it cut short
    }
    return `${verb ?? 'fetching'} ${short(host)}…`;
  }
  const command = str(i, 'command', 'cmd');
  if (command && (verb === 'running' || !verb)) return `running \`${short(command, 50)}\`…`;
  const query = str(i, 'query', 'pattern', 'regex');
  if (query)
    return verb === 'listing'
      ? `finding files matching "${short(query, 40)}"…`
      : `searching for "${short(query, 40)}"…`;
  const path = str(i, 'file_path', 'path', 'file', 'dir', 'directory');
  if (path) return `${verb ?? `${name}:`} ${short(path)}…`;
  return `${verb ?? `using ${short(name, 40)}`}…`;
}

/** The line shown when a call ended. */
export function toolEndStatus(name: string, isError: boolean, durationMs: number): string {
  const secs = durationMs >= 1000 ? ` (${(durationMs / 1000).toFixed(1)} s)` : '';
  return isError ? `${short(name, 40)} failed${secs}` : `${short(name, 40)} done${secs}`;
}
