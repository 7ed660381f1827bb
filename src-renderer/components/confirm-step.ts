/**
 * A consequential button is pressed twice: the first press asks, only the confirm button acts.
 * `focus: 'trigger'` says the question closed and focus belongs on the button again, where the
 * keyboard was (after Escape, Keep, or the action ending).
 */
export type ConfirmState = { step: 'idle'; focus?: 'trigger' } | { step: 'asking' } | { step: 'running' };

export type ConfirmEvent = { type: 'press' } | { type: 'confirm' } | { type: 'keep' } | { type: 'key'; key: string } | { type: 'settled' };

export const IDLE: ConfirmState = { step: 'idle' };
const BACK: ConfirmState = { step: 'idle', focus: 'trigger' };

export function nextConfirmStep(state: ConfirmState, event: ConfirmEvent): ConfirmState {
  switch (state.step) {
    case 'idle':
      return event.type === 'press' ? { step: 'asking' } : state;
    case 'asking':
      if (event.type === 'confirm') return { step: 'running' };
      if (event.type === 'keep' || (event.type === 'key' && event.key === 'Escape')) return BACK;
      return state;
    case 'running':
      // Once confirmed the action is under way: it cannot be taken back by Escape.
      return event.type === 'settled' ? BACK : state;
  }
}
