// The token bucket and daily quota of the contract, as integer arithmetic: one token is 60,000 units and
// a key refilling `perMinute` tokens a minute gains exactly `perMinute` units a millisecond, so refills
// are exact (no float drift: after 100 back-to-back requests, one more is allowed each second, exactly).
// The Redis store runs the same rule in Lua; this file is the reference for both.

export const UNITS_PER_TOKEN = 60_000;

export interface LimitPolicy {
  /** Bucket capacity in tokens (the burst). */
  burst: number;
  /** Tokens added per minute, spread evenly. */
  perMinute: number;
  /** Requests per UTC day. */
  perDay: number;
}

export interface BucketState {
  units: number;
  updatedMs: number;
  day: string;
  used: number;
}

export interface TakeResult {
  allowed: boolean;
  /** Units in the bucket after this request. */
  units: number;
  /** Requests counted today after this request. */
  used: number;
}

const DAY_MS = 86_400_000;
let lastDay = { number: Number.NaN, text: '' };

/** YYYY-MM-DD of the UTC day; the string is made once a day, not once a request. */
export function utcDay(nowMs: number): string {
  const number = Math.floor(nowMs / DAY_MS);
  if (number !== lastDay.number) lastDay = { number, text: new Date(number * DAY_MS).toISOString().slice(0, 10) };
  return lastDay.text;
}

/**
 * What a request takes: 0 looks, 1 takes a token, −1 gives one back (a change set refused for want of tokens
 * gives back those it took, §26: a refused request takes none).
 */
export type Cost = 0 | 1 | -1;

/**
 * Refills the bucket for the time passed, then takes `cost` (0 or 1) tokens when a whole token is there
 * and the day's quota is not used up. A refused request takes nothing. A cost of −1 gives a token back (up to the
 * capacity) and uncounts a request of the day.
 */
export function take(
  state: BucketState | undefined,
  policy: LimitPolicy,
  nowMs: number,
  cost: Cost,
): { state: BucketState; result: TakeResult } {
  const day = utcDay(nowMs);
  const capacity = policy.burst * UNITS_PER_TOKEN;
  let units = state
    ? Math.min(capacity, state.units + Math.max(0, nowMs - state.updatedMs) * policy.perMinute)
    : capacity;
  let used = state && state.day === day ? state.used : 0;
  if (cost === -1) {
    units = Math.min(capacity, units + UNITS_PER_TOKEN);
    used = Math.max(0, used - 1);
    return { state: { units, updatedMs: nowMs, day, used }, result: { allowed: true, units, used } };
  }
  const allowed = units >= UNITS_PER_TOKEN && used < policy.perDay;
  if (allowed && cost === 1) {
    units -= UNITS_PER_TOKEN;
    used += 1;
  }
  return { state: { units, updatedMs: nowMs, day, used }, result: { allowed, units, used } };
}

/**
 * `take` over a chain of buckets (a key's and those of the keys that minted it): the request is allowed only
 * when every bucket allows it, and then takes its token from each; refused, it takes from none.
 */
export function takeAll(
  states: ReadonlyArray<BucketState | undefined>,
  policies: readonly LimitPolicy[],
  nowMs: number,
  cost: Cost,
): { states: BucketState[]; results: TakeResult[] } {
  if (cost === -1) {
    const given = states.map((state, index) => take(state, policies[index]!, nowMs, -1));
    return { states: given.map((one) => one.state), results: given.map((one) => one.result) };
  }
  const looked = states.map((state, index) => take(state, policies[index]!, nowMs, 0));
  const allowed = looked.every((look) => look.result.allowed);
  const taken = allowed && cost === 1 ? states.map((state, index) => take(state, policies[index]!, nowMs, 1)) : looked;
  return {
    states: taken.map((one) => one.state),
    results: taken.map((one) => ({ ...one.result, allowed })),
  };
}

/** The Lua twin of `take`, run atomically by Redis. KEYS[1]: bucket; ARGV: burst, perMinute, perDay, nowMs, cost. */
export const TAKE_LUA = `
local units_per_token = ${UNITS_PER_TOKEN}
local burst = tonumber(ARGV[1])
local per_minute = tonumber(ARGV[2])
local per_day = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
local cost = tonumber(ARGV[5])
local day = ARGV[6]
local capacity = burst * units_per_token
local stored = redis.call('HMGET', KEYS[1], 'units', 'ts', 'day', 'used')
local units = capacity
if stored[1] then
  units = math.min(capacity, tonumber(stored[1]) + math.max(0, now - tonumber(stored[2])) * per_minute)
end
local used = 0
if stored[3] == day then used = tonumber(stored[4]) end
local allowed = 0
if cost == -1 then
  allowed = 1
  units = math.min(capacity, units + units_per_token)
  if used > 0 then used = used - 1 end
elseif units >= units_per_token and used < per_day then
  allowed = 1
  if cost == 1 then
    units = units - units_per_token
    used = used + 1
  end
end
redis.call('HSET', KEYS[1], 'units', units, 'ts', now, 'day', day, 'used', used)
redis.call('PEXPIRE', KEYS[1], 172800000)
return {allowed, units, used}
`;

/**
 * The Lua twin of `takeAll`, run atomically by Redis. KEYS: the buckets; ARGV: nowMs, cost, day, then burst,
 * perMinute and perDay of each bucket. Answers allowed, then units and used of each bucket.
 */
export const TAKE_ALL_LUA = `
local units_per_token = ${UNITS_PER_TOKEN}
local now = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local day = ARGV[3]
local units = {}
local used = {}
local allowed = 1
for index, key in ipairs(KEYS) do
  local burst = tonumber(ARGV[1 + index * 3])
  local per_minute = tonumber(ARGV[2 + index * 3])
  local per_day = tonumber(ARGV[3 + index * 3])
  local capacity = burst * units_per_token
  local stored = redis.call('HMGET', key, 'units', 'ts', 'day', 'used')
  units[index] = capacity
  if stored[1] then
    units[index] = math.min(capacity, tonumber(stored[1]) + math.max(0, now - tonumber(stored[2])) * per_minute)
  end
  used[index] = 0
  if stored[3] == day then used[index] = tonumber(stored[4]) end
  if units[index] < units_per_token or used[index] >= per_day then allowed = 0 end
  if cost == -1 then
    allowed = 1
    units[index] = math.min(capacity, units[index] + units_per_token)
    if used[index] > 0 then used[index] = used[index] - 1 end
  end
end
local reply = {allowed}
for index, key in ipairs(KEYS) do
  if allowed == 1 and cost == 1 then
    units[index] = units[index] - units_per_token
    used[index] = used[index] + 1
  end
  redis.call('HSET', key, 'units', units[index], 'ts', now, 'day', day, 'used', used[index])
  redis.call('PEXPIRE', key, 172800000)
  reply[#reply + 1] = units[index]
  reply[#reply + 1] = used[index]
end
return reply
`;
