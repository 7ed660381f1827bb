import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { SealKey } from '../credentials/seal-keys';

/** A sealed text (AES-256-GCM) and the keychain key it was sealed with (sealed-checkpoint.ts). */
export const SealedBox = z
  .object({
    /** The keychain key it was sealed with (`seal-…`). */
    key_id: z.string().min(1).max(64),
    /** base64 of iv (12 bytes) · tag (16 bytes) · ciphertext. */
    box: z.string().min(1),
  })
  .strict();
export type SealedBox = z.infer<typeof SealedBox>;

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The box names its run: a box moved into another run's checkpoint does not open. */
const aadOf = (runId: string): Buffer => Buffer.from(`steward/sealed-checkpoint/v1/${runId}`, 'utf8');

export function sealText(plain: string, key: SealKey, runId: string): SealedBox {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  cipher.setAAD(aadOf(runId));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return { key_id: key.id, box: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64') };
}

/** The plain text, or undefined when the box is damaged, another run's or sealed with another key. */
export function openText(sealed: SealedBox, key: SealKey, runId: string): string | undefined {
  const bytes = Buffer.from(sealed.box, 'base64');
  if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(aadOf(runId));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

