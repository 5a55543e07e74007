// A managed run's executors as the lines of a checklist, edited in place in the chat's preview:
// one line per executor with its state, its task in a few words and what it has spent.
import type { ExecutorStatus } from '../agent/index.ts';

const MARK: Record<ExecutorStatus['state'], string> = {
  waiting: '◻️',
  running: '⏳',
  done: '✅',
  failed: '❌',
  stopped: '⏹️',
};

const usd = (n: number) => (n > 0 ? ` · $${n < 0.01 ? n.toFixed(4) : n.toFixed(2)}` : '');

/** The checklist's lines, in the order the executors were started. */
export function checklistLines(items: readonly ExecutorStatus[]): string[] {
  return items.map((s) => {
    const why = s.state === 'failed' || s.state === 'stopped' ? ` (${s.detail ?? s.state})` : '';
    return `${MARK[s.state]} ${s.executor}: ${s.task}${why}${usd(s.costUsd)}`;
  });
}
