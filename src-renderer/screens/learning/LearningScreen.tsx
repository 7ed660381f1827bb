import { useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { LEARNING_KINDS, type LearningExportFormat, type LearningKind } from '@shared/contracts/learning-export';
import { VERDICTS, type Verdict } from '@shared/contracts/verdict';
import { REVIEW_RULE_LABELS } from '@shared/policy/review-policy';
import { describeCount, describeSkipped, toExportLines, toJsonl } from '@shared/learning/export-formats';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import { Chip, VerdictChip } from '../../components/Chip';
import { downloadText } from '../../view/download';
import { formatDateTime, plural } from '../../view/format';
import { PromotionCard } from './PromotionCard';
import { readExamples, type Choice as Filter } from './learning-query';

const KIND_LABELS = { review: 'Review', shadow: 'Shadow', demonstration: 'Demonstration' } satisfies Record<LearningKind, string>;

function exportFileName(format: LearningExportFormat, now = new Date()): string {
  return `steward-${format === 'sft' ? 'sft' : 'preference'}-${now.toISOString().slice(0, 10)}.jsonl`;
}

/** `#/learning`: every learning example, its export to fine-tuning files, and promotion per workflow. */
export function LearningScreen() {
  const { db } = useHost();
  // Whether there are any at all (the empty state), apart from what the filters keep.
  const total = useLiveQuery(() => db.learning_examples.count(), [db]);
  const workflows = useLiveQuery(() => db.workflows.orderBy('name').toArray(), [db]);
  const [workflow, setWorkflow] = useState<Filter<string>>('all');
  const [kind, setKind] = useState<Filter<LearningKind>>('all');
  const [verdict, setVerdict] = useState<Filter<Verdict | 'none'>>('all');
  const [agreed, setAgreed] = useState<Filter<'yes' | 'no'>>('all');
  const [exported, setExported] = useState<{ format: LearningExportFormat; text: string }>();

  // A workflow or kind is read through its index, not filtered out of every example (learning-query.ts).
  const matching = useLiveQuery(() => readExamples(db, { workflow, kind, verdict, agreed }), [db, workflow, kind, verdict, agreed]);
  const filtered = matching ?? [];
  const nameOf = (id: string | undefined) => workflows?.find((w) => w.id === id)?.name ?? id ?? 'unknown workflow';

  const exportAs = (format: LearningExportFormat) => {
    // Oldest first, as the rounds happened.
    const { lines, skipped } = toExportLines(format, [...filtered].reverse());
    downloadText(exportFileName(format), toJsonl(lines), 'application/jsonl');
    const skippedText = describeSkipped(skipped);
    setExported({ format, text: `Wrote ${describeCount(format, lines.length)} from ${plural(filtered.length, 'example')}${skippedText ? ` (${skippedText})` : ''}.` });
  };

  return (
    <div className="page page--wide" data-testid="learning-page">
      <header className="page__head">
        <h1 className="page__title">Learning</h1>
        <p className="page__subtitle">
          Every round a teacher reviewed or decided becomes a learning example (redacted prompt, candidate, verdict, final decision). Export them as fine-tuning files, and see whether each
          workflow’s student has earned a phase change.
        </p>
      </header>

      <section aria-labelledby="examples-title" className="learning-section">
        <div className="section-head">
          <h2 id="examples-title" className="section-head__title">
            Learning examples
          </h2>
          <span className="round__spacer" />
          <button type="button" className="button" disabled={filtered.length === 0} onClick={() => exportAs('sft')} data-testid="export-sft">
            Export SFT JSONL
          </button>
          <button type="button" className="button" disabled={filtered.length === 0} onClick={() => exportAs('preference')} data-testid="export-preference">
            Export preference JSONL
          </button>
        </div>
        <div className="filters" role="group" aria-label="Filter learning examples">
          <label className="field">
            <span className="field__label">Workflow</span>
            <select className="select" value={workflow} onChange={(e) => setWorkflow(e.target.value)} data-testid="filter-workflow">
              <option value="all">All workflows</option>
              {(workflows ?? []).map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span className="field__label">Kind</span>
            <select className="select" value={kind} onChange={(e) => setKind(e.target.value as Filter<LearningKind>)} data-testid="filter-kind">
              <option value="all">All kinds</option>
              {LEARNING_KINDS.map((k) => (
                <option key={k} value={k}>
                  {KIND_LABELS[k]}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span className="field__label">Verdict</span>
            <select className="select" value={verdict} onChange={(e) => setVerdict(e.target.value as Filter<Verdict | 'none'>)} data-testid="filter-verdict">
              <option value="all">All verdicts</option>
              {VERDICTS.map((v) => (
                <option key={v} value={v}>
                  {v}
                </option>
              ))}
              <option value="none">none (teacher decided)</option>
            </select>
          </label>
          <label className="field">
            <span className="field__label">Agreement</span>
            <select className="select" value={agreed} onChange={(e) => setAgreed(e.target.value as Filter<'yes' | 'no'>)} data-testid="filter-agreed">
              <option value="all">Any</option>
              <option value="yes">Agreed</option>
              <option value="no">Disagreed</option>
            </select>
          </label>
        </div>
        {exported && (
          <p className="notice" role="status" data-testid="export-summary" data-format={exported.format}>
            {exported.format === 'sft' ? 'SFT' : 'Preference'} export: {exported.text} Your data is in it (task, instructions, tool results): read it before uploading it anywhere.
          </p>
        )}
        {total === undefined || matching === undefined ? (
          <p className="muted">Loading…</p>
        ) : total === 0 ? (
          <div className="empty" data-testid="learning-empty">
            <h2>No learning examples yet</h2>
            <p>
              They are recorded when the teacher reviews a round. Run a workflow with supervision on from <a href={routeHref({ name: 'workflows' })}>Workflows</a>.
            </p>
          </div>
        ) : (
          <div className="card table-wrap">
            <table className="table" data-testid="learning-table">
              <caption className="visually-hidden">Learning examples, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Workflow</th>
                  <th scope="col" className="num">
                    Round
                  </th>
                  <th scope="col">Rule</th>
                  <th scope="col">Verdict</th>
                  <th scope="col">Agreed</th>
                </tr>
              </thead>
              <tbody>
                {filtered.map((e) => (
                  <tr key={e.id} data-testid="learning-row" data-kind={e.kind} data-verdict={e.verdict?.verdict ?? 'none'}>
                    <td className="nowrap">{formatDateTime(e.ts)}</td>
                    <td>{KIND_LABELS[e.kind]}</td>
                    <td>{nameOf(e.spec_id)}</td>
                    <td className="num">
                      <a href={routeHref({ name: 'run', runId: e.run_id, tab: 'rounds' })} aria-label={`Round ${e.round + 1} of its run`}>
                        {e.round + 1}
                      </a>
                    </td>
                    <td className="muted">{e.rule ? REVIEW_RULE_LABELS[e.rule] : '—'}</td>
                    <td>{e.verdict ? <VerdictChip verdict={e.verdict.verdict} /> : <span className="muted">—</span>}</td>
                    <td>{e.kind === 'demonstration' ? <span className="muted">—</span> : e.agreement ? <Chip tone="executed">yes</Chip> : <Chip tone="replaced">no</Chip>}</td>
                  </tr>
                ))}
                {filtered.length === 0 && (
                  <tr>
                    <td colSpan={7} className="muted">
                      No example matches these filters.
                    </td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section aria-labelledby="promotion-title" className="learning-section">
        <div className="section-head">
          <h2 id="promotion-title" className="section-head__title">
            Promotion
          </h2>
        </div>
        <p className="muted section-intro">
          Per workflow, from its trace: how often the teacher agreed with the student, how often it blocked, and whether the student proposed a protected action the teacher stopped. Steward
          only suggests; you apply.
        </p>
        {(workflows ?? []).map((w) => (
          <PromotionCard key={w.id} row={w} />
        ))}
      </section>
    </div>
  );
}
