import type { ModelScript } from '@shared/contracts/script';
import type { ModelProvider } from '../../providers/provider';
import { createScriptProvider, type ScriptQueue } from '../../providers/script-provider';

/**
 * Where each replay script of a pattern node invocation stands (members' student and teacher, the
 * judges' judge_script). A provider is made once per key, so the loop's iterations take the next
 * answers; the positions are parked with the loop at a person's judgment, so a resumed loop goes on
 * with the next answers too, not the first ones again.
 */
export class ReplayCursor {
  private readonly made = new Map<string, ModelProvider>();

  constructor(private readonly startAt: Readonly<Record<string, number>> = {}) {}

  provider(key: string, script: ModelScript, role: ScriptQueue): ModelProvider {
    let provider = this.made.get(key);
    if (!provider) {
      provider = createScriptProvider(script, role, { startAt: this.startAt[key] ?? 0 });
      this.made.set(key, provider);
    }
    return provider;
  }

  /** Every script's position now (those not used since the resume keep where they stood). */
  positions(): Record<string, number> {
    return { ...this.startAt, ...Object.fromEntries([...this.made].map(([key, p]) => [key, p.position?.() ?? this.startAt[key] ?? 0])) };
  }
}
