import { z } from 'zod';
import { credentialNameOf, isCredentialRef } from '../contracts/credentials';
import type { OllamaModelInfo, ProviderStatus } from '../contracts/host-api';
import { hostOf, ModelRef, modelLabel, type ModelRole } from '../contracts/model';
import { ModelScript } from '../contracts/script';
import { AgentSpec, McpServerSpec, PHASE_LABELS, ReviewRules, SupervisionSpec } from '../contracts/spec';
import { EffectClass, EffectSource, isProtectedEffect } from '../contracts/tool-effect';
import { capabilityWarnings } from './model-capabilities';
import { readTrustWarning, resolveToolEffect, trustsServerForRead } from './effect-registry';
import { checkProviderAllowed, describeExposure, LOCAL_ONLY, type PrivacyPolicy } from './privacy';

/**
 * The Supervision & Learning panel's **Validate** button: everything a run would trip over, and
 * what it would do that the user may not expect, checked from what the app already knows (the
 * spec, provider status, keychain names, privacy policy, an MCP inspection). Pure: no model is
 * called and no server started; checks that need a fact the caller did not pass are skipped.
 */

export const ConfigIssue = z
  .object({
    /** Dotted path into the spec, e.g. `models.teacher`, `supervision.rules.tools.0`, `servers.1.env.TOKEN`. */
    field: z.string(),
    /** A sentence a person can act on. */
    message: z.string().min(1),
  })
  .strict();
export type ConfigIssue = z.infer<typeof ConfigIssue>;

export const ConfigReport = z
  .object({
    /** The run would fail or be refused: fix these first. */
    errors: z.array(ConfigIssue),
    /** The run starts, but something will not behave as the user may expect. */
    warnings: z.array(ConfigIssue),
    /** "Valid configuration", "Valid configuration · 2 warnings", "2 errors · 1 warning". */
    status: z.string(),
    /** "Phase 2 · Student fully gated", or "Supervision off". */
    phaseLabel: z.string(),
  })
  .strict();
export type ConfigReport = z.infer<typeof ConfigReport>;

/** A tool the agent's servers offer, as an MCP inspection (the registry) reports it. */
export const OfferedToolInfo = z.object({ name: z.string().min(1), effect: EffectClass, effect_source: EffectSource }).strict();
export type OfferedToolInfo = z.infer<typeof OfferedToolInfo>;

export interface ValidateConfigInput {
  spec: AgentSpec;
  /** `providers.status`: Ollama reachability, installed models and their capabilities. */
  providers?: ProviderStatus;
  /** Names of the credentials in the OS keychain (`credentials.list`). */
  credentials?: readonly string[];
  /** The workspace's privacy policy; local only when absent (as for a run). */
  privacy?: PrivacyPolicy;
  /** The tools the agent's servers offer, when an MCP inspection has listed them. */
  offeredTools?: readonly OfferedToolInfo[];
}

type Segment = string | number;
interface Found {
  path: Segment[];
  message: string;
}

const ROLES = ['student', 'teacher'] as const satisfies readonly ModelRole[];
const SUPERVISION_DEFAULTS = SupervisionSpec.parse({});

export function phaseLabel(supervision: Pick<SupervisionSpec, 'enabled' | 'phase'>): string {
  return supervision.enabled ? `Phase ${supervision.phase} · ${PHASE_LABELS[supervision.phase]}` : 'Supervision off';
}

export function validateSupervisionConfig(input: ValidateConfigInput): ConfigReport {
  const errors: Found[] = [];
  const warnings: Found[] = [];
  const ctx: Ctx = {
    ...input,
    error: (path, message) => void errors.push({ path, message }),
    warn: (path, message) => void warnings.push({ path, message }),
  };
  checkModels(ctx);
  checkScript(ctx);
  checkCredentials(ctx);
  checkVariables(ctx);
  checkSupervision(ctx);
  checkTools(ctx);
  return {
    errors: sortIssues(errors),
    warnings: sortIssues(warnings),
    status: statusLine(errors.length, warnings.length),
    phaseLabel: phaseLabel(input.spec.supervision),
  };
}

