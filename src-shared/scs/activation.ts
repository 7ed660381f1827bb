import { isProtectedEffect, type EffectClass } from '../contracts/tool-effect';
import type { ScsMode, ScsSettings } from './contracts';

export interface ActivationFacts {
  tools: readonly { name: string; effect: EffectClass }[];
  max_rounds: number;
  /** Failed or blocked rounds so far in this run. */
  failures: number;
}

/**
 * Whether SCS gates this run (seed 001: "auto" activates for risky work and stays off for simple
 * read-only tasks). The reason is recorded on the run.
 */
export function decideActivation(mode: ScsMode, facts: ActivationFacts, settings: Pick<ScsSettings, 'auto_long_budget'>): { active: boolean; reason: string } {
  switch (mode) {
    case 'off':
      return { active: false, reason: 'SCS is off' };
    case 'on':
      return { active: true, reason: 'SCS is on' };
    case 'auto': {
      const risky = facts.tools.filter((t) => isProtectedEffect(t.effect)).map((t) => t.name);
      if (risky.length > 0) return { active: true, reason: `auto: protected tools offered (${risky.slice(0, 4).join(', ')}${risky.length > 4 ? ', …' : ''})` };
      if (facts.max_rounds >= settings.auto_long_budget) return { active: true, reason: `auto: long step budget (${facts.max_rounds} rounds)` };
      if (facts.failures > 0) return { active: true, reason: `auto: earlier failures in this run (${facts.failures})` };
      return { active: false, reason: 'auto: read-only work with a short budget, SCS stays off' };
    }
  }
}
