// The LLM emulator for every test that needs a model: agent, gateway, scheduler and benchmarks.

export {
  DEFAULT_USAGE,
  type LlmEvent,
  type LlmFinish,
  type LlmReply,
  type LlmToolCall,
  type LlmUsage,
  llm,
} from './script.ts';
export {
  type LlmApi,
  type LlmEmulator,
  type LlmEmulatorOptions,
  type LlmResponder,
  type LlmResponseEnd,
  type RecordedRequest,
  startLlmEmulator,
} from './server.ts';
export type { TranscriptionForm } from './transcription.ts';
