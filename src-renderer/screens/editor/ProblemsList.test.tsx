import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { ProblemsList } from './ProblemsList';

const list = (state: 'checked' | 'checking' | 'offline', problems = [] as { node?: string; code: string; message: string }[]) =>
  renderToStaticMarkup(<ProblemsList problems={problems} onSelect={() => undefined} state={state} />);

describe('the Problems list', () => {
  it('claims "No problems" only once the host has checked the draft', () => {
    expect(list('checked')).toContain('No problems: the workflow can run.');
    expect(list('checking')).not.toContain('the workflow can run');
    expect(list('checking')).toContain('checking with the host…');
    expect(list('offline')).toContain('not checked by the host');
  });

  it('shows the problems it has while the host checks, saying it is still checking', () => {
    const html = list('checking', [{ node: 'write', code: 'invalid_arguments', message: 'write_file takes no argument "mode"' }]);
    expect(html).toContain('node write: write_file takes no argument &quot;mode&quot;');
    expect(html).toContain('data-testid="problems-checking"');
  });
});
