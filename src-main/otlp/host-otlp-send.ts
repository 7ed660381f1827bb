import type { HostParamsParsed, HostResult } from '@shared/contracts/host-api';
import type { PrivacyPolicy } from '@shared/policy/privacy';
import type { PriceList } from '@shared/accounting/price-list';
import type { EventJournal } from '../events/event-journal';
import { RequestError } from '../registry/request-error';
import { exportEvents } from './export-otlp';
import type { OtlpEndpointStore } from './otlp-endpoint-store';
import { otlpTarget, sendOtlp } from './send-otlp';

export interface OtlpSendDeps {
  journal: Pick<EventJournal, 'runEvents'>;
  /** The host's privacy policy as it is now (a person may have changed it since the page loaded). */
  privacy: () => PrivacyPolicy;
  endpoints: OtlpEndpointStore;
  log: (line: string) => void;
  fetch?: typeof fetch;
  /** The app's price list (issue 31): the run span's cost attributes. */
  prices?: () => PriceList;
}

/**
 * The app's "Send to OTLP endpoint…": the host judges the address (never the page), reads the run
 * from its journal, sends it, and remembers an address it allowed.
 */
export function otlpSendHandlers(deps: OtlpSendDeps) {
  return {
    'runs.otlp_send': async ({ run_id, endpoint }: HostParamsParsed<'runs.otlp_send'>): Promise<HostResult<'runs.otlp_send'>> => {
      const policy = deps.privacy();
      // Checked before the journal is read: a refused host learns nothing, not even whether the run exists.
      const target = otlpTarget(endpoint, policy, 'app');
      if (!target.ok) throw new RequestError('forbidden', target.message);
      const events = deps.journal.runEvents(run_id);
      if (events.length === 0) throw new RequestError('not_found', `the host holds no events of run "${run_id}"`);
      try {
        deps.endpoints.remember(endpoint);
      } catch (err) {
        deps.log(`could not remember the OTLP endpoint: ${err instanceof Error ? err.message : String(err)}`);
      }
      const exported = exportEvents(events, deps.prices?.() ?? {});
      const sent = await sendOtlp(exported.body, endpoint, policy, deps.fetch, 'app');
      return sent.ok ? { sent: true, spans: exported.spans, url: sent.url, rejected_spans: sent.rejectedSpans } : { sent: false, message: sent.message };
    },
    'otlp.endpoint': async (): Promise<HostResult<'otlp.endpoint'>> => {
      const endpoint = deps.endpoints.get();
      return endpoint === undefined ? {} : { endpoint };
    },
  };
}
