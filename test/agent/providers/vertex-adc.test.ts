// Vertex with Application Default Credentials: GOOGLE_APPLICATION_CREDENTIALS names a service-account key file whose
// token_uri points at a local token endpoint; the signed JWT is exchanged there and the token reaches the Vertex
// emulator, cached until shortly before it expires. Doctor's key check goes through the same exchange.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serviceAccountTokens } from '../../../src/agent/providers/google-adc.ts';
import {
  checkProviderKey,
  listProviders,
  type ResolveContext,
  resolveModel,
} from '../../../src/agent/providers/index.ts';
import { configSchema } from '../../../src/config/schema.ts';
import { type LlmEmulator, llm, startLlmEmulator } from '../../emulators/llm/index.ts';
import { collect, request } from './contract.ts';
import { type GoogleTokenEmulator, startGoogleTokenEmulator } from './google-token-emulator.ts';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const EMAIL = 'boxbot@boxbot-test.iam.gserviceaccount.com';
let dir: string;
let tokens: GoogleTokenEmulator;
let vertex: LlmEmulator;
let keyFile: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'boxbot-adc-'));
  tokens = await startGoogleTokenEmulator(publicKey);
  vertex = await startLlmEmulator();
  keyFile = join(dir, 'sa.json');
  await writeFile(
    keyFile,
    JSON.stringify({
      type: 'service_account',
      project_id: 'boxbot-test',
      private_key_id: 'k1',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      client_email: EMAIL,
      token_uri: tokens.url,
    }),
  );
});
after(async () => {
  await Promise.all([tokens.close(), vertex.close()]);
  await rm(dir, { recursive: true, force: true });
});

function ctxWith(secrets: Record<string, string>): ResolveContext {
  const config = configSchema.parse({
    providers: {
      vertex: { type: 'vertex-anthropic', region: 'us-east5', projectId: 'boxbot-test', baseURL: `${vertex.url}/v1` },
    },
  });
  return { config, secrets: Object.freeze({ ...secrets }), retry: { maxRetries: 2, sleep: async () => {} } };
}

