import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { TraceSettings } from '@shared/contracts/profiles';
import { TraceEditor } from './PolicyEditors';

describe('the trace profile editor', () => {
  it('says runs are deleted (not offered) and offers keeping N days and keeping a workflow\'s newest N runs', () => {
    const off = renderToString(<TraceEditor idPrefix="t" value={TraceSettings.parse({})} onChange={() => undefined} />);
    expect(off).toContain('Delete runs some days after they end');
    expect(off).toContain('Keep only a workflow&#x27;s newest runs');
    expect(off).not.toContain('offer');
    const on = renderToString(<TraceEditor idPrefix="t" value={TraceSettings.parse({ retention_days: 7, retention_runs: 20 })} onChange={() => undefined} />);
    expect(on).toContain('After (days)');
    expect(on).toContain('Runs kept');
    expect(on).toContain('value="20"');
  });
});
