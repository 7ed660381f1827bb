import { useCallback, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { LEARNING_KINDS, type LearningExportFormat, type LearningKind } from '@shared/contracts/learning-export';
import { VERDICTS, type Verdict } from '@shared/contracts/verdict';
import { describeCount, describeSkipped, toExportLines, toJsonl } from '@shared/learning/export-formats';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import { downloadText } from '../../view/download';
import { plural } from '../../view/format';
import { useFilterWorkflows } from '../runs/filter-workflows';
import { EvalEvidence } from './EvalEvidence';
import { WorkflowCostsSection } from '../costs/WorkflowCostsSection';
import { PromotionCard } from './PromotionCard';
import { NodePromotionCard } from './NodePromotionCard';
import { useHistoryAnswer } from '../../host/use-history-answer';
import { ALL_EXAMPLES, EXAMPLE_PAGE, examplesForExport, queryExamples, type Choice as Filter, type LearningFilter } from './learning-query';
import { KIND_LABELS, LearningTable } from './LearningTable';
import { Spinner } from '../../components/Icons';

function exportFileName(format: LearningExportFormat, now = new Date()): string {
  return `steward-${format === 'sft' ? 'sft' : 'preference'}-${now.toISOString().slice(0, 10)}.jsonl`;
}

/** `#/learning`: every learning example, its export to fine-tuning files, and promotion per workflow. */
export function LearningScreen() {
  const { db, client } = useHost();
  const workflows = useLiveQuery(() => db.workflows.orderBy('name').toArray(), [db]);
  // Workflow graphs' agent nodes with counted rounds: one card each (an agent workflow's one node has its card above).
  // Kept by the host from its history (issue 26), asked again as runs come and go.
  const promoted = useHistoryAnswer('promotion.nodes', () => client.request('promotion.nodes', {}));
  const graphNodes = promoted.value?.nodes.filter((n) => n.node !== '');
  // The filter names every workflow: the person's own (the host's), the demos, and any runs here were of.
  const choices = useFilterWorkflows();
  // A new filter starts again from its first page.
  const [view, setView] = useState<{ filter: LearningFilter; limit: number }>({ filter: ALL_EXAMPLES, limit: EXAMPLE_PAGE });
  const { filter, limit } = view;
  const { workflow, kind, verdict, agreed } = filter;
  const narrow = (patch: Partial<LearningFilter>) => setView((v) => ({ filter: { ...v.filter, ...patch }, limit: EXAMPLE_PAGE }));
  const [exported, setExported] = useState<{ format: LearningExportFormat; text: string }>();
  const [exportError, setExportError] = useState<string>();
  // While an export reads its examples from the host: how many so far (a long history takes a while).
  const [exporting, setExporting] = useState<{ format: LearningExportFormat; read: number }>();

  const isFiltered = workflow !== 'all' || kind !== 'all' || verdict !== 'all' || agreed !== 'all';
  // From the host's history (issue 26), a page at a time, newest first; the list asks for more as it scrolls, and
  // asks again as examples arrive. `total`: whether there are any at all (the empty state), whatever the filters keep.
  // Scrolling for more keeps the rows shown until the longer list comes (one group per filter).
  const found = useHistoryAnswer(JSON.stringify([filter, limit]), () => queryExamples((params) => client.request('learning.examples', params), filter, limit), { group: JSON.stringify(filter) });
  const matching = found.value?.rows;
  const total = found.value?.total;
  const loaded = matching?.length ?? 0;
  const more = useCallback(() => setView((v) => (loaded >= v.limit ? { ...v, limit: v.limit + EXAMPLE_PAGE } : v)), [loaded]);
  const nameOf = (id: string | undefined) => choices.find((w) => w.id === id)?.name ?? id ?? 'unknown workflow';

  const exportAs = async (format: LearningExportFormat) => {
    // The export takes every match, not the pages shown; oldest first, as the rounds happened, their prompts rebuilt whole.
    setExportError(undefined);
    setExported(undefined);
    setExporting({ format, read: 0 });
    try {
      const filtered = await examplesForExport((params) => client.request('learning.examples', params), filter, (read) => setExporting({ format, read }));
      const { lines, skipped } = toExportLines(format, filtered);
      downloadText(exportFileName(format), toJsonl(lines), 'application/jsonl');
      const skippedText = describeSkipped(skipped);
      setExported({ format, text: `Wrote ${describeCount(format, lines.length)} from ${plural(filtered.length, 'example')}${skippedText ? ` (${skippedText})` : ''}.` });
    } catch (err) {
      setExportError(`The examples could not be read from the host’s history (${err instanceof Error ? err.message : String(err)}). Check that Steward is running, then export again.`);
    } finally {
      setExporting(undefined);
    }
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
          <button type="button" className="button" disabled={loaded === 0 || exporting !== undefined} onClick={() => void exportAs('sft')} data-testid="export-sft">
            Export SFT JSONL
          </button>
          <button type="button" className="button" disabled={loaded === 0 || exporting !== undefined} onClick={() => void exportAs('preference')} data-testid="export-preference">
            Export preference JSONL
          </button>
        </div>
        <div className="filters" role="group" aria-label="Filter learning examples">
          <label className="field">
            <span className="field__label">Workflow</span>
            <select className="select" value={workflow} onChange={(e) => narrow({ workflow: e.target.value })} data-testid="filter-workflow">
              <option value="all">All workflows</option>
              {choices.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span className="field__label">Kind</span>
            <select className="select" value={kind} onChange={(e) => narrow({ kind: e.target.value as Filter<LearningKind> })} data-testid="filter-kind">
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
            <select className="select" value={verdict} onChange={(e) => narrow({ verdict: e.target.value as Filter<Verdict | 'none'> })} data-testid="filter-verdict">
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
            <select className="select" value={agreed} onChange={(e) => narrow({ agreed: e.target.value as Filter<'yes' | 'no'> })} data-testid="filter-agreed">
              <option value="all">Any</option>
              <option value="yes">Agreed</option>
              <option value="no">Disagreed</option>
            </select>
          </label>
        </div>
        {exporting && (
          <p className="muted" role="status" data-testid="export-progress">
            <Spinner /> Exporting {exporting.format === 'sft' ? 'SFT' : 'preference'} JSONL: {plural(exporting.read, 'example')} read from the host’s history…
          </p>
        )}
        {exportError && (
          <p className="error" role="alert" data-testid="export-error">
            {exportError}
          </p>
        )}
        {exported && (
          <p className="notice" role="status" data-testid="export-summary" data-format={exported.format}>
            {exported.format === 'sft' ? 'SFT' : 'Preference'} export: {exported.text} Your data is in it (task, instructions, tool results): read it before uploading it anywhere.
          </p>
        )}
        {found.problem !== undefined && (
          <p className="error" role="alert" data-testid="learning-problem">
            The learning examples could not be read from the host’s history: {found.problem}
          </p>
        )}
        {total === undefined || matching === undefined ? (
          found.problem === undefined && <p className="muted">Loading…</p>
        ) : total === 0 ? (
          <div className="empty" data-testid="learning-empty">
            <h2>No learning examples yet</h2>
            <p>
              They are recorded when the teacher reviews a round. Run a workflow with supervision on from <a href={routeHref({ name: 'workflows' })}>Workflows</a>.
            </p>
          </div>
        ) : matching.length === 0 ? (
          <p className="muted" data-testid="learning-no-match">
            No example matches these filters.
          </p>
        ) : (
          <>
            <p className="muted" data-testid="learning-count">
              {isFiltered ? `${matching.length}${matching.length >= limit ? '+' : ''} matching of ${plural(total, 'example')}` : plural(total, 'example')}
            </p>
            <LearningTable examples={matching} nameOf={nameOf} onNearEnd={more} />
          </>
        )}
      </section>

      <section aria-labelledby="promotion-title" className="learning-section">
        <div className="section-head">
          <h2 id="promotion-title" className="section-head__title">
            Promotion
          </h2>
        </div>
        <p className="muted section-intro">
          Per agent node, from its trace: how often the teacher agreed with the student, how often it blocked, and whether the student proposed a protected action the teacher stopped. An
          agent workflow is one node; a workflow graph has a card for each agent node that has reviewed rounds. Steward only suggests; you apply, and only that node moves.
        </p>
        {(workflows ?? []).map((w) => (
          <PromotionCard key={w.id} row={w} />
        ))}
        {promoted.problem !== undefined && (
          <p className="error" role="alert" data-testid="promotion-nodes-problem">
            The agent nodes of workflow graphs could not be listed from the host’s history: {promoted.problem}
          </p>
        )}
        {(graphNodes ?? []).map((n) => (
          <NodePromotionCard key={`${n.workflow_id}\u0000${n.node}`} workflowId={n.workflow_id} node={n.node} />
        ))}
        <h3 className="section-head__title learning-subhead">Supervision evals</h3>
        <p className="muted section-intro">The latest runs of the eval suites on this data folder: whether supervision held its gates under injected faults and known mistakes.</p>
        <EvalEvidence />
      </section>
      <WorkflowCostsSection />
    </div>
  );
}