describe('vertex: Application Default Credentials', () => {
  it('exchanges a signed JWT at the key file token_uri once and sends that token on every call', async () => {
    tokens.refuse(undefined);
    const from = { tokens: tokens.exchanges.length, vertex: vertex.requests.length };
    const ctx = ctxWith({ GOOGLE_APPLICATION_CREDENTIALS: keyFile });
    vertex.script([llm.say('one'), llm.say('two')]);
    const m = resolveModel('vertex/test-model', ctx);
    const first = await collect(m.provider.stream(request(m.model), new AbortController().signal));
    const second = await collect(m.provider.stream(request(m.model), new AbortController().signal));
    assert.equal(first.error, undefined);
    assert.equal(first.text, 'one');
    assert.equal(second.text, 'two');
    const exchanged = tokens.exchanges.slice(from.tokens);
    assert.equal(exchanged.length, 1, 'the token is reused for the second call');
    assert.equal(exchanged[0]!.claims.iss, EMAIL);
    assert.equal(exchanged[0]!.claims.scope, 'https://www.googleapis.com/auth/cloud-platform');
    const sent = vertex.requests.slice(from.vertex).map((r) => r.headers.authorization);
    assert.deepEqual(sent, [`Bearer ${exchanged[0]!.token}`, `Bearer ${exchanged[0]!.token}`]);
    vertex.assertDone();
  });

  it('renews the token five minutes before it expires, and concurrent callers share one exchange', async () => {
    tokens.refuse(undefined);
    const from = tokens.exchanges.length;
    let now = 1_000_000;
    const source = serviceAccountTokens({ file: keyFile, provider: 'vertex', now: () => now });
    const [a, b] = await Promise.all([source.authorization(), source.authorization()]);
    assert.equal(a, b);
    assert.equal(tokens.exchanges.length - from, 1, 'one exchange for two concurrent callers');
    now += 54 * 60_000;
    assert.equal(await source.authorization(), a, 'still cached 54 minutes into a one-hour token');
    now += 2 * 60_000;
    const renewed = await source.authorization();
    assert.notEqual(renewed, a, '56 minutes in, a new token was fetched');
    assert.equal(renewed, `Bearer ${tokens.exchanges.at(-1)!.token}`);
    assert.equal(tokens.exchanges.length - from, 2);
  });

  it('is what makes Vertex ready without VERTEX_ACCESS_TOKEN; with neither, both variables are named', () => {
    const adc = listProviders(ctxWith({ GOOGLE_APPLICATION_CREDENTIALS: keyFile })).find((p) => p.name === 'vertex')!;
    assert.equal(adc.ready, true, adc.problem);
    assert.equal(adc.keyEnv, 'GOOGLE_APPLICATION_CREDENTIALS');
    const token = listProviders(ctxWith({ VERTEX_ACCESS_TOKEN: 't', GOOGLE_APPLICATION_CREDENTIALS: keyFile }));
    assert.equal(token.find((p) => p.name === 'vertex')!.keyEnv, 'VERTEX_ACCESS_TOKEN', 'a fixed token wins');
    const none = listProviders(ctxWith({})).find((p) => p.name === 'vertex')!;
    assert.equal(none.ready, false);
    assert.equal(
      none.problem,
      'set VERTEX_ACCESS_TOKEN (or GOOGLE_APPLICATION_CREDENTIALS, the path of a service-account key file)',
    );
  });

  it('doctor: the key check exchanges a token and makes a one-token call with it', async () => {
    tokens.refuse(undefined);
    const ctx = ctxWith({ GOOGLE_APPLICATION_CREDENTIALS: keyFile });
    const from = vertex.requests.length;
    vertex.script([llm.say('pong')]);
    const status = listProviders(ctx).find((p) => p.name === 'vertex')!;
    const r = await checkProviderKey(status, { ...ctx, model: 'test-model' });
    assert.equal(r.ok, true, r.detail);
    assert.match(vertex.requests[from]!.headers.authorization ?? '', /^Bearer ya29\.emu-\d+$/);
  });

  it('a refused assertion fails the call without retries or a Vertex request, and doctor says why', async () => {
    tokens.refuse({ status: 400, error: 'invalid_grant', description: 'Invalid JWT Signature.' });
    const ctx = ctxWith({ GOOGLE_APPLICATION_CREDENTIALS: keyFile });
    const from = { tokens: tokens.exchanges.length, vertex: vertex.requests.length };
    const m = resolveModel('vertex/test-model', ctx);
    const out = await collect(m.provider.stream(request(m.model), new AbortController().signal));
    const message =
      `token endpoint ${tokens.url} answered 400 (invalid_grant: Invalid JWT Signature.) for ${EMAIL}: ` +
      'check GOOGLE_APPLICATION_CREDENTIALS';
    assert.equal((out.error as Error).message, `vertex: ${message}`);
    assert.equal(tokens.exchanges.length - from.tokens, 1, 'a refused key is not retried');
    assert.equal(vertex.requests.length, from.vertex, 'nothing reached Vertex');
    const status = listProviders(ctx).find((p) => p.name === 'vertex')!;
    assert.deepEqual(await checkProviderKey(status, { ...ctx, model: 'test-model' }), { ok: false, detail: message });
    tokens.refuse(undefined);
  });

  it('a key file that is not a service account, or missing, is refused naming the file', async () => {
    const user = join(dir, 'user.json');
    await writeFile(user, JSON.stringify({ type: 'authorized_user', client_id: 'x', refresh_token: 'y' }));
    const bad = serviceAccountTokens({ file: user, provider: 'vertex' });
    await assert.rejects(bad.authorization(), {
      message:
        `vertex: ${user} (GOOGLE_APPLICATION_CREDENTIALS) has type "authorized_user": ` +
        'only "service_account" key files are supported (or set VERTEX_ACCESS_TOKEN)',
    });
    const missing = join(dir, 'nope.json');
    await assert.rejects(serviceAccountTokens({ file: missing, provider: 'vertex' }).authorization(), {
      message: `vertex: ${missing} (GOOGLE_APPLICATION_CREDENTIALS) cannot be read (ENOENT)`,
    });
  });
});
