// Cost and context size per model. Unknown models still have their tokens counted; their cost
// is `undefined` (unknown), never a guessed number.
import type { Usage } from '../types.ts';

/** USD per 1M tokens. `cacheWrite` absent: cache writes cost the input price (OpenAI has no write surcharge). */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite?: number;
  /** USD per call on top of the tokens (Perplexity's search fee); absent: none. */
  perRequest?: number;
}

interface ModelInfo extends ModelPrice {
  contextWindow: number;
}

// List prices as published by Anthropic and OpenAI, checked 2026-11-22 (standard tier, USD per 1M tokens;
// Anthropic cache writes at the 5-minute rate). Verify against the vendors' pages before relying on them.
// Left out on purpose: models priced in bands by prompt length that a flat row would under-report
// (claude-haiku-5-5), and models the installed SDKs do not know yet.
const MODELS: Readonly<Record<string, ModelInfo>> = Object.freeze({
  // Anthropic. Sonnet 5.5 cache reads were cut from $0.20 to $0.10 on 2026-10-07.
  'claude-fable-5-1': { input: 10, output: 50, cacheRead: 0.25, cacheWrite: 12.5, contextWindow: 1_000_000 },
  'claude-opus-5-5': { input: 4, output: 20, cacheRead: 0.2, cacheWrite: 5, contextWindow: 1_000_000 },
  'claude-opus-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25, contextWindow: 1_000_000 },
  'claude-sonnet-5-5': { input: 2, output: 10, cacheRead: 0.1, cacheWrite: 2.5, contextWindow: 1_000_000 },
  'claude-sonnet-5': { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5, contextWindow: 1_000_000 },
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25, contextWindow: 200_000 },
  // end of life 2026-11-30
  'claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, contextWindow: 200_000 },
  'claude-3-7-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, contextWindow: 200_000 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25, contextWindow: 200_000 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1, contextWindow: 200_000 },
  'claude-3-haiku': { input: 0.25, output: 1.25, cacheRead: 0.03, cacheWrite: 0.3, contextWindow: 200_000 },
  // OpenAI. gpt-5.4 takes 1,050,000 tokens, but prompts over 272K are billed at a higher rate this flat row
  // does not model, so its window here is the 272K band: compaction keeps the history inside it.
  'gpt-5.4': { input: 2.5, output: 15, cacheRead: 0.25, contextWindow: 272_000 },
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125, contextWindow: 400_000 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025, contextWindow: 400_000 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cacheRead: 0.005, contextWindow: 400_000 },
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5, contextWindow: 1_047_576 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1, contextWindow: 1_047_576 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cacheRead: 0.025, contextWindow: 1_047_576 },
  'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25, contextWindow: 128_000 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075, contextWindow: 128_000 },
  o3: { input: 2, output: 8, cacheRead: 0.5, contextWindow: 200_000 },
  'o3-mini': { input: 1.1, output: 4.4, cacheRead: 0.55, contextWindow: 200_000 },
  'o4-mini': { input: 1.1, output: 4.4, cacheRead: 0.275, contextWindow: 200_000 },
  o1: { input: 15, output: 60, cacheRead: 7.5, contextWindow: 200_000 },
  // Google Gemini API (paid tier, text), checked 2026-11-27 against Google's pricing page as quoted by third-party
  // price tables. gemini-2.5-pro doubles its rates over 200K prompt tokens; its window here is that band.
  'gemini-2.5-pro': { input: 1.25, output: 10, cacheRead: 0.125, contextWindow: 200_000 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cacheRead: 0.03, contextWindow: 1_048_576 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4, cacheRead: 0.01, contextWindow: 1_048_576 },
  // Cohere, checked 2026-11-27 (cohere.com/pricing as captured 2026-11-11; Command A from gateways' tables). Cohere
  // bills no separate cache rate: a cached token costs the input price.
  'command-a-03-2025': { input: 2.5, output: 10, cacheRead: 2.5, contextWindow: 256_000 },
  'command-r-plus-08-2024': { input: 2.5, output: 10, cacheRead: 2.5, contextWindow: 128_000 },
  'command-r-08-2024': { input: 0.15, output: 0.6, cacheRead: 0.15, contextWindow: 128_000 },
  'command-r7b-12-2024': { input: 0.0375, output: 0.15, cacheRead: 0.0375, contextWindow: 128_000 },
  // Moonshot (platform.kimi.ai/docs/pricing/chat-k3, via a cited price update, 2026-07) and MiniMax (M3 standard
  // rate, 2026-06), checked 2026-11-27. Other Kimi (kimi-k2.6 included) and MiniMax models, and the other compatible
  // services' models, are not listed: no vendor page of theirs gave a USD rate we could confirm (docs/providers.md).
  'kimi-k3': { input: 3, output: 15, cacheRead: 0.3, contextWindow: 262_144 },
  // Moonshot's own table (platform.moonshot.ai/docs/pricing/chat, USD, as archived 2026-03-26), checked 2026-11-28.
  'kimi-k2.5': { input: 0.6, output: 3, cacheRead: 0.1, contextWindow: 262_144 },
  'MiniMax-M3': { input: 0.6, output: 2.4, cacheRead: 0.06, contextWindow: 512_000 },
  // Rates below as recorded, with the vendor page each cites, in Pydantic's genai-prices catalog (npm
  // @pydantic/genai-prices 0.1.8), checked 2026-11-28: the vendors' own pages were not reachable from here.
  // Moonshot's K2.6 page (platform.kimi.ai/docs/pricing/chat-k26).
  'kimi-k2.6': { input: 0.95, output: 4, cacheRead: 0.16, contextWindow: 262_144 },
  // Perplexity (docs.perplexity.ai pricing): the request fee depends on the search context size, which boxbot
  // does not set; the highest one ($14 per 1,000 requests) is charged, so a budget over-reports, never under.
  'sonar-pro': { input: 3, output: 15, cacheRead: 3, perRequest: 0.014, contextWindow: 200_000 },
});

