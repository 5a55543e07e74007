// A chat turn and a job's run become agent runs through one function (toAgentPolicy): the same
// resolved policy gives the same agent policy on both paths, and a job's narrowed policy never
// lets a run do more than its creator's chat turns may.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AgentPolicy } from '../../src/agent/index.ts';
import { approvalReasons, permitsWithApproval } from '../../src/agent/tools/approvals.ts';
import { PERMISSION_LEVELS } from '../../src/agent/tools/grants.ts';
import { type RunSettings, toAgentPolicy } from '../../src/runner/agent-policy.ts';
import { conversationPolicy, type PolicyLimits } from '../../src/runner/policy.ts';
import { DEFAULT_LIMITS } from '../../src/sandbox/index.ts';
import { jobAgentPolicy } from '../../src/scheduler/run-job.ts';
import type { JobRecord } from '../../src/store/index.ts';
import { loadedConfig } from '../scheduler/helpers.ts';

const CHAT = '-100123';
const TARGET = `telegram:${CHAT}`;
const sandbox: RunSettings['sandbox'] = { block: ['private'], limits: DEFAULT_LIMITS };
const WORKSPACE = '/data/workspaces/telegram%3A-100123';

const job = (over: Partial<JobRecord> = {}): JobRecord => ({
  id: 'j',
  name: 'digest',
  cron: '0 3 * * *',
  prompt: 'p',
  target: TARGET,
  access: 'full',
  timeoutMs: 60_000,
  enabled: true,
  overlap: 'skip',
  ...over,
});

/** The policy fields a run carries, without what only a job's run sets. */
function policyPart(p: AgentPolicy): AgentPolicy {
  const { systemPrompt: _prompt, timeoutMs: _timeout, budgetUsd: _budget, maxTurns: _turns, ...rest } = p;
  if (!rest.approvals) return rest;
  const { allowEscalation: _escalation, ...approvals } = rest.approvals;
  return { ...rest, approvals };
}

const CHAT_CONFIGS: Record<string, unknown>[] = [
  { access: 'full' },
  { access: 'read-only', tools: { deny: ['bash'] } },
  {
    access: 'full',
    tools: { allow: ['read', 'write', 'bash'], deny: ['bash'] },
    network: { allow: ['https://api.example.com', 'https://*.docs.example'] },
    model: 'openai/gpt-4o',
    models: ['openai/gpt-4o-mini'],
    approvals: { levels: ['Execute'], tools: ['write'], approvers: ['7'], afterUntrusted: true, timeoutMs: 5000 },
  },
  { access: 'chat-only', approvals: { allowEscalation: true } },
];

test('a job and a chat turn under the same resolved policy get the same agent policy', () => {
  for (const chat of CHAT_CONFIGS) {
    const loaded = loadedConfig('/nonexistent', { channels: { telegram: { chats: { [CHAT]: chat } } } });
    const resolved = conversationPolicy(loaded.config, TARGET);
    const ofChat = toAgentPolicy(resolved, { workspace: WORKSPACE, sandbox, timeoutMs: 120_000, maxTurns: 20 });
    // A job the conversation scheduled carries its policy (as the schedule tool keeps it).
    const carried: PolicyLimits = {
      access: resolved.access,
      tools: resolved.tools,
      network: resolved.network,
      ...(resolved.model ? { model: resolved.model } : {}),
      ...(resolved.models ? { models: resolved.models } : {}),
      ...(resolved.approvals ? { approvals: resolved.approvals } : {}),
    };
    const ofJob = jobAgentPolicy(
      { job: job({ access: resolved.access, policy: carried }), loaded, workspace: WORKSPACE, budgetUsd: 0.5 },
      sandbox,
    );
    assert.deepEqual(policyPart(ofJob), policyPart(ofChat), JSON.stringify(chat));
    // What only the job's run sets: its prompt, timeout and budget, and nobody to escalate to.
    assert.equal(ofJob.timeoutMs, 60_000);
    assert.equal(ofJob.budgetUsd, 0.5);
    assert.match(ofJob.systemPrompt ?? '', /scheduled job "digest"/);
    if (ofJob.approvals) assert.equal(ofJob.approvals.allowEscalation, false);
  }
});

test('toAgentPolicy keeps the sandbox settings and the policy fields, and nothing else of the policy', () => {
  const loaded = loadedConfig('/nonexistent', {
    channels: {
      telegram: { allowFrom: ['1'], chats: { [CHAT]: { systemPrompt: 'be brief', budget: { userUsdPerDay: 1 } } } },
    },
  });
  const p = toAgentPolicy(conversationPolicy(loaded.config, TARGET), { workspace: WORKSPACE, sandbox });
  assert.deepEqual(p, {
    access: 'read-only',
    tools: {},
    workspace: WORKSPACE,
    network: { allow: [], block: ['private'] },
    limits: DEFAULT_LIMITS,
    ...(loaded.config.model ? { model: loaded.config.model } : {}),
    systemPrompt: 'be brief',
  });
});

