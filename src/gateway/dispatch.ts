// What an accepted message gets: a refusal, a command's reply, or a run in its conversation's
// queue. The same at the resume after a restart (a stranger's message or a command never reaches
// the agent). Commands and refusals are answered at once, outside the conversation's queue (/stop
// must reach the running turn), each checked first by the one access rule (command-access.ts).
// With replicas, the conversation's owner answers: dispatch hands the message to `pump`.
import type { InboundMessage } from '../adapters/index.ts';
import { historyPolicy } from '../config/history.ts';
import type { Config } from '../config/schema.ts';
import { errorMessage } from '../core/errors.ts';
import { type CommandCaller, commandAllowed, isAdmin, refusedCommandText } from '../runner/command-access.ts';
import type { Admission, ResolvedPolicy } from '../runner/policy.ts';
import type { CommandRegistry, GatewayCommandContext, ParsedCommand } from './commands/index.ts';
import type { Acceptance, ConversationQueue } from './conversation-queue.ts';
import type { GatewayContext } from './gateway-context.ts';

const STRANGER_REPLY = (msg: InboundMessage) =>
  `Sorry, I am not set up to talk with you here. An admin can allow your ${msg.platform} user id ${msg.userId} ` +
  `(allowFrom in boxbot.config.json).`;

/** What dispatch calls beyond the context. */
export interface DispatchDeps {
  commands: CommandRegistry<GatewayCommandContext>;
  queue: ConversationQueue;
  /** Replicas: runs the conversation's unanswered work where it is owned. */
  pump(key: string): Promise<void>;
  /** Replicas: gives up a conversation with nothing left to do here. */
  handOver(key: string): Promise<void>;
}

/** The dispatch of accepted messages. */
export interface Dispatch {
  /**
   * Dispatches an accepted message; replies outside the conversation's queue wait for `after`
   * (the adapters being up). `accepted`: the message's save, for an admitted message that runs the
   * agent dispatched while it is written, in a single process (its run waits for it: turn.ts).
   */
  dispatch(
    msg: InboundMessage,
    policy: ResolvedPolicy,
    admission: Admission,
    previewMessageId?: string,
    after?: Promise<void>,
    accepted?: Acceptance,
  ): void;
  /** Answers an accepted message here (replicas: this one owns its conversation). */
  answer(
    msg: InboundMessage,
    policy: ResolvedPolicy,
    admission: Admission,
    previewMessageId?: string,
    after?: Promise<void>,
  ): void;
}

