// `npm run soak`: the gateway under load through the Telegram, Slack and Discord emulators while
// it is SIGKILLed at random points, the platforms answer 429 and the disk fills up
// (test/soak/run.ts); prints what users saw, and stray previews and duplicate files per 100 kills
// per platform, and exits 1 unless nothing was lost, duplicated or reordered.
// Flags (defaults in brackets): --seed N [random] --conversations N [9] --messages N [15]
// --platforms telegram,slack,discord [all] --files-every N [4; 0: no files]
// --load-seconds N [40] --kills N [6] --storms N [1] --storm-seconds N [4] --no-disk
// --disk-seconds N [4] --quiet-seconds N [12] --deadline-seconds N [240] --keep
// `npm run soak -- --fuzz [fuzz flags]` runs the fuzz targets instead (scripts/fuzz.ts, `npm run fuzz`).
import { parseArgs } from 'node:util';
import { runSoak, SOAK_PLATFORMS, type SoakPlatform } from '../test/soak/run.ts';
import { fuzzCli } from './fuzz.ts';

if (process.argv.includes('--fuzz')) {
  process.exitCode = await fuzzCli(process.argv.slice(2).filter((a) => a !== '--fuzz'));
  process.exit();
}

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    conversations: { type: 'string', default: '9' },
    messages: { type: 'string', default: '15' },
    platforms: { type: 'string', default: SOAK_PLATFORMS.join(',') },
    'files-every': { type: 'string', default: '4' },
    'load-seconds': { type: 'string', default: '40' },
    kills: { type: 'string', default: '6' },
    storms: { type: 'string', default: '1' },
    'storm-seconds': { type: 'string', default: '4' },
    'no-disk': { type: 'boolean', default: false },
    'disk-seconds': { type: 'string', default: '4' },
    'quiet-seconds': { type: 'string', default: '12' },
    'deadline-seconds': { type: 'string', default: '240' },
    keep: { type: 'boolean', default: false },
  },
});

function count(name: keyof typeof values, min = 0): number {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < min) {
    console.error(`soak: --${name} must be an integer >= ${min}, got ${JSON.stringify(values[name])}`);
    process.exit(2);
  }
  return n;
}

const platforms = values.platforms.split(',').map((p) => p.trim());
const unknown = platforms.filter((p) => !(SOAK_PLATFORMS as readonly string[]).includes(p));
if (unknown.length || platforms.length === 0) {
  console.error(
    `soak: --platforms takes a list of ${SOAK_PLATFORMS.join(', ')}; got ${JSON.stringify(values.platforms)}`,
  );
  process.exit(2);
}

const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : count('seed');
const report = await runSoak({
  seed,
  conversations: count('conversations', 1),
  messages: count('messages', 1),
  platforms: platforms as SoakPlatform[],
  filesEvery: count('files-every'),
  loadMs: count('load-seconds', 1) * 1000,
  kills: count('kills'),
  storms: count('storms'),
  stormMs: count('storm-seconds') * 1000,
  diskFull: !values['no-disk'],
  diskMs: count('disk-seconds') * 1000,
  quietMs: count('quiet-seconds', 1) * 1000,
  deadlineMs: count('deadline-seconds', 10) * 1000,
  keep: values.keep,
  say: (line) => console.log(`soak: ${line}`),
});

const r = report;
console.log('');
console.log(
  `soak (seed ${r.seed}): ${r.kills} kills, ${r.crashes} crashes, ${r.storms} 429 storms (${r.telegram429} Telegram ` +
    `429s), disk fault ${r.disk}, ${r.seconds} s${r.quiescent ? '' : ', NOT quiescent at the deadline'}`,
);
console.log(
  `  sent ${r.sent}  delivered ${r.delivered}  lost ${r.lost}  duplicated ${r.duplicated}  reordered ${r.reordered}  ` +
    `stray previews ${r.strayPreviews}  misrouted ${r.misrouted}  other ${r.other}`,
);
const ds = r.discord;
console.log(
  `  discord sessions: ${ds.identifies} identified, ${ds.resumes} resumed, ${ds.invalidSessions} expired (caught up ` +
    `from ${ds.historyReads} history pages); ${ds.nonceRepeats} sends answered by their nonce`,
);
for (const p of r.perPlatform) {
  console.log(
    `  ${p.platform} (${p.conversations} conversations): lost ${p.lost}, duplicated ${p.duplicated}, stray previews ` +
      `${p.strayPreviews}; files ${p.files.delivered}/${p.files.expected}, duplicated ${p.files.duplicated}, lost ` +
      `${p.files.lost}; per 100 kills: stray previews ${p.per100Kills.strayPreviews}, duplicate files ` +
      `${p.per100Kills.duplicatedFiles}`,
  );
}
for (const p of r.perConversation) {
  if (p.lost + p.duplicated + p.reordered + p.strayPreviews + p.misrouted + p.other === 0) continue;
  console.log(
    `    conversation ${p.conversation} (${platforms[p.conversation % platforms.length]}): ` +
      `delivered ${p.delivered}/${p.sent}, lost ${p.lost}, duplicated ${p.duplicated}, reordered ${p.reordered}, ` +
      `stray previews ${p.strayPreviews}, other ${p.other}`,
  );
}
if (r.otherSamples.length)
  console.log(`  other bot messages, e.g.: ${r.otherSamples.map((t) => JSON.stringify(t)).join(', ')}`);
if (r.workDir) console.log(`  kept: ${r.workDir} (gateway.log, data/)`);
console.log(`  rerun: npm run soak -- --seed ${r.seed}`);
console.log(JSON.stringify({ ...r, perConversation: undefined }));
process.exitCode = r.lost + r.duplicated + r.reordered + r.misrouted === 0 && r.quiescent ? 0 : 1;
