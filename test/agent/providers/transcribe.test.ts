// The transcriber against the emulated OpenAI-compatible `/audio/transcriptions`: the file,
// model, language and key go out as OpenAI expects, the text comes back; failures say why.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { checkTranscriptionModel, createTranscriber, ProviderError } from '../../../src/agent/providers/index.ts';
import { configSchema } from '../../../src/config/schema.ts';
import { type LlmEmulator, startLlmEmulator, type TranscriptionForm } from '../../emulators/llm/index.ts';

let emu: LlmEmulator;
before(async () => {
  emu = await startLlmEmulator();
});
after(() => emu.close());

const voice = { bytes: new Uint8Array([0x4f, 0x67, 0x67, 0x53, 1, 2, 3]), name: 'voice.ogg', mimeType: 'audio/ogg' };

test('a local Whisper server behind a custom provider: the file goes as multipart, the text comes back', async () => {
  const config = configSchema.parse({
    providers: { whisper: { type: 'openai-compatible', baseURL: emu.openaiBaseURL } },
  });
  emu.transcripts(['  hello from the voice note  ']);
  const t = createTranscriber('whisper/whisper-large-v3', { config, secrets: {} }, 'en');
  assert.equal(await t(voice), 'hello from the voice note');
  const req = emu.requests.at(-1)!;
  assert.equal(req.path, '/v1/audio/transcriptions');
  const form = req.body as TranscriptionForm;
  assert.equal(form.model, 'whisper-large-v3');
  assert.equal(form.language, 'en');
  assert.equal(form.fileName, 'voice.ogg');
  assert.equal(form.fileType, 'audio/ogg');
  assert.deepEqual(form.fileBytes, voice.bytes);
  assert.equal(req.headers.authorization, undefined, 'no key configured, none sent');
  emu.assertDone();
});

test("openai: the provider's key is sent; an API refusal is a ProviderError with the status", async () => {
  const config = configSchema.parse({});
  const secrets = { OPENAI_API_KEY: 'sk-test-transcribe', OPENAI_BASE_URL: emu.openaiBaseURL };
  emu.transcripts(['ok']);
  const t = createTranscriber('openai/gpt-4o-mini-transcribe', { config, secrets });
  assert.equal(await t(voice), 'ok');
  assert.equal(emu.requests.at(-1)!.headers.authorization, 'Bearer sk-test-transcribe');
  // Nothing scripted: the emulator answers 500.
  await assert.rejects(t(voice), (e: unknown) => e instanceof ProviderError && e.status === 500);
});

test('a transcription model that cannot be used is named with the reason, before any voice note', () => {
  const config = configSchema.parse({});
  assert.match(checkTranscriptionModel('openai/gpt-4o-mini-transcribe', { config, secrets: {} })!, /OPENAI_API_KEY/);
  assert.match(
    checkTranscriptionModel('anthropic/claude-x', { config, secrets: { ANTHROPIC_API_KEY: 'k' } })!,
    /no transcription API/,
  );
  assert.match(checkTranscriptionModel('nope/x', { config, secrets: {} })!, /unknown provider/);
  assert.throws(() => createTranscriber('openai/whisper-1', { config, secrets: {} }), /OPENAI_API_KEY/);
});
