import { useState } from 'react';
import { useHost } from '../../app/HostProvider';
import type { HostClient } from '../../host/host-client';
import { downloadText } from '../../view/download';

/** The run's OTLP/JSON as the host exports it from its journal (docs/otlp.md), named for the download. */
export async function runOtlpFile(client: Pick<HostClient, 'request'>, runId: string): Promise<{ fileName: string; text: string; spans: number }> {
  const { json, spans } = await client.request('runs.otlp', { run_id: runId });
  return { fileName: `steward-run-${runId.replace(/[^A-Za-z0-9_-]/g, '_')}.otlp.json`, text: `${json}\n`, spans };
}

/** "Export OTLP": downloads the run as OpenTelemetry OTLP/JSON, for any OTLP backend. */
export function ExportOtlpButton({ runId }: { runId: string }) {
  const { client, connection } = useHost();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const exportRun = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const file = await runOtlpFile(client, runId);
      downloadText(file.fileName, file.text, 'application/json');
    } catch (err) {
      setError(`Could not export the run: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button
        type="button"
        className="button"
        data-testid="export-otlp"
        title="Download this run as OpenTelemetry OTLP/JSON (GenAI conventions) for Jaeger, Tempo, Langfuse…"
        onClick={() => void exportRun()}
        disabled={busy || connection !== 'open'}
      >
        {busy ? 'Exporting…' : 'Export OTLP'}
      </button>
      {error && (
        <span className="error" role="alert">
          {error}
        </span>
      )}
    </>
  );
}
