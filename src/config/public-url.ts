// Where people and platforms reach this gateway over HTTP: `http.publicUrl` (a reverse proxy's
// `https://bot.example.com`) when set, else the server's own address. Webhook jobs' URLs and the
// web chat's sign-in links are built on it.

/**
 * The gateway's base URL, without a trailing slash.
 * @example publicBaseUrl({ host: '127.0.0.1', port: 8787 }) === 'http://127.0.0.1:8787'
 */
export function publicBaseUrl(http: { host: string; port: number; publicUrl?: string | undefined }): string {
  const host = http.host.includes(':') ? `[${http.host}]` : http.host;
  return (http.publicUrl ?? `http://${host}:${http.port}`).replace(/\/+$/, '');
}
