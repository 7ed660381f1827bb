import { MISSING_EFFECT, type EffectSource, type ToolEffect } from '@shared/contracts/tool-effect';
import { SHIPPED_EFFECTS } from './shipped-effects';

export interface ResolveToolEffectInput {
  /** The spec's server id: overrides are keyed `serverId/tool`. */
  serverId: string;
  /** npm package the server was started from, when it was. */
  packageName?: string;
  /**
   * `serverInfo.name` the server reported. Never used to pick shipped metadata: any command can
   * claim to be the filesystem server, so only a server started from the shipped package gets it.
   */
  serverName?: string;
  tool: string;
  /** The spec's `tool_effects`. */
  overrides: Readonly<Record<string, ToolEffect>>;
}

export interface ResolvedEffect {
  effect: ToolEffect;
  source: EffectSource;
}

/**
 * The app registry decides a tool's effect (DESIGN.md §4): the user's override, else the shipped
 * default, else `missing` (protected). MCP annotations never enter here; they are only hints.
 */
export function resolveToolEffect(input: ResolveToolEffectInput): ResolvedEffect {
  const override = lookup(input.overrides, `${input.serverId}/${input.tool}`);
  if (override) return { effect: copy(override), source: 'user' };

  const shipped = input.packageName === undefined ? undefined : lookup(SHIPPED_EFFECTS, input.packageName);
  const effect = shipped ? lookup(shipped.tools, input.tool) : undefined;
  if (effect) return { effect: copy(effect), source: 'shipped' };

  return { effect: copy(MISSING_EFFECT), source: 'missing' };
}

// Own keys only: a tool named `constructor` or `toString` must not find Object.prototype.
function lookup<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

// Callers get their own copy: the shipped table is shared by every run.
function copy(effect: ToolEffect): ToolEffect {
  return { ...effect, sensitive_arguments: [...effect.sensitive_arguments] };
}
