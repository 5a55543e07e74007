// Cost and context windows: known models priced from the table (incl. cache tokens and dated snapshot
// names), unknown models and third-party routes left unknown rather than guessed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contextWindowOf, costOf, DEFAULT_MODELS, priceOf } from '../../../src/agent/providers/index.ts';

const usage = {
  inputTokens: 1_000_000,
  outputTokens: 1_000_000,
  cacheReadTokens: 1_000_000,
  cacheWriteTokens: 1_000_000,
};

describe('pricing', () => {
  it('prices Anthropic models including cache reads and writes', () => {
    assert.equal(
      costOf(DEFAULT_MODELS.anthropic!, usage),
      2 + 10 + 0.1 + 2.5,
      'the default model (claude-sonnet-5-5) has a price',
    );
    assert.equal(costOf('anthropic/claude-opus-5-5', usage), 4 + 20 + 0.2 + 5);
    assert.equal(costOf('anthropic/claude-sonnet-4-5', usage), 3 + 15 + 0.3 + 3.75);
    assert.equal(
      costOf('anthropic/claude-haiku-4-5', { inputTokens: 2000, outputTokens: 500 }),
      (2000 * 1 + 500 * 5) / 1e6,
    );
  });

  it('prices OpenAI models; cache writes cost the input price', () => {
    assert.equal(
      costOf(DEFAULT_MODELS.openai!, usage),
      2.5 + 15 + 0.25 + 2.5,
      'the default model (gpt-5.4) has a price',
    );
    assert.equal(costOf('openai/gpt-4o', usage), 2.5 + 10 + 1.25 + 2.5);
    assert.equal(costOf('gpt-4o-mini', { inputTokens: 1_000_000, outputTokens: 0 }), 0.15);
  });

  it('leaves models out rather than guess: prompt-length price bands and retired models are unknown', () => {
    assert.equal(costOf('anthropic/claude-haiku-5-5', usage), undefined);
    assert.equal(costOf('anthropic/claude-opus-4-1', usage), undefined);
  });

  it('recognises dated snapshots and -latest aliases', () => {
    assert.deepEqual(priceOf('anthropic/claude-sonnet-4-5-20250929'), priceOf('anthropic/claude-sonnet-4-5'));
    assert.deepEqual(priceOf('openai/gpt-4o-2024-08-06'), priceOf('openai/gpt-4o'));
    assert.deepEqual(priceOf('claude-3-5-haiku-latest'), priceOf('claude-3-5-haiku'));
  });

  it('leaves unknown models and other routes unknown', () => {
    assert.equal(costOf('anthropic/claude-unknown-9', usage), undefined);
    assert.equal(costOf('ollama/llama3.1', usage), undefined);
    assert.equal(costOf('openrouter/openai/gpt-4o', usage), undefined, 'a router prices differently');
  });

  it('knows context windows of common models', () => {
    assert.equal(contextWindowOf('anthropic/claude-sonnet-5-5'), 1_000_000);
    assert.equal(contextWindowOf('anthropic/claude-sonnet-4-5'), 200_000);
    // Past 272K input tokens gpt-5.4 bills more than its row says, so compaction keeps the history under that.
    assert.equal(contextWindowOf('openai/gpt-5.4'), 272_000);
    assert.equal(contextWindowOf('openai/gpt-4o'), 128_000);
    assert.equal(contextWindowOf('openai/gpt-4.1-mini'), 1_047_576);
    assert.equal(contextWindowOf('groq/llama-3.3-70b-versatile'), undefined);
  });
});

describe('pricing of the added providers', () => {
  const million = { inputTokens: 1_000_000, outputTokens: 1_000_000, cacheReadTokens: 1_000_000 };
  /** Dollar amounts compared to the cent's ten-thousandth (sums of float prices). */
  const near = (actual: number | undefined, expected: number) =>
    assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-6, `${actual} ≈ ${expected}`);

  it('prices Anthropic models on Bedrock and Vertex by the model inside the host id', () => {
    const list = costOf('anthropic/claude-sonnet-4-5', million);
    assert.equal(costOf('bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0', million), list);
    near(costOf('bedrock/anthropic.claude-haiku-4-5-20251001-v1:0', million), 1 + 5 + 0.1);
    assert.equal(costOf('vertex/claude-sonnet-4-5@20250929', million), list);
    assert.equal(costOf('bedrock/meta.llama3-70b-instruct-v1:0', million), undefined, 'not a Claude model');
  });

  it('prices Gemini, Cohere, Kimi K3 and K2.5 and MiniMax M3; an Azure deployment named after its model', () => {
    near(costOf('gemini/gemini-2.5-flash', million), 0.3 + 2.5 + 0.03);
    near(costOf('cohere/command-r-08-2024', million), 0.15 + 0.6 + 0.15);
    near(costOf('moonshot/kimi-k3', million), 3 + 15 + 0.3);
    near(costOf('moonshot/kimi-k2.5', million), 0.6 + 3 + 0.1);
    near(costOf('minimax/MiniMax-M3', million), 0.6 + 2.4 + 0.06);
    assert.equal(costOf('azure/gpt-4o', million), costOf('openai/gpt-4o', million));
    assert.equal(costOf('azure/my-prod-deployment', million), undefined, 'a deployment name says nothing of its model');
  });

  it("does not price one vendor's model under another's prefix", () => {
    assert.equal(costOf('gemini/gpt-4o', million), undefined);
    assert.equal(costOf('cohere/claude-sonnet-4-5', million), undefined);
    assert.equal(costOf('perplexity/gpt-4o', million), undefined);
    assert.equal(costOf('novita/moonshotai/kimi-k2.6', million), undefined, "a host's price is not the vendor's");
    assert.equal(costOf('siliconflow/moonshotai/kimi-k2.5', million), undefined, 'each host is priced on its own');
  });

  it("charges Perplexity's request fee once per call, on top of its tokens", () => {
    const none = { inputTokens: 0, outputTokens: 0 };
    near(costOf('perplexity/sonar-pro', none), 0.014);
    near(costOf('perplexity/sonar-pro', { inputTokens: 1_000_000, outputTokens: 1_000_000 }), 3 + 15 + 0.014);
    assert.equal(priceOf('perplexity/sonar-pro')?.perRequest, 0.014);
    assert.equal(priceOf('openai/gpt-4o')?.perRequest, undefined, 'no fee where none is published');
  });

  it("prices Kimi K2.6 at Moonshot's rate and open-weight models at each host's own", () => {
    near(costOf('moonshot/kimi-k2.6', million), 0.95 + 4 + 0.16);
    near(costOf('nebius/Qwen/Qwen3-235B-A22B-Instruct-2507', million), 0.2 + 0.6 + 0.2);
    near(costOf('novita/moonshotai/kimi-k2.5', million), 0.6 + 3 + 0.6);
    assert.notEqual(costOf('novita/moonshotai/kimi-k2.5', million), costOf('moonshot/kimi-k2.5', million));
    assert.equal(contextWindowOf('nebius/Qwen/Qwen3-235B-A22B-Instruct-2507'), 262_144);
  });
});
