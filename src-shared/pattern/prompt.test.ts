import { describe, expect, it } from 'vitest';
import { judgmentPrompt, memberPrompt } from './prompt';

describe('the feedback prompts', () => {
  it('the judge sees the previous feedback, the new output and the iteration, in the seed’s order', () => {
    expect(judgmentPrompt({ feedback: 'Missing error handling analysis.', output: 'new analysis', iteration: 2 })).toBe(
      'Previous feedback (address this):\nMissing error handling analysis.\nWork output:\nnew analysis\nIteration: 2',
    );
  });

  it('a first iteration has no feedback heading at all', () => {
    expect(judgmentPrompt({ output: 'draft', iteration: 1 })).toBe('Work output:\ndraft\nIteration: 1');
    expect(memberPrompt({ task: 'Write the report', iteration: 1 })).toBe('Write the report\nIteration: 1');
  });

  it('the members’ next prompt carries the feedback and what it was about', () => {
    const p = memberPrompt({ task: 'Write the report', iteration: 2, feedback: 'Add a risks section.', previous_output: 'v1' });
    expect(p).toBe('Write the report\nPrevious feedback (address this):\nAdd a risks section.\nPrevious output:\nv1\nIteration: 2');
  });
});
