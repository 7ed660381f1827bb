import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { deriveSupervision } from './derive-supervision';
import { SupervisionReport } from './SupervisionReport';
import { SKIP_REASON, supervisedTrace } from './testing/supervised-trace';

const unescape = (html: string) => html.replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&amp;/g, '&');

/** The run report's list of the supervisor's decisions (its memory) and the answer it could not use, from the run's events. */
describe("the run report's supervisor decisions", () => {
  it('lists each decision the supervisor was asked for, in order: item, action, who decided, its one-line reason', () => {
    const html = unescape(renderToStaticMarkup(<SupervisionReport view={deriveSupervision(supervisedTrace())} />));
    expect(html).toContain('The supervisor’s decisions');
    expect(html).toContain('Each new decision’s prompt recalls the last 20 of them.');
    expect(html).toMatch(/data-testid="supervision-decision" data-node="work" data-action="skip" data-decided-by="agent">.*work · item 2.*→ Skip.*decided by the supervisor.*/s);
    expect(html).toContain(`“${SKIP_REASON}”`);
    expect(html).not.toContain('What the supervisor answered');
  });

  it('a verdict Steward applied over an unusable answer says so in words; the raw answer is one click away, in a closed disclosure', () => {
    const reason = 'the supervisor gave no usable verdict in 4 answers (3 repair rounds), so the node fails as it would have without supervision';
    const events = supervisedTrace({ verdict: { action: 'fail', reason }, decidedBy: 'kernel', malformed: { problem: 'the answer is not a JSON object', answer: 'I would skip it, honestly.', repairs: 3 } });
    const html = unescape(renderToStaticMarkup(<SupervisionReport view={deriveSupervision(events)} />));
    expect(html).toMatch(/data-action="fail" data-decided-by="kernel">.*decided by Steward \(the answer was not a usable, allowed verdict\).*/s);
    expect(html).toContain(`“${reason}”`);
    expect(html).toMatch(/<details class="result" data-testid="supervision-malformed"><summary>What the supervisor answered<\/summary>.*the answer is not a JSON object \(after 3 repair rounds\).*<pre class="code">I would skip it, honestly.<\/pre><\/details>/s);
  });

  it('a verdict no supervisor was asked for (a sticky or bound one) is not among its decisions', () => {
    const events = supervisedTrace().map((e) => (e.type === 'supervisor.verdict' ? { ...e, verdict: { ...e.verdict, decided_by: 'sticky' as const, turns: 0 } } : e));
    const html = renderToStaticMarkup(<SupervisionReport view={deriveSupervision(events)} />);
    expect(html).toContain('data-testid="supervision-skip"');
    expect(html).not.toContain('supervision-memory');
  });
});
