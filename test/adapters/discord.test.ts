// The shared adapter contract, run by the Discord adapter against the Discord emulator.
import { adapterContract } from './contract.ts';
import { discordHarness } from './discord-harness.ts';

adapterContract('discord', () => discordHarness());
