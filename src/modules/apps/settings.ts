// What the apps module runs with from the configuration (docs/api-contract.md §25, §32's limits).
export interface AppSettings {
  /** API_KEY_PEPPER: every app secret, token and code is hashed as a key is. */
  pepper: string | undefined;
  /** PUBLIC_BASE_URL: the issuer, and the origin of install links and the consent page. */
  issuer: string;
  /** OAUTH_ACCESS_TOKEN_TTL_SECONDS (3,600). */
  accessTokenTtlSeconds: number;
  /** OAUTH_REFRESH_REUSE_GRACE_SECONDS (60, 0–300). */
  refreshReuseGraceSeconds: number;
  /** `http://` webhook URLs are accepted (§9: development, or WEBHOOK_ALLOW_HTTP). */
  allowHttpWebhooks: boolean;
  /** A webhook URL may resolve to a private address (§9: WEBHOOK_ALLOW_PRIVATE, development and tests). */
  allowPrivateWebhooks: boolean;
}

export const APP_LIMITS = {
  appsPerAccount: 20,
  activeInstallsPerAccount: 50,
  codeSeconds: 60,
  consentSeconds: 15 * 60,
  refreshTokenDays: 90,
  tokenRequestsPerMinute: 60,
} as const;
