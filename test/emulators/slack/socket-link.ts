// The emulated Socket Mode endpoint: single-use tickets from apps.connections.open, a `hello`
// on connect, `events_api` envelopes that must be acknowledged by envelope_id within the ack
// timeout, and redelivery of unacknowledged ones with retry_attempt / retry_reason.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';

/** One event handed to Socket Mode, across its delivery attempts. */
export interface EnvelopeRecord {
  eventId?: string;
  /** `events_api`, `slash_commands` or `interactive`. */
  type: string;
  payload: Record<string, unknown>;
  /** The payload the app sent with its ack (a slash command's answer), if any. */
  response?: unknown;
  /** Each envelope written so far (a redelivery gets a new envelope id, like Slack's). */
  sent: { envelopeId: string; retryAttempt: number; retryReason: string }[];
  /** How many times it was written to a socket. */
  attempts: number;
  acked: boolean;
  /** Given up after maxRetries unacknowledged redeliveries. */
  failed: boolean;
}

/** Socket Mode timing and identity. */
export interface SocketLinkOptions {
  appId: string;
  /** How long an envelope may wait for its ack before it is sent again. Slack: ~3 s. */
  ackTimeoutMs: number;
  /** Redeliveries after the first attempt. Slack: 3. */
  maxRetries: number;
  /** Server pings (ms), as Slack's keep the client's server-ping watchdog fed. */
  pingIntervalMs: number;
  /**
   * Resend what a closed connection left unacknowledged at once (ahead of newer events) instead
   * of after the ack timeout. Slack waits out the timeout; a soak that kills the app sets this so
   * the platform's late retry is not mistaken for the app answering out of order.
   */
  redeliverOnClose?: boolean;
}

/** The WebSocket side of Socket Mode. */
export class SocketLink {
  readonly envelopes: EnvelopeRecord[] = [];
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly tickets = new Set<string>();
  private readonly live: WebSocket[] = [];
  private readonly byEnvelope = new Map<string, EnvelopeRecord>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly waiting: EnvelopeRecord[] = [];
  private readonly lastSocket = new Map<EnvelopeRecord, WebSocket>();
  private next = 0;
  private closed = false;

  constructor(private readonly opts: SocketLinkOptions) {}

  /** A fresh single-use ticket URL under `baseWsUrl` (e.g. `ws://127.0.0.1:1234`). */
  ticketUrl(baseWsUrl: string): string {
    const ticket = randomUUID();
    this.tickets.add(ticket);
    return `${baseWsUrl}/link/?ticket=${ticket}&app_id=${this.opts.appId}`;
  }

  /** Connected clients that got their hello. */
  get connections(): number {
    return this.live.length;
  }

  /** Accepts an upgrade on `/link/` with a valid ticket; refuses anything else. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const ticket = url.searchParams.get('ticket');
    if (this.closed || url.pathname !== '/link/' || !ticket || !this.tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  /** Hands a body to Socket Mode (queued until a client is connected); `events_api` unless `type` says otherwise. */
  deliver(payload: Record<string, unknown>, type = 'events_api'): EnvelopeRecord {
    const rec: EnvelopeRecord = {
      ...(typeof payload.event_id === 'string' ? { eventId: payload.event_id } : {}),
      type,
      payload,
      sent: [],
      attempts: 0,
      acked: false,
      failed: false,
    };
    this.envelopes.push(rec);
    this.send(rec);
    return rec;
  }

  /** Asks every client to reconnect (Slack's `disconnect` message, reason refresh_requested). */
  refresh(): void {
    for (const ws of this.live)
      ws.send(
        JSON.stringify({ type: 'disconnect', reason: 'refresh_requested', debug_info: { host: 'applink-emulator' } }),
      );
  }

  /** Drops every connection and timer. */
  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const ws of this.wss.clients) ws.terminate();
    this.live.length = 0;
    this.wss.close();
  }

  private accept(ws: WebSocket): void {
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      let msg: { envelope_id?: unknown; payload?: unknown };
      try {
        msg = JSON.parse(String(data)) as typeof msg;
      } catch {
        return;
      }
      const rec = typeof msg.envelope_id === 'string' ? this.byEnvelope.get(msg.envelope_id) : undefined;
      if (rec) {
        rec.acked = true;
        if (msg.payload !== undefined) rec.response = msg.payload;
      }
    });
    ws.on('close', () => {
      const i = this.live.indexOf(ws);
      if (i >= 0) this.live.splice(i, 1);
      if (!this.opts.redeliverOnClose) return;
      const left = this.envelopes.filter((rec) => !rec.acked && !rec.failed && this.lastSocket.get(rec) === ws);
      for (const rec of left) this.lastSocket.delete(rec);
      this.waiting.unshift(...left);
      if (this.live.length > 0) for (const rec of this.waiting.splice(0)) this.send(rec);
    });
    ws.on('error', () => undefined);
    const ping = setInterval(() => ws.readyState === WebSocket.OPEN && ws.ping(), this.opts.pingIntervalMs);
    ping.unref();
    ws.on('close', () => clearInterval(ping));
    this.live.push(ws);
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.live.length,
        debug_info: { host: 'applink-emulator', build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: this.opts.appId },
      }),
    );
    for (const rec of this.waiting.splice(0)) this.send(rec);
  }

  private send(rec: EnvelopeRecord): void {
    if (this.closed || rec.acked) return;
    const ws = this.live.length > 0 ? this.live[this.next++ % this.live.length] : undefined;
    if (!ws) {
      this.waiting.push(rec);
      return;
    }
    const envelopeId = randomUUID();
    const attempt = rec.attempts;
    const retryReason = attempt === 0 ? '' : 'timeout';
    rec.sent.push({ envelopeId, retryAttempt: attempt, retryReason });
    if (this.opts.redeliverOnClose) this.lastSocket.set(rec, ws);
    this.byEnvelope.set(envelopeId, rec);
    rec.attempts += 1;
    ws.send(
      JSON.stringify({
        envelope_id: envelopeId,
        payload: rec.payload,
        type: rec.type,
        accepts_response_payload: rec.type !== 'events_api',
        retry_attempt: attempt,
        retry_reason: retryReason,
      }),
    );
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (rec.acked) return;
      if (rec.attempts > this.opts.maxRetries) rec.failed = true;
      else this.send(rec);
    }, this.opts.ackTimeoutMs);
    timer.unref();
    this.timers.add(timer);
  }
}
