import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { boundaryReport, supervisorReport } from '../../../test-support/eval-reports';
import { EvalReportPanel } from './EvalEvidence';

/** The Learning screen's eval evidence: the latest reports, read-only, gates first. */

describe('EvalReportPanel', () => {
  it('without reports it says how to make one', () => {
    const html = renderToStaticMarkup(<EvalReportPanel reports={{}} />);
    expect(html).toContain('data-testid="eval-none"');
    expect(html).toContain('steward eval supervisor');
  });

  it('shows each suite\'s gates with value, threshold and result, and says when all hold', () => {
    const html = renderToStaticMarkup(<EvalReportPanel reports={{ supervisor: supervisorReport(), boundary: boundaryReport() }} />);
    expect(html).toContain('data-testid="eval-report-supervisor" data-passed="true"');
    expect(html).toContain('data-testid="eval-report-boundary" data-passed="true"');
    expect(html).toMatch(/data-gate="recovery_rate" data-passed="true"><td>recovery rate<\/td><td class="num">1<\/td><td class="num">≥ (<!-- -->)?0.80<\/td>/);
    expect(html).toContain('all gates hold');
    expect(html).toContain('Phase 3 / phase 2 teacher calls</dt><dd>25%</dd>');
  });

  it('a failed gate is marked failed and counted in the heading', () => {
    const html = renderToStaticMarkup(<EvalReportPanel reports={{ supervisor: supervisorReport({ incorrectSkips: 1 }) }} />);
    expect(html).toContain('data-testid="eval-report-supervisor" data-passed="false"');
    expect(html).toMatch(/data-gate="incorrect_skip_rate" data-passed="false">.*tag--bad">fail/);
    // A wrong skip makes the case missed too: recovery and incorrect skips both fail.
    expect(html).toContain('2 gate(s) failed');
    expect(html).not.toContain('eval-report-boundary');
  });
});
