// The emulator's gateway: Discord's WebSocket protocol v10 with JSON encoding. HELLO → IDENTIFY
// (token and intents checked) → READY → GUILD_CREATE per guild, heartbeats ACKed, dispatches
// numbered per session and buffered so a RESUME replays what a dropped connection missed.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';

/** Gateway opcodes (Discord's numbers). */
export const Op = {
  Dispatch: 0,
  Heartbeat: 1,
  Identify: 2,
  PresenceUpdate: 3,
  VoiceStateUpdate: 4,
  Resume: 6,
  Reconnect: 7,
  RequestGuildMembers: 8,
  InvalidSession: 9,
  Hello: 10,
  HeartbeatAck: 11,
} as const;

/** Gateway intents used by the emulator (Discord's bits). */
export const Intent = {
  Guilds: 1 << 0,
  GuildMembers: 1 << 1,
  GuildPresences: 1 << 8,
  GuildMessages: 1 << 9,
  DirectMessages: 1 << 12,
  MessageContent: 1 << 15,
} as const;

/** Intents Discord only grants when switched on in the developer portal. */
export const PRIVILEGED_INTENTS = Intent.GuildMembers | Intent.GuildPresences | Intent.MessageContent;
const ALL_INTENTS = (1 << 26) - 1;

/** Close codes (Discord's numbers). */
export const Close = {
  UnknownError: 4000,
  UnknownOpcode: 4001,
  DecodeError: 4002,
  NotAuthenticated: 4003,
  AuthenticationFailed: 4004,
  AlreadyAuthenticated: 4005,
  InvalidApiVersion: 4012,
  InvalidIntents: 4013,
  DisallowedIntents: 4014,
} as const;

/** One IDENTIFY the gateway received. */
export interface IdentifyRecord {
  token: string;
  intents: number;
  properties: unknown;
  shard: unknown;
}

interface Session {
  id: string;
  intents: number;
  seq: number;
  /** Dispatches sent (or due) on this session, for RESUME replay: [seq, serialized payload]. */
  buffer: [number, string][];
  socket: WebSocket | null;
}

interface Connection {
  socket: WebSocket;
  session?: Session;
  closedByServer?: boolean;
}

/** What READY and GUILD_CREATE carry; supplied by the emulator's world. */
export interface GatewayWorld {
  readyData(session: { id: string; resumeUrl: string }): Record<string, unknown>;
  guildCreates(): Record<string, unknown>[];
}

/** Options of the emulated gateway. */
export interface GatewayOptions {
  token: string;
  heartbeatIntervalMs: number;
  /** Privileged intents switched on for this bot (default: all). */
  enabledPrivilegedIntents: number;
  world: GatewayWorld;
  resumeUrl: () => string;
}

const BUFFER_LIMIT = 5000;

