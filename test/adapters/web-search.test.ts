// Searching one's own web chats: one hit per chat, best first, with an excerpt around the word found.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { searchableTexts, searchMessages } from '../../src/adapters/web/search.ts';

test('one hit per chat, prefix and typo tolerant, an excerpt around the word found', () => {
  const long = `${'words before '.repeat(10)}the train to Oslo leaves at nine${' and after'.repeat(20)}`;
  const hits = searchMessages(
    [
      { session: 's1', title: 'Trip', text: long },
      { session: 's1', title: 'Trip', text: 'Oslo again' },
      { session: 's2', title: 'Food', text: 'a soup recipe' },
    ],
    'osl',
  );
  assert.equal(hits.length, 1);
  assert.equal(hits[0]!.session, 's1');
  assert.equal(searchMessages([{ session: 's2', title: 'Food', text: 'a soup recipe' }], 'recipi').length, 1);
  assert.deepEqual(searchMessages([{ session: 's2', title: 'Food', text: 'soup' }], '   '), []);
  const [hit] = searchMessages([{ session: 's1', title: 'Trip', text: long }], 'oslo');
  assert.match(hit!.excerpt, /^….*train to Oslo leaves.*…$/);
  assert.ok(hit!.excerpt.length <= 122);
});

test('only the words shown as messages are searched (not tool activity or notes)', () => {
  assert.deepEqual(
    searchableTexts([
      { type: 'user', id: 'a', text: 'hi' },
      { type: 'activity', kind: 'tool-start', text: 'reading secrets.txt…' },
      { type: 'note', text: 'Not sent' },
      { type: 'message', id: '1', text: 'Hello' },
      { type: 'message', id: '2', text: '' },
    ]),
    ['hi', 'Hello'],
  );
});
