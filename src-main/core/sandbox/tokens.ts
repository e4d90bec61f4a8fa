import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';

import { ApiError } from './http-kit.js';
import type { SandboxIdentity } from './identity.js';

/** The documented lifetime of an access token (section 5). */
export const TOKEN_LIFETIME_MS = 7_200_000;

/** An access token record as section 2.1 lists it. */
export interface AccessTokenRecord {
  id: string;
  removed_at: number | null;
  refreshed_at: number | null;
  revoked_at: number | null;
  subject_type: 'Client';
  subject_id: string;
  issued_at: number;
  expires_at: number;
  issuer_type: null;
  issuer_id: null;
  organization_id: string;
  token: string;
}

interface TokenClaims {
  jti: string;
  sub: string;
  org: string;
  iat: number;
  exp: number;
}

/**
 * Issues and checks bearer tokens. A token is `base64url(claims).base64url(hmac)`, signed with
 * the data directory's key, so tokens survive a restart of the same sandbox and need no storage.
 */
export class TokenIssuer {
  constructor(
    private readonly identity: SandboxIdentity,
    private readonly lifetimeMs: number,
    private readonly now: () => number,
  ) {}

  /** Exchanges client credentials for a token; wrong or missing credentials are a 401. */
  issue(body: unknown): AccessTokenRecord {
    const { client_id: clientId, client_secret: clientSecret } = (
      typeof body === 'object' && body !== null ? body : {}
    ) as Record<string, unknown>;
    if (typeof clientId !== 'string' || typeof clientSecret !== 'string') {
      throw new ApiError(
        401,
        'invalid_client',
        'client_id and client_secret (strings) are required.',
      );
    }
    const client = this.identity.client;
    if (!safeEqual(clientId, client.client_id) || !safeEqual(clientSecret, client.client_secret)) {
      throw new ApiError(401, 'invalid_client', 'Unknown client_id or wrong client_secret.');
    }
    const issuedAt = this.now();
    const claims: TokenClaims = {
      jti: randomUUID(),
      sub: client.id,
      org: this.identity.organization_id,
      iat: issuedAt,
      exp: issuedAt + this.lifetimeMs,
    };
    return {
      id: claims.jti,
      removed_at: null,
      refreshed_at: null,
      revoked_at: null,
      subject_type: 'Client',
      subject_id: claims.sub,
      issued_at: claims.iat,
      expires_at: claims.exp,
      issuer_type: null,
      issuer_id: null,
      organization_id: claims.org,
      token: this.sign(claims),
    };
  }

  /** Checks an Authorization header; anything but a valid, unexpired bearer token is a 401. */
  authenticate(header: string | undefined): void {
    if (!header)
      throw new ApiError(401, 'unauthorized', 'Authorization: Bearer <token> is required.');
    const match = /^Bearer +([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(header.trim());
    if (!match) {
      throw new ApiError(401, 'unauthorized', 'The Authorization header is not a bearer token.');
    }
    const [, payload = '', signature = ''] = match;
    if (!safeEqual(signature, this.mac(payload))) {
      throw new ApiError(401, 'invalid_token', 'The access token is unknown.');
    }
    let claims: TokenClaims;
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TokenClaims;
    } catch {
      throw new ApiError(401, 'invalid_token', 'The access token is unknown.');
    }
    if (claims.org !== this.identity.organization_id || typeof claims.exp !== 'number') {
      throw new ApiError(401, 'invalid_token', 'The access token is unknown.');
    }
    if (this.now() >= claims.exp) {
      throw new ApiError(401, 'token_expired', 'The access token has expired; request a new one.');
    }
  }

  private sign(claims: TokenClaims): string {
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return `${payload}.${this.mac(payload)}`;
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.identity.token_signing_key)
      .update(payload)
      .digest('base64url');
  }
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
