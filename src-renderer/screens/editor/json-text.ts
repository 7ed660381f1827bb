/**
 * What a JSON field's text means for the document: a value to take, or why it is not taken (its
 * text does not parse, or parses to a value the field does not take). Pure, for JsonField.
 */
export type JsonText = { ok: true; value: unknown } | { ok: false; error: string };

export function readJsonText(text: string, check?: (v: unknown) => string | undefined): JsonText {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `not JSON yet: ${err instanceof Error ? err.message : String(err)}` };
  }
  const refused = check?.(value);
  return refused === undefined ? { ok: true, value } : { ok: false, error: refused };
}
