// Every fuzz target, in the order a run reports them.
import type { FuzzTarget } from '../harness.ts';
import { configLoad } from './config.ts';
import { cronExpressions } from './cron.ts';
import { conversationKeys, inboundFiles, toolOutput } from './files.ts';
import { helpParse } from './help.ts';
import { chunker, discordRenderer, slackRenderer, telegramRenderer } from './markdown.ts';
import { discordNormalize, slackNormalize, telegramNormalize, webNormalize } from './normalizers.ts';
import { sseStreams } from './sse.ts';

/** The targets of `npm run fuzz`. */
export const TARGETS = [
  telegramNormalize,
  discordNormalize,
  slackNormalize,
  webNormalize,
  configLoad,
  helpParse,
  cronExpressions,
  telegramRenderer,
  slackRenderer,
  discordRenderer,
  chunker,
  sseStreams,
  inboundFiles,
  toolOutput,
  conversationKeys,
] as unknown as readonly FuzzTarget<never>[];

/** The target called `name`; throws naming the known ones. */
export function targetNamed(name: string): FuzzTarget<never> {
  const found = TARGETS.find((t) => t.name === name);
  if (!found) throw new Error(`no fuzz target "${name}"; known: ${TARGETS.map((t) => t.name).join(', ')}`);
  return found;
}
