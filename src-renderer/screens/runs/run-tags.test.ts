import { describe, expect, it } from 'vitest';
import { runTags } from './run-tags';

describe('runTags: what a run list line says after the run’s name (Runs page, a workflow’s Recent runs)', () => {
  it('an unsupervised run says unsupervised and no lifecycle phase (it ran none)', () => {
    expect(runTags({ supervision_enabled: false, phase: 3 })).toEqual(['unsupervised']);
    expect(runTags({ supervision_enabled: false, dry_run: true, phase: 3 })).toEqual(['unsupervised', 'dry run']);
  });

  it('a supervised run names its phase as the lifecycle phase, never as a bare "phase" an SCS phase could be taken for', () => {
    expect(runTags({ supervision_enabled: true, phase: 3 })).toEqual(['lifecycle phase 3']);
    expect(runTags({ supervision_enabled: true, dry_run: true, phase: 0 })).toEqual(['dry run', 'lifecycle phase 0']);
    expect(runTags({ supervision_enabled: true })).toEqual([]);
  });
});
