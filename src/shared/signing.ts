import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * HMAC signatures for values the service hands out and must recognise later unchanged
 * (pagination cursors, download URLs, public tokens). `purpose` keeps one kind of signed value
 * from being accepted as another.
 */
export class Signer {
  constructor(private readonly secret: string) {}

  sign(purpose: string, data: string): string {
    return createHmac('sha256', this.secret).update(purpose).update('\0').update(data).digest('base64url');
  }

  verify(purpose: string, data: string, signature: string): boolean {
    const expected = Buffer.from(this.sign(purpose, data));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
