// A Google OAuth token endpoint on 127.0.0.1: takes the JWT-bearer grant a service account sends, checks the
// assertion's RS256 signature against the account's public key and its claims, and hands out numbered tokens.
import { createVerify, type KeyObject } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One exchange the endpoint saw: the assertion's claims, and what it answered. */
export interface TokenExchange {
  claims: Record<string, unknown>;
  status: number;
  token?: string;
}

/** A running token endpoint. */
export interface GoogleTokenEmulator {
  /** The `token_uri` to put in the key file. */
  url: string;
  exchanges: TokenExchange[];
  /** The next exchanges are refused with this status and OAuth error (undefined: answer again). */
  refuse(answer: { status: number; error: string; description: string } | undefined): void;
  close(): Promise<void>;
}

/** Starts the endpoint; tokens are `ya29.emu-<n>` valid for `expiresInS`. */
export async function startGoogleTokenEmulator(publicKey: KeyObject, expiresInS = 3600): Promise<GoogleTokenEmulator> {
  const exchanges: TokenExchange[] = [];
  let refusal: { status: number; error: string; description: string } | undefined;
  let url = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const answer = (status: number, body: unknown, claims: Record<string, unknown> = {}) => {
        const token = status === 200 ? (body as { access_token: string }).access_token : undefined;
        exchanges.push({ claims, status, ...(token ? { token } : {}) });
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      const bad = (description: string) => answer(400, { error: 'invalid_grant', error_description: description });
      if (req.method !== 'POST' || req.headers['content-type'] !== 'application/x-www-form-urlencoded') {
        return bad('expected a form POST');
      }
      if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return bad('wrong grant_type');
      const [h, c, s] = (form.get('assertion') ?? '').split('.');
      if (!h || !c || !s) return bad('no assertion');
      const header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'));
      const claims = JSON.parse(Buffer.from(c, 'base64url').toString('utf8'));
      const signed = createVerify('RSA-SHA256').update(`${h}.${c}`).verify(publicKey, Buffer.from(s, 'base64url'));
      if (header.alg !== 'RS256' || !signed) return bad('Invalid JWT Signature.');
      if (claims.aud !== url) return bad(`aud is ${claims.aud}, not ${url}`);
      if (refusal)
        return answer(refusal.status, { error: refusal.error, error_description: refusal.description }, claims);
      const token = `ya29.emu-${exchanges.filter((e) => e.status === 200).length + 1}`;
      answer(200, { access_token: token, expires_in: expiresInS, token_type: 'Bearer' }, claims);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  return {
    url,
    exchanges,
    refuse(answer) {
      refusal = answer;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
