/** Said under an answer card's buttons: why they are disabled while the host is away. */
export function ReconnectNote({ connection }: { connection: string }) {
  return connection !== 'open' ? <p className="muted">Reconnect to the Steward host to answer.</p> : null;
}

/** The host refused the answer, or it could not be sent: said at once to assistive technology. */
export function AnswerError({ error }: { error: string | undefined }) {
  return error ? (
    <p className="error" role="alert">
      {error}
    </p>
  ) : null;
}
