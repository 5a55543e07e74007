// The compose files a user runs without a Docker engine here: they parse, boxbot's service keeps
// its state in a volume, and the replicas' file shares one data volume (a replica with its own
// workspaces folder refuses to start) and one database.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { root } from '../helpers.ts';

type Service = { volumes?: string[]; environment?: Record<string, string>; ports?: string[]; depends_on?: unknown };
const load = (name: string) =>
  parse(readFileSync(join(root, name), 'utf8'), { merge: true }) as { services: Record<string, Service> };

test('compose.yaml: one boxbot with its data in a volume, published on loopback only', () => {
  const { boxbot } = load('compose.yaml').services;
  assert.ok(boxbot?.volumes?.some((v) => v.endsWith(':/data')));
  assert.ok(boxbot?.ports?.every((p) => p.startsWith('127.0.0.1:')));
});

test('compose.replicas.yaml: two replicas on one PostgreSQL sharing one data volume', () => {
  const { services } = load('compose.replicas.yaml');
  const replicas = Object.entries(services).filter(([name]) => name.startsWith('boxbot'));
  assert.equal(replicas.length, 2);
  const dataVolumes = new Set(replicas.map(([, s]) => s.volumes?.find((v) => v.endsWith(':/data'))));
  assert.equal(dataVolumes.size, 1, 'one shared data volume');
  for (const [name, s] of replicas) {
    assert.match(s.environment?.BOXBOT_DATABASE_URL ?? '', /^postgres:\/\/boxbot:.*@postgres:5432\/boxbot$/, name);
    assert.ok(
      s.ports?.every((p) => p.startsWith('127.0.0.1:')),
      name,
    );
  }
  assert.ok(services.postgres, 'a postgres service');
});
