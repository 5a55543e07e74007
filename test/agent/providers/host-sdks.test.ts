// The cloud hosts' SDKs and Gemini's are optional peer dependencies: installed (as in a checkout)
// they load; a missing one is named, with the command that installs it, by the provider status
// `doctor` and `boxbot start` print (test/package/production-install.test.ts runs without them).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { HOST_SDKS, hostSdkProblem } from '../../../src/agent/providers/anthropic-hosts.ts';
import { OPTIONAL_SDKS } from '../../../src/agent/providers/optional-sdk.ts';
import { listProviders } from '../../../src/agent/providers/resolve.ts';
import { configSchema } from '../../../src/config/schema.ts';
import { root } from '../../helpers.ts';

test('the SDKs installed here are found; a missing one is named with the command that installs it', () => {
  assert.equal(hostSdkProblem(HOST_SDKS.bedrock), undefined);
  assert.equal(hostSdkProblem(HOST_SDKS['vertex-anthropic']), undefined);
  assert.equal(hostSdkProblem(OPTIONAL_SDKS.gemini), undefined);
  assert.equal(
    hostSdkProblem({ pkg: '@anthropic-ai/no-such-host-sdk', range: '^1.0.0' }),
    'the package @anthropic-ai/no-such-host-sdk is not installed (an optional dependency): ' +
      "run `npm install @anthropic-ai/no-such-host-sdk@^1.0.0` in boxbot's folder",
  );
});

test('package.json: each optional SDK an optional peer at the range the message names, and no dependency', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  assert.deepEqual(
    Object.keys(pkg.peerDependencies).sort(),
    Object.values(OPTIONAL_SDKS)
      .map((s) => s.pkg)
      .sort(),
  );
  for (const { pkg: name, range } of Object.values(OPTIONAL_SDKS)) {
    assert.ok(pkg.devDependencies[name].startsWith(range.slice(1)), `${name}: the devDependency is in ${range}`);
    assert.equal(pkg.peerDependencies[name], range, name);
    assert.equal(pkg.peerDependenciesMeta[name].optional, true, name);
    assert.equal(pkg.dependencies[name], undefined, `${name} is not installed by default`);
    assert.ok(pkg.devDependencies[name], `${name} is a devDependency, so its tests run`);
  }
});

test('a configured Bedrock provider with its SDK installed is ready (the SDK check names no problem)', () => {
  const config = configSchema.parse({ providers: { bedrock: { type: 'bedrock', region: 'us-east-1' } } });
  const status = listProviders({ config, secrets: { AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b' } }).find(
    (p) => p.name === 'bedrock',
  );
  assert.equal(status?.ready, true, status?.problem);
});
