// The PostgreSQL schema as numbered migrations, applied in order at start. Every replica runs
// them under one advisory lock, so two processes starting at once never apply one twice.
// Text columns hold JSON (not jsonb): jsonb refuses U+0000, which a chat message may contain.
import type { PoolClient } from 'pg';

/** One schema change; `version` only grows, and a released migration is never edited. */
interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'conversations, delivery, kv, jobs',
    sql: `
      CREATE TABLE boxbot_conversations (
        key text PRIMARY KEY,
        platform text NOT NULL,
        created_at text NOT NULL,
        updated_at text NOT NULL,
        messages text NOT NULL,
        has_answer boolean NOT NULL DEFAULT false
      );
      CREATE TABLE boxbot_seen (
        id text PRIMARY KEY,
        seq bigserial UNIQUE,
        seen_at bigint NOT NULL
      );
      CREATE INDEX boxbot_seen_at ON boxbot_seen (seen_at);
      CREATE TABLE boxbot_inbound (
        id text PRIMARY KEY,
        seq bigserial UNIQUE,
        message text NOT NULL,
        preview_id text
      );
      CREATE TABLE boxbot_outbox (
        id text PRIMARY KEY,
        seq bigserial UNIQUE,
        conversation_key text NOT NULL,
        entry text NOT NULL,
        receipts text NOT NULL,
        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed')),
        error text
      );
      CREATE INDEX boxbot_outbox_pending ON boxbot_outbox (seq) WHERE state = 'pending';
      CREATE TABLE boxbot_kv (key text PRIMARY KEY, value text NOT NULL);
      CREATE TABLE boxbot_jobs (id text PRIMARY KEY, record text NOT NULL);
      CREATE TABLE boxbot_job_logs (
        seq bigserial PRIMARY KEY,
        job_id text NOT NULL,
        entry text NOT NULL
      );
      CREATE INDEX boxbot_job_logs_job ON boxbot_job_logs (job_id, seq);
    `,
  },
  {
    version: 2,
    name: 'leases and job tick claims',
    sql: `
      CREATE TABLE boxbot_leases (
        name text PRIMARY KEY,
        holder text NOT NULL,
        fence bigint NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE TABLE boxbot_job_claims (
        job_id text NOT NULL,
        slot text NOT NULL,
        claimed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (job_id, slot)
      );
      CREATE INDEX boxbot_job_claims_at ON boxbot_job_claims (claimed_at);
    `,
  },
  {
    version: 3,
    name: 'outbox files and long-term memories',
    sql: `
      ALTER TABLE boxbot_outbox ADD COLUMN file_receipts text;
      CREATE TABLE boxbot_outbox_files (
        entry_id text NOT NULL,
        idx integer NOT NULL,
        bytes bytea NOT NULL,
        PRIMARY KEY (entry_id, idx)
      );
      CREATE TABLE boxbot_memories (
        scope text NOT NULL,
        id text NOT NULL,
        seq bigserial UNIQUE,
        record text NOT NULL,
        PRIMARY KEY (scope, id)
      );
    `,
  },
  {
    version: 4,
    name: 'chosen model, archived sessions, usage, approvals',
    sql: `
      ALTER TABLE boxbot_conversations ADD COLUMN model text;
      CREATE TABLE boxbot_archives (
        key text NOT NULL,
        id text NOT NULL,
        record text NOT NULL,
        PRIMARY KEY (key, id)
      );
      CREATE TABLE boxbot_usage (
        subject text NOT NULL,
        day text NOT NULL,
        totals text NOT NULL,
        PRIMARY KEY (subject, day)
      );
      CREATE TABLE boxbot_approvals (
        id text PRIMARY KEY,
        inbound_id text NOT NULL,
        state text NOT NULL,
        created_at text NOT NULL,
        record text NOT NULL
      );
      CREATE INDEX boxbot_approvals_pending ON boxbot_approvals (created_at) WHERE state = 'pending';
      CREATE INDEX boxbot_approvals_inbound ON boxbot_approvals (inbound_id);
    `,
  },
  {
    version: 5,
    name: 'shared send pauses per bot',
    sql: `
      CREATE TABLE boxbot_rate_gates (
        bot text PRIMARY KEY,
        paused_until timestamptz NOT NULL
      );
    `,
  },
  {
    version: 6,
    // A replica takes one conversation's unanswered work at a time: read by key, not the whole
    // journal. Rows journaled before have no key (NULL) and are read with every key's.
    name: 'unanswered work by conversation',
    sql: `
      ALTER TABLE boxbot_inbound ADD COLUMN conversation_key text;
      CREATE INDEX boxbot_inbound_conversation ON boxbot_inbound (conversation_key, seq);
      CREATE INDEX boxbot_outbox_pending_conversation ON boxbot_outbox (conversation_key, seq)
        WHERE state = 'pending';
    `,
  },
  {
    version: 7,
    // Failed replies are aged and pruned by a column, not by parsing every failed row's JSON. Rows
    // failed before it take the failedAt their entry was patched with, else their createdAt (as
    // they were aged until now), read as text: a failed entry holding an escaped U+0000 is not
    // valid jsonb. A row whose entry names neither is kept its full retention from now.
    name: 'failed replies aged by a column',
    sql: `
      ALTER TABLE boxbot_outbox ADD COLUMN failed_at timestamptz;
      UPDATE boxbot_outbox SET failed_at = COALESCE(
          substring(entry from '"failedAt": ?"([^"]+)"'),
          substring(entry from '"createdAt": ?"([^"]+)"'),
          now()::text
        )::timestamptz
        WHERE state = 'failed';
      CREATE INDEX boxbot_outbox_failed ON boxbot_outbox (failed_at) WHERE state = 'failed';
    `,
  },
  {
    version: 8,
    // Poison input: per attachment of an unanswered message, how many times host-side work on it
    // started and never ended (DeliveryStore.startMediaWork), as {"<index>": count}.
    name: 'media work journal',
    sql: 'ALTER TABLE boxbot_inbound ADD COLUMN media_work jsonb;',
  },
  {
    version: 9,
    // Per outbox file, the upload under way (DeliveryStore.fileHandle), as a JSON list like the
    // receipts; null until a handle is journaled.
    name: 'outbox file upload handles',
    sql: 'ALTER TABLE boxbot_outbox ADD COLUMN file_handles text;',
  },
  {
    version: 10,
    // Webhook deliveries already accepted (HookDeliveryStore): a replay within the window starts
    // nothing. Expiry in ms since the epoch, as boxbot_seen's times.
    name: 'webhook deliveries',
    sql: `
      CREATE TABLE boxbot_hook_deliveries (
        hook text NOT NULL,
        delivery_id text NOT NULL,
        expires_at bigint NOT NULL,
        PRIMARY KEY (hook, delivery_id)
      );
      CREATE INDEX boxbot_hook_deliveries_expires ON boxbot_hook_deliveries (expires_at);
    `,
  },
  {
    version: 11,
    // The recorded channels' messages (ChannelLogStore): one row per channel and platform message
    // id, `at` the ISO time it was posted (sorts as text), the entry as JSON.
    name: 'channel log',
    sql: `
      CREATE TABLE boxbot_channel_log (
        channel text NOT NULL,
        message_id text NOT NULL,
        at text NOT NULL,
        entry text NOT NULL,
        PRIMARY KEY (channel, message_id)
      );
      CREATE INDEX boxbot_channel_log_at ON boxbot_channel_log (channel, at);
    `,
  },
  {
    version: 12,
    // A webhook delivery's event, journaled with its claim until its run has ended (JSON text:
    // job, run id, body, when accepted); null once run. A restart runs the events still here.
    name: 'webhook events journaled with their claims',
    sql: `
      ALTER TABLE boxbot_hook_deliveries ADD COLUMN event text;
      CREATE INDEX boxbot_hook_deliveries_unfinished ON boxbot_hook_deliveries (hook) WHERE event IS NOT NULL;
    `,
  },
  {
    version: 13,
    // The web chat's sign-in (WebSessionStore): one-time login links by the SHA-256 of their token,
    // browser sessions by a public id with the SHA-256 of the cookie's secret. Times in ms.
    name: 'web sign-in',
    sql: `
      CREATE TABLE boxbot_web_logins (
        token_hash text PRIMARY KEY,
        identity text NOT NULL,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE TABLE boxbot_web_sessions (
        id text PRIMARY KEY,
        secret_hash text NOT NULL UNIQUE,
        identity text NOT NULL,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        user_agent text
      );
      CREATE INDEX boxbot_web_sessions_identity ON boxbot_web_sessions (identity);
    `,
  },
  {
    version: 14,
    // A conversation's day split by model (JSON text: \`provider/model\` → totals), written in the
    // charge's own update; null on other rows. The day index serves the dashboard's per-day reads.
    name: 'usage per day by model',
    sql: `
      ALTER TABLE boxbot_usage ADD COLUMN models text;
      CREATE INDEX boxbot_usage_day ON boxbot_usage (day, subject);
    `,
  },
  {
    version: 15,
    // What each web chat session showed (WebDisplayStore): the page's events as JSON text, one row
    // per session id, so every replica replays the same history. Time in ms.
    name: 'web chat display',
    sql: `
      CREATE TABLE boxbot_web_display (
        session text PRIMARY KEY,
        events text NOT NULL,
        updated_at bigint NOT NULL
      );
    `,
  },
  {
    version: 16,
    // The dashboard's sign-in (AdminSessionStore): sessions by the SHA-256 of the cookie's id, and
    // failed sign-ins per address in their current window. Times in ms.
    name: 'dashboard sign-in',
    sql: `
      CREATE TABLE boxbot_admin_sessions (
        id_hash text PRIMARY KEY,
        csrf text NOT NULL,
        created_at bigint NOT NULL,
        last_used_at bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE TABLE boxbot_admin_failures (
        address text PRIMARY KEY,
        since bigint NOT NULL,
        count integer NOT NULL
      );
      CREATE INDEX boxbot_admin_failures_since ON boxbot_admin_failures (since);
    `,
  },
];

/** An arbitrary constant naming boxbot's migration lock among the database's advisory locks. */
const MIGRATION_LOCK = 0x626f7862; // "boxb"

/** Applies the migrations this database lacks, in one transaction; returns the versions applied. */
export async function migrate(client: PoolClient): Promise<number[]> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS boxbot_migrations (
         version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: number }>('SELECT version FROM boxbot_migrations');
    const have = new Set(rows.map((r) => r.version));
    const newest = Math.max(0, ...have);
    const known = MIGRATIONS.at(-1)?.version ?? 0;
    if (newest > known)
      throw new Error(
        `the database schema is at version ${newest}, newer than this boxbot knows (${known}): upgrade boxbot`,
      );
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (have.has(m.version)) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO boxbot_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  }
}
