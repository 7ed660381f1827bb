/**
 * An MCP server's elicitation form (`elicitation/create`, form mode) as fields a person fills in,
 * in the app or at a terminal, and the person's entries checked back into the content the server
 * asked for. The MCP spec restricts a form to a flat object of primitives: text (with a format),
 * number or integer (with bounds), boolean, one choice of an enum, several choices of an enum.
 * Anything else fails closed: the form cannot be shown, so the request is declined.
 */

export interface ChoiceOption {
  value: string;
  label: string;
}

interface FieldBase {
  name: string;
  title: string;
  description?: string;
  required: boolean;
}

export type ElicitField =
  | (FieldBase & { kind: 'text'; format?: 'email' | 'uri' | 'date' | 'date-time'; min_length?: number; max_length?: number; default?: string })
  | (FieldBase & { kind: 'number'; integer: boolean; minimum?: number; maximum?: number; default?: number })
  | (FieldBase & { kind: 'boolean'; default?: boolean })
  | (FieldBase & { kind: 'choice'; options: ChoiceOption[]; default?: string })
  | (FieldBase & { kind: 'choices'; options: ChoiceOption[]; min_items?: number; max_items?: number; default?: string[] });

export type ElicitFieldKind = ElicitField['kind'];

/** What a person typed or picked: text for text and number fields, a flag, a value, values. */
export type ElicitEntry = string | boolean | string[];
export type ElicitContent = Record<string, string | number | boolean | string[]>;

type Schema = Record<string, unknown>;
const FORMATS = ['email', 'uri', 'date', 'date-time'] as const;

/** The form's fields in the schema's order, or why it cannot be shown. */
export function elicitationFields(requested: unknown): { ok: true; fields: ElicitField[] } | { ok: false; problem: string } {
  if (!isObject(requested) || requested.type !== 'object' || !isObject(requested.properties)) return { ok: false, problem: 'the requested schema is not an object of fields' };
  const required = new Set(Array.isArray(requested.required) ? requested.required.filter((r): r is string => typeof r === 'string') : []);
  const fields: ElicitField[] = [];
  for (const [name, property] of Object.entries(requested.properties)) {
    const field = isObject(property) ? fieldOf(name, property, required.has(name)) : undefined;
    if (!field) return { ok: false, problem: `field "${name}" is not a text, number, yes/no or choice field` };
    fields.push(field);
  }
  return { ok: true, fields };
}

function fieldOf(name: string, p: Schema, required: boolean): ElicitField | undefined {
  const base: FieldBase = { name, title: str(p.title) ?? name, ...(str(p.description) ? { description: str(p.description) } : {}), required };
  switch (p.type) {
    case 'string': {
      const options = optionsOf(p);
      if (options) return { ...base, kind: 'choice', options, ...(str(p.default) !== undefined ? { default: str(p.default) } : {}) };
      const format = FORMATS.find((f) => f === p.format);
      return { ...base, kind: 'text', ...(format ? { format } : {}), ...bound('min_length', p.minLength), ...bound('max_length', p.maxLength), ...(str(p.default) !== undefined ? { default: str(p.default) } : {}) };
    }
    case 'number':
    case 'integer':
      return { ...base, kind: 'number', integer: p.type === 'integer', ...bound('minimum', p.minimum), ...bound('maximum', p.maximum), ...(typeof p.default === 'number' ? { default: p.default } : {}) };
    case 'boolean':
      return { ...base, kind: 'boolean', ...(typeof p.default === 'boolean' ? { default: p.default } : {}) };
    case 'array': {
      const options = isObject(p.items) ? optionsOf(p.items) : undefined;
      if (!options) return undefined;
      const chosen = Array.isArray(p.default) ? p.default.filter((d): d is string => typeof d === 'string') : undefined;
      return { ...base, kind: 'choices', options, ...bound('min_items', p.minItems), ...bound('max_items', p.maxItems), ...(chosen ? { default: chosen } : {}) };
    }
    default:
      return undefined;
  }
}

