import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Encrypts stored secrets (SSH passwords, private keys, API tokens) at rest with AES-256-GCM.
 * The key is derived from SECRET_KEY. Format: "v1:" + base64url(iv | tag | ciphertext).
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHash('sha256').update(`ops-console:${secret}`).digest();
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return 'v1:' + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  open(sealed: string): string {
    if (!sealed.startsWith('v1:')) throw new Error('Stored secret has an unknown format');
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  /** Seals a value that may be absent: null/empty stays null. */
  sealOptional(plain: string | null | undefined): string | null {
    return plain ? this.seal(plain) : null;
  }
}

/** Hex SHA-256, used to store session tokens as digests only. */
export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
