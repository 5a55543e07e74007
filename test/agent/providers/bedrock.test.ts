// Amazon Bedrock (Anthropic's Bedrock SDK) runs the provider contract: SigV4-signed
// InvokeModelWithResponseStream answered in AWS event-stream framing by the emulator.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveModel } from '../../../src/agent/providers/index.ts';
import { configSchema } from '../../../src/config/schema.ts';
import { sigV4Problem } from '../../emulators/llm/bedrock-wire.ts';
import { llm, startLlmEmulator } from '../../emulators/llm/index.ts';
import { collect, providerContract, request } from './contract.ts';

const KEYS = { AWS_ACCESS_KEY_ID: 'AKIDBOXBOTTEST', AWS_SECRET_ACCESS_KEY: 'test-secret-bedrock' };

providerContract({
  provider: 'bedrock',
  api: 'anthropic',
  keyEnv: 'AWS_ACCESS_KEY_ID',
  maxTokensField: 'max_tokens',
  promptCaching: false,
  streamInBody: false,
  // The API version the installed SDK speaks goes in the body, as the host requires; the model is in the path.
  bodyExtras: { anthropic_version: '2026-10-21', model: undefined },
  // Every request's signature is recomputed by the emulator with the secret and must match.
  emulator: { awsSecretAccessKey: KEYS.AWS_SECRET_ACCESS_KEY },
  missingKeyMessage: 'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_BEARER_TOKEN_BEDROCK)',
  configure: (emu) => ({
    config: { providers: { bedrock: { type: 'bedrock', region: 'eu-west-3', baseURL: emu.url } } },
    secrets: KEYS,
  }),
  assertAuth(r) {
    assert.equal(sigV4Problem(r.headers), undefined);
    assert.match(String(r.headers.authorization), /Credential=AKIDBOXBOTTEST\/\d{8}\/eu-west-3\/bedrock\/aws4_request/);
    assert.equal(r.path, '/model/test-model/invoke-with-response-stream');
  },
});

describe('bedrock: other credentials and regions', () => {
  it('a Bedrock API key is sent as a bearer token, unsigned; the region comes from AWS_REGION', async () => {
    const emu = await startLlmEmulator();
    try {
      emu.script([llm.say('keyed')]);
      const config = configSchema.parse({ providers: { bedrock: { type: 'bedrock', baseURL: emu.url } } });
      const m = resolveModel('bedrock/us.anthropic.claude-haiku-4-5-20251001-v1:0', {
        config,
        secrets: { AWS_BEARER_TOKEN_BEDROCK: 'bedrock-api-key-1', AWS_REGION: 'us-west-2' },
      });
      const out = await collect(m.provider.stream(request(m.model), new AbortController().signal));
      assert.equal(out.text, 'keyed');
      assert.equal(emu.requests[0]!.headers.authorization, 'Bearer bedrock-api-key-1');
      assert.equal(emu.requests[0]!.model, 'us.anthropic.claude-haiku-4-5-20251001-v1:0');
      emu.assertDone();
    } finally {
      await emu.close();
    }
  });

  it('without a region the model is refused, naming the config key and AWS_REGION', () => {
    assert.throws(() => resolveModel('bedrock/x', { config: configSchema.parse({}), secrets: KEYS }), {
      name: 'ModelConfigError',
      message: 'bedrock/x cannot be used: providers.bedrock.region is not set in the config (or AWS_REGION)',
    });
  });
});

describe('bedrock: the emulator checks signatures', () => {
  it('a request signed with another secret is refused with 403 and no retry', async () => {
    const emu = await startLlmEmulator({ awsSecretAccessKey: 'the-real-secret' });
    try {
      const config = configSchema.parse({
        providers: { bedrock: { type: 'bedrock', region: 'us-east-1', baseURL: emu.url } },
      });
      const m = resolveModel('bedrock/some-model', { config, secrets: KEYS });
      const out = await collect(m.provider.stream(request(m.model), new AbortController().signal));
      assert.equal((out.error as { status?: number } | undefined)?.status, 403, String(out.error));
      assert.match(String(out.error), /signature does not match/);
      assert.equal(emu.requests.length, 1);
    } finally {
      await emu.close();
    }
  });
});
