import type { Tier } from './types.ts';

/** Plans and what they reach. Tiers, lowest first: free < developer < intelligence. */
export const PLANS = ['free', 'pulse', 'intelligence', 'developer', 'institutional'] as const;
export type Plan = (typeof PLANS)[number];

export const SCOPES = ['read', 'write', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export type KeyMode = 'live' | 'test';

export interface PlanLimits {
  liveKeys: boolean;
  /** Highest endpoint tier a key of this plan reaches. */
  tier: Tier;
  liveRpm: number | null;
  maxLiveKeys: number;
  maxWebhooks: number;
  /**
   * Dashboard reads (GETs of a signed-in session) per user per minute. Below what the plan's keys
   * already read: for test-key plans under the 5 test keys' 150/min, for live plans half a live key's
   * rate or less — the dashboard is for a person browsing, never the cheaper way to read in bulk.
   */
  dashboardRpm: number;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: {
    liveKeys: false,
    tier: 'developer',
    liveRpm: null,
    maxLiveKeys: 0,
    maxWebhooks: 0,
    dashboardRpm: 120,
  },
  pulse: {
    liveKeys: false,
    tier: 'developer',
    liveRpm: null,
    maxLiveKeys: 0,
    maxWebhooks: 0,
    dashboardRpm: 120,
  },
  intelligence: {
    liveKeys: false,
    tier: 'intelligence',
    liveRpm: null,
    maxLiveKeys: 0,
    maxWebhooks: 0,
    dashboardRpm: 120,
  },
  developer: {
    liveKeys: true,
    tier: 'developer',
    liveRpm: 600,
    maxLiveKeys: 10,
    maxWebhooks: 25,
    dashboardRpm: 300,
  },
  institutional: {
    liveKeys: true,
    tier: 'intelligence',
    liveRpm: 3000,
    maxLiveKeys: 100,
    maxWebhooks: 200,
    dashboardRpm: 600,
  },
};

export const TEST_KEY_RPM = 30;
export const MAX_TEST_KEYS = 5;
export const KEYLESS_PER_IP = 10;
export const RATE_WINDOW_MS = 60_000;

const TIER_RANK: Record<Tier, number> = { free: 0, developer: 1, intelligence: 2 };
const SCOPE_RANK: Record<Scope, number> = { read: 0, write: 1, admin: 2 };

export const isPlan = (value: string): value is Plan => (PLANS as readonly string[]).includes(value);

/** Whether a reader on tier `have` sees what needs tier `need`. */
export const tierReaches = (have: Tier, need: Tier): boolean => TIER_RANK[have] >= TIER_RANK[need];

export function reachesTier(plan: Plan, tier: Tier): boolean {
  return tierReaches(PLAN_LIMITS[plan].tier, tier);
}

/** read ⊂ write ⊂ admin: a key holding any scope at or above `needed` passes. */
export function hasScope(scopes: readonly Scope[], needed: Scope): boolean {
  return scopes.some((scope) => SCOPE_RANK[scope] >= SCOPE_RANK[needed]);
}

/** Requests per minute of a key; null when the key may not be used at all (live key, plan without live access). */
export function keyRpm(plan: Plan, mode: KeyMode): number | null {
  return mode === 'test' ? TEST_KEY_RPM : PLAN_LIMITS[plan].liveRpm;
}

/** Why a user may not hold one more key of this kind, or null when they may. */
export function keyQuotaProblem(plan: Plan, mode: KeyMode, activeOfMode: number): string | null {
  if (mode === 'test') {
    return activeOfMode >= MAX_TEST_KEYS ? `at most ${MAX_TEST_KEYS} active test keys per user` : null;
  }
  const limits = PLAN_LIMITS[plan];
  if (!limits.liveKeys)
    return `the ${plan} plan has no live API access; use a test key or upgrade to developer`;
  return activeOfMode >= limits.maxLiveKeys
    ? `the ${plan} plan allows at most ${limits.maxLiveKeys} live keys`
    : null;
}

export function scopeProblem(scopes: readonly Scope[], isAdmin: boolean): string | null {
  if (scopes.length === 0) return 'at least one scope is required';
  if (scopes.includes('admin') && !isAdmin) return 'the admin scope is only for admin users';
  return null;
}
