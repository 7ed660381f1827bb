import { forwardRef } from 'react';
import type { ConfigIssue, ConfigReport } from '@shared/policy/validate-config';
import { fieldTarget } from '../../supervision/field-targets';

function IssueItem({ issue, severity, onGo }: { issue: ConfigIssue; severity: 'error' | 'warning'; onGo: (field: string) => void }) {
  const target = fieldTarget(issue.field);
  return (
    <li className={`issue issue--${severity}`} data-testid="validation-issue" data-severity={severity} data-field={issue.field}>
      <span className="issue__icon" aria-hidden="true">
        {severity === 'error' ? '✕' : '⚠'}
      </span>
      <div className="issue__body">
        <p className="issue__message">{issue.message}</p>
        <button type="button" className="link-button issue__field" onClick={() => onGo(issue.field)} data-testid="validation-issue-link">
          {target.label} <code className="muted">{issue.field}</code>
        </button>
      </div>
    </li>
  );
}

/** Validate's answer: errors first, then warnings, each linking to the control that sets its field. */
export const ValidationReportView = forwardRef<HTMLElement, { report: ConfigReport; onGo: (field: string) => void; onClose: () => void }>(function ValidationReportView({ report, onGo, onClose }, ref) {
  const clean = report.errors.length === 0 && report.warnings.length === 0;
  return (
    <section className={`report ${report.errors.length ? 'report--errors' : clean ? 'report--clean' : 'report--warnings'}`} ref={ref} tabIndex={-1} aria-labelledby="report-title" data-testid="validation-report">
      <header className="report__head">
        <h3 id="report-title" className="report__title">
          {report.status}
        </h3>
        <span className="round__spacer" />
        <button type="button" className="link-button" onClick={onClose}>
          Hide
        </button>
      </header>
      {clean ? (
        <p className="muted">Nothing a run would trip over: models, credentials, privacy, review rules and tools all check out with what Steward knows now.</p>
      ) : (
        <ul className="issues-list">
          {report.errors.map((issue, i) => (
            <IssueItem key={`e${i}`} issue={issue} severity="error" onGo={onGo} />
          ))}
          {report.warnings.map((issue, i) => (
            <IssueItem key={`w${i}`} issue={issue} severity="warning" onGo={onGo} />
          ))}
        </ul>
      )}
    </section>
  );
});