/** A small deterministic generator (the same cases every run). */
function random(seed: number) {
  let s = seed;
  const next = () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const some = <T>(xs: readonly T[]): T[] => xs.filter(() => next() < 0.5);
  const maybe = <T>(x: T): T | undefined => (next() < 0.5 ? x : undefined);
  return { pick, some, maybe };
}

const TOOLS = ['read', 'write', 'bash', 'web_fetch', 'schedule'];
const HOSTS = ['https://a.example', 'https://b.example', 'https://*.c.example', 'https://x.c.example'];
const MODELS = ['openai/gpt-4o', 'openai/gpt-4o-mini', 'anthropic/claude-sonnet-4-5'];
const ACCESS = ['full', 'read-only', 'chat-only'] as const;

test('a job’s narrowed agent policy is never wider than its creator’s', () => {
  const r = random(26);
  // Lists are left out rather than empty (the config schema wants at least one entry).
  const list = <T>(xs: readonly T[]): T[] | undefined => {
    const picked = r.maybe(r.some(xs));
    return picked?.length ? picked : undefined;
  };
  const policy = () => {
    const allow = list(TOOLS);
    const deny = list(TOOLS);
    const levels = list(PERMISSION_LEVELS);
    const guarded = list(TOOLS);
    const approvers = list(['1', '2', '3']);
    const approvals = r.maybe({
      ...(levels ? { levels } : {}),
      ...(guarded ? { tools: guarded } : {}),
      ...(r.maybe(true) ? { afterUntrusted: true } : {}),
      ...(r.maybe(true) ? { allowEscalation: true } : {}),
      ...(approvers ? { approvers } : {}),
    });
    const models = list(MODELS);
    const model = r.maybe(r.pick(MODELS));
    return {
      access: r.pick(ACCESS),
      tools: { ...(allow ? { allow } : {}), ...(deny ? { deny } : {}) },
      network: { allow: r.some(HOSTS) },
      ...(model ? { model } : {}),
      ...(models ? { models } : {}),
      ...(approvals ? { approvals } : {}),
    };
  };
  for (let i = 0; i < 300; i++) {
    const creator = policy();
    const target = policy();
    const loaded = loadedConfig('/nonexistent', { channels: { telegram: { chats: { [CHAT]: target } } } });
    const jobModel = r.maybe(r.pick(MODELS));
    const ofJob = jobAgentPolicy(
      {
        job: job({ access: r.pick(ACCESS), policy: creator, ...(jobModel ? { model: jobModel } : {}) }),
        loaded,
        workspace: WORKSPACE,
      },
      sandbox,
    );
    const ofCreator = toAgentPolicy(creator, { workspace: WORKSPACE, sandbox });
    const what = JSON.stringify({ creator, target, jobModel });
    for (const name of TOOLS)
      for (const level of PERMISSION_LEVELS) {
        const j = permitsWithApproval(ofJob, ofJob.approvals, name, level);
        if (!j.ok) continue;
        const c = permitsWithApproval(ofCreator, ofCreator.approvals, name, level);
        assert.ok(c.ok, `${name} (${level}) offered to the job, not to its creator: ${what}`);
        // Whatever waits for a person in the creator's runs waits (or is refused) in the job's.
        for (const tainted of [false, true]) {
          const creatorAsks = approvalReasons(ofCreator.approvals, name, level, c.escalation, tainted);
          const jobAsks = approvalReasons(ofJob.approvals, name, level, j.escalation, tainted);
          assert.ok(!creatorAsks.length || jobAsks.length, `${name} (${level}) unguarded in the job: ${what}`);
        }
      }
    for (const host of ofJob.network.allow)
      assert.ok(
        ofCreator.network.allow.includes(host) || ofCreator.network.allow.some((h) => h.startsWith('https://*.')),
        `host ${host} beyond the creator's: ${what}`,
      );
    // A creator's models are its `model` and `models`; one that names neither is not limited.
    const creatorModels = [...(creator.model ? [creator.model] : []), ...(creator.models ?? [])];
    if (creatorModels.length)
      for (const m of ofJob.models ?? []) assert.ok(creatorModels.includes(m), `model ${m}: ${what}`);
    const approvers = ofJob.approvals?.approvers;
    const creatorApprovers = ofCreator.approvals?.approvers;
    if (Array.isArray(creatorApprovers))
      assert.ok(Array.isArray(approvers) && approvers.every((a) => creatorApprovers.includes(a)), what);
    assert.notEqual(ofJob.approvals?.allowEscalation, true, 'nobody can approve an escalation in a job');
  }
});
