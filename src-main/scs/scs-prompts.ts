import { z } from 'zod';
import type { ChatMessage } from '@shared/contracts/model';
import { roundNumber } from '@shared/contracts/round-number';
import { dataCategories, type DataCategory } from '@shared/contracts/model-call';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { CommitteeDraft, DECISIONS_FOR_TRIGGER, MonitorDecision, PhasePlan, type ChangedFile, type RoundFact } from '@shared/scs/contracts';
import type { CommitteeInput, MonitorInput } from '@shared/scs/machine';
import { evidencePack, type RecentEvent } from './evidence';

let planSchema: Record<string, unknown> | undefined;
let draftSchema: Record<string, unknown> | undefined;
let decisionSchema: Record<string, unknown> | undefined;

/** JSON Schemas for structured output: the committee's phase plan and the monitor's decision. */
export function phasePlanJsonSchema(): Record<string, unknown> {
  return (planSchema ??= Object.freeze(z.toJSONSchema(PhasePlan, { io: 'input' })) as Record<string, unknown>);
}
/** The committee asked for alternatives: one plan or `{ alternatives: [plan, …] }`. */
export function committeeDraftJsonSchema(): Record<string, unknown> {
  return (draftSchema ??= Object.freeze(z.toJSONSchema(CommitteeDraft, { io: 'input' })) as Record<string, unknown>);
}
export function monitorDecisionJsonSchema(): Record<string, unknown> {
  return (decisionSchema ??= Object.freeze(z.toJSONSchema(MonitorDecision, { io: 'input' })) as Record<string, unknown>);
}

export interface PromptContext {
  task: string;
  instructions: string;
  snapshot: ToolSnapshot;
  /** The run's last events (the evidence pack's first part). */
  recent: RecentEvent[];
  /** The decisions so far within the transcript budget (newest verbatim, older summarised). */
  transcript?: string;
  /** The current phase's write-effect calls. */
  changed?: ChangedFile[];
  /** Why the phase stopped, when a stop condition matched (the monitor's review of it). */
  note?: string;
  /** How many alternative plans the committee is asked to draft (settings.alternatives; 1 or absent: one plan). */
  alternatives?: number;
}
type Context = PromptContext;

function toolList(snapshot: ToolSnapshot): string {
  return snapshot.tools.map((t) => `- ${t.name} (${t.effect.effect}): ${t.description.split('\n')[0] ?? ''}`).join('\n') || '- (no tools)';
}

function factList(facts: readonly RoundFact[]): string {
  if (facts.length === 0) return '(nothing has run yet)';
  return facts.map((f) => `- round ${roundNumber(f.round)} [${f.event_ids.at(-1) ?? '-'}]: ${f.summary}${f.failed ? ' — FAILED' : ''}`).join('\n');
}

function changeList(changed: readonly ChangedFile[]): string {
  if (changed.length === 0) return '(none)';
  return changed.map((c) => `- round ${roundNumber(c.round)}: ${c.tool} ${c.target} → ${c.result}`).join('\n');
}

/** A prompt and the categories of data it holds (the privacy log). */
export interface ScsPrompt {
  messages: ChatMessage[];
  data: DataCategory[];
}

export function buildCommitteePrompt(ctx: Context, input: CommitteeInput): ScsPrompt {
  const found: DataCategory[] = ['instructions', 'task'];
  if (ctx.snapshot.tools.length > 0) found.push('offered_tools');
  if (input.facts.length > 0) found.push('round_facts');
  if (input.feedback.length > 0) found.push('feedback');
  return { messages: buildCommitteeMessages(ctx, input), data: dataCategories(found) };
}

/** Committee · planner: drafts the next phase (1–3 milestones' worth), never executes. */
export function buildCommitteeMessages(ctx: Context, input: CommitteeInput): ChatMessage[] {
  const feedback = input.feedback.length ? `\n\nEarlier drafts were not approved; address this:\n${input.feedback.map((f) => `- ${f}`).join('\n')}` : '';
  return [
    {
      role: 'system',
      content: [
        'You are the committee of a Student-Committee-Supervisor workflow. You draft the plan for the NEXT PHASE of the task only: one concrete milestone with 3 to 6 concrete steps.',
        'You cannot approve your own plan and you never call tools. Return exactly one JSON object with: phase_goal, plan (3-6 steps), acceptance_criteria (observable evidence), allowed_tools (only from the list), stop_conditions, and optionally next_required_action (the one allowed tool the executor must call first).',
        'Write stop conditions the runtime can check after every round: quote the text of a tool result that means stop (e.g. the notes are missing ("ENOENT")), or say "same failure twice" or "any failure". Other wording is advice only.',
        'When earlier phases were accepted, draft the next milestone toward the task, not the same one again.',
        ...((ctx.alternatives ?? 1) > 1
          ? [`Draft ${ctx.alternatives ?? 2} genuinely different alternative plans for this phase, as {"alternatives": [plan, plan, …]}; the student selects one, may edit it, or vetoes all.`]
          : []),
        `Agent instructions:\n${ctx.instructions}`,
        `Tools the executor may be allowed:\n${toolList(ctx.snapshot)}`,
      ].join('\n\n'),
    },
    {
      role: 'user',
      content: `Task: ${ctx.task}\n\nPhase ${input.phase}, draft ${input.attempt}.\n\nWhat has happened so far:\n${ctx.transcript || factList(input.facts)}${feedback}`,
    },
  ];
}

