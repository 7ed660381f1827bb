import type { ModelRef } from '../contracts/model';

/**
 * What a model selector should warn about, given what the provider reports the
 * model can do (Ollama `show`: completion, tools, vision, thinking, embedding…). Unknown
 * capabilities (absent) give no warning: we only warn about a gap the server itself reports.
 */
export function capabilityWarnings(ref: ModelRef, capabilities?: readonly string[]): string[] {
  if (ref.provider === 'script' || capabilities === undefined) return [];
  const has = (c: string): boolean => capabilities.includes(c);
  const warnings: string[] = [];
  // Ollama lists `completion` for every chat model; an embedding-only model cannot answer at all.
  if (capabilities.length === 0) warnings.push(`${ref.model} reports no capabilities: it may not be able to chat`);
  else if (!has('completion')) warnings.push(`${ref.model} is not a chat model (it reports ${capabilities.join(', ')}): pick another model`);
  if (ref.mode === 'tools' && !has('tools')) {
    warnings.push(`${ref.model} does not report tool calling: use structured mode or another model`);
  }
  return warnings;
}