interface Ctx extends ValidateConfigInput {
  error(path: Segment[], message: string): void;
  warn(path: Segment[], message: string): void;
}

function statusLine(errors: number, warnings: number): string {
  const count = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (errors > 0) return warnings > 0 ? `${count(errors, 'error')} · ${count(warnings, 'warning')}` : count(errors, 'error');
  return warnings > 0 ? `Valid configuration · ${count(warnings, 'warning')}` : 'Valid configuration';
}

/** Whether a role's model is called at all: phase 0 never asks the student; no supervision, no teacher. */
function roleUsed(spec: AgentSpec, role: ModelRole): boolean {
  const { enabled, phase } = spec.supervision;
  return role === 'teacher' ? enabled : !(enabled && phase === 0);
}

/** The student proposes (and so can produce invalid output): supervision off, or phase 2 and up. */
function studentProposes(spec: AgentSpec): boolean {
  return !spec.supervision.enabled || spec.supervision.phase >= 2;
}

// ---------------------------------------------------------------------------------------------
// Models: privacy, Ollama status, capabilities, exposure.

function checkModels(ctx: Ctx): void {
  const { spec, providers } = ctx;
  const policy = ctx.privacy ?? LOCAL_ONLY;
  const ollamaDefault = providers?.ollama.host;
  const exposure = describeExposure(spec.models, ollamaDefault);
  for (const role of ROLES) {
    const ref = spec.models[role];
    const path = ['models', role];
    // The host checks both roles before a run starts, used or not: so does Validate.
    const allowed = checkProviderAllowed(ref, role, policy, ollamaDefault);
    if (!allowed.ok) ctx.error(path, sentence(allowed.message));
    if (!roleUsed(spec, role)) continue;

    const seen = exposure.find((e) => e.role === role);
    if (allowed.ok && seen && !seen.local) {
      ctx.warn(path, `The ${role} model ${seen.model} runs on ${seen.host ?? 'another host'}: it will see ${listText(seen.data)}.`);
    }
    if (ref.provider === 'openai_compatible' && ref.api_key === undefined && !seen?.local) {
      ctx.warn([...path, 'api_key'], `The ${role} model ${modelLabel(ref)} has no api_key: most hosted APIs refuse requests without one; store the key in the keychain and write keychain:NAME.`);
    }
    if (ref.provider === 'ollama') checkOllamaModel(ctx, role, ref);
  }
  const { student, teacher } = spec.models;
  if (spec.supervision.enabled && sameModel(student, teacher, ollamaDefault)) {
    ctx.warn(['models', 'teacher'], `The teacher is the same model as the student (${modelLabel(teacher)}): it will tend to approve its own mistakes; pick a stronger teacher.`);
  }
}

function checkOllamaModel(ctx: Ctx, role: ModelRole, ref: Extract<ModelRef, { provider: 'ollama' }>): void {
  const status = ctx.providers?.ollama;
  // Only what the app's status describes: a ref pointing at another Ollama server is not known here.
  if (!status || hostOf(ref.host ?? status.host) !== hostOf(status.host)) return;
  const path = ['models', role];
  const where = hostOf(status.host);
  if (!status.reachable) {
    ctx.warn(path, `The ${role} model ${ref.model} needs Ollama at ${where}, which is not reachable: start Ollama (ollama serve) before running, or pick another model.`);
    return;
  }
  const installed = findOllamaModel(status.models, ref.model);
  if (!installed) {
    const names = status.models.map((m) => m.name);
    ctx.error(
      path,
      `The ${role} model ${ref.model} is not installed in Ollama at ${where} (${names.length ? `installed: ${names.join(', ')}` : 'no models installed'}): run \`ollama pull ${ref.model}\` or pick an installed model.`,
    );
    return;
  }
  for (const w of capabilityWarnings(ref, installed.capabilities)) ctx.warn(path, `The ${role} model ${sentence(w, false)}`);
}

/** Ollama treats a name without a tag as `:latest`. */
function ollamaName(name: string): string {
  const lower = name.toLowerCase();
  return /:[^/]+$/.test(lower) ? lower : `${lower}:latest`;
}

