import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { ResolvedContext } from '@shared/learning/learning-context';
import { Decision } from '@shared/contracts/decision';
import type { ChatMessage } from '@shared/contracts/model';
import { REVIEW_RULE_LABELS } from '@shared/policy/review-policy';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import type { LearningExampleRow } from './example-row';
import { DecisionView } from '../../components/DecisionView';
import { VerdictChip } from '../../components/Chip';
import { shortJson } from '../../view/describe-decision';
import { examplePrompt, storedPrompt } from './example-prompt';
import { roundNumber } from '@shared/contracts/round-number';
import { REASON_CODE_LABELS } from '@shared/contracts/code-words';
import { ScrollPre } from '../../components/ScrollPre';

const ROLE_LABELS: Record<string, string> = { system: 'Instructions (system)', user: 'Asked (user)', assistant: 'Student (assistant)', tool: 'Tool result' };

/** A decision as a person reads it; anything else a model said, as it said it. */
function ValueOrDecision({ value, testId }: { value: unknown; testId: string }) {
  const decision = Decision.safeParse(value);
  if (decision.success) {
    return (
      <div data-testid={testId}>
        <DecisionView decision={decision.data} />
      </div>
    );
  }
  return (
    <pre className={typeof value === 'string' ? 'code code--quote' : 'code'} data-testid={testId}>
      {typeof value === 'string' ? value || '(empty reply)' : shortJson(value)}
    </pre>
  );
}

/** One part of the example, labelled as the run view's round steps are. */
function Step({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="step">
      <div className="step__label">{label}</div>
      <div className="step__body">{children}</div>
    </div>
  );
}

function Prompt({ messages }: { messages: readonly ChatMessage[] }) {
  return (
    <div className="scs-transcript" data-testid="example-prompt">
      {messages.map((m, i) => (
        <div key={i} className="scs-transcript__message" data-role={m.role}>
          <div className="scs-transcript__role">{ROLE_LABELS[m.role] ?? m.role}</div>
          <ScrollPre>{m.content}</ScrollPre>
        </div>
      ))}
    </div>
  );
}

/**
 * What one learning example holds: the student's prompt, its candidate, the teacher's verdict and replacement, and what was decided.
 * `prompt`: its whole prompt when the caller has it already (the example's own page asked the host for the example, prompt and all).
 */
export function LearningExampleDetail({ example, prompt: given }: { example: LearningExampleRow; prompt?: ResolvedContext }) {
  const { client } = useHost();
  // Recorded by reference to an earlier example's prompt: rebuilt by the host when opened; an old trace's whole prompt is shown as recorded.
  const stored = given ?? storedPrompt(example);
  const [rebuilt, setRebuilt] = useState<{ id: string; prompt: ResolvedContext }>();
  // Asked once per example (the list's rows are new objects each time it is asked again; an example never changes).
  const latest = useRef(example);
  useEffect(() => {
    latest.current = example;
  });
  const byReference = example.context_ref !== undefined && given === undefined;
  useEffect(() => {
    if (!byReference) return undefined;
    let live = true;
    void examplePrompt((params) => client.request('learning.example', params), latest.current).then((prompt) => {
      if (live) setRebuilt({ id: latest.current.id, prompt });
    });
    return () => {
      live = false;
    };
  }, [client, example.id, byReference]);
  const prompt = stored ?? (rebuilt?.id === example.id ? rebuilt.prompt : undefined);
  const verdict = example.verdict;
  return (
    <div className="steps" data-testid="example-detail">
      <Step label="Prompt">
        {prompt === undefined ? (
          <p className="muted">Loading…</p>
        ) : prompt.ok ? (
          <Prompt messages={prompt.context} />
        ) : (
          <p className="muted" data-testid="example-prompt-missing">
            {prompt.message}
          </p>
        )}
      </Step>
      <Step label="Student candidate">
        {example.kind === 'demonstration' ? <p className="muted">None: the teacher decided this round.</p> : <ValueOrDecision value={example.student_candidate} testId="example-candidate" />}
      </Step>
      <Step label="Verdict">
        {verdict ? (
          <div data-testid="example-verdict">
            <p>
              <VerdictChip verdict={verdict.verdict} /> {example.rule && <span className="muted">· sent to review: {REVIEW_RULE_LABELS[example.rule]}</span>}
              {verdict.reason_codes.length > 0 && <span className="muted"> · {verdict.reason_codes.map((code) => REASON_CODE_LABELS[code]).join(', ')}</span>}
            </p>
            <p>{verdict.explanation}</p>
          </div>
        ) : (
          <p className="muted">{example.kind === 'shadow' ? `No verdict: a shadow comparison (${example.agreement ? 'the same decision as the teacher' : 'not what the teacher decided'}).` : 'No verdict: the teacher decided.'}</p>
        )}
      </Step>
      {verdict?.replacement !== undefined && (
        <Step label="Teacher’s replacement">
          <ValueOrDecision value={verdict.replacement} testId="example-replacement" />
        </Step>
      )}
      <Step label="Final decision">
        {example.final_decision ? <DecisionView decision={example.final_decision} /> : <p className="muted">None: the round was blocked or escalated.</p>}
      </Step>
      <Step label="Run">
        <a href={routeHref({ name: 'run', runId: example.run_id, tab: 'rounds' })}>Open round {roundNumber(example.round)} in its run</a>
        {' · '}
        <a href={routeHref({ name: 'learning', exampleId: example.id })} data-testid="example-link">
          Link to this example
        </a>
      </Step>
    </div>
  );
}
