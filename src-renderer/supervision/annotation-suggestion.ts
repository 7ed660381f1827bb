import type { ToolAnnotationHints, ToolEffect } from '@shared/contracts/tool-effect';

/**
 * What a server's MCP annotations *suggest*, shown next to the registry's own metadata and only
 * adopted when a person clicks. Annotations are the server's claims about itself, so they never
 * decide anything. MCP's defaults apply to a hint left out: a tool that is not read-only is
 * destructive unless it says `destructiveHint: false`. No boolean hint at all: no suggestion.
 */
export function suggestionFromHints(hints: ToolAnnotationHints | undefined): ToolEffect | undefined {
  if (!hints) return undefined;
  const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = hints;
  if ([readOnlyHint, destructiveHint, idempotentHint, openWorldHint].every((h) => h === undefined)) return undefined;
  const effect = readOnlyHint === true ? 'read' : openWorldHint === true ? 'external_communication' : destructiveHint === false ? 'reversible_write' : 'irreversible_write';
  return {
    effect,
    requires_user_confirmation: false,
    // A read is always safe to repeat; otherwise only when the server says so.
    idempotency_supported: effect === 'read' || idempotentHint === true,
    sensitive_arguments: [],
  };
}

/** "readOnlyHint, idempotentHint" — which hints the server set, for the suggestion's label. */
export function describeHints(hints: ToolAnnotationHints | undefined): string {
  if (!hints) return '';
  return (['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const)
    .filter((k) => hints[k] !== undefined)
    .map((k) => `${k}: ${String(hints[k])}`)
    .join(', ');
}
