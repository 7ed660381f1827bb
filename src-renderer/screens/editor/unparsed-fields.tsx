import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import type { UnparsedText } from '@shared/contracts/workflow-draft';
import type { GraphProblem } from '@shared/workflow/validate-graph';

/**
 * The JSON fields whose text the person typed but that is not in the document, because it does not
 * parse (or is not the kind of value the field takes). Kept here, above the inspector, so the text
 * survives selecting another node and coming back; each is a problem in the list and blocks saving
 * — the document never silently keeps the field's old value as if it were what the person typed.
 */
export interface UnparsedField {
  /** The node the field belongs to (`workflow` for the workflow's own fields). */
  scope: string;
  /** Which of its fields (its test id). */
  field: string;
  label: string;
  text: string;
  error: string;
  /** The field's value (as JSON) when the person started typing: a change from outside (undo) drops the text. */
  base: string;
}

export interface UnparsedFields {
  get(key: string): UnparsedField | undefined;
  set(key: string, field: UnparsedField): void;
  clear(key: string): void;
  /** Those on nodes the document still has, as problems. */
  problems(nodeIds: readonly string[]): GraphProblem[];
  /** Those on nodes the document still has, as a draft keeps them (use-kept-draft.ts). */
  texts(nodeIds: readonly string[]): UnparsedText[];
  /** Puts back the texts a kept draft held (Restore); the fields shown read them again. */
  restore(texts: readonly UnparsedText[]): void;
  /** Changes on every restore: fields keyed by it are shown afresh with the restored text. */
  generation: number;
}

const NONE: UnparsedFields = { get: () => undefined, set: () => undefined, clear: () => undefined, problems: () => [], texts: () => [], restore: () => undefined, generation: 0 };
const Fields = createContext<UnparsedFields>(NONE);
/** The node whose fields are shown under it (the inspector's). */
export const FieldScope = createContext<string>('workflow');

/** `initial`: fields kept from before (a test's starting state). */
export function UnparsedFieldsProvider({ children, initial }: { children: ReactNode; initial?: ReadonlyMap<string, UnparsedField> }) {
  const [fields, setFields] = useState<ReadonlyMap<string, UnparsedField>>(() => initial ?? new Map());
  const [generation, setGeneration] = useState(0);
  const restore = useCallback((texts: readonly UnparsedText[]) => {
    setFields(new Map(texts.map((t) => [fieldKey(t.scope, t.field), t])));
    setGeneration((g) => g + 1);
  }, []);
  const set = useCallback((key: string, field: UnparsedField) => setFields((m) => new Map(m).set(key, field)), []);
  const clear = useCallback(
    (key: string) =>
      setFields((m) => {
        if (!m.has(key)) return m;
        const next = new Map(m);
        next.delete(key);
        return next;
      }),
    [],
  );
  const value = useMemo<UnparsedFields>(
    () => ({
      get: (key) => fields.get(key),
      set,
      clear,
      problems: (nodeIds) =>
        [...fields.values()]
          .filter((f) => f.scope === 'workflow' || nodeIds.includes(f.scope))
          .map((f) => ({
            ...(f.scope !== 'workflow' ? { node: f.scope } : {}),
            code: 'unparsed_field',
            message: `${f.label}: the text typed here is not saved — ${f.error}. Fix it (or undo) to save the workflow.`,
          })),
      texts: (nodeIds) =>
        [...fields.values()]
          .filter((f) => f.scope === 'workflow' || nodeIds.includes(f.scope))
          .map(({ scope, field, label, text, error, base }) => ({ scope, field, label, text, error, base })),
      restore,
      generation,
    }),
    [fields, set, clear, restore, generation],
  );
  return <Fields.Provider value={value}>{children}</Fields.Provider>;
}

export function useUnparsedFields(): UnparsedFields {
  return useContext(Fields);
}

export const fieldKey = (scope: string, field: string) => `${scope}\u0000${field}`;

/** The key of one field of the node in scope. */
export function useFieldKey(field: string): { key: string; scope: string } {
  const scope = useContext(FieldScope);
  return { key: fieldKey(scope, field), scope };
}