// Open-weight models priced per host (`provider/model` exactly): the host's own rate, as the catalog above records
// it from Hugging Face's inference router, which bills each host's price. No cache rate is published: a cached
// token costs the input price.
const HOSTED: Readonly<Record<string, ModelInfo>> = Object.freeze({
  'nebius/Qwen/Qwen3-235B-A22B-Instruct-2507': { input: 0.2, output: 0.6, cacheRead: 0.2, contextWindow: 262_144 },
  'novita/moonshotai/kimi-k2.5': { input: 0.6, output: 3, cacheRead: 0.6, contextWindow: 262_144 },
});

const claude = /^claude-/;
const openai = /^(gpt-|o\d)/;

/**
 * Providers whose model names are the vendors' own, with the families each serves; other prefixes (groq/,
 * openrouter/...) price differently. Azure deployments are priced when named after their model (`azure/gpt-4o`)
 * at OpenAI's list price (Azure's global deployments; regional ones cost more). Bedrock and Vertex are priced at
 * Anthropic's list price (their global endpoints; regional endpoints add 10% on Claude 4.5 and later, not modelled).
 */
const VENDOR_FAMILIES: Readonly<Record<string, RegExp>> = {
  anthropic: claude,
  openai,
  azure: openai,
  bedrock: claude,
  vertex: claude,
  gemini: /^gemini-/,
  cohere: /^command-/,
  moonshot: /^kimi-/,
  minimax: /^MiniMax-/,
  perplexity: /^sonar/,
};

/**
 * The vendor's model name inside a cloud host's model id: Bedrock's `us.anthropic.claude-sonnet-4-5-20250929-v1:0`
 * and Vertex's `claude-sonnet-4-5@20250929` are claude-sonnet-4-5-20250929.
 */
export function hostModelName(name: string): string {
  return name
    .replace(/^(?:[a-z]{2,6}\.)?anthropic\./, '')
    .replace(/-v\d+(?::\d+)?$/, '')
    .replace(/@(\d{8})$/, '-$1');
}

/**
 * The model a dated snapshot or alias stands for: claude-sonnet-4-5-20250929, gpt-4o-2024-08-06,
 * claude-3-5-haiku-latest.
 */
export function baseModelName(name: string): string {
  return name.replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/, '');
}

