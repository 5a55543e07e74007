// The shared adapter contract, run by the web chat (posts in, Server-Sent Events out). It has
// one local user and no groups, other bots or rate limits: those cases are skipped, saying so.
import { adapterContract } from './contract.ts';
import { webHarness } from './web-harness.ts';

adapterContract('web', webHarness, {
  groups: 'the web chat has no groups',
  otherBots: 'the web chat has no other bots',
  rateLimits: 'the web chat has no rate limits',
  userIds: 'the web chat has one user, "local"',
});