/** `enum` (with `enumNames` as labels) or `oneOf`/`anyOf` of `{ const, title }`. */
function optionsOf(p: Schema): ChoiceOption[] | undefined {
  if (Array.isArray(p.enum)) {
    const labels = Array.isArray(p.enumNames) ? p.enumNames : [];
    return p.enum.filter((v): v is string => typeof v === 'string').map((value, i) => ({ value, label: str(labels[i]) ?? value }));
  }
  const listed = Array.isArray(p.oneOf) ? p.oneOf : Array.isArray(p.anyOf) ? p.anyOf : undefined;
  if (!listed) return undefined;
  const options = listed.filter(isObject).flatMap((o) => (typeof o.const === 'string' ? [{ value: o.const, label: str(o.title) ?? o.const }] : []));
  return options.length > 0 ? options : undefined;
}

/**
 * The person's entries as the content the server asked for, or each field's problem. An empty
 * optional field is left out; a required one must be given.
 */
export function elicitationContent(fields: readonly ElicitField[], entries: Readonly<Record<string, ElicitEntry | undefined>>): { ok: true; content: ElicitContent } | { ok: false; issues: Record<string, string> } {
  const content: ElicitContent = {};
  const issues: Record<string, string> = {};
  for (const field of fields) {
    const entry = Object.hasOwn(entries, field.name) ? entries[field.name] : undefined;
    const checked = checkEntry(field, entry);
    if (typeof checked === 'object' && checked !== null && 'problem' in checked) issues[field.name] = checked.problem;
    else if (checked !== undefined) content[field.name] = checked;
  }
  return Object.keys(issues).length > 0 ? { ok: false, issues } : { ok: true, content };
}

type Checked = string | number | boolean | string[] | undefined | { problem: string };

function checkEntry(field: ElicitField, entry: ElicitEntry | undefined): Checked {
  const empty = entry === undefined || entry === '' || (Array.isArray(entry) && entry.length === 0 && field.kind !== 'choices');
  if (empty && field.kind !== 'boolean') return field.required ? { problem: 'required' } : undefined;
  switch (field.kind) {
    case 'boolean':
      if (typeof entry === 'boolean') return entry;
      return field.required ? { problem: 'answer yes or no' } : undefined;
    case 'text': {
      if (typeof entry !== 'string') return { problem: 'expected text' };
      if (field.min_length !== undefined && entry.length < field.min_length) return { problem: `at least ${field.min_length} characters` };
      if (field.max_length !== undefined && entry.length > field.max_length) return { problem: `at most ${field.max_length} characters` };
      return formatProblem(field.format, entry) ?? entry;
    }
    case 'number': {
      const n = typeof entry === 'string' ? Number(entry.trim()) : Number.NaN;
      if (!Number.isFinite(n)) return { problem: 'expected a number' };
      if (field.integer && !Number.isInteger(n)) return { problem: 'expected a whole number' };
      if (field.minimum !== undefined && n < field.minimum) return { problem: `at least ${field.minimum}` };
      if (field.maximum !== undefined && n > field.maximum) return { problem: `at most ${field.maximum}` };
      return n;
    }
    case 'choice':
      return typeof entry === 'string' && field.options.some((o) => o.value === entry) ? entry : { problem: `one of ${field.options.map((o) => o.value).join(', ')}` };
    case 'choices': {
      const values = Array.isArray(entry) ? entry : [];
      if (values.some((v) => !field.options.some((o) => o.value === v))) return { problem: `only ${field.options.map((o) => o.value).join(', ')}` };
      if (field.min_items !== undefined && values.length < field.min_items) return { problem: `pick at least ${field.min_items}` };
      if (field.max_items !== undefined && values.length > field.max_items) return { problem: `pick at most ${field.max_items}` };
      if (values.length === 0 && !field.required) return undefined;
      return values;
    }
  }
}

function formatProblem(format: 'email' | 'uri' | 'date' | 'date-time' | undefined, text: string): { problem: string } | undefined {
  switch (format) {
    case undefined:
      return undefined;
    case 'email':
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text) ? undefined : { problem: 'expected an email address' };
    case 'uri':
      return /^[a-z][a-z0-9+.-]*:\S+$/i.test(text) ? undefined : { problem: 'expected a link (https://…)' };
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(text)) ? undefined : { problem: 'expected a date (YYYY-MM-DD)' };
    case 'date-time':
      return Number.isNaN(Date.parse(text)) ? { problem: 'expected a date and time' } : undefined;
  }
}

function bound<K extends string>(key: K, value: unknown): Partial<Record<K, number>> {
  return typeof value === 'number' ? ({ [key]: value } as Partial<Record<K, number>>) : {};
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function isObject(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