function findOllamaModel(models: readonly OllamaModelInfo[], name: string): OllamaModelInfo | undefined {
  const wanted = ollamaName(name);
  return models.find((m) => ollamaName(m.name) === wanted);
}

function sameModel(a: ModelRef, b: ModelRef, ollamaDefault: string | undefined): boolean {
  if (a.provider === 'ollama' && b.provider === 'ollama') {
    const host = (r: typeof a) => hostOf(r.host ?? ollamaDefault ?? 'http://127.0.0.1:11434');
    return ollamaName(a.model) === ollamaName(b.model) && host(a) === host(b);
  }
  if (a.provider === 'openai_compatible' && b.provider === 'openai_compatible') {
    return a.model === b.model && hostOf(a.base_url) === hostOf(b.base_url);
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// The replay script.

function checkScript(ctx: Ctx): void {
  const { spec } = ctx;
  const scripted = ROLES.filter((r) => spec.models[r].provider === 'script');
  if (scripted.length === 0) {
    if (spec.script) ctx.warn(['script'], 'The spec has a replay script, but neither model uses the replay (script) provider: it is ignored.');
    if (spec.script_file) ctx.warn(['script_file'], 'The spec names a script_file, but neither model uses the replay (script) provider: it is ignored.');
    return;
  }
  if (!spec.script && !spec.script_file) {
    for (const role of scripted) {
      ctx.error(['models', role], `The ${role} uses the replay (script) provider, but the spec has no script or script_file to replay: add one, or pick a real model.`);
    }
    return;
  }
  // An inline script can be checked here; a script_file is read by the host.
  if (!spec.script) return;
  const { phase, enabled } = spec.supervision;
  for (const role of scripted) {
    if (!roleUsed(spec, role) || spec.script[role].length > 0) continue;
    const path = ['script', role];
    if (role === 'student') ctx.error(path, 'The replay script has no student responses: the first round will fail; add student entries.');
    else if (enabled && phase <= 2) ctx.error(path, `The replay script has no teacher responses, but in phase ${phase} the teacher is called every round: add teacher entries.`);
    else ctx.warn(path, 'The replay script has no teacher responses: any round sent for review will have no usable verdict and be blocked.');
  }
}

// ---------------------------------------------------------------------------------------------
// Keychain references.

function checkCredentials(ctx: Ctx): void {
  if (!ctx.credentials) return;
  const names = new Set(ctx.credentials);
  const check = (path: Segment[], value: string): void => {
    if (!isCredentialRef(value)) return;
    const name = credentialNameOf(value);
    if (!names.has(name)) {
      ctx.error(path, `The keychain has no credential named ${name}: store it (Settings → Credentials, or steward credentials set ${name}) or correct the reference.`);
    }
  };
  for (const role of ROLES) {
    const ref = ctx.spec.models[role];
    if (ref.provider === 'openai_compatible' && ref.api_key !== undefined) check(['models', role, 'api_key'], ref.api_key);
  }
  ctx.spec.servers.forEach((server, i) => {
    for (const [key, value] of Object.entries(server.env ?? {})) check(['servers', i, 'env', key], value);
    for (const [key, value] of Object.entries(server.headers ?? {})) check(['servers', i, 'headers', key], value);
  });
}

// ---------------------------------------------------------------------------------------------
// `${name}` variables (the same rule as src-shared/util/substitute.ts, reported instead of thrown).

const VARIABLE = /\$\{([^}]*)\}/g;

function checkVariables(ctx: Ctx): void {
  const { spec } = ctx;
  const known = ['specDir', ...(spec.workspace !== undefined ? ['workspace'] : [])];
  const check = (path: Segment[], value: unknown): void => {
    const unknown = [...new Set(stringsIn(value).flatMap((s) => [...s.matchAll(VARIABLE)].map((m) => m[1] ?? '')))].filter((v) => !known.includes(v));
    for (const name of unknown) {
      ctx.error(
        path,
        name === 'workspace'
          ? 'Uses ${workspace}, but the spec sets no workspace: set workspace (a folder, relative to the spec file).'
          : `Unknown variable \${${name}}: the known ones are ${known.map((k) => '${' + k + '}').join(', ')}.`,
      );
    }
  };
  check(['instructions'], spec.instructions);
  check(['task'], spec.task);
  spec.servers.forEach((server, i) => {
    server.args.forEach((arg, j) => check(['servers', i, 'args', j], arg));
    for (const [key, value] of Object.entries(server.env ?? {})) check(['servers', i, 'env', key], value);
    for (const [key, value] of Object.entries(server.headers ?? {})) check(['servers', i, 'headers', key], value);
  });
  if (spec.script) check(['script'], spec.script);
}

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

// ---------------------------------------------------------------------------------------------
// Supervision: phases, rules, safe failures.

function checkSupervision(ctx: Ctx): void {
  const { spec, offeredTools } = ctx;
  const sup = spec.supervision;
  const { rules } = sup;
  if (!sup.enabled) {
    if (sup.phase <= 1) {
      ctx.error(
        ['supervision', 'phase'],
        `Phase ${sup.phase} (${PHASE_LABELS[sup.phase]}) needs the teacher to decide, but supervision is off: nobody would. Turn supervision on, or pick phase 2–4.`,
      );
    }
    const protectedTools = offeredTools?.filter((t) => isProtectedEffect(t.effect)).map((t) => t.name);
    if (protectedTools === undefined ? spec.servers.length > 0 : protectedTools.length > 0) {
      ctx.warn(
        ['supervision', 'enabled'],
        protectedTools === undefined
          ? 'Supervision is off: with no teacher to review them, every call to a protected tool (anything but read) will be blocked.'
          : `Supervision is off: with no teacher to review them, every call to ${listText(protectedTools)} (protected) will be blocked.`,
      );
    }
  }

  if (sup.enabled && sup.phase === 4) {
    if (rules.sample_rate === 0) {
      ctx.warn(['supervision', 'rules', 'sample_rate'], 'Phase 4 (Autonomous) with sample_rate 0: unprotected decisions are never audited; set a small sample rate (e.g. 0.05) to keep measuring the student.');
    }
    // These rules are phase 3 only (docs/supervision.md): a user may expect them to hold in phase 4.
    rules.tools.forEach((tool, i) => {
      ctx.warn(['supervision', 'rules', 'tools', i], `Phase 4 (Autonomous) ignores rules.tools: calls to ${tool} are not reviewed unless the tool is protected.`);
    });
    if (rules.complete) ctx.warn(['supervision', 'rules', 'complete'], 'Phase 4 (Autonomous) ignores rules.complete: finishes are not reviewed.');
    if (rules.min_confidence !== undefined) {
      ctx.warn(['supervision', 'rules', 'min_confidence'], 'Phase 4 (Autonomous) ignores rules.min_confidence: low-confidence decisions are not reviewed.');
    }
  }
  if (sup.enabled && sup.phase === 3 && rules.min_confidence !== undefined) {
    ctx.warn(
      ['supervision', 'rules', 'min_confidence'],
      `min_confidence ${rules.min_confidence}: a decision without a self-reported confidence counts as low, so unless the student reports one, most rounds will be reviewed.`,
    );
  }

  if (studentProposes(spec) && sup.max_repair_rounds === 0 && (!sup.enabled || !rules.validation_failed)) {
    ctx.warn(
      ['supervision', 'max_repair_rounds'],
      `max_repair_rounds 0 ${sup.enabled ? 'with rules.validation_failed off' : 'with supervision off'}: invalid student output just fails the round, and ${spec.limits.max_consecutive_failures} in a row fail the run; allow a repair${sup.enabled ? ' or send invalid output to the teacher' : ''}.`,
    );
  }
  if (sup.on_block !== 'safe_message' && sup.safe_message !== SUPERVISION_DEFAULTS.safe_message) {
    ctx.warn(['supervision', 'safe_message'], `safe_message is set but on_block is ${sup.on_block}: the message is never shown; set on_block to safe_message to use it.`);
  }
  if (sup.on_escalate === 'fail' && sup.takeover_rounds !== SUPERVISION_DEFAULTS.takeover_rounds) {
    ctx.warn(['supervision', 'takeover_rounds'], 'takeover_rounds is set but on_escalate is fail: an escalation ends the run and the teacher never takes over.');
  }
}

// ---------------------------------------------------------------------------------------------
// Tools: what the servers offer against what the spec names.

function checkTools(ctx: Ctx): void {
  const { spec, offeredTools } = ctx;
  spec.servers.forEach((server, i) => {
    if (server.tools?.length === 0) ctx.warn(['servers', i, 'tools'], `Server ${server.id} offers no tools (tools is empty): remove the list to offer all of them, or name some.`);
  });
  for (const [key, effect] of Object.entries(spec.tool_effects)) {
    const slash = key.indexOf('/');
    const serverId = key.slice(0, slash);
    const tool = key.slice(slash + 1);
    const packageName = spec.servers.find((s) => s.id === serverId)?.package;
    const shipped = resolveToolEffect({ serverId, packageName, tool, overrides: {} });
    if (trustsServerForRead({ effect, source: 'user' }, shipped)) ctx.warn(['tool_effects', key], readTrustWarning(key));
  }
  if (!offeredTools) return;
  const offered = new Set(offeredTools.map((t) => t.name));
  const offeredText = offered.size ? [...offered].join(', ') : 'none';
  spec.supervision.rules.tools.forEach((tool, i) => {
    if (!offered.has(tool)) {
      ctx.error(['supervision', 'rules', 'tools', i], `rules.tools names ${tool}, which no server of this agent offers (offered: ${offeredText}): correct the name or remove it.`);
    }
  });
  for (const key of Object.keys(spec.tool_effects)) {
    const tool = key.slice(key.indexOf('/') + 1);
    if (!offered.has(tool)) ctx.warn(['tool_effects', key], `tool_effects sets ${key}, but no server offers a tool ${tool}: the setting has no effect.`);
  }
  for (const tool of offeredTools) {
    if (tool.effect_source !== 'missing') continue;
    ctx.warn(
      ['tool_effects'],
      `${tool.name} has no effect metadata, so it is protected (unknown): every call is reviewed by the teacher${spec.supervision.enabled ? '' : ' (blocked while supervision is off)'}. Set its effect in the MCP registry.`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Deterministic order: errors and warnings each in field order (the spec's schema order), then in
// the order found.

/** Sibling order per parent path (numbers as `#`), from the schemas so a new field needs no edit. */
const modelKeys = [...new Set(ModelRef.options.flatMap((o) => Object.keys(o.shape)))];
const FIELD_ORDER: Record<string, readonly string[]> = {
  '': Object.keys(AgentSpec.shape),
  'servers.#': Object.keys(McpServerSpec.shape),
  models: ROLES,
  'models.student': modelKeys,
  'models.teacher': modelKeys,
  supervision: Object.keys(SupervisionSpec.shape),
  'supervision.rules': Object.keys(ReviewRules.shape),
  script: Object.keys(ModelScript.shape),
};

function compareSegments(a: readonly Segment[], b: readonly Segment[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) {
    const x = a[i];
    const y = b[i];
    if (x === y || x === undefined || y === undefined) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    const order = FIELD_ORDER[a.slice(0, i).map((s) => (typeof s === 'number' ? '#' : s)).join('.')] ?? [];
    const rx = order.indexOf(x);
    const ry = order.indexOf(y);
    if (rx !== ry) return rx === -1 ? 1 : ry === -1 ? -1 : rx - ry;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

function sortIssues(found: readonly Found[]): ConfigIssue[] {
  // Array.prototype.sort is stable: issues on one field keep the order they were found in.
  return [...found].sort((p, q) => compareSegments(p.path, q.path)).map((f) => ({ field: f.path.join('.'), message: f.message }));
}

function sentence(text: string, capital = true): string {
  const body = capital ? text.charAt(0).toUpperCase() + text.slice(1) : text;
  return /[.!?]$/.test(body) ? body : `${body}.`;
}

function listText(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1) ?? ''}`;
}
