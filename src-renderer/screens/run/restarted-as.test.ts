import { describe, expect, it } from 'vitest';
import { laterChildren, restartedAs } from './restarted-as';

const PARENT = 'parent-run-0001';
const child = (run_id: string, invocation_id: string, parent = PARENT) => ({ run_id, parent: { run_id: parent, invocation_id, workflow_id: 'w' } });

describe('the run that took over from a child run a stop cut off', () => {
  // The ids below are opaque on purpose: nothing is read from their text.
  const cut = child('c-1', 'slow');
  it('is the next child its parent started at the same node invocation', () => {
    const later = laterChildren(cut, { children: ['c-0', 'c-1', 'c-2', 'c-3'] });
    expect(later).toEqual(['c-2', 'c-3']);
    expect(restartedAs(cut, [child('c-2', 'other'), child('c-3', 'slow')])).toBe('c-3');
  });

  it('is not a child of another node, nor of a supervisor’s retry (an invocation of its own), nor an earlier one', () => {
    expect(restartedAs(cut, [child('c-2', 'slow#2'), child('c-3', 'other')])).toBeUndefined();
    expect(laterChildren(cut, { children: ['c-1'] })).toEqual([]);
    expect(laterChildren(cut, { children: ['c-0', 'c-2'] })).toEqual([]);
    expect(laterChildren(cut, undefined)).toEqual([]);
  });

  it('is nothing for a run without a parent, or a row the page does not hold', () => {
    expect(restartedAs({ run_id: 'top' }, [child('c-2', 'slow')])).toBeUndefined();
    expect(restartedAs(cut, [undefined, child('c-9', 'slow', 'another-parent-01')])).toBeUndefined();
  });
});
