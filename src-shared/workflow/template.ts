/**
 * Templates over a node's inputs: `{{name}}` and `{{name.path.0}}` (a dot path into objects and
 * arrays). `${...}` is left alone: that is the spec's own variable syntax, substituted elsewhere.
 * Values are inserted once and never templated again, paths read own properties only (never
 * `__proto__` or `constructor`), and a rendering has a size bound.
 */

export type TemplateResult = { ok: true; value: unknown } | { ok: false; message: string };

export const MAX_RENDERED_CHARS = 1_000_000;

/** `{{ name.path }}`: a port name, then dot segments (keys or indices). */
const PLACEHOLDER = /\{\{\s*([a-z_][a-z0-9_]*)((?:\.[^.\s{}]+)*)\s*\}\}/g;
const WHOLE = /^\{\{\s*([a-z_][a-z0-9_]*)((?:\.[^.\s{}]+)*)\s*\}\}$/;

type Lookup = { ok: true; value: unknown } | { ok: false; message: string };

export function renderTemplate(template: string, inputs: Record<string, unknown>): TemplateResult {
  let failure: string | undefined;
  // Counted as it grows: many placeholders of one large input must not build a giant string first.
  let length = template.length;
  const tooLong = `the rendered template is longer than ${MAX_RENDERED_CHARS} characters`;
  const text = template.replace(PLACEHOLDER, (whole, name: string, path: string) => {
    if (failure !== undefined) return whole;
    const found = lookup(inputs, name, path);
    if (!found.ok) {
      failure = found.message;
      return whole;
    }
    const inserted = asText(found.value);
    if (inserted === undefined) failure = `{{${name}${path}}} cannot be written as text`;
    length += (inserted ?? whole).length - whole.length;
    if (length > MAX_RENDERED_CHARS) failure = tooLong;
    return failure === undefined ? (inserted ?? whole) : whole;
  });
  if (failure !== undefined) return { ok: false, message: failure };
  if (text.length > MAX_RENDERED_CHARS) return { ok: false, message: tooLong };
  return { ok: true, value: text };
}

/** Every string inside is templated (object keys are not); a string that is exactly `{{name}}` takes the value itself. */
export function renderJsonTemplate(value: unknown, inputs: Record<string, unknown>): TemplateResult {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    return whole ? lookup(inputs, whole[1] as string, whole[2] ?? '') : renderTemplate(value, inputs);
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const rendered = renderJsonTemplate(item, inputs);
      if (!rendered.ok) return rendered;
      out.push(rendered.value);
    }
    return { ok: true, value: out };
  }
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const rendered = renderJsonTemplate(item, inputs);
      if (!rendered.ok) return rendered;
      // defineProperty: a `__proto__` key from a document stays a plain key.
      Object.defineProperty(out, key, { value: rendered.value, enumerable: true, writable: true, configurable: true });
    }
    return { ok: true, value: out };
  }
  return { ok: true, value };
}

/** The input a string that is exactly `{{name…}}` takes whole (with its type), or undefined. */
export function wholeTemplateRef(text: string): string | undefined {
  return WHOLE.exec(text)?.[1];
}

/** The input names a template uses, first use first (text, or any JSON value whose strings are templates). */
export function templateRefs(template: unknown): string[] {
  const names = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') for (const m of value.matchAll(PLACEHOLDER)) names.add(m[1] as string);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (isRecord(value)) Object.values(value).forEach(visit);
  };
  visit(template);
  return [...names];
}

function lookup(inputs: Record<string, unknown>, name: string, path: string): Lookup {
  if (!Object.hasOwn(inputs, name)) return { ok: false, message: `the template uses {{${name}${path}}} but there is no input "${name}"` };
  let at: unknown = inputs[name];
  const segments = path === '' ? [] : path.slice(1).split('.');
  for (const segment of segments) {
    const next = step(at, segment);
    if (!next.found) return { ok: false, message: `the template uses {{${name}${path}}} but input "${name}" has nothing at ${path.slice(1)}` };
    at = next.value;
  }
  if (at === undefined) return { ok: false, message: `the template uses {{${name}${path}}} but input "${name}" has no value` };
  return { ok: true, value: at };
}

/** Arrays by index only (never `length`), objects by own key only. */
function step(value: unknown, segment: string): { found: true; value: unknown } | { found: false } {
  if (Array.isArray(value)) {
    if (!/^(0|[1-9][0-9]{0,8})$/.test(segment)) return { found: false };
    const i = Number(segment);
    return i < value.length ? { found: true, value: value[i] } : { found: false };
  }
  if (isRecord(value) && Object.hasOwn(value, segment)) return { found: true, value: value[segment] };
  return { found: false };
}

function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  try {
    return JSON.stringify(value);
  } catch {
    return undefined; // a cycle or a bigint: not JSON
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
