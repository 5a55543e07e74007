// The host's record of who put what into a conversation's workspace: begun when there is
// something to record, never as an empty write per new conversation.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createWorkspaceRecords, recordUploads, workspaceTaint } from '../../src/agent/workspace-record.ts';
import { createMemoryStore } from '../../src/store/index.ts';
import { tempDir } from '../helpers.ts';

const sender = (conversationKey: string, isDirect: boolean) => ({ conversationKey, userId: 'ann', isDirect });

test('a message without files begins no record: nothing is written for a new conversation', async () => {
  const store = createMemoryStore();
  const records = createWorkspaceRecords(store.kv);
  const workspace = tempDir('boxbot-ws-');
  await recordUploads(records, sender('telegram:1', true), workspace, []);
  await recordUploads(records, sender('telegram:-100', false), workspace, []);
  assert.equal(await store.kv.get('workspace-record:telegram:1'), undefined, 'a direct chat');
  assert.equal(await store.kv.get('workspace-record:telegram:-100'), undefined, 'a group with an empty workspace');
  assert.equal(workspaceTaint(await records.get('telegram:1'), 'ann'), undefined, 'no record: no taint');
  await store.close();
});

test('a record begins with the first upload, or with a shared workspace holding files nobody recorded', async () => {
  const store = createMemoryStore();
  const records = createWorkspaceRecords(store.kv);
  const workspace = tempDir('boxbot-ws-');
  await recordUploads(records, sender('telegram:1', true), workspace, ['inbox/a.txt']);
  assert.deepEqual(await records.get('telegram:1'), { files: { 'inbox/a.txt': 'ann' }, users: ['ann'] });
  const shared = tempDir('boxbot-ws-');
  mkdirSync(join(shared, 'old'));
  writeFileSync(join(shared, 'old', 'notes.txt'), 'from before records');
  await recordUploads(records, sender('telegram:-100', false), shared, []);
  assert.equal((await records.get('telegram:-100'))?.unknownContent, true);
  await store.close();
});