/** The WebSocket side of the emulator; `handleUpgrade` is wired to the HTTP server. */
export class EmulatedGateway {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 4096 * 1024 });
  private readonly sessions = new Map<string, Session>();
  private readonly live = new Set<Connection>();
  private sessionCounter = 0;
  /** Every IDENTIFY received, in order. */
  readonly identifies: IdentifyRecord[] = [];
  /** Every connection accepted: the path and query it used. */
  readonly connects: { path: string; query: URLSearchParams }[] = [];
  /** RESUMEs that succeeded. */
  resumes = 0;
  /** RESUMEs answered with INVALID_SESSION. */
  invalidSessions = 0;
  /** Heartbeats received and ACKs sent. */
  heartbeats = 0;
  heartbeatAcks = 0;
  /** When false, heartbeats are counted but not ACKed (a zombie connection, from the client's view). */
  ackHeartbeats = true;
  /** Close codes the gateway sent, in order. */
  readonly closeCodes: number[] = [];

  constructor(private readonly opts: GatewayOptions) {}

  /** Accepts a WebSocket upgrade on a gateway path. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://x');
    if (!url.pathname.startsWith('/gateway')) {
      socket.destroy();
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, url));
  }

  /** Sessions with an open socket. */
  liveSessions(): number {
    let n = 0;
    for (const s of this.sessions.values()) if (s.socket?.readyState === WebSocket.OPEN) n++;
    return n;
  }

  /** Sends a dispatch to every session whose intents `build` accepts (it returns undefined to skip). */
  dispatch(t: string, build: (intents: number) => unknown): void {
    for (const s of this.sessions.values()) {
      const d = build(s.intents);
      if (d !== undefined) this.send(s, t, d);
    }
  }

  /** Sends a raw text frame to every open connection (malformed-input tests). */
  sendRaw(frame: string): void {
    for (const c of this.live) if (c.socket.readyState === WebSocket.OPEN) c.socket.send(frame);
  }

  /** Sends a dispatch with a raw `d` (any shape) and the next sequence number to every session. */
  sendDispatch(t: string, d: unknown): void {
    for (const s of this.sessions.values()) this.send(s, t, d);
  }

  /** Closes every connection with `code`; sessions stay resumable unless `invalidate`. */
  disconnectAll(code: number = Close.UnknownError, invalidate = false): void {
    for (const c of this.live) this.closeConn(c, code, 'emulator disconnect');
    if (invalidate) this.sessions.clear();
  }

  /**
   * Ends every session with no open connection (as Discord does after a while): a RESUME of one
   * gets INVALID_SESSION (op 9, not resumable) and the client has to IDENTIFY anew.
   */
  expireSessions(): number {
    let n = 0;
    for (const [id, s] of this.sessions)
      if (s.socket?.readyState !== WebSocket.OPEN) {
        this.sessions.delete(id);
        n++;
      }
    return n;
  }

  /**
   * Stops reading every open connection: a close frame the client sends is never answered, so its
   * close waits (a gateway that hangs at shutdown). `resumeReading` reads on again.
   */
  stopReading(): void {
    for (const c of this.live) c.socket.pause();
  }

  /** Reads the connections `stopReading` paused again (what the client sent meanwhile is then handled). */
  resumeReading(): void {
    for (const c of this.live) c.socket.resume();
  }

  /** Closes everything (the HTTP server closes separately). */
  close(): void {
    for (const c of this.live) c.socket.terminate();
    this.live.clear();
    this.sessions.clear();
    this.wss.close();
  }

  private accept(socket: WebSocket, url: URL): void {
    const conn: Connection = { socket };
    this.live.add(conn);
    this.connects.push({ path: url.pathname, query: url.searchParams });
    socket.on('close', (code) => {
      this.live.delete(conn);
      const session = conn.session;
      if (session?.socket !== socket) return;
      session.socket = null;
      // Like Discord: a client closing with 1000/1001 ends its session (no resume).
      if (!conn.closedByServer && (code === 1000 || code === 1001)) this.sessions.delete(session.id);
    });
    socket.on('error', () => undefined);
    const v = url.searchParams.get('v');
    if (v !== null && v !== '10') return this.closeConn(conn, Close.InvalidApiVersion, 'Invalid API version.');
    const encoding = url.searchParams.get('encoding');
    if (encoding !== null && encoding !== 'json')
      return this.closeConn(conn, Close.DecodeError, 'Only json encoding is emulated.');
    socket.on('message', (data, isBinary) => this.onFrame(conn, isBinary ? null : data.toString()));
    this.raw(conn, {
      op: Op.Hello,
      d: { heartbeat_interval: this.opts.heartbeatIntervalMs, _trace: ['["boxbot-emulator",{"micros":0}]'] },
    });
  }

  private onFrame(conn: Connection, text: string | null): void {
    let payload: { op?: unknown; d?: unknown };
    try {
      payload = JSON.parse(text ?? '') as typeof payload;
      if (typeof payload !== 'object' || payload === null) throw new Error('not an object');
    } catch {
      return this.closeConn(conn, Close.DecodeError, 'Error while decoding payload.');
    }
    const d = (payload.d ?? {}) as Record<string, unknown>;
    switch (payload.op) {
      case Op.Heartbeat:
        this.heartbeats++;
        if (!this.ackHeartbeats) return;
        this.heartbeatAcks++;
        return this.raw(conn, { op: Op.HeartbeatAck });
      case Op.Identify:
        return this.identify(conn, d);
      case Op.Resume:
        return this.resume(conn, d);
      case Op.PresenceUpdate:
      case Op.VoiceStateUpdate:
      case Op.RequestGuildMembers:
        if (!conn.session) return this.closeConn(conn, Close.NotAuthenticated, 'Not authenticated.');
        return;
      default:
        return this.closeConn(conn, Close.UnknownOpcode, 'Unknown opcode.');
    }
  }

  private identify(conn: Connection, d: Record<string, unknown>): void {
    if (conn.session) return this.closeConn(conn, Close.AlreadyAuthenticated, 'Already authenticated.');
    this.identifies.push({
      token: String(d.token),
      intents: Number(d.intents),
      properties: d.properties,
      shard: d.shard,
    });
    if (d.token !== this.opts.token) return this.closeConn(conn, Close.AuthenticationFailed, 'Authentication failed.');
    const intents = d.intents;
    if (typeof intents !== 'number' || !Number.isInteger(intents) || intents < 0 || (intents & ~ALL_INTENTS) !== 0) {
      return this.closeConn(conn, Close.InvalidIntents, 'Invalid intent(s).');
    }
    if ((intents & PRIVILEGED_INTENTS & ~this.opts.enabledPrivilegedIntents) !== 0) {
      return this.closeConn(conn, Close.DisallowedIntents, 'Disallowed intent(s).');
    }
    const session: Session = {
      id: `emu-session-${++this.sessionCounter}`,
      intents,
      seq: 0,
      buffer: [],
      socket: conn.socket,
    };
    this.sessions.set(session.id, session);
    conn.session = session;
    this.send(session, 'READY', this.opts.world.readyData({ id: session.id, resumeUrl: this.opts.resumeUrl() }));
    if (intents & Intent.Guilds) for (const g of this.opts.world.guildCreates()) this.send(session, 'GUILD_CREATE', g);
  }

  private resume(conn: Connection, d: Record<string, unknown>): void {
    if (conn.session) return this.closeConn(conn, Close.AlreadyAuthenticated, 'Already authenticated.');
    if (d.token !== this.opts.token) return this.closeConn(conn, Close.AuthenticationFailed, 'Authentication failed.');
    const session = typeof d.session_id === 'string' ? this.sessions.get(d.session_id) : undefined;
    const seq = typeof d.seq === 'number' ? d.seq : -1;
    const oldest = session?.buffer[0]?.[0] ?? (session ? session.seq + 1 : 0);
    if (!session || seq < oldest - 1 || seq > session.seq) {
      this.invalidSessions++;
      this.raw(conn, { op: Op.InvalidSession, d: false });
      return;
    }
    const previous = session.socket;
    if (previous && previous !== conn.socket) previous.terminate();
    session.socket = conn.socket;
    conn.session = session;
    this.resumes++;
    for (const [s, frame] of session.buffer) if (s > seq) conn.socket.send(frame);
    this.send(session, 'RESUMED', null);
  }

  private send(session: Session, t: string, d: unknown): void {
    const s = ++session.seq;
    const frame = JSON.stringify({ op: Op.Dispatch, t, s, d });
    session.buffer.push([s, frame]);
    if (session.buffer.length > BUFFER_LIMIT) session.buffer.splice(0, session.buffer.length - BUFFER_LIMIT);
    if (session.socket?.readyState === WebSocket.OPEN) session.socket.send(frame);
  }

  private raw(conn: Connection, payload: unknown): void {
    if (conn.socket.readyState === WebSocket.OPEN) conn.socket.send(JSON.stringify(payload));
  }

  private closeConn(conn: Connection, code: number, reason: string): void {
    this.closeCodes.push(code);
    conn.closedByServer = true;
    if (conn.socket.readyState === WebSocket.OPEN || conn.socket.readyState === WebSocket.CONNECTING)
      conn.socket.close(code, reason);
  }
}
