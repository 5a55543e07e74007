// Which models accept images in a prompt. A small table by model family (the vendors' own names
// and the common open-weight vision models served by OpenAI-compatible providers), plus the
// config's `media.visionModels` for anything else. Unknown means no: a model sent an image it
// cannot read fails the call, while a model told "an image was saved at inbox/..." still answers.
import { baseModelName } from './pricing.ts';

/** Model name patterns (without the `provider/` prefix) that take image input. */
const VISION_PATTERNS: readonly RegExp[] = [
  /^claude-(?!2|instant)/, // every Claude from 3 on reads images
  /^gpt-4o/,
  /^gpt-4\.1/,
  /^gpt-4-turbo/,
  /^gpt-5/,
  /^o1(?!-mini)/,
  /^o3(?!-mini)/,
  /^o4-mini/,
  /^chatgpt-4o/,
  /llava|bakllava|moondream|minicpm-v|qwen2(\.5)?-?vl|qwen-vl|pixtral|gemma3|gemini/,
  /llama3\.2-vision|llama-3\.2-\d+b-vision/,
  /llama-4-(scout|maverick)/,
];

/** Models that never take images even though a pattern above might match their family. */
const NO_VISION: readonly RegExp[] = [
  /^gpt-4o(-mini)?-(audio|transcribe|realtime|search)/,
  /^gpt-5.*-(audio|realtime)/,
];

/**
 * Whether `modelId` (`provider/model`) accepts image parts. `extra` lists more `provider/model`s
 * (config `media.visionModels`), matched exactly or by their base name.
 * Example: supportsVision('anthropic/claude-sonnet-4-5') → true; supportsVision('deepseek/deepseek-chat') → false
 */
export function supportsVision(modelId: string, extra: readonly string[] = []): boolean {
  if (extra.includes(modelId) || extra.includes(baseModelName(modelId))) return true;
  const slash = modelId.indexOf('/');
  const name = baseModelName((slash >= 0 ? modelId.slice(slash + 1) : modelId).toLowerCase());
  // OpenRouter-style names carry the vendor again: `openai/gpt-4o` behind `openrouter/`.
  const last = name.split('/').pop()!;
  if (NO_VISION.some((re) => re.test(last))) return false;
  return VISION_PATTERNS.some((re) => re.test(last));
}
