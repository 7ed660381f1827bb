import { describe, expect, it } from 'vitest';
import { UNLOAD_PROMPT, leaves } from './unload-prompt';

describe('leaving the window with unsaved edits', () => {
  it('only the Leave button lets the page go; Enter and Escape (the default and cancel answers) stay', () => {
    expect(leaves(UNLOAD_PROMPT.buttons.indexOf('Leave'))).toBe(true);
    expect(leaves(UNLOAD_PROMPT.defaultId)).toBe(false);
    expect(leaves(UNLOAD_PROMPT.cancelId)).toBe(false);
  });

  it('says the changes are kept as a draft, so leaving loses nothing silently', () => {
    expect(UNLOAD_PROMPT.detail).toMatch(/keeps them as a draft/);
  });
});
