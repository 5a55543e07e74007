// The unified request → Gemini `generateContent` contents and config. Tool results go back as functionResponse
// parts (Gemini wants the function's name beside the call id); a thought signature rides on the part after it,
// as Gemini requires for function calls in tool loops.
import type { Content, GenerateContentConfig, Part } from '@google/genai';
import type { Message, ModelRequest } from '../types.ts';

/** One unified message as a Gemini Content (`user` or `model`). */
export function toGeminiContent(message: Message): Content {
  const parts: Part[] = [];
  let signature: string | undefined;
  const push = (part: Part) => {
    parts.push(signature ? { ...part, thoughtSignature: signature } : part);
    signature = undefined;
  };
  for (const p of message.content) {
    switch (p.type) {
      case 'text':
        if (p.text !== '') push({ text: p.text });
        break;
      case 'image':
        push({ inlineData: { mimeType: p.mediaType, data: p.data } });
        break;
      case 'tool-call':
        push({ functionCall: { id: p.id, name: p.name, args: (p.input ?? {}) as Record<string, unknown> } });
        break;
      case 'tool-result':
        push({
          functionResponse: {
            id: p.id,
            name: p.name,
            response: p.isError ? { error: p.content } : { output: p.content },
          },
        });
        break;
      case 'thinking':
        // Only Gemini's own signatures go back; thought text is never resent.
        if (message.role === 'assistant' && p.signature && !p.redacted) signature = p.signature;
        break;
    }
  }
  return { role: message.role === 'assistant' ? 'model' : 'user', parts };
}

/** The `generateContentStream` parameters for `request`. */
export function toGeminiParams(
  request: ModelRequest,
  abortSignal: AbortSignal,
): { model: string; contents: Content[]; config: GenerateContentConfig } {
  const config: GenerateContentConfig = { abortSignal };
  if (request.system) config.systemInstruction = request.system;
  if (request.tools.length > 0) {
    config.tools = [
      {
        functionDeclarations: request.tools.map((t) => ({
          name: t.name,
          description: t.description,
          parametersJsonSchema: { type: 'object', ...t.inputSchema },
        })),
      },
    ];
  }
  if (request.maxOutputTokens !== undefined) config.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.thinkingBudgetTokens !== undefined) {
    config.thinkingConfig = { thinkingBudget: request.thinkingBudgetTokens, includeThoughts: true };
  }
  return {
    model: request.model,
    contents: request.messages.map(toGeminiContent).filter((c) => (c.parts?.length ?? 0) > 0),
    config,
  };
}
