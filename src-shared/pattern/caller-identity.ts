import { CallerIdentity, type A2aCaller, type ExpressionCaller, type JsonSchemaCaller, type LlmCaller } from './contracts';

/** A caller that answers inline, within the loop (not a person): a model, a remote A2A agent, a verifier. */
export type InlineCaller = LlmCaller | A2aCaller | JsonSchemaCaller | ExpressionCaller;

const MAX_NAME = 120;
const cut = (text: string): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_NAME ? `${flat.slice(0, MAX_NAME - 1)}…` : flat;
};

/** A verifier's name in the audit: its own, else what it checks (the schema's title, the expression itself). */
export function verifierName(caller: JsonSchemaCaller | ExpressionCaller): string {
  if (caller.name !== undefined) return caller.name;
  if (caller.kind === 'expression') return cut(caller.expression) || 'expression';
  const title = Object.hasOwn(caller.schema, 'title') ? caller.schema.title : undefined;
  return typeof title === 'string' && title.trim() !== '' ? cut(title) : 'JSON Schema';
}

/** Who the machine knows it asked, before the host says more (a model's name, an agent card's). */
export function identityOf(caller: InlineCaller): CallerIdentity {
  switch (caller.kind) {
    case 'llm':
      return { kind: 'llm', profile: caller.profile };
    case 'a2a':
      return { kind: 'a2a', url: caller.url, ...(caller.name !== undefined ? { name: caller.name } : {}) };
    case 'json_schema':
    case 'expression':
      return { kind: 'verifier', verifier: caller.kind, name: verifierName(caller) };
  }
}

/**
 * The identity recorded for an answer: the host's fuller one (the model behind a profile, the agent
 * card it read) when it is well-formed and names the same caller; else the one the machine knows.
 */
export function answeredIdentity(caller: InlineCaller, told: unknown): CallerIdentity {
  const known = identityOf(caller);
  const parsed = CallerIdentity.safeParse(told);
  if (!parsed.success) return known;
  const t = parsed.data;
  if (known.kind === 'llm' && t.kind === 'llm' && t.profile === known.profile) return t;
  if (known.kind === 'a2a' && t.kind === 'a2a' && t.url === known.url) return { ...t, ...(known.name !== undefined ? { name: known.name } : {}) };
  return known;
}
