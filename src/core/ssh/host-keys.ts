import { createHash } from 'node:crypto';

/** OpenSSH-style fingerprint of a raw public key blob: 'SHA256:' + unpadded base64 of its digest. */
export const fingerprintOf = (key: Buffer) => 'SHA256:' + createHash('sha256').update(key).digest('base64').replace(/=+$/, '');

/** The key type named at the start of an SSH public key blob (string length + name), e.g. 'ssh-ed25519'. */
export function keyTypeOf(key: Buffer): string {
  if (key.length < 4) return 'unknown';
  const len = key.readUInt32BE(0);
  if (len <= 0 || len > 64 || key.length < 4 + len) return 'unknown';
  return key.subarray(4, 4 + len).toString('latin1');
}

/** ssh2's default server host key algorithms (ssh2 1.17, Node 20: Ed25519 supported). */
const DEFAULT_HOST_KEY_ALGOS = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
  'ssh-rsa',
];

/**
 * Host key algorithms with the pinned key's type first: a server holding several keys then presents
 * the pinned one (as OpenSSH prefers known_hosts types), and a newly added key type is no false alarm.
 */
export function hostKeyAlgorithms(pinnedType: string | undefined): string[] {
  if (!pinnedType) return DEFAULT_HOST_KEY_ALGOS;
  const first = pinnedType === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : DEFAULT_HOST_KEY_ALGOS.includes(pinnedType) ? [pinnedType] : [];
  return [...first, ...DEFAULT_HOST_KEY_ALGOS.filter((a) => !first.includes(a))];
}
