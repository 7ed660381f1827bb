import { useState } from 'react';
import type { ActionResult } from '@shared/contracts/audit';
import { useExplicitAction } from '../../components/ExplicitAction';
import { useHostRegistry } from '../../host/use-host-registry';
import { hostErrorText } from './server-form';

/**
 * A registry form's submit: the explicit action (the host may ask a person first), then the host's
 * registry read again. A denial or the host's error becomes `failure`, said in the form.
 */
export function useRegistryAction() {
  const { refresh } = useHostRegistry();
  const action = useExplicitAction();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string>();

  const perform = async (request: () => Promise<ActionResult>, onDone: () => void): Promise<void> => {
    setFailure(undefined);
    setBusy(true);
    try {
      const outcome = await action.run(request);
      if (outcome.status === 'denied') {
        setFailure(outcome.message);
        return;
      }
      await refresh();
      onDone();
    } catch (err) {
      setFailure(hostErrorText(err));
    } finally {
      setBusy(false);
    }
  };
  return { busy, failure, clearFailure: () => setFailure(undefined), panel: action.panel, perform };
}
