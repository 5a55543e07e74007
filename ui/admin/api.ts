// The dashboard's calls to the admin JSON API: same-origin, the session cookie rides along, and
// requests that change something carry the CSRF token /admin/api/me handed out.
import { useCallback, useEffect, useState } from 'preact/hooks';

let csrf: string | null = null;

/** Keeps the CSRF token of the signed-in session. */
export function setCsrf(token: string | null): void {
  csrf = token;
}

/** An answer other than 2xx, with the server's words. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Calls `path` under /admin/api (or an absolute /admin path) and returns its JSON. */
export async function api<T = unknown>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const url = path.startsWith('/admin/') ? path : `/admin/api${path}`;
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    credentials: 'same-origin',
    headers: {
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(csrf ? { 'x-boxbot-csrf': csrf } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  let data: unknown = {};
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    data = { error: text.slice(0, 200) };
  }
  if (!res.ok) throw new ApiError(res.status, (data as { error?: string }).error ?? `HTTP ${res.status}`);
  return data as T;
}

/** Loads `path` on mount and whenever `path` changes; `reload` fetches again. */
export function useApi<T>(path: string | null): { data?: T; error?: string; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  const [n, setN] = useState(0);
  useEffect(() => {
    if (!path) return;
    let live = true;
    api<T>(path).then(
      (data) => live && setState({ data }),
      (e: Error) => live && setState({ error: e.message }),
    );
    return () => {
      live = false;
    };
  }, [path, n]);
  const reload = useCallback(() => setN((x) => x + 1), []);
  return { ...state, reload };
}
