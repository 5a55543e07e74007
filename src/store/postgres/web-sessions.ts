// The web chat's sign-in state as rows: login links by the hash of their token (a DELETE …
// RETURNING uses one up for exactly one replica), sessions by their public id with the hash of
// the cookie's secret beside it.
import type { WebLogin, WebSession, WebSessionStore } from '../web-sessions.ts';
import type { Db } from './db.ts';
import { decodeKey, encodeKey } from './text-codec.ts';

type SessionRow = {
  id: string;
  secret_hash: string;
  identity: string;
  created_at: string;
  expires_at: string;
  user_agent: string | null;
};

const sessionOf = (r: SessionRow): WebSession => ({
  id: r.id,
  secretHash: r.secret_hash,
  identity: decodeKey(r.identity),
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  ...(r.user_agent !== null ? { userAgent: decodeKey(r.user_agent) } : {}),
});

/** Web logins and sessions in PostgreSQL (tables `boxbot_web_logins`, `boxbot_web_sessions`, migration 13). */
export function createPgWebSessions(db: Db, now: () => number): WebSessionStore {
  return {
    async addLogin(l) {
      await db.tx(async (q) => {
        await q('DELETE FROM boxbot_web_logins WHERE expires_at <= $1', [now()]);
        await q(
          'INSERT INTO boxbot_web_logins (token_hash, identity, created_at, expires_at) VALUES ($1, $2, $3, $4)',
          [l.tokenHash, encodeKey(l.identity), l.createdAt, l.expiresAt],
        );
      });
    },
    async redeemLogin(tokenHash) {
      const [row] = await db.query<{ identity: string; created_at: string; expires_at: string }>(
        `DELETE FROM boxbot_web_logins WHERE token_hash = $1 AND expires_at > $2
           RETURNING identity, created_at, expires_at`,
        [tokenHash, now()],
      );
      if (!row) return undefined;
      const login: WebLogin = {
        tokenHash,
        identity: decodeKey(row.identity),
        createdAt: Number(row.created_at),
        expiresAt: Number(row.expires_at),
      };
      return login;
    },
    async createSession(s) {
      await db.tx(async (q) => {
        await q('DELETE FROM boxbot_web_sessions WHERE expires_at <= $1', [now()]);
        await q(
          `INSERT INTO boxbot_web_sessions (id, secret_hash, identity, created_at, expires_at, user_agent)
             VALUES ($1, $2, $3, $4, $5, $6)`,
          [
            s.id,
            s.secretHash,
            encodeKey(s.identity),
            s.createdAt,
            s.expiresAt,
            s.userAgent === undefined ? null : encodeKey(s.userAgent),
          ],
        );
      });
    },
    async sessionBySecret(secretHash) {
      const [row] = await db.query<SessionRow>(
        'SELECT * FROM boxbot_web_sessions WHERE secret_hash = $1 AND expires_at > $2',
        [secretHash, now()],
      );
      return row ? sessionOf(row) : undefined;
    },
    async listSessions(identity) {
      const rows = await db.query<SessionRow>(
        `SELECT * FROM boxbot_web_sessions WHERE expires_at > $1 AND ($2::text IS NULL OR identity = $2)
           ORDER BY created_at DESC, id`,
        [now(), identity === undefined ? null : encodeKey(identity)],
      );
      return rows.map(sessionOf);
    },
    async revokeSession(id) {
      const rows = await db.query('DELETE FROM boxbot_web_sessions WHERE id = $1 AND expires_at > $2 RETURNING id', [
        id,
        now(),
      ]);
      return rows.length > 0;
    },
    async revokeIdentity(identity) {
      return db.tx(async (q) => {
        const rows = await q('DELETE FROM boxbot_web_sessions WHERE identity = $1 AND expires_at > $2 RETURNING id', [
          encodeKey(identity),
          now(),
        ]);
        await q('DELETE FROM boxbot_web_sessions WHERE identity = $1', [encodeKey(identity)]);
        await q('DELETE FROM boxbot_web_logins WHERE identity = $1', [encodeKey(identity)]);
        return rows.length;
      });
    },
  };
}
