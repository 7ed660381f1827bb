import { elicitationContent, type ElicitEntry, type ElicitField } from '@shared/policy/elicitation-form';
import type { ElicitationAsk, ElicitationReply } from '../../mcp/client-capabilities';
import type { ReadLine } from './ask-at-terminal';

/** How many passes over the fields that still do not fit before the form is cancelled. */
const MAX_PASSES = 3;

export interface ElicitIo {
  stderr: (text: string) => void;
  line: ReadLine;
  /** Opens a link in the system browser; without it the link is printed to open by hand. */
  openUrl?: (url: string) => void;
}

class Left extends Error {}

/**
 * A server's elicitation asked of the person at the terminal, field by field. `decline` or `cancel`
 * at any prompt answers so; leaving (Ctrl+D) cancels. A link is opened only after they say yes.
 */
export async function elicitAtTerminal(ask: ElicitationAsk, io: ElicitIo): Promise<ElicitationReply> {
  io.stderr(`MCP server "${ask.server}" asks you: ${ask.message}\n`);
  try {
    return ask.mode === 'url' ? await askLink(ask.url, io) : await askForm(ask.fields, io);
  } catch (error) {
    if (error instanceof Left) return { action: 'cancel' };
    throw error;
  }
}

async function askLink(url: string, io: ElicitIo): Promise<ElicitationReply> {
  io.stderr(`  it wants you to open ${url}\n`);
  for (;;) {
    const word = (await read(io, 'Open it? (yes / no / cancel): ')).toLowerCase();
    if (word === 'yes' || word === 'y') {
      if (io.openUrl) io.openUrl(url);
      else io.stderr(`  open this link in your browser: ${url}\n`);
      return { action: 'accept' };
    }
    if (word === 'no' || word === 'n' || word === 'decline') return { action: 'decline' };
    if (word === 'cancel') return { action: 'cancel' };
  }
}

async function askForm(fields: readonly ElicitField[], io: ElicitIo): Promise<ElicitationReply> {
  io.stderr('  type each answer (Enter keeps the default or skips an optional one); "decline" or "cancel" answers the whole form\n');
  const entries: Record<string, ElicitEntry | undefined> = {};
  let asking = [...fields];
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    for (const field of asking) {
      const typed = await read(io, prompt(field));
      if (typed === 'decline') return { action: 'decline' };
      if (typed === 'cancel') return { action: 'cancel' };
      entries[field.name] = entryOf(field, typed);
    }
    const checked = elicitationContent(fields, entries);
    if (checked.ok) return { action: 'accept', content: checked.content };
    for (const [name, problem] of Object.entries(checked.issues)) io.stderr(`  ${titleOf(fields, name)}: ${problem}\n`);
    asking = fields.filter((f) => Object.hasOwn(checked.issues, f.name));
  }
  io.stderr('  the form still does not fit; it is cancelled\n');
  return { action: 'cancel' };
}

async function read(io: ElicitIo, question: string): Promise<string> {
  const typed = await io.line(question);
  if (typed === undefined) throw new Left();
  return typed.trim();
}

function prompt(field: ElicitField): string {
  const hints: string[] = [];
  if (field.kind === 'choice' || field.kind === 'choices') hints.push(field.options.map((o) => (o.label === o.value ? o.value : `${o.value}=${o.label}`)).join(' | '));
  if (field.kind === 'choices') hints.push('comma-separated');
  if (field.kind === 'boolean') hints.push('yes/no');
  if (field.kind === 'text' && field.format) hints.push(field.format);
  if (field.kind === 'number') hints.push([field.integer ? 'whole number' : 'number', field.minimum !== undefined ? `≥ ${field.minimum}` : '', field.maximum !== undefined ? `≤ ${field.maximum}` : ''].filter(Boolean).join(' '));
  const fallback = defaultText(field);
  if (fallback !== undefined) hints.push(`default ${fallback}`);
  if (!field.required) hints.push('optional');
  return `${field.title}${field.description ? ` — ${field.description}` : ''} (${hints.join('; ')}): `;
}

/** What was typed as the field's entry; Enter alone takes the default. */
function entryOf(field: ElicitField, typed: string): ElicitEntry | undefined {
  if (typed === '') return field.default === undefined ? undefined : typeof field.default === 'number' ? String(field.default) : field.default;
  switch (field.kind) {
    case 'boolean':
      return /^(y|yes|true)$/i.test(typed) ? true : /^(n|no|false)$/i.test(typed) ? false : typed;
    case 'choices':
      return typed.split(',').map((v) => v.trim()).filter(Boolean);
    case 'text':
    case 'number':
    case 'choice':
      return typed;
  }
}

function defaultText(field: ElicitField): string | undefined {
  if (field.default === undefined) return undefined;
  if (Array.isArray(field.default)) return field.default.join(', ');
  if (typeof field.default === 'boolean') return field.default ? 'yes' : 'no';
  return String(field.default);
}

function titleOf(fields: readonly ElicitField[], name: string): string {
  return fields.find((f) => f.name === name)?.title ?? name;
}
