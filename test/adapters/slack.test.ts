// The shared adapter contract for Slack in Socket Mode (the default mode), over the emulator.
import { slackHarness } from '../emulators/slack/harness.ts';
import { adapterContract } from './contract.ts';

adapterContract('slack', () => slackHarness('socket'));