/** Student · monitor: a typed gate on the evidence pack; it has no authority beyond its decisions. */
export function buildMonitorMessages(ctx: Context, input: MonitorInput): ChatMessage[] {
  return buildMonitorPrompt(ctx, input).messages;
}

export function buildMonitorPrompt(ctx: Context, input: MonitorInput): ScsPrompt {
  const pack = evidencePack({
    trigger: input.trigger,
    task: ctx.task,
    plan: input.plan,
    recent: ctx.recent,
    facts: input.facts,
    changed: ctx.changed ?? [],
    transcript: ctx.transcript ?? '',
    note: input.trigger === 'stop_condition' ? ctx.note : undefined,
    rounds_used: input.rounds_used,
    budget: input.budget,
  });
  const found: DataCategory[] = ['task'];
  if (pack.plan) found.push('phase_plan');
  if (pack.failures.length > 0) found.push('round_facts');
  if (pack.recent.length > 0) found.push('recent_events');
  return { messages: monitorMessages(input, pack), data: dataCategories(found) };
}

/** A plan review over alternatives: each plan numbered, and how to choose, edit or veto them all. */
function alternativesText(input: MonitorInput): string[] {
  const alternatives = input.alternatives ?? [];
  const refusal = input.refusal ? [`Your last answer was refused: ${input.refusal}. Answer again.`] : [];
  if (alternatives.length < 2) return refusal;
  const listed = alternatives.map(
    (p, i) => `Plan ${i + 1}:\n- goal: ${p.phase_goal}\n- steps: ${p.plan.join(' → ')}\n- acceptance criteria: ${p.acceptance_criteria.join('; ')}\n- allowed tools: ${p.allowed_tools.join(', ') || '(none)'}`,
  );
  return [
    `The committee drafted ${alternatives.length} alternative plans. Approve one with approve_plan and choice (its number); you may edit it with edit (the fields you replace, e.g. {"plan": [...]}; the edited plan must still be a valid plan, and may remove allowed tools but never add one). veto_plan vetoes all of them.`,
    ...listed,
    ...refusal,
  ];
}

function monitorMessages(input: MonitorInput, pack: ReturnType<typeof evidencePack>): ChatMessage[] {
  const allowed = DECISIONS_FOR_TRIGGER[input.trigger].join(' | ');
  const plan = pack.plan
    ? `Phase ${input.phase} plan:\n- goal: ${pack.plan.phase_goal}\n- steps: ${pack.plan.plan.join(' → ')}\n- allowed tools: ${pack.plan.allowed_tools.join(', ') || '(none)'}\n- stop conditions: ${pack.plan.stop_conditions.join('; ') || '(none)'}`
    : '(no plan yet)';
  const criteria = pack.acceptance_criteria.length ? pack.acceptance_criteria.map((c) => `- ${c}`).join('\n') : '(none yet)';
  const recent = pack.recent.length ? pack.recent.map((e) => `- [${e.id}] ${e.type}: ${e.summary}`).join('\n') : '(no events yet)';
  return [
    {
      role: 'system',
      content: [
        'You are the student (monitor) of a Student-Committee-Supervisor workflow. You do not execute; you gate on evidence.',
        `You are asked because of: ${input.trigger}. Answer with exactly one JSON object: decision (${allowed}), confidence (0-1), evidence (the event ids you rely on), reason (short and concrete), next_required_action, and extend_by for extend_steps.`,
        'Allow a finish only when the evidence shows every acceptance criterion met, and cite it. Never approve a plan that breaks the instructions.',
      ].join('\n\n'),
    },
    {
      role: 'user',
      content: [
        `Task: ${pack.task}`,
        ...(pack.note ? [pack.note] : []),
        ...(input.trigger === 'file_batch' ? [`A batch of file changes: ${pack.changed_files.length} write-effect call(s) in this phase so far; review them against the plan.`] : []),
        plan,
        ...(input.trigger === 'plan' ? alternativesText(input) : []),
        `Acceptance criteria:\n${criteria}`,
        `Rounds used: ${pack.rounds_used} of ${pack.budget}.`,
        `Failures so far:\n${factList(pack.failures)}`,
        `Changed files in this phase (write-effect calls):\n${changeList(pack.changed_files)}`,
        ...(pack.transcript ? [`Decisions so far (older ones summarised):\n${pack.transcript}`] : []),
        `Latest events (last 20, oldest first):\n${recent}`,
      ].join('\n\n'),
    },
  ];
}