function infoOf(modelId: string): ModelInfo | undefined {
  const hosted = HOSTED[modelId];
  if (hosted) return hosted;
  let name = modelId;
  const slash = modelId.indexOf('/');
  if (slash >= 0) {
    const family = VENDOR_FAMILIES[modelId.slice(0, slash)];
    name = hostModelName(modelId.slice(slash + 1));
    if (!family?.test(name)) return undefined;
  }
  return MODELS[name] ?? MODELS[baseModelName(name)];
}

/** The price of `modelId` (`provider/model` or a bare vendor model name), or undefined when unknown. */
export function priceOf(modelId: string): ModelPrice | undefined {
  const info = infoOf(modelId);
  return (
    info && {
      input: info.input,
      output: info.output,
      cacheRead: info.cacheRead,
      ...(info.cacheWrite !== undefined ? { cacheWrite: info.cacheWrite } : {}),
      ...(info.perRequest !== undefined ? { perRequest: info.perRequest } : {}),
    }
  );
}

/** USD cost of one call's usage (its request fee included), or undefined when the model's price is unknown. */
export function costOf(modelId: string, usage: Usage): number | undefined {
  const p = infoOf(modelId);
  if (!p) return undefined;
  const usd =
    usage.inputTokens * p.input +
    usage.outputTokens * p.output +
    (usage.cacheReadTokens ?? 0) * p.cacheRead +
    (usage.cacheWriteTokens ?? 0) * (p.cacheWrite ?? p.input);
  return usd / 1_000_000 + (p.perRequest ?? 0);
}

/** The model's context window in tokens, or undefined when unknown. */
export function contextWindowOf(modelId: string): number | undefined {
  return infoOf(modelId)?.contextWindow;
}

/** One model the config names whose price is unknown, and why that matters there. */
export interface UnpricedModel {
  spec: string;
  /** A USD budget is set somewhere in the config: it cannot stop this model's spending. */
  budgeted: boolean;
  detail: string;
}

/** Whether a config (or any part of it) sets a USD budget: a policy's `budget` or an executor's `budgetUsd`. */
function setsBudget(node: unknown): boolean {
  if (!node || typeof node !== 'object') return false;
  return Object.entries(node).some(
    ([k, v]) =>
      (k === 'budget' && v && typeof v === 'object') || (k === 'budgetUsd' && typeof v === 'number') || setsBudget(v),
  );
}

/** Every `model`, `fallbackModel` and `models` entry in a config subtree. */
function namedModels(node: unknown, out: Set<string>): Set<string> {
  if (!node || typeof node !== 'object') return out;
  for (const [k, v] of Object.entries(node)) {
    if ((k === 'model' || k === 'fallbackModel') && typeof v === 'string') out.add(v);
    else if (k === 'models' && Array.isArray(v)) {
      for (const m of v) if (typeof m === 'string') out.add(m);
    } else namedModels(v, out);
  }
  return out;
}

/**
 * The models a config names (default, fallback, channels', executors') that have no price here, for doctor: their
 * tokens are counted but their cost is unknown, so a USD budget cannot stop them. Example:
 * `unpricedModels(config, 'qwen/qwen-plus')` → `[{ spec: 'qwen/qwen-plus', budgeted: false, detail }]`.
 */
export function unpricedModels(
  config: { channels?: unknown; agents?: unknown; fallbackModel?: string | undefined; budget?: unknown },
  defaultSpec: string | undefined,
): UnpricedModel[] {
  const specs = namedModels({ channels: config.channels, agents: config.agents }, new Set());
  if (config.fallbackModel) specs.add(config.fallbackModel);
  if (defaultSpec) specs.add(defaultSpec);
  const budgeted = setsBudget({ budget: config.budget, channels: config.channels, agents: config.agents });
  return [...specs]
    .filter((spec) => spec.includes('/') && !priceOf(spec))
    .sort()
    .map((spec) => ({
      spec,
      budgeted,
      detail: budgeted
        ? `no price is known for ${spec}: its tokens are counted but its cost is unknown, so the USD budgets in ` +
          'the config cannot stop its spending (use a priced model where a budget applies)'
        : `no price is known for ${spec}: its tokens are counted, its cost is reported as unknown`,
    }));
}
