import { MISSING_EFFECT, type EffectSource, type ToolEffect } from '../contracts/tool-effect';
import type { EffectOverride, RegisteredServer } from '../contracts/host-registry';
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

/** The host's registry as far as effects go: its servers (for their packages) and the user's overrides. */
export interface EffectRegistryView {
  servers: readonly Pick<RegisteredServer, 'id' | 'package'>[];
  overrides: readonly EffectOverride[];
}

/**
 * The effect a run gives a tool of a registered server, and where it came from: exactly what the
 * host resolves when it starts the server for a run (the page shows the same, inspected or not).
 */
export function registeredToolEffect(registry: EffectRegistryView, serverId: string, tool: string): ResolvedEffect {
  const server = registry.servers.find((s) => s.id === serverId);
  const own = registry.overrides.filter((o) => o.server === serverId).map((o) => [`${serverId}/${o.tool}`, o.effect] as const);
  return resolveToolEffect({ serverId, packageName: server?.package, tool, overrides: Object.fromEntries(own) });
}

/**
 * Marking `read` a tool Steward ships no read metadata for trusts the server's own implementation:
 * a "read-only" SQL tool can still be made to write. True when a user setting does that.
 */
export function trustsServerForRead(resolved: ResolvedEffect, shipped: ResolvedEffect): boolean {
  return resolved.source === 'user' && resolved.effect.effect === 'read' && !(shipped.source === 'shipped' && shipped.effect.effect === 'read');
}

/** The warning for it, where effects are set (spec validation, the Tool safety panel). */
export function readTrustWarning(tool: string): string {
  return `${tool} is marked read, but Steward does not know it to be: this trusts the server's own implementation (a "read-only" SQL tool can still be made to write), and its calls are not reviewed as writes.`;
}
