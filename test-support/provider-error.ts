import { expect } from 'vitest';
import { ProviderError } from '../src-main/providers/provider';

/** The ProviderError a model call failed with (the test fails if it succeeded or threw anything else). */
export async function providerError(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}
