// The LLM emulator for every test that needs a model: agent, gateway, scheduler and benchmarks.
export { startLlmEmulator, type LlmEmulator, type LlmApi, type LlmResponder, type LlmResponseEnd, type RecordedRequest } from './server.ts';
export { llm, DEFAULT_USAGE, type LlmReply, type LlmEvent, type LlmFinish, type LlmToolCall, type LlmUsage } from './script.ts';
