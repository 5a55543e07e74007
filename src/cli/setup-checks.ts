// The checks `boxbot setup` makes before it writes anything: one short model call through
// boxbot's own provider code, and each chat token against the platform's own "who am I"
// (Telegram getMe, Slack auth.test, Discord /users/@me). A detail never holds the secret.
import { parseModelSpec, resolveModel } from '../agent/index.ts';
import type { Secrets } from '../config/env.ts';
import type { Config } from '../config/schema.ts';
import { errorMessage, fetchFailureCode } from '../core/errors.ts';

/** The outcome of one check, in one line. */
export interface CheckResult {
  ok: boolean;
  detail: string;
}

/** `text` with every secret replaced, for messages that might quote a URL or a body. */
function scrub(text: string, secrets: string[]): string {
  return secrets.reduce((t, s) => (s ? t.split(s).join('[redacted]') : t), text);
}

/** The first line of an error, with every secret replaced. */
function failure(e: unknown, secrets: string[]): string {
  return scrub((fetchFailureCode(e) ?? errorMessage(e)).split('\n')[0]!, secrets);
}

/** A GET or POST with a time limit; the body is read up to 64 KiB. */
async function call(url: string, init: RequestInit, timeoutMs: number) {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    const body = (await res.text()).slice(0, 64 * 1024);
    let json: Record<string, unknown> | undefined;
    try {
      json = JSON.parse(body) as Record<string, unknown>;
    } catch {
      json = undefined;
    }
    return { status: res.status, json };
  } catch (e) {
    return { error: e };
  }
}

/** Asks `spec` for a one-word answer through boxbot's provider for it: proves the key, the endpoint and the model. */
export async function checkModel(
  spec: string,
  config: Config,
  secrets: Secrets,
  timeoutMs = 60_000,
): Promise<CheckResult> {
  const values = Object.values(secrets).filter((v): v is string => Boolean(v));
  try {
    const { provider, model } = resolveModel(spec, { config, secrets, retry: { maxRetries: 0, maxStallRetries: 0 } });
    const signal = AbortSignal.timeout(timeoutMs);
    const request = {
      model,
      system: 'You are being tested by a setup program.',
      messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Answer with the word OK.' }] }],
      tools: [],
      maxOutputTokens: 16,
    };
    let text = '';
    for await (const part of provider.stream(request, signal)) {
      if (part.type === 'text-delta') text += part.text;
      if (part.type === 'error') throw part.error;
    }
    const said = text.trim().slice(0, 40);
    return { ok: true, detail: `${spec} answered${said ? ` "${scrub(said, values)}"` : ''}` };
  } catch (e) {
    const name = parseModelSpec(spec).providerName;
    const why = failure(e, values);
    return { ok: false, detail: why.startsWith(`${name}:`) ? why : `${name}: ${why}` };
  }
}

/** Telegram's getMe with `token` at `apiRoot` (default api.telegram.org). */
export async function checkTelegram(token: string, apiRoot?: string, timeoutMs = 15_000): Promise<CheckResult> {
  const root = (apiRoot ?? 'https://api.telegram.org').replace(/\/+$/, '');
  const r = await call(`${root}/bot${token}/getMe`, {}, timeoutMs);
  if ('error' in r) return { ok: false, detail: `cannot reach ${root} (${failure(r.error, [token])})` };
  const me = r.json?.result as { username?: string } | undefined;
  if (r.status !== 200 || !me) return { ok: false, detail: `getMe answered ${r.status}: the token was refused` };
  return { ok: true, detail: `the bot is @${me.username ?? '?'}` };
}

/** Discord's GET /users/@me with the bot `token` at `restApi` (default discord.com/api). */
export async function checkDiscord(token: string, restApi?: string, timeoutMs = 15_000): Promise<CheckResult> {
  const root = (restApi ?? 'https://discord.com/api').replace(/\/+$/, '');
  const r = await call(`${root}/v10/users/@me`, { headers: { authorization: `Bot ${token}` } }, timeoutMs);
  if ('error' in r) return { ok: false, detail: `cannot reach ${root} (${failure(r.error, [token])})` };
  if (r.status !== 200) return { ok: false, detail: `/users/@me answered ${r.status}: the token was refused` };
  const name = typeof r.json?.username === 'string' ? r.json.username : '?';
  return { ok: true, detail: `the bot is ${name} (switch on the Message Content intent in the Developer Portal)` };
}

/** Slack's auth.test with the bot `token` at `apiUrl` (default slack.com/api/). */
export async function checkSlack(token: string, apiUrl?: string, timeoutMs = 15_000): Promise<CheckResult> {
  const root = (apiUrl ?? 'https://slack.com/api/').replace(/\/?$/, '/');
  const r = await call(
    `${root}auth.test`,
    { method: 'POST', headers: { authorization: `Bearer ${token}` } },
    timeoutMs,
  );
  if ('error' in r) return { ok: false, detail: `cannot reach ${root} (${failure(r.error, [token])})` };
  if (r.status !== 200 || r.json?.ok !== true) {
    const why = typeof r.json?.error === 'string' ? r.json.error : `HTTP ${r.status}`;
    return { ok: false, detail: `auth.test refused the bot token (${why.slice(0, 60)})` };
  }
  const who = [r.json.user, r.json.team].filter((v) => typeof v === 'string').join(' in ');
  return { ok: true, detail: `the bot is ${who || '?'}` };
}

/** Slack's apps.connections.open with the app-level `token`: proves Socket Mode can connect (the URL is not used). */
export async function checkSlackApp(token: string, apiUrl?: string, timeoutMs = 15_000): Promise<CheckResult> {
  const root = (apiUrl ?? 'https://slack.com/api/').replace(/\/?$/, '/');
  const r = await call(
    `${root}apps.connections.open`,
    { method: 'POST', headers: { authorization: `Bearer ${token}` } },
    timeoutMs,
  );
  if ('error' in r) return { ok: false, detail: `cannot reach ${root} (${failure(r.error, [token])})` };
  if (r.status !== 200 || r.json?.ok !== true) {
    const why = typeof r.json?.error === 'string' ? r.json.error : `HTTP ${r.status}`;
    return { ok: false, detail: `apps.connections.open refused the app token (${why.slice(0, 60)})` };
  }
  return { ok: true, detail: 'Socket Mode can connect' };
}
