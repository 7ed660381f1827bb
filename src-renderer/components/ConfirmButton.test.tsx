import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { ConfirmButton, ConfirmPrompt } from './ConfirmButton';

const noop = () => undefined;

describe('ConfirmButton', () => {
  it('before it is pressed it is one button that says it opens a question, and asks nothing yet', () => {
    const html = renderToStaticMarkup(<ConfirmButton label="Cancel run" question="Cancel this run?" confirmLabel="Cancel run" keepLabel="Keep running" testId="cancel-button" danger onConfirm={async () => undefined} />);
    expect(html).toMatch(/^<button [^>]*data-testid="cancel-button"[^>]*aria-haspopup="dialog" aria-expanded="false"[^>]*>Cancel run<\/button>$/);
    expect(html).not.toContain('Cancel this run?');
  });

  it('the question is an alert dialog named by its text, and the confirm button takes the focus when it appears', () => {
    const html = renderToStaticMarkup(<ConfirmPrompt question="Stop the run here?" confirmLabel="Stop the run" keepLabel="Keep waiting" testId="intervention-stop" running={false} onKey={noop} onKeep={noop} onConfirm={noop} />);
    const labelledBy = /role="alertdialog" aria-labelledby="([^"]+)"/.exec(html)?.[1];
    expect(labelledBy).toBeTruthy();
    expect(html).toContain(`id="${labelledBy}" class="remove-confirm__text">Stop the run here?</span>`);
    expect(html).toMatch(/<button [^>]*autofocus=""[^>]*data-testid="confirm-intervention-stop">Stop the run<\/button>/);
    expect(html.match(/autofocus/g)).toHaveLength(1);
    expect(html).toContain('>Keep waiting</button>');
  });
});
