import { describe, expect, it } from 'vitest';
import { IDLE, nextConfirmStep, type ConfirmState } from './confirm-step';

const asking: ConfirmState = nextConfirmStep(IDLE, { type: 'press' });

describe('the confirm step of a consequential button (Cancel run, Stop the run)', () => {
  it('a first press only asks: nothing runs until the confirm button is pressed', () => {
    expect(asking).toEqual({ step: 'asking' });
    expect(nextConfirmStep(IDLE, { type: 'confirm' })).toEqual(IDLE);
    expect(nextConfirmStep(asking, { type: 'confirm' })).toEqual({ step: 'running' });
  });

  it('Escape or Keep closes the question without running anything and hands focus back to the button', () => {
    expect(nextConfirmStep(asking, { type: 'key', key: 'Escape' })).toEqual({ step: 'idle', focus: 'trigger' });
    expect(nextConfirmStep(asking, { type: 'keep' })).toEqual({ step: 'idle', focus: 'trigger' });
    expect(nextConfirmStep(asking, { type: 'key', key: 'Enter' })).toEqual(asking);
  });

  it('while the confirmed action is under way, Escape and further presses change nothing; when it ends the button is back', () => {
    const running = nextConfirmStep(asking, { type: 'confirm' });
    expect(nextConfirmStep(running, { type: 'key', key: 'Escape' })).toEqual(running);
    expect(nextConfirmStep(running, { type: 'press' })).toEqual(running);
    expect(nextConfirmStep(running, { type: 'confirm' })).toEqual(running);
    expect(nextConfirmStep(running, { type: 'settled' })).toEqual({ step: 'idle', focus: 'trigger' });
  });
});