/** The dispatch of the gateway `ctx`. */
export function createDispatch(ctx: GatewayContext, d: DispatchDeps): Dispatch {
  const { opts, log, metrics, owner, active, outside } = ctx;

  /** Revoked since a restart: the questions a refused message's run asked before are withdrawn (nothing will run). */
  function withdrawQuestions(msg: InboundMessage, after: Promise<void>): void {
    ctx.background(
      after.then(() => ctx.desk.refused(msg.id)),
      'questions of a refused message not withdrawn',
      'warn',
    );
  }

  /** A refused message nobody is told about: its earlier run's questions withdrawn, and it is marked answered. */
  function dropRefused(msg: InboundMessage, after: Promise<void>): void {
    withdrawQuestions(msg, after);
    ctx.background(opts.store.finish(msg.id), 'could not mark a refused message answered');
  }

  function dispatch(
    msg: InboundMessage,
    policy: ResolvedPolicy,
    admission: Admission,
    previewMessageId?: string,
    after: Promise<void> = Promise.resolve(),
    accepted?: Acceptance,
  ): void {
    if (accepted) {
      // Only an admitted message that runs the agent (intake checks it is no command) in a single
      // process waits for its save in its run; anything else is dispatched once saved.
      if (owner || !admission.admitted)
        throw new Error('only a run in a single process is dispatched before its message is saved');
      return d.queue.enqueue(msg, policy, undefined, accepted);
    }
    if (!admission.admitted) {
      if (!admission.reply) return dropRefused(msg, after);
      withdrawQuestions(msg, after);
    }
    if (owner) {
      // Replicas: the conversation's owner runs it (commands too: /stop must reach the run), and
      // sends refusals: the message stays unanswered until its reply is delivered, and a replica
      // sweeping meanwhile would otherwise send the reply again.
      ctx.background(
        after.then(() => d.pump(msg.conversationKey)),
        'conversation not taken',
      );
      return;
    }
    answer(msg, policy, admission, previewMessageId, after);
  }

  function answer(
    msg: InboundMessage,
    policy: ResolvedPolicy,
    admission: Admission,
    previewMessageId?: string,
    after: Promise<void> = Promise.resolve(),
  ): void {
    if (!admission.admitted) {
      if (!admission.reply) return dropRefused(msg, after);
      metrics.refused.inc({ platform: msg.platform, reason: admission.reason });
      log.info(
        { platform: msg.platform, userId: msg.userId, chatId: msg.chatId },
        'message from a user not in allowFrom refused',
      );
      return outsideQueue(msg, after, () => ctx.replyNow(msg, STRANGER_REPLY(msg)), 'refusal not delivered');
    }
    const cmd = d.commands.parse(msg.text);
    if (cmd) return runCommand(msg, policy, cmd, after);
    d.queue.enqueue(msg, policy, previewMessageId);
  }

  /** A command's reply at once, outside the conversation's queue; checked first by one rule, as tools are. */
  function runCommand(
    msg: InboundMessage,
    policy: ResolvedPolicy,
    cmd: ParsedCommand<GatewayCommandContext>,
    after: Promise<void>,
  ): void {
    const caller: CommandCaller = { isDirect: msg.isDirect, admin: isAdmin(opts.config, msg) };
    const allowed = commandAllowed(cmd.command.access, policy, caller);
    if (!allowed.ok) {
      log.info({ platform: msg.platform, userId: msg.userId, command: cmd.name }, 'command refused by access');
      const text = refusedCommandText(cmd.name, allowed.reason);
      return outsideQueue(msg, after, () => ctx.replyNow(msg, text), 'refusal not delivered');
    }
    const run = () => cmd.command.run(commandContext(msg, policy, caller, cmd.arg));
    outsideQueue(msg, after, run, `command failed (/${cmd.name})`);
  }

  /** What a command run for `msg` reaches (GatewayCommandContext). */
  function commandContext(
    msg: InboundMessage,
    policy: ResolvedPolicy,
    caller: CommandCaller,
    arg: string | undefined,
  ): GatewayCommandContext {
    const key = msg.conversationKey;
    return {
      message: msg,
      policy,
      caller,
      ...(arg ? { arg } : {}),
      reply: (text) => ctx.replyNow(msg, text),
      agent: opts.agent,
      // Read, not created: a conversation with nothing queued keeps no state for a command's sake.
      conversation: ctx.conversations.get(key) ?? { tail: Promise.resolve(), queued: 0 },
      approvals: ctx.desk,
      chosenPolicy: () => ctx.withChosenModel(key, policy),
      helpText: () => d.commands.helpText((level) => commandAllowed(level, policy, caller).ok),
      behindTurns: (id, work, what) => d.queue.chain(key, id, work, what),
      finish: () => opts.store.finish(msg.id),
      stopping: ctx.stopped.signal,
      ...recordedDays(opts.config, msg),
    };
  }

  /**
   * Answers `msg` outside its conversation's run queue (a command, a refusal), once at a time.
   * Replicas: the conversation is kept meanwhile (not handed over while its message is unanswered,
   * where another replica's sweep would answer it again), and given up after.
   */
  function outsideQueue(msg: InboundMessage, after: Promise<void>, work: () => Promise<void>, what: string): void {
    if (active.has(msg.id)) return;
    active.add(msg.id);
    const key = msg.conversationKey;
    outside.set(key, (outside.get(key) ?? 0) + 1);
    let answered = false;
    void ctx
      .track(
        after.then(async () => {
          if (owner && !owner.owns(key)) return; // its lease was lost meanwhile: not ours to answer
          await work();
          answered = true;
        }),
      )
      .catch((e: unknown) => log.error({ err: errorMessage(e) }, what))
      .finally(() => {
        active.delete(msg.id);
        const left = (outside.get(key) ?? 1) - 1;
        if (left > 0) return void outside.set(key, left);
        outside.delete(key);
        // Unanswered (it failed): given up without looking again at once; a later sweep retries it.
        if (owner && !ctx.stopping() && !ctx.conversations.has(key))
          ctx.background(answered ? d.handOver(key) : owner.release(key), 'conversation not handed over', 'warn');
      });
  }

  return { dispatch, answer };
}

/** `{ recordedDays }` when the message's channel is recorded (history.record), for /status. */
function recordedDays(config: Config, msg: InboundMessage): { recordedDays?: number } {
  const h = historyPolicy(config, msg.platform, msg.chatId);
  return h.record ? { recordedDays: h.days } : {};
}
