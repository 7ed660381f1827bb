import { messageParts } from '@shared/contracts/code-words';

/**
 * A run's or a node's message as a person reads it (issue 28): a leading engine code said as words
 * (the code kept as the tag's title), the words, and the raw reason (a keychain's D-Bus error, a
 * library's message) in a closed disclosure, one click away.
 */
export function MessageText({ text }: { text: string }) {
  const parts = messageParts(text);
  return (
    <>
      {parts.code !== undefined && (
        <>
          <span className="tag tag--bad" title={parts.code} data-code={parts.code}>
            {parts.codeWords}
          </span>{' '}
        </>
      )}
      {parts.words}
      {parts.details !== undefined && (
        <details className="message-details" data-testid="message-details">
          <summary>Details</summary>
          <code>{parts.details}</code>
        </details>
      )}
    </>
  );
}
