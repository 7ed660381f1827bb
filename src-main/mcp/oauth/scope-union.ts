/**
 * SEP-2350 (MCP authorization, "Scope challenge handling"): a re-authorization asks for the union
 * of the scopes requested before and the scopes the server now challenges for, so that widening
 * one operation's access does not drop another's. Scopes are space-separated (RFC 6749 §3.3);
 * the earlier ones keep their order, new ones follow, none twice.
 */
export function unionScopes(previous: string | undefined, challenged: string | undefined): string | undefined {
  const merged: string[] = [];
  for (const scope of `${previous ?? ''} ${challenged ?? ''}`.split(' ')) if (scope !== '' && !merged.includes(scope)) merged.push(scope);
  return merged.length === 0 ? undefined : merged.join(' ');
}
