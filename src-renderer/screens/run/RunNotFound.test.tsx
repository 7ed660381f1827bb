import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { RunNotFound } from './RunNotFound';

describe('a run neither the host nor this browser knows', () => {
  it('says so and where to look, instead of "Starting run…" and a spinner', () => {
    const html = renderToStaticMarkup(<RunNotFound runId="gone-123" />);
    expect(html).toContain('<h1 class="page__title">No such run</h1>');
    expect(html).toContain('<code>gone-123</code>');
    expect(html).toContain('<a href="#/runs">Runs</a>');
    expect(html).not.toContain('Starting run');
    expect(html).not.toContain('spinner');
  });
});
