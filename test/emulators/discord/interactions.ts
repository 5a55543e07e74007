// Application commands and interactions as Discord runs them: commands registered by bulk
// overwrite (PUT /applications/:id/commands), INTERACTION_CREATE payloads for a command a user
// runs or a button a user presses, the callback (answered once; 5 = deferred message, 6 =
// deferred update, 4 = message), and the interaction webhook: @original edits, follow-ups,
// ephemeral messages (flag 64) that only the interaction's user sees. Tokens last 15 minutes.
import type { DiscordWorld, EmuChannel, EmuMessage, EmuUser } from './store.ts';

/** A registered chat-input command. */
export interface EmuCommand {
  id: string;
  name: string;
  description: string;
  options: { type: number; name: string; description: string; required?: boolean }[];
}

/** One interaction and what the bot did with it. */
export interface EmuInteraction {
  id: string;
  token: string;
  type: 2 | 3;
  userId: string;
  channelId: string;
  payload: Record<string, unknown>;
  /** The callback type the bot answered with (undefined: not answered yet). */
  response?: number;
  /** The deferred or immediate response message, once there is one. */
  originalId?: string;
}

/** A message only one user sees. */
export interface EphemeralMessage {
  userId: string;
  channelId: string;
  content: string;
}

/** What an interaction route answers: a body (or null for 204), or an error. */
export type RouteAnswer = { status: number; body: unknown } | undefined;

const OK = (body: unknown): RouteAnswer => ({ status: body === null ? 204 : 200, body });
const ERR = (status: number, message: string, code: number): RouteAnswer => ({ status, body: { message, code } });
const TOKEN_LIFETIME_MS = 15 * 60_000;

/** Commands, interactions and ephemeral messages of one emulator. */
export class Interactions {
  commands: EmuCommand[] = [];
  readonly all: EmuInteraction[] = [];
  readonly ephemeral: EphemeralMessage[] = [];
  private readonly byToken = new Map<string, EmuInteraction & { created: number }>();

  constructor(
    private readonly world: DiscordWorld,
    private readonly hooks: {
      botMessage(m: EmuMessage, kind: 'create' | 'update'): void;
      dispatch(payload: Record<string, unknown>): void;
    },
  ) {}

  /** `userId` runs `/name [value]` in `channelId` (the command must be registered). */
  runCommand(o: { channelId: string; userId: string; name: string; value?: string }): EmuInteraction {
    const cmd = this.commands.find((c) => c.name === o.name);
    if (!cmd) throw new Error(`command /${o.name} is not registered`);
    const option = cmd.options[0];
    if (o.value !== undefined && !option) throw new Error(`/${o.name} takes no option`);
    return this.create(o.channelId, o.userId, 2, {
      data: {
        id: cmd.id,
        name: cmd.name,
        type: 1,
        ...(o.value !== undefined && option ? { options: [{ name: option.name, type: 3, value: o.value }] } : {}),
      },
    });
  }

  /** `userId` presses the button `customId` under message `messageId` (it must be shown there). */
  press(o: { messageId: string; customId: string; userId: string }): EmuInteraction {
    const m = this.world.messages.get(o.messageId);
    const shown = (m?.components ?? []).some((row) =>
      ((row as { components?: { custom_id?: string }[] }).components ?? []).some((b) => b.custom_id === o.customId),
    );
    if (!m || !shown) throw new Error(`no button ${o.customId} under message ${o.messageId}`);
    const { edits: _e, allowed_mentions: _a, ...wire } = m;
    return this.create(m.channel_id, o.userId, 3, {
      data: { custom_id: o.customId, component_type: 2 },
      message: wire,
    });
  }

  /** Dispatches an interaction again (a replayed INTERACTION_CREATE). */
  replay(i: EmuInteraction): void {
    this.hooks.dispatch(i.payload);
  }

  /** Handles the interaction routes; undefined when `p` is not one of them. */
  route(method: string, p: string, body: unknown): RouteAnswer {
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    let r = /^\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(p);
    if (r && method === 'POST') return this.callback(r[1]!, r[2]!, b);
    r = /^\/webhooks\/(\d+)\/([^/]+)\/messages\/(@original|\d+)$/.exec(p);
    if (r && method === 'PATCH') return this.editResponse(r[2]!, r[3]!, b);
    r = /^\/webhooks\/(\d+)\/([^/]+)$/.exec(p);
    if (r && method === 'POST') return this.followUp(r[2]!, b);
    return undefined;
  }

  /** PUT/GET /applications/:id/commands (after the bot token was checked). */
  commandsRoute(method: string, body: unknown): RouteAnswer {
    if (method === 'GET') return OK(this.commands);
    if (method !== 'PUT') return undefined;
    if (!Array.isArray(body)) return ERR(400, 'Invalid Form Body', 50035);
    const out: EmuCommand[] = [];
    for (const c of body as Record<string, unknown>[]) {
      const name = c?.name;
      const description = c?.description;
      if (typeof name !== 'string' || !/^[-_\p{Ll}\p{N}]{1,32}$/u.test(name))
        return ERR(400, 'Invalid Form Body', 50035);
      if (typeof description !== 'string' || description.length < 1 || description.length > 100)
        return ERR(400, 'Invalid Form Body', 50035);
      const options = Array.isArray(c.options) ? (c.options as EmuCommand['options']) : [];
      out.push({ id: this.world.nextId(), name, description, options });
    }
    this.commands = out;
    return OK(out.map((c) => ({ ...c, type: 1, application_id: this.world.bot.id, version: '1' })));
  }

