import { useState } from 'react';
import { checkModelUrl } from '@shared/contracts/model-url';
import type { AgentCardCheck } from '@shared/pattern/agent-card';
import type { A2aCaller, ExpressionCaller, JsonSchemaCaller } from '@shared/pattern/contracts';
import { useHost } from '../../app/HostProvider';
import { compileExpression, EXPRESSION_NAMES } from '@shared/pattern/verifier-expression';
import { TextField } from '../../components/Form';

type InlineJudge = A2aCaller | JsonSchemaCaller | ExpressionCaller;

/**
 * The settings of a judge that answers inline and is not a model (issue 29): a remote A2A agent
 * (its address; the host reads its agent card under the privacy policy when it runs, and
 * `steward validate` shows the card), a JSON Schema the output must satisfy, or a deterministic
 * expression over the output. Problems are said under the field as they are typed.
 */
export function InlineJudgeFields({ id, caller, onChange, group }: { id: string; caller: InlineJudge; onChange: (next: InlineJudge, group?: string) => void; group: string }) {
  const name = <TextField id={`${id}-name`} label="Name (optional)" value={caller.name ?? ''} onChange={(v) => onChange(withName(caller, v), `${group}-name`)} hint="How the run view and the audit name this judge." testId="inspector-caller-name" />;
  switch (caller.kind) {
    case 'a2a':
      return (
        <>
          <TextField
            id={`${id}-url`}
            label="Agent address"
            value={caller.url}
            onChange={(url) => onChange({ ...caller, url }, `${group}-url`)}
            hint="Its agent card is read at this address’s /.well-known/agent-card.json. The privacy policy applies: a host it does not allow is never sent anything."
            testId="inspector-caller-a2a-url"
          />
          {name}
          <AgentCardCheckButton url={caller.url} />
        </>
      );
    case 'json_schema':
      return (
        <>
          <SchemaField id={id} caller={caller} onChange={(c) => onChange(c, `${group}-schema`)} />
          {name}
        </>
      );
    case 'expression': {
      const compiled = compileExpression(caller.expression);
      return (
        <>
          <TextField
            id={`${id}-expression`}
            label="Expression"
            value={caller.expression}
            onChange={(expression) => onChange({ ...caller, expression }, `${group}-expression`)}
            hint={`Approves when it holds, e.g. json.score >= 0.8 and not (output contains "TODO"). Reads ${EXPRESSION_NAMES.join(', ')}.`}
            issue={compiled.ok ? undefined : compiled.problem}
            testId="inspector-caller-expression"
          />
          {name}
        </>
      );
    }
  }
}

function withName(caller: InlineJudge, name: string): InlineJudge {
  const { name: _old, ...rest } = caller;
  return name.trim() === '' ? rest : { ...rest, name };
}

/** The schema as JSON text: kept as typed until it is a JSON object, then it is the judge's schema. */
function SchemaField({ id, caller, onChange }: { id: string; caller: JsonSchemaCaller; onChange: (next: JsonSchemaCaller) => void }) {
  const [text, setText] = useState(() => JSON.stringify(caller.schema, null, 2));
  const [problem, setProblem] = useState<string | undefined>();
  // The schema changed from outside (undo, another field): show it, unless it is what was typed.
  const [shown, setShown] = useState(caller.schema);
  if (shown !== caller.schema) {
    setShown(caller.schema);
    if (!sameJson(text, caller.schema)) {
      setText(JSON.stringify(caller.schema, null, 2));
      setProblem(undefined);
    }
  }
  const typed = (next: string) => {
    setText(next);
    let parsed: unknown;
    try {
      parsed = JSON.parse(next);
    } catch {
      setProblem('This is not JSON yet: the judge keeps its last valid schema.');
      return;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      setProblem('A JSON Schema is an object ({ … }).');
      return;
    }
    setProblem(undefined);
    onChange({ ...caller, schema: parsed as Record<string, unknown> });
  };
  return <TextField id={`${id}-schema`} label="JSON Schema the output must satisfy" value={text} onChange={typed} multiline issue={problem} hint="The output is read as JSON; every way it does not satisfy the schema is listed in the rejection." testId="inspector-caller-schema" />;
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

/**
 * "Check agent card": the host reads the agent's card under the workspace privacy policy (nothing
 * is sent to a host it does not allow) and the card's name, version, description and skills are
 * shown here, or why it could not be read. The answer belongs to the address it was asked for.
 */
function AgentCardCheckButton({ url }: { url: string }) {
  const { client, connection } = useHost();
  const [answer, setAnswer] = useState<{ url: string; check: AgentCardCheck } | { url: string; checking: true }>();
  const address = checkModelUrl(url);
  const check = () => {
    setAnswer({ url, checking: true });
    client.request('judges.agent_card', { url }).then(
      (result) => setAnswer({ url, check: result }),
      (err: unknown) => setAnswer({ url, check: { ok: false, problem: err instanceof Error ? err.message : String(err) } }),
    );
  };
  const shown = answer?.url === url ? answer : undefined;
  return (
    <div className="wf-agent-card" data-testid="inspector-agent-card">
      <button type="button" className="button button--small" disabled={!address.ok || connection !== 'open' || (shown !== undefined && 'checking' in shown)} onClick={check} data-testid="inspector-agent-card-check">
        Check agent card
      </button>
      {!address.ok && <p className="muted">The address {address.problem}.</p>}
      {shown !== undefined && 'checking' in shown && <p className="muted">Reading the agent card…</p>}
      {shown !== undefined && 'check' in shown && shown.check.ok && (
        <div data-testid="inspector-agent-card-found">
          <p>
            <strong data-testid="inspector-agent-card-name">{shown.check.card.name}</strong>
            {shown.check.card.version ? ` ${shown.check.card.version}` : ''}
            {shown.check.card.description ? ` — ${shown.check.card.description}` : ''}
          </p>
          {shown.check.card.skills.length > 0 && (
            <ul className="muted">
              {shown.check.card.skills.map((skill, i) => (
                <li key={`${skill.id}-${i}`}>
                  {skill.name || skill.id}
                  {skill.description ? `: ${skill.description}` : ''}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {shown !== undefined && 'check' in shown && !shown.check.ok && (
        <p role="alert" className="form-row__issue" data-testid="inspector-agent-card-problem">
          The agent card could not be read: {shown.check.problem}
        </p>
      )}
    </div>
  );
}
