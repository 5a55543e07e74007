// The shared adapter contract for Slack in HTTP Events mode: signed deliveries to the adapter's
// `/webhooks/slack` route.
import { slackHarness } from '../emulators/slack/harness.ts';
import { adapterContract } from './contract.ts';

adapterContract('slack', () => slackHarness('http'));