  private create(channelId: string, userId: string, type: 2 | 3, extra: Record<string, unknown>): EmuInteraction {
    const channel = this.world.channels.get(channelId);
    if (!channel) throw new Error(`no channel ${channelId}`);
    const user = this.world.user(userId);
    const id = this.world.nextId();
    const token = `emu-interaction-token-${id}`;
    const payload: Record<string, unknown> = {
      id,
      application_id: this.world.bot.id,
      type,
      token,
      version: 1,
      channel_id: channelId,
      channel: channelObject(channel),
      app_permissions: '1071698660929',
      locale: 'en-US',
      entitlements: [],
      authorizing_integration_owners: { '0': channel.guild_id ?? userId },
      context: channel.guild_id ? 0 : 1,
      ...(channel.guild_id
        ? {
            guild_id: channel.guild_id,
            guild_locale: 'en-US',
            member: { user: userObject(user), roles: [], joined_at: new Date(0).toISOString(), nick: null, flags: 0 },
          }
        : { user: userObject(user) }),
      ...extra,
    };
    const i: EmuInteraction & { created: number } = {
      id,
      token,
      type,
      userId,
      channelId,
      payload,
      created: Date.now(),
    };
    this.all.push(i);
    this.byToken.set(token, i);
    this.hooks.dispatch(payload);
    return i;
  }

  private live(token: string): (EmuInteraction & { created: number }) | undefined {
    const i = this.byToken.get(token);
    return i && Date.now() - i.created < TOKEN_LIFETIME_MS ? i : undefined;
  }

  private callback(id: string, token: string, b: Record<string, unknown>): RouteAnswer {
    const i = this.live(token);
    if (!i || i.id !== id) return ERR(404, 'Unknown interaction', 10062);
    if (i.response !== undefined) return ERR(400, 'Interaction has already been acknowledged.', 40060);
    const type = b.type;
    if (type === 5 || type === 4) {
      if (i.type !== 2 && type === 5) return ERR(400, 'Invalid Form Body', 50035);
      const data = (b.data ?? {}) as Record<string, unknown>;
      const ephemeral = typeof data.flags === 'number' && (data.flags & 64) !== 0;
      if (type === 4 && ephemeral) {
        this.ephemeral.push({ userId: i.userId, channelId: i.channelId, content: String(data.content ?? '') });
      } else {
        // A deferred response shows "is thinking…" (LOADING, flag 128) until it is filled in.
        const m = this.world.addMessage({
          channel_id: i.channelId,
          author: this.world.bot,
          content: type === 4 ? String(data.content ?? '') : '',
          mentions: [],
          flags: type === 5 ? 128 : 0,
          ...(Array.isArray(data.components) ? { components: data.components } : {}),
        });
        i.originalId = m.id;
        this.hooks.botMessage(m, 'create');
      }
    } else if (type === 6) {
      if (i.type !== 3) return ERR(400, 'Invalid Form Body', 50035);
    } else return ERR(400, 'Invalid Form Body', 50035);
    i.response = type;
    return OK(null);
  }

  private editResponse(token: string, which: string, b: Record<string, unknown>): RouteAnswer {
    const i = this.live(token);
    if (!i) return ERR(404, 'Unknown Webhook', 10015);
    const id = which === '@original' ? i.originalId : which;
    const m = id ? this.world.messages.get(id) : undefined;
    if (!m || m.author.id !== this.world.bot.id) return ERR(404, 'Unknown Message', 10008);
    if (typeof b.content === 'string') {
      if ([...b.content].length > 2000) return ERR(400, 'Invalid Form Body', 50035);
      m.content = b.content;
    }
    if (Array.isArray(b.components)) m.components = b.components;
    m.flags &= ~128;
    m.edited_timestamp = new Date().toISOString();
    m.edits++;
    this.hooks.botMessage(m, 'update');
    const { edits: _e, allowed_mentions: _a, ...wire } = m;
    return OK(wire);
  }

  private followUp(token: string, b: Record<string, unknown>): RouteAnswer {
    const i = this.live(token);
    if (!i) return ERR(404, 'Unknown Webhook', 10015);
    if (i.response === undefined) return ERR(400, 'Interaction has not been acknowledged.', 40060);
    const content = typeof b.content === 'string' ? b.content : '';
    if (content === '' || [...content].length > 2000) return ERR(400, 'Cannot send an empty message', 50006);
    if (typeof b.flags === 'number' && (b.flags & 64) !== 0) {
      this.ephemeral.push({ userId: i.userId, channelId: i.channelId, content });
      return OK({ id: this.world.nextId(), channel_id: i.channelId, content, flags: 64 });
    }
    const m = this.world.addMessage({ channel_id: i.channelId, author: this.world.bot, content, mentions: [] });
    this.hooks.botMessage(m, 'create');
    const { edits: _e, allowed_mentions: _a, ...wire } = m;
    return OK(wire);
  }
}

function userObject(u: EmuUser): Record<string, unknown> {
  return { ...u, public_flags: 0 };
}

function channelObject(c: EmuChannel): Record<string, unknown> {
  return {
    id: c.id,
    type: c.type,
    ...(c.guild_id ? { guild_id: c.guild_id } : {}),
    ...(c.parent_id ? { parent_id: c.parent_id } : {}),
    ...(c.name ? { name: c.name } : {}),
    flags: 0,
  };
}
